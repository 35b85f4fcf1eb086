"""ui.common.cache and ui.common.work: no frame registry (frames die with their calls), entries bounded by
max_entries, one computation per key across concurrent callers, progress, cancel and errors of long work."""

from __future__ import annotations

import gc
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from nkcore.common import formatting
from nkcore.errors import DataError
from nkcore.nk.exact import split
from ui.common import cache, work

MODULE = "nkcore._test_ui_cache_helpers"


@dataclass(frozen=True)
class Ds:
    """A dataset as pages pass it: a fingerprint and a frame."""

    fingerprint: str
    frame: pd.DataFrame


class Calls:
    """Counts calls of the helper functions below, from any thread."""

    def __init__(self) -> None:
        self.n = 0
        self.lock = threading.Lock()
        self.release = threading.Event()

    def hit(self) -> None:
        with self.lock:
            self.n += 1


CALLS = Calls()


def slow_sum(frame: pd.DataFrame, wait: float = 0.3) -> int:
    """Sum of column x, slowly (long enough for concurrent callers to overlap)."""
    CALLS.hit()
    time.sleep(wait)
    return int(frame["x"].sum())


def gated(frame: pd.DataFrame, steps: int = 50, progress: Callable[[float], None] | None = None) -> int:
    """Sum of column x after ``steps`` progress reports; waits at the first report until CALLS.release is set."""
    CALLS.hit()
    for i in range(steps):
        if progress is not None:
            progress(i / steps)
        if i == 0:
            CALLS.release.wait(10)
        time.sleep(0.01)
    return int(frame["x"].sum())


def processes_seen(frame: pd.DataFrame, progress: Callable[[float], None] | None = None) -> int:
    """The processes an exact grid computed here would use (``split.processes()``)."""
    CALLS.hit()
    return split.processes()


def failing(frame: pd.DataFrame, progress: Callable[[float], None] | None = None) -> int:
    """Always refuses its input."""
    CALLS.hit()
    raise DataError("column x is not usable")


@pytest.fixture(autouse=True)
def helpers() -> Iterator[None]:
    """The helpers as a module-level nkcore module (cache.compute refuses anything else); fresh caches."""
    mod = types.ModuleType(MODULE)
    for fn in (slow_sum, gated, failing, processes_seen):
        fn.__module__ = MODULE
        setattr(mod, fn.__name__, fn)
    sys.modules[MODULE] = mod
    st.cache_data.clear()
    cache.COMPUTED.clear()
    global CALLS
    CALLS = Calls()
    yield
    CALLS.release.set()
    assert work.stop_background()
    del sys.modules[MODULE]
    st.cache_data.clear()


def _ds(values: list[int], tag: str = "") -> Ds:
    frame = pd.DataFrame({"x": values})
    return Ds(f"{tag}{sum(values):x}-{len(values)}".ljust(64, "0")[:64], frame)


def _in_threads(n: int, target: Callable[[], Any]) -> list[Any]:
    out: list[Any] = [None] * n
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        barrier.wait()
        out[i] = target()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return out


def test_streamlit_cache_has_the_per_key_compute_lock_this_module_relies_on() -> None:
    from streamlit.runtime.caching import cache_utils

    assert hasattr(cache_utils.Cache, "compute_value_lock")
    assert not hasattr(cache, "_frames") and not hasattr(cache, "register_frame")


def test_compute_gives_the_function_value_and_caches_it() -> None:
    ds = _ds([1, 2, 3])
    assert cache.compute(slow_sum, ds, wait=0.0) == 6  # oracle: 1 + 2 + 3
    assert cache.compute(slow_sum, ds, wait=0.0) == 6
    assert CALLS.n == 1
    assert cache.COMPUTED[cache.key_digest(f"{MODULE}:slow_sum", (ds.fingerprint,), (("wait", 0.0),))] == 1


def test_frames_are_not_kept_alive_by_the_cache() -> None:
    """The old registry held every frame ever seen; now a frame lives only as long as its caller keeps it."""
    refs = []
    for i in range(5):
        ds = _ds([i, i + 1], tag=f"f{i}")
        assert cache.compute(slow_sum, ds, wait=0.0) == 2 * i + 1
        refs.append(weakref.ref(ds.frame))
        del ds
    gc.collect()
    assert [r() for r in refs] == [None] * 5


