"""Sampling: what majority voting over more samples per request (n) buys, and what it cannot fix.

The verdict (one sentence) and the vote curve lead; explanations, the effective-samples table, the model check and
method notes sit in expanders; the words come from ``nkcore.voting.sentences``. The sections that depend on one
control each (the curve with its what-if rho, the unfixable cases, the model check) are fragments; the curve's
fragment draws the one-page summary, which carries the what-if, so no other fragment can leave it stale."""

from __future__ import annotations

import math

import altair as alt
import pandas as pd
import streamlit as st

from nkcore import voting
from nkcore.common.formatting import points_between
from nkcore.voting import sentences as words
from nkcore.voting.rules import as_tie_rule
from ui import charts
from ui.charts import voting as charts_voting
from ui.common import cache, datasets, exports, page
from ui.common.text import md
from ui.sampling.passk import passk_section

page.setup_page("Sampling", "What does majority voting over more samples per request (n) buy?")
ds = datasets.choose_dataset("samples")


def summary(a: voting.VoteAnalysis, tie: str, rho_what_if: float, chart: exports.ChartOrBuilder) -> None:
    """The one-page summary (rows from ``nkcore.voting.sentences.summary_rows``), drawn by the curve's fragment so
    it follows the what-if slider; the other fragments' controls change no number in it."""
    exports.summary_download(
        "Sampling",
        {"dataset": ds.name, "tie rule": tie, "what-if rho": rho_what_if},
        words.summary_rows(a, rho_what_if),
        [chart],
    )


