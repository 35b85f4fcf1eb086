"""The plain-language sentences that stand beside the Planner's numbers (page and CLI); every symbol is named.

Points are formatted by :func:`nkcore.common.formatting.points`, counts by :func:`nkcore.common.formatting.count`.
The label-error sentences are in :mod:`nkcore.resolution.label_sentences`, the one answer to "how many cases" in
:mod:`nkcore.resolution.cases_answer`, the wording of points in :mod:`nkcore.resolution.wording`; their names are
importable from here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from nkcore.common.formatting import count, percent
from nkcore.resolution.cases_answer import CasesAnswer, CasesMethod, cases_answer
from nkcore.resolution.critical import z_two_sided
from nkcore.resolution.inputs import SEARCH_CEILING, max_cases
from nkcore.resolution.label_error import LabelErrorEstimate, LabelErrorFloor
from nkcore.resolution.label_sentences import (
    LABEL_FLOOR_INTRO,
    label_error_sentence,
    label_estimate_sentence,
    target_vs_floor_sentence,
)
from nkcore.resolution.plan import Plan
from nkcore.resolution.wording import discordance_text, resolvable_points, short_points

__all__ = [
    "ALPHA_HELP",
    "CHART_NOTE",
    "DISCORDANCE_HELP",
    "LABEL_FLOOR_INTRO",
    "POWER_HELP",
    "RESOLUTION_CHART_EXPLAINS",
    "CasesAnswer",
    "CasesMethod",
    "PlanSentences",
    "cases_answer",
    "discordance_text",
    "label_error_sentence",
    "label_estimate_sentence",
    "plan_headline",
    "plan_sentences",
    "resolvable_points",
    "summary_rows",
    "target_sentence",
    "target_vs_floor_sentence",
]

DISCORDANCE_HELP = (
    "discordance: the share of cases on which two configs disagree, one right and the other wrong. Only these "
    "cases carry evidence about which config is better. The chapter's adjacent sample counts disagree on about 6%."
)
ALPHA_HELP = (
    "alpha, the significance level: a difference counts when McNemar's exact p < alpha. A smaller alpha gives "
    "fewer false wins and needs more cases."
)
POWER_HELP = (
    "power: the probability that a true difference of the target size reaches p < alpha in one evaluation, "
    "P(p < alpha | true difference = target). 80% is the usual choice; 90% needs about a third more cases."
)
CHART_NOTE = (
    "**Reading the chart.** Blue: the net of discordant cases that must fall one way for p < alpha, divided by the "
    "cases; it steps because discordant cases come in whole numbers. Grey dashed: the square-root law, z x "
    "sqrt(discordance / cases) with z the two-sided critical value of alpha (1.96 for 0.05). Red: the true "
    "difference detected with the chosen power (Connor 1987). Below the blue line every comparison returns 'cannot "
    "tell'. A line starts where the evaluation can resolve (or detect) anything at all."
)
#: The marks of the resolution curve, one line (under the title of its PNG and SVG).
RESOLUTION_CHART_EXPLAINS = (
    "Blue: smallest resolvable difference (exact); grey dashed: square-root law; red: detected with the chosen power "
    "(Connor)."
)


@dataclass(frozen=True, slots=True)
class PlanSentences:
    """Plain-language sentences that stand beside a :class:`Plan`'s numbers (``target`` is None without a target)."""

    min_resolvable: str
    mde: str
    sqrt_law: str
    target: str | None


