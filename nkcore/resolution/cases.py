"""Cases needed for a target difference: the exact first and stable answers, and the square-root law.

The smallest resolvable difference (:func:`~nkcore.resolution.critical.min_resolvable_diff`) falls as
1/sqrt(cases), in a sawtooth because discordant cases come in whole numbers. :func:`cases_for_target` finds the
first number of cases whose exact threshold reaches a target, :func:`cases_for_target_stable` the number from which
every larger evaluation does, and :func:`sqrt_law_cases` the chapter's scaling of today's threshold. Answers above
:data:`~nkcore.resolution.inputs.SEARCH_CEILING` (1,000,000,000 cases) are None, found without scanning that far.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from nkcore.common.checks import check_significance
from nkcore.resolution.critical import critical_counts, discordant_of, round_half_up
from nkcore.resolution.inputs import SEARCH_CEILING, check_discordance, check_target

__all__ = [
    "BERRY_ESSEEN",
    "STABLE_SCAN",
    "TargetCases",
    "cases_for_target",
    "cases_for_target_stable",
    "lowest_cases",
    "net_lower_bound",
    "net_upper_slope",
    "sqrt_law_cases",
    "target_cases",
]

BERRY_ESSEEN = 0.4748
"""The iid Berry-Esseen constant (Shevtsova 2011)."""

STABLE_SCAN = 1 << 23
"""Most discordant counts :func:`cases_for_target_stable` checks exactly (about a second); beyond it: None."""

_CHUNK = 1 << 16  # discordant counts handled per vectorised step (bounds memory for tiny targets)
_BLOCK = 16 * _CHUNK  # discordant counts ruled in or out at once by the certified lower bound


def net_lower_bound(m: np.ndarray, significance: float) -> np.ndarray:
    """A certified lower bound on the net 2k - m needed by m discordant cases (k = critical count); nondecreasing in m.

    Berry-Esseen for Binomial(m, 1/2) (rho / sigma^3 = 1; constant 0.4748, Shevtsova 2011) gives
    P(X >= k) >= Phi_bar(2(k - 1 - m/2)/sqrt(m)) - 0.4748/sqrt(m); so every k with 2(k - 1 - m/2)/sqrt(m) <= z' =
    Phi_bar^-1(alpha/2 + 0.4748/sqrt(m)) still has p >= alpha, and the net is at least z' sqrt(m) + 2.

    >>> [round(float(x), 2) for x in net_lower_bound(np.array([100, 10_000]), 0.05)]  # exact nets: 22, 198
    [16.58, 190.45]
    """
    m = np.asarray(m, dtype=float)
    q = significance / 2.0 + BERRY_ESSEEN / np.sqrt(m)
    zp = np.where(q < 0.5, special.ndtri(1.0 - np.minimum(q, 0.5)), 0.0)
    return np.maximum(1.0, zp * np.sqrt(m) + 2.0)


def net_upper_slope(m: float, significance: float) -> float:
    """Z with net = 2k - m <= Z sqrt(m) + 4 for every m' >= m (k = critical count of m'), when m' >= 1 is resolvable.

    Hoeffding: P(X >= k) <= exp(-2 (k - m/2)^2 / m), below alpha/2 once k - m/2 > sqrt(m ln(2/alpha) / 2), so
    Z = sqrt(2 ln(2/alpha)). Berry-Esseen (as in :func:`net_lower_bound`, the other side) gives the sharper
    Z = Phi_bar^-1(alpha/2 - 0.4748/sqrt(m)) once alpha/2 > 0.4748/sqrt(m); it decreases with m, so the value at
    m holds for every larger m'.

    >>> round(net_upper_slope(1, 0.05), 3), round(net_upper_slope(10**6, 0.05), 3)
    (2.716, 1.968)
    """
    z = math.sqrt(2.0 * (math.log(2.0) - math.log(significance)))  # ln(2 / alpha), finite for denormal alphas
    q = significance / 2.0 - BERRY_ESSEEN / math.sqrt(max(m, 1.0))
    if q > 0:
        z = min(z, float(stats.norm.isf(q)))
    return z


def lowest_cases(m: np.ndarray, d: float) -> np.ndarray:
    """Smallest number of cases with round(cases x d) >= m (the rounding of
    :func:`~nkcore.resolution.critical.min_resolvable_diff`).

    >>> lowest_cases(np.array([12, 13]), 0.06).tolist()   # 192 x 0.06 = 11.52 -> 12; 209 x 0.06 = 12.54 -> 13
    [192, 209]
    """
    m = np.asarray(m, dtype=np.int64)
    low = np.maximum(1, np.ceil((m - 0.5) / d).astype(np.int64) - 1)
    for _ in range(3):  # the tolerance of round_half_up moves the boundary by at most one case
        low = low - ((low > 1) & (round_half_up(d * (low - 1)) >= m))
    for _ in range(3):
        low = low + (round_half_up(d * low) < m)
    return low


def _scan(m: np.ndarray, t: float, d: float, a: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For discordant counts m (ascending): their cases [first, last] and the first cases ``ok`` from which the
    net (2k - m)/cases <= t inside that range (ok > last: none of them)."""
    k = critical_counts(m, a)
    net = (2 * k - m).astype(float)
    first = lowest_cases(m, d)
    last = lowest_cases(m + 1, d) - 1
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


