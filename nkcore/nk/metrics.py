"""Metrics of a machine against the gold ratings of N items, and score gaps between two machines.

Everything here depends only on per-item label COUNTS (gold: K ratings per item; a machine: its K responses,
or a fixed probability vector / hard label on real data). Arrays carry any leading batch shape
(e.g. rounds): gold counts ``(..., N, M)``, so each metric returns one score per dataset ``(...)``.

The paper's four metrics (spec "Metrics"):
- ``acc``  Accuracy: share of items whose plurality label (ties to the lowest category index) matches the gold
  plurality label. Larger is better.
- ``tv``   TV: mean over all N x M cells of |P_A(m|i) - P_G(m|i)|. Smaller is better.
- ``wins`` Wins: share of items where A is closer (per-item TV) to gold than B, minus the reverse. It is
  already a comparison of A with B, so it IS the gap.
- ``kl``   KL(P_G || P_A), natural log, with 1e-12 added to every count (the paper's convention). An item where
  gold has mass and A has none costs about ln(1e12) = 27.63 nats: the "KL artifact" (see ``kl_artifact_nats``).
Beyond the paper:
- ``kl_smooth`` KL with Jeffreys smoothing (add 1/2 to every count of gold and of a count machine, the
  Krichevsky-Trofimov estimate); probability machines are only floored at 1e-12.
- ``js``   Jensen-Shannon distance (square root of the JS divergence, natural log; bounded by sqrt(ln 2)).
- ``ce``   cross-entropy -sum_m P_G(m|i) log q_A(m|i), q Jeffreys-smoothed for count machines, floored at 1e-12
  for probability machines.
- ``f1``   macro F1 of A's plurality label against the gold plurality label (classes present in either).
Score gap (spec): Gamma(A,G) - Gamma(B,G) for larger-is-better metrics, Gamma(B,G) - Gamma(A,G) otherwise,
so a positive gap always means "A looks better".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nkcore.common import limits
from nkcore.errors import DataError

KL_EPS = 1e-12
"""The paper's additive constant on counts for KL."""
JEFFREYS = 0.5
"""Pseudo-count of the smoothed KL and of the cross-entropy (Jeffreys / Krichevsky-Trofimov)."""


@dataclass(frozen=True, slots=True)
class MetricInfo:
    """What a metric is called and how to read it."""

    name: str
    label: str
    larger_is_better: bool
    paper: bool
    plain: str


METRICS: dict[str, MetricInfo] = {
    "acc": MetricInfo(
        "acc", "Accuracy (plurality vote)", True, True, "share of items whose majority label matches the raters' one"
    ),
    "tv": MetricInfo("tv", "TV (total variation)", False, True, "how far the label shares are from the raters' shares"),
    "wins": MetricInfo("wins", "Wins", True, True, "items where A is closer to the raters than B, minus the reverse"),
    "kl": MetricInfo("kl", "KL (paper, 1e-12)", False, True, "KL divergence with the paper's 1e-12 added to counts"),
    "kl_smooth": MetricInfo(
        "kl_smooth", "KL (smoothed, add 1/2)", False, False, "KL divergence with Jeffreys smoothing (add 1/2)"
    ),
    "js": MetricInfo("js", "Jensen-Shannon distance", False, False, "symmetric, bounded distance between label shares"),
    "ce": MetricInfo("ce", "Cross-entropy", False, False, "surprise of the machine at the raters' labels (nats)"),
    "f1": MetricInfo("f1", "Macro F1 (plurality)", True, False, "F1 of majority labels, averaged over the labels"),
}
PAPER_METRICS: tuple[str, ...] = ("acc", "tv", "wins", "kl")
ALL_METRICS: tuple[str, ...] = tuple(METRICS)
_ALIASES = {
    "accuracy": "acc",
    "kl_paper": "kl",
    "jsd": "js",
    "jensen_shannon": "js",
    "macro_f1": "f1",
    "klsmooth": "kl_smooth",
}


def parse_metrics(text: str | Sequence[str] | None, default: Sequence[str] = PAPER_METRICS) -> tuple[str, ...]:
    """Metric names from a comma list (or sequence), validated; ``None`` or ``"all"`` expand.

    >>> parse_metrics("acc, TV")
    ('acc', 'tv')
    """
    if text is None:
        return tuple(default)
    items = [t for t in (text.split(",") if isinstance(text, str) else text)]
    out: list[str] = []
    for raw in items:
        name = raw.strip().lower()
        if not name:
            continue
        if name == "all":
            out.extend(m for m in ALL_METRICS if m not in out)
            continue
        if name == "paper":
            out.extend(m for m in PAPER_METRICS if m not in out)
            continue
        name = _ALIASES.get(name, name)
        if name not in METRICS:
            raise DataError(f"unknown metric {raw.strip()!r}: choose from {', '.join(ALL_METRICS)}")
        if name not in out:
            out.append(name)
    if not out:
        raise DataError("no metric given: choose from " + ", ".join(ALL_METRICS))
    return tuple(out)