def test_entries_are_bounded_by_max_entries() -> None:
    """After max_entries + 8 other keys, the first key has been evicted: asking again computes it again."""
    first = cache.compute_params(formatting.percent, x=0.5)
    assert first == formatting.percent(0.5)
    for i in range(cache.MAX_ENTRIES + 8):
        cache.compute_params(formatting.percent, x=1.0 + i)
    digest = cache.key_digest("nkcore.common.formatting:percent", (), (("x", 0.5),))
    assert cache.COMPUTED[digest] == 1
    cache.compute_params(formatting.percent, x=0.5)
    assert cache.COMPUTED[digest] == 2


def test_concurrent_callers_of_one_key_share_one_computation() -> None:
    ds = _ds(list(range(100)))
    results = _in_threads(8, lambda: cache.compute(slow_sum, ds, wait=0.3))
    assert results == [4950] * 8  # oracle: 99 * 100 / 2
    assert CALLS.n == 1
    other = _ds(list(range(10)))
    results = _in_threads(4, lambda: cache.compute(slow_sum, other, wait=0.3))
    assert results == [45] * 4 and CALLS.n == 2


def test_errors_are_not_cached() -> None:
    ds = _ds([1])
    for _ in range(2):
        with pytest.raises(DataError, match="column x is not usable"):
            cache.compute(failing, ds)
    assert CALLS.n == 2


def test_work_runs_once_per_key_and_every_joiner_gets_the_result() -> None:
    ds = _ds(list(range(1000)))
    got = _in_threads(6, lambda: work.start_or_join(gated, ds, label="sum"))
    works = {id(w) for w, _ in got}
    assert len(works) == 1 and all(w is not None for w, _ in got)
    w = got[0][0]
    assert w.waiters == 6 and not w.done.is_set()
    assert work.running() == {w.key: w}
    CALLS.release.set()
    assert w.done.wait(10)
    for _ in range(6):
        w.leave()
    assert w.result == 499500 and w.error is None and not w.cancelled  # oracle: 999 * 1000 / 2
    assert w.fraction == 1.0 and CALLS.n == 1 and work.running() == {}
    again, value = work.start_or_join(gated, ds, label="sum")
    assert again is None and value == 499500 and CALLS.n == 1  # from the cache


def test_progress_is_reported_to_waiters() -> None:
    ds = _ds([5, 6])
    w, _ = work.start_or_join(gated, ds, steps=50)
    assert w is not None
    CALLS.release.set()
    seen = set()
    while not w.done.wait(0.005):
        seen.add(w.fraction)
    w.leave()
    assert len(seen) >= 3 and max(seen) <= 1.0 and w.result == 11


def test_work_nobody_waits_for_stops_and_is_not_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(work, "GRACE_S", 0.05)
    ds = _ds([7, 8])
    w, _ = work.start_or_join(gated, ds, steps=2000)
    assert w is not None
    w.leave()  # the only viewer pressed Cancel
    assert _until(w.abandoned)  # GRACE_S after the last viewer left
    CALLS.release.set()
    assert w.done.wait(10)
    assert w.cancelled and w.result is None and work.running() == {}
    again, _ = work.start_or_join(gated, ds, steps=3)  # not cached: a new work starts
    assert again is not None and again is not w
    assert again.done.wait(10)
    again.leave()
    assert again.result == 15 and CALLS.n == 2


def test_one_viewer_leaving_does_not_cancel_another_viewers_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(work, "GRACE_S", 0.05)
    ds = _ds([1, 1])
    w, _ = work.start_or_join(gated, ds, steps=20)
    w2, _ = work.start_or_join(gated, ds, steps=20)
    assert w is w2 and w is not None
    w.leave()
    assert _until(lambda: time.monotonic() - w.left_at > work.GRACE_S)  # the grace period of that leave is over
    assert not w.abandoned()  # the other viewer still waits
    CALLS.release.set()
    assert w.done.wait(10)
    w.leave()
    assert not w.cancelled and w.result == 2


def test_work_errors_reach_the_waiters_and_are_not_cached() -> None:
    ds = _ds([3])
    for n in (1, 2):
        w, _ = work.start_or_join(failing, ds)
        assert w is not None and w.done.wait(10)
        w.leave()
        assert isinstance(w.error, DataError) and CALLS.n == n


def _until(cond: Callable[[], bool], timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.005)
    return cond()


def _background() -> work.Work | None:
    return next((w for w in work.running().values() if w.background), None)


