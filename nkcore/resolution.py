"""What a paired evaluation can resolve: the smallest resolvable difference, MDE at power, cases needed, label noise.

Fix what the evaluation can resolve before looking at any of the numbers. With ``cases`` evaluation cases and a
discordance rate ``discordance`` (the share of cases two configs disagree on), about m = cases x discordance
discordant cases decide the comparison; under "no difference" each is a fair coin flip. Source: the chapter
"The accuracy curve flattens sooner than the sample count suggests" (``shared/seeds/002``), section "Why the
monotonicity was never evidence": 200 cases at 6% discordance give about 12 discordant cases, ten must fall one
way for p < 0.05, a net of 8 cases = 4 points; resolving 1 point takes roughly 3,200 cases; a 3% label error
caps a perfect system at 97%.

Differences are fractions of cases (0.04 = 4 points), as everywhere in ``nkcore``. Expected discordant cases that
are not whole numbers are rounded to the nearest whole number, halves up (10.5 -> 11), with a 1e-9 relative tolerance
so that 0.145 x 100 (= 14.499999999999998 in floating point) counts as 14.5 -> 15. Numbers of cases given as input
are limited to :data:`MAX_CASES` (10,000,000): the exact power computations grow with the square root of the cases
and take seconds beyond that; computed answers (cases for a target) may be larger.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from nkcore.errors import DataError

__all__ = [
    "MAX_CASES",
    "LabelErrorEstimate",
    "LabelErrorFloor",
    "Plan",
    "PlanSentences",
    "ResolutionCurve",
    "ResolvableDifference",
    "bernstein_halfwidth",
    "cases_for_power_exact",
    "cases_for_target",
    "cases_for_target_stable",
    "clopper_pearson",
    "connor_cases",
    "critical_count",
    "estimate_label_error",
    "exact_power",
    "label_error_floor",
    "label_error_sentence",
    "label_estimate_sentence",
    "mde_at_power",
    "mde_at_power_exact",
    "min_resolvable_diff",
    "plan",
    "plan_sentences",
    "resolution_curve",
    "target_vs_floor_sentence",
]

MAX_CASES = 10_000_000
_TAIL_MASS = 1e-16
_BERRY_ESSEEN = 0.4748  # Shevtsova (2011), iid Berry-Esseen constant
_CHUNK = 1 << 16  # discordant counts handled per vectorised step (bounds memory for tiny targets)


def bernstein_halfwidth(variance: float, bound: float, tail_mass: float = _TAIL_MASS) -> float:
    """Half-width t outside which a sum of independent terms has probability at most ``tail_mass``.

    Bernstein's inequality for terms within ``bound`` of their means: P(|S - ES| >= t) <= 2 exp(-t^2 / (2 variance
    + 2 bound t / 3)); setting the right side to ``tail_mass`` and solving the quadratic in t gives
    t = b c/3 + sqrt(b^2 c^2/9 + 2 variance c), c = ln(2 / tail_mass) (Boucheron, Lugosi & Massart 2013, Thm 2.10).

    >>> round(bernstein_halfwidth(0.0, 1.0), 2)   # no variance: 2 b c / 3 with c = ln(2e16) = 37.5
    25.02
    """
    c = math.log(2.0 / tail_mass)
    return bound * c / 3.0 + math.sqrt((bound * c / 3.0) ** 2 + 2.0 * variance * c)


# ----------------------------------------------------------------------------------------------------------------
# Result objects
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResolvableDifference:
    """The smallest difference ``cases`` cases at ``discordance`` can bring to p < ``alpha`` at all.

    ``expected_discordant`` = cases x discordance; ``discordant`` is it rounded to the nearest whole number (halves
    up: 10.5 -> 11, see the module docstring); ``critical_count`` of them must fall one way (None: no split of so few cases reaches p < alpha); ``net_cases`` = 2 critical_count - discordant;
    ``min_diff`` = net_cases / cases (inf when nothing can be resolved). ``sqrt_law_diff`` = z sqrt(discordance /
    cases), the same threshold without the discreteness (the square-root law).
    """

    cases: int
    discordance: float
    alpha: float
    expected_discordant: float
    discordant: int
    critical_count: int | None
    net_cases: int | None
    min_diff: float
    sqrt_law_diff: float


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything the Planner shows for one (cases, discordance, alpha, power[, target_diff]).

    ``min_resolvable_diff``: :func:`min_resolvable_diff`; ``mde_at_power``: Connor (1987) MDE at ``power``
    (:func:`mde_at_power`), ``exact_power_at_mde`` its exact power and ``mde_at_power_exact`` the exact MDE
    (:func:`mde_at_power_exact`); with a ``target_diff``: ``cases_for_target`` (smallest number of cases at
    which the target becomes resolvable, exact), ``cases_for_target_at_power`` (Connor) and
    ``cases_for_target_sqrt_law`` = cases x (min_resolvable_diff / target_diff)^2, the chapter's scaling.

    Which "cases for the target" is which (the chapter's example, 6% discordance, 1 point):

    - ``cases_for_target`` (2,600): the first number of cases whose exact critical count lets an observed difference
      of ``target_diff`` reach p < alpha (:func:`cases_for_target`);
    - ``cases_for_target_stable`` (2,800): from this number on every larger evaluation also resolves it (whole
      numbers of discordant cases make the threshold zigzag; :func:`cases_for_target_stable`);
    - ``cases_for_target_sqrt_law`` (3,200): today's ``min_resolvable_diff`` scaled by the square-root law, the
      chapter's "roughly 3,200" (16 x 200 for a four times smaller difference);
    - ``cases_for_target_at_power`` (4,707): Connor's formula, cases to *detect* a true difference of
      ``target_diff`` with probability ``power``; ``cases_for_target_at_power_exact`` (4,876) the same by the exact
      power (:func:`cases_for_power_exact`; None above :data:`MAX_CASES`).
    """

    cases: int
    discordance: float
    alpha: float
    power: float
    expected_discordant: float
    discordant: int
    critical_count: int | None
    net_cases: int | None
    min_resolvable_diff: float
    sqrt_law_diff: float
    mde_at_power: float
    exact_power_at_mde: float
    mde_at_power_exact: float
    target_diff: float | None
    cases_for_target: int | None
    cases_for_target_stable: int | None
    cases_for_target_sqrt_law: int | None
    cases_for_target_at_power: int | None
    cases_for_target_at_power_exact: int | None