def kl_artifact_nats(eps: float = KL_EPS) -> float:
    """Cost of one item where gold is unanimous and the machine put none of its responses there (K = 1).

    Formula: with K = 1, P_G = (1+e, e)/(1+2e) and P_A = (e, 1+e)/(1+2e), so KL ~ ln(1/e).
    Reference: spec "Metrics" (KL); the paper's toolkit adds 1e-12 to counts.

    >>> round(kl_artifact_nats(), 2)
    27.63
    """
    p = np.array([1.0 + eps, eps]) / (1.0 + 2.0 * eps)
    q = p[::-1]
    return float(np.sum(p * np.log(p / q)))


# ---------------------------------------------------------------------------------------------------------------
# Generic metrics (float arrays): gold counts (..., N, M); a machine as counts (its K responses) or probabilities.
# ---------------------------------------------------------------------------------------------------------------


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


ITEM_METRICS: tuple[str, ...] = ("acc", "tv", "wins", "kl", "kl_smooth", "js", "ce")
"""Metrics that are a mean over items of a per-item score (so a paired per-item test applies); not F1."""


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


# ---------------------------------------------------------------------------------------------------------------
# Fast kernel for the simulation: integer counts of gold, A and B with the same K, all metrics at once.
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tables:
    """Per-count lookup tables for one (K, M): the log-based metrics become gathers instead of logs."""

    k: int
    m: int
    kl_p: np.ndarray  # (K+1,) (c + 1e-12) / (K + M 1e-12)
    kl_log: np.ndarray  # (K+1,) ln of the above
    js_p: np.ndarray  # (K+1,) (c + 1/2) / (K + M/2)
    js_log: np.ndarray  # (K+1,) ln of the above
    share: np.ndarray  # (K+1,) c / K
    jsd: np.ndarray | None  # ((K+1)^2,) per-cell JSD term T[g, a]


_TABLE_CACHE: dict[tuple[int, int, bool], _Tables] = {}


def _tables(k: int, m: int, need_js: bool) -> _Tables:
    key = (k, m, need_js)
    t = _TABLE_CACHE.get(key)
    if t is not None:
        return t
    c = np.arange(k + 1, dtype=float)
    kl_p = (c + KL_EPS) / (k + m * KL_EPS)
    sm_p = (c + JEFFREYS) / (k + m * JEFFREYS)
    share = c / k
    jsd = None
    if need_js:
        limits.check_memory(6 * 8 * (k + 1) ** 2, f"the Jensen-Shannon table of K = {k:,}")
        g, a = share[:, None], share[None, :]
        mid = 0.5 * (g + a)
        with np.errstate(divide="ignore", invalid="ignore"):
            tg = np.where(g > 0, g * np.log(g / mid), 0.0)
            ta = np.where(a > 0, a * np.log(a / mid), 0.0)
        jsd = (0.5 * (tg + ta)).ravel()
    t = _Tables(k, m, kl_p, np.log(kl_p), sm_p, np.log(sm_p), share, jsd)
    if len(_TABLE_CACHE) > 512:
        _TABLE_CACHE.clear()
    _TABLE_CACHE[key] = t
    return t


def plurality_cm(counts: np.ndarray) -> np.ndarray:
    """Plurality labels of category-major counts (M, ...), ties to the lowest index (same as ``plurality``)."""
    m = counts.shape[0]
    if m == 2:
        return (counts[1] > counts[0]).astype(np.int64)
    lab = np.zeros(counts.shape[1:], dtype=np.int64)
    best = counts[0].copy()
    for j in range(1, m):
        better = counts[j] > best
        np.copyto(lab, j, where=better)
        np.maximum(best, counts[j], out=best)
    return lab


