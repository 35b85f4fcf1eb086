"""Long computations off the interactive path: a progress bar, a Cancel button, one computation per key.

:func:`ui.common.progress.compute_with_progress` runs an nkcore function that reports progress (a ``progress`` keyword
receiving the done fraction in [0, 1], as ``nkcore.nk.grid.simulate_grid`` does) on a worker thread, not in the
session's script.
The session meanwhile shows a progress bar and a Cancel button and polls the work every 0.25 s; each poll is a
Streamlit call, i.e. a point where a rerun (a changed widget, the Cancel button) or a closed tab stops the session.

- **Once per key**: running work is listed in a process-wide table keyed on (function, dataset fingerprints,
  parameters), the same key as :func:`ui.common.cache.compute`. A second session asking for the same key while it runs
  joins it and sees the same progress; it does not start another computation.
- **Cancel**: the button stops this session's wait. The work itself stops (at its next progress report) once no
  session has waited for it for :data:`GRACE_S` seconds, so a quick rerun of the same view keeps it, and one
  viewer's Cancel does not take the result from another viewer who is still waiting.
- **Background**: :func:`prefetch` queues computations a reader will likely ask for next (the Budget page: the
  other metrics of the grid on screen). One background thread runs them one at a time, only while no foreground
  work runs and no page has started or ended a run for :data:`IDLE_S`. A foreground work that starts stops the
  background work at its next progress report, and so does a page run that has not joined it within :data:`JOIN_S`
  (so it does not slow down what a reader waits for); a session asking for a background work's key joins it. A
  background work computes on one process (``nkcore.nk.exact.split.one_process``): the second core stays free.
- **Cache**: a finished result goes into a Streamlit cache (``max_entries`` :data:`MAX_ENTRIES`) under that key,
  and the work leaves the table; later sessions read the cache. A failed work (e.g. ``DataError``) is not cached:
  each waiting session raises its error. Nothing else keeps frames or results alive.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from nkcore.nk.exact import split
from ui.common import cache

__all__ = [
    "GRACE_S",
    "MAX_ENTRIES",
    "SHOW_AFTER_S",
    "Job",
    "Work",
    "page_run_started",
    "peek",
    "prefetch",
    "running",
    "start_or_join",
    "stop_background",
    "warm",
]

T = TypeVar("T")

GRACE_S = 3.0
POLL_S = 0.25
SHOW_AFTER_S = 0.4
"""The progress bar and the Cancel button appear only for a work still running after this many seconds."""
MAX_ENTRIES = 64


class _NotCached(Exception):
    """Raised inside the cached lookup on a miss, so that the miss is not cached."""


class _Cancelled(Exception):
    """Raised from the progress callback once nobody waits for the work any more."""


@dataclass
class Work:
    """One running computation: its progress, waiters and outcome (mutable, shared between sessions)."""

    key: str
    label: str
    fraction: float = 0.0
    waiters: int = 0
    left_at: float = field(default_factory=time.monotonic)
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    cancelled: bool = False
    background: bool = False
    """Started by :func:`prefetch` and not yet joined by a session: yields to foreground works and page runs."""
    generation: tuple[int, int] = (0, 0)
    """Foreground works and page runs started before this work (a background work stops once either grows)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def join(self) -> None:
        """Count one more session waiting for this work (a background work becomes a foreground one)."""
        with self.lock:
            self.waiters += 1
            self.background = False

    def leave(self) -> None:
        """Count one session fewer; the grace period starts when the last one leaves."""
        with self.lock:
            self.waiters -= 1
            self.left_at = time.monotonic()

    def abandoned(self) -> bool:
        """True once no session has waited for the work for ``GRACE_S`` seconds; for a background work, once a
        foreground work has started since it did, or a page run did more than :data:`JOIN_S` ago (time for that
        page to join it, if it wants this result)."""
        with self.lock:
            if self.background:
                works, runs = self.generation
                return _WORKS_STARTED > works or (
                    _PAGE_RUNS > runs and time.monotonic() - _LAST_PAGE_ACTIVITY >= JOIN_S
                )
            return self.waiters <= 0 and time.monotonic() - self.left_at > GRACE_S


_WORK: dict[str, Work] = {}
_WORK_LOCK = threading.Lock()
_WORKS_STARTED = 0
"""Foreground works started in this process, and calls of :func:`stop_background` (under ``_WORK_LOCK``)."""
_PAGE_RUNS = 0
"""Page runs started in this process, any session (under ``_WORK_LOCK``)."""
_LAST_PAGE_ACTIVITY = 0.0
"""``time.monotonic()`` at the start of the latest page run, or at the latest :func:`prefetch` (which a page calls
at the end of its run) if later (under ``_WORK_LOCK``)."""
IDLE_S = 1.0
"""A background job starts only once no page has started a run, and none has queued jobs, for this many seconds
(the last page drawn by the browser meanwhile)."""
JOIN_S = 0.5
"""A page run stops a running background work after this many seconds, unless it joined it by then."""


