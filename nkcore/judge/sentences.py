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

__all__ = ["bias_words", "judge_verdict", "num", "plan_sentence"]

PAYS_FROM = 0.05
"""Below this saving of human labels the plan says the judge is too weakly correlated with people to save labels."""
RHO = "where ρ is the correlation between judge and human scores"


def num(x: float) -> str:
    """A number on the human scale, three significant digits; signed differences keep their sign.

    >>> num(3.71849), num(-0.0123), num(float("nan"))
    ('3.72', '-0.0123', 'n/a')
    """
    if not math.isfinite(x):
        return "n/a"
    return f"{x:.3g}"


def bias_words(bias: float) -> str:
    """The judge's bias (judge minus human) in words.

    >>> bias_words(-0.4), bias_words(0.125), bias_words(0.0)
    ('0.4 points lower than people', '0.125 points higher than people', 'the same as people on average')
    """
    if not math.isfinite(bias):
        return "n/a"
    if num(abs(bias)) == "0":
        return "the same as people on average"
    return f"{num(abs(bias))} points {'lower' if bias < 0 else 'higher'} than people"


def _ci(lo: float, hi: float, confidence: float) -> str:
    return f"{100 * confidence:g}% CI {num(lo)} to {num(hi)}"


def _one(c: ConfigEstimate, judge: str, confidence: float) -> str:
    return (
        f"corrected by {c.n_human} human labels, the mean on the human scale is {num(c.ppi.estimate)} "
        f"({_ci(c.ppi.ci_low, c.ppi.ci_high, confidence)}); the judge {judge!r} alone says {num(c.judge_only.estimate)} "
        f"(it scores {_scores(c.bias.estimate)}), and the labels alone say {num(c.human_only.estimate)} "
        f"({_ci(c.human_only.ci_low, c.human_only.ci_high, confidence)})"
    )


def _scores(bias: float) -> str:
    w = bias_words(bias)
    return "like people on average" if w.startswith("the same") else w


def _flips(k: int) -> str:
    """How many pairs of configs a judge-only ranking orders the other way round."""
    return f"ranking by the judge alone would swap {k} pair{'s' if k != 1 else ''} of configs"


def _span(lo: float, hi: float) -> str:
    """The range of the configs' biases in words ("between 0.21 points lower and 0.16 points higher than people")."""
    if lo < 0 < hi:
        return f"between {num(-lo)} points lower and {num(hi)} points higher than people, depending on the config"
    side = "lower" if hi <= 0 else "higher"
    a, b = sorted((abs(lo), abs(hi)))
    return f"{num(a)} to {num(b)} points {side} than people, depending on the config"


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
    """The plan in words: labels for the target half-width with and without the judge, the saving, its ceiling
    rho^2 (rho the judge-human correlation), and with prices the cheapest split; when the judge saves under
    :data:`PAYS_FROM` of the labels, plainly that it does not pay."""
    lp = plan.labels
    rho = plan.pilot.rho
    head = (
        f"For a {100 * plan.confidence:g}% interval of ±{num(plan.target_half_width)} on {plan.n_cases} judged "
        f"cases, humans alone need {lp.human_only_labels} labels"
    )
    s = plan.split
    weak = lp.ppi_labels is None or lp.saving < PAYS_FROM
    if lp.ppi_labels is None:
        text = f"{head}; with the judge (ρ = {rho:.2f}, {RHO}) even labelling every case is not enough."
    elif weak:
        text = (
            f"{head}. The judge is too weakly correlated with people (ρ = {rho:.2f}, {RHO}) to save labels: "
            f"buy {lp.human_only_labels} human labels."
        )
    else:
        text = (
            f"{head}; with the judge, {lp.ppi_labels} are enough, {percent(lp.saving, 0)} fewer (ρ = {rho:.2f}, "
            f"{RHO}; the saving is at most ρ² = {percent(lp.max_saving, 0)}, even with unlimited judge calls)."
        )
    if s is not None:
        if s.uses_judge:
            text += (
                f" At these prices the cheapest split is {s.n_human} human labels and {s.judge_calls} judge calls "
                f"(cost {s.cost:.4g} against {s.human_only_cost:.4g} for humans only: {percent(s.saving, 0)} less)."
            )
        elif not weak:
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
        n = sum(c.n_human for c in configs)
        at = f"{num(best.ppi.estimate)} on the human scale ({_ci(best.ppi.ci_low, best.ppi.ci_high, conf)})"
        vs = [p for p in report.pairs if best.config in (p.config_a, p.config_b)]
        ahead = [p for p in vs if p.ppi.ci_low > 0 and p.config_a == best.config]
        if vs and len(ahead) == len(vs):
            lead = (
                f"Corrected by {n} human labels, {best.config!r} is best: {at}, clearly ahead of every other config "
                f"(each difference's {100 * conf:g}% CI above 0)."
            )
        elif vs:
            close = [p.config_b if p.config_a == best.config else p.config_a for p in vs if p not in ahead]
            names = ", ".join(repr(x) for x in close[:2]) + (f" and {len(close) - 2} more" if len(close) > 2 else "")
            lead = (
                f"Corrected by {n} human labels, no config is clearly best: {best.config!r} is highest, {at}, but "
                f"{names} could be as good."
            )
        else:
            lead = f"Corrected by {n} human labels, {best.config!r} has the highest mean, {at}."
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
                f"The judge is not equally fair to every config: it scores {md.config_a!r} "
                f"{_scores(bias[md.config_a])} and {md.config_b!r} {_scores(bias[md.config_b])} (Holm "
                f"{format_p(md.p_holm)}), so it favours {(md.config_a if md.difference > 0 else md.config_b)!r} and "
                "judge-only comparisons of these configs can mislead"
                + (f"; here {_flips(len(report.flips))}." if report.flips else ".")
            )
        else:
            lo = min(c.bias.estimate for c in configs)
            hi = max(c.bias.estimate for c in configs)
            span = f"{_scores(lo)} for every config" if num(lo) == num(hi) else _span(lo, hi)
            parts.append(
                f"The judge scores {span}; these differences between configs could be chance (Holm test at "
                f"{100 * report.significance:g}%)" + (f"; still, {_flips(len(report.flips))}." if report.flips else ".")
            )
    parts.append(_worth(configs))
    if report.plan is not None:
        parts.append(plan_sentence(report.plan))
    if not report.subset.looks_random:
        parts.append("Caution: the human-labelled cases do not look like a random sample (see the notes).")
    return " ".join(parts)