def item_units_cm(
    gold: np.ndarray, a: np.ndarray, b: np.ndarray, k: int, metrics: Sequence[str]
) -> dict[str, tuple[np.ndarray, float]]:
    """Per-item gaps of CATEGORY-MAJOR counts (M, R, N) as exact integers: gap_i = units_i / scale.

    acc: 1[pl(A) = pl(G)] - 1[pl(B) = pl(G)] (scale 1); tv: sum_m |B - G| - sum_m |A - G| in counts
    (scale M K); wins: sign of that difference (scale 1); kl, kl_smooth, ce, js: the per-item value rounded
    to multiples of 2^-32 (scale 2^32, as ``tie_exact_mean``). Log-based metrics use per-count lookup tables
    (no logarithm per cell). Not defined for f1 (not a mean over items).
    """
    m = gold.shape[0]
    out: dict[str, tuple[np.ndarray, float]] = {}
    t = _tables(k, m, "js" in metrics)
    if "acc" in metrics:
        lg = plurality_cm(gold)
        out["acc"] = ((plurality_cm(a) == lg).view(np.int8) - (plurality_cm(b) == lg).view(np.int8), 1.0)
    if any(x in metrics for x in ("tv", "wins")):
        wide = np.int32 if gold.dtype.itemsize < 4 else gold.dtype  # differences of int16 counts stay exact
        da = np.abs(a[0] - gold[0]).astype(wide)
        db = np.abs(b[0] - gold[0]).astype(wide)
        for j in range(1, m):
            da += np.abs(a[j] - gold[j])
            db += np.abs(b[j] - gold[j])
        diff = db - da
        out["tv"] = (diff, float(m * k))
        out["wins"] = (np.sign(diff), 1.0)
    for metric in metrics:
        if metric in ("kl", "kl_smooth", "ce"):
            # KL_B - KL_A = sum_m p(g) [ln q(a) - ln q(b)]; CE likewise with p = g / K
            weight = {"kl": t.kl_p, "kl_smooth": t.js_p, "ce": t.share}[metric]
            logq = t.kl_log if metric == "kl" else t.js_log
            acc = np.zeros(gold.shape[1:])
            for j in range(m):
                acc += weight[gold[j]] * (logq[a[j]] - logq[b[j]])
            out[metric] = (np.rint(acc * UNIT).astype(np.int64), UNIT)
        elif metric == "js":
            assert t.jsd is not None
            sa = np.zeros(gold.shape[1:])
            sb = np.zeros(gold.shape[1:])
            for j in range(m):
                base = gold[j].astype(np.intp) * (k + 1)  # flat index into the (K+1)^2 table (no int16 overflow)
                sa += t.jsd[base + a[j]]
                sb += t.jsd[base + b[j]]
            d = np.sqrt(np.maximum(sb, 0.0)) - np.sqrt(np.maximum(sa, 0.0))
            out[metric] = (np.rint(d * UNIT).astype(np.int64), UNIT)
        elif metric not in METRICS or metric == "f1":
            raise DataError(f"metric {metric!r} has no per-item gap: choose from {', '.join(ITEM_METRICS)}")
    return {mt: out[mt] for mt in metrics}


def gaps_from_counts_cm(
    gold: np.ndarray, a: np.ndarray, b: np.ndarray, k: int, metrics: Sequence[str]
) -> dict[str, np.ndarray]:
    """Score gaps of every requested metric for CATEGORY-MAJOR counts (M, R, N) with K responses per item.

    Same numbers as ``score_gap`` on the same counts (tested): the mean over items of ``item_units_cm``,
    summed as integers (equal datasets give bit-identical gaps, so ties are ties); f1 from the plurality labels.
    """
    m, n = gold.shape[0], gold.shape[-1]
    units = item_units_cm(gold, a, b, k, [x for x in metrics if x != "f1"])
    out: dict[str, np.ndarray] = {}
    for metric in metrics:
        if metric == "f1":
            lg = plurality_cm(gold)
            out[metric] = macro_f1(lg, plurality_cm(a), m) - macro_f1(lg, plurality_cm(b), m)
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


def is_larger_better(metric: str) -> bool:
    """True when a larger score is better (Accuracy, Wins, F1)."""
    return METRICS[metric].larger_is_better


__all__ = [
    "ALL_METRICS",
    "ITEM_METRICS",
    "JEFFREYS",
    "KL_EPS",
    "METRICS",
    "PAPER_METRICS",
    "MetricInfo",
    "accuracy",
    "cross_entropy",
    "gaps_from_counts",
    "gaps_from_counts_cm",
    "is_larger_better",
    "item_gaps",
    "item_scores",
    "item_tv",
    "item_units_cm",
    "js_distance",
    "kl_artifact_nats",
    "kl_paper",
    "kl_smoothed",
    "macro_f1",
    "macro_f1_from_tallies",
    "parse_metrics",
    "plurality",
    "plurality_cm",
    "score",
    "score_gap",
    "tie_exact_mean",
    "total_variation",
    "wins",
]