def plan_sentences(p: Plan) -> PlanSentences:
    """The plain-language sentence for each of a :class:`Plan`'s numbers; every symbol is named where it appears.

    >>> from nkcore.resolution.plan import plan
    >>> s = plan_sentences(plan(200, 0.06, target_diff=0.01))
    >>> s.min_resolvable[:72]
    '200 cases at 6% discordance give about 12 discordant cases; 10 of them m'
    >>> s.target[:86]
    'Resolving 1.0 points (an observed difference that large reaching p < 0.05) first becom'
    """
    pct = discordance_text(p.discordance)
    expected = p.expected_discordant
    give = "gives" if p.cases == 1 else "give"
    if abs(expected - p.discordant) < 1e-9 * max(1.0, expected):
        head = f"{count(p.cases, 'case')} at {pct} discordance {give} about {count(p.discordant, 'discordant case')}"
    else:
        head = (
            f"{count(p.cases, 'case')} at {pct} discordance {give} {expected:,.2f} discordant cases on average, "
            f"about {p.discordant:,} (rounded to the nearest whole number, halves up)"
        )
    if p.critical_count is None or p.net_cases is None:
        first = (
            f"{head}; even if every one of them fell the same way p would not drop below {p.alpha:g}, so this "
            "evaluation cannot resolve any difference."
        )
    else:
        first = (
            f"{head}; {p.critical_count:,} of them must fall the same way to reach p < {p.alpha:g}, a net of "
            f"{count(p.net_cases, 'case')} = {short_points(p.min_resolvable_diff)} points. At the expected "
            f'{count(p.discordant, "discordant case")} any smaller difference returns "cannot tell".'
        )
        if p.smallest_at and p.smallest_in_range < p.min_resolvable_diff - 1e-12:
            at = ", ".join(f"{m:,}" for m in p.smallest_at[:3])
            first += (
                f" The discordant count itself varies from run to run ({p.discordant_low:,} to "
                f"{p.discordant_high:,} in 95% of runs), and the threshold zigzags with it: at {at} discordant "
                f"cases {short_points(p.smallest_in_range)} points are resolvable."
            )
    power = f"{100 * p.power:.0f}%"
    if math.isfinite(p.mde_at_power):
        exact = (
            f"the exact minimum is {short_points(p.mde_at_power_exact)} points"
            if math.isfinite(p.mde_at_power_exact)
            else f"by the exact test no difference reaches {power}"
        )
        mde = (
            f"To detect a true difference {power} of the time it must be at least {short_points(p.mde_at_power)} points "
            f"(Connor's formula; the exact power at {short_points(p.mde_at_power)} points is "
            f"{100 * p.exact_power_at_mde:.0f}%, and {exact})."
        )
    else:
        mde = f"No difference can be detected {power} of the time with {count(p.cases, 'case')} at {pct} discordance."
    z = z_two_sided(p.alpha)
    value = (
        f"{short_points(p.sqrt_law_diff)} points" if p.sqrt_law_diff <= 1.0 else "more than 100 points, i.e. nothing"
    )
    sqrt_law = (
        f"Ignoring that discordant cases come in whole numbers, the threshold is z x sqrt(discordance / cases) = "
        f"{z:.2f} x sqrt({p.discordance:.4g} / {p.cases:,}) = {value} (z = {z:.2f}, the two-sided critical value for "
        f"alpha = {p.alpha:g}). It shrinks as the square root of the cases: half the difference needs four times "
        "the cases."
    )
    return PlanSentences(first, mde, sqrt_law, target_sentence(p))


def target_sentence(p: Plan) -> str | None:
    """The sentence on the cases a :class:`Plan`'s target difference needs; None without a target.

    >>> from nkcore.resolution.plan import plan
    >>> target_sentence(plan(200, 0.06, target_diff=1e-300))[:119]
    'Resolving 1e-298 points (an observed difference that large reaching p < 0.05) would take more than 1,000,000,000 cases.'
    """
    if p.target_diff is None:
        return None
    ceiling = f"{SEARCH_CEILING:,}"
    tp = short_points(p.target_diff)
    head = f"Resolving {tp} points (an observed difference that large reaching p < {p.alpha:g})"
    if p.cases_for_target is None:
        text = f"{head} would take more than {ceiling} cases."
    elif p.cases_for_target_stable == p.cases_for_target:
        text = f"{head} becomes possible from {p.cases_for_target:,} cases on (exact critical count)."
    elif p.cases_for_target_stable is None:
        text = (
            f"{head} first becomes possible at {p.cases_for_target:,} cases by the exact critical count (whole numbers "
            "of discordant cases make the threshold zigzag; where it stays resolved was not computed at this alpha)."
        )
    else:
        text = (
            f"{head} first becomes possible at {p.cases_for_target:,} cases by the exact critical count, and for "
            f"every larger evaluation from {p.cases_for_target_stable:,} cases on (in between, whole numbers of "
            "discordant cases make the threshold zigzag)."
        )
    if p.cases_for_target_sqrt_law is not None:
        text += (
            f" The chapter's rule of thumb, today's {short_points(p.min_resolvable_diff)} points scaled by the square-root "
            f"law, gives {p.cases:,} x ({short_points(p.min_resolvable_diff)} / {tp})^2 = {p.cases_for_target_sqrt_law:,}."
        )
    elif math.isfinite(p.min_resolvable_diff):
        text += (
            f" The chapter's rule of thumb, today's {short_points(p.min_resolvable_diff)} points scaled by the square-root "
            f"law, gives more than {ceiling}."
        )
    power = f"{100 * p.power:.0f}%"
    if p.cases_for_target_at_power is not None:
        exact = (
            f"{p.cases_for_target_at_power_exact:,} by the exact power"
            if p.cases_for_target_at_power_exact is not None
            else f"the exact check is skipped above {max_cases():,} cases"
        )
        text += (
            f" Detecting a true difference of {tp} points {power} of the time takes about "
            f"{p.cases_for_target_at_power:,} cases by Connor's formula, {exact}."
        )
    else:
        text += (
            f" Detecting a true difference of {tp} points {power} of the time takes more than {ceiling} cases by "
            "Connor's formula."
        )
    return text


