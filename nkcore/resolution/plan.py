"""The Planner's numbers for one setting (:func:`plan`) and the resolvable difference against cases
(:func:`resolution_curve`).

Differences are fractions of cases (0.04 = 4 points), as everywhere in ``nkcore``. Numbers of cases given as
input are limited to :data:`~nkcore.resolution.inputs.MAX_CASES` (10,000,000; server setting NKP_MAX_CASES): the
exact power computations grow with the square root of the cases and take seconds beyond that. Computed answers
(cases for a target) may be larger, up to :data:`~nkcore.resolution.inputs.SEARCH_CEILING` (1,000,000,000); above
it they are None.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common.checks import check_power, check_significance
from nkcore.errors import DataError
from nkcore.resolution.cases import sqrt_law_cases, target_cases
from nkcore.resolution.critical import critical_counts, min_resolvable_diff, z_two_sided
from nkcore.resolution.inputs import SEARCH_CEILING, check_cases, check_discordance, check_target
from nkcore.resolution.power import (
    cases_for_power_exact,
    connor_cases,
    mde_at_power,
    mde_at_power_exact,
    power_at,
    power_parts,
)

__all__ = ["MAX_CURVE_POINTS", "Plan", "ResolutionCurve", "plan", "resolution_curve"]

MAX_CURVE_POINTS = 10_000
"""Most points a resolution curve is drawn with."""


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything the Planner shows for one (cases, discordance, alpha, power[, target_diff]).

    ``min_resolvable_diff``: :func:`~nkcore.resolution.critical.min_resolvable_diff`; ``mde_at_power``: Connor
    (1987) MDE at ``power`` (:func:`~nkcore.resolution.power.mde_at_power`), ``exact_power_at_mde`` its exact power
    and ``mde_at_power_exact`` the exact MDE; with a ``target_diff``: ``cases_for_target`` (smallest number of cases
    at which the target becomes resolvable, exact), ``cases_for_target_at_power`` (Connor) and
    ``cases_for_target_sqrt_law`` = cases x (min_resolvable_diff / target_diff)^2, the chapter's scaling.

    Which "cases for the target" is which (the chapter's example, 6% discordance, 1 point):

    - ``cases_for_target`` (2,600): the first number of cases whose exact critical count lets an observed difference
      of ``target_diff`` reach p < alpha (:func:`~nkcore.resolution.cases.cases_for_target`);
    - ``cases_for_target_stable`` (2,800): from this number on every larger evaluation also resolves it (whole
      numbers of discordant cases make the threshold zigzag);
    - ``cases_for_target_sqrt_law`` (3,200): today's ``min_resolvable_diff`` scaled by the square-root law, the
      chapter's "roughly 3,200" (16 x 200 for a four times smaller difference);
    - ``cases_for_target_at_power`` (4,707): Connor's formula, cases to *detect* a true difference of
      ``target_diff`` with probability ``power``; ``cases_for_target_at_power_exact`` (4,876) the same by the exact
      power (None above the cases limit, 10,000,000).

    The first four are None above 1,000,000,000 cases (``cases_for_target_sqrt_law`` also when nothing is
    resolvable today).
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
    discordant_low: int = 0
    discordant_high: int = 0
    smallest_in_range: float = math.inf
    smallest_at: tuple[int, ...] = ()


def discordant_spread(
    cases: int, discordance: float, significance: float = 0.05
) -> tuple[int, int, float, tuple[int, ...]]:
    """How the discordant count varies from run to run, and the smallest difference resolvable within that range.

    The discordant count of ``cases`` cases at ``discordance`` is Binomial(cases, discordance); (low, high) are its
    2.5% and 97.5% quantiles. For each m in [low, high] the exact critical count k(m) (McNemar) resolves a net of
    2 k(m) - m cases; the smallest such difference over the range, with the m's that give it, shows that the
    threshold is not fixed: a run with a different discordant count resolves a different difference (the zigzag of
    whole numbers). Source: the chapter, "Why the monotonicity was never evidence".

    >>> discordant_spread(200, 0.06)   # 12 expected; 6 to 19 in 95% of runs; at 6 of them 3.0 points resolve
    (6, 19, 0.03, (6,))
    """
    from scipy import stats  # the Planner's other numbers do not need it

    low = int(stats.binom.ppf(0.025, cases, discordance))
    high = int(stats.binom.ppf(0.975, cases, discordance))
    m = np.arange(max(low, 1), max(high, 1) + 1, dtype=np.int64)
    if high < 1:
        return low, high, math.inf, ()
    k = critical_counts(m, significance)
    ok = k <= m
    if not ok.any():
        return low, high, math.inf, ()
    net = np.where(ok, 2 * k - m, np.iinfo(np.int64).max)
    best = int(net.min())
    return low, high, best / cases, tuple(int(x) for x in m[net == best])


def plan(
    cases: int,
    discordance: float,
    significance: float = 0.05,
    power: float = 0.8,
    target_diff: float | None = None,
) -> Plan:
    """All the Planner's numbers for one setting (see :class:`Plan`; each field's function names its source).

    Any float input gives a plan or a ``DataError``: tiny targets (1e-300, denormals) give None for the counts
    above 1,000,000,000 cases, found at once.

    >>> p = plan(200, 0.06, target_diff=0.01)
    >>> p.min_resolvable_diff, p.cases_for_target, p.cases_for_target_stable, p.cases_for_target_sqrt_law
    (0.04, 2600, 2800, 3200)
    >>> p.cases_for_target_at_power, p.cases_for_target_at_power_exact
    (4707, 4876)
    """
    r = min_resolvable_diff(cases, discordance, significance)
    pw = check_power(power)
    mde = mde_at_power(r.cases, r.discordance, r.significance, pw)
    exact_at = power_at(power_parts(r.cases, r.discordance, r.significance), mde) if math.isfinite(mde) else math.nan
    mde_exact = mde_at_power_exact(r.cases, r.discordance, r.significance, pw)
    n_target = n_stable = n_power = n_power_exact = n_sqrt = None
    t = None
    if target_diff is not None:
        t = check_target(target_diff, r.discordance)
        exact_cases = target_cases(t, r.discordance, r.significance)
        n_target, n_stable = exact_cases.first, exact_cases.stable
        connor = connor_cases(t, r.discordance, r.significance, pw)
        if connor <= 2.0 * SEARCH_CEILING:
            n_power = math.ceil(connor - 1e-9)
            n_power = n_power if n_power <= SEARCH_CEILING else None
        n_power_exact = cases_for_power_exact(t, r.discordance, r.significance, pw)
        n_sqrt = sqrt_law_cases(r.cases, r.min_diff, t)
    spread = discordant_spread(r.cases, r.discordance, r.significance)
    return Plan(
        cases=r.cases,
        discordance=r.discordance,
        alpha=r.significance,
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
        discordant_low=spread[0],
        discordant_high=spread[1],
        smallest_in_range=spread[2],
        smallest_at=spread[3],
    )


@dataclass(frozen=True, slots=True)
class ResolutionCurve:
    """Resolvable difference against the number of cases at a fixed discordance (the square-root law).

    ``min_resolvable_diff`` is exact (a sawtooth: discordant counts are whole numbers), ``sqrt_law_diff`` =
    z sqrt(discordance / cases) and ``mde_at_power`` is Connor's MDE at ``power``.
    """

    discordance: float
    significance: float
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


def resolution_curve(
    discordance: float,
    significance: float = 0.05,
    power: float = 0.8,
    cases_min: int = 50,
    cases_max: int = 20_000,
    points: int = 120,
) -> ResolutionCurve:
    """Resolvable difference against cases on a log grid: exact (sawtooth), square-root law, Connor MDE at power.

    The square-root law: the threshold falls as 1/sqrt(cases), so a four times smaller difference needs
    sixteen times the cases (the chapter, "Why the monotonicity was never evidence"). At most
    :data:`MAX_CURVE_POINTS` points.

    >>> c = resolution_curve(0.06, cases_min=200, cases_max=3200, points=5)
    >>> c.cases, [round(x, 3) for x in c.min_resolvable_diff]
    ((200, 400, 800, 1600, 3200), [0.04, 0.03, 0.02, 0.014, 0.009])
    """
    d = check_discordance(discordance)
    a = check_significance(significance)
    pw = check_power(power)
    lo, hi = check_cases(cases_min), check_cases(cases_max)
    real = isinstance(points, (int, float, np.integer, np.floating)) and not isinstance(points, bool)
    whole = real and math.isfinite(points) and int(points) == points
    if hi <= lo or not whole or not 2 <= points <= MAX_CURVE_POINTS:
        raise DataError(
            f"the curve needs cases_min < cases_max and 2 to {MAX_CURVE_POINTS:,} points; got {lo}, {hi}, {points}"
        )
    grid = np.unique(np.round(np.geomspace(lo, hi, int(points))).astype(np.int64))
    exact = tuple(min_resolvable_diff(int(n), d, a).min_diff for n in grid)
    z = z_two_sided(a)
    sqrt_law = tuple(float(z * math.sqrt(d / n)) for n in grid)
    mde = tuple(mde_at_power(int(n), d, a, pw) for n in grid)
    return ResolutionCurve(d, a, pw, tuple(int(n) for n in grid), exact, sqrt_law, mde)
