"""Compare's paired view: the verdict and the chart of paired differences first, then the controls, the three
numbers, the test of each pair (its table and method), the cases behind the verdict (:mod:`ui.compare.disagreements`)
and sequential stopping; the accuracy section follows
(:mod:`ui.compare.accuracy`). The words come from ``nkcore.paired.sentences``; every number from
``ui.common.cache.compute``."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.elements.lib.column_types import ColumnConfig

from nkcore import paired
from nkcore.common.formatting import p_value_text
from nkcore.paired import sentences as words
from ui import charts
from ui.charts import paired as charts_paired
from ui.common import cache, datasets, exports
from ui.common.text import md
from ui.compare import controls as compare_controls
from ui.compare import disagreements as compare_disagreements
from ui.compare import sequential as compare_sequential
from ui.compare.accuracy import PairedView

__all__ = ["P_COLUMNS", "draw_pairs"]

# Bound widgets keep their displayed option in the link, so the options are the words themselves.
ADJACENT = compare_controls.ADJACENT
P_COLUMNS = ("exact p", "Holm p", "mid-p", "chi-square p")


def draw_pairs(ds: datasets.Dataset) -> PairedView:
    """Draw the paired view of ``ds`` (results without repeats) and return what the accuracy section takes."""
    table = cache.compute(paired.parse_paired, ds)
    configs = list(table.configs)
    answer_box = st.container()  # the verdict and its chart: filled once the controls below are read
    with st.container(border=True):
        choice = compare_controls.read_controls(
            configs,
            words.ALPHA_HELP,
            "Configs, in order (for example 1, 3, 5, 7 samples per request (n)); each is compared with the next",
        )
    mode, significance, confidence = choice.mode, choice.significance, choice.confidence
    pct = f"{100 * confidence:g}%"
    ordered = None
    holm_p: tuple[float | None, ...]
    if mode == ADJACENT:
        ordered = cache.compute(
            paired.analyse_paired, ds, configs=choice.order, significance=significance, confidence=confidence
        )
        comps, holm_p = ordered.comparisons, ordered.p_holm
        n_cases, dropped, compared = ordered.n_cases, ordered.dropped_cases, ordered.configs
    else:
        pair_table = cache.compute(paired.parse_paired, ds, configs=(choice.a, choice.b))
        comp = cache.compute(paired.compare_frame_pair, ds, a=choice.a, b=choice.b, confidence=confidence)
        comps, holm_p = (comp,), (None,)
        n_cases, dropped, compared = pair_table.n_cases, pair_table.dropped_cases, (comp.config_a, comp.config_b)

    # ------------------------------------------------------------------ the answer, first on the page
    verdicts = [
        paired.verdict_sentence(
            c,
            significance,
            p_adjusted=p_adj if len(comps) > 1 else None,
            comparisons=len(comps) if len(comps) > 1 else None,
        )
        for c, p_adj in zip(comps, holm_p, strict=True)
    ]
    headline = words.headline_sentence(comps, holm_p, significance, n_cases)
    rows = []
    for c in comps:
        label = f"{c.config_a} → {c.config_b}"
        rows.append({"pair": label, "interval": charts_paired.PAIRED, "diff": c.diff,
                     "low": c.diff_ci_low, "high": c.diff_ci_high})  # fmt: skip
        rows.append({"pair": label, "interval": charts_paired.MARGINAL, "diff": c.diff,
                     "low": c.unpaired_ci_low, "high": c.unpaired_ci_high})  # fmt: skip
    # the chart's spec is cached on its rows' content; the chart itself is built only when an export is clicked
    diff_rows = pd.DataFrame(rows)
    diff_spec = cache.chart_spec(charts_paired.difference_chart, diff_rows)

    def diff_chart() -> alt.LayerChart:
        return charts_paired.difference_chart(diff_rows)

    trend_note = paired.ordering_sentence(ordered) if ordered is not None else ""
    with answer_box:
        st.markdown(f"**{md(headline)}**")
        charts.draw(diff_spec)
        if len(comps) > 1:
            st.markdown("\n".join(f"- {md(v)}" for v in verdicts))
        if trend_note:  # only when the accuracies rise (or fall) in the listed order: else no trend to warn about
            st.info(md(trend_note), icon=":material/trending_up:")
        st.caption(f"Dataset: {md(ds.name)}. {words.cases_note(n_cases, dropped)}")
        with st.expander("How to read this", icon=":material/help:"):
            st.markdown(words.verdict_note(significance, several=len(comps) > 1))
            st.markdown(words.chart_note(confidence))

    m1, m2, m3 = st.columns(3)
    m1.metric("paired cases", f"{n_cases:,}", help="cases every compared config has a result for")
    m2.metric("configs compared", len(compared))
    m3.metric(
        "cases left out",
        f"{dropped:,}",
        help="cases without a result for every compared config, left out so that all are compared on the same cases",
    )

    # ------------------------------------------------------------------ the tests behind each verdict
    st.subheader("The test of each pair")
    tests = [
        {
            "A → B": f"{c.config_a} → {c.config_b}",
            "only A right": c.a_only,
            "only B right": c.b_only,
            "difference (points)": 100 * c.diff,
            # two numbers, not "+1.0 to +13.0": text starting with + or - is shown defused ("'+1.0") by csv_safe
            f"{pct} interval from": 100 * c.diff_ci_low,
            "to": 100 * c.diff_ci_high,
            "exact p": c.p_exact,
            "mid-p": c.p_midp,
            "chi-square p": c.p_chi2_cc,
            "Holm p": p_adj,
        }
        for c, p_adj in zip(comps, holm_p, strict=True)
    ]
    tests_df = pd.DataFrame(tests)
    if ordered is None:
        tests_df = tests_df.drop(columns=["Holm p"])
    # The numbers that decide, in one table that fits at 1024 px beside the sidebar: short headers in narrow
    # columns, each header's tooltip saying what it is; the other two p-values of the same test are under "Method".
    main_cols = [c for c in tests_df.columns if c not in ("mid-p", "chi-square p")]
    narrow = 58

    def number(label: str, what: str, fmt: str = "%d") -> ColumnConfig:  # a column_config entry
        return st.column_config.NumberColumn(label, format=fmt, width=narrow, help=what)

    def p_column(label: str, what: str) -> ColumnConfig:
        return st.column_config.TextColumn(label, width=narrow, help=what)

    # p-values read as the page's sentences write them ("0.10", "< 0.001", "1.0"), not "0.1", "1" or "3.4e-05"
    shown = tests_df.assign(**{c: tests_df[c].map(p_value_text) for c in P_COLUMNS if c in tests_df.columns})
    exports.table(
        shown[main_cols],
        "paired_tests",
        download=False,  # the whole table is offered with the chart's images below
        hide_index=True,
        width="stretch",
        column_config={
            "A → B": st.column_config.TextColumn("pair", width=100, pinned=True, help="config A → config B"),
            "only A right": number("A only", words.TEST_HELP["only A right"]),
            "only B right": number("B only", words.TEST_HELP["only B right"]),
            "difference (points)": number("B − A", words.TEST_HELP["difference (points)"], "%+.1f"),
            f"{pct} interval from": number(
                "from", f"lower end of the {pct} paired (exact bootstrap) interval of B − A, in points", "%+.1f"
            ),
            "to": number("to", f"upper end of the {pct} paired interval of B − A, in points", "%+.1f"),
            "exact p": p_column("exact p", words.TEST_HELP["exact p"]),
            "Holm p": p_column("Holm p", words.TEST_HELP["Holm p"]),
        },
    )
    st.caption(
        f"B − A: the difference in accuracy in percentage points, with its {pct} paired interval (from, to). "
        "exact p decides the verdict" + ("; Holm p adjusts it for testing every adjacent pair." if ordered else ".")
    )
    for c in comps:  # the paired interval covers less often than its level with few discordant cases (issue 53)
        caution = paired.interval_caution(c.discordant, c.n_cases - c.discordant)
        if caution is not None:
            st.caption(":warning: " + md(f"{c.config_a} → {c.config_b}: {caution}."))
    with st.expander("Method: the tests in this table", icon=":material/functions:"):
        st.markdown(words.tests_method_note(confidence, holm=ordered is not None))
        exports.table(
            shown[["A → B", "mid-p", "chi-square p"]],
            "paired_tests_other_p",
            download=False,
            hide_index=True,
            width="content",
            column_config={
                "A → B": st.column_config.TextColumn("pair", help="config A → config B"),
                "mid-p": p_column("mid-p", words.TEST_HELP["mid-p"]),
                "chi-square p": st.column_config.TextColumn("chi-square p", help=words.TEST_HELP["chi-square p"]),
            },
        )
    long_names = {f"{pct} interval from": f"{pct} paired interval from (points)", "to": "to (points)"}
    exports.download_table_and_chart(
        tests_df.rename(columns=long_names),
        "paired_tests",
        diff_chart,
        "paired_differences",
        explains=words.DIFFERENCE_CHART_EXPLAINS,
    )
    compare_disagreements.render(ds, comps, compared, significance)
    compare_sequential.render(ds, comps, significance)

    chance_note = (trend_note, ordered.chance_non_decreasing) if ordered is not None and trend_note else None
    return PairedView(
        ds,
        mode,
        tuple(compared),
        tuple(comps),
        tuple(verdicts),
        significance,
        n_cases,
        dropped,
        chance_note,
        diff_chart,
    )