def _runner_alive() -> bool:
    """The background thread (``nkp-background``) runs: it ends once its queue is empty, and then starts nothing."""
    return any(t.name == "nkp-background" and t.is_alive() for t in threading.enumerate())


@pytest.fixture
def polls(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], bool]:
    """``polls(n)`` waits until the background thread has declined to start a job ``n`` times (each time it sleeps
    ``work.POLL_S``, made short here): the event that replaces a fixed sleep before asserting nothing started."""
    seen = Calls()
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        if seconds == work.POLL_S and threading.current_thread().name == "nkp-background":
            seen.hit()
        real_sleep(seconds)

    monkeypatch.setattr(work, "POLL_S", 0.005)  # not gated's 0.01 per step, which runs on that thread too
    monkeypatch.setattr(time, "sleep", sleep)
    return lambda n: _until(lambda: seen.n >= n)


@pytest.fixture
def no_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Background jobs start without waiting for the pages to be idle (no page runs in these tests)."""
    monkeypatch.setattr(work, "IDLE_S", 0.0)


def test_prefetch_computes_in_the_background_and_a_later_call_finds_it_cached(no_idle: None) -> None:
    ds = _ds(list(range(100)))
    CALLS.release.set()
    work.prefetch([work.Job(gated, (ds,), {"steps": 3})])
    assert _until(lambda: CALLS.n == 1 and not work.running())
    again, value = work.start_or_join(gated, ds, steps=3)
    assert again is None and value == 4950 and CALLS.n == 1  # oracle: 99 * 100 / 2; from the cache, not recomputed


def test_background_work_keeps_to_one_process_and_a_readers_work_does_not(
    no_idle: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(split.ENV, "2")  # as on a 2-core machine
    bg, fg = _ds([1], "bg"), _ds([2], "fg")
    work.prefetch([work.Job(processes_seen, (bg,), {})])
    assert _until(lambda: CALLS.n == 1 and not work.running())
    _, in_background = work.start_or_join(processes_seen, bg)  # cached by the background work
    f, _ = work.start_or_join(processes_seen, fg)
    assert f is not None and f.done.wait(10)
    f.leave()
    assert in_background == 1 and f.result == 2


def test_a_foreground_work_stops_the_background_one_and_the_queue(no_idle: None) -> None:
    bg, fg, later = _ds([1, 2], "bg"), _ds([5], "fg"), _ds([7], "later")
    work.prefetch([work.Job(gated, (bg,), {"steps": 500}), work.Job(gated, (later,), {"steps": 3})])
    assert _until(lambda: _background() is not None)
    w = _background()
    assert w is not None and w.background and w.waiters == 0
    f, _ = work.start_or_join(gated, fg, steps=3)  # a reader asks for something else
    assert f is not None and not f.background
    CALLS.release.set()
    assert w.done.wait(10) and f.done.wait(10)
    f.leave()
    assert w.cancelled and w.result is None and f.result == 5
    assert _until(lambda: not work.running() and not _runner_alive())  # the background thread is done
    assert CALLS.n == 2  # the background job and the reader's; the queued one was dropped
    again, _ = work.start_or_join(gated, bg, steps=500)  # the stopped work left nothing in the cache
    assert again is not None
    again.leave()


def test_a_reader_asking_for_a_background_key_joins_it(no_idle: None) -> None:
    ds = _ds([4, 4, 4])
    work.prefetch([work.Job(gated, (ds,), {"steps": 20})])
    assert _until(lambda: _background() is not None)
    w = _background()
    joined, _ = work.start_or_join(gated, ds, steps=20)
    assert joined is w and w is not None and not w.background  # now a foreground work: not stopped by others
    CALLS.release.set()
    assert w.done.wait(10)
    w.leave()
    assert w.result == 12 and not w.cancelled and CALLS.n == 1


def test_background_jobs_wait_while_a_foreground_work_runs(no_idle: None, polls: Callable[[int], bool]) -> None:
    fg, bg = _ds([1], "fg"), _ds([2], "bg")
    f, _ = work.start_or_join(gated, fg, steps=3)
    assert f is not None
    work.prefetch([work.Job(gated, (bg,), {"steps": 3})])
    assert polls(3)  # the background thread looked three times and waited each time
    assert CALLS.n == 1 and _background() is None  # not started beside the reader's work
    CALLS.release.set()
    assert f.done.wait(10)
    f.leave()
    assert _until(lambda: CALLS.n == 2 and not work.running())
    again, value = work.start_or_join(gated, bg, steps=3)
    assert again is None and value == 2


def test_a_page_run_stops_the_background_work_and_the_next_waits_for_idle_pages(
    monkeypatch: pytest.MonkeyPatch, polls: Callable[[int], bool]
) -> None:
    monkeypatch.setattr(work, "IDLE_S", 0.5)
    monkeypatch.setattr(work, "JOIN_S", 0.1)
    first, second = _ds([3], "first"), _ds([4], "second")
    work.page_run_started()  # a reader's page run: nothing starts for IDLE_S
    work.prefetch([work.Job(gated, (first,), {"steps": 500})])
    assert polls(3)  # the background thread looked three times within IDLE_S and waited each time
    assert _background() is None and CALLS.n == 0
    assert _until(lambda: _background() is not None)
    w = _background()
    assert w is not None
    work.page_run_started()  # another page run (any session) that does not join it within JOIN_S: it stops
    CALLS.release.set()
    assert w.done.wait(10) and w.cancelled
    work.prefetch([work.Job(gated, (second,), {"steps": 3})])
    assert _until(lambda: CALLS.n == 2 and not work.running())
    again, value = work.start_or_join(gated, second, steps=3)
    assert again is None and value == 4


def test_a_page_run_that_joins_the_background_work_in_time_keeps_it(no_idle: None) -> None:
    ds = _ds([6, 6])
    work.prefetch([work.Job(gated, (ds,), {"steps": 200})])
    assert _until(lambda: _background() is not None)
    w = _background()
    work.page_run_started()  # the reader switches to this very view...
    joined, _ = work.start_or_join(gated, ds, steps=200)  # ...and its page asks for the key within JOIN_S
    assert joined is w and w is not None
    CALLS.release.set()
    assert w.done.wait(10)
    w.leave()
    assert not w.cancelled and w.result == 12 and CALLS.n == 1


def test_stop_background_drops_the_queue_and_stops_the_running_work(no_idle: None) -> None:
    work.prefetch([work.Job(gated, (_ds([1], "a"),), {"steps": 500}), work.Job(gated, (_ds([2], "b"),), {"steps": 3})])
    assert _until(lambda: _background() is not None)
    w = _background()
    CALLS.release.set()
    assert work.stop_background(10) and w is not None and w.cancelled
    assert _until(lambda: not _runner_alive())  # the background thread is done: nothing can start any more
    assert CALLS.n == 1 and not work.running()  # the queued job never started


def test_background_jobs_start_only_after_the_page_that_queued_them_had_time_to_draw(
    monkeypatch: pytest.MonkeyPatch, polls: Callable[[int], bool]
) -> None:
    monkeypatch.setattr(work, "IDLE_S", 0.4)
    CALLS.release.set()
    work.prefetch([work.Job(gated, (_ds([9]),), {"steps": 3})])  # a page calls it at the end of its run
    assert polls(3)  # the background thread looked three times within IDLE_S and waited each time
    assert CALLS.n == 0
    assert _until(lambda: CALLS.n == 1 and not work.running())


def test_prefetch_takes_only_work_that_can_be_stopped(no_idle: None) -> None:
    work.prefetch([work.Job(slow_sum, (_ds([1, 2]),), {"wait": 0.0})])  # no progress parameter: cannot be stopped
    assert _until(lambda: not _runner_alive())  # no background thread (or it ended): nothing can start any more
    assert CALLS.n == 0 and not work.running()


def _page() -> None:
    import pandas as pd
    import streamlit as st

    from ui.common import progress

    class D:
        fingerprint = "ab" * 32
        frame = pd.DataFrame({"x": [2, 3, 4]})

    st.session_state.setdefault("runs", 0)
    st.session_state["runs"] += 1
    helpers = __import__("nkcore._test_ui_cache_helpers", fromlist=["gated"])
    value = progress.compute_with_progress(helpers.gated, D(), progress_label="Summing", steps=5)
    st.markdown(f"sum = {value}")


def test_compute_with_progress_in_a_page_and_cancel_then_compute_again() -> None:
    CALLS.release.set()
    at = AppTest.from_function(_page, default_timeout=30).run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["sum = 9"]  # oracle: 2 + 3 + 4
    assert CALLS.n == 1
    st.cache_data.clear()
    # A Cancel pressed while the previous run waited: the rerun stops with a note and a "Compute it" button.
    digest = cache.key_digest(f"{MODULE}:gated", ("ab" * 32,), (("steps", 5),))
    at.session_state[f"_work_cancelled_{digest}"] = True
    at.run()
    assert not at.exception and [m.value for m in at.markdown] == []
    assert "cancelled" in at.info[0].value and CALLS.n == 1
    at.button(key=f"_work_resume_{digest}").click().run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["sum = 9"] and CALLS.n == 2


GRID: dict[str, Any] = {
    "prior": (2.0, 1.0, 1.0),
    "eps": 0.3,
    "budgets": (100, 250),
    "ks": (1, 2, 5),
    "metrics": "acc",
    "rounds": 60,
}


def test_a_real_grid_through_the_work_equals_the_direct_call() -> None:
    from nkcore.nk import grid

    w, _ = work.start_or_join(grid.simulate_grid, **GRID, seed=3)
    assert w is not None and w.done.wait(60)
    w.leave()
    direct = grid.simulate_grid(**GRID, seed=3)  # oracle: the same function, same seed, no cache, no thread
    assert w.error is None and w.fraction == 1.0
    assert [(c.budget, c.k, c.metric, c.p, c.delta) for c in w.result] == [
        (c.budget, c.k, c.metric, c.p, c.delta) for c in direct
    ]
    again, cached = work.start_or_join(grid.simulate_grid, **GRID, seed=3)
    assert again is None and [c.p for c in cached] == [c.p for c in direct]


def test_a_real_grid_nobody_waits_for_stops_early(monkeypatch: pytest.MonkeyPatch) -> None:
    from nkcore.nk import grid

    monkeypatch.setattr(work, "GRACE_S", 0.0)
    big: dict[str, Any] = {**GRID, "budgets": (1000, 2500), "ks": tuple(range(1, 11)), "rounds": 400, "workers": 1}
    w, _ = work.start_or_join(grid.simulate_grid, **big, seed=4)
    assert w is not None
    w.leave()
    assert w.done.wait(60)
    assert w.cancelled and w.fraction < 1.0 and w.result is None


# ---------------------------------------------------------------------------------------------------- chart specs


def _acc(values: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        {"config": [f"n={2 * i + 1}" for i in range(len(values))], "accuracy": values,
         "ci_low": [v - 0.05 for v in values], "ci_high": [v + 0.05 for v in values]}
    )  # fmt: skip


def test_chart_spec_is_the_builders_spec_and_is_keyed_on_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """Oracle: ``charts.spec`` of the builder called directly; builds counted by a wrapper of the builder."""
    import functools

    from ui import charts
    from ui.charts import paired as charts_paired

    st.cache_data.clear()
    built = Calls()
    real = charts_paired.accuracy_chart

    @functools.wraps(real)
    def counting(*args: Any, **kwargs: Any) -> Any:
        built.hit()
        return real(*args, **kwargs)

    monkeypatch.setattr(charts_paired, "accuracy_chart", counting)
    df = _acc([0.7, 0.8])
    first = cache.chart_spec(charts_paired.accuracy_chart, df)
    assert first == charts.spec(real(df)) and built.n == 1
    # an equal frame (another object) and the same keyword: no new build
    assert cache.chart_spec(charts_paired.accuracy_chart, df.copy()) == first and built.n == 1
    # one changed cell, or another argument: a new build, and a different spec
    changed = cache.chart_spec(charts_paired.accuracy_chart, _acc([0.7, 0.81]))
    assert built.n == 2 and changed != first
    assert cache.chart_spec(charts_paired.accuracy_chart, df, "90%") == charts.spec(real(df, "90%")) and built.n == 3
    st.cache_data.clear()


def test_content_digest_tells_frames_by_every_cell_column_and_dtype() -> None:
    df = _acc([0.7, 0.8])
    d = cache.content_digest(df)
    assert d == cache.content_digest(df.copy())
    assert d != cache.content_digest(df.rename(columns={"ci_low": "lo"}))
    assert d != cache.content_digest(df.astype({"accuracy": "float32"}))
    assert d != cache.content_digest(df.iloc[::-1])
    assert cache.content_digest(df, x=1) != cache.content_digest(df, x=2)


def test_chart_spec_takes_chart_builders_only() -> None:
    with pytest.raises(TypeError, match=r"ui\.charts"):
        cache.chart_spec(slow_sum, pd.DataFrame({"v": [1]}))
