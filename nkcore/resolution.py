"""What a paired evaluation can resolve: the smallest resolvable difference, MDE at power, cases needed, label noise.

Fix what the evaluation can resolve before looking at any of the numbers. With ``cases`` evaluation cases and a
discordance rate ``discordance`` (the share of cases two configs disagree on), about m = cases x discordance
discordant cases decide the comparison; under "no difference" each is a fair coin flip. Source: the chapter
"The accuracy curve flattens sooner than the sample count suggests" (``shared/seeds/002``), section "Why the
monotonicity was never evidence": 200 cases at 6% discordance give about 12 discordant cases, ten must fall one
way for p < 0.05, a net of 8 cases = 4 points; resolving 1 point takes roughly 3,200 cases; a 3% label error
caps a perfect system at 97%.

Differences are fractions of cases (0.04 = 4 points), as everywhere in ``nkcore``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from nkcore.errors import DataError

__all__ = [
    "LabelErrorEstimate",
    "LabelErrorFloor",
    "Plan",
    "PlanSentences",
    "ResolutionCurve",
    "ResolvableDifference",
    "cases_for_target",
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

_TAIL_MASS = 1e-16
_LOG_TAIL = math.log(2.0 / _TAIL_MASS)
_BERRY_ESSEEN = 0.4748  # Shevtsova (2011), iid Berry-Esseen constant


# ----------------------------------------------------------------------------------------------------------------
# Result objects
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResolvableDifference:
    """The smallest difference ``cases`` cases at ``discordance`` can bring to p < ``alpha`` at all.

    ``discordant`` = round(cases x discordance) expected discordant cases; ``critical_count`` of them must fall
    one way (None: no split of so few cases reaches p < alpha); ``net_cases`` = 2 critical_count - discordant;
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
    cases_for_target_at_power: int | None
    cases_for_target_sqrt_law: int | None


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
    if isinstance(cases, bool) or int(cases) != cases or cases < 1:
        raise DataError(f"the number of cases must be a whole number of at least 1; got {cases}")
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
    """Vectorised :func:`critical_count`; m + 1 marks "no split reaches p < alpha"."""
    m = np.asarray(m, dtype=np.int64)
    half = m // 2
    z = float(stats.norm.isf(alpha / 2.0))
    k = np.maximum(half + 1, np.floor(m / 2.0 + 0.5 * z * np.sqrt(m)).astype(np.int64) - 2)
    k = np.minimum(k, m + 1)
    for _ in range(10_000):
        down = (k - 1 > half) & (k - 1 <= m)
        down[down] = _two_sided_p(k[down] - 1, m[down]) < alpha
        if not down.any():
            break
        k = k - down
    for _ in range(10_000):
        up = k <= m
        up[up] = _two_sided_p(k[up], m[up]) >= alpha
        if not up.any():
            break
        k = k + up
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


def _discordant_of(cases: int, discordance: float) -> int:
    """Expected discordant cases rounded to a whole number (halves round up)."""
    return math.floor(discordance * cases + 0.5)


def min_resolvable_diff(cases: int, discordance: float, alpha: float = 0.05) -> ResolvableDifference:
    """The smallest difference ``cases`` cases can bring to p < alpha at all (exact binomial critical count).

    m = round(cases x discordance) discordant cases are expected; k = :func:`critical_count` (m, alpha) of them
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
    """Cases needed for McNemar's test to detect ``diff`` at ``power`` (Connor 1987, Biometrics 43:207, eq. 3).

    n = [z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - delta^2)]^2 / delta^2, psi = discordance (p01 + p10),
    delta = diff (p01 - p10). Not rounded.

    >>> round(connor_cases(0.01, 0.06))
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
    (n + B^2) s^2 + 2AB s + A^2 - n psi = 0; s is its positive root and delta = sqrt(psi - s^2). inf when
    delta would exceed psi (no split of the discordant cases is that lopsided). Connor (1987), Biometrics 43:207.

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
    return delta if delta <= psi else math.inf


