"""Scores of a machine against the gold ratings of N items, and score gaps between two machines (float arrays).

The metrics are defined in ``nkcore.nk.metrics`` (names, direction); these are their generic implementations:
gold counts ``(..., N, M)`` with any leading batch shape (e.g. rounds), a machine as counts (its K responses)
or as probabilities, so each metric returns one score per dataset ``(...)``. Per-item scores and gaps
(``item_scores``, ``item_gaps``) feed the paired per-item tests on real data; ``score_gap`` is oriented so that
a positive gap means "A looks better", and sums items in fixed point (``tie_exact_mean``) so equal datasets tie.
The simulation's integer kernel (``nkcore.nk.count_gaps``) gives the same numbers on integer counts.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nkcore.errors import DataError
from nkcore.nk.metrics import ALL_METRICS, ITEM_METRICS, JEFFREYS, KL_EPS, METRICS


def plurality(counts: np.ndarray) -> np.ndarray:
    """Plurality label per item: argmax of the counts, ties to the lowest category index.

    >>> plurality(np.array([[1, 2, 2], [3, 0, 3]])).tolist()
    [1, 0]
    """
    return np.argmax(counts, axis=-1)


def _lastsum(x: np.ndarray) -> np.ndarray:
    """Sum over the (short) last axis; adding the M slices is several times faster than a reduction over M."""
    m = x.shape[-1]
    if m > 16:
        return x.sum(axis=-1)
    out = x[..., 0].copy()
    for j in range(1, m):
        out += x[..., j]
    return out


def _shares(counts: np.ndarray) -> np.ndarray:
    c = np.asarray(counts, dtype=float)
    tot = _lastsum(c)[..., None]
    return c / np.where(tot > 0, tot, 1.0)


def accuracy(gold_counts: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Accuracy = (1/N) sum_i 1[label_i == plurality(G_i)] (spec "Metrics"); ``labels`` shape (..., N).

    >>> float(accuracy(np.array([[2, 1], [0, 3]]), np.array([0, 0])))
    0.5
    """
    return np.mean(np.asarray(labels) == plurality(gold_counts), axis=-1)


def item_tv(gold_counts: np.ndarray, machine: np.ndarray) -> np.ndarray:
    """Per-item TV as the paper defines it: (1/M) sum_m |P_A(m|i) - P_G(m|i)| (the L1 distance / M)."""
    return _lastsum(np.abs(_shares(machine) - _shares(gold_counts))) / np.shape(gold_counts)[-1]


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
    return np.mean(_item_kl(gold_counts, machine, eps, False, eps), axis=-1)


def _item_kl(gold_counts: np.ndarray, machine: np.ndarray, gold_add: float, is_prob: bool, add: float) -> np.ndarray:
    """Per-item KL(p || q), p = shares of gold counts + ``gold_add``, q = machine smoothed (``_smoothed``)."""
    p = _shares(np.asarray(gold_counts, dtype=float) + gold_add)
    q = _smoothed(machine, is_prob, add)
    return _lastsum(p * (np.log(p) - np.log(q)))


def _smoothed(machine: np.ndarray, is_prob: bool, pseudo: float) -> np.ndarray:
    if is_prob:
        return _shares(np.maximum(np.asarray(machine, dtype=float), KL_EPS))
    return _shares(np.asarray(machine, dtype=float) + pseudo)


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
    return np.mean(_item_kl(gold_counts, machine, pseudo, machine_is_prob, pseudo), axis=-1)