@dataclass(frozen=True, slots=True)
class PlanSentences:
    """Plain-language sentences that stand beside a :class:`Plan`'s numbers (``target`` is None without a target)."""

    min_resolvable: str
    mde: str
    sqrt_law: str
    target: str | None


@dataclass(frozen=True, slots=True)
class ResolutionCurve:
    """Resolvable difference against the number of cases at a fixed discordance (the square-root law).

    ``min_resolvable_diff`` is exact (a sawtooth: discordant counts are whole numbers), ``sqrt_law_diff`` =
    z sqrt(discordance / cases) and ``mde_at_power`` is Connor's MDE at ``power``.
    """

    discordance: float
    alpha: float
    power: float
    cases: tuple[int, ...]
    min_resolvable_diff: tuple[float, ...]
    sqrt_law_diff: tuple[float, ...]
    mde_at_power: tuple[float, ...]

    def to_frame(self) -> pd.DataFrame:
        """One row per number of cases: cases, min_resolvable_diff, sqrt_law_diff, mde_at_power."""
        return pd.DataFrame(
            {
                "cases": self.cases,
                "min_resolvable_diff": self.min_resolvable_diff,
                "sqrt_law_diff": self.sqrt_law_diff,
                "mde_at_power": self.mde_at_power,
            }
        )


@dataclass(frozen=True, slots=True)
class LabelErrorFloor:
    """What a gold-label error rate ``error_rate`` (e) does to an evaluation.

    Model: each gold label is wrong with probability e, independently of the case, and a system's answer never
    matches a wrong label. Then a perfect system scores ``best_measurable_accuracy`` = 1 - e, every measured
    accuracy is the true one times (1 - e), and where the label errors fall can move a comparison by up to about
    e: differences smaller than ``noise_floor_diff`` = e sit inside the noise of the ground truth.
    """

    error_rate: float
    best_measurable_accuracy: float
    noise_floor_diff: float


@dataclass(frozen=True, slots=True)
class LabelErrorEstimate:
    """Label error rate estimated from a double-labelled sample of ``items`` with ``disagreements``.

    ``model`` "binary": two independent labellings each wrong with probability e, binary labels, so they
    disagree exactly when one of them is wrong: P(disagree) = 2e(1 - e). ``model`` "distinct": wrong labels never
    agree with each other: P(disagree) = 1 - (1 - e)^2. ``ci_*`` maps the Clopper-Pearson interval of the
    disagreement rate through the inverse.
    """

    items: int
    disagreements: int
    model: str
    disagreement_rate: float
    error_rate: float
    ci_low: float
    ci_high: float
    level: float


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson (exact) interval of a proportion k / n: Beta(a/2; k, n-k+1) to Beta(1-a/2; k+1, n-k) quantiles,
    a = 1 - level, with 0 and 1 at the ends (Clopper & Pearson 1934, Biometrika 26:404). Used for the label-error
    estimate here and by :func:`nkcore.paired.proportion_interval`.

    >>> [round(x, 4) for x in clopper_pearson(58, 1000)]
    [0.0443, 0.0743]
    """
    a = 1.0 - level
    lo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, a / 2))
    hi = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1 - a / 2))
    return lo, hi


# ----------------------------------------------------------------------------------------------------------------
# Validation
# ----------------------------------------------------------------------------------------------------------------


def _check_alpha(alpha: float) -> float:
    if not (0.0 < alpha < 1.0):
        raise DataError(f"alpha (the significance level) must be between 0 and 1, e.g. 0.05; got {alpha}")
    return float(alpha)


def _check_power(power: float) -> float:
    if not (0.5 <= power < 1.0):
        raise DataError(f"power must be at least 0.5 and below 1, e.g. 0.8; got {power}")
    return float(power)


def _check_cases(cases: float) -> int:
    if (
        isinstance(cases, bool)
        or not isinstance(cases, (int, float, np.integer, np.floating))
        or not math.isfinite(cases)
    ):
        raise DataError(f"the number of cases must be a whole number of at least 1; got {cases!r}")
    if int(cases) != cases or cases < 1:
        raise DataError(f"the number of cases must be a whole number of at least 1; got {cases}")
    if cases > MAX_CASES:
        raise DataError(
            f"the number of cases must be at most {MAX_CASES:,} (the exact computations take too long beyond); "
            f"got {int(cases):,}"
        )
    return int(cases)


def _check_discordance(discordance: float) -> float:
    if not (0.0 < discordance <= 1.0):
        hint = f" (as a fraction: {discordance / 100:g} for {discordance:g}%)" if 1.0 < discordance <= 100.0 else ""
        raise DataError(
            "discordance is the share of cases two configs disagree on, a fraction above 0 and at most 1 "
            f"(6% = 0.06); got {discordance}{hint}"
        )
    return float(discordance)


def _check_target(target_diff: float, discordance: float) -> float:
    if not (0.0 < target_diff <= 1.0):
        raise DataError(
            f"the target difference is a fraction above 0 and at most 1 (1 point = 0.01); got {target_diff}"
        )
    if target_diff > discordance:
        raise DataError(
            f"the target difference {target_diff:g} is larger than the discordance {discordance:g}: two configs can "
            "never differ by more than the share of cases they disagree on"
        )
    return float(target_diff)


# ----------------------------------------------------------------------------------------------------------------
# Critical counts and the smallest resolvable difference
# ----------------------------------------------------------------------------------------------------------------


def _two_sided_p(k: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Exact two-sided binomial p of k of m heads (k > m/2), fair coin: 2 P(X >= k)."""
    return 2.0 * special.bdtrc(k - 1, m, 0.5)


