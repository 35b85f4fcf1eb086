"""Score gaps of simulated datasets from integer counts: every metric at once, exact integers per item.

The simulation's kernel: gold, A and B counts with the same K per item, CATEGORY-MAJOR (M, rounds, N), give
each metric's per-item gap as an integer times a scale (``item_units_cm``, the registry's count kernels,
``Metric.count_units`` in ``nkcore.nk.count_kernels``) and the score gaps as their means over items
(``gaps_from_counts_cm``), summed as integers so that datasets with the same items give bit-identical gaps (a
p-value counts ties). Same numbers as ``nkcore.nk.scores.score_gap`` on the same counts (tested).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nkcore.errors import DataError
from nkcore.nk.count_kernels import CountInputs, plurality_cm
from nkcore.nk.metrics import ITEM_METRICS, METRICS

CODED_MAX_K = 30
"""Up to this K (codes (g (K + 1) + a) (K + 1) + b of a category's gold, A and B counts fit int16) the log metrics
read one table per metric indexed by that code (``count_kernels.CountInputs``): per category one conversion of the
codes to gather indices and one gather per metric, instead of three conversions and up to seven gathers. Same
numbers: each table entry is the per-category term computed as the gathers compute it, summed over the categories in
the same order (tested bit for bit)."""


def item_units_cm(
    gold: np.ndarray, a: np.ndarray, b: np.ndarray, k: int, metrics: Sequence[str]
) -> dict[str, tuple[np.ndarray, float]]:
    """Per-item gaps of CATEGORY-MAJOR counts (M, R, N) as exact integers: gap_i = units_i / scale.

    acc: 1[pl(A) = pl(G)] - 1[pl(B) = pl(G)] (scale 1); tv: sum_m |B - G| - sum_m |A - G| in counts
    (scale M K); wins: sign of that difference (scale 1); kl, kl_smooth, ce, js: the per-item value rounded
    to multiples of 2^-32 (scale 2^32, as ``tie_exact_mean``). Log-based metrics use per-count lookup tables
    (no logarithm per cell). Not defined for f1 (not a mean over items).
    """
    for metric in metrics:
        info = METRICS.get(metric)
        if info is None or info.count_units is None:
            raise DataError(f"metric {metric!r} has no per-item gap: choose from {', '.join(ITEM_METRICS)}")
    x = CountInputs(gold, a, b, k, CODED_MAX_K)
    out: dict[str, tuple[np.ndarray, float]] = {}
    for metric in metrics:
        kernel = METRICS[metric].count_units
        assert kernel is not None
        out[metric] = kernel(x)
    return out


def gaps_from_counts_cm(
    gold: np.ndarray, a: np.ndarray, b: np.ndarray, k: int, metrics: Sequence[str]
) -> dict[str, np.ndarray]:
    """Score gaps of every requested metric for CATEGORY-MAJOR counts (M, R, N) with K responses per item.

    Same numbers as ``score_gap`` on the same counts (tested): the mean over items of ``item_units_cm``,
    summed as integers (equal datasets give bit-identical gaps, so ties are ties); a metric that is not a mean
    over items (macro F1) from the plurality labels (``Metric.label_gap``).
    """
    m, n = gold.shape[0], gold.shape[-1]
    units = item_units_cm(gold, a, b, k, [x for x in metrics if METRICS[x].per_item])
    out: dict[str, np.ndarray] = {}
    for metric in metrics:
        info = METRICS[metric]
        if not info.per_item:
            assert info.label_gap is not None
            out[metric] = info.label_gap(plurality_cm(gold), plurality_cm(a), plurality_cm(b), m)
        else:
            u, scale = units[metric]
            out[metric] = u.sum(axis=-1, dtype=np.int64) / (scale * n)
    return out


def gaps_from_counts(
    gold: np.ndarray, a: np.ndarray, b: np.ndarray, k: int, metrics: Sequence[str]
) -> dict[str, np.ndarray]:
    """Score gaps of every requested metric for counts (R, N, M) with K per item (see ``gaps_from_counts_cm``).

    >>> g = np.array([[[3, 0], [0, 3]]]); a = np.array([[[2, 1], [0, 3]]]); b = np.array([[[1, 2], [0, 3]]])
    >>> float(gaps_from_counts(g, a, b, 3, ["acc"])["acc"][0])
    0.5
    """
    cm = [np.ascontiguousarray(np.moveaxis(np.asarray(x, dtype=np.int64), -1, 0)) for x in (gold, a, b)]
    return gaps_from_counts_cm(cm[0], cm[1], cm[2], int(k), metrics)


__all__ = ["CODED_MAX_K", "gaps_from_counts", "gaps_from_counts_cm", "item_units_cm", "plurality_cm"]
