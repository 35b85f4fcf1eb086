"""Compare: does config B really score higher than config A on the same cases? (paired tests, exact bootstrap)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore import paired
from ui import cache, charts_paired, datasets, exports, page
from ui.text import md

page.setup_page(
    "Compare",
    "Two configs evaluated on the same cases: does B really score higher than A? Paired tests look only at the "
    "discordant cases, where one config is right and the other wrong, which is where the evidence is.",
)
ds = datasets.choose_dataset("paired")

# Bound widgets keep their displayed option in the link, so the options are the words themselves.
ADJACENT, PAIR = "each config against the next", "one pair of my choice"
INTERVALS = {"Wilson": "wilson", "Clopper-Pearson (exact)": "clopper-pearson"}

with page.user_errors():
    table = cache.compute(paired.parse_paired, ds)
    configs = list(table.configs)
    c1, c2, c3 = st.columns([3, 2, 2])
    mode = c1.radio("What to compare", [ADJACENT, PAIR], horizontal=True, key="cmp_mode", bind="query-params")
    alpha = c2.select_slider(
        "Significance level (alpha)",
        options=[0.01, 0.05, 0.1],
        value=0.05,
        key="cmp_alpha",
        bind="query-params",
        help="A difference counts when McNemar's exact p is below alpha; intervals are at 1 - alpha.",
    )
    ci_label = c3.radio(
        "Interval for each config's accuracy", list(INTERVALS), horizontal=True, key="cmp_ci", bind="query-params"
    )
    ci_method = INTERVALS[ci_label]
    level = 1.0 - alpha
    pct = f"{100 * level:g}%"
    ordered = None
    holm_p: tuple[float | None, ...]
    if mode == ADJACENT:
        order = st.multiselect(
            "Configs, in order (for example 1, 3, 5, 7 samples per request (n)); each is compared with the next",
            configs,
            default=configs,
            key="cmp_configs",
            bind="query-params",
        )
        ordered = cache.compute(
            paired.analyse_paired, ds, configs=tuple(order), alpha=alpha, level=level, ci_method=ci_method
        )
        comps, holm_p, accs = ordered.comparisons, ordered.p_holm, ordered.accuracies
        n_cases, dropped = ordered.n_cases, ordered.dropped_cases
    else:
        p1, p2 = st.columns(2)
        a = p1.selectbox("Config A (the baseline)", configs, index=0, key="cmp_a", bind="query-params")
        b = p2.selectbox(
            "Config B (compared with A)", configs, index=min(1, len(configs) - 1), key="cmp_b", bind="query-params"
        )
        pair_table = cache.compute(paired.parse_paired, ds, configs=(a, b))
        comp = cache.compute(paired.compare_frame_pair, ds, a=a, b=b, level=level, ci_method=ci_method)
        comps, holm_p, accs = (comp,), (None,), (comp.a, comp.b)
        n_cases, dropped = pair_table.n_cases, pair_table.dropped_cases

    m1, m2, m3 = st.columns(3)
    m1.metric("paired cases", f"{n_cases:,}", help="cases every compared config has a result for")
    m2.metric("configs compared", len(accs))
    m3.metric("cases dropped to pair them", f"{dropped:,}")
    st.caption(
        f"Dataset: {md(ds.name)}. Every number below uses the {n_cases:,} cases that all compared configs were run on"
        + (f"; {dropped:,} cases lacked a result for some config and were left out." if dropped else ".")
    )

    # ------------------------------------------------------------------ verdicts
    st.subheader("Verdict for each pair")
    verdicts = []
    for comp, p_adj in zip(comps, holm_p, strict=True):
        text = paired.verdict_sentence(
            comp,
            alpha,
            p_adjusted=p_adj if len(comps) > 1 else None,
            comparisons=len(comps) if len(comps) > 1 else None,
        )
        verdicts.append(text)
        st.markdown(f"- {md(text)}")
    st.caption(
        f"Each verdict rests on McNemar's exact p (a difference counts when p < alpha = {alpha:g}); the interval is "
        f"the {pct} paired bootstrap interval of the difference in accuracy, B minus A, in percentage points."
        + (
            " With several adjacent pairs, Holm's adjustment keeps the chance of any false 'beats' among them below "
            "alpha; a win that does not survive it is marked tentative."
            if len(comps) > 1
            else ""
        )
    )
    trend_note = paired.ordering_sentence(ordered) if ordered is not None else ""
    if trend_note:  # only when the accuracies rise (or fall) in the listed order: otherwise no trend to warn about
        st.info(md(trend_note), icon=":material/trending_up:")

    # ------------------------------------------------------------------ accuracy per config
    st.subheader("Accuracy of each config")
    acc_df = pd.DataFrame(
        [{"config": x.config, "correct": x.correct, "cases": x.n, "accuracy": x.accuracy, "ci_low": x.ci_low,
          "ci_high": x.ci_high} for x in accs]
    )  # fmt: skip
    acc_chart = charts_paired.accuracy_chart(acc_df, pct)
    left, right = st.columns([3, 2])
    left.altair_chart(acc_chart, width="stretch")
    right.markdown("\n".join(f"- {md(paired.accuracy_sentence(x, level))}" for x in accs))
    right.caption(
        "These marginal intervals answer *what is this config's accuracy*. They are the wrong instrument for "
        "comparing configs: cases that are easy (or hard) for every config move all accuracies together and cancel "
        "in a difference, yet each marginal interval is charged for them."
    )

    # ------------------------------------------------------------------ paired differences
    st.subheader("Paired difference of each pair")
    rows, tests = [], []
    for comp, p_adj in zip(comps, holm_p, strict=True):
        label = f"{comp.config_a} → {comp.config_b}"
        rows.append({"pair": label, "interval": "paired (exact bootstrap)", "diff": comp.diff,
                     "low": comp.diff_ci_low, "high": comp.diff_ci_high})  # fmt: skip
        rows.append({"pair": label, "interval": "if the configs were independent (marginal)", "diff": comp.diff,
                     "low": comp.unpaired_ci_low, "high": comp.unpaired_ci_high})  # fmt: skip
        tests.append(
            {
                "A → B": label,
                "only A right": comp.a_only,
                "only B right": comp.b_only,
                "difference (points)": 100 * comp.diff,
                # two numbers, not "+1.0 to +13.0": text starting with + or - is shown defused ("'+1.0") by csv_safe
                f"{pct} interval from": 100 * comp.diff_ci_low,
                "to": 100 * comp.diff_ci_high,
                "exact p": comp.p_exact,
                "mid-p": comp.p_midp,
                "chi-square p": comp.p_chi2_cc,
                "Holm p": p_adj,
            }
        )
    diff_df = pd.DataFrame(rows)
    diff_chart = charts_paired.difference_chart(diff_df)
    st.altair_chart(diff_chart, width="stretch")
    st.caption(
        f"Blue: the {pct} interval from resampling cases with the same resampled cases for both configs, computed "
        "exactly from the distribution of the resampled discordant counts (no Monte Carlo noise). Grey: what the two "
        "marginal intervals imply if the configs were measured on different cases. An interval that crosses the "
        "dashed zero line cannot tell the configs apart."
    )
    tests_df = pd.DataFrame(tests)
    if ordered is None:
        tests_df = tests_df.drop(columns=["Holm p"])
    p_fmt = st.column_config.NumberColumn(format="%.3g")
    exports.table(
        tests_df,
        "paired_tests",
        download=False,  # offered beside the chart below
        hide_index=True,
        width="stretch",
        column_config={c: p_fmt for c in tests_df.columns if c.endswith(" p") or c == "mid-p"}
        | {c: st.column_config.NumberColumn(format="%+.1f") for c in tests_df.columns[3:6]},
    )
    st.caption(
        f"Difference and its {pct} paired interval (from, to) in percentage points, B minus A. "
        "McNemar's test: under *no difference* each discordant case is a fair coin flip. Exact p: two-sided binomial "
        "(it decides the verdict); mid-p: the less conservative exact variant; chi-square p: the large-sample version "
        "with Edwards' continuity correction, applied only when the two discordant counts differ (as R's "
        "mcnemar.test; a balanced table gives p = 1). Holm p adjusts the exact p for testing several adjacent pairs "
        "at once, so that the chance of any false 'beats' among them stays below alpha."
    )
    long_names = {f"{pct} interval from": f"{pct} paired interval from (points)", "to": "to (points)"}
    exports.download_table_and_chart(
        tests_df.rename(columns=long_names), "paired_tests", diff_chart, "paired_differences"
    )

    # ------------------------------------------------------------------ discordance tables
    st.subheader("Discordance table of each pair")
    tabs = st.tabs([md(f"{c.config_a} → {c.config_b}") for c in comps])
    for i, (tab, comp) in enumerate(zip(tabs, comps, strict=True)):
        with tab:
            two_by_two = pd.DataFrame(
                {
                    f"{comp.config_b} right": [comp.both_correct, comp.b_only],
                    f"{comp.config_b} wrong": [comp.a_only, comp.both_wrong],
                },
                index=pd.Index(
                    [f"{comp.config_a} right", f"{comp.config_a} wrong"], name=f"{comp.config_a} \\ {comp.config_b}"
                ),
            ).reset_index()
            exports.table(
                two_by_two, f"discordance_{i + 1}_{comp.config_a}_{comp.config_b}", hide_index=True, width="content"
            )
            st.markdown(md(paired.marginal_sentence(comp)))

numbers = [("paired cases", f"{n_cases:,}", f"{dropped:,} cases dropped to pair the configs")]
numbers += [
    (x.config, f"{100 * x.accuracy:.1f}%", paired.accuracy_sentence(x, level)) for x in accs
]  # fmt: skip
numbers += [
    (f"{c.config_a} → {c.config_b}", f"{100 * c.diff:+.1f} points", v) for c, v in zip(comps, verdicts, strict=True)
]
if ordered is not None and paired.ordering_sentence(ordered):
    numbers.append(
        ("ordering by luck", f"1 in {round(1 / ordered.chance_non_decreasing):,}", paired.ordering_sentence(ordered))
    )
exports.summary_download(
    "Compare",
    {"dataset": ds.name, "compare": mode, "alpha": alpha, "interval": ci_label},
    numbers,
    [acc_chart, diff_chart],
)
page.finish_page()