def _critical_counts(m: np.ndarray, alpha: float) -> np.ndarray:
    """Vectorised :func:`critical_count`; m + 1 marks "no split reaches p < alpha".

    Starts from the normal approximation with continuity correction, ceil(m/2 + 1/2 + z sqrt(m)/2), which is exact
    for about 99% of m and one too high otherwise, then steps each m down while k - 1 still gives p < alpha and up
    while k does not (only the m's that moved are evaluated again).
    """
    m = np.asarray(m, dtype=np.int64)
    half = m // 2
    z = float(stats.norm.isf(alpha / 2.0))
    k = np.ceil(m / 2.0 + 0.5 + 0.5 * z * np.sqrt(m)).astype(np.int64)
    k = np.minimum(np.maximum(k, half + 1), m + 1)
    idx = np.flatnonzero(k - 1 > half)
    while idx.size:
        idx = idx[_two_sided_p(k[idx] - 1, m[idx]) < alpha]
        k[idx] -= 1
        idx = idx[k[idx] - 1 > half[idx]]
    idx = np.flatnonzero(k <= m)
    while idx.size:
        idx = idx[_two_sided_p(k[idx], m[idx]) >= alpha]
        k[idx] += 1
        idx = idx[k[idx] <= m[idx]]
    return k


def critical_count(discordant: int, alpha: float = 0.05) -> int | None:
    """Smallest k such that k of ``discordant`` cases falling one way gives exact two-sided p < alpha.

    Under "no difference" each discordant case is a fair coin: p(k of m) = 2 P(X >= k), X ~ Binomial(m, 1/2)
    (McNemar's exact test). None when even m of m is not enough (m <= 5 at alpha = 0.05). Source: the chapter,
    "Why the monotonicity was never evidence" (twelve coin flips: ten must fall the same way).

    >>> critical_count(12), critical_count(5), critical_count(6)
    (10, None, 6)
    """
    _check_alpha(alpha)
    if isinstance(discordant, bool) or int(discordant) != discordant or discordant < 0:
        raise DataError(f"the number of discordant cases must be a whole number >= 0; got {discordant}")
    if discordant == 0:
        return None
    k = int(_critical_counts(np.array([int(discordant)]), alpha)[0])
    return None if k > discordant else k


def _round_half_up(x: np.ndarray | float) -> np.ndarray:
    """Nearest whole number, halves up, forgiving floating-point error: 12.5 -> 13, 14.499999999999998 -> 15."""
    x = np.asarray(x, dtype=float)
    return np.floor(x + 0.5 + 1e-9 * np.maximum(1.0, np.abs(x))).astype(np.int64)


def _discordant_of(cases: int, discordance: float) -> int:
    """Expected discordant cases cases x discordance rounded to a whole number (halves up; see the module docstring)."""
    return int(_round_half_up(discordance * cases))


def min_resolvable_diff(cases: int, discordance: float, alpha: float = 0.05) -> ResolvableDifference:
    """The smallest difference ``cases`` cases can bring to p < alpha at all (exact binomial critical count).

    cases x discordance discordant cases are expected, m of them rounded to the nearest whole number (halves up:
    0.065 x 200 = 13, 0.0625 x 200 = 12.5 -> 13); k = :func:`critical_count` (m, alpha) of them
    must fall one way; the net is 2k - m cases, i.e. (2k - m)/cases. Anything smaller returns "cannot tell" however
    often the evaluation is run. ``sqrt_law_diff`` = z_{1-alpha/2} sqrt(discordance/cases) is the same threshold
    without rounding. Source: the chapter, "Why the monotonicity was never evidence".

    >>> r = min_resolvable_diff(200, 0.06)
    >>> r.discordant, r.critical_count, r.net_cases, r.min_diff
    (12, 10, 8, 0.04)
    """
    n = _check_cases(cases)
    d = _check_discordance(discordance)
    a = _check_alpha(alpha)
    m = _discordant_of(n, d)
    k = critical_count(m, a) if m > 0 else None
    net = None if k is None else 2 * k - m
    z = float(stats.norm.isf(a / 2.0))
    return ResolvableDifference(
        cases=n,
        discordance=d,
        alpha=a,
        expected_discordant=n * d,
        discordant=m,
        critical_count=k,
        net_cases=net,
        min_diff=math.inf if net is None else net / n,
        sqrt_law_diff=z * math.sqrt(d / n),
    )


# ----------------------------------------------------------------------------------------------------------------
# Power: Connor (1987) and the exact computation
# ----------------------------------------------------------------------------------------------------------------


