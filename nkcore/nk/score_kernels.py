"""The metrics' float kernels: one machine's per-item score against gold counts, on float arrays (real data).

Gold counts ``(..., N, M)`` with any leading batch shape (e.g. rounds); a machine as counts (its K responses) or
as probabilities (``machine_is_prob``). Each ``*_item`` kernel returns one score per item ``(..., N)``; the
registry (``nkcore.nk.metrics.METRICS``) names them, and ``nkcore.nk.scores`` dispatches on it. The ``*_indexed``
kernels give the same per-item gaps for rows of gold counts scored against gathered machines, sharing work across
metrics through :class:`IndexedInputs` (the real-data exact engine). Definitions: spec "Metrics".
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

KL_EPS = 1e-12
"""The paper's additive constant on counts for KL."""
JEFFREYS = 0.5
"""Pseudo-count of the smoothed KL and of the cross-entropy (Jeffreys / Krichevsky-Trofimov)."""
TV_TIE = 1e-12
"""Equal per-item TV computed in floating point are ties (the toolkit compares integer counts)."""


def plurality(counts: np.ndarray) -> np.ndarray:
    """Plurality label per item: argmax of the counts, ties to the lowest category index.

    >>> plurality(np.array([[1, 2, 2], [3, 0, 3]])).tolist()
    [1, 0]
    """
    return np.argmax(counts, axis=-1)


def lastsum(x: np.ndarray) -> np.ndarray:
    """Sum over the (short) last axis; adding the M slices is several times faster than a reduction over M."""
    m = x.shape[-1]
    if m > 16:
        return x.sum(axis=-1)
    out = x[..., 0].copy()
    for j in range(1, m):
        out += x[..., j]
    return out


def shares(counts: np.ndarray) -> np.ndarray:
    """Counts as shares of their row (a row of zeros stays zeros)."""
    c = np.asarray(counts, dtype=float)
    tot = lastsum(c)[..., None]
    return c / np.where(tot > 0, tot, 1.0)


def smoothed(machine: np.ndarray, is_prob: bool, pseudo: float) -> np.ndarray:
    """A machine's smoothed shares: probabilities floored at 1e-12, or counts plus ``pseudo``."""
    if is_prob:
        return shares(np.maximum(np.asarray(machine, dtype=float), KL_EPS))
    return shares(np.asarray(machine, dtype=float) + pseudo)


def item_tv(gold_counts: np.ndarray, machine: np.ndarray) -> np.ndarray:
    """Per-item TV as the paper defines it: (1/M) sum_m |P_A(m|i) - P_G(m|i)| (the L1 distance / M)."""
    return lastsum(np.abs(shares(machine) - shares(gold_counts))) / np.shape(gold_counts)[-1]


def item_kl(gold_counts: np.ndarray, machine: np.ndarray, gold_add: float, is_prob: bool, add: float) -> np.ndarray:
    """Per-item KL(p || q), p = shares of gold counts + ``gold_add``, q = machine smoothed (:func:`smoothed`)."""
    p = shares(np.asarray(gold_counts, dtype=float) + gold_add)
    q = smoothed(machine, is_prob, add)
    return lastsum(p * (np.log(p) - np.log(q)))


