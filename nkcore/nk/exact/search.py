"""Minimal budget and best K on the continuous budget axis (any budget, not only the paper's nine).

For a fixed K, the exact engine's p is a function of the number of items N alone; the smallest N with
p < significance is found by bracketing (doubling N from 1) and bisection, then the N just below it are checked one by
one (``BACKTRACK``) because on a lattice p is not always monotone in N (tie and parity effects move it by
small amounts: tests/test_nk_exact.py). The minimal budget of a metric is min over K of N_K x K.
Reference: spec "Grid" ("minimal budget": the smallest N x K for which some K reaches p < 0.05), on every
budget instead of the paper's nine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from nkcore.errors import DataError
from nkcore.nk.best import BestK, MinimalBudget, best_k, minimal_budgets_by_rows
from nkcore.nk.exact.cells import cell_p
from nkcore.nk.exact.engine import exact_grid
from nkcore.nk.exact.laws import item_laws, item_laws_many
from nkcore.nk.grid import PAPER_KS
from nkcore.nk.metrics import ITEM_METRICS, METRICS, parse_metrics
from nkcore.nk.priors import validate_prior
from nkcore.nk.pvalue import SIGNIFICANCE

BACKTRACK = 8
"""Items (N) below the bisection's answer that are checked one by one (p is not always monotone on a lattice)."""


def _metric(metric: str) -> str:
    (mt,) = parse_metrics(metric)
    if mt not in METRICS or not METRICS[mt].per_item:
        raise DataError(
            f"metric {mt!r} is not a mean over items: the continuous search takes {', '.join(ITEM_METRICS)}"
        )
    return mt


def smallest_n(prior: Sequence[float], eps: float, metric: str, k: int, significance: float, max_n: int) -> int | None:
    """The smallest N <= max_n with p(N, K) < significance (None if even max_n does not reach it).

    Bracket by doubling, bisect, then check the ``BACKTRACK`` N below the answer (the first that reaches it wins).
    """
    alt, null = item_laws(prior, eps, k, [metric])
    a, b = alt[metric], null[metric]
    p_at: dict[int, float] = {}

    def p(n: int) -> float:
        if n not in p_at:
            p_at[n] = cell_p(a, b, n)
        return p_at[n]

    if max_n < 1 or p(max_n) >= significance:
        return None
    lo, hi = 0, 1  # invariant: p(hi) < significance; lo = 0 or p(lo) >= significance
    while hi < max_n and p(hi) >= significance:
        lo, hi = hi, min(2 * hi, max_n)
    if p(hi) >= significance:
        hi = max_n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if p(mid) < significance:
            hi = mid
        else:
            lo = mid
    for n in range(max(1, hi - BACKTRACK), hi):
        if p(n) < significance:
            return n
    return hi