def _binomial_support(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Values and pmf of Binomial(n, p) on the window outside which Bernstein bounds the mass by 1e-16."""
    var = n * p * (1.0 - p)
    t = _LOG_TAIL / 3.0 + math.sqrt(_LOG_TAIL**2 / 9.0 + 2.0 * var * _LOG_TAIL)
    lo = max(0, math.floor(n * p - t))
    hi = min(n, math.ceil(n * p + t))
    m = np.arange(lo, hi + 1, dtype=np.int64)
    return m, stats.binom.pmf(m, n, p)


def exact_power(cases: int, discordance: float, diff: float, alpha: float = 0.05) -> float:
    """Exact power of McNemar's exact test (p < alpha) when the true difference is ``diff``.

    Unconditional on the number of discordant cases: M ~ Binomial(cases, psi), and given M the cases only B gets
    right are Binomial(M, (psi + delta)/(2 psi)); reject when either side reaches :func:`critical_count` (M).
    power = sum_M P(M) [P(B >= k_M) + P(B <= M - k_M)]; M truncated where its probability is below 1e-16
    (Bernstein). Used to check Connor's approximation (Connor 1987; Lachin 1992, Stat Med 11:1239).

    >>> round(exact_power(200, 0.06, 0.0), 4) < 0.05
    True
    """
    n = _check_cases(cases)
    psi = _check_discordance(discordance)
    a = _check_alpha(alpha)
    delta = abs(float(diff))
    if delta > psi:
        raise DataError(f"the difference {diff:g} cannot exceed the discordance {psi:g}")
    p1 = min(1.0, max(0.0, (psi + delta) / (2.0 * psi)))
    m, w = _binomial_support(n, psi)
    k = _critical_counts(m, a)
    ok = k <= m
    mk, kk = m[ok], k[ok]
    reject = special.bdtrc(kk - 1, mk, p1) + special.bdtr(mk - kk, mk, p1)
    return float(np.clip(np.sum(w[ok] * reject), 0.0, 1.0))


def mde_at_power_exact(cases: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest difference whose :func:`exact_power` reaches ``power`` (bisection to 1e-6; inf if none).

    Exact power grows with the difference (a mixture over M of binomial tails that grow as the split moves away
    from one half), so bisection on [0, discordance] finds it. The exact check on Connor (1987).

    >>> round(mde_at_power_exact(200, 0.06), 3)
    0.049
    """
    n = _check_cases(cases)
    psi = _check_discordance(discordance)
    a = _check_alpha(alpha)
    pw = _check_power(power)
    if exact_power(n, psi, psi, a) < pw:
        return math.inf
    lo, hi = 0.0, psi
    while hi - lo > 1e-6:
        mid = 0.5 * (lo + hi)
        if exact_power(n, psi, mid, a) >= pw:
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


def cases_for_target(target_diff: float, discordance: float, alpha: float = 0.05) -> int | None:
    """Smallest number of cases at which ``target_diff`` can reach p < alpha (:func:`min_resolvable_diff` <= it).

    For each discordant count m the cases with round(cases x discordance) = m form an interval; the target is
    resolvable there from cases >= (2 k_m - m) / target_diff. The first m where that fits inside its interval
    gives the answer (exact; the curve is a sawtooth, so it is the first such number of cases, not a bisection).
    To stay fast for tiny targets, m's that a certified Berry-Esseen lower bound on 2 k_m - m already rules out
    are skipped before any exact binomial tail is computed. About z^2 discordance / target^2 (the square-root
    law). None only if nothing up to 10^9 cases works.

    >>> cases_for_target(0.01, 0.06)
    2600
    """
    d = _check_discordance(discordance)
    t = _check_target(target_diff, d)
    a = _check_alpha(alpha)
    z = float(stats.norm.isf(a / 2.0))
    r = t / d
    m_max = int(((z + math.sqrt(z * z + 12.0 * r)) / (2.0 * r)) ** 2 * 1.2) + 64
    m_done = 0
    while m_done < int(1e9 * d) + 2:
        m_all = np.arange(m_done + 1, m_max + 1, dtype=np.int64)
        # n <= (m + 0.5)/d for every n with round(n d) = m, so net > t (m + 0.5)/d rules m out
        open_m = m_all[_net_lower_bound(m_all, a) <= t * (m_all + 0.5) / d + 1e-9]
        for start in range(0, open_m.size, 4096):
            n = _first_feasible(open_m[start : start + 4096], t, d, a)
            if n is not None:
                while min_resolvable_diff(n, d, a).min_diff > t:  # consistent with it by construction
                    n += 1
                return n
        m_done, m_max = m_max, 2 * m_max
    return None


def _first_feasible(m: np.ndarray, t: float, d: float, a: float) -> int | None:
    """Smallest cases with round(cases x d) in ``m`` (ascending) whose net (2k - m)/cases <= t, else None."""
    if m.size == 0:
        return None
    k = _critical_counts(m, a)
    net = 2 * k - m
    first = _lowest_cases(m, d)
    last = _lowest_cases(m + 1, d) - 1
    need = np.ceil(net / t).astype(np.int64)
    need = need - ((need > 1) & (net / np.maximum(need - 1, 1) <= t))
    cand = np.maximum(first, need)
    feasible = (k <= m) & (cand <= last)
    if not feasible.any():
        return None
    return int(cand[int(np.argmax(feasible))])


def _lowest_cases(m: np.ndarray, d: float) -> np.ndarray:
    """Smallest number of cases with round(cases x d) >= m (the rounding of :func:`min_resolvable_diff`)."""
    low = np.maximum(1, np.ceil((m - 0.5) / d).astype(np.int64))
    low = low - ((low > 1) & (np.floor(d * (low - 1) + 0.5) >= m))
    low = low + (np.floor(d * low + 0.5) < m)
    return low


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
    >>> p.min_resolvable_diff, p.cases_for_target_sqrt_law
    (0.04, 3200)
    """
    r = min_resolvable_diff(cases, discordance, alpha)
    pw = _check_power(power)
    mde = mde_at_power(r.cases, r.discordance, r.alpha, pw)
    exact_at = exact_power(r.cases, r.discordance, mde, r.alpha) if math.isfinite(mde) else math.nan
    mde_exact = mde_at_power_exact(r.cases, r.discordance, r.alpha, pw)
    n_target = n_power = n_sqrt = None
    t = None
    if target_diff is not None:
        t = _check_target(target_diff, r.discordance)
        n_target = cases_for_target(t, r.discordance, r.alpha)
        n_power = math.ceil(connor_cases(t, r.discordance, r.alpha, pw) - 1e-9)
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
        cases_for_target_at_power=n_power,
        cases_for_target_sqrt_law=n_sqrt,
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


def plan_sentences(p: Plan) -> PlanSentences:
    """The plain-language sentence for each of a :class:`Plan`'s numbers.

    >>> plan_sentences(plan(200, 0.06)).min_resolvable[:72]
    '200 cases at 6% discordance give about 12 discordant cases; 10 of them m'
    """
    pct = f"{100 * p.discordance:g}%"
    head = f"{p.cases:,} cases at {pct} discordance give about {p.discordant:,} discordant cases"
    if p.critical_count is None:
        first = f"{head}; no split of so few reaches p < {p.alpha:g}, so this evaluation cannot resolve any difference."
    else:
        first = (
            f"{head}; {p.critical_count:,} of them must fall the same way to reach p < {p.alpha:g}, a net of "
            f"{p.net_cases:,} cases = {_pts(p.min_resolvable_diff)} points. Any smaller difference returns "
            '"cannot tell" however often the evaluation is run.'
        )
    if math.isfinite(p.mde_at_power):
        mde = (
            f"To detect a difference {100 * p.power:.0f}% of the time it must be at least {_pts(p.mde_at_power)} points "
            f"(Connor's formula; the exact power at that difference is {100 * p.exact_power_at_mde:.0f}%, and the exact "
            f"minimum is {_pts(p.mde_at_power_exact)} points)."
        )
    else:
        mde = f"No difference can be detected {100 * p.power:.0f}% of the time with {p.cases:,} cases at {pct} discordance."
    sqrt_law = (
        f"Without rounding the threshold is {_pts(p.sqrt_law_diff)} points, and it shrinks as the square root of the "
        "cases: half the difference needs four times the cases."
    )
    target = None
    if p.target_diff is not None:
        tp = _pts(p.target_diff)
        parts = []
        if p.cases_for_target is not None:
            parts.append(f"a difference of {tp} points becomes resolvable from about {p.cases_for_target:,} cases")
        if p.cases_for_target_at_power is not None:
            parts.append(f"detecting it {100 * p.power:.0f}% of the time takes about {p.cases_for_target_at_power:,}")
        text = "; ".join(parts) if parts else f"a difference of {tp} points cannot be resolved"
        if p.cases_for_target_sqrt_law is not None:
            text += (
                f" (scaling today's {_pts(p.min_resolvable_diff)} points by the square-root law gives "
                f"{p.cases_for_target_sqrt_law:,})"
            )
        target = text[0].upper() + text[1:] + "."
    return PlanSentences(first, mde, sqrt_law, target)


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
    a = 1.0 - level
    q_lo = 0.0 if d == 0 else float(special.betaincinv(d, m - d + 1, a / 2))
    q_hi = 1.0 if d == m else float(special.betaincinv(d + 1, m - d, 1 - a / 2))
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
