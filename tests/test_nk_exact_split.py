"""The exact grid on two processes (nkcore.nk.exact.split): the same numbers as on one, and failures cost time only."""

from __future__ import annotations

import mmap
import os
import time

import numpy as np
import pytest

from nkcore.nk.exact import engine, laws, split
from nkcore.nk.exact.engine import exact_grid
from nkcore.nk.grid import PAPER_KS
from nkcore.nk.priors import get_prior

BUDGETS = (100, 250, 1000)
KS = (1, 2, 3, 20, 40, 60, 100)


@pytest.fixture(autouse=True)
def small_grids_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """These small grids run on two processes, as the large ones do (``engine.SPLIT_MIN_S``)."""
    monkeypatch.setattr(engine, "SPLIT_MIN_S", 0.0)


def _numbers(cells: list) -> list[tuple]:
    return [
        (c.budget, c.k, c.n, c.metric, c.p, c.delta, c.ci_width, c.p_error, c.ci_width_error, c.method, c.ties)
        for c in cells
    ]


def test_two_processes_give_the_numbers_of_one() -> None:
    alpha = get_prior("JobsQ1").concentration
    laws.clear_caches()
    one = exact_grid(alpha, 0.3, BUDGETS, KS, ["acc", "tv", "kl"], processes=1)
    laws.clear_caches()
    two = exact_grid(alpha, 0.3, BUDGETS, KS, ["acc", "tv", "kl"], processes=2)
    assert _numbers(two) == _numbers(one)
    for a, b in zip(one, two, strict=True):
        assert (a.alt == b.alt).all() and (a.null == b.null).all()


def test_the_childs_laws_join_the_parents_cache() -> None:
    alpha = get_prior("Toxicity").concentration
    laws.clear_caches()
    exact_grid(alpha, 0.3, BUDGETS, KS, ["acc", "kl"], processes=2)
    assert laws.missing_laws(alpha, 0.3, KS, ["acc", "kl"]) == []


def test_the_grid_is_split_only_when_it_is_worth_a_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = split.run_shared

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(split, "run_shared", counted)
    alpha = get_prior("D3code").concentration
    cold = engine.expected_seconds(len(alpha), len(KS), len(BUDGETS) * len(KS), ["acc"])
    warm = engine.expected_seconds(len(alpha), 0, len(BUDGETS) * len(KS), ["acc"])
    assert warm < cold
    monkeypatch.setattr(engine, "SPLIT_MIN_S", (warm + cold) / 2)
    laws.clear_caches()
    exact_grid(alpha, 0.3, BUDGETS, KS, ["acc"], processes=2)  # laws to compute: worth it
    assert len(calls) == 1
    exact_grid(alpha, 0.3, BUDGETS, KS, ["acc"], processes=2)  # laws cached, 21 cells: one process
    assert len(calls) == 1
    laws.clear_caches()
    exact_grid(alpha, 0.3, BUDGETS, KS, ["acc"], processes=1)
    assert len(calls) == 1
    monkeypatch.undo()  # the real threshold: the Budget page's default grid of a 2-label prior stays on one process
    assert engine.expected_seconds(2, len(PAPER_KS), 142, ["acc"]) < engine.SPLIT_MIN_S
    assert engine.expected_seconds(12, len(PAPER_KS), 142, ["kl"]) > engine.SPLIT_MIN_S


def _square(k: int) -> int:
    return k * k


def test_run_shared_hands_every_key_to_one_side_and_reports_progress() -> None:
    seen: list[float] = []
    adopted: list[object] = []
    keys = list(range(1, 40))
    out = split.run_shared(
        lambda: {0: 0}, 1.0, keys, [1.0] * len(keys), _square, lambda ks: sorted(ks), adopted.append, seen.append
    )
    assert out == {k: k * k for k in [0, *keys]}
    assert seen and seen == sorted(seen) and seen[-1] <= 1.0
    assert all(len(one) == 1 for one in adopted)  # collected in the child key by key (if it took any), adopted in order
    theirs = [one[0] for one in adopted]  # type: ignore[index]
    assert set(theirs) <= set(keys) and theirs == sorted(theirs, reverse=True)


def _sleepy(k: int) -> int:
    time.sleep(0.02)
    return k


def test_the_parent_takes_keys_from_the_low_end_and_the_child_from_the_high_end() -> None:
    """Each side's keys are contiguous (the pool's blocks are then drawn once past where the two meet)."""
    adopted: list[list[int]] = []
    keys = list(range(30))
    out = split.run_shared(None, 0.0, keys, [1.0] * len(keys), _sleepy, lambda ks: sorted(ks), adopted.append)
    assert out == {k: k for k in keys}
    theirs = sorted(k for one in adopted for k in one)
    assert theirs, "the child took no key"
    assert theirs == list(range(min(theirs), 30))  # the top of the queue
    assert len(theirs) < len(keys)  # the parent took the bottom


