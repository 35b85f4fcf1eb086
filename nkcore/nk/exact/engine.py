"""``exact_cell`` and ``exact_grid``: the Budget page's and the CLI's cells from the exact engine.

Same ``CellResult`` as ``grid.simulate_grid`` (budget, K, N, metric, p, Delta, CI-width, reproducibility, ties,
mean gap), with ``method`` ("lattice", "edgeworth"; "simulate" for macro F1, which is not a mean over items and
falls back to the simulation), the accuracy fields ``p_error``, ``delta_error``, ``ci_width_error`` (0 where
exact), ``rounds`` = 0 and ``alt`` / ``null`` = 1000 quantile points of the gap's law. The per-item laws are
computed once per K (``laws.item_laws``, cached; the small K together, ``laws.item_laws_many``) and serve every
budget; a cell computed from the same law objects before is looked up (``cell_cache``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.nk.cell import make_cell
from nkcore.nk.exact import split
from nkcore.nk.exact.cell_cache import cached_cell, keep_cell, known_cell
from nkcore.nk.exact.cells import cell_numbers
from nkcore.nk.exact.laws import adopt_laws, cached_laws, item_laws, item_laws_many, missing_laws
from nkcore.nk.exact.pool import POOL_MIN_K, keep_prefixes
from nkcore.nk.grid import PAPER_BUDGETS, PAPER_KS, CellResult, Config, configurations, simulate_cell
from nkcore.nk.metrics import METRICS, PAPER_METRICS, parse_metrics
from nkcore.nk.priors import validate_prior
from nkcore.nk.simulate import default_workers

FALLBACK_ROUNDS = 1000
"""Rounds of the simulation for the metrics the engine does not compute (macro F1)."""
LAW_SHARE = 0.6
"""Share of a grid's progress bar given to the per-item laws (the rest to the cells)."""
SPLIT_MIN_S = 1.5
"""A grid of two K or more runs on two processes where the machine has two cores (``split``) when its expected
work (``expected_seconds``) is at least this; a smaller one on one process, where the laws of the small K (one
nested stream, which the parent computes alone) are most of the work and the fork and the transfer of the
results are not repaid (timings behind the threshold: docs/benchmarks.md)."""


def expected_seconds(m: int, laws_missing: int, configs: int, metrics: Sequence[str]) -> float:
    """Rough CPU seconds of a grid: its K whose laws are still to compute x ``Metric.law_ms`` per metric x
    (1 + M / 4) (orders of magnitude fitted to grids timed on the reference machine), plus 1 ms per cell (3 for the
    metrics that take logs, whose few-item cells use a fine lattice). Decides one process or two.

    >>> round(expected_seconds(2, 35, 142, ["acc"]), 2), round(expected_seconds(12, 35, 142, ["kl"]), 2)
    (0.56, 4.63)
    """
    per_k = sum(METRICS[mt].law_ms for mt in metrics) * (1.0 + m / 4.0)
    cells = configs * sum(3.0 if METRICS[mt].takes_logs else 1.0 for mt in metrics)
    return (laws_missing * per_k + cells) / 1000.0


def check_grid_work(
    ms: Sequence[int], budgets: Sequence[int], ks: Sequence[int], metrics: Sequence[str], what: str = "the grid"
) -> None:
    """Refuse exact grids whose estimated CPU time is over ``NKP_MAX_GRID_WORK`` before any law is computed: the sum
    over the grids (one per number of labels M in ``ms``) of ``expected_seconds(M, every K of the grid, its
    configurations, the per-item metrics)`` (no law cached: the worst case; the estimate is about twice the measured
    time on the reference machine, docs/reliability.md).

    >>> check_grid_work([2], (1000,), (1, 2, 3), ("acc",))
    >>> check_grid_work([2], range(1000, 10001, 1000), range(1, 501), ("acc", "tv", "wins", "kl"))
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: the grid has 73,500 estimated CPU milliseconds of exact grids; the limit is 30,000 \
estimated CPU milliseconds of exact grids (server setting NKP_MAX_GRID_WORK): ask for fewer budgets, K, metrics or \
grids (the paper's whole sweep: raise the setting for that run)
    """
    work = grid_work_ms(ms, budgets, ks, metrics)
    if work:
        limits.check("grid_work", work, what)


def grid_work_ms(ms: Sequence[int], budgets: Sequence[int], ks: Sequence[int], metrics: Sequence[str]) -> int:
    """Estimated CPU milliseconds of the exact grids of ``budgets`` x ``ks`` (one per number of labels M in ``ms``)
    with no law cached: 1000 x sum over M of ``expected_seconds(M, the grid's K, its configurations, the per-item
    metrics)`` (0 when no metric is a mean over items); what :func:`check_grid_work` holds to ``NKP_MAX_GRID_WORK``.

    KL (30 ms a law) on 12 labels, 500 K x 10 budgets: 500 x 30 x (1 + 12 / 4) + 5,000 cells x 3 ms:

    >>> grid_work_ms([12], range(1000, 10001, 1000), range(1, 501), ("kl",))
    75000
    """
    item = [mt for mt in metrics if METRICS[mt].per_item]
    if not item:
        return 0
    cfgs = configurations(budgets, ks)
    n_k = len({c.k for c in cfgs})
    return round(1000 * sum(expected_seconds(m, n_k, len(cfgs), item) for m in ms))