def page_run_started() -> None:
    """Note that a page run started (``ui.common.page.setup_page`` calls it, for every session): a running background
    work stops at its first progress report after :data:`JOIN_S` (unless the page joined it), and the next one waits
    until the pages have been idle for :data:`IDLE_S`."""
    global _PAGE_RUNS, _LAST_PAGE_ACTIVITY
    with _WORK_LOCK:
        _PAGE_RUNS += 1
        _LAST_PAGE_ACTIVITY = time.monotonic()


def running() -> dict[str, Work]:
    """A snapshot of the work running now (key digest -> Work); empty when nothing runs."""
    with _WORK_LOCK:
        return dict(_WORK)


@st.cache_data(show_spinner=False, max_entries=MAX_ENTRIES)
def _stored(name: str, fingerprints: tuple[str, ...], params: cache.Params, _source: Callable[[], Any]) -> Any:
    """The cached result of a finished work: on a miss ``_source()`` supplies it (or raises ``_NotCached``)."""
    return _source()


def _not_cached() -> Any:
    raise _NotCached


def peek(name: str, fingerprints: tuple[str, ...], params: cache.Params) -> tuple[bool, Any]:
    """(True, value) if the result is in the cache, else (False, None); never computes."""
    try:
        return True, _stored(name, fingerprints, params, _not_cached)
    except _NotCached:
        return False, None


def _run(
    work: Work,
    func: Callable[..., Any],
    name: str,
    fingerprints: tuple[str, ...],
    params: cache.Params,
    frames: tuple[pd.DataFrame, ...],
) -> None:
    """The worker thread's body: compute with a progress callback, cache the result, leave the table."""

    def progress(fraction: float) -> None:
        work.fraction = min(max(float(fraction), 0.0), 1.0)
        if work.abandoned():
            raise _Cancelled

    start = time.perf_counter()
    ok = False
    try:
        kwargs = dict(params)
        if _takes_progress(func):
            kwargs["progress"] = progress
        value = func(*frames, **kwargs)
        cache.record_computation(name, fingerprints, params, time.perf_counter() - start)
        work.result, ok = value, True
        work.fraction = 1.0
    except _Cancelled:
        work.cancelled = True
    except BaseException as exc:  # handed to the waiting sessions, which raise it
        work.error = exc
    finally:
        try:
            if ok:
                result = work.result
                _stored(name, fingerprints, params, lambda: result)
        except BaseException as exc:  # a value the cache cannot store: the waiters still get it
            work.error = work.error or exc
        finally:
            with _WORK_LOCK:
                if _WORK.get(work.key) is work:
                    del _WORK[work.key]
            work.done.set()


def _takes_progress(func: Callable[..., object]) -> bool:
    try:
        return "progress" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def start_or_join(
    func: Callable[..., Any], *datasets: cache.HasFrame, label: str = "Computing", **params: object
) -> tuple[Work | None, Any]:
    """(None, value) when the result is cached; else (work, None) for the running work of this key, started now
    if none runs. The caller must :meth:`Work.join` (done here) and later :meth:`Work.leave` it."""
    global _WORKS_STARTED
    name = cache.name_of(func)
    if "progress" in params:
        raise TypeError("compute_with_progress passes its own progress callback")
    fps = tuple(d.fingerprint for d in datasets)
    frozen = cache.frozen_params(params)
    hit, value = peek(name, fps, frozen)
    if hit:
        return None, value
    digest = cache.key_digest(name, fps, frozen)
    with _WORK_LOCK:
        work = _WORK.get(digest)
        if work is None:
            # a work may have finished between the peek and the lock: it cached its result before leaving the table
            hit, value = peek(name, fps, frozen)
            if hit:
                return None, value
            work = Work(digest, label)
            _WORK[digest] = work
            work.join()
            _WORKS_STARTED += 1
            frames = tuple(d.frame for d in datasets)
            thread = threading.Thread(
                target=_run, args=(work, func, name, fps, frozen, frames), name=f"nkp-work-{digest}", daemon=True
            )
            thread.start()
            return work, None
    work.join()
    return work, None


@dataclass(frozen=True)
class Job:
    """One computation for :func:`prefetch`: ``func(*[d.frame for d in datasets], **params)``, keyed as
    :func:`compute_with_progress` keys it (so a later call with the same arguments finds its result)."""

    func: Callable[..., Any]
    datasets: tuple[cache.HasFrame, ...] = ()
    params: dict[str, object] = field(default_factory=dict)
    label: str = "Computing"