def connor_cases(diff: float, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Cases needed for McNemar's test to detect ``diff`` at ``power`` (Connor 1987, Biometrics 43:207-211, p. 209).

    n = [z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - delta^2)]^2 / delta^2, with psi = p10 + p01 the discordance
    (the share of cases the two configs disagree on) and delta = p10 - p01 the difference in accuracy (its sign does
    not matter). A normal approximation to the unconditional test; the exact conditional test needs somewhat more
    (:func:`cases_for_power_exact`). Not rounded.

    The published example (p10 = 0.05, p01 = 0.45, alpha = 0.05 two-sided, power 0.8) needs 23 pairs:

    >>> math.ceil(connor_cases(0.40, 0.50))
    23
    >>> round(connor_cases(0.01, 0.06))   # the chapter's 1 point at 6% discordance
    4707
    """
    d = _check_discordance(discordance)
    delta = _check_target(abs(diff), d) if diff != 0 else 0.0
    if delta == 0.0:
        raise DataError("a difference of zero cannot be detected at any number of cases")
    za = float(stats.norm.isf(_check_alpha(alpha) / 2.0))
    zb = float(stats.norm.ppf(_check_power(power)))
    return (za * math.sqrt(d) + zb * math.sqrt(d - delta * delta)) ** 2 / (delta * delta)


def mde_at_power(cases: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Minimum detectable difference at ``power``: Connor's formula (:func:`connor_cases`) solved for delta.

    With A = z_{1-alpha/2} sqrt(psi), B = z_power and s = sqrt(psi - delta^2), n delta^2 = (A + B s)^2 becomes
    (n + B^2) s^2 + 2AB s + A^2 - n psi = 0; s is its positive root and delta = sqrt(psi - s^2). inf when no s >= 0
    solves it, or when delta would exceed psi (|p10 - p01| <= p10 + p01: even a difference as large as the discordance
    is not detected that often). Connor (1987),
    Biometrics 43:207-211, p. 209.

    >>> round(mde_at_power(4707, 0.06), 4)
    0.01
    """
    n = _check_cases(cases)
    psi = _check_discordance(discordance)
    a = float(stats.norm.isf(_check_alpha(alpha) / 2.0)) * math.sqrt(psi)
    b = float(stats.norm.ppf(_check_power(power)))
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
class _PowerParts:
    """What exact power needs besides the difference: the discordant counts M, their weights and critical counts."""

    psi: float
    m: np.ndarray  # discordant counts with non-negligible probability (resolvable ones only)
    weight: np.ndarray  # P(M = m), M ~ Binomial(cases, psi)
    k: np.ndarray  # critical count of each m


def _power_parts(n: int, psi: float, alpha: float) -> _PowerParts:
    """M ~ Binomial(n, psi) on the window outside which Bernstein bounds its mass by 1e-16, with critical counts."""
    t = bernstein_halfwidth(n * psi * (1.0 - psi), 1.0)
    m = np.arange(max(0, math.floor(n * psi - t)), min(n, math.ceil(n * psi + t)) + 1, dtype=np.int64)
    w = stats.binom.pmf(m, n, psi)
    m, w = m[m > 0], w[m > 0]
    k = _critical_counts(m, alpha)
    ok = k <= m
    return _PowerParts(psi, m[ok], w[ok], k[ok])


def _power(parts: _PowerParts, delta: float) -> float:
    """sum_M P(M) [P(B >= k_M) + P(B <= M - k_M)], B ~ Binomial(M, (psi + delta) / (2 psi))."""
    p1 = min(1.0, max(0.0, (parts.psi + delta) / (2.0 * parts.psi)))
    m, k = parts.m, parts.k
    reject = special.bdtrc(k - 1, m, p1) + special.bdtr(m - k, m, p1)
    return float(np.clip(np.sum(parts.weight * reject), 0.0, 1.0))


def exact_power(cases: int, discordance: float, diff: float, alpha: float = 0.05) -> float:
    """Exact power of McNemar's exact test (p < alpha) when the true difference is ``diff``.

    Unconditional on the number of discordant cases: M ~ Binomial(cases, psi), and given M the cases only B gets
    right are B ~ Binomial(M, (psi + delta)/(2 psi)); the test rejects when B >= k_M or B <= M - k_M, k_M the
    :func:`critical_count` of M. power = sum_M P(M) [P(B >= k_M) + P(B <= M - k_M)], M restricted to the window
    outside which Bernstein's inequality bounds its probability by 1e-16. Used to check Connor's approximation
    (Connor 1987; Lachin 1992, Stat Med 11:1239).

    >>> round(exact_power(200, 0.06, 0.0), 4)   # the size of the test: below alpha, since it is exact
    0.0244
    """
    n = _check_cases(cases)
    psi = _check_discordance(discordance)
    a = _check_alpha(alpha)
    delta = abs(float(diff))
    if not delta <= psi:
        raise DataError(f"the difference {diff:g} cannot exceed the discordance {psi:g}")
    return _power(_power_parts(n, psi, a), delta)