def check_eps(eps: float) -> float:
    """eps as a float in [0, 1], or a ``DataError`` that says what is wrong with it."""
    try:
        e = float(eps)
    except (TypeError, ValueError) as exc:
        raise DataError(f"eps must be a number between 0 and 1, got {eps!r}") from exc
    if not 0.0 <= e <= 1.0:
        raise DataError(f"eps must be between 0 and 1, got {eps}")
    return e


def _laws_for_k(
    prior: tuple[float, ...], eps: float, k: int, cfgs: Sequence[Config], mts: Sequence[str], laws: bool = True
) -> list:
    """The per-item laws of K (cached by ``item_laws``; ``laws`` False: already there) and the simulation's macro F1
    cells, if asked: the part of a K's work that is mostly numpy (draws, transforms) and so runs well on worker
    threads."""
    item = [m for m in mts if METRICS[m].per_item]
    if item and laws:
        item_laws(prior, eps, k, item)
    rest = [m for m in mts if not METRICS[m].per_item]
    if not rest:
        return []
    return [simulate_cell(prior, eps, cfg.budget, cfg.k, [mt], FALLBACK_ROUNDS, 0)[0] for cfg in cfgs for mt in rest]


def _cells_for_k(
    prior: tuple[float, ...],
    eps: float,
    k: int,
    cfgs: Sequence[Config],
    mts: Sequence[str],
    f1: Sequence[CellResult] | None = None,
) -> list:
    item = [m for m in mts if METRICS[m].per_item]
    rest = [m for m in mts if not METRICS[m].per_item]
    out: dict[tuple[int, str], CellResult] = {}
    if item:
        alt, null = item_laws(prior, eps, k, item)
        for cfg in cfgs:
            for mt in item:
                got = cached_cell(alt[mt], null[mt], cfg.budget, cfg.k, mt)
                if got is None:
                    numbers = cell_numbers(alt[mt], null[mt], cfg.n)
                    got = keep_cell(alt[mt], null[mt], make_cell(cfg.budget, cfg.k, cfg.n, mt, numbers, 0))
                out[(cfg.budget, mt)] = got
    if rest:  # not a mean over items (macro F1): the simulation's cell
        sims = _laws_for_k(prior, eps, k, cfgs, rest) if f1 is None else f1
        for sim in sims:
            out[(sim.budget, sim.metric)] = sim
    return [out[(cfg.budget, mt)] for cfg in cfgs for mt in mts]


def exact_cell(
    prior: Sequence[float],
    eps: float,
    budget: int,
    k: int,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
) -> list[CellResult]:
    """One cell (budget, K) from the exact engine, one ``CellResult`` per metric (numbers without a seed).

    Formula: p = P(S0 >= S1) with S1, S0 the sums of N = floor(budget / K) per-item gaps under the alternative
    and the null (after the sign rule), Delta = |E d1|, CI-width = q97.5 - q2.5 of S1 / N (docs/nk-method.md,
    "Exact engine"). Reference: spec "p-value, effect size, interval".

    >>> (c,) = exact_cell((1.37658107, 1.33054633), 0.3, 100, 1, ["acc"])
    >>> c.method, round(c.delta, 4), c.p_error, c.rounds
    ('lattice', 0.0405, 0.0, 0)
    """
    (cfg,) = configurations([budget], [k]) if int(k) <= int(budget) else _too_big(budget, k)
    a = tuple(float(x) for x in validate_prior(prior))
    return _cells_for_k(a, check_eps(eps), cfg.k, [cfg], parse_metrics(metrics))


def _too_big(budget: int, k: int) -> list[Config]:
    raise DataError(f"ratings per item (K) = {k} is larger than the budget {budget}: no item fits")


def _uncached(
    prior: tuple[float, ...], eps: float, by_k: dict[int, list[Config]], item: Sequence[str], missing: set[int]
) -> int:
    """Configurations of the grid with some item metric's cell not in the cache of cells (every one of a K whose laws
    are missing; the others looked up under their cached laws): the cells' part of ``expected_seconds``."""
    count = 0
    for k, cfgs in by_k.items():
        if k in missing:
            count += len(cfgs)
            continue
        alt, null = item_laws(prior, eps, k, item)  # cached: a lookup
        count += sum(1 for c in cfgs if not all(known_cell(alt[m], null[m], c.budget, k, m) for m in item))
    return count