def _shared(a: np.ndarray) -> bool:
    """The array views the arena's shared mapping (through a memoryview of an mmap), at any depth of ``base``."""
    base = a.base
    while base is not None:
        if isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap):
            return True
        base = getattr(base, "base", None)
    return False


def _arrays(k: int) -> tuple[np.ndarray, np.ndarray]:
    time.sleep(0.01)
    return np.arange(20_000, dtype=float) + k, np.full(10, float(k))  # 160 kB and 80 bytes


@pytest.mark.parametrize(("arena", "fits"), [(split.ARENA_BYTES, True), (100_000, False)])
def test_the_childs_large_arrays_come_through_shared_memory(
    arena: int, fits: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's arrays of ``ARENA_MIN_BYTES`` or more arrive as views of the shared arena (no copy through the
    pipe), smaller ones as arrays of their own; where the arena is full they come through the pipe. Same values."""
    monkeypatch.setattr(split, "ARENA_BYTES", arena)
    keys = list(range(12))
    adopted: list[list[int]] = []
    out = split.run_shared(None, 0.0, keys, [1.0] * len(keys), _arrays, lambda ks: sorted(ks), adopted.append)
    theirs = sorted(k for one in adopted for k in one)
    assert theirs
    for k in keys:
        big, small = out[k]
        np.testing.assert_array_equal(big, np.arange(20_000, dtype=float) + k)
        np.testing.assert_array_equal(small, np.full(10, float(k)))
        assert not _shared(small)
    shared = [k for k in theirs if _shared(out[k][0])]
    if fits:
        assert shared == theirs  # every large array of the child: a view of the arena
    else:
        assert len(shared) == 0  # 100 kB: no 160 kB array fits, all came by pipe
    assert all(not _shared(out[k][0]) for k in keys if k not in theirs)


def test_a_failing_child_costs_time_not_numbers() -> None:
    parent = os.getpid()

    def task(k: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return k + 1

    out = split.run_shared(None, 0.0, [1, 2, 3, 4], [1.0] * 4, task, lambda ks: None, lambda x: None)
    assert out == {1: 2, 2: 3, 3: 4, 4: 5}


def test_a_stalled_child_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "WATCHDOG_S", 0.5)
    parent = os.getpid()

    def task(k: int) -> int:
        if os.getpid() != parent:
            time.sleep(60)  # a child blocked (e.g. on a lock its fork copied held)
        return -k

    start = time.monotonic()
    out = split.run_shared(None, 0.0, [1, 2], [1.0, 1.0], task, lambda ks: None, lambda x: None)
    assert out == {1: -1, 2: -2}
    assert time.monotonic() - start < 20


def test_a_cancelled_grid_stops_its_child() -> None:
    class Stop(Exception):
        pass

    def progress(fraction: float) -> None:
        raise Stop

    before = set(_children())
    with pytest.raises(Stop):
        exact_grid(
            get_prior("DICES").concentration, 0.27, BUDGETS, PAPER_KS[:14], ["acc"], progress=progress, processes=2
        )
    deadline = time.monotonic() + 0.2  # the child is gone within 0.2 s (looked at until then, not slept through)
    while not set(_children()) <= before and time.monotonic() < deadline:
        time.sleep(0.005)
    assert set(_children()) <= before


def _children() -> list[int]:
    import multiprocessing as mp

    return [p.pid for p in mp.active_children() if p.pid is not None]


def test_processes_default_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(split.ENV, "1")
    assert split.processes() == 1
    monkeypatch.setenv(split.ENV, "3")
    assert split.processes() == 3
    assert split.processes(2) == 2
    monkeypatch.delenv(split.ENV)
    assert split.processes() in (1, 2)


def test_the_arena_round_trip_and_the_pickles_pages_given_back() -> None:
    """A stored object comes back equal, its large array viewing the arena and its small one a copy; once released,
    the pages of its pickle read as zeros (given back), while the large array's stay as they were."""
    arena = split._Arena(1 << 22)
    big, small = np.arange(20_000, dtype=float), np.full(10, 7.0)
    record = arena.store(("k", big, small))
    data, start, nbytes, table = record
    assert data is None and start % mmap.PAGESIZE == 0 and len(table) == 1
    key, big2, small2 = arena.load(record)
    assert key == "k" and _shared(big2) and not _shared(small2)
    arena.release(record)
    assert arena.memory is not None
    assert bytes(arena.memory[start : start + nbytes]) == bytes(nbytes)
    np.testing.assert_array_equal(big2, big)
    np.testing.assert_array_equal(small2, small)
    full = split._Arena(4096)  # no room for the large array nor, after it, for the pickle: all in the record
    data, _, _, table = full.store(("k", big))
    assert data is not None and table == []
    np.testing.assert_array_equal(full.load((data, 0, 0, table))[1], big)
