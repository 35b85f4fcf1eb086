"""Planning a ranking: how many cases (and repeats) separate the best config from the runner-up, and how many show
a config not worse than another by more than a margin.

Per case the difference of two configs' case means (each over R repeats) has variance
sigma_d^2 = sigma_b^2 + sigma_w^2 / R (between-case and one repeat's within-case variance of the difference;
:mod:`nkcore.resolution.repeats`, Miller 2024, "Adding Error Bars to Evals", sec. 3), so the mean difference over N
cases has standard error se = sigma_d / sqrt(N).

Separating the best from the runner-up (a gap g): ``rank`` calls the best resolvably above the runner-up when the
lower end of their simultaneous interval, d - c se, is above 0, c the critical value of the max statistic over all
M (M - 1) / 2 pairs. For M exchangeable configs (equal variances and correlations) the max over pairs of
|Z_j - Z_k| / sqrt(2) is the studentized range with infinite degrees of freedom over sqrt(2) (Tukey 1953; Hochberg
& Tamhane 1987, "Multiple Comparison Procedures", ch. 3), so

    c = q_{1 - alpha}(M, inf) / sqrt(2),   power(N) = Phi(g sqrt(N) / sigma_d - c),
    N = ceil(((c + z_power) sigma_d / g)^2)

(the normal approximation; for M = 2, c = z_{1 - alpha / 2}). The same N makes the best the only config that could
be the best when every other config is further below it than the runner-up is, up to the chance of missing one of
them. ``benchmarks/bench_rank.py`` checks the claimed power by running ``rank``'s own procedure on simulated cases.

Non-inferiority at a margin delta when the true difference B - A is t (t = 0: equally good): the one-sided paired t
test of :mod:`nkcore.rank.noninferiority` has power P(T'_{N - 1, lambda} > t_{N - 1, 1 - alpha}), T' the noncentral
t with lambda = (t + delta) sqrt(N) / sigma_d (Chow, Shao & Wang 2008, "Sample Size Calculations in Clinical
Research", 2nd ed., sec. 3.2.2); N is the smallest number of cases reaching the target power.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from nkcore.common.checks import check_power, check_significance
from nkcore.errors import DataError
from nkcore.resolution.inputs import SEARCH_CEILING

__all__ = [
    "NonInferiorityPlan",
    "SeparationPlan",
    "diff_sd",
    "non_inferiority_cases",
    "non_inferiority_power",
    "separation_cases",
    "separation_critical",
    "separation_power",
]


@dataclass(frozen=True, slots=True)
class SeparationPlan:
    """Cases needed so that ``rank`` resolves the best above the runner-up ``gap`` below it (a proportion) with
    probability ``power`` (the claimed power at ``cases``, at least ``target_power``), among ``n_configs`` configs,
    with ``repeats`` per case; ``sd_diff`` sigma_d, ``critical`` c."""

    cases: int
    repeats: int
    gap: float
    n_configs: int
    sd_diff: float
    critical: float
    power: float
    target_power: float
    significance: float

    @property
    def calls(self) -> int:
        """Calls per config: cases x repeats."""
        return self.cases * self.repeats


@dataclass(frozen=True, slots=True)
class NonInferiorityPlan:
    """Cases needed to show B not worse than A by more than ``margin`` when B - A is truly ``true_diff``, with
    ``repeats`` per case, at ``significance``; ``power`` the claimed power at ``cases`` (at least the target)."""

    cases: int
    repeats: int
    margin: float
    true_diff: float
    sd_diff: float
    power: float
    target_power: float
    significance: float

    @property
    def calls(self) -> int:
        """Calls per config: cases x repeats."""
        return self.cases * self.repeats


def _positive(x: float, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x <= 0:
        raise DataError(f"{what} must be a positive number; got {x!r}")
    return float(x)


def diff_sd(between_var: float, within_var: float, repeats: int) -> float:
    """sigma_d = sqrt(sigma_b^2 + sigma_w^2 / R): the sd of one case's difference of means over R repeats.

    >>> round(diff_sd(0.1, 0.2, 4), 4)
    0.3873
    """
    for v, name in ((between_var, "the between-case variance"), (within_var, "the within-case variance")):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise DataError(f"{name} must be a number of at least 0; got {v!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise DataError(f"repeats per case must be a whole number of at least 1; got {repeats!r}")
    sd = math.sqrt(between_var + within_var / repeats)
    if sd <= 0:
        raise DataError("the variances are both 0: every case gives the same difference, nothing to plan")
    return sd


def separation_critical(n_configs: int, significance: float = 0.05) -> float:
    """c = q_{1 - alpha}(M, inf) / sqrt(2), the studentized range's quantile over sqrt(2).

    >>> round(separation_critical(2), 4), round(separation_critical(10), 3)
    (1.96, 3.164)
    """
    check_significance(significance)
    if isinstance(n_configs, bool) or not isinstance(n_configs, int) or n_configs < 2:
        raise DataError(f"ranking needs at least two configs; got {n_configs!r}")
    if n_configs == 2:
        return float(stats.norm.ppf(1.0 - significance / 2.0))
    return float(stats.studentized_range.ppf(1.0 - significance, n_configs, np.inf) / math.sqrt(2.0))


def separation_power(cases: int, gap: float, sd_diff: float, n_configs: int, significance: float = 0.05) -> float:
    """Phi(g sqrt(N) / sigma_d - c): the chance the best is resolved above the runner-up ``gap`` below it.

    >>> round(separation_power(400, 0.05, 0.4, 2), 3)
    0.705
    """
    gap = _positive(gap, "the gap to the runner-up")
    sd_diff = _positive(sd_diff, "the sd of a case's difference")
    c = separation_critical(n_configs, significance)
    return float(stats.norm.cdf(gap * math.sqrt(cases) / sd_diff - c))


def separation_cases(
    gap: float,
    between_var: float,
    within_var: float,
    repeats: int = 1,
    n_configs: int = 2,
    significance: float = 0.05,
    power: float = 0.8,
) -> SeparationPlan:
    """The cases N = ceil(((c + z_power) sigma_d / g)^2) (at least 2) to resolve the best above the runner-up.

    >>> p = separation_cases(0.05, 0.16, 0.0, 1, 2, 0.05, 0.8); p.cases, round(p.power, 3)
    (503, 0.801)
    """
    check_power(power)
    sd = diff_sd(between_var, within_var, repeats)
    gap = _positive(gap, "the gap to the runner-up")
    c = separation_critical(n_configs, significance)
    n = max(2, math.ceil(((c + float(stats.norm.ppf(power))) * sd / gap) ** 2 - 1e-9))
    if n > SEARCH_CEILING:
        raise DataError(
            f"separating a gap of {100 * gap:g} points needs more than {SEARCH_CEILING:,} cases: plan for a larger gap"
        )
    return SeparationPlan(
        n, repeats, gap, n_configs, sd, c, separation_power(n, gap, sd, n_configs, significance), power, significance
    )


def non_inferiority_power(
    cases: int, true_diff: float, margin: float, sd_diff: float, significance: float = 0.05
) -> float:
    """P(T'_{N-1, lambda} > t_{N-1, 1-alpha}), lambda = (t + delta) sqrt(N) / sigma_d (noncentral t).

    >>> round(non_inferiority_power(100, 0.0, 0.05, 0.3, 0.05), 3)
    0.504
    """
    check_significance(significance)
    sd_diff = _positive(sd_diff, "the sd of a case's difference")
    if cases < 2:
        raise DataError("a non-inferiority test needs at least two cases")
    df = cases - 1
    ncp = (true_diff + margin) * math.sqrt(cases) / sd_diff
    return float(stats.nct.sf(stats.t.ppf(1.0 - significance, df), df, ncp))


def non_inferiority_cases(
    margin: float,
    between_var: float,
    within_var: float,
    repeats: int = 1,
    true_diff: float = 0.0,
    significance: float = 0.05,
    power: float = 0.8,
) -> NonInferiorityPlan:
    """The smallest N with :func:`non_inferiority_power` >= ``power`` (from the normal approximation upward).

    >>> p = non_inferiority_cases(0.05, 0.09, 0.0, 1, 0.0, 0.05, 0.8); p.cases, round(p.power, 3)
    (224, 0.8)
    """
    check_power(power)
    check_significance(significance)
    margin = _positive(margin, "the margin")
    sd = diff_sd(between_var, within_var, repeats)
    if not math.isfinite(true_diff) or true_diff + margin <= 0:
        raise DataError(
            "the true difference must be above minus the margin: a config truly worse by the margin or more is "
            "never shown within it"
        )
    z = float(stats.norm.ppf(1.0 - significance) + stats.norm.ppf(power))
    n = max(2, math.floor((z * sd / (true_diff + margin)) ** 2))
    if n > SEARCH_CEILING:
        raise DataError(
            f"showing a margin of {100 * margin:g} points needs more than {SEARCH_CEILING:,} cases: widen the margin"
        )
    while n > 2 and non_inferiority_power(n - 1, true_diff, margin, sd, significance) >= power:
        n -= 1
    while non_inferiority_power(n, true_diff, margin, sd, significance) < power:
        n += 1
    return NonInferiorityPlan(
        n,
        repeats,
        margin,
        true_diff,
        sd,
        non_inferiority_power(n, true_diff, margin, sd, significance),
        power,
        significance,
    )
