"""How many human labels to buy: for a target interval half-width (a share of today's corrected one), with the
judge-human correlation measured on this table as the pilot; with prices per label and per judge call, the cheapest
split and its honest saving (``nkcore.judge.plan``)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from nkcore.common.formatting import percent
from nkcore.judge import JudgeReport, plan_sentence
from nkcore.judge.sentences import num
from ui.common.text import md

__all__ = ["PlanControls", "draw_plan", "read_plan"]

WIDTHS = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0]


@dataclass(frozen=True, slots=True)
class PlanControls:
    """``width``: the target half-width as a share of today's corrected one (1: as now); the prices."""

    width: float
    price_human: float
    price_judge: float


def read_plan() -> PlanControls:
    """The plan's controls (in the caller's container), bound to the link."""
    st.subheader("How many human labels to buy?", anchor="plan")
    width = st.select_slider(
        "Target interval half-width, as a share of today's corrected one",
        options=WIDTHS,
        value=1.0,
        key="jdg_width",
        bind="query-params",
        help="1 keeps today's precision; 0.5 asks for an interval half as wide (about four times the labels).",
    )
    c1, c2 = st.columns(2)
    price_human = c1.number_input(
        "Price of one human label",
        min_value=0.001,
        max_value=1_000_000.0,
        value=1.0,
        step=0.5,
        key="jdg_price_h",
        bind="query-params",
        help="In any currency, the same as the judge's price.",
    )
    price_judge = c2.number_input(
        "Price of one judge call",
        min_value=0.0,
        max_value=1_000_000.0,
        value=0.01,
        step=0.01,
        format="%.4f",
        key="jdg_price_j",
        bind="query-params",
    )
    return PlanControls(float(width), float(price_human), float(price_judge))


def draw_plan(report: JudgeReport) -> None:
    """The plan in words and its numbers (below the controls)."""
    plan = report.plan
    if plan is None:
        st.info("The human labels do not vary within configs here, so there is nothing to plan from.")
        return
    st.markdown(md(plan_sentence(plan)))
    lp = plan.labels
    c1, c2, c3 = st.columns(3)
    c1.metric(
        "Labels, humans only",
        f"{lp.human_only_labels:,}",
        help=f"Labels for a {100 * plan.confidence:g}% interval of ±{num(plan.target_half_width)} with no judge: "
        "σ² / se², σ the human scores' spread within configs and se the standard error the interval needs.",
    )
    c2.metric(
        "Labels, with the judge",
        "not reachable" if lp.ppi_labels is None else f"{lp.ppi_labels:,}",
        delta=None if lp.ppi_labels is None or lp.saving < 0.005 else f"-{percent(lp.saving, 0)}",
        delta_color="off",
        help=f"With the judge scoring all {plan.n_cases:,} cases of a config: the judge removes at most ρ² of the "
        f"variance (ρ, the correlation between judge and human scores, is {plan.pilot.rho:.2f} on this table's "
        "labelled cases).",
    )
    s = plan.split
    if s is not None:
        c3.metric(
            "Cheapest at these prices",
            f"{s.n_human:,} labels",
            delta=f"+{s.judge_calls:,} calls, -{percent(s.saving, 0)} cost" if s.uses_judge else "no judge calls",
            delta_color="off",
            help=f"Cost {s.cost:.4g} against {s.human_only_cost:.4g} for humans only, for the precision of "
            f"{s.effective_n:,} human labels alone (ppi_py.ppi_power's rule).",
        )
    st.caption(
        f"**ρ** = {plan.pilot.rho:.2f}: the correlation between judge and human scores within configs, on the "
        f"{plan.pilot.n_labelled:,} labelled cases. The saving is at most ρ² = {percent(lp.max_saving, 0)} of the "
        "human labels, however many judge calls are bought: a mediocre judge saves little. The plan assumes the human "
        "labels are drawn at random."
    )
