"""The bookkeeping every Monte Carlo engine of (N, K) cells shares: rounds cut into seeded tasks per side, run on
worker threads, joined back in task order (so the numbers do not depend on the workers).

Side 0 is the alternative, side 1 the null; a task is (side, chunk, first round, rounds); each task seeds its own
generator from the request's seed and its key, so the tasks may run in any order on any thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from nkcore.nk.simulate import default_workers

T = TypeVar("T")
J = TypeVar("J")


def workers(asked: int | None) -> int:
    """Worker threads: the cores by default, else the number asked, within 1-64."""
    return default_workers() if asked is None else min(max(1, int(asked)), 64)


def side_jobs(rounds: int, per: int) -> list[tuple[int, int, int, int]]:
    """Tasks (side, chunk, first round, rounds) of ``rounds`` rounds per side, ``per`` rounds a task.

    >>> side_jobs(5, 2)
    [(0, 0, 0, 2), (0, 1, 2, 2), (0, 2, 4, 1), (1, 0, 0, 2), (1, 1, 2, 2), (1, 2, 4, 1)]
    """
    return [(side, c, s, min(per, rounds - s)) for side in (0, 1) for c, s in enumerate(range(0, rounds, per))]


def run_jobs(jobs: Sequence[J], run: Callable[[J], T], nw: int) -> list[T]:
    """``run`` of every job, in the jobs' order: on ``nw`` threads (numpy releases the GIL in the heavy calls), or
    on this thread for one worker or one job."""
    if nw == 1 or len(jobs) <= 1:
        return [run(j) for j in jobs]
    with ThreadPoolExecutor(max_workers=nw) as pool:
        return list(pool.map(run, jobs))


def by_side(jobs: Sequence[tuple[int, ...]], results: Sequence[T]) -> tuple[list[T], list[T]]:
    """The results of the alternative's tasks and of the null's (a job's first entry is its side), in task order."""
    alt = [r for j, r in zip(jobs, results, strict=True) if j[0] == 0]
    nul = [r for j, r in zip(jobs, results, strict=True) if j[0] == 1]
    return alt, nul


__all__ = ["by_side", "run_jobs", "side_jobs", "workers"]