def item_jsd(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per-item Jensen-Shannon divergence of two share vectors (..., M), natural log, 0 ln 0 = 0."""
    m = 0.5 * (p + q)
    with np.errstate(divide="ignore", invalid="ignore"):
        tp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0) / np.where(m > 0, m, 1.0)), 0.0)
        tq = np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0) / np.where(m > 0, m, 1.0)), 0.0)
    return np.maximum(0.5 * lastsum(tp + tq), 0.0)


# --- per-item score kernels: (gold counts, machine, its labels or None, machine_is_prob) -> (..., N) -------------


def acc_item(gold_counts: np.ndarray, machine: np.ndarray, labels: np.ndarray | None, is_prob: bool) -> np.ndarray:
    """1[label_i == plurality(G_i)] (labels default to the machine's plurality)."""
    lab = plurality(machine) if labels is None else labels
    return (np.asarray(lab) == plurality(gold_counts)).astype(float)


def tv_item(gold_counts: np.ndarray, machine: np.ndarray, labels: np.ndarray | None, is_prob: bool) -> np.ndarray:
    """(1/M) sum_m |P_A(m|i) - P_G(m|i)|."""
    return item_tv(gold_counts, machine)


def kl_item(gold_counts: np.ndarray, machine: np.ndarray, labels: np.ndarray | None, is_prob: bool) -> np.ndarray:
    """KL(P_G || P_A) with 1e-12 added to every count (a probability machine read as counts summing to 1)."""
    return item_kl(gold_counts, machine, KL_EPS, False, KL_EPS)


def kl_smooth_item(
    gold_counts: np.ndarray, machine: np.ndarray, labels: np.ndarray | None, is_prob: bool
) -> np.ndarray:
    """KL with Jeffreys smoothing (add 1/2 to gold and to a count machine; probabilities floored at 1e-12)."""
    return item_kl(gold_counts, machine, JEFFREYS, is_prob, JEFFREYS)


def ce_item(gold_counts: np.ndarray, machine: np.ndarray, labels: np.ndarray | None, is_prob: bool) -> np.ndarray:
    """-sum_m P_G(m|i) ln q_A(m|i), q Jeffreys-smoothed (counts) or floored at 1e-12 (probabilities)."""
    return -lastsum(shares(gold_counts) * np.log(smoothed(machine, is_prob, JEFFREYS)))


def js_item(gold_counts: np.ndarray, machine: np.ndarray, labels: np.ndarray | None, is_prob: bool) -> np.ndarray:
    """Jensen-Shannon distance sqrt(JSD(P_G, P_A)), natural log."""
    return np.sqrt(item_jsd(shares(gold_counts), shares(machine)))


def wins_gap_item(gold_counts: np.ndarray, machine_a: np.ndarray, machine_b: np.ndarray) -> np.ndarray:
    """Wins per item: +1 if TV_A(i) < TV_B(i), -1 if TV_B(i) < TV_A(i), else 0 (already a gap of A over B)."""
    ta, tb = item_tv(gold_counts, machine_a), item_tv(gold_counts, machine_b)
    return (ta < tb - TV_TIE).astype(float) - (tb < ta - TV_TIE).astype(float)


# --- label kernels: gold plurality labels against the machines' hard labels -----------------------------------


def acc_label_gap(gold_labels: np.ndarray, labels_a: np.ndarray, labels_b: np.ndarray, m: int) -> np.ndarray:
    """Accuracy's per-item gap from labels, whole numbers -1, 0, 1 (int8)."""
    return (labels_a == gold_labels).astype(np.int8) - (labels_b == gold_labels).astype(np.int8)


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


def f1_label_gap(gold_labels: np.ndarray, labels_a: np.ndarray, labels_b: np.ndarray, m: int) -> np.ndarray:
    """Macro F1 of A less macro F1 of B, per dataset (not a mean over items)."""
    return macro_f1(gold_labels, labels_a, m) - macro_f1(gold_labels, labels_b, m)


# --- indexed kernels: rows of gold counts against gathered machines, shared work ------------------------------


class IndexedInputs:
    """P rows of gold counts (P, M), row r scored against item ``index[r]`` of the machines (I, M) and labels (I,),
    with the work several metrics share done once (memoised): gold shares and logarithms per row, the machines'
    shares and logarithms per item (then gathered: a row-wise normalisation commutes with gathering rows), TV
    once for TV and Wins."""

    def __init__(
        self,
        gold_counts: np.ndarray,
        machine_a: np.ndarray,
        machine_b: np.ndarray,
        labels_a: np.ndarray,
        labels_b: np.ndarray,
        index: np.ndarray,
        machine_is_prob: bool,
    ) -> None:
        self.gold = gold_counts
        self.machines = (machine_a, machine_b)
        self.labels = (labels_a, labels_b)
        self.index = index
        self.is_prob = machine_is_prob
        self.m = np.shape(gold_counts)[-1]
        self._memo: dict[tuple[str, int], np.ndarray] = {}

    def once(self, key: tuple[str, int], make: Callable[[], np.ndarray]) -> np.ndarray:
        """``make()`` the first time ``key`` is asked, the kept value after."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def gold_shares(self) -> np.ndarray:
        """Shares of the gold rows."""
        return self.once(("g", 0), lambda: shares(self.gold))

    def tv(self, side: int) -> np.ndarray:
        """Per-row TV of machine ``side`` (0: A, 1: B)."""
        sm = self.once(("s", side), lambda: shares(self.machines[side]))
        return self.once(("tv", side), lambda: lastsum(np.abs(sm[self.index] - self.gold_shares())) / self.m)

    def log_kl(self, add: float) -> tuple[np.ndarray, np.ndarray]:
        """Gold shares after adding ``add`` to every count, and their logarithms."""
        key = int(add == JEFFREYS)
        p = self.once(("p", key), lambda: shares(np.asarray(self.gold, dtype=float) + add))
        return p, self.once(("lp", key), lambda: np.log(p))

    def gold_plurality(self) -> np.ndarray:
        """Plurality labels of the gold rows."""
        return self.once(("pl", 0), lambda: plurality(self.gold))


def wins_indexed(x: IndexedInputs) -> np.ndarray:
    """:func:`wins_gap_item` on indexed inputs."""
    ta, tb = x.tv(0), x.tv(1)
    return (ta < tb - TV_TIE).astype(float) - (tb < ta - TV_TIE).astype(float)


def tv_indexed(x: IndexedInputs) -> np.ndarray:
    """TV's per-item gap (B's TV less A's) on indexed inputs."""
    return x.tv(1) - x.tv(0)


def acc_indexed(x: IndexedInputs) -> np.ndarray:
    """Accuracy's per-item gap on indexed inputs (floats -1, 0, 1)."""
    gl = x.gold_plurality()
    return (x.labels[0][x.index] == gl).astype(float) - (x.labels[1][x.index] == gl).astype(float)


def _kl_indexed(x: IndexedInputs, add: float, is_prob: bool) -> np.ndarray:
    p, lp = x.log_kl(add)
    kl = [lastsum(p * (lp - np.log(smoothed(mm, is_prob, add))[x.index])) for mm in x.machines]
    return kl[1] - kl[0]


def kl_indexed(x: IndexedInputs) -> np.ndarray:
    """The paper's KL per-item gap on indexed inputs."""
    return _kl_indexed(x, KL_EPS, False)


def kl_smooth_indexed(x: IndexedInputs) -> np.ndarray:
    """The smoothed KL per-item gap on indexed inputs."""
    return _kl_indexed(x, JEFFREYS, x.is_prob)


def ce_indexed(x: IndexedInputs) -> np.ndarray:
    """The cross-entropy per-item gap on indexed inputs."""
    ce = [-lastsum(x.gold_shares() * np.log(smoothed(mm, x.is_prob, JEFFREYS))[x.index]) for mm in x.machines]
    return ce[1] - ce[0]


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
