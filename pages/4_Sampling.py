"""Sampling: what majority voting over more samples per request (n) buys, and what it cannot fix.

The page leads with its verdict (one sentence) and the vote curve that supports it; the model explanations, the
effective-samples table, the model check and the method notes sit in expanders. The three sections that depend on
one control each (the curve with its what-if correlation, the cases more samples cannot fix, the model check) are
fragments: moving their control reruns that section only. The one-page summary is drawn by the curve's fragment
and reports the verdict's own numbers (the curve, the estimated rho, the errors from n = 3, the default model
check) and the what-if, so no other fragment can leave it stale.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd
import streamlit as st

from nkcore import voting
from nkcore.common.formatting import percent, points, points_between
from nkcore.voting.rules import as_tie_rule
from ui import cache, charts_voting, datasets, exports, page
from ui.text import md
from ui.voting_passk import passk_section

page.setup_page("Sampling", "What does majority voting over more samples per request (n) buy?")
ds = datasets.choose_dataset("samples")

TIE_HELP = {
    "first": "the tied answer seen first wins (what Counter.most_common does)",
    "split": "a tie shares the credit (1/2 for a two-way tie)",
    "wrong": "a tie counts as wrong",
}
RHO_HELP = (
    "How alike the samples of one case are, right or wrong: 0 = independent draws, 1 = every sample a copy of the "
    "first. Estimated as the intra-class correlation ICC(1) of the 0/1 correctness of each case's samples."
)
N_EFF_HELP = (
    "Effective samples: N_eff = n / (1 + (n - 1) rho). Correlated samples of one case are worth fewer independent "
    "votes; the correlated prediction is the independent-samples curve read at N_eff instead of n."
)
CURVE_NOTES = (
    "Solid line and band: the measured accuracy averaged over every subset of n samples of each case, with a 95% "
    "interval from resampling cases (the same resampled cases at every n). Diamonds: the vote over each case's first "
    "n samples, what a flat deployment sees. Dashed lines: predictions from the single-call accuracy p. At even n two "
    "answers can tie, so even n adds little over the odd n below it. The solid line is the same under the 'first' "
    "and 'split' tie rules: over every subset, which tied answer comes first is a fair coin, which is split credit; "
    "the rules differ only for the diamonds."
)


def verdict(a: voting.VoteAnalysis) -> str:
    """The page's answer in one sentence: what voting over all the samples buys, whether the last two-sample step
    still helps (its 95% paired interval against zero), and how many errors no number of samples fixes.

    Steps are the odd-n ladder 1 -> 3 -> 5 ...; differences are taken between the shown (rounded) percentages.
    """
    curve = a.curve
    first, last = curve.point(1), curve.points[-1]
    steps = [p for p in curve.points if p.diff_from_n > 0 and p.n % 2 == 1]
    flat = next((p for p in steps if p.diff_ci_low <= 0), None)
    if last.n == 1:
        parts = [f"With one sample per case the vote scores {percent(first.accuracy)}: there is no larger n to compare"]
    elif round(last.accuracy, 3) <= round(first.accuracy, 3):
        parts = [
            f"Voting over {last.n} samples per request does not help here: {percent(first.accuracy)} with one call, "
            f"{percent(last.accuracy)} with {last.n}"
        ]
    else:
        parts = [
            f"Voting over {last.n} samples per request lifts accuracy from {percent(first.accuracy)} (one call) to "
            f"{percent(last.accuracy)} ({points_between(first.accuracy, last.accuracy)} points)"
        ]
        if flat is not None:
            parts.append(
                f"from n = {flat.diff_from_n} on, more samples add nothing these cases can tell from zero "
                f"(n = {flat.diff_from_n} to {flat.n}: {points(flat.diff)} points, 95% interval "
                f"{points(flat.diff_ci_low)} to {points(flat.diff_ci_high)})"
            )
        elif steps:
            s = steps[-1]
            parts.append(f"the last step still helps (n = {s.diff_from_n} to {s.n}: {points(s.diff)} points)")
    u = a.unfixable
    if u.wrong_at_from_n and u.largest_n > u.from_n:
        parts.append(
            f"{u.still_wrong} of the {u.wrong_at_from_n} cases wrong at n = {u.from_n} stay wrong with every sample "
            "they have"
        )
    return "; ".join(parts) + "."


def draw(chart: alt.TopLevelMixin) -> None:
    """Draw an Altair chart from its unvalidated spec: Altair's JSON-schema validation of a layered chart costs
    more than the rest of a rerun, and these charts are built by ``ui.charts_voting`` from known columns."""
    st.vega_lite_chart(chart.to_dict(validate=False), width="stretch")


def summary(a: voting.VoteAnalysis, tie: str, rho_what_if: float, chart: alt.TopLevelMixin) -> None:
    """The one-page summary of this view: the verdict's numbers (the curve, the estimated rho, the errors from
    n = 3, the default model check) and the what-if. It is drawn by the curve's fragment, so it follows the what-if
    slider; the other fragments' controls (the n to count unfixable errors from, the n to fit rho on) change no
    number in it, so their reruns cannot leave it stale."""
    curve = a.curve
    rho_known = math.isfinite(a.rho.rho)
    u3 = a.unfixable
    what_if = voting.what_if_sentence(curve.point(1).accuracy, rho_what_if, a.max_n)
    numbers = [
        ("verdict", percent(curve.points[-1].accuracy), verdict(a)),
        ("cases", f"{a.n_cases:,}", f"each with up to {a.max_n} samples per request (n)"),
        ("single-call accuracy", percent(curve.point(1).accuracy), "exact accuracy at samples per request n = 1"),
        (f"accuracy at n = {a.max_n}", percent(curve.points[-1].accuracy), voting.curve_sentence(curve)),
        (
            "correlation between samples (rho)",
            f"{a.rho.rho:.2f} ({a.rho.ci_low:.2f} to {a.rho.ci_high:.2f})" if rho_known else "n/a",
            voting.rho_sentence(a.rho, a.max_n, measured=curve.points[-1].accuracy),
        ),
        ("what-if rho", f"{rho_what_if:.2f}", what_if),
        (
            f"errors more samples cannot fix (from n = {u3.from_n})",
            f"{u3.still_wrong} of {u3.wrong_at_from_n}, {u3.unanimous_wrong} unanimous",
            voting.unfixable_sentence(u3),
        ),
    ]
    if a.next_step is not None:
        numbers.append(
            (
                "next-step check",
                f"{a.next_step.measured:.1%} vs {a.next_step.predicted:.1%}",
                voting.next_step_sentence(a.next_step, a.rho.rho if rho_known else None),
            )
        )
    exports.summary_download(
        "Sampling", {"dataset": ds.name, "tie rule": tie, "what-if rho": rho_what_if}, numbers, [chart]
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
            list(TIE_HELP),
            captions=list(TIE_HELP.values()),
            horizontal=True,
            key="smp_tie",
            bind="query-params",
        )
    a = cache.compute(voting.analyze_samples, ds, tie=tie, n_boot=2000, seed=0, from_n=3)
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
        st.markdown(f"**{md(verdict(a))}**")

    # ------------------------------------------------------------------ the curve, and the what-if correlation
    @st.fragment
    def curve_section(a: voting.VoteAnalysis, measured: pd.DataFrame, tie: str) -> None:
        """The vote curve with the model lines, the what-if correlation slider that moves one of them, the
        downloads and the one-page summary (which carries the what-if): moving the slider reruns this only."""
        with page.user_errors():
            chart_slot = st.empty()
            st.caption(
                "Solid line and band: measured accuracy with its 95% interval. Dashed lines: what models predict from "
                "the single-call accuracy. Diamonds: the vote over each case's first n samples."
            )
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
            right.markdown(f"**What if:** {md(voting.what_if_sentence(p, rho_what_if, a.max_n))}")
            series = {**base_series, "correlated, what-if rho": list(voting.correlated_curve(p, ns, rho_what_if))}
            models = pd.DataFrame(
                [{"n": n, "series": k, "accuracy": v[i]} for k, v in series.items() for i, n in enumerate(ns)]
            )
            chart = charts_voting.vote_curve_chart(measured, models)
            with chart_slot.container():
                draw(chart)
            exports.download_table_and_chart(measured, "vote_curve", chart, "vote_curve")
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
            help=f"{RHO_HELP} Here: {md(a.rho.method)}. {N_EFF_HELP}",
        )
        st.caption(f"{a.n_cases:,} cases, each with up to {a.max_n} samples per request (n).")

    with read_box:
        st.markdown(md(voting.rho_sentence(a.rho, a.max_n, measured=curve.points[-1].accuracy)))
        if order := voting.order_sentence(curve):
            st.markdown(md(order))
        st.markdown(md(voting.curve_sentence(curve)))
        st.markdown(md(voting.model_gap_sentence(a)))
        st.caption(CURVE_NOTES)
        if len(set(measured["cases"])) > 1:
            st.caption(
                "Cases differ in how many samples they have; each n uses the cases with at least n samples: "
                + ", ".join(f"n = {pt.n}: {pt.n_cases} cases" for pt in curve.points)
                + "."
            )
        if a.binary:
            st.caption(
                "This data has a correct column and no answers: votes are read as correct against one wrong answer."
            )

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
                    help=N_EFF_HELP if c.startswith("effective") else None,
                )
                for c in neff.columns[1:]
            },
        )
        last = est_tab[-1]
        st.markdown(
            f"With rho = {est_rho:.2f}{'' if rho_known else ' (rho cannot be estimated here: taken as 0)'}, "
            f"{last.n} samples per request are worth N_eff = {last.n_eff:.1f} independent samples: the correlated "
            f"model predicts {last.correlated:.1%} at n = {last.n}, independent samples {last.independent:.1%}, "
            f"and the data measured {curve.points[-1].accuracy:.1%}."
        )
        st.caption(
            N_EFF_HELP + " 'predicted' and 'independent' count a vote as right or wrong against one wrong answer; "
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
        cases = pd.DataFrame(
            [
                {
                    "case": c.case,
                    "gold answer": c.gold,
                    "most common answer": c.top_answer,
                    "votes for it": c.top_count,
                    "votes for gold": c.gold_count,
                    "samples": c.n_samples,
                    "all samples agree": c.unanimous,
                    "all answers (count)": c.answers,
                }
                for c in u.cases
            ]
        )
        if len(cases):
            with st.expander(f"The {len(cases)} cases still wrong with every sample"):
                exports.table(
                    cases, "unfixable_cases", hide_index=True, width="stretch", height=min(400, 38 + 35 * len(cases))
                )

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
        st.markdown(
            "- **The curve** is exact: at each n, the vote over every subset of n of a case's samples, averaged "
            "(no sampling noise from choosing subsets). Its 95% band resamples cases, the same resampled cases at "
            "every n, so the steps between n are paired.\n"
            f"- **The correlation between samples (rho)**: {RHO_HELP}\n"
            f"- **{N_EFF_HELP}**\n"
            "- **The models** (independent, correlated, beta-binomial difficulty) count a vote as right or wrong "
            "against one wrong answer; a plurality vote over answers whose wrong values scatter can beat them."
        )

page.finish_page()
