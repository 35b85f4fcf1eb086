"""Non-inferiority and equivalence of config B against config A on the same cases, at a margin delta.

Per case the difference of the case means d_i = b_i - a_i (each over its repeats; the case is the unit), mean
dbar, standard error se = sd(d) / sqrt(n) (sd with n - 1). "B is not worse than A by more than delta":

    H0: mean(d) <= -delta   against   H1: mean(d) > -delta,
    t = (dbar + delta) / se,  p_non_inferior = P(T_{n-1} >= t)

the paired t-test on the case differences shifted by the margin, one-sided (Chow, Shao & Wang 2008, "Sample Size
Calculations in Clinical Research", 2nd ed., sec. 3.2; Wellek 2010, "Testing Statistical Hypotheses of Equivalence
and Noninferiority", ch. 2). B is non-inferior when p_non_inferior < significance, i.e. when the one-sided lower
bound dbar - t_{n-1, 1-alpha} se lies above -delta. For 0/1 results without repeats d_i is -1, 0 or 1 and this is
the paired t on the discordant pairs (an exact binomial test on the discordant cases is exact only at delta = 0).
Equivalence, |mean(d)| < delta: two one-sided tests (Schuirmann 1987, J Pharmacokinet Biopharm 15(6):657), the
second t' = (dbar - delta) / se with P(T_{n-1} <= t'); p_equivalent = max of the two.
When every d_i is the same (se = 0) the law is a point: p = 0 when the bound is crossed, else 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from nkcore.common.checks import check_significance
from nkcore.errors import DataError

__all__ = ["NI_TEST", "NonInferiority", "check_margin", "non_inferiority"]

NI_TEST = "one-sided paired t-test on the case differences shifted by the margin (TOST for equivalence)"


@dataclass(frozen=True, slots=True)
class NonInferiority:
    """B against A at ``margin`` (a proportion: 0.01 = 1 point): ``diff`` = mean over cases of B - A, ``lower_bound``
    the one-sided (1 - significance) lower bound of it, ``p_non_inferior`` / ``non_inferior`` the test of
    "B is not worse than A by more than the margin", ``p_equivalent`` / ``equivalent`` TOST's (|diff| < margin)."""

    config_a: str
    config_b: str
    n_cases: int
    diff: float
    se: float
    margin: float
    lower_bound: float
    p_non_inferior: float
    non_inferior: bool
    p_equivalent: float
    equivalent: bool
    significance: float
    test: str = NI_TEST


def check_margin(margin: float) -> float:
    """The margin as a proportion, in [0, 1); DataError otherwise.

    >>> check_margin(0.01)
    0.01
    """
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not math.isfinite(margin):
        raise DataError(f"the margin must be a number of points between 0 and 100, e.g. 1; got {margin!r}")
    if not 0.0 <= margin < 1.0:
        raise DataError(f"the margin must be between 0 and 100 points, e.g. 1; got {100 * margin:g} points")
    return float(margin)


def _upper_p(t: float, df: int, shift: float) -> float:
    """P(T_df >= t); with se = 0 (t infinite or undefined) a point law: 0 when shift > 0, else 1."""
    if math.isnan(t):
        return 1.0 if shift <= 0 else 0.0
    return float(stats.t.sf(t, df))


def non_inferiority(
    a: np.ndarray,
    b: np.ndarray,
    margin: float,
    significance: float = 0.05,
    names: tuple[str, str] = ("A", "B"),
) -> NonInferiority:
    """Test "B is not worse than A by more than ``margin``" on the case means ``a`` and ``b`` (paired, in [0, 1]).

    >>> a = np.array([1.0] * 80 + [0.0] * 20); b = np.array([1.0] * 78 + [0.0] * 22)
    >>> r = non_inferiority(a, b, 0.05); round(r.diff, 2), round(r.p_non_inferior, 4), r.non_inferior
    (-0.02, 0.0177, True)
    """
    margin = check_margin(margin)
    check_significance(significance)
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise DataError("the two configs need one mean per case on the same cases")
    n = int(a.size)
    if n < 2:
        raise DataError("a non-inferiority test needs at least two paired cases")
    d = b - a
    dbar = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd < 1e-12:
        sd = 0.0
    se = sd / math.sqrt(n)
    df = n - 1
    up, down = dbar + margin, dbar - margin
    t_low = up / se if se > 0 else math.nan
    t_high = down / se if se > 0 else math.nan
    p_ni = _upper_p(t_low, df, up)
    p_upper = _upper_p(-t_high, df, -down)  # P(T <= t_high) = P(T >= -t_high)
    p_eq = max(p_ni, p_upper)
    lower = dbar - float(stats.t.ppf(1.0 - significance, df)) * se
    return NonInferiority(
        config_a=str(names[0]),
        config_b=str(names[1]),
        n_cases=n,
        diff=dbar,
        se=se,
        margin=margin,
        lower_bound=lower,
        p_non_inferior=p_ni,
        non_inferior=bool(p_ni < significance),
        p_equivalent=p_eq,
        equivalent=bool(p_eq < significance),
        significance=float(significance),
    )