with page.user_errors():
    # Positions first, filled below: the verdict and its chart lead; the tie rule (a method choice every number
    # depends on) lives in the Method expander at the end but must be read before anything is computed.
    verdict_box = st.container()
    curve_box = st.container()
    numbers_box = st.container()
    read_box = st.expander("How to read this", icon=":material/help:")
    neff_box = st.expander("Effective samples (N_eff): what n correlated samples are worth")
    unfixable_box = st.container()
    passk_box = st.container()
    check_box = st.container()
    method_box = st.expander("Method: ties, intervals and models", icon=":material/functions:")
    with method_box:
        tie = st.radio(
            "Tie rule when two answers get the same number of votes",
            list(words.TIE_HELP),
            captions=list(words.TIE_HELP.values()),
            horizontal=True,
            key="smp_tie",
            bind="query-params",
        )
    a = cache.compute(voting.analyze_samples, ds, tie=tie, n_boot=2000, seed=0, from_n=None)
    curve = a.curve
    p = curve.point(1).accuracy
    ns = tuple(pt.n for pt in curve.points)
    rho_known = math.isfinite(a.rho.rho)
    est_rho = max(a.rho.rho, 0.0) if rho_known else 0.0  # undefined rho (all right or all wrong): treat as independent
    measured = pd.DataFrame(
        {
            "n": ns,
            "accuracy": [pt.accuracy for pt in curve.points],
            "ci_low": [pt.ci_low for pt in curve.points],
            "ci_high": [pt.ci_high for pt in curve.points],
            "first_n_accuracy": [pt.first_n_accuracy for pt in curve.points],
            "cases": [pt.n_cases for pt in curve.points],
        }
    )
    base_series = {
        "independent samples": [voting.independent_accuracy(p, n) for n in ns],
        "correlated, estimated rho": list(voting.correlated_curve(p, ns, est_rho)),
        "beta-binomial difficulty model": list(a.beta_binomial_curve),
    }

    with verdict_box:
        st.markdown(f"**{md(words.verdict_sentence(a))}**")

    # ------------------------------------------------------------------ the curve, and the what-if correlation
    @st.fragment
    def curve_section(a: voting.VoteAnalysis, measured: pd.DataFrame, tie: str) -> None:
        """The vote curve with the model lines, the what-if correlation slider that moves one of them, the
        downloads and the one-page summary (which carries the what-if): moving the slider reruns this only."""
        with page.user_errors():
            chart_slot = st.empty()
            st.caption(words.CURVE_CAPTION)
            left, right = st.columns([2, 3], vertical_alignment="center")
            rho_what_if = left.slider(
                "What if the correlation between samples (rho) were…",
                min_value=0.0,
                max_value=0.9,
                value=0.17,
                step=0.01,
                key="smp_rho",
                bind="query-params",
                help="0 = independent samples; 1 = every sample of a case is a copy of the first. Effective samples: "
                "N_eff = n / (1 + (n - 1) rho). The chapter's example: 0.17.",
            )
            right.markdown(
                f"**What if:** {md(voting.what_if_sentence(p, rho_what_if, a.max_n, a.curve.points[-1].accuracy))}"
            )
            series = {**base_series, "correlated, what-if rho": list(voting.correlated_curve(p, ns, rho_what_if))}
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
            summary(a, tie, rho_what_if, chart)

    with curve_box:
        curve_section(a, measured, tie)

    # ------------------------------------------------------------------ key numbers
    with numbers_box:
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
            help=f"Majority vote over {a.max_n} samples per request, averaged over every subset of each case's "
            "samples.",
        )
        m3.metric(
            "correlation (rho)",
            f"{a.rho.rho:.2f}" if rho_known else "n/a",
            help=f"{words.RHO_HELP} Here: {md(a.rho.method)}. {words.N_EFF_HELP}",
        )
        st.caption(f"{a.n_cases:,} cases, each with up to {a.max_n} samples per request (n).")

    with read_box:
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

    with neff_box:
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
            words.N_EFF_HELP
            + " 'predicted' and 'independent' count a vote as right or wrong against one wrong answer; "
            "'measured' is the exact plurality vote."
        )

    # ------------------------------------------------------------------ unfixable
    @st.fragment
    def unfixable_section(a: voting.VoteAnalysis, tie: str) -> None:
        """The errors more samples cannot fix, from the n the reader chooses."""
        with page.user_errors():
            _unfixable(a, tie)

    def _unfixable(a: voting.VoteAnalysis, tie: str) -> None:
        st.subheader("Errors more samples cannot fix")
        from_n = st.number_input(
            "Start from the cases the vote gets wrong at samples per request n =",
            min_value=1,
            max_value=a.max_n,
            value=min(3, a.max_n),
            step=1,
            key="smp_from",
            bind="query-params",
        )
        u = cache.compute(voting.unfixable_from_frame, ds, from_n=int(from_n), tie=tie)
        st.markdown(md(voting.unfixable_sentence(u)))
        if u.cases:  # the table (and its CSV) is built only while the expander is open
            more = st.expander(
                f"The {len(u.cases)} cases still wrong with every sample", key="smp_show_unfixable", on_change="rerun"
            )
            if more.open:
                cases = pd.DataFrame(
                    [{"case": c.case, "gold answer": c.gold, "most common answer": c.top_answer,
                      "votes for it": c.top_count, "votes for gold": c.gold_count, "samples": c.n_samples,
                      "all samples agree": c.unanimous, "all answers (count)": c.answers} for c in u.cases]
                )  # fmt: skip
                with more:
                    height = min(400, 38 + 35 * len(cases))
                    exports.table(cases, "unfixable_cases", hide_index=True, width="stretch", height=height)

    with unfixable_box:
        unfixable_section(a, tie)

    # ------------------------------------------------------------------ pass@k, pass^k and flaky cases
    with passk_box:
        passk_section(ds, tie=as_tie_rule(tie))

    # ------------------------------------------------------------------ the model check
    ks = [k for k in range(3, a.max_n - 1) if k % 2 == 1]

    @st.fragment
    def check_section(tie: str, ks: list[int]) -> None:
        """Fit rho on the curve up to n = k and check the prediction at k + 2 (the correlated model's test)."""
        with page.user_errors():
            _check(tie, ks)

    def _check(tie: str, ks: list[int]) -> None:
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
        check = cache.compute(voting.next_step_from_frame, ds, fit_upto=int(k), tie=tie, n_boot=2000, seed=0)
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

    with check_box:
        with st.expander("Check: does the correlated model predict the next step?", icon=":material/rule:"):
            if ks:
                check_section(tie, ks)
            else:
                st.info("The check needs at least 5 samples per case (fit on n up to 3, check at n = 5).")

    with method_box:
        st.markdown(words.method_notes())

page.finish_page()
