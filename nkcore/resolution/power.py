"""Power of McNemar's test: Connor's (1987) normal approximation and the exact power, with their inversions.

Connor's formulas give the cases needed for a difference (:func:`connor_cases`) and the difference a number of
cases detects (:func:`mde_at_power`); the exact power of the exact conditional test (:func:`exact_power`) checks
them and is inverted the same two ways (:func:`mde_at_power_exact`, :func:`cases_for_power_exact`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from nkcore.common.checks import check_power, check_significance
from nkcore.errors import DataError
from nkcore.resolution.critical import bernstein_halfwidth, critical_counts, z_two_sided
from nkcore.resolution.inputs import check_cases, check_discordance, check_target, max_cases

__all__ = [
    "PowerParts",
    "cases_for_power_exact",
    "connor_cases",
    "exact_power",
    "mde_at_power",
    "mde_at_power_exact",
    "power_at",
    "power_parts",
]

_BISECTIONS = 200  # more than enough for 1e-5 relative on any positive double; stops denormal inputs looping


def connor_cases(diff: float, discordance: float, significance: float = 0.05, power: float = 0.8) -> float:
    """Cases needed for McNemar's test to detect ``diff`` at ``power`` (Connor 1987, Biometrics 43:207-211, p. 209).

    n = [z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - delta^2)]^2 / delta^2, with psi = p10 + p01 the discordance
    (the share of cases the two configs disagree on) and delta = p10 - p01 the difference in accuracy (its sign does
    not matter). A normal approximation to the unconditional test; the exact conditional test needs somewhat more
    (:func:`cases_for_power_exact`). Not rounded; inf for a difference below 1e-145 (where the count is above 1e113 at any alpha).

    The published example (p10 = 0.05, p01 = 0.45, alpha = 0.05 two-sided, power 0.8) needs 23 pairs:

    >>> math.ceil(connor_cases(0.40, 0.50))
    23
    >>> round(connor_cases(0.01, 0.06))   # the chapter's 1 point at 6% discordance
    4707
    """
    d = check_discordance(discordance)
    if not isinstance(diff, (int, float, np.integer, np.floating)) or isinstance(diff, bool) or math.isnan(diff):
        raise DataError(f"the difference must be a number (1 point = 0.01); got {diff!r}")
    delta = check_target(abs(diff), d) if diff != 0 else 0.0
    if delta == 0.0:
        raise DataError("a difference of zero cannot be detected at any number of cases")
    za = z_two_sided(check_significance(significance))
    zb = float(stats.norm.ppf(check_power(power)))
    dd = delta * delta
    if dd < 1e-290:  # delta below 1e-145: n >= za^2 d / delta^2 >= za^2 / delta > 1e113 for any alpha below 1
        return math.inf
    return (za * math.sqrt(d) + zb * math.sqrt(d - dd)) ** 2 / dd


def mde_at_power(cases: int, discordance: float, significance: float = 0.05, power: float = 0.8) -> float:
    """Minimum detectable difference at ``power``: Connor's formula (:func:`connor_cases`) solved for delta.

    With A = z_{1-alpha/2} sqrt(psi), B = z_power and s = sqrt(psi - delta^2), n delta^2 = (A + B s)^2 becomes
    (n + B^2) s^2 + 2AB s + A^2 - n psi = 0; s is its positive root and delta = sqrt(psi - s^2). inf when no s >= 0
    solves it, or when delta would exceed psi (|p10 - p01| <= p10 + p01: even a difference as large as the
    discordance is not detected that often). Connor (1987), Biometrics 43:207-211, p. 209.

    >>> round(mde_at_power(4707, 0.06), 4)
    0.01
    """
    n = check_cases(cases)
    psi = check_discordance(discordance)
    a = z_two_sided(check_significance(significance)) * math.sqrt(psi)
    b = float(stats.norm.ppf(check_power(power)))
    qa, qb, qc = n + b * b, 2.0 * a * b, a * a - n * psi
    disc = qb * qb - 4.0 * qa * qc
    if disc < 0:
        return math.inf
    s = (-qb + math.sqrt(disc)) / (2.0 * qa)
    if s < 0:
        return math.inf
    delta = math.sqrt(max(psi - s * s, 0.0))
    return delta if delta <= psi else math.inf  # |p10 - p01| <= p10 + p01: a larger delta cannot happen


@dataclass(frozen=True, slots=True)
class PowerParts:
    """What exact power needs besides the difference: the discordant counts M, their weights and critical counts.

    ``m``: discordant counts with non-negligible probability (resolvable ones only); ``weight``: P(M = m),
    M ~ Binomial(cases, psi); ``k``: the critical count of each m.
    """

    psi: float
    m: np.ndarray
    weight: np.ndarray
    k: np.ndarray


def power_parts(cases: int, psi: float, significance: float) -> PowerParts:
    """M ~ Binomial(cases, psi) on the window outside which Bernstein bounds its mass by 1e-16, with critical counts.

    Inputs already checked (:func:`exact_power` checks them). The weights are exp of the log pmf: scipy's pmf
    overflows inside Boost for psi near the smallest normal double (2.2e-308), its log does not.

    >>> power_parts(200, 0.06, 0.05).m[:3].tolist()   # m <= 5 never reaches p < 0.05
    [6, 7, 8]
    """
    t = bernstein_halfwidth(cases * psi * (1.0 - psi), 1.0)
    m = np.arange(max(0, math.floor(cases * psi - t)), min(cases, math.ceil(cases * psi + t)) + 1, dtype=np.int64)
    w = np.exp(stats.binom.logpmf(m, cases, psi))
    m, w = m[m > 0], w[m > 0]
    k = critical_counts(m, significance)
    ok = k <= m
    return PowerParts(psi, m[ok], w[ok], k[ok])


def power_at(parts: PowerParts, delta: float) -> float:
    """Exact power at the difference ``delta``: sum_M P(M) [P(B >= k_M) + P(B <= M - k_M)],
    B ~ Binomial(M, (psi + delta) / (2 psi)).

    >>> round(power_at(power_parts(200, 0.06, 0.05), 0.0), 4)
    0.0244
    """
    p1 = min(1.0, max(0.0, (parts.psi + delta) / (2.0 * parts.psi)))
    m, k = parts.m, parts.k
    reject = special.bdtrc(k - 1, m, p1) + special.bdtr(m - k, m, p1)
    return float(np.clip(np.sum(parts.weight * reject), 0.0, 1.0))


def exact_power(cases: int, discordance: float, diff: float, significance: float = 0.05) -> float:
    """Exact power of McNemar's exact test (p < alpha) when the true difference is ``diff``.

    Unconditional on the number of discordant cases: M ~ Binomial(cases, psi), and given M the cases only B gets
    right are B ~ Binomial(M, (psi + delta)/(2 psi)); the test rejects when B >= k_M or B <= M - k_M, k_M the
    :func:`~nkcore.resolution.critical.critical_count` of M. power = sum_M P(M) [P(B >= k_M) + P(B <= M - k_M)],
    M restricted to the window outside which Bernstein's inequality bounds its probability by 1e-16. Used to check
    Connor's approximation (Connor 1987; Lachin 1992, Stat Med 11:1239).

    >>> round(exact_power(200, 0.06, 0.0), 4)   # the size of the test: below alpha, since it is exact
    0.0244
    """
    n = check_cases(cases)
    psi = check_discordance(discordance)
    a = check_significance(significance)
    delta = abs(float(diff))
    if not delta <= psi:
        raise DataError(f"the difference {diff:g} cannot exceed the discordance {psi:g}")
    return power_at(power_parts(n, psi, a), delta)


def mde_at_power_exact(cases: int, discordance: float, significance: float = 0.05, power: float = 0.8) -> float:
    """The smallest difference whose :func:`exact_power` reaches ``power`` (bisection to 1e-5 relative; inf if none).

    Exact power grows with the difference (for each M the two tails of a binomial with a rejection region symmetric
    about M/2 grow as its probability moves away from one half), so bisection on [0, discordance] finds it; the
    discordant counts and their critical counts are computed once. The exact check on Connor (1987).

    >>> round(mde_at_power_exact(200, 0.06), 4)
    0.0489
    """
    n = check_cases(cases)
    psi = check_discordance(discordance)
    a = check_significance(significance)
    pw = check_power(power)
    parts = power_parts(n, psi, a)
    if power_at(parts, psi) < pw:
        return math.inf
    lo, hi = 0.0, psi
    for _ in range(_BISECTIONS):
        if not hi - lo > 1e-5 * hi:
            break
        mid = 0.5 * (lo + hi)
        if power_at(parts, mid) >= pw:
            hi = mid
        else:
            lo = mid
    return hi


def cases_for_power_exact(
    target_diff: float, discordance: float, significance: float = 0.05, power: float = 0.8, limit: int | None = None
) -> int | None:
    """Smallest number of cases at which :func:`exact_power` at ``target_diff`` reaches ``power``; None above ``limit``
    (default: the cases limit, :func:`~nkcore.resolution.inputs.max_cases`).

    The exact power is increasing in the cases apart from ripples of well under 0.1% at very small numbers of cases
    (it is a mixture over M ~ Binomial(cases, psi), which smooths the conditional test's sawtooth), so the answer
    is found by doubling from Connor's estimate and bisecting. The exact counterpart of :func:`connor_cases`
    rounded up; larger, since the exact conditional test is conservative.

    >>> cases_for_power_exact(0.01, 0.06)
    4876
    """
    d = check_discordance(discordance)
    t = check_target(target_diff, d)
    a = check_significance(significance)
    pw = check_power(power)
    cap = max_cases() if limit is None else int(limit)

    def reaches(n: int) -> bool:
        return power_at(power_parts(n, d, a), t) >= pw

    hi = max(1, math.ceil(min(connor_cases(t, d, a, pw), cap)))  # Connor's count may be inf for tiny differences
    while not reaches(hi):
        if hi >= cap:
            return None
        hi = min(cap, 2 * hi)
    lo = 0  # reaches(0) is False: no case, no power
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= 1 and reaches(mid):
            hi = mid
        else:
            lo = mid
    return hi
