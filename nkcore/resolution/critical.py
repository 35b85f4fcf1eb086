"""The exact critical count of McNemar's test and the smallest difference an evaluation can resolve.

With ``cases`` evaluation cases and a discordance rate ``discordance`` (the share of cases two configs disagree
on), about m = cases x discordance discordant cases decide the comparison; under "no difference" each is a fair
coin flip. Source: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002``), section "Why the monotonicity was never evidence".

Expected discordant cases that are not whole numbers are rounded to the nearest whole number, halves up
(10.5 -> 11), with a 1e-9 relative tolerance so that 0.145 x 100 (= 14.499999999999998 in floating point) counts
as 14.5 -> 15.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from nkcore.common.checks import check_significance
from nkcore.errors import DataError
from nkcore.resolution.inputs import check_cases, check_discordance

__all__ = [
    "TAIL_MASS",
    "ResolvableDifference",
    "bernstein_halfwidth",
    "critical_count",
    "critical_counts",
    "discordant_of",
    "min_resolvable_diff",
    "round_half_up",
    "two_sided_p",
    "z_two_sided",
]

TAIL_MASS = 1e-16
"""Probability left outside the window of discordant counts the exact computations sum over."""


def bernstein_halfwidth(variance: float, bound: float, tail_mass: float = TAIL_MASS) -> float:
    """Half-width t outside which a sum of independent terms has probability at most ``tail_mass``.

    Bernstein's inequality for terms within ``bound`` of their means: P(|S - ES| >= t) <= 2 exp(-t^2 / (2 variance
    + 2 bound t / 3)); setting the right side to ``tail_mass`` and solving the quadratic in t gives
    t = b c/3 + sqrt(b^2 c^2/9 + 2 variance c), c = ln(2 / tail_mass) (Boucheron, Lugosi & Massart 2013, Thm 2.10).

    >>> round(bernstein_halfwidth(0.0, 1.0), 2)   # no variance: 2 b c / 3 with c = ln(2e16) = 37.5
    25.02
    """
    c = math.log(2.0 / tail_mass)
    return bound * c / 3.0 + math.sqrt((bound * c / 3.0) ** 2 + 2.0 * variance * c)


def two_sided_p(k: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Exact two-sided binomial p of k of m heads (k > m/2), fair coin: 2 P(X >= k), X ~ Binomial(m, 1/2).

    >>> round(float(two_sided_p(np.array([10]), np.array([12]))[0]) * 4096, 9)  # 2 x 79 / 4096
    158.0
    """
    return 2.0 * special.bdtrc(k - 1, m, 0.5)


def z_two_sided(significance: float) -> float:
    """The two-sided critical value z_{1 - alpha/2} = Phi_bar^-1(alpha / 2) of a standard normal.

    For the smallest alphas, where alpha / 2 underflows to 0 (alpha = 5e-324), the one-sided value plus the first
    term of its expansion, Phi_bar^-1(alpha) + ln 2 / Phi_bar^-1(alpha), keeps z finite (Mills' ratio).

    >>> round(z_two_sided(0.05), 4), round(z_two_sided(5e-324), 1)
    (1.96, 38.5)
    """
    if significance / 2.0 > 0.0:
        return float(stats.norm.isf(significance / 2.0))
    z1 = float(stats.norm.isf(significance))
    return z1 + math.log(2.0) / z1


def critical_counts(m: np.ndarray, significance: float) -> np.ndarray:
    """Vectorised :func:`critical_count` for discordant counts m >= 1; m + 1 marks "no split reaches p < alpha".

    Starts from the normal approximation with continuity correction, ceil(m/2 + 1/2 + z sqrt(m)/2), which is exact
    for about 99% of m and one too high otherwise, then steps each m down while k - 1 still gives p < alpha and up
    while k does not (only the m's that moved are evaluated again).

    >>> critical_counts(np.array([5, 6, 12]), 0.05).tolist()
    [6, 6, 10]
    """
    m = np.asarray(m, dtype=np.int64)
    half = m // 2
    z = z_two_sided(significance)
    k = np.ceil(np.minimum(m / 2.0 + 0.5 + 0.5 * z * np.sqrt(m), m + 1.0)).astype(np.int64)
    k = np.minimum(np.maximum(k, half + 1), m + 1)
    idx = np.flatnonzero(k - 1 > half)
    while idx.size:
        idx = idx[two_sided_p(k[idx] - 1, m[idx]) < significance]
        k[idx] -= 1
        idx = idx[k[idx] - 1 > half[idx]]
    idx = np.flatnonzero(k <= m)
    while idx.size:
        idx = idx[two_sided_p(k[idx], m[idx]) >= significance]
        k[idx] += 1
        idx = idx[k[idx] <= m[idx]]
    return k


