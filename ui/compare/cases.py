"""The Compare page on results with repeats (epochs) or partial scores: the case is the unit.

Drawn instead of the McNemar view when the chosen dataset has a repeat column or scores between 0 and 1
(:func:`nkcore.paired.has_repeats`): the same controls under the same link keys, the verdict from the sign-flip test
on the case means (:func:`nkcore.paired.compare_cases`, Holm over adjacent pairs as elsewhere), the case-bootstrap
interval, the unit named in the headline and what the repeats bought; then the tests, the cases behind the verdict
(:mod:`ui.compare.disagreements`) and sequential stopping. Every number comes from
``ui.common.cache.compute``.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.elements.lib.column_types import ColumnConfig

from nkcore import paired
from nkcore.common.formatting import p_value_text, points
from nkcore.paired import case_sentences as case_words
from nkcore.paired import sentences as words
from ui import charts
from ui.charts import paired as charts_paired
from ui.common import cache, datasets, exports
from ui.common.text import md
from ui.compare import controls as compare_controls
from ui.compare import disagreements as compare_disagreements
from ui.compare import sequential as compare_sequential

ADJACENT = compare_controls.ADJACENT


def render(ds: datasets.Dataset, table: paired.CaseTable) -> None:
    """The whole case-level Compare view for dataset ``ds`` (parsed as ``table``)."""
    configs = list(table.configs)
    word = paired.repeat_word(table.repeat_column)
    answer_box = st.container()
    with st.container(border=True):
        choice = compare_controls.read_controls(
            configs,
            "alpha, the significance level: a difference counts when the sign-flip test's p on the case means is "
            "below alpha, and every interval is at 1 - alpha (95% for alpha = 0.05).",
            "Configs, in order; each is compared with the next",
        )
    mode, significance, confidence = choice.mode, choice.significance, choice.confidence
    holm_p: tuple[float | None, ...]
    if mode == ADJACENT:
        ordered = cache.compute(
            paired.analyse_cases, ds, configs=choice.order, significance=significance, confidence=confidence
        )
        comps, holm_p = ordered.comparisons, ordered.p_holm
        means = ordered.means
    else:
        one = cache.compute(paired.compare_frame_cases, ds, a=choice.a, b=choice.b, confidence=confidence)
        comps, holm_p, means = (one,), (None,), (one.a, one.b)
    first = comps[0]
    pct = f"{100 * confidence:g}%"
    headline = case_words.case_headline_sentence(comps, holm_p, significance, word)
    rows = []
    for c in comps:
        label = f"{c.config_a} → {c.config_b}"
        rows.append({"pair": label, "interval": charts_paired.PAIRED, "diff": c.diff, "low": c.diff_ci_low,
                     "high": c.diff_ci_high})  # fmt: skip
        rows.append({"pair": label, "interval": charts_paired.MARGINAL, "diff": c.diff, "low": c.unpaired_ci_low,
                     "high": c.unpaired_ci_high})  # fmt: skip
    diff_rows = pd.DataFrame(rows)
    diff_spec = cache.chart_spec(charts_paired.difference_chart, diff_rows)

    def diff_chart() -> alt.LayerChart:
        return charts_paired.difference_chart(diff_rows)

    with answer_box:
        st.markdown(f"**{md(headline)}**")
        charts.draw(diff_spec)
        if len(comps) > 1:
            st.markdown("\n".join(f"- {md(case_words.case_verdict_sentence(c, significance, word))}" for c in comps))
        bought = case_words.repeats_sentence(first, word)  # the first pair's: the box shows one
        if bought:
            st.info(md(bought), icon=":material/repeat:")
        st.caption(f"Dataset: {md(ds.name)}. {words.cases_note(first.n_cases, first.dropped_cases)}")
        with st.expander("How to read this", icon=":material/help:"):
            st.markdown(md(case_words.REPEATS_HELP))
            st.markdown(
                f"**The chart.** The {pct} interval of the difference in mean score, in percentage points, drawn as "
                "the verdict reads it (winner minus loser: the config with the higher mean score minus the other), "
                "from resampling whole cases with all their repeats, "
                + (
                    "computed exactly on the lattice the case means lie on (no Monte Carlo noise)."
                    if all(c.ci_method == "exact" for c in comps)
                    else "computed on the case means rounded to a fine lattice (each end within "
                    f"{100 * max(c.ci_error for c in comps):.2g} points of the exact one)."
                )
            )
    v = first.components
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("paired cases", f"{first.n_cases:,}", help="cases every compared config has a result for")
    lo = min(x.repeats_min for x in means)
    hi = max(x.repeats_max for x in means)
    m2.metric(f"{word}s per case", f"{lo}" if lo == hi else f"{lo}-{hi}", help=f"how often each case was run ({word}s)")
    m3.metric(
        "effective cases",
        f"{v.effective_cases:,.0f}",
        help="effective number of cases: cases x repeats / design effect, where the design effect 1 + (repeats - 1) x "
        "intra-case correlation says how much repeats of one case overlap (first pair)",
    )
    m4.metric("cases left out", f"{first.dropped_cases:,}", help="cases without a result for every compared config")

    st.subheader("The test of each pair")
    tests = pd.DataFrame(
        [
            {
                "A → B": f"{c.config_a} → {c.config_b}",
                "B higher": c.b_better,
                "A higher": c.a_better,
                "difference (points)": 100 * c.diff,
                f"{pct} interval from": 100 * c.diff_ci_low,
                "to": 100 * c.diff_ci_high,
                "p": c.p_value,
                "Holm p": p_adj,
            }
            for c, p_adj in zip(comps, holm_p, strict=True)
        ]
    )
    if len(comps) == 1:
        tests = tests.drop(columns=["Holm p"])
    shown = tests.assign(**{c: tests[c].map(p_value_text) for c in ("p", "Holm p") if c in tests.columns})

    def number(label: str, what: str, fmt: str = "%d") -> ColumnConfig:
        return st.column_config.NumberColumn(label, format=fmt, width=58, help=what)

    exports.table(
        shown,
        "case_tests",
        download=False,
        hide_index=True,
        width="stretch",
        column_config={
            "A → B": st.column_config.TextColumn("pair", width=180, pinned=True, help="config A → config B"),
            "B higher": number("B higher", "cases whose mean score is higher for B"),
            "A higher": number("A higher", "cases whose mean score is higher for A"),
            "difference (points)": number(
                "B − A", "mean over cases of (B's case mean − A's case mean), in points", "%+.1f"
            ),
            f"{pct} interval from": number("from", f"lower end of the {pct} case-bootstrap interval", "%+.1f"),
            "to": number("to", f"upper end of the {pct} case-bootstrap interval", "%+.1f"),
            "p": st.column_config.TextColumn(
                "p", width=58, help="the sign-flip test on the per-case differences (decides the verdict)"
            ),
            "Holm p": st.column_config.TextColumn(
                "Holm p", width=58, help=words.TEST_HELP["Holm p"].replace("the exact p", "the p")
            ),
        },
    )
    st.caption(
        f"B − A: the difference in mean score in percentage points, with its {pct} case-bootstrap interval. "
        f"p: the {paired.CASE_TEST} ("
        + ("exact" if all(c.p_method == "exact" for c in comps) else "Monte Carlo or its normal form for many cases")
        + ")"
        + ("; Holm p adjusts it for testing every adjacent pair." if len(comps) > 1 else ".")
    )
    for c in comps:  # the case-bootstrap interval covers less often than its level with few differing cases
        caution = paired.interval_caution(c.b_better + c.a_better, repeats=True)
        if caution is not None:
            st.caption(":warning: " + md(f"{c.config_a} → {c.config_b}: {caution}."))
    st.subheader("Mean score of each config")
    acc_df = pd.DataFrame(
        [{"config": x.config, "correct": x.scores, "cases": x.n_cases, "accuracy": x.mean, "ci_low": x.ci_low,
          "ci_high": x.ci_high} for x in means]
    )  # fmt: skip
    st.markdown(
        "\n".join(
            f"- {md(x.config)}: {100 * x.mean:.1f}% mean score over {x.n_cases:,} cases ({x.scores:,} scores; {pct} "
            f"case-bootstrap interval {100 * x.ci_low:.1f}% to {100 * x.ci_high:.1f}%)"
            for x in means
        )
    )
    exports.download_table_and_chart(tests, "case_tests", diff_chart, "paired_differences")
    compared = choice.order if mode == ADJACENT else (choice.a, choice.b)
    compare_disagreements.render(ds, comps, compared, significance, word)
    compare_sequential.render(ds, comps, significance)
    numbers = [("paired cases", f"{first.n_cases:,}", case_words.unit_sentence(first, word))]
    numbers += [(x.config, f"{100 * x.mean:.1f}%", f"mean score over {x.n_cases:,} cases") for x in means]
    numbers += [
        (
            f"{c.config_a} → {c.config_b}",
            f"{points(c.diff)} points",
            case_words.case_verdict_sentence(c, significance, word),
        )
        for c in comps
    ]
    exports.summary_download(
        "Compare",
        {"dataset": ds.name, "compare": mode, "alpha": significance},
        numbers,
        [diff_chart, lambda: charts_paired.accuracy_chart(acc_df, pct)],
    )