def plan_headline(p: Plan, answer: CasesAnswer | None = None, floor: LabelErrorFloor | None = None) -> str:
    """The Planner's answer in one sentence: the cases the target needs (``answer.headline``, from
    :func:`cases_answer`) or, without a target, the smallest difference the evaluation can resolve: the exact
    critical count k of McNemar's exact test (:func:`nkcore.resolution.critical_count`), net 2k - m of the m
    expected discordant cases, divided by the cases. With a label-error ``floor``, a target (or resolvable
    difference) below it says so in the same sentence: more cases will not settle it (the chapter's label-error
    floor, :func:`nkcore.resolution.label_error_floor`).

    >>> from nkcore.resolution.plan import plan
    >>> plan_headline(plan(200, 0.06))
    '200 cases at 6% discordance can resolve a difference of 4.0 points or more at p < 0.05; anything smaller returns "cannot tell".'
    >>> from nkcore.resolution.label_error import label_error_floor
    >>> print(plan_headline(plan(200, 0.06, target_diff=0.01), cases_answer(plan(200, 0.06, target_diff=0.01)), label_error_floor(0.03)))
    To detect a true difference of 1.0 points 80% of the time (p < 0.05), you need 4,876 cases at 6% discordance, by the exact power of McNemar's exact test, but 1.0 points is below the label-error floor of 3.0 points (3% of gold labels wrong): more cases will not settle it; fix the labels first.
    """
    if answer is not None:
        text = answer.headline
        diff = p.target_diff
    else:
        disc = discordance_text(p.discordance)
        if p.critical_count is None:
            return f"{count(p.cases, 'case')} at {disc} discordance cannot resolve any difference at p < {p.alpha:g}."
        text = (
            f"{count(p.cases, 'case')} at {disc} discordance can resolve a difference of "
            f"{resolvable_points(p.min_resolvable_diff)} or more at p < {p.alpha:g}; anything smaller returns "
            '"cannot tell".'
        )
        diff = p.min_resolvable_diff
    if floor is None or diff is None or not diff < floor.noise_floor_diff:
        return text
    return (
        f"{text.rstrip('.')}, but {short_points(diff)} points is below the label-error floor of "
        f"{short_points(floor.noise_floor_diff)} points ({percent(floor.error_rate, 0)} of gold labels wrong): more cases "
        "will not settle it; fix the labels first."
    )


def summary_rows(
    p: Plan,
    answer: CasesAnswer | None,
    floor: LabelErrorFloor,
    est: LabelErrorEstimate,
) -> list[tuple[str, str, str]]:
    """The Planner's one-page summary rows (label, value, sentence): the plan's three differences, the cases the
    target needs, the label-error floor and the estimated label error rate."""
    s = plan_sentences(p)
    rows = [
        ("cases", f"{p.cases:,}", f"at {discordance_text(p.discordance)} discordance, alpha {p.alpha:g}"),
        ("smallest resolvable difference", resolvable_points(p.min_resolvable_diff), s.min_resolvable),
        (f"detectable at {100 * p.power:.0f}% power", resolvable_points(p.mde_at_power), s.mde),
        ("square-root law", resolvable_points(p.sqrt_law_diff), s.sqrt_law),
    ]
    if answer is not None and answer.cases is not None and p.target_diff is not None:
        rows.append((f"cases to detect {short_points(p.target_diff)} points", f"{answer.cases:,}", answer.headline))
    rows.append(("label-error floor", percent(floor.best_measurable_accuracy), label_error_sentence(floor)))
    rows.append(("estimated label error", percent(est.error_rate), label_estimate_sentence(est)))
    return rows