def _target_inputs(target_diff: float, discordance: float, significance: float) -> tuple[float, float, float]:
    d = check_discordance(discordance)
    return check_target(target_diff, d), d, check_significance(significance)


def cases_for_target(target_diff: float, discordance: float, significance: float = 0.05) -> int | None:
    """Smallest number of cases at which an observed ``target_diff`` can reach p < alpha
    (:func:`~nkcore.resolution.critical.min_resolvable_diff`); None above 1,000,000,000 cases.

    For each discordant count m the cases with round(cases x discordance) = m form an interval; the target is
    resolvable there from cases >= (2 k_m - m) / target_diff. The first m where that fits inside its interval
    gives the answer (exact; the curve is a sawtooth, so it is the first such number of cases, not a bisection, and
    a few larger numbers may fail again: :func:`cases_for_target_stable`). To stay fast for tiny targets, m's that a
    certified Berry-Esseen lower bound on 2 k_m - m (:func:`net_lower_bound`, nondecreasing in m) already rules out
    are skipped in blocks of up to a million before any exact binomial tail is computed; a net is at least 1, so a target
    below 1 / 1,000,000,000 is None at once. About z^2 discordance / target^2 (the square-root law).

    >>> cases_for_target(0.01, 0.06)
    2600
    """
    t, d, a = _target_inputs(target_diff, discordance, significance)
    if t * SEARCH_CEILING < 1.0:  # cases >= net / t >= 1 / t
        return None
    m_cap = discordant_of(SEARCH_CEILING, d)  # every number of cases up to the ceiling has round(n d) <= m_cap
    start, size = 1, 4096
    while start <= m_cap:  # blocks of 4,096 discordant counts, doubling up to _BLOCK
        first, end = start, min(start + size - 1, m_cap)
        start, size = end + 1, min(2 * size, _BLOCK)
        # n <= (m + 0.5)/d (+ rounding tolerance) for every n with round(n d) = m, so net > t (m + 0.5)/d + 1
        # rules m out; the bound at the block's start (with a margin for rounding) rules out the whole block
        if float(net_lower_bound(np.array([first]), a)[0]) * (1 - 1e-9) > t * (end + 0.5) / d + t + 1e-9:
            continue
        m_all = np.arange(first, end + 1, dtype=np.int64)
        open_m = m_all[net_lower_bound(m_all, a) <= t * (m_all + 0.5) / d + t + 1e-9]
        for i in range(0, open_m.size, 4096):
            _, last, ok = _scan(open_m[i : i + 4096], t, d, a)
            hit = ok <= last
            if hit.any():
                n = int(ok[int(np.argmax(hit))])
                return n if n <= SEARCH_CEILING else None
    return None


