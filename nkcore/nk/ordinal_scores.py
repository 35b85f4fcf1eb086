"""Metrics of ordered labels (MAE of the item mean, Wasserstein-1, Spearman) and Homan et al.'s raters check.

The labels are points v_1 < ... < v_M on a line (``nkcore.nk.ordinal`` reads and bins them):

- MAE of the item mean rating: mean_i |a_i - h_i|, h_i = sum_m v_m c_im / sum_m c_im (the raters' mean on item i),
  a_i = sum_m v_m q_im (the model's mean: its probabilities q, or its label as a point mass);
- Wasserstein-1 between the raters' and the model's rating distributions on item i, averaged over items:
  W_i = sum_{j < M} |F_h(j) - F_a(j)| (v_{j+1} - v_j), F the cumulative shares (Villani 2009, the 1-D formula);
- Spearman correlation over items of the item means (h_i, a_i): Pearson correlation of their ranks (ties averaged).

Homan et al. (arXiv 2412.02968) report that MAE needs many raters per item ("even with 1,000 items, >= 25
raters"). :func:`homan_check` tests that on a dataset: at N = 1,000 items it resamples items with replacement and
K ratings per item without replacement (as :mod:`nkcore.nk.resample`), scores the MAE gap of two models (positive:
A is closer to the raters), and finds the smallest K whose comparison is reproducible by the paper's rule
(p < 0.05 against the null of each item's two predictions swapped by a fair coin, :func:`nkcore.nk.pvalue.cell_stats`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from nkcore.common import limits
from nkcore.common.formatting import plural
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.kinds.values import show_value
from nkcore.nk.draws import draw_k
from nkcore.nk.pvalue import SIGNIFICANCE, cell_stats, p_standard_error
from nkcore.nk.resample import RESAMPLE_WORK_FACTOR

HOMAN_N = 1000
"""Items (N) of Homan et al.'s claim."""
HOMAN_K = 25
"""Ratings per item (K) Homan et al. say MAE needs."""
CHECK_KS: tuple[int, ...] = (*range(1, 11), 15, 20, 25, 30, 40, 50)


@dataclass(frozen=True, slots=True)
class OrdinalScores:
    """One model against the raters on ordered labels: ``mae``, ``wasserstein`` (mean over items), ``spearman``
    (over items of the item means), ``n_items``."""

    model: str
    mae: float
    wasserstein: float
    spearman: float
    n_items: int


@dataclass(frozen=True, slots=True)
class HomanCheck:
    """Is MAE's comparison of two models reproducible at N items with K ratings per item, for each K tried?

    ``p_by_k``: the paper's p of the MAE gap per K (the items with at least K ratings are drawn from);
    ``smallest_k``: the smallest K with p < 0.05 (None: none tried); ``holds``: True when that K is at least 25 or
    no K up to at least 25 suffices, False when a K below 25 suffices, None when the data stop below 25 ratings per
    item and no K suffices (the claim cannot be tested); ``full_gap``: MAE_B - MAE_A on all ratings (``mae_a``,
    ``mae_b``); ``p_error_by_k``: each p's Monte Carlo standard error from its ``rounds``
    (:func:`nkcore.nk.pvalue.p_standard_error`). The verdict is about this pair of models only: a closer pair can
    need more ratings per item.
    """

    n: int
    rounds: int
    full_gap: float
    p_by_k: dict[int, float] = field(compare=False)
    smallest_k: int | None
    holds: bool | None
    sentence: str
    p_error_by_k: dict[int, float] = field(default_factory=dict, compare=False)
    mae_a: float = math.nan
    mae_b: float = math.nan


