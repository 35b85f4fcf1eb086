"""The Planner's label-error floor: the floor the label error rate sets, its estimate from a double-labelled
sample, and the one-page summary (a fragment: its two controls rerun this section alone)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import altair as alt
import streamlit as st

from nkcore import resolution
from nkcore.resolution import sentences as resolution_text
from ui.common import cache, exports, page
from ui.common.text import md

__all__ = ["PlanView", "label_error_section"]


@dataclass(frozen=True, slots=True)
class PlanView:
    """What the label-error section takes from the full run: the plan and its chart's builder (for the summary)."""

    plan: resolution.Plan
    answer: resolution_text.CasesAnswer | None
    target_pts: float
    chart: Callable[[], alt.LayerChart]
    e_pct: float  # the label error rate (%), a control of the page's main box (the headline carries its floor)


@st.fragment
def label_error_section(view: PlanView) -> None:
    """The label-error floor, the estimate from a double-labelled sample and the summary download.

    A fragment: its two controls (the double-labelled sample) change only what is drawn here, so they rerun this
    section alone; the label error rate itself is a main control, since the headline carries its floor.
    """
    with page.user_errors():
        _label_error_section(view)


def _label_error_section(view: PlanView) -> None:
    p = view.plan
    st.subheader("The label-error floor")
    st.markdown(resolution_text.LABEL_FLOOR_INTRO)
    e_pct = view.e_pct
    floor = resolution.label_error_floor(e_pct / 100.0)
    f1, f2 = st.columns(2)
    f1.metric(
        "best measurable accuracy",
        f"{100 * floor.best_measurable_accuracy:.1f}%",
        help="what a perfect system scores when this share of the gold labels is wrong: 1 - label error rate",
    )
    f2.metric(
        "lost in label noise",
        resolution_text.resolvable_points(floor.noise_floor_diff),
        help="two configs that differ by less than this are competing inside the noise of the ground truth",
    )
    st.markdown(md(resolution.label_error_sentence(floor)))
    if p.target_diff is not None:
        st.markdown(md(resolution.target_vs_floor_sentence(p.target_diff, floor)))

    st.markdown("**Estimate the label error rate from a double-labelled sample**")
    e1, e2 = st.columns(2)
    dl_items = e1.number_input(
        "items labelled twice", min_value=1, max_value=1_000_000, value=200, step=10, key="pln_dl_items",
        bind="query-params", help="items that two people labelled independently",
    )  # fmt: skip
    dl_dis = e2.number_input(
        "items where the two labels disagree", min_value=0, max_value=1_000_000, value=12, step=1,
        key="pln_dl_dis", bind="query-params", help="of the items labelled twice, those with two different labels",
    )  # fmt: skip
    est = cache.compute_params(resolution.estimate_label_error, items=int(dl_items), disagreements=int(dl_dis))
    st.metric(
        "estimated label error rate", f"{100 * est.error_rate:.1f}%",
        help=f"95% interval {100 * est.ci_low:.1f}% to {100 * est.ci_high:.1f}%",
    )  # fmt: skip
    st.markdown(md(resolution.label_estimate_sentence(est)))
    st.caption("Set the label error rate above to this estimate to see the floor it implies.")

    disc = resolution_text.discordance_text(p.discordance)
    numbers = resolution_text.summary_rows(p, view.answer, floor, est)
    exports.summary_download(
        "Planner",
        {"cases": p.cases, "discordance": disc, "alpha": p.alpha, "power": p.power,
         "target difference": f"{view.target_pts:.1f} points", "label error rate": f"{e_pct:.1f}%"},
        numbers,
        [view.chart],
    )  # fmt: skip
