"""The answers read off a grid of cells: the best K per budget and the minimal budget per metric.

Reference: spec "Grid" ("minimal budget" = the smallest N x K for which some K reaches p < 0.05) and "Real data"
(a real-data cell that draws more items than its pool holds is extrapolation, not a measurement).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from nkcore.nk.metrics import METRICS
from nkcore.nk.pvalue import SIGNIFICANCE


@dataclass(frozen=True, slots=True)
class MinimalBudget:
    """Smallest budget at which some K reaches p < 0.05 for a metric (None when no budget on the grid does).

    ``n``: its items (N); ``extrapolated``: on real data, that split draws more items than the pool of items with K
    ratings holds (``pool``), so it is a projection beyond the data, not a measurement (:func:`extrapolated`).
    """

    metric: str
    budget: int | None
    k: int | None
    p: float | None
    n: int | None = None
    extrapolated: bool = False
    pool: int | None = None


@dataclass(frozen=True, slots=True)
class BestK:
    """The K with the smallest p at one budget (ties: larger Delta / CI-width, then smaller K)."""

    metric: str
    budget: int
    k: int
    n: int
    p: float
    delta: float
    ci_width: float
    extrapolated: bool = False
    pool: int | None = None


def best_k(cells: Iterable, metric: str) -> list[BestK]:
    """Per budget, the K with the smallest p (ties: larger Delta / CI-width, then smaller K).

    Works on simulated ``CellResult`` and real-data ``ResampleCell`` alike (fields budget, k, n, metric, p,
    delta, ci_width). A real-data cell whose N exceeds the items the data has with K ratings (``n_qualifying``)
    is extrapolation (items drawn again and again), not a measurement: a budget with any measured cell takes its
    best K among those.

    >>> from types import SimpleNamespace as C
    >>> cells = [C(budget=100, k=1, n=100, metric="acc", p=0.001, delta=0.1, ci_width=0.1, n_qualifying=50),
    ...          C(budget=100, k=2, n=50, metric="acc", p=0.01, delta=0.1, ci_width=0.1, n_qualifying=50)]
    >>> [(b.k, b.p) for b in best_k(cells, "acc")]  # K = 1 needs 100 items of 50
    [(2, 0.01)]
    """
    by_budget: dict[int, list] = {}
    for c in cells:
        if c.metric == metric and np.isfinite(c.p):
            by_budget.setdefault(c.budget, []).append(c)
    out = []
    for b in sorted(by_budget):
        best = min(by_budget[b], key=lambda c: (extrapolated(c), c.p, -_ratio(c), c.k))
        pool = getattr(best, "n_qualifying", None)
        out.append(BestK(metric, b, best.k, best.n, best.p, best.delta, best.ci_width, extrapolated(best), pool))
    return out


def extrapolated(cell: object) -> bool:
    """A real-data cell draws more items (N) than its pool holds (``n_qualifying``: the items with at least K
    ratings), so items repeat and the cell extrapolates beyond the data. Simulated cells have no pool: False.

    >>> from types import SimpleNamespace as S
    >>> extrapolated(S(n=2500, k=1, n_qualifying=500)), extrapolated(S(n=111, k=9, n_qualifying=500))
    (True, False)
    >>> extrapolated(S(n=2500, k=1))
    False
    """
    pool = getattr(cell, "n_qualifying", None)
    return pool is not None and int(cell.n) > int(pool)  # type: ignore[attr-defined]


def _ratio(c: object) -> float:
    w = float(c.ci_width)  # type: ignore[attr-defined]
    d = float(c.delta)  # type: ignore[attr-defined]
    return d / w if w > 0 else (np.inf if d > 0 else 0.0)


def minimal_budgets(cells: Iterable, metrics: Sequence[str] | None = None, significance: float = SIGNIFICANCE) -> list:
    """Per metric, the smallest budget at which some K reaches p < ``level`` (spec: "minimal budget").

    The K reported is that budget's best K (smallest p). Metrics that never reach it get ``budget=None``. On real
    data a budget whose every split draws more items than the data has still counts (it is the answer there is), but
    is flagged ``extrapolated``: the sentences say it is a projection beyond the pool, not a measurement.
    """
    cells = list(cells)
    present = [m for m in METRICS if any(c.metric == m for c in cells)]
    out: list[MinimalBudget] = []
    for mt in metrics or present:
        hit = next((bk for bk in best_k(cells, mt) if bk.p < significance), None)
        out.append(
            MinimalBudget(mt, hit.budget, hit.k, hit.p, hit.n, hit.extrapolated, hit.pool)
            if hit
            else MinimalBudget(mt, None, None, None)
        )
    return out


def minimal_budgets_by_rows(
    budgets: Sequence[int],
    row: Callable[[int, Sequence[str]], Iterable],
    metrics: Sequence[str],
    significance: float = SIGNIFICANCE,
    progress: Callable[[float], None] | None = None,
) -> list[MinimalBudget]:
    """:func:`minimal_budgets` computed one budget row at a time: ``row(budget, metrics)`` gives that budget's cells
    (every K) of the metrics not answered yet, budgets in ascending order; a metric is answered at its first row
    with p < ``significance`` and not asked again. The same answers as :func:`minimal_budgets` of every row (a
    metric's minimal budget and its best K depend on its rows up to that budget only), without the rows above.

    >>> from types import SimpleNamespace as C
    >>> p = {(100, "acc"): 0.2, (250, "acc"): 0.01, (100, "tv"): 0.03}
    >>> asked = []
    >>> def row(b, mts):
    ...     asked.append((b, tuple(mts)))
    ...     return [C(budget=b, k=1, n=b, metric=m, p=p.get((b, m), 0.5), delta=0.1, ci_width=0.1) for m in mts]
    >>> [(m.metric, m.budget) for m in minimal_budgets_by_rows([100, 250, 500], row, ["acc", "tv"])], asked
    ([('acc', 250), ('tv', 100)], [(100, ('acc', 'tv')), (250, ('acc',))])
    """
    found: dict[str, MinimalBudget] = {}
    rows = sorted(budgets)
    for i, b in enumerate(rows):
        wanted = [m for m in metrics if m not in found]
        if not wanted:
            break
        cells = list(row(b, wanted))
        for mb in minimal_budgets(cells, wanted, significance):
            if mb.budget is not None:
                found[mb.metric] = mb
        if progress is not None:
            progress((i + 1) / len(rows))
    return [found.get(m, MinimalBudget(m, None, None, None)) for m in metrics]


__all__ = ["BestK", "MinimalBudget", "best_k", "extrapolated", "minimal_budgets", "minimal_budgets_by_rows"]