def mde_at_power_exact(cases: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest difference whose :func:`exact_power` reaches ``power`` (bisection to 1e-5 relative; inf if none).

    Exact power grows with the difference (for each M the two tails of a binomial with a rejection region symmetric
    about M/2 grow as its probability moves away from one half), so bisection on [0, discordance] finds it; the
    discordant counts and their critical counts are computed once. The exact check on Connor (1987).

    >>> round(mde_at_power_exact(200, 0.06), 4)
    0.0489
    """
    n = _check_cases(cases)
    psi = _check_discordance(discordance)
    a = _check_alpha(alpha)
    pw = _check_power(power)
    parts = _power_parts(n, psi, a)
    if _power(parts, psi) < pw:
        return math.inf
    lo, hi = 0.0, psi
    while hi - lo > 1e-5 * hi:
        mid = 0.5 * (lo + hi)
        if _power(parts, mid) >= pw:
            hi = mid
        else:
            lo = mid
    return hi


def cases_for_power_exact(
    target_diff: float, discordance: float, alpha: float = 0.05, power: float = 0.8, limit: int = MAX_CASES
) -> int | None:
    """Smallest number of cases at which :func:`exact_power` at ``target_diff`` reaches ``power``; None above ``limit``.

    The exact power is increasing in the cases apart from ripples of well under 0.1% at very small numbers of cases
    (it is a mixture over M ~ Binomial(cases, psi), which smooths the conditional test's sawtooth), so the answer
    is found by doubling from Connor's estimate and bisecting. The exact counterpart of :func:`connor_cases`
    rounded up; larger, since the exact conditional test is conservative.

    >>> cases_for_power_exact(0.01, 0.06)
    4876
    """
    d = _check_discordance(discordance)
    t = _check_target(target_diff, d)
    a = _check_alpha(alpha)
    pw = _check_power(power)

    def reaches(n: int) -> bool:
        return _power(_power_parts(n, d, a), t) >= pw

    hi = max(1, math.ceil(connor_cases(t, d, a, pw)))
    while not reaches(hi):
        if hi >= limit:
            return None
        hi = min(limit, 2 * hi)
    lo = 0  # reaches(0) is False: no case, no power
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= 1 and reaches(mid):
            hi = mid
        else:
            lo = mid
    return hi


# ----------------------------------------------------------------------------------------------------------------
# Cases for a target difference
# ----------------------------------------------------------------------------------------------------------------


def _net_lower_bound(m: np.ndarray, alpha: float) -> np.ndarray:
    """A certified lower bound on the net 2k - m needed by m discordant cases (k = critical count).

    Berry-Esseen for Binomial(m, 1/2) (rho / sigma^3 = 1; constant 0.4748, Shevtsova 2011) gives
    P(X >= k) >= Phi_bar(2(k - 1 - m/2)/sqrt(m)) - 0.4748/sqrt(m); so every k with 2(k - 1 - m/2)/sqrt(m) <= z' =
    Phi_bar^-1(alpha/2 + 0.4748/sqrt(m)) still has p >= alpha, and the net is at least z' sqrt(m) + 2.
    """
    m = np.asarray(m, dtype=float)
    q = alpha / 2.0 + _BERRY_ESSEEN / np.sqrt(m)
    zp = np.where(q < 0.5, special.ndtri(1.0 - np.minimum(q, 0.5)), 0.0)
    return np.maximum(1.0, zp * np.sqrt(m) + 2.0)


def _net_upper_slope(m: float, alpha: float) -> float:
    """Z with net = 2k - m <= Z sqrt(m) + 4 for every m' >= m (k = critical count of m'), when m' >= 1 is resolvable.

    Hoeffding: P(X >= k) <= exp(-2 (k - m/2)^2 / m), below alpha/2 once k - m/2 > sqrt(m ln(2/alpha) / 2), so
    Z = sqrt(2 ln(2/alpha)). Berry-Esseen (as in :func:`_net_lower_bound`, the other side) gives the sharper
    Z = Phi_bar^-1(alpha/2 - 0.4748/sqrt(m)) once alpha/2 > 0.4748/sqrt(m); it decreases with m, so the value at
    m holds for every larger m'.
    """
    z = math.sqrt(2.0 * math.log(2.0 / alpha))
    q = alpha / 2.0 - _BERRY_ESSEEN / math.sqrt(max(m, 1.0))
    if q > 0:
        z = min(z, float(stats.norm.isf(q)))
    return z


def _lowest_cases(m: np.ndarray, d: float) -> np.ndarray:
    """Smallest number of cases with round(cases x d) >= m (the rounding of :func:`min_resolvable_diff`)."""
    m = np.asarray(m, dtype=np.int64)
    low = np.maximum(1, np.ceil((m - 0.5) / d).astype(np.int64) - 1)
    for _ in range(3):  # the tolerance of _round_half_up moves the boundary by at most one case
        low = low - ((low > 1) & (_round_half_up(d * (low - 1)) >= m))
    for _ in range(3):
        low = low + (_round_half_up(d * low) < m)
    return low


def _scan(m: np.ndarray, t: float, d: float, a: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For discordant counts m (ascending): their cases [first, last] and the first cases ``ok`` from which the
    net (2k - m)/cases <= t inside that range (ok > last: none of them)."""
    k = _critical_counts(m, a)
    net = (2 * k - m).astype(float)
    first = _lowest_cases(m, d)
    last = _lowest_cases(m + 1, d) - 1
    need = np.full(m.size, np.iinfo(np.int64).max // 4, dtype=np.int64)
    ok = k <= m
    need[ok] = np.ceil(net[ok] / t).astype(np.int64)
    # float comparisons exactly as min_resolvable_diff makes them: net / cases <= t
    for _ in range(2):
        down = ok & (need > 1) & (net / np.maximum(need - 1, 1) <= t)
        need = need - down
    for _ in range(2):
        up = ok & (net / np.maximum(need, 1) > t)
        need = need + up
    return first, last, np.maximum(first, need)


def _target_inputs(target_diff: float, discordance: float, alpha: float) -> tuple[float, float, float]:
    d = _check_discordance(discordance)
    return _check_target(target_diff, d), d, _check_alpha(alpha)


def cases_for_target(target_diff: float, discordance: float, alpha: float = 0.05) -> int | None:
    """Smallest number of cases at which an observed ``target_diff`` can reach p < alpha (:func:`min_resolvable_diff`).

    For each discordant count m the cases with round(cases x discordance) = m form an interval; the target is
    resolvable there from cases >= (2 k_m - m) / target_diff. The first m where that fits inside its interval
    gives the answer (exact; the curve is a sawtooth, so it is the first such number of cases, not a bisection, and
    a few larger numbers may fail again: :func:`cases_for_target_stable`). To stay fast for tiny targets, m's that a
    certified Berry-Esseen lower bound on 2 k_m - m already rules out are skipped before any exact binomial tail is
    computed. About z^2 discordance / target^2 (the square-root law). None only if nothing up to 10^9 cases works.

    >>> cases_for_target(0.01, 0.06)
    2600
    """
    t, d, a = _target_inputs(target_diff, discordance, alpha)
    z = float(stats.norm.isf(a / 2.0))
    r = t / d
    m_max = int(((z + math.sqrt(z * z + 12.0 * r)) / (2.0 * r)) ** 2 * 1.2) + 64
    m_done = 0
    while m_done < int(1e9 * d) + 2:
        for start in range(m_done + 1, m_max + 1, 16 * _CHUNK):
            m_all = np.arange(start, min(start + 16 * _CHUNK, m_max + 1), dtype=np.int64)
            # n <= (m + 0.5)/d (+ rounding tolerance) for every n with round(n d) = m, so net > t (m + 0.5)/d + 1
            # rules m out
            open_m = m_all[_net_lower_bound(m_all, a) <= t * (m_all + 0.5) / d + t + 1e-9]
            for i in range(0, open_m.size, 4096):
                _, last, ok = _scan(open_m[i : i + 4096], t, d, a)
                hit = ok <= last
                if hit.any():
                    return int(ok[int(np.argmax(hit))])
        m_done, m_max = m_max, 2 * m_max
    return None


def cases_for_target_stable(target_diff: float, discordance: float, alpha: float = 0.05) -> int | None:
    """Smallest number of cases from which every larger evaluation also resolves ``target_diff`` (p < alpha reachable).

    :func:`min_resolvable_diff` zigzags (the net 2k - m takes the parity of m), so after :func:`cases_for_target`
    first reaches the target some slightly larger numbers of cases may miss it again (6% discordance, 1 point: first
    at 2,600, missed at 2,609-2,624 and others, resolved for good from 2,800). This is one past the last miss. Beyond
    the discordant count m_end where a certified upper bound on the net (Hoeffding / Berry-Esseen, see
    :func:`_net_upper_slope`) is below target x cases, nothing can miss, so the exact scan stops there.

    >>> cases_for_target_stable(0.01, 0.06)
    2800
    """
    t, d, a = _target_inputs(target_diff, discordance, alpha)
    n_first = cases_for_target(t, d, a)
    if n_first is None:
        return None
    m_first = _discordant_of(n_first, d)
    # every n with round(n d) = m has n >= (m - 0.5)/d - 1; no miss once Z sqrt(m) + 4 <= t ((m - 0.5)/d - 1)
    slope = _net_upper_slope(m_first, a)
    r = t / d
    c = 4.0 + t + 0.5 * r
    m_end = max(m_first, math.ceil(((slope + math.sqrt(slope * slope + 4.0 * r * c)) / (2.0 * r)) ** 2) + 1)
    last_miss = n_first - 1
    for start in range(m_first, m_end + 1, _CHUNK):
        m = np.arange(start, min(start + _CHUNK, m_end + 1), dtype=np.int64)
        first, last, ok = _scan(m, t, d, a)
        miss = ok > first  # cases first .. min(last, ok - 1) miss the target
        if miss.any():
            last_miss = max(last_miss, int(np.max(np.minimum(last, ok - 1)[miss])))
    return last_miss + 1


# ----------------------------------------------------------------------------------------------------------------
# The plan, the curve and their sentences
# ----------------------------------------------------------------------------------------------------------------


def plan(
    cases: int,
    discordance: float,
    alpha: float = 0.05,
    power: float = 0.8,
    target_diff: float | None = None,
) -> Plan:
    """All the Planner's numbers for one setting (see :class:`Plan`; each field's function names its source).

    >>> p = plan(200, 0.06, target_diff=0.01)
    >>> p.min_resolvable_diff, p.cases_for_target, p.cases_for_target_stable, p.cases_for_target_sqrt_law
    (0.04, 2600, 2800, 3200)
    >>> p.cases_for_target_at_power, p.cases_for_target_at_power_exact
    (4707, 4876)
    """
    r = min_resolvable_diff(cases, discordance, alpha)
    pw = _check_power(power)
    mde = mde_at_power(r.cases, r.discordance, r.alpha, pw)
    parts = _power_parts(r.cases, r.discordance, r.alpha)
    exact_at = _power(parts, mde) if math.isfinite(mde) else math.nan
    mde_exact = mde_at_power_exact(r.cases, r.discordance, r.alpha, pw)
    n_target = n_stable = n_power = n_power_exact = n_sqrt = None
    t = None
    if target_diff is not None:
        t = _check_target(target_diff, r.discordance)
        n_target = cases_for_target(t, r.discordance, r.alpha)
        n_stable = cases_for_target_stable(t, r.discordance, r.alpha)
        n_power = math.ceil(connor_cases(t, r.discordance, r.alpha, pw) - 1e-9)
        n_power_exact = cases_for_power_exact(t, r.discordance, r.alpha, pw)
        if math.isfinite(r.min_diff):
            n_sqrt = math.ceil(r.cases * (r.min_diff / t) ** 2 - 1e-9)
    return Plan(
        cases=r.cases,
        discordance=r.discordance,
        alpha=r.alpha,
        power=pw,
        expected_discordant=r.expected_discordant,
        discordant=r.discordant,
        critical_count=r.critical_count,
        net_cases=r.net_cases,
        min_resolvable_diff=r.min_diff,
        sqrt_law_diff=r.sqrt_law_diff,
        mde_at_power=mde,
        exact_power_at_mde=exact_at,
        mde_at_power_exact=mde_exact,
        target_diff=t,
        cases_for_target=n_target,
        cases_for_target_stable=n_stable,
        cases_for_target_sqrt_law=n_sqrt,
        cases_for_target_at_power=n_power,
        cases_for_target_at_power_exact=n_power_exact,
    )


def resolution_curve(
    discordance: float,
    alpha: float = 0.05,
    power: float = 0.8,
    cases_min: int = 50,
    cases_max: int = 20_000,
    points: int = 120,
) -> ResolutionCurve:
    """Resolvable difference against cases on a log grid: exact (sawtooth), square-root law, Connor MDE at power.

    The square-root law: the threshold falls as 1/sqrt(cases), so a four times smaller difference needs
    sixteen times the cases (the chapter, "Why the monotonicity was never evidence").

    >>> c = resolution_curve(0.06, cases_min=200, cases_max=3200, points=5)
    >>> c.cases, [round(x, 3) for x in c.min_resolvable_diff]
    ((200, 400, 800, 1600, 3200), [0.04, 0.03, 0.02, 0.014, 0.009])
    """
    d = _check_discordance(discordance)
    a = _check_alpha(alpha)
    pw = _check_power(power)
    lo, hi = _check_cases(cases_min), _check_cases(cases_max)
    if hi <= lo or points < 2:
        raise DataError(f"the curve needs cases_min < cases_max and at least 2 points; got {lo}, {hi}, {points}")
    grid = np.unique(np.round(np.geomspace(lo, hi, int(points))).astype(np.int64))
    exact = tuple(min_resolvable_diff(int(n), d, a).min_diff for n in grid)
    z = float(stats.norm.isf(a / 2.0))
    sqrt_law = tuple(float(z * math.sqrt(d / n)) for n in grid)
    mde = tuple(mde_at_power(int(n), d, a, pw) for n in grid)
    return ResolutionCurve(d, a, pw, tuple(int(n) for n in grid), exact, sqrt_law, mde)


def _pts(x: float) -> str:
    return f"{100.0 * x:.1f}"


def _count(k: float, word: str) -> str:
    """'1 case', '12 discordant cases', '10.5 discordant cases'."""
    number = f"{k:,}" if float(k).is_integer() else f"{k:,.1f}"
    return f"{number} {word}" + ("" if k == 1 else "s")


def plan_sentences(p: Plan) -> PlanSentences:
    """The plain-language sentence for each of a :class:`Plan`'s numbers; every symbol is named where it appears.

    >>> s = plan_sentences(plan(200, 0.06, target_diff=0.01))
    >>> s.min_resolvable[:72]
    '200 cases at 6% discordance give about 12 discordant cases; 10 of them m'
    >>> s.target[:86]
    'Resolving 1.0 points (an observed difference that large reaching p < 0.05) first becom'
    """
    pct = f"{100 * p.discordance:g}%"
    expected = p.expected_discordant
    give = "gives" if p.cases == 1 else "give"
    if abs(expected - p.discordant) < 1e-9 * max(1.0, expected):
        head = f"{_count(p.cases, 'case')} at {pct} discordance {give} about {_count(p.discordant, 'discordant case')}"
    else:
        head = (
            f"{_count(p.cases, 'case')} at {pct} discordance {give} {expected:,.2f} discordant cases on average, "
            f"about {p.discordant:,} (rounded to the nearest whole number, halves up)"
        )
    if p.critical_count is None:
        first = (
            f"{head}; even if every one of them fell the same way p would not drop below {p.alpha:g}, so this "
            "evaluation cannot resolve any difference."
        )
    else:
        first = (
            f"{head}; {p.critical_count:,} of them must fall the same way to reach p < {p.alpha:g}, a net of "
            f"{_count(p.net_cases, 'case')} = {_pts(p.min_resolvable_diff)} points. Any smaller difference returns "
            '"cannot tell" however often the evaluation is run.'
        )
    power = f"{100 * p.power:.0f}%"
    if math.isfinite(p.mde_at_power):
        exact = (
            f"the exact minimum is {_pts(p.mde_at_power_exact)} points"
            if math.isfinite(p.mde_at_power_exact)
            else f"by the exact test no difference reaches {power}"
        )
        mde = (
            f"To detect a true difference {power} of the time it must be at least {_pts(p.mde_at_power)} points "
            f"(Connor's formula; the exact power at {_pts(p.mde_at_power)} points is "
            f"{100 * p.exact_power_at_mde:.0f}%, and {exact})."
        )
    else:
        mde = f"No difference can be detected {power} of the time with {_count(p.cases, 'case')} at {pct} discordance."
    z = float(stats.norm.isf(p.alpha / 2.0))
    value = f"{_pts(p.sqrt_law_diff)} points" if p.sqrt_law_diff <= 1.0 else "more than 100 points, i.e. nothing"
    sqrt_law = (
        f"Ignoring that discordant cases come in whole numbers, the threshold is z x sqrt(discordance / cases) = "
        f"{z:.2f} x sqrt({p.discordance:g} / {p.cases:,}) = {value} (z = {z:.2f}, the two-sided critical value for "
        f"alpha = {p.alpha:g}). It shrinks as the square root of the cases: half the difference needs four times "
        "the cases."
    )
    return PlanSentences(first, mde, sqrt_law, _target_sentence(p))


def _target_sentence(p: Plan) -> str | None:
    if p.target_diff is None:
        return None
    tp = _pts(p.target_diff)
    head = f"Resolving {tp} points (an observed difference that large reaching p < {p.alpha:g})"
    if p.cases_for_target is None:
        text = f"{head} would take more than 1,000,000,000 cases."
    elif p.cases_for_target_stable in (None, p.cases_for_target):
        text = f"{head} becomes possible from {p.cases_for_target:,} cases on (exact critical count)."
    else:
        text = (
            f"{head} first becomes possible at {p.cases_for_target:,} cases by the exact critical count, and for "
            f"every larger evaluation from {p.cases_for_target_stable:,} cases on (in between, whole numbers of "
            "discordant cases make the threshold zigzag)."
        )
    if p.cases_for_target_sqrt_law is not None:
        text += (
            f" The chapter's rule of thumb, today's {_pts(p.min_resolvable_diff)} points scaled by the square-root "
            f"law, gives {p.cases:,} x ({_pts(p.min_resolvable_diff)} / {tp})^2 = {p.cases_for_target_sqrt_law:,}."
        )
    power = f"{100 * p.power:.0f}%"
    if p.cases_for_target_at_power is not None:
        exact = (
            f"{p.cases_for_target_at_power_exact:,} by the exact power"
            if p.cases_for_target_at_power_exact is not None
            else f"the exact check is skipped above {MAX_CASES:,} cases"
        )
        text += (
            f" Detecting a true difference of {tp} points {power} of the time takes about "
            f"{p.cases_for_target_at_power:,} cases by Connor's formula, {exact}."
        )
    return text


# ----------------------------------------------------------------------------------------------------------------
# Label error
# ----------------------------------------------------------------------------------------------------------------


def label_error_floor(error_rate: float) -> LabelErrorFloor:
    """The ceiling a gold-label error rate e puts on measured accuracy, and the noise floor of differences.

    Model (see :class:`LabelErrorFloor`): measured accuracy = true accuracy x (1 - e), so a perfect system scores
    1 - e; differences below about e sit inside the noise of the ground truth. Source: the chapter, last section
    ("if 3% of the labels are wrong, a perfect system scores 97%").

    >>> label_error_floor(0.03).best_measurable_accuracy
    0.97
    """
    if not (0.0 <= error_rate < 1.0):
        raise DataError(
            f"the label error rate is a fraction from 0 up to (not including) 1, e.g. 0.03; got {error_rate}"
        )
    e = float(error_rate)
    return LabelErrorFloor(e, 1.0 - e, e)


def _invert_disagreement(q: float, model: str) -> float:
    q = min(max(q, 0.0), 1.0)
    if model == "binary":
        return 0.5 * (1.0 - math.sqrt(max(0.0, 1.0 - 2.0 * q)))  # q = 2e(1 - e); capped at e = 1/2
    return 1.0 - math.sqrt(1.0 - q)  # q = 1 - (1 - e)^2


def estimate_label_error(
    items: int, disagreements: int, model: str = "binary", level: float = 0.95
) -> LabelErrorEstimate:
    """Estimate the label error rate e from ``items`` double-labelled items with ``disagreements``.

    Model "binary" (default): two independent labellings, each wrong with probability e, binary labels, so they
    disagree exactly when one is wrong: q = P(disagree) = 2e(1 - e), e = (1 - sqrt(1 - 2q))/2 (q > 1/2 is read
    as e = 1/2: labels no better than a coin). Model "distinct": wrong labels never agree, q = 1 - (1 - e)^2,
    e = 1 - sqrt(1 - q). The interval maps the Clopper-Pearson interval of q (Clopper & Pearson 1934) through
    the same increasing function. Source: the chapter, last section ("double-label a sample").

    >>> r = estimate_label_error(1000, 58)
    >>> round(r.error_rate, 4), round(r.ci_low, 3), round(r.ci_high, 3)
    (0.0299, 0.023, 0.039)
    """
    if isinstance(items, bool) or int(items) != items or items < 1:
        raise DataError(f"the number of double-labelled items must be a whole number of at least 1; got {items}")
    if int(disagreements) != disagreements or not (0 <= disagreements <= items):
        raise DataError(f"disagreements must be a whole number from 0 to {items}; got {disagreements}")
    if model not in ("binary", "distinct"):
        raise DataError(f"unknown label-error model {model!r}; use 'binary' or 'distinct'")
    if not (0.0 < level < 1.0):
        raise DataError(f"the interval level must be between 0 and 1; got {level}")
    m, d = int(items), int(disagreements)
    q_lo, q_hi = clopper_pearson(d, m, level)
    q = d / m
    return LabelErrorEstimate(
        items=m,
        disagreements=d,
        model=model,
        disagreement_rate=q,
        error_rate=_invert_disagreement(q, model),
        ci_low=_invert_disagreement(q_lo, model),
        ci_high=_invert_disagreement(q_hi, model),
        level=level,
    )


def label_error_sentence(floor: LabelErrorFloor) -> str:
    """Plain words for :func:`label_error_floor`.

    >>> label_error_sentence(label_error_floor(0.03))[:63]
    'If 3.0% of the gold labels are wrong, a perfect system scores 9'
    """
    e = floor.error_rate
    return (
        f"If {100 * e:.1f}% of the gold labels are wrong, a perfect system scores {100 * floor.best_measurable_accuracy:.1f}%"
        f", and two configs that differ by less than about {_pts(floor.noise_floor_diff)} points are competing inside "
        "the noise of the ground truth: more cases buy precision around a number the labels already displace."
    )


def target_vs_floor_sentence(target_diff: float, floor: LabelErrorFloor) -> str:
    """Whether a target difference sits above the label-error floor (the chapter: more cases cannot fix labels).

    >>> target_vs_floor_sentence(0.01, label_error_floor(0.03))[:60]
    'The target of 1.0 points is below the label-error floor of 3'
    """
    t, e = _pts(target_diff), _pts(floor.noise_floor_diff)
    if target_diff < floor.noise_floor_diff:
        return (
            f"The target of {t} points is below the label-error floor of {e} points: more cases will not settle it; "
            "double-label a sample and fix the labels first."
        )
    return f"The target of {t} points is above the label-error floor of {e} points, so more cases can settle it."


def label_estimate_sentence(est: LabelErrorEstimate) -> str:
    """Plain words for :func:`estimate_label_error`, stating the model.

    >>> label_estimate_sentence(estimate_label_error(1000, 58))[:58]
    '58 disagreements in 1,000 double-labelled items (5.8%) mea'
    """
    model = (
        "two independent labellings, each wrong with the same probability, disagree exactly when one of them is "
        "wrong (binary labels)"
        if est.model == "binary"
        else "two labellings disagree whenever at least one is wrong (wrong labels never agree)"
    )
    return (
        f"{est.disagreements:,} disagreements in {est.items:,} double-labelled items ({100 * est.disagreement_rate:.1f}%) "
        f"mean a label error rate of about {100 * est.error_rate:.1f}% ({100 * est.level:.0f}% interval "
        f"{100 * est.ci_low:.1f}% to {100 * est.ci_high:.1f}%), assuming {model}."
    )
