"""Sampling's key numbers (single call, accuracy at the largest n, rho), how to read the curve, and the table of
effective samples (N_eff)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore import voting
from nkcore.voting import sentences as words
from ui.common import exports
from ui.common.text import md
from ui.sampling.analysis import VoteView

__all__ = ["draw_neff", "draw_numbers", "draw_reading"]


def draw_numbers(view: VoteView) -> None:
    """Three numbers in one row, the counts in a caption."""
    a, p, rho_known = view.a, view.p, view.rho_known
    curve = a.curve
    # three numbers in one row fit a projector (1024 px with the sidebar); the counts go in a caption
    m1, m2, m3 = st.columns(3)
    m1.metric(
        "single call (p)",
        f"{p:.1%}",
        help="Single-call accuracy: how often one sample is right, averaged over every sample of every case "
        "(samples per request n = 1).",
    )
    m2.metric(
        f"accuracy at n = {a.max_n}",
        f"{curve.points[-1].accuracy:.1%}",
        help=f"Majority vote over {a.max_n} samples per request, averaged over every subset of each case's samples.",
    )
    m3.metric(
        "correlation (rho)",
        f"{a.rho.rho:.2f}" if rho_known else "n/a",
        help=f"{words.RHO_HELP} Here: {md(a.rho.method)}. {words.N_EFF_HELP}",
    )
    st.caption(f"{a.n_cases:,} cases, each with up to {a.max_n} samples per request (n).")


def draw_reading(view: VoteView) -> None:
    """How to read the curve: rho, the order of the curve, the gap to the models, notes."""
    a = view.a
    curve = a.curve
    st.markdown(md(voting.rho_sentence(a.rho, a.max_n, measured=curve.points[-1].accuracy)))
    if order := voting.order_sentence(curve):
        st.markdown(md(order))
    st.markdown(md(voting.curve_sentence(curve)))
    st.markdown(md(voting.model_gap_sentence(a)))
    st.caption(words.CURVE_NOTES)
    if note := words.cases_per_n_note(curve):
        st.caption(note)
    if a.binary:
        st.caption(words.BINARY_NOTE)


def draw_neff(view: VoteView) -> None:
    """What n correlated samples are worth: effective samples, predicted and measured accuracy per n."""
    a, p, ns, rho_known, est_rho, measured = view.a, view.p, view.ns, view.rho_known, view.est_rho, view.measured
    curve = a.curve
    est_tab = voting.n_eff_table(p, ns, est_rho)
    neff = pd.DataFrame(
        {
            "samples per request (n)": ns,
            f"effective samples, rho {est_rho:.2f}": [r.n_eff for r in est_tab],
            f"predicted, rho {est_rho:.2f}": [100 * r.correlated for r in est_tab],
            "independent samples": [100 * r.independent for r in est_tab],
            "measured": 100 * measured["accuracy"],
        }
    )
    exports.table(
        neff,
        "effective_samples",
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(
                format="%.2f" if c.startswith("effective") else "%.1f%%",
                help=words.N_EFF_HELP if c.startswith("effective") else None,
            )
            for c in neff.columns[1:]
        },
    )
    st.markdown(words.n_eff_sentence(est_rho, rho_known, ns[-1], curve.points[-1].accuracy, p))
    st.caption(
        words.N_EFF_HELP + " 'predicted' and 'independent' count a vote as right or wrong against one wrong answer; "
        "'measured' is the exact plurality vote."
    )
