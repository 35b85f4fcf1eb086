"""One grid on two processes: the parent and a forked child take the values of K from one shared queue.

The cells of a grid depend on K only through the per-item laws of that K, so the K are independent tasks (the
small K, which share one nested stream of items, are one task the parent takes first). Threads cannot share
this work: the cells are many short numpy calls that hold the GIL (measured: two threads were slower than one).
Two processes can. ``run_shared`` forks one child (fork: the child starts with the parent's imports and caches,
laws already computed included, at the cost of a few milliseconds), and both take K from the two ends of one
shared queue until they meet, the parent from the low end and the child from the high end, so a costly K on
either side does not leave the other idle (the laws' cost per K varies fourfold between priors). The two ends
keep each process's K contiguous: the pool of items that serves the large K (``pool``) is drawn in nested
blocks, so the child, which starts at the largest K, draws every block once and keeps the sums for the K below
(``child_setup``), and the parent draws only the blocks up to where they meet. Measured on the paper's grid
(four metrics): the two processes drew 70 blocks where one process draws 50, against 98 when both took K in turn
from one counter and each drew every block to the largest K (block draws: DICES 0.76 -> 0.46 s of CPU, JobsQ3
1.36-1.55 -> 0.97-1.14 s). The child keeps its results and sends them in one message at its end, with whatever
``collect`` adds (the engine: the laws it computed, so the parent's cache has every K afterwards), and reports its
progress through a shared number, so it never waits on a parent busy with its own share.

Failure never changes a number, it only costs time: if the child reports an error, dies, or makes no progress for
``WATCHDOG_S`` seconds (a fork from a process whose other threads held a lock the child needs can block it), the
parent kills it and computes the K it has not returned itself. A parent's progress callback that raises (a
cancelled page) kills the child too. The numbers do not depend on which process computed a K (each K's laws have
their own seeds). Reference: docs/nk-method.md, "Exact engine".
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

WATCHDOG_S = 20.0
"""The child is given up when its progress has not moved for this many seconds (a K takes well under 1 s)."""
POLL_S = 0.05
"""The parent's wait for the child: how often it checks the child's progress (and calls its own callback)."""


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
    ends: Any,
    done: Any,
    keys: Sequence[int],
    weights: Sequence[float],
    task: Callable[[int], T],
    collect: Callable[[list[int]], Any],
    setup: Callable[[], None] | None,
) -> None:
    """The child's loop: ``setup()``, then take the key at the queue's high end, compute it, add its weight to
    ``done``; at the end send everything."""
    code = 0
    try:
        if setup is not None:
            setup()
        out: dict[int, T] = {}
        while (i := _claim(ends, True)) is not None:
            out[keys[i]] = task(keys[i])
            with done.get_lock():
                done.value += weights[i]
        conn.send(("ok", out, collect(list(out))))
    except BaseException as exc:  # anything: the parent computes the rest itself
        code = 1
        with contextlib.suppress(BaseException):
            conn.send(("error", repr(exc), None))
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
    first key; ``collect(keys)`` runs in the child after its last key, and the parent hands its value to ``adopt``.

    >>> out = run_shared(None, 0.0, [1, 2, 3], [1.0, 1.0, 1.0], lambda k: k * k, lambda ks: None, lambda x: None)
    >>> sorted(out.items())
    [(1, 1), (2, 4), (3, 9)]
    """
    ctx = mp.get_context("fork")
    ends = ctx.Array("l", [0, len(keys) - 1])
    done = ctx.Value("d", 0.0)
    total = float(head_weight + sum(weights)) or 1.0
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, ends, done, keys, weights, task, collect, child_setup), daemon=True)
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
        got = _wait(child, recv, done, report)
    except BaseException:
        _stop(child)
        raise
    finally:
        recv.close()
    _stop(child)
    if got is not None:
        out.update(got[0])
        adopt(got[1])
    for k in keys:  # whatever the child did not return (it failed): computed here, where an error is raised
        if k not in out:
            out[k] = task(k)
    return out


def _wait(child: Any, recv: Any, done: Any, report: Callable[[], None]) -> tuple[dict, Any] | None:
    """The child's results, or None when it failed or stalled for ``WATCHDOG_S``."""
    last, since = float(done.value), time.monotonic()
    while True:
        if recv.poll(POLL_S):
            try:
                status, payload, extra = recv.recv()
            except (EOFError, OSError):  # the child died before sending
                return None
            return (payload, extra) if status == "ok" else None
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
