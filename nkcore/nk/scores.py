"""Scores of a machine against the gold ratings of N items, and score gaps between two machines (float arrays).

The metrics and their kernels are in the registry ``nkcore.nk.metrics.METRICS`` (float kernels:
``nkcore.nk.score_kernels``); this module dispatches on it: gold counts ``(..., N, M)`` with any leading batch
shape (e.g. rounds), a machine as counts (its K responses) or as probabilities, so each metric returns one score
per dataset ``(...)``. Per-item scores and gaps (``item_scores``, ``item_gaps``) feed the paired per-item tests on
real data; ``score_gap`` is oriented so that a positive gap means "A looks better", and sums items in fixed point
(``tie_exact_mean``) so equal datasets tie. The simulation's integer kernel (``nkcore.nk.count_gaps``) gives the
same numbers on integer counts.
"""

from __future__ import annotations

import numpy as np

from nkcore.errors import DataError
from nkcore.nk.metrics import ALL_METRICS, ITEM_METRICS, METRICS
from nkcore.nk.score_kernels import (
    JEFFREYS,
    KL_EPS,
    UNIT,
    IndexedInputs,
    item_kl,
    item_tv,
    lastsum,
    macro_f1,
    macro_f1_from_tallies,
    plurality,
    shares,
    smoothed,
    tie_exact_mean,
    wins_gap_item,
)


