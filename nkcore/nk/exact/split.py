"""One grid on two processes: the parent and a forked child take the values of K from one shared queue.

The cells of a grid depend on K only through the per-item laws of that K, so the K are independent tasks (the
small K, which share one nested stream of items, are one task the parent takes first). Threads cannot share
this work: the cells are many short numpy calls that hold the GIL (two threads were slower than one).
Two processes can. ``run_shared`` forks one child (fork: the child starts with the parent's imports and caches,
laws already computed included, at the cost of a few milliseconds), and both take K from the two ends of one
shared queue until they meet, the parent from the low end and the child from the high end, so a costly K on
either side does not leave the other idle (the laws' cost per K varies fourfold between priors). The two ends
keep each process's K contiguous: the pool of items that serves the large K (``pool``) is drawn in nested
blocks, so the child, which starts at the largest K, draws every block once and keeps the sums for the K below
(``child_setup``), and the parent draws only the blocks up to where they meet (block counts and their CPU:
docs/benchmarks.md). The child stores each result in shared memory as soon as it has it (``_Arena``), with
whatever ``collect`` adds (the engine: the laws of that K, so the parent's cache has every K afterwards), sends the
list of them at its end, and reports its progress through a shared number, so it never waits on a parent busy with
its own share.

Failure never changes a number, it only costs time: if the child reports an error, dies, or makes no progress for
``WATCHDOG_S`` seconds (a fork from a process whose other threads held a lock the child needs can block it), the
parent kills it and computes the K it has not returned itself. A parent's progress callback that raises (a
cancelled page) kills the child too. The numbers do not depend on which process computed a K (each K's laws have
their own seeds). Reference: docs/nk-method.md, "Exact engine".
"""

from __future__ import annotations

import contextlib
import mmap
import multiprocessing as mp
import os
import pickle
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

WATCHDOG_S = 20.0
"""The child is given up when its progress has not moved for this many seconds (a K takes well under 1 s)."""
POLL_S = 0.05
"""The parent's wait for the child: how often it checks the child's progress (and calls its own callback)."""


ARENA_BYTES = 1 << 30
"""Size of the shared memory the child hands its results over in (``_Arena``: reserved, not used, before the fork;
only the pages written take memory)."""
ARENA_ALIGN = 64
"""Each array in the arena starts at a multiple of this many bytes."""
ARENA_MIN_BYTES = 1 << 16
"""Arrays smaller than this stay in their pickle, from which the parent copies them: an array viewing the arena
keeps all of it mapped while it lives, which suits the per-item laws (large, cached and dropped together) but not
the cells' quantile points (8 kB each, which a page's cache may keep long after the laws are gone)."""


Record = tuple[bytes | None, int, int, list[tuple[int, int]]]
"""One of the child's results as it hands it over: (its pickle, or None when the pickle is in the arena; the pickle's
offset and length in the arena; [(offset, bytes)] of each of its buffers in the arena)."""