def min_budget_continuous(
    prior: Sequence[float],
    eps: float,
    metric: str,
    ks: Iterable[int] = PAPER_KS,
    significance: float = SIGNIFICANCE,
    max_budget: int = 50_000,
) -> MinimalBudget:
    """The smallest budget N x K (any whole N, K in ``ks``) at which p < ``level``, with its K and p.

    Formula: min over K of K N_K, N_K = the smallest N with p(N, K) < significance (``smallest_n``); ties: smaller K.
    The K are searched in the order of the normal form's prediction, each only below the best budget so far.

    >>> mb = min_budget_continuous((1.37658107, 1.33054633), 0.3, "acc", ks=[1])
    >>> mb.k, mb.budget, mb.p < 0.05
    (1, 1346, True)
    """
    mt = _metric(metric)
    a = tuple(float(x) for x in validate_prior(prior))
    if not 0 < significance < 1:
        raise DataError(f"significance must be between 0 and 1, got {significance}")
    kk = sorted({int(x) for x in ks})
    if any(k < 1 for k in kk):
        raise DataError(f"ratings per item (K) must be at least 1, got {min(kk)}")
    best: tuple[int, int, int] | None = None
    for k in sorted(kk, key=lambda k: (_normal_budget(a, eps, mt, k, significance), k)):
        cap = int(max_budget) // k
        if best is not None:
            cap = min(cap, best[0] // k)  # only budgets below the best so far can win
        n = smallest_n(a, eps, mt, k, significance, cap)
        if n is not None and (best is None or n * k < best[0]):
            best = (n * k, k, n)
    if best is None:
        return MinimalBudget(mt, None, None, None)
    budget, k, n = best
    alt, null = item_laws(a, eps, k, [mt])
    return MinimalBudget(mt, budget, k, cell_p(alt[mt], null[mt], n))


def _normal_budget(prior: tuple[float, ...], eps: float, metric: str, k: int, significance: float) -> float:
    """The budget the normal form predicts at K: K (z_level sd / mean)^2 (only orders the search: the K most
    likely to win are searched first, so the others are cut short by the best budget found so far)."""
    alt, null = item_laws(prior, eps, k, [metric])
    a, b = alt[metric], null[metric]
    if a.mean <= 0:
        return float("inf")
    from scipy import stats  # on demand: scipy.stats is slow to import (the CLI's start-up)

    z = float(stats.norm.isf(significance))
    return k * (z * np.sqrt(a.var + b.var) / a.mean) ** 2


def best_k_for_budget(
    prior: Sequence[float], eps: float, metric: str, budget: int, ks: Iterable[int] = PAPER_KS
) -> BestK:
    """At one budget (any whole number), the K with the smallest p (ties: larger Delta / CI-width, then smaller K).

    >>> bk = best_k_for_budget((1.37658107, 1.33054633), 0.3, "tv", 1000, ks=[1, 20, 120])
    >>> bk.k, bk.n
    (120, 8)
    """
    mt = _metric(metric)
    kk = [k for k in sorted({int(x) for x in ks}) if 1 <= k <= int(budget)]
    if not kk:
        raise DataError(f"no ratings per item (K) fits the budget {budget}: every K is larger")
    (found,) = best_k(exact_grid(prior, eps, [int(budget)], kk, [mt]), mt)
    return found


def min_budgets_on_grid(
    prior: Sequence[float],
    eps: float,
    budgets: Iterable[int],
    ks: Iterable[int] = PAPER_KS,
    metrics: Sequence[str] = ITEM_METRICS,
    significance: float = SIGNIFICANCE,
    progress: Callable[[float], None] | None = None,
) -> list[MinimalBudget]:
    """Every metric's minimal budget among ``budgets`` (the grid's), as ``minimal_budgets(exact_grid(...))`` gives it,
    from the grid's rows up to each metric's answer only.

    The budgets are taken in ascending order, one row of every K at a time, for the metrics not answered yet, all in
    one call (the per-item laws of one K are drawn once for all of them; a law does not depend on the other metrics
    asked with it, ``laws``); a metric is answered at the first row where some K reaches p < ``significance``, so the
    rows above it are never computed. A row is first read through ``cell_p`` (the p of ``cell_numbers``, without
    its quantiles and errors), and only the metrics it answers get the row's full cells, whose best K (ties: larger
    Delta / CI-width) is the answer. The cells are the grid's own (same laws, same N), so the answers are the same
    numbers, only sooner: the Budget page's table of every metric's minimal budget. ``progress``: the share of
    rows done, after each row (:func:`nkcore.nk.best.minimal_budgets_by_rows`).

    >>> from nkcore.nk.best import minimal_budgets
    >>> toxicity, both = (1.37658107, 1.33054633), ("tv", "acc")
    >>> fast = min_budgets_on_grid(toxicity, 0.3, (100, 1000), (1, 20), both)
    >>> fast == minimal_budgets(exact_grid(toxicity, 0.3, (100, 1000), (1, 20), both), both)
    True
    >>> [(m.metric, m.budget, m.k) for m in fast]
    [('tv', 1000, 20), ('acc', None, None)]
    """
    mts = [_metric(m) for m in metrics]
    a = tuple(float(x) for x in validate_prior(prior))
    kk = sorted({int(x) for x in ks})

    def row(budget: int, wanted: Sequence[str]) -> list:
        fits = [k for k in kk if k <= budget]
        if not fits:
            return []
        laws = item_laws_many(a, eps, fits, wanted)  # cached; each K's items drawn once for every metric

        def reaches(mt: str) -> bool:
            return any(cell_p(laws[k][0][mt], laws[k][1][mt], budget // k) < significance for k in fits)

        hit = [mt for mt in wanted if reaches(mt)]  # the others' cells cannot change their answer: not computed
        return exact_grid(a, eps, [budget], fits, hit) if hit else []

    return minimal_budgets_by_rows(sorted({int(b) for b in budgets}), row, mts, significance, progress)


__all__ = ["BACKTRACK", "best_k_for_budget", "min_budget_continuous", "min_budgets_on_grid", "smallest_n"]
