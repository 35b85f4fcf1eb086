"""The Planner's answer, first on the page: the headline (with the label-error floor), the resolution curve, the
three numbers behind it, and how each is computed."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from nkcore import resolution
from nkcore.resolution import sentences as resolution_text
from ui import charts
from ui.common import exports
from ui.common.text import md
from ui.planner.compute import PlanNumbers
from ui.planner.controls import Choices

__all__ = ["draw_answer"]


def _cases(n: int | None) -> str:
    return f"{n:,}" if n is not None else "-"


def draw_answer(answer_box: DeltaGenerator, c: Choices, n: PlanNumbers) -> None:
    """Fill ``answer_box`` (placed above the controls) with the answer, its chart and its numbers."""
    cases, discordance, power, e_pct = c.cases, c.discordance, c.power, c.e_pct
    p, s, answer, wide, chart_spec, chart = n.plan, n.sentences, n.answer, n.wide, n.chart_spec, n.chart
    pwr = f"{100 * power:.0f}%"

    # ------------------------------------------------------------------ the answer, first on the page
    with answer_box:
        headline_floor = resolution.label_error_floor(e_pct / 100.0)
        st.markdown(f"**{md(resolution_text.plan_headline(p, answer, headline_floor))}**")
        charts.draw(chart_spec)
        m1, m2, m3 = st.columns(3)
        m1.metric(
            "cases needed",
            _cases(answer.cases) if answer is not None else "-",
            help=f"cases to detect a true difference of the target size {pwr} of the time, by the exact power of "
            "McNemar's exact test; the other counts are under 'How this is computed'",
        )
        m2.metric(
            "smallest resolvable",
            resolution_text.resolvable_points(p.min_resolvable_diff),
            help=f"with {cases:,} cases: the smallest observed difference that can reach p < alpha at all (exact "
            "critical count of discordant cases, divided by the cases)",
        )
        m3.metric(
            f"found {pwr} of the time",
            resolution_text.resolvable_points(p.mde_at_power),
            help=f"with {cases:,} cases: the minimum detectable difference (MDE), the true difference detected with "
            f"probability {pwr}, by Connor's (1987) formula; the exact figure is under 'How this is computed'",
        )
        with st.expander("How this is computed, and the other counts", icon=":material/functions:"):
            if answer is not None:
                more = f"more than {resolution.SEARCH_CEILING:,}"
                st.markdown(
                    "\n".join(
                        f"- **{md(m.name)}: {md(_cases(m.cases) if m.cases is not None else more)} cases.** "
                        f"{md(m.use_when[:1].upper() + m.use_when[1:])}."
                        for m in answer.methods
                    )
                )
                if s.target is not None:
                    st.markdown(md(s.target))
            st.metric(
                "discordant cases expected",
                f"{p.discordant:,}",
                help=f"{cases:,} cases x {resolution_text.discordance_text(discordance)} = "
                f"{p.expected_discordant:,.2f}, rounded (halves up)",
            )
            st.markdown(f"**Smallest resolvable difference.** {md(s.min_resolvable)}")
            st.markdown(f"**Found {pwr} of the time.** {md(s.mde)}")
            st.markdown(f"**The square-root law.** {md(s.sqrt_law)}")
            st.markdown(resolution_text.CHART_NOTE)
            exports.download_table_and_chart(
                wide, "resolution_curve", chart, "resolution_curve", explains=resolution_text.RESOLUTION_CHART_EXPLAINS
            )
