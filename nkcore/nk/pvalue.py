"""The paper's p-value rule, effect size (Delta), interval width (CI-width) and the seed's reproducibility.

Reference: spec "p-value, effect size, interval" (the authors' toolkit, Homan-Lab/vet).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nkcore.errors import DataError

SIGNIFICANCE = 0.05
"""The paper's "reasonably repeatable" threshold: p < 0.05."""


@dataclass(frozen=True, slots=True)
class Stats:
    """The statistics of one cell and metric, however computed (the one statistics type of the engine).

    p: the paper's p-value; delta: |mean alternative gap|; ci_width: q97.5 - q2.5 of the alternative gaps;
    reproducibility: share of alternative datasets in which A comes out ahead (gap > 0; on real data, with the
    full data's direction); ties: share with gap 0; mean_gap: mean alternative gap (signed);
    flipped: the samples were negated because median(null) > median(alt);
    ci_low / ci_high: the 2.5% and 97.5% quantiles of the alternative gaps (resampling; NaN where not computed);
    method, p_error, delta_error, ci_width_error: how the numbers were computed and their accuracy
    (:class:`nkcore.nk.cell.Cell`); alt / null: the exact engine's 1000 quantile points of the gap's laws (None
    where the caller holds the samples).
    """

    p: float
    delta: float
    ci_width: float
    reproducibility: float
    ties: float
    mean_gap: float
    flipped: bool = False
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    method: str = "simulate"
    p_error: float = float("nan")
    delta_error: float = float("nan")
    ci_width_error: float = float("nan")
    alt: np.ndarray | None = field(default=None, repr=False, compare=False)
    null: np.ndarray | None = field(default=None, repr=False, compare=False)


CellStats = Stats
"""The former name of :class:`Stats` (the simulation's statistics)."""


def _clean(x: object, what: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float).ravel()
    if arr.size == 0:
        raise DataError(f"{what} gaps are empty: need at least one round")
    if not np.all(np.isfinite(arr)):
        raise DataError(f"{what} gaps contain NaN or infinite values")
    return arr


def p_value(null: object, alt: object) -> float:
    """The paper's p: share of (null, alt) pairs with null >= alt, after negating both if median(null) > median(alt).

    Formula: p = #{(n, a) in null x alt : n >= a} / (|null| |alt|), ties count against the alternative.
    Computed in O(R log R) by sorting. Unit checks from the authors' toolkit:

    >>> p_value(range(10), [4.5] * 10)
    0.5
    >>> p_value(range(10), range(10))
    0.55
    >>> p_value([0.5] * 10, [0.5] * 10)
    1.0
    >>> p_value([100] + [1] * 9, [10] * 10)
    0.1
    """
    nul, alt_ = _clean(null, "null"), _clean(alt, "alternative")
    if np.median(nul) > np.median(alt_):
        nul, alt_ = -nul, -alt_
    srt = np.sort(nul)
    at_least = srt.size - np.searchsorted(srt, alt_, side="left")  # how many null values are >= each alt value
    return float(at_least.sum() / (srt.size * alt_.size))


def p_standard_error(null: object, alt: object) -> float:
    """The Monte Carlo standard error of the paper's p from finite null and alternative samples.

    p is a two-sample U-statistic, the mean over pairs of [n_i >= a_j] (after the turn of :func:`p_value`); its
    variance is Var(V_i) / |null| + Var(W_j) / |alt| with V_i = mean_j [n_i >= a_j], W_j = mean_i [n_i >= a_j]
    (DeLong, DeLong & Clarke-Pearson 1988, Biometrics 44:837, the variance of an AUC).

    >>> round(p_standard_error([0.0, 1.0, 2.0, 3.0], [1.5, 2.5, 3.5, 4.5]), 4)
    0.1693
    """
    nul, alt_ = _clean(null, "null"), _clean(alt, "alternative")
    if np.median(nul) > np.median(alt_):
        nul, alt_ = -nul, -alt_
    srt_n, srt_a = np.sort(nul), np.sort(alt_)
    v = np.searchsorted(srt_a, nul, side="right") / srt_a.size  # share of alt values <= each null value
    w = (srt_n.size - np.searchsorted(srt_n, alt_, side="left")) / srt_n.size  # share of null values >= each alt
    var_v = float(v.var(ddof=1)) if v.size > 1 else 0.0
    var_w = float(w.var(ddof=1)) if w.size > 1 else 0.0
    return float(np.sqrt(var_v / nul.size + var_w / alt_.size))


def delta(alt: object) -> float:
    """Delta = |mean of the alternative gaps| (the effect size).

    >>> delta([-1.0, 3.0])
    1.0
    """
    return float(abs(np.mean(_clean(alt, "alternative"))))


def ci_width(alt: object) -> float:
    """CI-width = q97.5 - q2.5 of the alternative gaps (numpy's linear-interpolation quantiles).

    >>> round(ci_width(np.arange(101.0)), 6)
    95.0
    """
    q = np.quantile(_clean(alt, "alternative"), [0.025, 0.975])
    return float(q[1] - q[0])


def reproducibility(alt: object) -> float:
    """Share of alternative datasets in which A comes out ahead (gap > 0): the seed's reproducibility.

    >>> reproducibility([0.1, -0.2, 0.0, 0.3])
    0.5
    """
    return float(np.mean(_clean(alt, "alternative") > 0))


def cell_stats(alt: object, null: object) -> Stats:
    """Every number of a cell from its alternative and null gap samples (``method`` "simulate", NaN errors)."""
    a, n = _clean(alt, "alternative"), _clean(null, "null")
    return Stats(
        p=p_value(n, a),
        delta=delta(a),
        ci_width=ci_width(a),
        reproducibility=reproducibility(a),
        ties=float(np.mean(a == 0)),
        mean_gap=float(np.mean(a)),
        flipped=bool(np.median(n) > np.median(a)),
    )


def summarize_gaps(alt: np.ndarray, null: np.ndarray, direction: int) -> Stats:
    """The numbers of a resampled cell: the paper's rule on (alt, null), the 95% interval, reproducibility.

    reproducibility = mean(sign(alt) == direction) (spec "Real data": the share of resampling rounds that reach
    the full data's conclusion); NaN for direction 0, where counting tied rounds as agreement would overstate it.
    ci_low / ci_high: the 2.5% and 97.5% quantiles of the alternative gaps.

    >>> s = summarize_gaps(np.array([0.1, 0.2, -0.1, 0.3]), np.array([0.0, 0.1, -0.1, -0.2]), 1)
    >>> s.reproducibility, round(s.mean_gap, 3)
    (0.75, 0.125)
    """
    st = cell_stats(alt, null)
    lo, hi = (float(v) for v in np.quantile(alt, [0.025, 0.975]))
    repro = float(np.mean(np.sign(alt) == direction)) if direction else float("nan")
    return Stats(st.p, st.delta, st.ci_width, repro, st.ties, st.mean_gap, st.flipped, lo, hi)