def critical_count(discordant: int, significance: float = 0.05) -> int | None:
    """Smallest k such that k of ``discordant`` cases falling one way gives exact two-sided p < alpha.

    Under "no difference" each discordant case is a fair coin: p(k of m) = 2 P(X >= k), X ~ Binomial(m, 1/2)
    (McNemar's exact test). None when even m of m is not enough (m <= 5 at alpha = 0.05). Source: the chapter,
    "Why the monotonicity was never evidence" (twelve coin flips: ten must fall the same way).

    >>> critical_count(12), critical_count(5), critical_count(6)
    (10, None, 6)
    """
    check_significance(significance)
    whole = isinstance(discordant, (int, float, np.integer, np.floating)) and not isinstance(discordant, bool)
    if not whole or not math.isfinite(discordant) or int(discordant) != discordant or discordant < 0:
        raise DataError(f"the number of discordant cases must be a whole number >= 0; got {discordant}")
    if discordant > np.iinfo(np.int64).max // 4:
        raise DataError(f"the number of discordant cases must be below 2.3e18; got {discordant:.3g}")
    if discordant == 0:
        return None
    k = int(critical_counts(np.array([int(discordant)]), significance)[0])
    return None if k > discordant else k


def round_half_up(x: np.ndarray | float) -> np.ndarray:
    """Nearest whole number, halves up, forgiving floating-point error: 12.5 -> 13, 14.499999999999998 -> 15.

    Formula: floor(x + 1/2 + 1e-9 max(1, |x|)).

    >>> round_half_up(np.array([12.5, 0.145 * 100, 12.4])).tolist()
    [13, 15, 12]
    """
    x = np.asarray(x, dtype=float)
    return np.floor(x + 0.5 + 1e-9 * np.maximum(1.0, np.abs(x))).astype(np.int64)


def discordant_of(cases: int, discordance: float) -> int:
    """Expected discordant cases cases x discordance rounded to a whole number (halves up, :func:`round_half_up`).

    >>> discordant_of(200, 0.0625)
    13
    """
    return int(round_half_up(discordance * cases))


@dataclass(frozen=True, slots=True)
class ResolvableDifference:
    """The smallest difference ``cases`` cases at ``discordance`` can bring to p < ``significance`` at all.

    ``expected_discordant`` = cases x discordance; ``discordant`` is it rounded to the nearest whole number (halves
    up: 10.5 -> 11, :func:`round_half_up`); ``critical_count`` of them must fall one way (None: no split of so few
    cases reaches p < alpha); ``net_cases`` = 2 critical_count - discordant; ``min_diff`` = net_cases / cases (inf
    when nothing can be resolved). ``sqrt_law_diff`` = z sqrt(discordance / cases), the same threshold without the
    discreteness (the square-root law).
    """

    cases: int
    discordance: float
    significance: float
    expected_discordant: float
    discordant: int
    critical_count: int | None
    net_cases: int | None
    min_diff: float
    sqrt_law_diff: float


def min_resolvable_diff(cases: int, discordance: float, significance: float = 0.05) -> ResolvableDifference:
    """The smallest difference ``cases`` cases can bring to p < alpha at all (exact binomial critical count).

    cases x discordance discordant cases are expected, m of them rounded to the nearest whole number (halves up:
    0.065 x 200 = 13, 0.0625 x 200 = 12.5 -> 13); k = :func:`critical_count` (m, alpha) of them
    must fall one way; the net is 2k - m cases, i.e. (2k - m)/cases. Anything smaller returns "cannot tell" however
    often the evaluation is run. ``sqrt_law_diff`` = z_{1-alpha/2} sqrt(discordance/cases) is the same threshold
    without rounding. Source: the chapter, "Why the monotonicity was never evidence" (200 cases at 6% discordance:
    about 12 discordant cases, ten must fall one way, a net of 8 cases = 4 points).

    >>> r = min_resolvable_diff(200, 0.06)
    >>> r.discordant, r.critical_count, r.net_cases, r.min_diff
    (12, 10, 8, 0.04)
    """
    n = check_cases(cases)
    d = check_discordance(discordance)
    a = check_significance(significance)
    m = discordant_of(n, d)
    k = critical_count(m, a) if m > 0 else None
    net = None if k is None else 2 * k - m
    z = z_two_sided(a)
    return ResolvableDifference(
        cases=n,
        discordance=d,
        significance=a,
        expected_discordant=n * d,
        discordant=m,
        critical_count=k,
        net_cases=net,
        min_diff=math.inf if net is None else net / n,
        sqrt_law_diff=z * math.sqrt(d / n),
    )
