"""The Judges page's lead: the corrected verdict (``nkcore.judge.sentences``) and the three numbers behind it."""

from __future__ import annotations

import math
import re

import streamlit as st

from nkcore.judge import JudgeReport
from nkcore.judge.sentences import num
from ui.common.text import md

__all__ = ["draw_verdict", "sentences"]

_SPLIT = re.compile(r"(?<=[.:])\s+(?=[A-Z])")


def sentences(verdict: str) -> list[str]:
    """The verdict cut into its sentences (a sentence ends with a period before a capital letter; numbers such as
    3.66 are never cut)."""
    return [s for s in _SPLIT.split(verdict) if s]


def _bias_value(lo: float, hi: float) -> str:
    """The judge's bias (judge minus human; the range over configs) as a short signed metric value: "-2.1 to -0.77".

    >>> _bias_value(-2.125, -0.771), _bias_value(-0.21, 0.16), _bias_value(0.5, 0.5)
    ('-2.1 to -0.77', '-0.21 to +0.16', '+0.5')
    """
    if f"{lo:+.2g}" == f"{hi:+.2g}":
        return f"{lo:+.2g}"
    return f"{lo:+.2g} to {hi:+.2g}".replace("+-", "-")


def draw_verdict(report: JudgeReport) -> None:
    """The verdict (its first sentence as the headline, the rest below) and three numbers: the corrected best config,
    what the judge alone says, and what the judge is worth in human labels."""
    parts = sentences(report.verdict)
    with st.container(border=True, key="jdg_verdict"):
        st.markdown(f"#### {md(parts[0])}" if parts else "")
        if len(parts) > 1:
            st.markdown(md(" ".join(parts[1:])))
        if report.table.scale == "pairwise":
            st.caption(
                "Scores are pairwise verdicts (which of two responses is better): a mean is the share of cases where "
                "response 1 is better, a tie counting half, for the humans as for the judge."
            )
        c1, c2 = st.columns(2)
        best = max(report.configs, key=lambda c: c.ppi.estimate)
        top_judge = max(report.configs, key=lambda c: c.judge_only.estimate)
        pct = f"{100 * report.confidence:g}%"
        one = len(report.configs) == 1
        c1.metric(
            "Mean, corrected by human labels" if one else "Best config, corrected by human labels",
            num(best.ppi.estimate) if one else md(best.config),
            delta="⚠ less reliable interval (see below)" if best.less_reliable else None,
            delta_color="inverse" if best.less_reliable else "off",
            help=f"{'' if one else md(best.config) + ': '}{num(best.ppi.estimate)} on the human scale, {pct} interval "
            f"{num(best.ppi.ci_low)} to {num(best.ppi.ci_high)}: the judge's scores on every case, corrected by the "
            "human labels (prediction-powered inference).",
        )
        c2.metric(
            "The judge alone says" if one else "The judge alone ranks first",
            num(top_judge.judge_only.estimate) if one else md(top_judge.config),
            help=f"The judge's mean score{'' if one else ' of ' + md(top_judge.config)}: "
            f"{num(top_judge.judge_only.estimate)}, with no human correction. Its bias against the humans is "
            f"{num(top_judge.bias.estimate)}.",
        )
        n = sum(c.n_human for c in report.configs)
        eff = sum(c.effective_human_labels for c in report.configs if math.isfinite(c.effective_human_labels))
        c3, c4 = st.columns(2)
        c3.metric(
            "Your labels count as, with the judge",
            f"{eff:,.0f}",
            delta=f"from {n:,} human labels",
            delta_color="off",
            help="Effective human labels: how many human labels alone would give intervals as narrow as the corrected "
            "ones. It is never below the labels you have: PPI's weight on the judge is tuned so the judge cannot hurt.",
        )
        lo = min(c.bias.estimate for c in report.configs)
        hi = max(c.bias.estimate for c in report.configs)
        differs = len(report.configs) > 1 and report.bias.differs
        c4.metric(
            "Judge's score minus people's",
            _bias_value(lo, hi),
            delta="differs between configs" if differs else None if one else "alike for every config",
            delta_color="inverse" if differs else "off",
            help="How much lower or higher the judge scores than people on the labelled cases (the mean of judge "
            "minus human score, per config; on the human scale). Lower: the judge is "
            "harsher than people; when it differs between configs, the judge favours some, and its ranking can flip.",
        )
