"""Sampling: what majority voting over more samples per request (n) buys, and why the curve flattens."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from nkcore import voting
from nkcore.common.formatting import points_between
from ui import cache, charts_voting, datasets, exports, page
from ui.text import md

page.setup_page(
    "Sampling",
    "What does majority voting over more samples per request (n) buy? The measured accuracy curve, exact over every "
    "subset of each case's samples, beside what independent and correlated samples would predict, and the errors "
    "that no number of samples can fix.",
)
ds = datasets.choose_dataset("samples")

TIE_HELP = {
    "first": "the tied answer seen first wins (what Counter.most_common does)",
    "split": "a tie shares the credit (1/2 for a two-way tie)",
    "wrong": "a tie counts as wrong",
}
with page.user_errors():
    left, right = st.columns([1, 1])
    tie = left.radio(
        "Tie rule when two answers get the same number of votes",
        list(TIE_HELP),
        captions=list(TIE_HELP.values()),
        horizontal=True,
        key="smp_tie",
        bind="query-params",
    )
    rho_what_if = right.slider(
        "What if rho (correlation between samples of the same case) were…",
        min_value=0.0,
        max_value=0.9,
        value=0.17,
        step=0.01,
        key="smp_rho",
        bind="query-params",
        help="0 = independent samples; 1 = every sample of a case is a copy of the first. The chapter's example: 0.17.",
    )
    a = cache.compute(voting.analyze_samples, ds, tie=tie, n_boot=2000, seed=0, from_n=3)
    curve = a.curve
    p = curve.point(1).accuracy
    ns = tuple(pt.n for pt in curve.points)
    rho_known = math.isfinite(a.rho.rho)
    est_rho = max(a.rho.rho, 0.0) if rho_known else 0.0  # undefined rho (all right or all wrong): treat as independent

    # ------------------------------------------------------------------ key numbers
    m1, m2, m3, m4, m5 = st.columns(5)
    m1.metric("cases", f"{a.n_cases:,}")
    m2.metric("samples per case (largest n)", a.max_n)
    m3.metric(
        "single-call accuracy (p)",
        f"{p:.1%}",
        help="How often one sample is right, averaged over every sample of every case (samples per request n = 1).",
    )
    m4.metric(
        "rho (estimated)",
        f"{a.rho.rho:.2f}" if rho_known else "n/a",
        help="Correlation between the correctness of two samples of the same case: 0 = independent, 1 = copies. "
        + md(a.rho.method),
    )
    m5.metric(
        f"accuracy at n = {a.max_n}",
        f"{curve.points[-1].accuracy:.1%}",
        help=f"Majority vote over {a.max_n} samples per request, averaged over every subset of each case's samples.",
    )
    st.markdown(md(voting.rho_sentence(a.rho, a.max_n, measured=curve.points[-1].accuracy)))
    if order := voting.order_sentence(curve):
        st.markdown(md(order))
    counts = [pt.n_cases for pt in curve.points]
    if len(set(counts)) > 1:
        st.caption(
            "Cases differ in how many samples they have; each n uses the cases with at least n samples: "
            + ", ".join(f"n = {pt.n}: {pt.n_cases} cases" for pt in curve.points)
            + "."
        )
    if a.binary:
        st.caption("This data has a correct column and no answers: votes are read as correct against one wrong answer.")

    # ------------------------------------------------------------------ the curve
    st.subheader("Accuracy against samples per request (n)")
    measured = pd.DataFrame(
        {
            "n": ns,
            "accuracy": [pt.accuracy for pt in curve.points],
            "ci_low": [pt.ci_low for pt in curve.points],
            "ci_high": [pt.ci_high for pt in curve.points],
            "first_n_accuracy": [pt.first_n_accuracy for pt in curve.points],
            "cases": counts,
        }
    )
    series = {
        "independent samples": [voting.independent_accuracy(p, n) for n in ns],
        "correlated, estimated rho": list(voting.correlated_curve(p, ns, est_rho)),
        "correlated, what-if rho": list(voting.correlated_curve(p, ns, rho_what_if)),
        "beta-binomial difficulty model": list(a.beta_binomial_curve),
    }
    models = pd.DataFrame(
        [{"n": n, "series": k, "accuracy": v[i]} for k, v in series.items() for i, n in enumerate(ns)]
    )
    chart = charts_voting.vote_curve_chart(measured, models)
    st.altair_chart(chart, width="stretch")
    st.caption(
        "Solid line and band: the measured accuracy averaged over every subset of n samples of each case, with a 95% "
        "interval from resampling cases (the same resampled cases at every n). Diamonds: the vote over each case's "
        "first n samples, what a flat deployment sees. Dashed lines: predictions from the single-call accuracy p. At even "
        "n two answers can tie, so even n adds little over the odd n below it. The solid line is the same under the "
        "'first' and 'split' tie rules: over every subset, which tied answer comes first is a fair coin, which is "
        "split credit; the rules differ only for the diamonds."
    )
    what_if = voting.what_if_sentence(p, rho_what_if, a.max_n)
    st.markdown(f"**What if:** {md(what_if)}")
    st.markdown(md(voting.curve_sentence(curve)))
    st.markdown(md(voting.model_gap_sentence(a)))
    exports.download_table_and_chart(measured, "vote_curve", chart, "vote_curve")

    # ------------------------------------------------------------------ N_eff
    st.subheader("Effective samples (N_eff)")
    est_tab = voting.n_eff_table(p, ns, est_rho)
    wif_tab = voting.n_eff_table(p, ns, rho_what_if)
    neff = pd.DataFrame(
        {
            "samples per request (n)": ns,
            f"N_eff, rho {est_rho:.2f}": [r.n_eff for r in est_tab],
            f"predicted, rho {est_rho:.2f}": [100 * r.correlated for r in est_tab],
            f"N_eff, what-if {rho_what_if:.2f}": [r.n_eff for r in wif_tab],
            f"predicted, what-if {rho_what_if:.2f}": [100 * r.correlated for r in wif_tab],
            "independent": [100 * r.independent for r in est_tab],
            "measured": 100 * measured["accuracy"],
        }
    )
    exports.table(
        neff,
        "effective_samples",
        download=False,  # offered below
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.2f" if c.startswith("N_eff") else "%.1f%%")
            for c in neff.columns[1:]
        },
    )
    last = est_tab[-1]
    st.markdown(
        f"With rho = {est_rho:.2f}{'' if rho_known else ' (rho cannot be estimated here: taken as 0)'}, "
        f"{last.n} samples per request are worth N_eff = {last.n_eff:.1f} independent samples: the correlated model "
        f"predicts {last.correlated:.1%} at n = {last.n}, independent samples {last.independent:.1%}, and the data "
        f"measured {curve.points[-1].accuracy:.1%}."
    )
    st.caption(
        "N_eff = n / (1 + (n - 1) rho): correlated samples of a case are worth fewer independent votes. The "
        "correlated prediction is the independent curve read at N_eff instead of n. 'predicted' and 'independent' "
        "count a vote as right or wrong against one wrong answer; 'measured' is the exact plurality vote."
    )
    exports.download_table(neff, "n_eff_table")

    # ------------------------------------------------------------------ next step
    st.subheader("Predict the next step, then check it")
    ks = [k for k in range(3, a.max_n - 1) if k % 2 == 1]
    check = None
    if ks:
        if len(ks) > 1:
            k = st.select_slider(
                "Fit rho on samples per request up to n =",
                options=ks,
                value=ks[-1],
                key="smp_fit",
                bind="query-params",
                help="rho is fitted to the measured curve at odd n up to this value; the check is at n + 2.",
            )
        else:  # one possible value: nothing to choose, no slider
            k = ks[0]
        check = cache.compute(voting.next_step_from_frame, ds, fit_upto=int(k), tie=tie, n_boot=2000, seed=0)
        c1, c2, c3 = st.columns(3)
        c1.metric(
            f"rho model at n = {check.predict_n} (fit on n ≤ {check.fit_upto})",
            f"{check.predicted:.1%}",
            help=f"The independent curve read at N_eff, with rho = {check.rho_fitted:.2f} fitted to the measured curve "
            f"at odd n up to {check.fit_upto}.",
        )
        c2.metric(
            f"measured at n = {check.predict_n}",
            f"{check.measured:.1%}",
            delta=f"{points_between(check.predicted, check.measured)} points vs prediction",
            delta_color="off",
        )
        c3.metric(
            f"beta-binomial at n = {check.predict_n} (fit on n ≤ {check.fit_upto})",
            f"{check.beta_binomial:.1%}",
            help="Each case has its own accuracy, drawn from a beta distribution fitted to each case's first "
            f"{check.fit_upto} samples; like the other models it counts a vote against one wrong answer.",
        )
        st.markdown(md(voting.next_step_sentence(check, a.rho.rho if rho_known else None)))
    else:
        st.info("The check needs at least 5 samples per case (fit on n up to 3, check at n = 5).")

    # ------------------------------------------------------------------ unfixable
    st.subheader("Errors more samples cannot fix")
    from_n = st.number_input(
        "Start from the cases the vote gets wrong at samples per request n =",
        min_value=1,
        max_value=a.max_n,
        value=3,
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
        exports.table(cases, "unfixable_cases", hide_index=True, width="stretch", height=min(400, 38 + 35 * len(cases)))

numbers = [
    ("cases", f"{a.n_cases:,}", f"each with up to {a.max_n} samples per request (n)"),
    ("single-call accuracy", f"{p:.1%}", "exact accuracy at samples per request n = 1"),
    (f"accuracy at n = {a.max_n}", f"{curve.points[-1].accuracy:.1%}", voting.curve_sentence(curve)),
    (
        "rho",
        f"{a.rho.rho:.2f} ({a.rho.ci_low:.2f} to {a.rho.ci_high:.2f})" if rho_known else "n/a",
        voting.rho_sentence(a.rho, a.max_n, measured=curve.points[-1].accuracy),
    ),
    ("what-if rho", f"{rho_what_if:.2f}", what_if),
    (
        "errors more samples cannot fix",
        f"{u.still_wrong} of {u.wrong_at_from_n}, {u.unanimous_wrong} unanimous",
        voting.unfixable_sentence(u),
    ),
]
if check is not None:
    numbers.append(
        (
            "next-step check",
            f"{check.measured:.1%} vs {check.predicted:.1%}",
            voting.next_step_sentence(check, a.rho.rho if rho_known else None),
        )
    )
exports.summary_download(
    "Sampling", {"dataset": ds.name, "tie rule": tie, "what-if rho": rho_what_if}, numbers, [chart]
)
page.finish_page()
