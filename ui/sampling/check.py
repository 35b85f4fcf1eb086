"""Sampling's model check: fit rho on the curve up to n = k and check the prediction at k + 2 (the correlated
model's test; a fragment: the choice of k reruns it only)."""

from __future__ import annotations

import streamlit as st

from nkcore import voting
from nkcore.common.formatting import points_between
from ui.common import cache, page
from ui.common.text import md
from ui.sampling.analysis import VoteView

__all__ = ["draw_check"]


def draw_check(view: VoteView) -> None:
    """The check in its expander (when the samples allow one: at least 5 per case)."""
    ks = [k for k in range(3, view.a.max_n - 1) if k % 2 == 1]
    with st.expander("Check: does the correlated model predict the next step?", icon=":material/rule:"):
        if ks:
            check_section(view, ks)
        else:
            st.info("The check needs at least 5 samples per case (fit on n up to 3, check at n = 5).")


@st.fragment
def check_section(view: VoteView, ks: list[int]) -> None:
    """Fit rho on the curve up to n = k and check the prediction at k + 2 (the correlated model's test)."""
    with page.user_errors():
        _check(view, ks)


def _check(view: VoteView, ks: list[int]) -> None:
    ds, a, tie, rho_known = view.ds, view.a, view.tie, view.rho_known
    if len(ks) > 1:
        k = st.select_slider(
            "Fit the correlation (rho) on samples per request up to n =",
            options=ks,
            value=ks[-1],
            key="smp_fit",
            bind="query-params",
            help="rho is fitted to the measured curve at odd n up to this value; the check is at n + 2.",
        )
    else:  # one possible value: nothing to choose, no slider
        k = ks[0]
    # the opening k is the analysis's own check (the same curve); another k is computed when chosen
    opening = a.next_step
    check = (
        opening
        if opening is not None and int(k) == opening.fit_upto
        else cache.compute(voting.next_step_from_frame, ds, fit_upto=int(k), tie=tie, n_boot=2000, seed=0)
    )
    st.caption(f"Models fitted on samples per request n ≤ {check.fit_upto}; checked at n = {check.predict_n}.")
    c1, c2, c3 = st.columns(3)
    c1.metric(
        f"correlated model, n = {check.predict_n}",
        f"{check.predicted:.1%}",
        help=f"The independent-samples curve read at effective samples N_eff = n / (1 + (n - 1) rho), with rho = "
        f"{check.rho_fitted:.2f} fitted to the measured curve at odd n up to {check.fit_upto}.",
    )
    c2.metric(
        f"measured, n = {check.predict_n}",
        f"{check.measured:.1%}",
        delta=f"{points_between(check.predicted, check.measured)} points vs prediction",
        delta_color="off",
    )
    c3.metric(
        f"difficulty model, n = {check.predict_n}",
        f"{check.beta_binomial:.1%}",
        help="Beta-binomial: each case has its own accuracy, drawn from a beta distribution fitted to each "
        f"case's first {check.fit_upto} samples; like the other models it counts a vote against one wrong answer.",
    )
    st.markdown(md(voting.next_step_sentence(check, a.rho.rho if rho_known else None)))