_QUEUE: list[Job] = []
"""Background jobs not started yet (under ``_WORK_LOCK``); each :func:`prefetch` replaces them."""
_QUEUE_VERSION = 0
"""How many times :func:`prefetch` has replaced the queue (under ``_WORK_LOCK``)."""
_RUNNER: threading.Thread | None = None
"""The background thread, while it runs (under ``_WORK_LOCK``)."""


def prefetch(jobs: list[Job]) -> None:
    """Compute ``jobs`` in the background, one at a time, while no foreground work runs (module doc).

    Replaces the jobs queued before and not started (the newest view's guesses win); a job already cached or
    running is skipped; the first starts :data:`IDLE_S` after this call at the earliest. Only functions with a
    ``progress`` parameter are taken (a foreground work can stop them at their next report): the others are
    ignored. Returns at once.
    """
    global _RUNNER, _QUEUE_VERSION, _LAST_PAGE_ACTIVITY
    keep = [j for j in jobs if _takes_progress(j.func) and "progress" not in j.params]
    with _WORK_LOCK:
        _QUEUE[:] = keep
        _QUEUE_VERSION += 1
        _LAST_PAGE_ACTIVITY = time.monotonic()  # called at the end of a page run: its page still draws in the browser
        if keep and (_RUNNER is None or not _RUNNER.is_alive()):
            _RUNNER = threading.Thread(target=_background_loop, name="nkp-background", daemon=True)
            _RUNNER.start()


def warm(job: Job) -> None:
    """Compute ``job`` into the shared cache and wait for it, unless it is cached (a running work of its key is
    joined): :func:`start_or_join`, as a page's computation starts it.

    For numbers every first viewer asks for (the Budget page's default grid, at ``ui.serve``'s start-up): unlike
    :func:`prefetch`, the work does not yield to page runs (it holds a waiter until it ends, as a page does), and a
    page asking for the same key meanwhile joins it rather than starting its own. A failed work raises its error."""
    work, _ = start_or_join(job.func, *job.datasets, label=job.label, **job.params)
    if work is None:  # cached
        return
    try:
        work.done.wait()
    finally:
        work.leave()
    if work.error is not None:
        raise work.error


def stop_background(timeout: float = 30.0) -> bool:
    """Drop the queued background jobs and stop the running one at its next progress report; True once no
    background work runs (waits up to ``timeout`` seconds). Tests call it so one test's prefetch does not run into
    the next."""
    global _WORKS_STARTED, _QUEUE_VERSION
    with _WORK_LOCK:
        _QUEUE.clear()
        _QUEUE_VERSION += 1
        _WORKS_STARTED += 1  # as a foreground work would: the background one stops
        running = [w for w in _WORK.values() if w.background]
    end = time.monotonic() + timeout
    return all(w.done.wait(max(0.0, end - time.monotonic())) for w in running)


def _background_loop() -> None:
    """The background thread's body: the queued jobs in order, each once no foreground work runs."""
    global _RUNNER
    while True:
        with _WORK_LOCK:
            busy = any(not w.background for w in _WORK.values()) or time.monotonic() - _LAST_PAGE_ACTIVITY < IDLE_S
            if not _QUEUE:
                _RUNNER = None
                return
            job = None if busy else _QUEUE.pop(0)
            generation = (_WORKS_STARTED, _PAGE_RUNS)  # what starts after this stops the job
            version = _QUEUE_VERSION
        if job is None:
            time.sleep(POLL_S)
            continue
        work = _start_background(job, generation)  # runs it on this thread, to the end or to its stop
        if work is not None and work.cancelled:  # a reader came first: drop the rest, unless a page queued its own
            with _WORK_LOCK:
                if _QUEUE_VERSION == version:
                    _QUEUE.clear()


def _start_background(job: Job, generation: tuple[int, int]) -> Work | None:
    """Run one job on this thread as a background :class:`Work` (``generation``: the foreground works and page runs
    started before it), unless cached or running; the work, or None."""
    name = cache.name_of(job.func)
    fps = tuple(d.fingerprint for d in job.datasets)
    frozen = cache.frozen_params(job.params)
    if peek(name, fps, frozen)[0]:
        return None
    digest = cache.key_digest(name, fps, frozen)
    with _WORK_LOCK:
        if digest in _WORK:
            return None
        work = Work(digest, job.label, background=True, generation=generation)
        _WORK[digest] = work
    with split.one_process():  # the second core stays with the reader (a fork would take it)
        _run(work, job.func, name, fps, frozen, tuple(d.frame for d in job.datasets))
    return work
