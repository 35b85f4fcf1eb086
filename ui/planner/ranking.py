"""The Planner's "Many configs: separate the best, or show one is not worse": the cases (and repeats) the ranking
needs to tell the best config from the runner-up, and to show a config not worse than another by more than a margin
(:mod:`nkcore.rank.plan`; checked by simulating the ranking itself, docs/rank.md). A fragment: its inputs change
only this section."""

from __future__ import annotations

import streamlit as st

from nkcore.rank import plan
from nkcore.rank import sentences as rank_text
from ui.common import cache, page
from ui.common.text import md

__all__ = ["ranking_section"]

_BETWEEN_HELP = (
    "how much the true difference between two configs changes from case to case (for a 0/1 score with one run per "
    "case, with no repeats: the share of cases the two configs disagree on goes here, and 0 below)"
)
_WITHIN_HELP = (
    "how much one run's difference between two configs varies when the same case is run again (0 when every run "
    "of a case gives the same answer)"
)


@st.fragment
def ranking_section(significance: float, power: float) -> None:
    """Cases to separate the best from the runner-up among M configs, and cases for non-inferiority at a margin."""
    with page.user_errors():
        _ranking_section(significance, power)


def _ranking_section(significance: float, power: float) -> None:
    st.subheader("Many configs: separate the best, or show one is not worse")
    st.markdown(
        "When several configs are compared at once, the best must stand clear of every other one at the same time. "
        "Here: how many cases make the best stand above the runner-up, and how many show that a cheaper config is "
        "not worse than the best by more than a margin you accept."
    )
    with st.container(border=True):
        c1, c2, c3 = st.columns(3)
        n_configs = c1.number_input(
            "configs compared", min_value=2, max_value=100, value=5, step=1, key="pln_rank_configs",
            bind="query-params", help="how many configs are ranked together (more configs: a stricter bar for each pair)",
        )  # fmt: skip
        gap = c2.number_input(
            "gap to the runner-up (points)", min_value=0.1, max_value=50.0, value=3.0, step=0.5, format="%.1f",
            key="pln_rank_gap", bind="query-params",
            help="how far the best config's true score is above the second best, in percentage points",
        )  # fmt: skip
        margin = c3.number_input(
            "margin (points)", min_value=0.1, max_value=50.0, value=2.0, step=0.5, format="%.1f",
            key="pln_rank_margin", bind="query-params",
            help="how much worse than the best a config may be and still count as good enough, in percentage points",
        )  # fmt: skip
        v1, v2, v3 = st.columns(3)
        between = v1.number_input(
            "between-case variance", min_value=0.0, max_value=1.0, value=0.06, step=0.01, format="%.4f",
            key="pln_rank_between", bind="query-params", help=_BETWEEN_HELP,
        )  # fmt: skip
        within = v2.number_input(
            "within-case variance", min_value=0.0, max_value=1.0, value=0.0, step=0.01, format="%.4f",
            key="pln_rank_within", bind="query-params", help=_WITHIN_HELP,
        )  # fmt: skip
        repeats = v3.number_input(
            "repeats per case", min_value=1, max_value=100, value=1, step=1, key="pln_rank_repeats",
            bind="query-params", help="how many times each case is run for each config; the case's mean is scored",
        )  # fmt: skip
    sep = cache.compute_params(
        plan.separation_cases, gap=float(gap) / 100.0, between_var=float(between), within_var=float(within),
        repeats=int(repeats), n_configs=int(n_configs), significance=significance, power=power,
    )  # fmt: skip
    ni = cache.compute_params(
        plan.non_inferiority_cases, margin=float(margin) / 100.0, between_var=float(between), within_var=float(within),
        repeats=int(repeats), true_diff=0.0, significance=significance, power=power,
    )  # fmt: skip
    m1, m2 = st.columns(2)
    m1.metric(
        "cases to separate the best",
        f"{sep.cases:,}",
        help=f"cases x repeats per case = {sep.calls:,} runs per config",
    )
    m2.metric(
        "cases to show not worse",
        f"{ni.cases:,}",
        help=f"cases x repeats per case = {ni.calls:,} runs per config",
    )
    st.markdown(
        md(
            rank_text.separation_plan_sentence(
                sep.cases, sep.repeats, sep.gap, sep.n_configs, sep.power, sep.significance
            )
        )
        + ". "
        + md(rank_text.non_inferiority_plan_sentence(ni.cases, ni.repeats, ni.margin, 0.0, ni.power, significance))
        + "."
    )
    with st.expander("How these are computed", icon=":material/functions:"):
        st.markdown(
            "One case's difference between two configs varies by the between-case variance plus the within-case "
            "variance divided by the repeats per case. To separate the best, the gap must clear the bar every pair "
            f"of the {int(n_configs)} configs must clear at once ({sep.critical:.2f} standard errors, from the "
            "studentized range) with the power asked; to show a config not worse, a one-sided test at the margin "
            "(the paired t) must pass with the power asked when the two configs are truly equal. Both counts were "
            "checked by simulating the ranking and the test themselves: the power they promise is the power they "
            "deliver, within the simulation's error."
        )
