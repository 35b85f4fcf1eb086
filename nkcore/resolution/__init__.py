"""What a paired evaluation can resolve: the smallest resolvable difference, MDE at power, cases needed, label noise.

Fix what the evaluation can resolve before looking at any of the numbers. With ``cases`` evaluation cases and a
discordance rate ``discordance`` (the share of cases two configs disagree on), about m = cases x discordance
discordant cases decide the comparison; under "no difference" each is a fair coin flip. Source: the chapter
"The accuracy curve flattens sooner than the sample count suggests" (``shared/seeds/002``), section "Why the
monotonicity was never evidence": 200 cases at 6% discordance give about 12 discordant cases, ten must fall one
way for p < 0.05, a net of 8 cases = 4 points; resolving 1 point takes roughly 3,200 cases; a 3% label error
caps a perfect system at 97%.

Differences are fractions of cases (0.04 = 4 points), as everywhere in ``nkcore``.

Modules (one idea each):
- ``inputs``      checks of cases, discordance and a target; the cases limit (MAX_CASES) and the search ceiling
- ``critical``    the exact critical count, the smallest resolvable difference, Bernstein's window
- ``power``       Connor's (1987) cases and MDE, the exact power and its inversions
- ``cases``       cases for a target difference: first, stable (exact) and the square-root law
- ``plan``        the Planner's numbers for one setting (Plan) and the resolution curve
- ``label_error`` the label-error floor and its estimate from a double-labelled sample
- ``repeats``     more cases or more repeats: N cases x K repeats per case at case level, a budget's best split
- ``sentences``   the plain-language sentences beside the numbers (the Planner's headline, summary rows)
- ``cases_answer`` the one answer to "how many cases do I need", and the other counts beside it
- ``label_sentences`` the sentences on gold-label error (floor, target against it, estimate)
- ``wording``     how a difference in points and a discordance rate are written
"""

from __future__ import annotations

from nkcore.resolution.cases import TargetCases, cases_for_target, cases_for_target_stable, sqrt_law_cases, target_cases
from nkcore.resolution.critical import (
    ResolvableDifference,
    bernstein_halfwidth,
    critical_count,
    critical_counts,
    min_resolvable_diff,
)
from nkcore.resolution.inputs import MAX_CASES, SEARCH_CEILING, max_cases
from nkcore.resolution.label_error import (
    LabelErrorEstimate,
    LabelErrorFloor,
    estimate_label_error,
    label_error_floor,
)
from nkcore.resolution.plan import Plan, ResolutionCurve, plan, resolution_curve
from nkcore.resolution.power import (
    cases_for_power_exact,
    connor_cases,
    exact_power,
    mde_at_power,
    mde_at_power_exact,
)
from nkcore.resolution.repeats import (
    RepeatDesign,
    RepeatPlan,
    RepeatPlanSentences,
    Split,
    repeat_design,
    repeat_design_sentence,
    repeat_plan,
    repeat_plan_sentences,
)
from nkcore.resolution.sentences import (
    PlanSentences,
    label_error_sentence,
    label_estimate_sentence,
    plan_sentences,
    target_vs_floor_sentence,
)

__all__ = [
    "MAX_CASES",
    "SEARCH_CEILING",
    "LabelErrorEstimate",
    "LabelErrorFloor",
    "Plan",
    "PlanSentences",
    "RepeatDesign",
    "RepeatPlan",
    "RepeatPlanSentences",
    "ResolutionCurve",
    "ResolvableDifference",
    "Split",
    "TargetCases",
    "bernstein_halfwidth",
    "cases_for_power_exact",
    "cases_for_target",
    "cases_for_target_stable",
    "connor_cases",
    "critical_count",
    "critical_counts",
    "estimate_label_error",
    "exact_power",
    "label_error_floor",
    "label_error_sentence",
    "label_estimate_sentence",
    "max_cases",
    "mde_at_power",
    "mde_at_power_exact",
    "min_resolvable_diff",
    "plan",
    "plan_sentences",
    "repeat_design",
    "repeat_design_sentence",
    "repeat_plan",
    "repeat_plan_sentences",
    "resolution_curve",
    "sqrt_law_cases",
    "target_cases",
    "target_vs_floor_sentence",
]
