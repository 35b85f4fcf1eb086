"""(N, K) for many models: with N items and K ratings per item, how often do the winner, and the whole order, of
M configs come out as on the full data? And the smallest budget N x K whose winner is reproducible.

The paper's real-data resampling (docs/nk-method.md, "Real data"; Forest vs Tree, arXiv 2508.03663, names ranking
its future work) extended from two models to M: one draw takes N items with replacement from the data's items and,
for each drawn item and each config, K of that item's ratings of the config without replacement (K capped by what
the cell holds). A config's score is the mean over the N drawn items of the mean of its K drawn ratings (the case
is the unit, as in ``rank``). Over D draws (Monte Carlo error sqrt(p (1 - p) / D) on each share):

- winner agreement: sum_j P(draw's winner is j) P(full data's winner is j), ties broken uniformly at random on both
  sides (so a draw tied between the full winner and one other counts 1/2);
- order agreement: every pair of configs the full data orders (different full scores) ordered the same way by the
  draw, strictly (a tie in the draw is a disagreement);
- Kendall agreement: the mean over pairs of sign(draw difference) x sign(full difference) (Kendall 1938's tau-a
  against the full data's scores; 1 = the same order).

The minimal budget for a reproducible winner is the smallest N x K on the grid whose winner agreement reaches the
target (0.95 by default), fewer ratings per item first among equal budgets (the paper's minimal budget with p < 0.05
read as "the same winner in 95% of repeats of the study").

With a gold config (:mod:`nkcore.manymodels.predictions`), the other configs are models whose predictions are scored
against K of the gold ratings per item (the paper's setting with M models instead of two); the same agreements.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.manymodels.cube import RatingCube
from nkcore.manymodels.predictions import prediction_full_scores, prediction_scores

__all__ = ["Reproducibility", "minimal_budget", "reproducibility", "reproducibility_grid", "resampled_scores"]

_CHUNK_CELLS = 3_000_000  # draws x items x configs x ratings handled at once


@dataclass(frozen=True, slots=True)
class Reproducibility:
    """One (N, K): ``n_items`` N, ``ratings_per_item`` K, ``budget`` N x K ratings per config, over ``draws`` draws:
    the winner agreement ``p_winner``, the order agreement ``p_order`` (each with its Monte Carlo error) and the mean
    Kendall agreement ``kendall``."""

    n_items: int
    ratings_per_item: int
    budget: int
    draws: int
    p_winner: float
    p_winner_error: float
    p_order: float
    p_order_error: float
    kendall: float


def _check_whole(x: int, what: str, low: int = 1) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < low:
        raise DataError(f"{what} must be a whole number of at least {low}; got {x!r}")
    return int(x)


def resampled_scores(
    cube: RatingCube, n_items: int, ratings_per_item: int, draws: int, seed: int | np.random.Generator = 0
) -> np.ndarray:
    """(draws x M) config scores of D resampled studies of N items (with replacement) and K ratings per item and
    config (without replacement, capped by the cell's ratings).

    >>> from nkcore.manymodels.cube import cube_from_array
    >>> c = cube_from_array(np.array([[[1.0, 1.0], [0.0, 1.0]]] * 3))
    >>> resampled_scores(c, 3, 2, 2, seed=0).tolist()
    [[1.0, 0.5], [1.0, 0.5]]
    """
    n_items = _check_whole(n_items, "items (N)")
    k = _check_whole(ratings_per_item, "ratings per item (K)")
    draws = _check_whole(draws, "draws")
    limits.check("rounds", draws, "the (N, K) resampling", counted="draws")
    rng = as_generator(seed)
    full_n, m, kmax = cube.values.shape
    valid = np.isfinite(cube.values)
    filled = np.where(valid, cube.values, 0.0)
    out = np.empty((draws, m))
    step = max(1, _CHUNK_CELLS // max(1, n_items * m * kmax))
    for start in range(0, draws, step):
        d = min(step, draws - start)
        idx = rng.integers(0, full_n, size=(d, n_items))
        v, ok = filled[idx], valid[idx]
        if k >= kmax:
            chosen = ok
        else:
            keys = np.where(ok, rng.random(ok.shape), np.inf)
            rank = np.argsort(np.argsort(keys, axis=3), axis=3)
            chosen = ok & (rank < k)
        item_means = (v * chosen).sum(axis=3) / chosen.sum(axis=3)
        out[start : start + d] = item_means.mean(axis=1)
    return out


def _signs(scores: np.ndarray) -> np.ndarray:
    """sign(s_j - s_k) over the pairs j < k, a gap within rounding (1e-12) counted as a tie."""
    m = scores.shape[-1]
    j, k = np.triu_indices(m, 1)
    gap = scores[..., j] - scores[..., k]
    return np.where(np.abs(gap) <= 1e-12, 0.0, np.sign(gap))


def reproducibility(
    cube: RatingCube,
    n_items: int,
    ratings_per_item: int,
    draws: int = 1000,
    seed: int | np.random.Generator = 0,
    gold: str | None = None,
) -> Reproducibility:
    """Winner and order agreement with the full data at (N, K), by D resampled studies. With ``gold`` (a config
    name), the other configs are models scored against that config's ratings
    (:mod:`nkcore.manymodels.predictions`: K of the gold ratings per item), else each config's own ratings are
    resampled.

    >>> from nkcore.manymodels.cube import cube_from_array
    >>> c = cube_from_array(np.array([[[1.0, 1.0], [0.0, 0.0], [0.5, 0.5]]] * 4))
    >>> r = reproducibility(c, 2, 1, 100); r.p_winner, r.p_order, r.kendall
    (1.0, 1.0, 1.0)
    """
    if gold is None:
        scores = resampled_scores(cube, n_items, ratings_per_item, draws, seed)
        full = cube.full_scores()
    else:
        _check_whole(n_items, "items (N)")
        _check_whole(ratings_per_item, "ratings per item (K)")
        _check_whole(draws, "draws")
        scores = prediction_scores(cube, gold, n_items, ratings_per_item, draws, seed)
        full = prediction_full_scores(cube, gold)
    top_full = np.isclose(full, full.max(), rtol=0.0, atol=1e-12)
    top_draw = np.isclose(scores, scores.max(axis=1, keepdims=True), rtol=0.0, atol=1e-12)
    share = (top_draw & top_full).sum(axis=1) / top_draw.sum(axis=1) / top_full.sum()
    full_sign = _signs(full)
    draw_sign = _signs(scores)
    ordered = full_sign != 0
    same = (draw_sign[:, ordered] == full_sign[ordered]).all(axis=1)
    kendall = (draw_sign * full_sign).mean(axis=1) if full_sign.size else np.ones(draws)
    p_w, p_o = float(share.mean()), float(same.mean())
    n_d = scores.shape[0]
    return Reproducibility(
        n_items=int(n_items),
        ratings_per_item=int(ratings_per_item),
        budget=int(n_items) * int(ratings_per_item),
        draws=n_d,
        p_winner=p_w,
        p_winner_error=float(share.std(ddof=1) / math.sqrt(n_d)) if n_d > 1 else math.nan,
        p_order=p_o,
        p_order_error=math.sqrt(p_o * (1.0 - p_o) / n_d),
        kendall=float(kendall.mean()),
    )


def reproducibility_grid(
    cube: RatingCube,
    items: Sequence[int],
    ratings: Sequence[int],
    draws: int = 1000,
    seed: int = 0,
    gold: str | None = None,
) -> tuple[Reproducibility, ...]:
    """:func:`reproducibility` on every (N, K) of ``items`` x ``ratings`` (``gold``: as there), by budget N x K
    then K; one generator seeded once, so the grid depends on the seed only.

    >>> from nkcore.manymodels.cube import cube_from_array
    >>> c = cube_from_array(np.array([[[1.0, 1.0], [0.0, 0.0]]] * 3))
    >>> [(r.n_items, r.ratings_per_item) for r in reproducibility_grid(c, [2, 1], [1, 2], 10)]
    [(1, 1), (2, 1), (1, 2), (2, 2)]
    """
    if not items or not ratings:
        raise DataError("the (N, K) grid needs at least one number of items and one of ratings per item")
    cells = sorted({(int(n), int(k)) for n in items for k in ratings}, key=lambda c: (c[0] * c[1], c[1], c[0]))
    limits.check("rounds", draws * len(cells), "the (N, K) grid", counted="draws")
    rng = as_generator(seed)
    return tuple(reproducibility(cube, n, k, draws, rng, gold) for n, k in cells)


def minimal_budget(grid: Sequence[Reproducibility], target: float = 0.95) -> Reproducibility | None:
    """The cell of smallest budget N x K whose winner agreement is at least ``target`` (fewer ratings per item first
    among equal budgets); None when none reaches it.

    >>> g = [Reproducibility(10, 1, 10, 100, 0.8, 0.04, 0.5, 0.05, 0.6), Reproducibility(5, 3, 15, 100, 0.96, 0.02,
    ...      0.7, 0.05, 0.8), Reproducibility(20, 1, 20, 100, 0.97, 0.02, 0.8, 0.04, 0.9)]
    >>> minimal_budget(g).budget
    15
    """
    if not 0.0 < target <= 1.0:
        raise DataError(f"the target share must be above 0 and at most 1, e.g. 0.95; got {target}")
    hits = [r for r in grid if r.p_winner >= target]
    return min(hits, key=lambda r: (r.budget, r.ratings_per_item)) if hits else None
