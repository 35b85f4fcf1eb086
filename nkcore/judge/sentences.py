"""The judge report in words: the corrected verdict first, then the judge's bias, its worth in human labels, the plan.

Numbers are on the human scale, three significant digits (:func:`num`); "the judge" is the judge column's name.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from nkcore.common.formatting import format_p, percent

if TYPE_CHECKING:
    from nkcore.judge.estimate import ConfigEstimate
    from nkcore.judge.report import JudgePlan, JudgeReport

__all__ = ["judge_verdict", "num", "plan_sentence"]


def num(x: float) -> str:
    """A number on the human scale, three significant digits; signed differences keep their sign.

    >>> num(3.71849), num(-0.0123), num(float("nan"))
    ('3.72', '-0.0123', 'n/a')
    """
    if not math.isfinite(x):
        return "n/a"
    return f"{x:.3g}"


def _ci(lo: float, hi: float, confidence: float) -> str:
    return f"{100 * confidence:g}% CI {num(lo)} to {num(hi)}"


def _one(c: ConfigEstimate, judge: str, confidence: float) -> str:
    return (
        f"corrected by {c.n_human} human labels, the mean on the human scale is {num(c.ppi.estimate)} "
        f"({_ci(c.ppi.ci_low, c.ppi.ci_high, confidence)}); the judge {judge!r} alone says {num(c.judge_only.estimate)} "
        f"(bias {num(c.bias.estimate)} against the humans), and the labels alone say {num(c.human_only.estimate)} "
        f"({_ci(c.human_only.ci_low, c.human_only.ci_high, confidence)})"
    )


def _worth(configs: tuple[ConfigEstimate, ...]) -> str:
    n = sum(c.n_human for c in configs)
    eff = sum(c.effective_human_labels for c in configs if math.isfinite(c.effective_human_labels))
    if n == 0 or eff <= n * 1.005:
        return f"The judge adds nothing measurable here: its corrected intervals are as wide as {n} human labels alone."
    return (
        f"The judge makes the {n} human labels worth {eff:.0f} ({percent(eff / n - 1, 0)} more): "
        "it adds precision to the labels, it does not replace them."
    )


def plan_sentence(plan: JudgePlan) -> str:
    """The plan in words: labels for the target half-width with and without the judge, the saving, its ceiling,
    and with prices the cheapest split."""
    lp = plan.labels
    head = (
        f"For a {100 * plan.confidence:g}% interval of +-{num(plan.target_half_width)} on {plan.n_cases} judged "
        f"cases, humans alone need {lp.human_only_labels} labels"
    )
    if lp.ppi_labels is None:
        text = f"{head}; with the judge (rho = {plan.pilot.rho:.2f}) even labelling every case is not enough."
    else:
        text = (
            f"{head}; with the judge (rho = {plan.pilot.rho:.2f}) {lp.ppi_labels}: a saving of "
            f"{percent(lp.saving, 0)} (at most rho^2 = {percent(lp.max_saving, 0)} with unlimited judge calls)."
        )
    s = plan.split
    if s is not None:
        if s.uses_judge:
            text += (
                f" At these prices the cheapest split is {s.n_human} human labels and {s.judge_calls} judge calls "
                f"(cost {s.cost:.4g} against {s.human_only_cost:.4g} for humans only: {percent(s.saving, 0)} less)."
            )
        else:
            text += f" At these prices the judge does not pay: buy {s.n_human} human labels and no judge calls."
    return text


def judge_verdict(report: JudgeReport) -> str:
    """The verdict: the corrected answer first (one config: its mean; several: the best and whether it is resolvably
    ahead), then the bias (and whether it differs between configs, the case where judge-only rankings flip), the
    judge's worth in human labels and the plan."""
    conf = report.confidence
    configs = report.configs
    parts: list[str] = []
    if len(configs) == 1:
        c = configs[0]
        parts.append(_one(c, report.judge, conf)[0].upper() + _one(c, report.judge, conf)[1:] + ".")
    else:
        best = max(configs, key=lambda c: c.ppi.estimate)
        lead = (
            f"Corrected by human labels, {best.config!r} has the highest mean on the human scale, "
            f"{num(best.ppi.estimate)} ({_ci(best.ppi.ci_low, best.ppi.ci_high, conf)})"
        )
        vs = [p for p in report.pairs if best.config in (p.config_a, p.config_b)]
        ahead = [p for p in vs if p.ppi.ci_low > 0 and p.config_a == best.config]
        if vs and len(ahead) == len(vs):
            lead += f", resolvably ahead of every other config (each paired difference's {100 * conf:g}% CI above 0)."
        elif vs:
            close = [p.config_b if p.config_a == best.config else p.config_a for p in vs if p not in ahead]
            lead += f"; not resolvably ahead of {', '.join(repr(x) for x in close[:4])}" + (
                f" and {len(close) - 4} more." if len(close) > 4 else "."
            )
        else:
            lead += "."
        parts.append(lead)
        top_judge = max(configs, key=lambda c: c.judge_only.estimate)
        if top_judge.config != best.config:
            parts.append(
                f"The judge {report.judge!r} alone would rank {top_judge.config!r} first ({num(top_judge.judge_only.estimate)})."
            )
    if len(configs) > 1:
        md = report.bias.most_different()
        if report.bias.differs and md is not None:
            bias = {c.config: c.bias.estimate for c in configs}
            parts.append(
                f"The judge's bias differs between configs ({md.config_a!r} {num(bias[md.config_a])}, "
                f"{md.config_b!r} {num(bias[md.config_b])}; Holm {format_p(md.p_holm)}): the judge favours "
                f"{(md.config_a if md.difference > 0 else md.config_b)!r}, so judge-only comparisons of these configs "
                "can mislead" + (f", and here {len(report.flips)} judge-only order(s) flip." if report.flips else ".")
            )
        else:
            lo = min(c.bias.estimate for c in configs)
            hi = max(c.bias.estimate for c in configs)
            parts.append(
                f"The judge's bias against the humans ranges from {num(lo)} to {num(hi)} across configs, with no "
                f"resolvable difference between configs (Holm, significance {report.significance:g})"
                + (f"; still, {len(report.flips)} judge-only order(s) flip." if report.flips else ".")
            )
    parts.append(_worth(configs))
    if report.plan is not None:
        parts.append(plan_sentence(report.plan))
    if not report.subset.looks_random:
        parts.append("Caution: the human-labelled cases do not look like a random sample (see the notes).")
    return " ".join(parts)