def item_means(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mean rating per item: sum_m v_m c_im / sum_m c_im (counts or probabilities, last axis labels).

    >>> item_means(np.array([[1, 0, 1], [0, 2, 0]]), np.array([1.0, 2.0, 3.0])).tolist()
    [2.0, 2.0]
    """
    c = np.asarray(counts, dtype=float)
    return np.asarray((c @ np.asarray(values, dtype=float)) / c.sum(axis=-1))


def wasserstein_items(counts: np.ndarray, dist: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Wasserstein-1 per item between the raters' label shares and a model's distribution on the points ``values``.

    Formula: W_i = sum_{j < M} |F_h(j) - F_a(j)| (v_{j+1} - v_j), F the cumulative shares (values ascending).

    >>> wasserstein_items(np.array([[2, 0, 0]]), np.array([[0.0, 0.0, 1.0]]), np.array([1.0, 2.0, 4.0])).tolist()
    [3.0]
    """
    v = np.asarray(values, dtype=float)
    h = np.asarray(counts, dtype=float)
    h = h / h.sum(axis=-1, keepdims=True)
    a = np.asarray(dist, dtype=float)
    a = a / a.sum(axis=-1, keepdims=True)
    diff = np.abs(np.cumsum(h - a, axis=-1)[..., :-1])
    return np.asarray(diff @ np.diff(v))


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation: Pearson correlation of the average ranks (NaN when a side is constant).

    >>> spearman(np.array([1.0, 2.0, 3.0]), np.array([10.0, 30.0, 20.0]))
    0.5
    """
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = math.sqrt(float(np.sum(rx**2) * np.sum(ry**2)))
    return float(np.sum(rx * ry) / den) if den > 0 else float("nan")


def ordinal_scores(model: str, counts: np.ndarray, dist: np.ndarray, values: np.ndarray) -> OrdinalScores:
    """MAE of the item mean, mean Wasserstein-1 and Spearman of the item means, for one model's distributions.

    >>> s = ordinal_scores("m", np.array([[1, 1, 0], [0, 0, 2], [2, 0, 0]]), np.eye(3)[[1, 2, 0]], np.arange(3.0))
    >>> s.mae, s.wasserstein, s.spearman
    (0.16666666666666666, 0.16666666666666666, 1.0)
    """
    h, a = item_means(counts, values), item_means(dist, values)
    return OrdinalScores(
        model=model,
        mae=float(np.mean(np.abs(a - h))),
        wasserstein=float(np.mean(wasserstein_items(counts, dist, values))),
        spearman=spearman(h, a),
        n_items=int(h.size),
    )


def homan_check(
    counts: np.ndarray,
    values: np.ndarray,
    mean_a: np.ndarray,
    mean_b: np.ndarray,
    n: int = HOMAN_N,
    ks: Sequence[int] = CHECK_KS,
    rounds: int = 500,
    seed: int | np.random.Generator = 0,
    names: tuple[str, str] = ("A", "B"),
) -> HomanCheck:
    """The smallest K at which the MAE comparison of two models is reproducible at N items (see the module docstring).

    ``mean_a`` / ``mean_b``: each model's mean rating per item. K values no item has are not tried. Seeds:
    ``SeedSequence(seed, spawn_key=(K, side, chunk))``. Limits: rounds and work (``sim_work``) before any draw.
    """
    c = np.asarray(counts, dtype=np.int64)
    v = np.asarray(values, dtype=float)
    ma, mb = np.asarray(mean_a, dtype=float), np.asarray(mean_b, dtype=float)
    rounds, n = int(rounds), int(n)
    if rounds < 2:
        raise DataError(f"rounds must be at least 2, got {rounds}")
    if n < 1:
        raise DataError(f"items (N) must be at least 1, got {n}")
    tot = c.sum(axis=1)
    tried = sorted({int(k) for k in ks if 1 <= int(k) <= int(tot.max())})
    m = c.shape[1]
    limits.check("rounds", rounds, "the request")
    limits.check("sim_work", RESAMPLE_WORK_FACTOR * 2 * rounds * n * m * sum(min(k, 40) for k in tried), "the check")
    chunk = max(1, min(rounds, (1 << 18) // n))
    limits.check_memory(chunk * n * m * 8 * 12, "the MAE check at its peak")
    entropy = as_entropy(seed)
    h_full = item_means(c, v)
    mae_a, mae_b = float(np.mean(np.abs(ma - h_full))), float(np.mean(np.abs(mb - h_full)))
    full_gap = mae_b - mae_a
    p_by_k: dict[int, float] = {}
    p_err: dict[int, float] = {}
    for k in tried:
        qual = np.flatnonzero(tot >= k)
        sides: list[np.ndarray] = []
        for side in (0, 1):
            parts = []
            for ch, start in enumerate(range(0, rounds, chunk)):
                size = min(chunk, rounds - start)
                rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(k, side, ch)))
                idx = qual[rng.integers(0, qual.size, size=(size, n))]
                gold = draw_k(rng, c[idx.ravel()], k).reshape(size, n, m)
                h = gold @ v / k
                a, b = ma[idx], mb[idx]
                if side == 1:
                    swap = rng.random((size, n)) < 0.5
                    a, b = np.where(swap, b, a), np.where(swap, a, b)
                parts.append(np.mean(np.abs(b - h), axis=1) - np.mean(np.abs(a - h), axis=1))
            sides.append(np.concatenate(parts))
        p_by_k[k] = cell_stats(sides[0], sides[1]).p
        p_err[k] = p_standard_error(sides[1], sides[0])
    smallest = next((k for k in tried if p_by_k[k] < SIGNIFICANCE), None)
    most = tried[-1] if tried else 0
    if smallest is not None:
        holds: bool | None = smallest >= HOMAN_K
    else:
        holds = True if most >= HOMAN_K else None
    where = _Pair(names, mae_a, mae_b, rounds, p_by_k[smallest], p_err[smallest]) if smallest is not None else None
    sentence = _homan_sentence(n, smallest, holds, most, names, where)
    return HomanCheck(n, rounds, full_gap, p_by_k, smallest, holds, sentence, p_err, mae_a, mae_b)


@dataclass(frozen=True, slots=True)
class _Pair:
    """What the Homan sentence scopes its verdict to: the pair, its full-data MAEs, the deciding p and its error."""

    names: tuple[str, str]
    mae_a: float
    mae_b: float
    rounds: int
    p: float
    p_error: float

    def words(self) -> str:
        a, b = (show_value(x) for x in self.names)
        return (
            f" (p = {self.p:.3f} +/- {self.p_error:.3f}, the Monte Carlo standard error of {self.rounds:,} rounds, "
            f"below 0.05; MAE {self.mae_a:.2f} for {a} and {self.mae_b:.2f} for {b} on all ratings)"
        )


def _homan_sentence(
    n: int, smallest: int | None, holds: bool | None, most: int, names: tuple[str, str], pair: _Pair | None = None
) -> str:
    a, b = (show_value(x) for x in names)
    claim = f"Homan et al.'s claim that MAE needs at least {HOMAN_K} ratings per item even with {HOMAN_N:,} items"
    detail = pair.words() if pair is not None else " (p < 0.05)"
    if smallest is not None and not holds:
        return (
            f"With {n:,} items (N), {plural(smallest, 'rating')} per item (K) {'is' if smallest == 1 else 'are'} already "
            f"enough for a reproducible MAE comparison of {a} and {b}{detail}: for this pair, {claim} "
            "does not hold; a pair of models closer in MAE can need more ratings per item."
        )
    if smallest is not None:
        return (
            f"With {n:,} items (N), the MAE comparison of {a} and {b} first becomes reproducible at "
            f"{smallest} ratings per item (K){detail}: for this pair, {claim} holds."
        )
    if holds:
        return (
            f"With {n:,} items (N), no K up to {most} ratings per item makes the MAE comparison of {a} and {b} "
            f"reproducible (p < 0.05): on these data, {claim} holds (it needs even more)."
        )
    return (
        f"With {n:,} items (N), no K up to {most} ratings per item (all these data have) makes the MAE comparison of "
        f"{a} and {b} reproducible (p < 0.05): consistent with {claim}, which these data cannot test beyond K = {most}."
    )


__all__ = [
    "CHECK_KS",
    "HOMAN_K",
    "HOMAN_N",
    "HomanCheck",
    "OrdinalScores",
    "homan_check",
    "item_means",
    "ordinal_scores",
    "spearman",
    "wasserstein_items",
]