def _item_jsd(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per-item Jensen-Shannon divergence of two share vectors (..., M), natural log, 0 ln 0 = 0."""
    m = 0.5 * (p + q)
    with np.errstate(divide="ignore", invalid="ignore"):
        tp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0) / np.where(m > 0, m, 1.0)), 0.0)
        tq = np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0) / np.where(m > 0, m, 1.0)), 0.0)
    return np.maximum(0.5 * _lastsum(tp + tq), 0.0)


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
    p = _shares(gold_counts)
    q = _smoothed(machine, machine_is_prob, pseudo)
    return np.mean(-np.sum(p * np.log(q), axis=-1), axis=-1)


def macro_f1(gold_labels: np.ndarray, labels: np.ndarray, m: int) -> np.ndarray:
    """Macro F1 over the classes present in gold or machine labels: mean_m 2TP/(2TP + FP + FN).

    Same convention as sklearn's ``f1_score(average="macro")`` (labels = union of those present).

    >>> float(macro_f1(np.array([0, 0, 1]), np.array([0, 1, 1]), 2))
    0.6666666666666666
    """
    gl, ml = np.asarray(gold_labels), np.asarray(labels)
    tp = np.stack([np.sum((gl == c) & (ml == c), axis=-1) for c in range(m)], axis=-1)
    den = np.stack([np.sum(gl == c, axis=-1) + np.sum(ml == c, axis=-1) for c in range(m)], axis=-1)
    return macro_f1_from_tallies(tp, den)


def macro_f1_from_tallies(tp: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Macro F1 from per-class tallies (..., M): ``tp`` true positives, ``den`` = #gold + #machine = 2TP + FP + FN.

    Classes with ``den`` = 0 (in neither gold nor machine labels) are left out of the mean.

    >>> float(macro_f1_from_tallies(np.array([1, 1]), np.array([3, 3])))
    0.6666666666666666
    """
    tp, den = np.asarray(tp, dtype=float), np.asarray(den, dtype=float)
    ok = den > 0
    f1 = np.where(ok, 2.0 * tp / np.where(ok, den, 1.0), 0.0)
    return f1.sum(axis=-1) / np.maximum(ok.sum(axis=-1), 1)


def item_scores(
    metric: str,
    gold_counts: np.ndarray,
    machine: np.ndarray,
    labels: np.ndarray | None = None,
    machine_is_prob: bool = False,
) -> np.ndarray:
    """Per-item score (..., N) of one machine, for the metrics that average over items (not wins, not F1).

    acc: 1[label == plurality(G)]; tv: (1/M) sum_m |P_A - P_G|; kl / kl_smooth / ce / js: the per-item value.
    """
    if metric == "acc":
        lab = plurality(machine) if labels is None else labels
        return (np.asarray(lab) == plurality(gold_counts)).astype(float)
    if metric == "tv":
        return item_tv(gold_counts, machine)
    if metric == "kl":
        return _item_kl(gold_counts, machine, KL_EPS, False, KL_EPS)
    if metric == "kl_smooth":
        return _item_kl(gold_counts, machine, JEFFREYS, machine_is_prob, JEFFREYS)
    if metric == "ce":
        return -_lastsum(_shares(gold_counts) * np.log(_smoothed(machine, machine_is_prob, JEFFREYS)))
    if metric == "js":
        return np.sqrt(_item_jsd(_shares(gold_counts), _shares(machine)))
    raise DataError(
        f"metric {metric!r} has no per-item score (choose from {', '.join(ITEM_METRICS[:1] + ITEM_METRICS[3:])}, tv)"
    )


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

    wins: d_i = +1 if TV_A(i) < TV_B(i), -1 if TV_B(i) < TV_A(i), else 0.
    """
    if metric == "wins":
        ta, tb = item_tv(gold_counts, machine_a), item_tv(gold_counts, machine_b)
        tol = 1e-12
        return (ta < tb - tol).astype(float) - (tb < ta - tol).astype(float)
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
    the metrics share done once: the gold shares and logarithms per row, the machines' shares and logarithms per
    item (then gathered; a row-wise normalisation commutes with gathering rows), TV once for TV and Wins.

    >>> g, ma, mb = np.array([[2, 0], [1, 1]]), np.array([[0.8, 0.2]]), np.array([[0.3, 0.7]])
    >>> got = item_gaps_indexed(("tv", "wins", "kl"), g, ma, mb, np.array([0]), np.array([1]), np.zeros(2, int), True)
    >>> all(np.array_equal(got[mt], item_gaps(mt, g, ma[[0, 0]], mb[[0, 0]], None, None, True)) for mt in got)
    True
    """
    memo: dict[tuple[str, int], np.ndarray] = {}

    def once(key: tuple[str, int], make: Callable[[], np.ndarray]) -> np.ndarray:
        if key not in memo:
            memo[key] = make()
        return memo[key]

    machines = (machine_a, machine_b)
    m = np.shape(gold_counts)[-1]
    gold_shares = once(("g", 0), lambda: _shares(gold_counts))

    def tv(side: int) -> np.ndarray:
        sm = once(("s", side), lambda: _shares(machines[side]))
        return once(("tv", side), lambda: _lastsum(np.abs(sm[index] - gold_shares)) / m)

    def log_kl(add: float) -> tuple[np.ndarray, np.ndarray]:
        p = once(("p", int(add == JEFFREYS)), lambda: _shares(np.asarray(gold_counts, dtype=float) + add))
        return p, once(("lp", int(add == JEFFREYS)), lambda: np.log(p))

    out: dict[str, np.ndarray] = {}
    for mt in metrics:
        if mt == "wins":
            ta, tb = tv(0), tv(1)
            out[mt] = (ta < tb - 1e-12).astype(float) - (tb < ta - 1e-12).astype(float)
        elif mt == "tv":
            out[mt] = tv(1) - tv(0)
        elif mt == "acc":
            gl = once(("pl", 0), lambda: plurality(gold_counts))
            out[mt] = (labels_a[index] == gl).astype(float) - (labels_b[index] == gl).astype(float)
        elif mt in ("kl", "kl_smooth"):
            add, is_prob = (KL_EPS, False) if mt == "kl" else (JEFFREYS, machine_is_prob)
            p, lp = log_kl(add)
            kl = [_lastsum(p * (lp - np.log(_smoothed(x, is_prob, add))[index])) for x in machines]
            out[mt] = kl[1] - kl[0]
        elif mt == "ce":
            ce = [-_lastsum(gold_shares * np.log(_smoothed(x, machine_is_prob, JEFFREYS))[index]) for x in machines]
            out[mt] = ce[1] - ce[0]
        else:  # the rest (JS): per metric, on gathered machines
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
    if metric == "f1":
        lab = plurality(machine) if labels is None else labels
        return macro_f1(plurality(gold_counts), lab, np.shape(gold_counts)[-1])
    if metric == "wins":
        raise DataError("wins compares two machines: use score_gap")
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
    if metric == "f1":
        sa = score(metric, gold_counts, machine_a, labels_a, machine_is_prob)
        sb = score(metric, gold_counts, machine_b, labels_b, machine_is_prob)
        return sa - sb
    return tie_exact_mean(item_gaps(metric, gold_counts, machine_a, machine_b, labels_a, labels_b, machine_is_prob))


UNIT = 2.0**32
"""Fixed-point scale of per-item gaps: means over items are sums of integers (see ``tie_exact_mean``)."""


def tie_exact_mean(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis (items) of per-item gaps, rounded to multiples of 2^-32 and summed as integers.

    Why: the p-value counts ties (null >= alt) against the alternative, so two datasets whose items give the
    same multiset of per-item gaps must give the SAME score gap. A float sum depends on the order of the
    items (the paper's KL at K = 1 has only ~40 distinct gaps at N = 100, but float sums scatter them over
    ~120 values and move p by 0.01). Rounding each item to 2^-32 (2.3e-10) changes no gap that matters.

    >>> v = np.array([[0.1, 0.7, 0.3], [0.1, 0.3, 0.7]])  # the same items in another order
    >>> bool(tie_exact_mean(v)[0] == tie_exact_mean(v)[1]), bool(np.mean(v[0]) == np.mean(v[1]))
    (True, False)
    """
    v = np.asarray(values, dtype=float)
    n = v.shape[-1]
    if not np.all(np.isfinite(v)) or n * float(np.max(np.abs(v), initial=0.0)) > 2.0e9:
        return np.mean(v, axis=-1)  # would overflow int64: plain float mean
    return np.rint(v * UNIT).astype(np.int64).sum(axis=-1) / (UNIT * n)


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
    "macro_f1",
    "macro_f1_from_tallies",
    "plurality",
    "score",
    "score_gap",
    "tie_exact_mean",
    "total_variation",
    "wins",
]
