"""McNemar's test for two configs on the same cases, from the discordant counts: exact, mid-p, chi-square.

Only the discordant cases (one config right, the other wrong) carry information about which config is better.
Source: the chapter "The accuracy curve flattens sooner than the sample count suggests" (``shared/seeds/002``),
section "Two intervals, and only one of them is the right instrument".
"""

from __future__ import annotations

from dataclasses import dataclass

from scipy import special, stats

from nkcore.errors import DataError

__all__ = ["McNemarResult", "check_discordant", "mcnemar"]


@dataclass(frozen=True, slots=True)
class McNemarResult:
    """McNemar's test on the discordant counts: exact two-sided, mid-p and continuity-corrected chi-square."""

    a_only: int
    b_only: int
    p_exact: float
    p_midp: float
    p_chi2_cc: float
    chi2_cc: float


def check_discordant(a_only: float, b_only: float) -> tuple[int, int]:
    """The discordant counts as ints: non-negative whole numbers, else DataError.

    >>> check_discordant(12, 26.0)
    (12, 26)
    """
    if int(a_only) != a_only or int(b_only) != b_only or a_only < 0 or b_only < 0:
        raise DataError(f"discordant counts must be non-negative whole numbers; got {a_only} and {b_only}")
    return int(a_only), int(b_only)


def mcnemar(a_only: int, b_only: int) -> McNemarResult:
    """McNemar's test for paired 0/1 results from the discordant counts (cases only A / only B gets right).

    Under "no difference" each of the m = a_only + b_only discordant cases is a fair coin flip, so with
    k = min(a_only, b_only) and X ~ Binomial(m, 1/2):

    - exact two-sided p = min(1, 2 P(X <= k)) (equal to statsmodels ``mcnemar(exact=True)`` and scipy
      ``binomtest``; the distribution is symmetric, so doubling the smaller tail is the same as summing the outcomes
      no more likely than the observed one);
    - mid-p = 2 P(X <= k) - P(X = k) (Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91);
    - chi-square with Edwards' continuity correction, chi2 = (|b - a| - 1)^2 / m on 1 df (McNemar 1947,
      Psychometrika 12:153; Edwards 1948, Psychometrika 13:185), **applied only when a_only != b_only**. That is R's
      ``stats::mcnemar.test(correct = TRUE)``, whose source corrects only ``if (any(x - t(x) != 0))``; it equals
      max(0, |b - a| - 1)^2 / m for whole counts. statsmodels ``mcnemar(exact=False, correction=True)`` corrects
      unconditionally, so a balanced table (3 vs 3) gets chi2 = 1/6 and p = 0.683 there, a "difference" in data
      that show none, and a p below the exact test's 1.0 although the correction exists to make the chi-square
      more conservative. Both agree whenever a_only != b_only.

    With no discordant case every p is 1 (R returns NaN). Source: the chapter's section "Two intervals" (7 vs 5:
    p = 0.77; 3 vs 3: 1.0; 26 vs 12: 0.035).

    >>> r = mcnemar(12, 26)
    >>> round(r.p_exact, 3), round(r.p_midp, 4), round(r.p_chi2_cc, 3)
    (0.034, 0.0237, 0.035)
    >>> mcnemar(3, 3).p_chi2_cc
    1.0
    """
    a, b = check_discordant(a_only, b_only)
    m = a + b
    if m == 0:
        return McNemarResult(a, b, 1.0, 1.0, 1.0, 0.0)
    k = min(a, b)
    cdf = float(special.bdtr(k, m, 0.5))
    pmf = float(stats.binom.pmf(k, m, 0.5))
    p_exact = min(1.0, 2.0 * cdf)
    p_midp = min(1.0, 2.0 * cdf - pmf)
    chi2 = (abs(b - a) - 1.0) ** 2 / m if a != b else 0.0
    p_chi2 = float(stats.chi2.sf(chi2, 1))
    return McNemarResult(a, b, p_exact, p_midp, p_chi2, chi2)
