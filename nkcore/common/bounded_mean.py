"""Interval for the mean of independent values in [0, 1]: a Clopper-Pearson interval on an effective number of cases.

The values are per-case scores that lie in [0, 1] (a 0/1 right-or-wrong, a case's unbiased pass@k, a share of
votes); the target is their population mean mu. By the Bhatia-Davis inequality a value in [0, 1] with mean mu has
variance at most mu (1 - mu), reached by 0/1 values; the ratio r = Var(X) / (mu (1 - mu)) in [0, 1] says how much
less it varies (Kish's design effect, turned around). The interval is Clopper-Pearson's on n_eff = n / r cases with
s = n_eff xbar successes (Clopper & Pearson 1934; real-valued s and n_eff through the regularised incomplete beta;
an effective sample size as in Korn & Graubard 1998, who use this very interval for survey proportions). For 0/1
values r = 1 and it is Clopper-Pearson's exact interval; it is never zero width and keeps xbar inside. Until
issue 53 it was Wilson's score interval on n_eff cases, whose coverage dips next to 0 and 1 (0.905 at truth 0.999
on 100 cases of 0/1 values); Clopper-Pearson's is at least 95% for 0/1 values at every truth
(``tests/test_claims_passk.py`` measures it).

The ratio is estimated with one pseudo-case at 0 and one at 1 added (an add-one guard in the spirit of Agresti &
Coull 1998): r = s2' / (m' (1 - m')) over the n + 2 values. Without it, values that pile up near 0 or 1 with rare
far cases unseen (pass@5 of a strong model: most cases score 1, a few 0.99) give r near 0 and an interval that
misses the truth most of the time. Coverage and widths measured against the percentile bootstrap and the betting
interval of Waudby-Smith & Ramdas 2023: ``benchmarks/bench_passk_coverage.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from nkcore.common.checks import check_confidence
from nkcore.errors import DataError

__all__ = [
    "PSEUDO_CASES",
    "BoundedMeanInterval",
    "BoundedMeanIntervals",
    "bounded_mean_interval",
    "bounded_mean_intervals",
]

PSEUDO_CASES = 1.0  # weight of the pseudo-case at 0 and of the one at 1 in the variance ratio
_TOL = 1e-9  # values this far outside [0, 1] are rounding, clipped; further out is a DataError


@dataclass(frozen=True, slots=True)
class BoundedMeanIntervals:
    """Column by column: the mean of the present (non-NaN) values, its interval, how many values, and the variance
    ratio r used (1 for 0/1 values). Arrays of the same length, NaN where a column has no value."""

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray
    ratio: np.ndarray


@dataclass(frozen=True, slots=True)
class BoundedMeanInterval:
    """The mean of ``n`` values in [0, 1], its interval [``low``, ``high``] and the variance ratio ``ratio``."""

    mean: float
    low: float
    high: float
    n: int
    ratio: float


def bounded_mean_intervals(values: np.ndarray, confidence: float = 0.95) -> BoundedMeanIntervals:
    """Clopper-Pearson interval with an effective number of cases for the mean of each column of ``values``.

    ``values`` is cases x columns (a 1-d array is one column); NaN marks a case absent from a column. Per column,
    with n present values x_i in [0, 1] and xbar their mean (B^-1 the Beta quantile):

        m' = (sum x_i + w) / (n + 2w),  d' = sum x_i (1 - x_i) / (n + 2w),
        r = s2' / (m' (1 - m')) = 1 - d' / (m' (1 - m'))   (s2' the variance of the n + 2w values),
        n_eff = n / r,  s = n_eff xbar,  f = n_eff - s,
        low = B^-1(alpha/2; s, f + 1),  high = B^-1(1 - alpha/2; s + 1, f)  (alpha = 1 - confidence),

    with w = ``PSEUDO_CASES`` = 1 (one pseudo-case at 0 and one at 1 in the variance ratio only), and the ends are
    exactly 0 / 1 when xbar is. For 0/1 values r = 1 and this is Clopper-Pearson's interval. References: Clopper &
    Pearson 1934, Biometrika 26:404 (exact interval); Bhatia & Davis 2000, Amer. Math. Monthly 107:353 (Var X <= mu (1 - mu) on [0, 1]);
    Korn & Graubard 1998, Survey Methodology 24:193 (effective sample size); Agresti & Coull 1998, Amer. Stat.
    52:119 (pseudo-counts).

    >>> r = bounded_mean_intervals(np.array([[1.0, 1.0], [1.0, 0.5], [0.0, 0.75], [1.0, np.nan]]))
    >>> r.mean.round(4).tolist(), r.low.round(4).tolist(), r.high.round(4).tolist(), r.n.tolist()
    ([0.75, 0.75], [0.1941, 0.2392], [0.9937, 0.9887], [4, 3])
    """
    check_confidence(confidence)
    x = np.asarray(values, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2:
        raise DataError(f"values must be cases x columns (2-d), got {x.ndim} dimensions")
    if np.isinf(x).any():
        raise DataError("values must be finite numbers in [0, 1]; found an infinite value")
    bad = (x < -_TOL) | (x > 1 + _TOL)
    if bad.any():
        rows, cols = np.nonzero(bad)
        raise DataError(
            f"values must lie in [0, 1]; {bad.sum()} do not (first at case {rows[0]}, column {cols[0]}: "
            f"{x[rows[0], cols[0]]:g})"
        )
    present = ~np.isnan(x)
    x = np.clip(np.where(present, x, 0.0), 0.0, 1.0)
    n = present.sum(axis=0)
    w = PSEUDO_CASES
    with np.errstate(invalid="ignore", divide="ignore"):
        xbar = x.sum(axis=0) / n
        tot = n + 2 * w
        m_aug = (x.sum(axis=0) + w) / tot
        d_aug = (x * (1.0 - x)).sum(axis=0) / tot  # the pseudo-cases add no x (1 - x)
        ratio = np.clip(1.0 - d_aug / (m_aug * (1.0 - m_aug)), 0.0, 1.0)  # s2' / (m' (1 - m')), exactly 1 for 0/1
        ratio = np.where((n > 0) & (ratio > 0), ratio, np.nan)
        n_eff = n / ratio
        succ = n_eff * xbar  # effective successes and failures (whole numbers for 0/1 values)
        fail = n_eff - succ
        tail = (1.0 - confidence) / 2
        low = special.betaincinv(np.where(succ > 0, succ, 1.0), fail + 1.0, tail)
        high = special.betaincinv(succ + 1.0, np.where(fail > 0, fail, 1.0), 1.0 - tail)
        low = np.clip(low, 0.0, xbar)
        high = np.clip(high, xbar, 1.0)
    low = np.where(xbar <= 0.0, 0.0, low)
    high = np.where(xbar >= 1.0, 1.0, high)
    empty = n == 0
    xbar, low, high = (np.where(empty, np.nan, a) for a in (xbar, low, high))
    return BoundedMeanIntervals(mean=xbar, low=low, high=high, n=n.astype(np.int64), ratio=ratio)


def bounded_mean_interval(values: np.ndarray | list[float], confidence: float = 0.95) -> BoundedMeanInterval:
    """:func:`bounded_mean_intervals` for one list of values in [0, 1] (NaN values are dropped).

    Every value 1 gives Clopper-Pearson's interval at n of n, [(alpha/2)^(1/n), 1]; 0/1 values give
    Clopper-Pearson's interval.

    >>> r = bounded_mean_interval([1.0] * 20)
    >>> round(r.low, 4), r.high, r.ratio
    (0.8316, 1.0, 1.0)
    """
    x = np.asarray(values, dtype=float).ravel()
    if not (~np.isnan(x)).any():
        raise DataError("an interval for a mean needs at least one value; got none")
    r = bounded_mean_intervals(x[:, None], confidence)
    return BoundedMeanInterval(
        mean=float(r.mean[0]), low=float(r.low[0]), high=float(r.high[0]), n=int(r.n[0]), ratio=float(r.ratio[0])
    )
