"""More cases or more repeats? What a case-level paired comparison resolves with N cases and K repeats per case.

Evaluations often run each case several times (inspect_ai epochs, promptfoo repeats). The case stays the unit: per
case, each config's mean score over its repeats; per case the difference d_i = mean_B,i - mean_A,i; the test is on
the mean of the d_i. With ``cases`` N and ``repeats`` K per case (per config), the variance of the mean difference is

    Var = (sigma_b^2 + sigma_w^2 / K) / N,

sigma_b^2 (``between_var``) the between-case variance of the true per-case difference and sigma_w^2
(``within_var``) the within-case variance of one repeat's difference. Repeats divide only the within-case part;
cases divide both. Source: Miller (2024), "Adding Error Bars to Evals: A Statistical Approach to Language Model
Evaluations", arXiv:2411.00640, the section on resampling (the variance of a question's mean over K resampled
answers) and the clustered standard errors.

A budget of C calls per config buys splits (N cases, K repeats) with N x K <= C. Per call K = 1 is best: for any K,
Var >= (sigma_b^2 K + sigma_w^2) / C >= (sigma_b^2 + sigma_w^2) / C, the value of C cases with one repeat each. So
repeats pay only once the cases run out (a finite benchmark), and :func:`repeat_plan` says so in words.

The test is the normal (z) test on the mean difference with the variance known; with few cases a t-test on the case
means needs a little more (t_{0.975, 199} = 1.972 against z = 1.960). Differences are fractions (0.04 = 4 points).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from nkcore.common import limits
from nkcore.common.checks import check_power, check_significance
from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.resolution.critical import z_two_sided
from nkcore.resolution.inputs import SEARCH_CEILING
from nkcore.resolution.sentences import resolvable_points

__all__ = [
    "BETWEEN_VAR_HELP",
    "CALLS_HELP",
    "CASES_AVAILABLE_HELP",
    "DEFAULT_MAX_REPEATS",
    "REPEATS_CHART_NOTE",
    "REPEATS_INTRO",
    "WITHIN_VAR_HELP",
    "RepeatDesign",
    "RepeatPlan",
    "RepeatPlanSentences",
    "Split",
    "repeat_design",
    "repeat_design_sentence",
    "repeat_plan",
    "repeat_plan_sentences",
]

DEFAULT_MAX_REPEATS = 10
"""Repeats per case tried by :func:`repeat_plan` when no cap is given and cases are unlimited (or plentiful)."""

BETWEEN_VAR_HELP = (
    "between-case variance: how much the true difference between the two configs varies from case to case (the "
    "variance of a case's mean difference over infinitely many repeats). Only more cases average it away."
)
WITHIN_VAR_HELP = (
    "within-case variance: how much one repeat's difference (B's score minus A's on the same case) varies around "
    "that case's true difference, from sampling. Repeats per case average it away: K repeats divide it by K. For "
    "0/1 scores it is about p_A (1 - p_A) + p_B (1 - p_B) averaged over cases."
)

REPEATS_INTRO = (
    "Evaluations often run each case several times (epochs, repeats). The case stays the unit: each config's mean "
    "score over a case's repeats, compared case by case. A budget of calls per config buys more cases or more "
    "repeats per case; here is what each split resolves."
)
CALLS_HELP = "calls per config: model calls one config gets, cases x repeats per case (the other config gets as many)"
CASES_AVAILABLE_HELP = (
    "cases available: how many distinct cases the benchmark has. Beyond them, more calls can only buy repeats."
)
REPEATS_CHART_NOTE = (
    "**Reading the chart.** Each dot is one split of the calls per config: repeats per case across, the smallest "
    "true difference the case-level test resolves (reaches p < alpha half the time) up. While there are cases to "
    "add the line rises from one repeat per case; once the cases run out repeats help, up to the repeats that use "
    "up the calls on the cases there are. Red: the best split."
)

_SMALLEST = 1e-12  # the least total variance planned with (a standard deviation of a millionth of a score)
_TIE = 1e-12  # relative: splits whose resolvable differences agree this closely are ties


def _check_variance(x: float, name: str) -> float:
    real = isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
    if not real or not math.isfinite(x) or not 0.0 <= x <= 1.0:
        raise DataError(
            f"the {name} variance must be a number from 0 to 1 (the variance of a difference of two scores in "
            f"[0, 1] is at most 1); got {x!r}"
        )
    return float(x)


def _check_variances(between_var: float, within_var: float) -> tuple[float, float]:
    b = _check_variance(between_var, "between-case")
    w = _check_variance(within_var, "within-case")
    if b + w < _SMALLEST:
        raise DataError(
            "the between-case and within-case variances are both 0 (or below 1e-12 together): the two configs' "
            f"scores (all but) never differ, so there is no difference to plan for; got {b:g} and {w:g}"
        )
    return b, w


def _check_whole(x: float, what: str, cap: int) -> int:
    real = isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
    if not real or not math.isfinite(x) or int(x) != x or not 1 <= x <= cap:
        raise DataError(f"the number of {what} must be a whole number from 1 to {cap:,}; got {x!r}")
    return int(x)


@dataclass(frozen=True, slots=True)
class RepeatDesign:
    """One case-level design: ``cases`` N, ``repeats`` K per case, ``calls`` = N x K per config.

    ``variance`` = (between_var + within_var / K) / N, the variance of the mean per-case difference; ``se`` its
    square root; ``min_resolvable_diff`` = z_{1-alpha/2} se, the true difference at which the case-level test
    reaches p < alpha half the time; ``mde_at_power`` = (z_{1-alpha/2} + z_power) se, the one it detects with
    probability ``power``; ``equivalent_cases`` = N (between_var + within_var) / (between_var + within_var / K),
    the cases with one repeat each that would give the same variance.
    """

    cases: int
    repeats: int
    calls: int
    between_var: float
    within_var: float
    alpha: float
    power: float
    variance: float
    se: float
    min_resolvable_diff: float
    mde_at_power: float
    equivalent_cases: float


def _design(cases: int, repeats: int, b: float, w: float, significance: float, power: float) -> RepeatDesign:
    var = (b + w / repeats) / cases
    se = math.sqrt(var)
    za, zp = z_two_sided(significance), float(stats.norm.ppf(power))
    eq = cases * (b + w) / (b + w / repeats)
    return RepeatDesign(
        cases, repeats, cases * repeats, b, w, significance, power, var, se, za * se, (za + zp) * se, eq
    )


def repeat_design(
    cases: int,
    repeats: int,
    between_var: float,
    within_var: float,
    significance: float = 0.05,
    power: float = 0.8,
) -> RepeatDesign:
    """The case-level numbers of one design (N cases, K repeats per case); see :class:`RepeatDesign`.

    Var = (sigma_b^2 + sigma_w^2 / K) / N; smallest resolvable difference z_{1-alpha/2} sqrt(Var); MDE at power
    (z_{1-alpha/2} + z_power) sqrt(Var). Miller (2024), arXiv:2411.00640, section on resampling. A closed form:
    cases up to 1,000,000,000 (the budget's ceiling), not only the exact plans' 10,000,000.

    >>> d = repeat_design(200, 5, 0.0625, 0.1875)
    >>> round(d.variance, 6), round(d.min_resolvable_diff, 4), round(d.mde_at_power, 4), d.equivalent_cases
    (0.0005, 0.0438, 0.0626, 500.0)
    """
    n = _check_whole(cases, "cases", SEARCH_CEILING)
    k = _check_whole(repeats, "repeats per case", limits.get("samples_per_case"))
    b, w = _check_variances(between_var, within_var)
    return _design(n, k, b, w, check_significance(significance), check_power(power))


@dataclass(frozen=True, slots=True)
class Split:
    """One way to spend the calls: ``cases`` x ``repeats`` per case = ``calls`` per config, and what it resolves
    (``min_resolvable_diff``, ``mde_at_power``: see :class:`RepeatDesign`)."""

    cases: int
    repeats: int
    calls: int
    min_resolvable_diff: float
    mde_at_power: float


def _split(d: RepeatDesign) -> Split:
    return Split(d.cases, d.repeats, d.calls, d.min_resolvable_diff, d.mde_at_power)


@dataclass(frozen=True, slots=True)
class RepeatPlan:
    """Every split of ``calls`` per config into cases x repeats per case, and the best one.

    ``splits``: for K = 1..``max_repeats``, N = min(floor(calls / K), ``cases_available``) (None: unlimited);
    ``best``: the smallest ``min_resolvable_diff`` (ties: fewer calls, then fewer repeats); ``unlimited_cases``:
    all the calls on as many cases with one repeat each (what the calls would resolve if the cases did not run out;
    equal to ``best`` when ``cases_available`` is at least ``calls``).
    """

    calls: int
    cases_available: int | None
    max_repeats: int
    between_var: float
    within_var: float
    alpha: float
    power: float
    splits: tuple[Split, ...]
    best: Split
    unlimited_cases: Split

    def to_frame(self) -> pd.DataFrame:
        """One row per split: cases, repeats, calls, min_resolvable_diff, mde_at_power, best (True on the best)."""
        frame = pd.DataFrame([_split_dict(s) for s in self.splits])
        return frame.assign(best=[s == self.best for s in self.splits])


def _split_dict(s: Split) -> dict[str, float]:
    return dataclasses.asdict(s)


def repeat_plan(
    calls: int,
    between_var: float,
    within_var: float,
    significance: float = 0.05,
    power: float = 0.8,
    cases_available: int | None = None,
    max_repeats: int | None = None,
) -> RepeatPlan:
    """Every split of a budget of ``calls`` per config into cases x repeats per case, and the best.

    For K = 1..K_max: N = min(floor(C / K), cases available), Var = (sigma_b^2 + sigma_w^2 / K) / N (Miller 2024,
    arXiv:2411.00640, section on resampling); the best split has the smallest z_{1-alpha/2} sqrt(Var) (ties: fewer
    calls, then fewer repeats). K_max is ``max_repeats``, else 10, or twice the repeats that use up the calls on
    the cases available when that is more; never more than the calls (N >= 1) nor the samples-per-case limit.

    >>> p = repeat_plan(1000, 0.0625, 0.1875, cases_available=200)
    >>> p.best.cases, p.best.repeats, round(p.best.min_resolvable_diff, 4)
    (200, 5, 0.0438)
    >>> p.unlimited_cases.cases, round(p.unlimited_cases.min_resolvable_diff, 4)
    (1000, 0.031)
    """
    c = _check_whole(calls, "calls per config", SEARCH_CEILING)
    b, w = _check_variances(between_var, within_var)
    a, pw = check_significance(significance), check_power(power)
    cap = limits.get("samples_per_case")
    avail = None if cases_available is None else _check_whole(cases_available, "cases available", SEARCH_CEILING)
    if max_repeats is None:
        k_max = DEFAULT_MAX_REPEATS if avail is None else max(DEFAULT_MAX_REPEATS, 2 * math.ceil(c / avail))
        k_max = min(k_max, c, cap)
    else:
        k_max = min(_check_whole(max_repeats, "repeats per case", cap), c)
    splits = tuple(
        _split(_design(min(c // k, avail) if avail is not None else c // k, k, b, w, a, pw))
        for k in range(1, k_max + 1)
    )
    best = splits[0]
    for s in splits[1:]:
        gap = s.min_resolvable_diff - best.min_resolvable_diff
        tol = _TIE * best.min_resolvable_diff
        if gap < -tol or (abs(gap) <= tol and (s.calls, s.repeats) < (best.calls, best.repeats)):
            best = s
    return RepeatPlan(c, avail, k_max, b, w, a, pw, splits, best, _split(_design(c, 1, b, w, a, pw)))


# ------------------------------------------------------------------------------------------------ the sentences


def _pts(x: float) -> str:
    """Points as the Planner writes them (:func:`~nkcore.resolution.sentences.resolvable_points`: one decimal, two
    significant digits below 0.05 points), 'more than 100 points (nothing)' above 1."""
    return resolvable_points(x) if x <= 1.0 else "more than 100 points (nothing)"


def _se_points(x: float) -> str:
    return f"{100.0 * x:.2g}" if 0 < x < 0.0005 else f"{100.0 * x:.1f}"


def _v(x: float) -> str:
    return f"{x:.4g}"


def _repeats(k: int) -> str:
    return "one repeat per case" if k == 1 else f"{k:,} repeats per case"


def repeat_design_sentence(d: RepeatDesign) -> str:
    """One design in words: the variance law with its numbers, what it resolves and what it detects at power.

    >>> repeat_design_sentence(repeat_design(200, 5, 0.0625, 0.1875))[:96]
    '200 cases with 5 repeats per case (1,000 calls per config): the mean difference between the conf'
    """
    law = (
        f"(between-case variance {_v(d.between_var)} + within-case variance {_v(d.within_var)} / {d.repeats:,} "
        f"repeats) / {d.cases:,} cases"
    )
    worth = (
        f" The repeats make the {plural(d.cases, 'case')} worth {d.equivalent_cases:,.0f} cases with one repeat each."
        if d.repeats > 1 and d.equivalent_cases != d.cases
        else ""
    )
    z = z_two_sided(d.alpha)
    return (
        f"{plural(d.cases, 'case')} with {_repeats(d.repeats)} ({d.calls:,} calls per config): the mean difference "
        f"between the configs has variance {law} = {d.variance:.3g}, a standard error of {_se_points(d.se)} points."
        f"{worth} A true difference of {_pts(d.min_resolvable_diff)} (z = {z:.2f} standard errors) reaches "
        f"p < {d.alpha:g} half the time; one of {_pts(d.mde_at_power)} is detected {100 * d.power:.0f}% of the time."
    )


@dataclass(frozen=True, slots=True)
class RepeatPlanSentences:
    """A :class:`RepeatPlan` in words: ``headline`` (more cases or more repeats, with the numbers), ``best`` (the
    best split and what it detects at power) and ``law`` (why: the variance law with this plan's variances)."""

    headline: str
    best: str
    law: str


def repeat_plan_sentences(p: RepeatPlan) -> RepeatPlanSentences:
    """The plan in plain words; every number named ("cases", "repeats per case", "calls per config").

    >>> s = repeat_plan_sentences(repeat_plan(1000, 0.0625, 0.1875, cases_available=200))
    >>> s.headline
    'More cases, as long as you have them: 1,000 calls per config on 1,000 cases (one repeat each) would resolve 3.1 points; on the 200 cases you have, 5 repeats per case resolve 4.4 points.'
    """
    u, best = p.unlimited_cases, p.best
    calls = f"{p.calls:,} calls per config"
    on_unlimited = f"{calls} on {plural(u.cases, 'case')} (one repeat each)"
    if p.cases_available is None or p.cases_available >= p.calls:
        have = "" if p.cases_available is None else f" (you have {p.cases_available:,})"
        headline = (
            f"More cases, as long as you have them: {on_unlimited}{have} resolve {_pts(u.min_resolvable_diff)}; "
            "repeats only pay once the cases run out."
        )
    else:
        have = f"on the {plural(p.cases_available, 'case')} you have"
        if best.repeats == 1:
            tail = (
                f"{have}, one repeat each ({best.calls:,} calls) resolves {_pts(best.min_resolvable_diff)}: repeats "
                "would not help, as one repeat's difference does not vary within a case"
                if p.within_var == 0.0
                else f"{have}, one repeat each is still best and resolves {_pts(best.min_resolvable_diff)}"
            )
        elif best.cases == p.cases_available:
            tail = f"{have}, {_repeats(best.repeats)} resolve {_pts(best.min_resolvable_diff)}"
        else:
            tail = (
                f"with the {plural(p.cases_available, 'case')} you have, {best.cases:,} of them with "
                f"{_repeats(best.repeats)} resolve {_pts(best.min_resolvable_diff)}"
            )
        if abs(best.min_resolvable_diff - u.min_resolvable_diff) <= _TIE * u.min_resolvable_diff:
            tail += (
                ", as much: the true difference does not vary between cases (between-case variance 0), so a repeat "
                "is worth a new case"
            )
        headline = (
            f"More cases, as long as you have them: {on_unlimited} would resolve {_pts(u.min_resolvable_diff)}; {tail}."
        )
    left = p.calls - best.calls
    spare = (
        f" It uses {best.calls:,} of the {p.calls:,} calls; one more repeat per case would mean fewer cases, which "
        "costs more than the repeat buys."
        if left > 0 and best.repeats > 1
        else ""
    )
    best_text = (
        f"Best split: {plural(best.cases, 'case')} x {_repeats(best.repeats)} = {best.calls:,} calls per config; a "
        f"true difference of {_pts(best.min_resolvable_diff)} reaches p < {p.alpha:g} half the time and one of "
        f"{_pts(best.mde_at_power)} is detected {100 * p.power:.0f}% of the time.{spare}"
    )
    law = (
        "The variance of the mean difference is (between-case variance + within-case variance / repeats per case) "
        f"/ cases, here ({_v(p.between_var)} + {_v(p.within_var)} / K) / N: repeats divide only the within-case "
        "part, new cases divide both. So per call a new case is worth at least as much as a repeat of an old one, and "
        "repeats pay only when there are no more cases to add (Miller 2024, arXiv:2411.00640)."
    )
    return RepeatPlanSentences(headline, best_text, law)
