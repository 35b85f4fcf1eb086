"""The progress bar and the Cancel button of a long computation (:mod:`ui.common.work` runs it on a worker thread,
once per key across sessions): the session polls the work, and each poll is a point where a rerun or a closed tab
stops the session's wait."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TypeVar

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.common import cache, work
from ui.common.text import md

__all__ = ["MAX_RESTARTS", "compute_with_progress"]

T = TypeVar("T")

MAX_RESTARTS = 3
"""How many times a session starts a work again that was abandoned just before it joined."""


@contextlib.contextmanager
def _waiting(job: work.Work) -> Iterator[None]:
    try:
        yield
    finally:
        job.leave()


def compute_with_progress(
    func: Callable[..., T], *datasets: cache.HasFrame, progress_label: str = "Computing", **params: object
) -> T:
    """``func(*[d.frame for d in datasets], **params)`` with a progress bar and a Cancel button, once per key.

    ``func`` is a module-level nkcore function; if it has a ``progress`` parameter it receives a callback taking
    the done fraction in [0, 1] (the bar follows it, and cancelling stops the work at its next call). A cached
    result returns at once, with no bar, and so does a work that finishes within :data:`ui.common.work.SHOW_AFTER_S` (the bar and
    the button are drawn only after that, so a quick computation does not flash them). After Cancel the page stops with a note and a button that starts again;
    any changed setting (another key) computes as usual. Exceptions of ``func`` (e.g. ``DataError``) propagate.
    Each call returns its own copy of the result (unpickled from the cache), as ``st.cache_data`` does.

    The Budget page's grid, every budget at once (``simulate_grid`` reports progress per chunk of rounds)::

        cells = progress.compute_with_progress(
            grid.simulate_grid, prior=prior.concentration, eps=float(eps), budgets=tuple(budgets), ks=ks,
            metrics=nkm.ALL_METRICS, rounds=rounds, seed=int(seed), progress_label="Computing the grid",
        )
    """
    name = cache.name_of(func)
    fps = tuple(d.fingerprint for d in datasets)
    frozen = cache.frozen_params(params)
    hit, value = work.peek(name, fps, frozen)
    if hit:
        return value
    digest = cache.key_digest(name, fps, frozen)
    flag = f"_work_cancelled_{digest}"
    cancel_key = f"_work_cancel_{digest}"
    if st.session_state.get(flag):
        _show_cancelled(progress_label, digest, flag)
    if st.session_state.get(cancel_key):  # pressed while the previous run waited: that run stopped, this one too
        st.session_state[flag] = True
        _show_cancelled(progress_label, digest, flag)
    box = st.empty()
    bar: DeltaGenerator | None = None
    for _ in range(MAX_RESTARTS):
        job, value = work.start_or_join(func, *datasets, label=progress_label, **params)
        if job is None:
            box.empty()
            return value
        with _waiting(job):
            # a quick work finishes before anything is drawn: no bar and no button flash past
            if bar is None and not job.done.wait(work.SHOW_AFTER_S):
                with box.container():
                    bar = st.progress(job.fraction, text=f"{progress_label}…")
                    st.button("Cancel", key=cancel_key, help="Stop waiting for this computation")
            while not job.done.wait(work.POLL_S):
                if bar is not None:  # always drawn by now: the work did not finish within SHOW_AFTER_S
                    bar.progress(job.fraction, text=f"{progress_label}… {job.fraction:.0%}")
        if job.error is not None:
            box.empty()
            raise job.error
        if not job.cancelled:
            box.empty()
            hit, value = work.peek(name, fps, frozen)  # each session its own copy, as st.cache_data gives
            return value if hit else job.result
        # the work was abandoned just before this session joined it: start it again
    raise RuntimeError(f"{progress_label}: the computation was cancelled repeatedly; reload the page")


def _show_cancelled(label: str, digest: str, flag: str) -> None:
    """The note shown after Cancel, with a button that starts the computation again; stops the run otherwise."""
    if st.button("Compute it", key=f"_work_resume_{digest}", type="primary"):
        del st.session_state[flag]
        st.rerun()
    st.info(f"{md(label)}: cancelled. Change a setting, or press 'Compute it' to start again.")
    st.stop()
