"""Sampling's vote curve: the measured curve with the model lines, the what-if correlation slider that moves one of
them, the downloads and the one-page summary, which carries the what-if (a fragment: the slider reruns it only)."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from nkcore import voting
from nkcore.voting import sentences as words
from ui import charts
from ui.charts import voting as charts_voting
from ui.common import cache, datasets, exports, page
from ui.common.text import md
from ui.sampling.analysis import VoteView

__all__ = ["curve_section", "summary"]


def summary(
    ds: datasets.Dataset, a: voting.VoteAnalysis, tie: str, rho_what_if: float, chart: exports.ChartOrBuilder
) -> None:
    """The one-page summary (rows from ``nkcore.voting.sentences.summary_rows``), drawn by the curve's fragment so
    it follows the what-if slider; the other fragments' controls change no number in it."""
    exports.summary_download(
        "Sampling",
        {"dataset": ds.name, "tie rule": tie, "what-if rho": rho_what_if},
        words.summary_rows(a, rho_what_if),
        [chart],
    )


@st.fragment
def curve_section(view: VoteView) -> None:
    """The vote curve with the model lines, the what-if correlation slider that moves one of them, the
    downloads and the one-page summary (which carries the what-if): moving the slider reruns this only."""
    a, measured, tie, p, ns = view.a, view.measured, view.tie, view.p, view.ns
    with page.user_errors():
        chart_slot = st.empty()
        st.caption(words.CURVE_CAPTION)
        left, right = st.columns([2, 3], vertical_alignment="center")
        # the built-in example opens on the chapter's 0.17; a team's own data on the rho measured in it
        start = 0.17 if view.ds.builtin or not view.rho_known else round(min(max(view.est_rho, 0.0), 0.9), 2)
        rho_what_if = left.slider(
            "What if the correlation between samples (rho) were…",
            min_value=0.0,
            max_value=0.9,
            value=start,
            step=0.01,
            key="smp_rho",
            bind="query-params",
            help="0 = independent samples; 1 = every sample of a case is a copy of the first. Effective samples: "
            "N_eff = n / (1 + (n - 1) rho). It opens on the rho measured in your data (the built-in example: the "
            f"chapter's 0.17); now {start:.2f} before you move it.",
        )
        right.markdown(
            f"**What if:** {md(voting.what_if_sentence(p, rho_what_if, a.max_n, a.curve.points[-1].accuracy))}"
        )
        series = {**view.base_series, "correlated, what-if rho": list(voting.correlated_curve(p, ns, rho_what_if))}
        models = pd.DataFrame(
            [{"n": n, "series": k, "accuracy": v[i]} for k, v in series.items() for i, n in enumerate(ns)]
        )
        # the spec is cached on the frames' content; the chart itself is built only when an export is clicked
        with chart_slot.container():
            charts.draw(cache.chart_spec(charts_voting.vote_curve_chart, measured, models))

        def chart() -> alt.LayerChart:
            return charts_voting.vote_curve_chart(measured, models)

        exports.download_table_and_chart(
            measured, "vote_curve", chart, "vote_curve", explains=words.VOTE_CURVE_EXPLAINS
        )
        summary(view.ds, a, tie, rho_what_if, chart)