def exact_grid(
    prior: Sequence[float],
    eps: float,
    budgets: Iterable[int] = PAPER_BUDGETS,
    ks: Iterable[int] = PAPER_KS,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    progress: Callable[[float], None] | None = None,
    workers: int | None = None,
    processes: int | None = None,
) -> list[CellResult]:
    """Every cell of a grid of budgets x K from the exact engine (the paper's 282 configurations by default).

    The cells come in the order of ``grid.simulate_grid`` (budgets ascending, then K, then the metrics).
    ``progress`` (optional) receives the done fraction in [0, 1] after each K; an exception it raises stops
    the run (the K not yet started are dropped). On ``processes`` (default ``split.processes()``: 2 on a machine
    with two cores) when the grid's ``expected_seconds`` (its missing laws, its cells not cached) reach
    ``SPLIT_MIN_S``: the parent and a forked child take the K from the two ends of one queue, each computing a K's
    laws and cells in turn on one thread
    (``split.run_shared``; the parent first the small K, which share one stream of items, then the others upwards;
    the child from the largest K downwards, keeping the pool's block sums of its K on the way,
    ``pool.keep_prefixes``), and the child's laws join this process's cache. On one process, two phases: the
    per-item laws of every K (and the simulation's macro F1 cells) on ``workers`` threads (default: the cores; their
    draws and transforms are numpy calls that release the GIL), then the cells on the calling thread (many small
    steps that hold the GIL: run beside the laws they cost more CPU and slowed the grid down, docs/benchmarks.md).
    The numbers do not depend on either. Reference: docs/nk-method.md, "Exact
    engine".
    """
    mts = parse_metrics(metrics)
    a = tuple(float(x) for x in validate_prior(prior))
    e = check_eps(eps)
    cfgs = configurations(budgets, ks)
    limits.check("budget", max(c.budget for c in cfgs), "the largest budget")
    by_k: dict[int, list[Config]] = {}
    for c in cfgs:
        by_k.setdefault(c.k, []).append(c)
    done: dict[tuple[int, int, str], CellResult] = {}
    weights = {k: float(sum(c.n for c in v)) + 1000.0 for k, v in by_k.items()}
    total, acc = float(sum(weights.values())), 0.0
    order = sorted(by_k, key=lambda k: -weights[k])  # the costliest laws first keep the threads busy to the end
    nw = default_workers() if workers is None else min(max(1, int(workers)), 64)
    item = [m for m in mts if METRICS[m].per_item]
    law_share = LAW_SHARE if item else 0.0
    f1: dict[int, list] = {}
    small = [k for k in order if k < POOL_MIN_K] if item else []
    if split.processes(processes) > 1 and len(by_k) >= 2 and item:
        missing = missing_laws(a, e, list(by_k), item)
        work = expected_seconds(len(a), len(missing), _uncached(a, e, by_k, item, set(missing)), item)
    else:
        work = 0.0
    if work >= SPLIT_MIN_S:
        queue = sorted(k for k in by_k if k not in small)  # ascending: the parent takes it upwards, the child down

        def head() -> dict[int, list]:
            item_laws_many(a, e, small, item)
            return {k: _cells_for_k(a, e, k, by_k[k], mts) for k in small}

        got = split.run_shared(
            head if small else None,
            float(sum(weights[k] for k in small)),
            queue,
            [weights[k] for k in queue],
            lambda k: _cells_for_k(a, e, k, by_k[k], mts),
            lambda ks: cached_laws(a, e, ks, item),
            adopt_laws,
            progress,
            functools.partial(keep_prefixes, queue),
        )
        for k, cells in got.items():
            alt, null = item_laws(a, e, k, item)  # the child's K: its laws, adopted into this process's cache
            for cell in cells:
                mt = cell.metric
                if mt in alt and not known_cell(alt[mt], null[mt], cell.budget, k, mt):
                    cell = keep_cell(alt[mt], null[mt], cell)
                done[(cell.budget, cell.k, mt)] = cell
        return [done[(c.budget, c.k, mt)] for c in cfgs for mt in mts]
    with ThreadPoolExecutor(max_workers=nw) as pool:  # one worker: the calling thread only waits for it
        # the small K together (one nested stream of items, ``laws.item_laws_many``), first: the costliest
        joint = pool.submit(item_laws_many, a, e, small, item) if small else None
        futures = {k: pool.submit(_laws_for_k, a, e, k, by_k[k], mts, k not in small) for k in order}
        try:
            for k in order:
                if joint is not None and k in small:
                    joint.result()
                f1[k] = futures[k].result()
                acc += weights[k] * law_share
                if progress is not None:
                    progress(min(1.0, acc / total))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    for k in order:  # the cells on this thread, once every law is there (see above)
        for cell in _cells_for_k(a, e, k, by_k[k], mts, f1[k]):
            done[(cell.budget, cell.k, cell.metric)] = cell
        acc += weights[k] * (1.0 - law_share)
        if progress is not None:
            progress(min(1.0, acc / total))
    return [done[(c.budget, c.k, mt)] for c in cfgs for mt in mts]


__all__ = [
    "FALLBACK_ROUNDS",
    "check_eps",
    "check_grid_work",
    "exact_cell",
    "exact_grid",
    "expected_seconds",
    "grid_work_ms",
]