def accuracy(gold_counts: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Accuracy = (1/N) sum_i 1[label_i == plurality(G_i)] (spec "Metrics"); ``labels`` shape (..., N).

    >>> float(accuracy(np.array([[2, 1], [0, 3]]), np.array([0, 0])))
    0.5
    """
    return np.mean(np.asarray(labels) == plurality(gold_counts), axis=-1)


def total_variation(gold_counts: np.ndarray, machine: np.ndarray) -> np.ndarray:
    """TV = mean over all N x M cells of |P_A(m|i) - P_G(m|i)| (spec "Metrics"; smaller is better).

    >>> float(total_variation(np.array([[2, 0]]), np.array([[1, 1]])))
    0.5
    """
    return np.mean(item_tv(gold_counts, machine), axis=-1)


def wins(gold_counts: np.ndarray, machine_a: np.ndarray, machine_b: np.ndarray) -> np.ndarray:
    """Wins = (1/N) sum_i 1[TV_A(i) < TV_B(i)] - (1/N) sum_i 1[TV_B(i) < TV_A(i)] (spec "Metrics").

    >>> float(wins(np.array([[2, 0], [1, 1]]), np.array([[2, 0], [2, 0]]), np.array([[0, 2], [1, 1]])))
    0.0
    """
    ta, tb = item_tv(gold_counts, machine_a), item_tv(gold_counts, machine_b)
    tol = 1e-12  # equal distances computed in floating point are ties (the toolkit compares integer counts)
    return np.mean(ta < tb - tol, axis=-1) - np.mean(tb < ta - tol, axis=-1)


def kl_paper(gold_counts: np.ndarray, machine: np.ndarray, eps: float = KL_EPS) -> np.ndarray:
    """KL(P_G || P_A) averaged over items, natural log, with ``eps`` added to every count (the paper's KL).

    Formula: p = (g + e) / sum(g + e), q = (a + e) / sum(a + e), KL = sum_m p_m ln(p_m / q_m): the counts
    plus 1e-12 are normalised to shares first (as ``scipy.stats.entropy(g + 1e-12, a + 1e-12)`` does in the
    authors' toolkit). A probability machine is treated as counts summing to 1 (the toolkit's convention).
    Reference: spec "Metrics".

    >>> round(float(kl_paper(np.array([[1, 0]]), np.array([[0, 1]]))), 2)
    27.63
    """
    return np.mean(item_kl(gold_counts, machine, eps, False, eps), axis=-1)


def kl_smoothed(
    gold_counts: np.ndarray, machine: np.ndarray, machine_is_prob: bool = False, pseudo: float = JEFFREYS
) -> np.ndarray:
    """KL(P_G || q_A) with Jeffreys smoothing: p = (g + 1/2)/(K + M/2), q likewise for a count machine.

    A probability machine is used as given (floored at 1e-12). Unlike the paper's 1e-12 KL, one-hot
    mismatches cost a bounded, sample-size-aware amount (ln 3 for K = 1, M = 2).
    Reference: Krichevsky & Trofimov (1981) add-1/2 estimator.

    >>> round(float(kl_smoothed(np.array([[1, 0]]), np.array([[0, 1]]))), 4)
    0.5493
    """
    return np.mean(item_kl(gold_counts, machine, pseudo, machine_is_prob, pseudo), axis=-1)


def js_distance(gold_counts: np.ndarray, machine: np.ndarray) -> np.ndarray:
    """Jensen-Shannon distance sqrt(JSD(P_G, P_A)), natural log, averaged over items (scipy's jensenshannon).

    Formula: JSD = (KL(p||m) + KL(q||m)) / 2, m = (p + q) / 2, with 0 ln 0 = 0.

    >>> round(float(js_distance(np.array([[1, 0]]), np.array([[0, 1]]))), 4)
    0.8326
    """
    return np.mean(item_scores("js", gold_counts, machine), axis=-1)


def cross_entropy(
    gold_counts: np.ndarray, machine: np.ndarray, machine_is_prob: bool = False, pseudo: float = JEFFREYS
) -> np.ndarray:
    """Cross-entropy -sum_m P_G(m|i) ln q_A(m|i), averaged over items (nats; floor = gold entropy).

    q is Jeffreys-smoothed ((a + 1/2)/(K + M/2)) for a count machine, floored at 1e-12 for probabilities.

    >>> round(float(cross_entropy(np.array([[1, 1]]), np.array([[0.5, 0.5]]), machine_is_prob=True)), 4)
    0.6931
    """
    p = shares(gold_counts)
    q = smoothed(machine, machine_is_prob, pseudo)
    return np.mean(-np.sum(p * np.log(q), axis=-1), axis=-1)


def item_scores(
    metric: str,
    gold_counts: np.ndarray,
    machine: np.ndarray,
    labels: np.ndarray | None = None,
    machine_is_prob: bool = False,
) -> np.ndarray:
    """Per-item score (..., N) of one machine, for the metrics that average over items (not wins, not F1): the
    registry's float kernel (``Metric.item_score``).

    acc: 1[label == plurality(G)]; tv: (1/M) sum_m |P_A - P_G|; kl / kl_smooth / ce / js: the per-item value.
    """
    info = METRICS.get(metric)
    if info is None or info.item_score is None:
        raise DataError(
            f"metric {metric!r} has no per-item score (choose from "
            f"{', '.join(m for m in ITEM_METRICS if METRICS[m].item_score is not None and m != 'tv')}, tv)"
        )
    return info.item_score(gold_counts, machine, labels, machine_is_prob)


def item_gaps(
    metric: str,
    gold_counts: np.ndarray,
    machine_a: np.ndarray,
    machine_b: np.ndarray,
    labels_a: np.ndarray | None = None,
    labels_b: np.ndarray | None = None,
    machine_is_prob: bool = False,
) -> np.ndarray:
    """Per-item gap d_i (..., N), positive when A is better on item i; the score gap is its mean over items.

    wins: d_i = +1 if TV_A(i) < TV_B(i), -1 if TV_B(i) < TV_A(i), else 0 (``Metric.pair_gap``).
    """
    info = METRICS.get(metric)
    if info is not None and info.pair_gap is not None:
        return info.pair_gap(gold_counts, machine_a, machine_b)
    sa = item_scores(metric, gold_counts, machine_a, labels_a, machine_is_prob)
    sb = item_scores(metric, gold_counts, machine_b, labels_b, machine_is_prob)
    return sa - sb if METRICS[metric].larger_is_better else sb - sa


def item_gaps_indexed(
    metrics: tuple[str, ...],
    gold_counts: np.ndarray,
    machine_a: np.ndarray,
    machine_b: np.ndarray,
    labels_a: np.ndarray,
    labels_b: np.ndarray,
    index: np.ndarray,
    machine_is_prob: bool = False,
) -> dict[str, np.ndarray]:
    """``item_gaps`` of several metrics for P rows of gold counts (P, M), row r scored against item ``index[r]``
    of the machines (I, M) and labels (I,): the same numbers (each element by the same operations), with the work
    the metrics share done once (``score_kernels.IndexedInputs``; a metric without an ``indexed`` kernel is
    scored by ``item_gaps`` on gathered machines).

    >>> g, ma, mb = np.array([[2, 0], [1, 1]]), np.array([[0.8, 0.2]]), np.array([[0.3, 0.7]])
    >>> got = item_gaps_indexed(("tv", "wins", "kl"), g, ma, mb, np.array([0]), np.array([1]), np.zeros(2, int), True)
    >>> all(np.array_equal(got[mt], item_gaps(mt, g, ma[[0, 0]], mb[[0, 0]], None, None, True)) for mt in got)
    True
    """
    x = IndexedInputs(gold_counts, machine_a, machine_b, labels_a, labels_b, index, machine_is_prob)
    out: dict[str, np.ndarray] = {}
    for mt in metrics:
        kernel = METRICS[mt].indexed
        if kernel is not None:
            out[mt] = kernel(x)
        else:
            out[mt] = item_gaps(
                mt, gold_counts, machine_a[index], machine_b[index], labels_a[index], labels_b[index], machine_is_prob
            )
    return out


def score(
    metric: str,
    gold_counts: np.ndarray,
    machine: np.ndarray,
    labels: np.ndarray | None = None,
    machine_is_prob: bool = False,
) -> np.ndarray:
    """One machine's score on one metric (not defined for ``wins``, which compares two machines).

    ``machine``: counts (or probabilities if ``machine_is_prob``) (..., N, M); ``labels``: its hard labels
    (default: plurality of ``machine``).
    """
    info = METRICS.get(metric)
    if info is not None and not info.per_item:  # macro F1: from the plurality labels, per dataset
        lab = plurality(machine) if labels is None else labels
        return macro_f1(plurality(gold_counts), lab, np.shape(gold_counts)[-1])
    if info is not None and info.pair_gap is not None:
        raise DataError(f"{metric} compares two machines: use score_gap")
    return np.mean(item_scores(metric, gold_counts, machine, labels, machine_is_prob), axis=-1)


def score_gap(
    metric: str,
    gold_counts: np.ndarray,
    machine_a: np.ndarray,
    machine_b: np.ndarray,
    labels_a: np.ndarray | None = None,
    labels_b: np.ndarray | None = None,
    machine_is_prob: bool = False,
) -> np.ndarray:
    """Score gap Gamma(A,B,G), oriented so that a positive gap means "A looks better" (spec "Metrics").

    >>> g = np.array([[3, 0], [0, 3]])
    >>> float(score_gap("acc", g, np.array([[2, 1], [0, 3]]), np.array([[1, 2], [0, 3]])))
    0.5
    """
    if metric not in METRICS:
        raise DataError(f"unknown metric {metric!r}: choose from {', '.join(ALL_METRICS)}")
    if not METRICS[metric].per_item:
        sa = score(metric, gold_counts, machine_a, labels_a, machine_is_prob)
        sb = score(metric, gold_counts, machine_b, labels_b, machine_is_prob)
        return sa - sb
    return tie_exact_mean(item_gaps(metric, gold_counts, machine_a, machine_b, labels_a, labels_b, machine_is_prob))


__all__ = [
    "UNIT",
    "accuracy",
    "cross_entropy",
    "item_gaps",
    "item_gaps_indexed",
    "item_scores",
    "item_tv",
    "js_distance",
    "kl_paper",
    "kl_smoothed",
    "lastsum",
    "macro_f1",
    "macro_f1_from_tallies",
    "plurality",
    "score",
    "score_gap",
    "tie_exact_mean",
    "total_variation",
    "wins",
    "wins_gap_item",
]