def cases_for_target_stable(target_diff: float, discordance: float, significance: float = 0.05) -> int | None:
    """Smallest number of cases from which every larger evaluation also resolves ``target_diff`` (p < alpha reachable).

    :func:`~nkcore.resolution.critical.min_resolvable_diff` zigzags (the net 2k - m takes the parity of m), so after
    :func:`cases_for_target` first reaches the target some slightly larger numbers of cases may miss it again (6%
    discordance, 1 point: first at 2,600, missed at 2,609-2,624 and others, resolved for good from 2,800). This is
    one past the last miss. Beyond the discordant count m_end where a certified upper bound on the net (Hoeffding /
    Berry-Esseen, :func:`net_upper_slope`) is below target x cases, nothing can miss, so the exact scan stops there.
    None when :func:`cases_for_target` is None, or when more than :data:`STABLE_SCAN` discordant counts would need
    the exact scan (only for extreme alphas, where the upper bound is loose).

    >>> cases_for_target_stable(0.01, 0.06)
    2800
    """
    t, d, a = _target_inputs(target_diff, discordance, significance)
    return _stable_from(cases_for_target(t, d, a), t, d, a)


def _stable_from(n_first: int | None, t: float, d: float, a: float) -> int | None:
    """:func:`cases_for_target_stable` once :func:`cases_for_target` has given ``n_first`` (inputs checked)."""
    if n_first is None:
        return None
    m_first = discordant_of(n_first, d)
    # every n with round(n d) = m has n >= (m - 0.5)/d - 1; no miss once Z sqrt(m) + 4 <= t ((m - 0.5)/d - 1)
    slope = net_upper_slope(m_first, a)
    r = t / d
    c = 4.0 + t + 0.5 * r
    root = (slope + math.sqrt(slope * slope + 4.0 * r * c)) / (2.0 * r)
    if not root * root - m_first <= STABLE_SCAN:  # a product: inf rather than OverflowError
        return None
    m_end = max(m_first, math.ceil(root**2) + 1)
    if m_end - m_first > STABLE_SCAN:
        return None
    last_miss = n_first - 1
    for start in range(m_first, m_end + 1, _CHUNK):
        m = np.arange(start, min(start + _CHUNK, m_end + 1), dtype=np.int64)
        first, last, ok = _scan(m, t, d, a)
        miss = ok > first  # cases first .. min(last, ok - 1) miss the target
        if miss.any():
            last_miss = max(last_miss, int(np.max(np.minimum(last, ok - 1)[miss])))
    return last_miss + 1


@dataclass(frozen=True, slots=True)
class TargetCases:
    """The exact cases for a target: ``first`` (:func:`cases_for_target`), ``stable`` (:func:`cases_for_target_stable`)."""

    first: int | None
    stable: int | None


def target_cases(target_diff: float, discordance: float, significance: float = 0.05) -> TargetCases:
    """:func:`cases_for_target` and :func:`cases_for_target_stable` together, the first search done once.

    >>> target_cases(0.01, 0.06)
    TargetCases(first=2600, stable=2800)
    """
    t, d, a = _target_inputs(target_diff, discordance, significance)
    first = cases_for_target(t, d, a)
    return TargetCases(first, _stable_from(first, t, d, a))


def sqrt_law_cases(cases: int, min_diff: float, target_diff: float) -> int | None:
    """The chapter's rule of thumb: cases x (min_diff / target_diff)^2, rounded up (a 1e-9 tolerance), the cases at
    which today's smallest resolvable difference ``min_diff`` would shrink to ``target_diff`` under the square-root
    law. None when nothing is resolvable today (``min_diff`` infinite) or the answer is above 1,000,000,000 cases.

    >>> sqrt_law_cases(200, 0.04, 0.01)   # the chapter: four times smaller needs sixteen times the cases
    3200
    """
    if not math.isfinite(min_diff):
        return None
    ratio = min_diff / target_diff
    if not ratio * ratio * cases <= 2.0 * SEARCH_CEILING:  # a product overflows to inf where ** 2 would raise
        return None
    x = math.ceil(cases * ratio**2 - 1e-9)
    return x if x <= SEARCH_CEILING else None
