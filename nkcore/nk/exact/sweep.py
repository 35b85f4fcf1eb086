"""Several grids at once (priors x eps, as the paper's sweep): whole grids on the cores, one process each.

A grid on its own runs on two processes that share its values of K (``split``): the fastest way to one grid, but
it costs more CPU than one process does (the pages both processes fault on again after the fork, the pool's low
blocks drawn by both, the child's laws handed over; docs/benchmarks.md). Several grids are independent tasks, so
here each worker process computes whole grids on one process, taking the next from a shared queue, the costliest
first (``engine.expected_seconds``), and the second core is never split. The numbers are those of ``exact_grid``, which do not depend on the process that
computes them. Failure only costs time: if a worker dies, the grids it had not returned are computed here.
Reference: docs/nk-method.md, "Exact engine".
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from nkcore.errors import DataError
from nkcore.nk.exact import split
from nkcore.nk.exact.engine import check_eps, exact_grid, expected_seconds
from nkcore.nk.grid import PAPER_BUDGETS, PAPER_KS, CellResult, configurations
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.priors import validate_prior

Job = tuple[tuple[float, ...], float]


def _one(job: Job, budgets: tuple[int, ...], ks: tuple[int, ...], metrics: tuple[str, ...]) -> list[CellResult]:
    return exact_grid(job[0], job[1], budgets, ks, metrics, processes=1, workers=1)


def exact_grids(
    jobs: Sequence[tuple[Sequence[float], float]],
    budgets: Iterable[int] = PAPER_BUDGETS,
    ks: Iterable[int] = PAPER_KS,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    processes: int | None = None,
) -> list[list[CellResult]]:
    """``exact_grid`` of every (prior, eps) of ``jobs``, in their order: with more than one job and more than one
    process (``split.processes``), each grid on one worker process (module doc); else one after the other.

    Formula and reference: ``exact_grid``.

    >>> a, b = exact_grids([((1.0, 2.0), 0.1), ((1.0, 2.0), 0.3)], [100], [1], ["acc"])
    >>> [round(c.delta, 4) for c in a + b]  # K = 1: eps (sum a (a + 1) / (a0 (a0 + 1)) - 1 / M) = eps / 6
    [0.0167, 0.05]
    """
    todo: list[Job] = [(tuple(float(x) for x in validate_prior(a)), check_eps(e)) for a, e in jobs]
    bs, kk, mts = tuple(int(b) for b in budgets), tuple(int(k) for k in ks), parse_metrics(metrics)
    if not todo:
        raise DataError("no grid to compute: give at least one prior and one eps")
    configs = len(configurations(bs, kk))
    workers = min(split.processes(processes), len(todo))
    if workers == 1:
        return [exact_grid(a, e, bs, kk, mts, processes=processes) for a, e in todo]
    order = sorted(range(len(todo)), key=lambda i: -expected_seconds(len(todo[i][0]), len(kk), configs, mts))
    out: dict[int, list[CellResult]] = {}
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("fork"))
    try:
        futures: dict[int, Future[list[CellResult]]] = {i: pool.submit(_one, todo[i], bs, kk, mts) for i in order}
        for i in order:
            out[i] = futures[i].result()
    except BrokenProcessPool:  # a worker died: what it had not returned is computed here
        pass
    finally:  # an error (or an interrupt) drops the grids not started
        pool.shutdown(wait=True, cancel_futures=True)
    for i in order:
        if i not in out:
            out[i] = _one(todo[i], bs, kk, mts)
    return [out[i] for i in range(len(todo))]


__all__ = ["exact_grids"]