class _Arena:
    """Shared memory mapped before the fork, through which the child hands over its results without a copy through
    the pipe. Each result is pickled (protocol 5) as soon as it is computed, while the parent is still busy with its
    own share: its large arrays out of band, each copied once into the arena, and the pickle itself into the arena
    too, so at its end the child sends only the records (``Record``). The parent unpickles each result from the
    arena: its large arrays as arrays viewing that memory, which stays mapped while any of them lives, the small ones
    (``ARENA_MIN_BYTES``) copied out of the pickle, whose pages are then given back (``release``). Anything that
    does not fit goes through the pipe (pipe against arena, timed: docs/benchmarks.md)."""

    def __init__(self, size: int) -> None:
        self.memory: mmap.mmap | None = None
        with contextlib.suppress(OSError, ValueError):  # no such mapping here (strict overcommit): all by pipe
            self.memory = mmap.mmap(-1, size)  # anonymous, MAP_SHARED: the forked child writes what the parent reads
        self.used = 0

    def _room(self, nbytes: int, align: int) -> int | None:
        """Where ``nbytes`` can go at a multiple of ``align`` (and reserve them), or None where they do not fit."""
        start = -(-self.used // align) * align
        if self.memory is None or start + nbytes > len(self.memory):
            return None
        self.used = start + nbytes
        return start

    def store(self, obj: object) -> Record:
        """``obj`` pickled into the arena, its large buffers out of band; what does not fit stays in the record."""
        table: list[tuple[int, int]] = []

        def place(buf: pickle.PickleBuffer) -> bool:
            raw = buf.raw()
            start = None if raw.nbytes < ARENA_MIN_BYTES else self._room(raw.nbytes, ARENA_ALIGN)
            if start is None:
                return True  # in band
            assert self.memory is not None
            self.memory[start : start + raw.nbytes] = raw
            table.append((start, raw.nbytes))
            return False

        data = pickle.dumps(obj, protocol=5, buffer_callback=place)
        page = mmap.PAGESIZE  # the pickle on pages of its own, which the parent gives back once it has read them
        start = self._room(-(-len(data) // page) * page, page)
        if start is None:
            return data, 0, 0, table
        assert self.memory is not None
        self.memory[start : start + len(data)] = data
        return None, start, len(data), table

    def load(self, record: Record) -> Any:
        """The object of a ``store`` record (its large arrays viewing the arena)."""
        data, start, nbytes, table = record
        if self.memory is None:  # nothing could be stored: all in the record
            assert data is not None
            return pickle.loads(data)
        view = memoryview(self.memory)
        return pickle.loads(
            view[start : start + nbytes] if data is None else data, buffers=[view[o : o + n] for o, n in table]
        )

    def release(self, record: Record) -> None:
        """Give back the pages of a record's pickle once it is read (best effort: the mapping stays mapped while any
        of its arrays lives, and otherwise the pages would stay with it)."""
        data, start, nbytes, _ = record
        if data is None and nbytes and self.memory is not None:
            with contextlib.suppress(AttributeError, OSError, ValueError):  # MADV_REMOVE: Linux only
                self.memory.madvise(mmap.MADV_REMOVE, start, -(-nbytes // mmap.PAGESIZE) * mmap.PAGESIZE)


ENV = "NKP_PROCESSES"
"""Environment variable that sets the default of ``processes`` (1: never fork, e.g. where forking is unwelcome)."""


_LOCAL = threading.local()


@contextlib.contextmanager
def one_process() -> Iterator[None]:
    """Within it, grids computed on this thread use one process (``processes()`` is 1): for work nobody waits on
    yet, such as the app's background prefetch, which should leave the second core to what a reader waits for.

    >>> with one_process():
    ...     processes()
    1
    """
    before = getattr(_LOCAL, "one", False)
    _LOCAL.one = True
    try:
        yield
    finally:
        _LOCAL.one = before


def processes(requested: int | None = None) -> int:
    """Processes a grid may use: ``requested`` (at least 1); else 1 inside ``one_process``; else the environment's
    ``NKP_PROCESSES``; else 2 where the machine has 2 cores or more and the platform can fork, else 1.

    >>> processes(1), processes(3)
    (1, 3)
    """
    if requested is None and getattr(_LOCAL, "one", False):
        return 1
    if requested is None and os.environ.get(ENV, "").strip().isdigit():
        requested = int(os.environ[ENV])
    if requested is not None:
        return max(1, int(requested))
    if "fork" not in mp.get_all_start_methods():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return 2 if cores >= 2 else 1


def _claim(ends: Any, high: bool) -> int | None:
    """The next index from the queue's low end (``high`` False) or high end; None once the two ends have met.
    ``ends`` holds [next low index, next high index] under one lock."""
    with ends.get_lock():
        lo, hi = int(ends[0]), int(ends[1])
        if lo > hi:
            return None
        if high:
            ends[1] = hi - 1
            return hi
        ends[0] = lo + 1
        return lo


def _child(
    conn: Any,
    arena: _Arena,
    ends: Any,
    done: Any,
    keys: Sequence[int],
    weights: Sequence[float],
    task: Callable[[int], T],
    collect: Callable[[list[int]], Any],
    setup: Callable[[], None] | None,
) -> None:
    """The child's loop: ``setup()``, then take the key at the queue's high end, compute it and what ``collect``
    adds, store both in the arena, add the key's weight to ``done``; at the end send the records."""
    code = 0
    try:
        if setup is not None:
            setup()
        records: list[Record] = []
        while (i := _claim(ends, True)) is not None:
            key = keys[i]
            records.append(arena.store((key, task(key), collect([key]))))
            with done.get_lock():
                done.value += weights[i]
        conn.send(("ok", records))
    except BaseException as exc:  # anything: the parent computes the rest itself
        code = 1
        with contextlib.suppress(BaseException):
            conn.send(("error", repr(exc)))
    finally:
        with contextlib.suppress(BaseException):
            conn.close()
        os._exit(code)  # no atexit handlers, finalizers or buffered output of the parent's copy


def run_shared(
    head: Callable[[], dict[int, T]] | None,
    head_weight: float,
    keys: Sequence[int],
    weights: Sequence[float],
    task: Callable[[int], T],
    collect: Callable[[list[int]], Any],
    adopt: Callable[[Any], None],
    progress: Callable[[float], None] | None = None,
    child_setup: Callable[[], None] | None = None,
) -> dict[int, T]:
    """``task(key)`` for every key of ``keys`` (and ``head()``, first, on the parent) on the parent and one forked
    child: the parent takes the keys in order from the low end of a shared queue, the child from the high end,
    until they meet (module doc). ``weights`` (one per key) and ``head_weight`` pace ``progress`` (the done
    fraction, after each of the parent's keys and while it waits); ``child_setup()`` runs in the child before its
    first key; ``collect([key])`` runs in the child after each of its keys, and the parent hands each value to
    ``adopt``, in the order the child computed them.

    >>> out = run_shared(None, 0.0, [1, 2, 3], [1.0, 1.0, 1.0], lambda k: k * k, lambda ks: None, lambda x: None)
    >>> sorted(out.items())
    [(1, 1), (2, 4), (3, 9)]
    """
    ctx = mp.get_context("fork")
    ends = ctx.Array("l", [0, len(keys) - 1])
    done = ctx.Value("d", 0.0)
    total = float(head_weight + sum(weights)) or 1.0
    recv, send = ctx.Pipe(duplex=False)
    arena = _Arena(ARENA_BYTES)
    child = ctx.Process(
        target=_child, args=(send, arena, ends, done, keys, weights, task, collect, child_setup), daemon=True
    )
    child.start()
    send.close()
    mine = 0.0
    out: dict[int, T] = {}

    def report() -> None:
        if progress is not None:
            progress(min(1.0, (mine + float(done.value)) / total))

    try:
        if head is not None:
            out.update(head())
            mine += head_weight
            report()
        while (i := _claim(ends, False)) is not None:
            out[keys[i]] = task(keys[i])
            mine += weights[i]
            report()
        got = _wait(child, recv, arena, done, report)
    except BaseException:
        _stop(child)
        raise
    finally:
        recv.close()
    _stop(child)
    for key, value, extra in got or ():
        out[key] = value
        adopt(extra)
    for k in keys:  # whatever the child did not return (it failed): computed here, where an error is raised
        if k not in out:
            out[k] = task(k)
    return out


def _wait(child: Any, recv: Any, arena: _Arena, done: Any, report: Callable[[], None]) -> list[tuple] | None:
    """The child's results, (key, value, what ``collect`` added) each, or None when it failed or stalled for
    ``WATCHDOG_S``."""
    last, since = float(done.value), time.monotonic()
    while True:
        if recv.poll(POLL_S):
            try:
                status, records = recv.recv()
            except (EOFError, OSError):  # the child died before sending
                return None
            if status != "ok":
                return None
            got = [arena.load(r) for r in records]
            for r in records:
                arena.release(r)
            return got
        if not child.is_alive() and not recv.poll(0):
            return None
        now_done = float(done.value)
        if now_done != last:
            last, since = now_done, time.monotonic()
        elif time.monotonic() - since > WATCHDOG_S:
            return None
        report()


def _stop(child: Any) -> None:
    if child.is_alive():
        child.kill()
    child.join(timeout=5.0)


__all__ = ["ENV", "POLL_S", "WATCHDOG_S", "one_process", "processes", "run_shared"]
