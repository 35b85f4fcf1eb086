"""Each config's mean on the human scale, three ways (corrected, humans only, judge only) with the effective human
labels; the judge's bias per config and whether it differs between configs; the downloads (the table as CSV, the
report as the CLI's JSON)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from nkcore.cli.common import to_jsonable
from nkcore.common.formatting import format_p
from nkcore.judge import JudgeReport, judge_doc
from nkcore.judge.ppi import T_BELOW
from nkcore.judge.sentences import bias_words, num
from ui import charts
from ui.charts import judge as judge_chart
from ui.common import cache, exports
from ui.common.text import md

__all__ = [
    "LESS_RELIABLE",
    "config_table",
    "doc_json",
    "draw_bias",
    "draw_configs",
    "draw_downloads",
    "interval_rows",
    "interval_words",
    "sparse_words",
]

LESS_RELIABLE = "⚠ less reliable"
WIDENED = "ⓘ widened: few of one verdict"
"""Beside a corrected interval in the case where the benchmark's coverage stays below 93% (docs/judge.md)."""


def config_table(report: JudgeReport) -> pd.DataFrame:
    """One row per config, numbers as the JSON document has them (human scale)."""
    return pd.DataFrame(
        [
            {
                "config": c.config,
                "cases": c.n_cases,
                "human labels": c.n_human,
                "corrected mean": c.ppi.estimate,
                "corrected from": c.ppi.ci_low,
                "corrected to": c.ppi.ci_high,
                "humans only": c.human_only.estimate,
                "humans only from": c.human_only.ci_low,
                "humans only to": c.human_only.ci_high,
                "judge only": c.judge_only.estimate,
                "judge bias": c.bias.estimate,
                "labels the judge is worth": c.effective_human_labels,
                "interval": c.interval,
                "less reliable": c.less_reliable,
                "widened because": c.sparse_note,
            }
            for c in report.configs
        ]
    )


def _interval(lo: float, hi: float) -> str:
    return f"({num(lo)} to {num(hi)})"  # in brackets: a text cell never starts with a minus sign (csv_safe)


def interval_rows(report: JudgeReport) -> pd.DataFrame:
    """The chart's rows: three per config (:data:`ui.charts.judge.METHODS`)."""
    rows = []
    for c in report.configs:
        for method, iv in zip(judge_chart.METHODS, (c.ppi, c.human_only, c.judge_only), strict=True):
            rows.append(
                {
                    "config": c.config,
                    "method": method,
                    "estimate": iv.estimate,
                    "ci_low": iv.ci_low,
                    "ci_high": iv.ci_high,
                }
            )
    return pd.DataFrame(rows)


def interval_words(report: JudgeReport) -> str:
    """Which interval the corrected numbers use, and why, in plain words."""
    t = [c for c in report.configs if c.interval == "t"]
    if report.interval == "normal":
        return "Corrected intervals: the normal interval of prediction-powered inference, as asked."
    if report.interval == "t":
        return "Corrected intervals: the wider small-sample (t) interval for every config, as asked."
    if not t:
        return (
            f"Corrected intervals: the normal interval of prediction-powered inference, since every config has at "
            f"least {T_BELOW} human labels."
        )
    which = "every config" if len(t) == len(report.configs) else f"{len(t)} of {len(report.configs)} configs"
    verb = "have" if 1 < len(t) < len(report.configs) else "has"
    return (
        f"Corrected intervals: {which} {verb} fewer than {T_BELOW} human labels, so "
        "they use the wider small-sample (t) interval: with so few labels the usual (normal) one is too narrow and "
        f"misses the true value more often than {100 - 100 * report.confidence:g}% of the time."
    )


def sparse_words(report: JudgeReport) -> str | None:
    """Which configs have few of one verdict (few 1s, few 0s or few judge-human disagreements) and what their
    interval is then (else None)."""
    few = [c for c in report.configs if c.sparse_note]
    if not few:
        return None
    listed = "; ".join(f"{md(c.config)}: {c.sparse_note}" for c in few[:5]) + (
        f"; and {len(few) - 5} more" if len(few) > 5 else ""
    )
    return (
        f"**Widened intervals (few of one verdict):** {listed}. With so few, the usual interval would be too narrow "
        "and miss the true value too often, so these use a widened one (as if a few extra people had answered each "
        "way), or the people's answers alone with an exact interval when that is narrower. In our simulations these "
        f"held the true value about 94% of the time or more for a {100 * report.confidence:g}% interval."
    )


def draw_configs(report: JudgeReport) -> None:
    """The chart of three intervals per config, the table, and what each column means."""
    pct = f"{100 * report.confidence:g}%"
    st.subheader("Each config: the judge corrected by human labels", anchor="configs")
    spec = cache.chart_spec(judge_chart.three_intervals, interval_rows(report), report.judge)
    charts.draw(spec)
    st.caption(
        f"Dots are means on the human labels' scale; bars are {pct} intervals. **Corrected** (blue): the judge's "
        "score on every case, with the judge's error measured on the human-labelled cases and taken off "
        "(prediction-powered inference, PPI++). **Humans only** (red): the labelled cases alone. **Judge only** "
        "(grey): the judge's mean with no correction; its interval is narrow but says nothing about the judge's bias, "
        "so it can miss the human value entirely."
    )
    table = config_table(report)
    interval = f"{pct} interval"
    shown = table.assign(
        labelled=[f"{h:,} of {n:,}" for h, n in zip(table["human labels"], table["cases"], strict=True)],
        corrected_interval=[
            _interval(lo, hi) + (f" {LESS_RELIABLE}" if flag else "") + (f" {WIDENED}" if note else "")
            for lo, hi, flag, note in zip(
                table["corrected from"],
                table["corrected to"],
                table["less reliable"],
                table["widened because"],
                strict=True,
            )
        ],
        humans_interval=[
            _interval(lo, hi) for lo, hi in zip(table["humans only from"], table["humans only to"], strict=True)
        ],
    )
    fmt: dict[str, Any] = {
        c: st.column_config.NumberColumn(format="%.3f")
        for c in ("corrected mean", "humans only", "judge only", "judge bias")
    }
    fmt["labels the judge is worth"] = st.column_config.NumberColumn("worth (labels)", format="%.0f")
    fmt["labelled"] = st.column_config.TextColumn("human labels")
    fmt["corrected_interval"] = st.column_config.TextColumn(interval)
    fmt["humans_interval"] = st.column_config.TextColumn(interval + " ")
    order = [
        "config",
        "labelled",
        "corrected mean",
        "corrected_interval",
        "humans only",
        "humans_interval",
        "judge only",
        "judge bias",
        "labels the judge is worth",
    ]
    exports.table(
        shown, "judge_configs", download=False, hide_index=True, width="stretch", column_config=fmt, column_order=order
    )
    st.caption(interval_words(report))
    few = sparse_words(report)
    if few:
        st.info(few, icon=":material/info:")
    st.caption(
        "**human labels**: cases a human labelled, of the cases the judge scored. **corrected mean** with its "
        f"{pct} interval: the answer on the human scale. **humans only**: the labels alone. **judge only**: "
        "the judge's raw mean. **judge bias** = judge minus human on the labelled cases (above 0: the judge is kinder "
        "than people). **labels the judge is worth** (effective human labels): how many human labels alone would give "
        "an interval as narrow as the corrected one. The CSV below has every number unrounded."
    )


def draw_bias(report: JudgeReport) -> None:
    """The judge's bias per config and, with several configs, whether it differs between them (then judge-only
    rankings may flip)."""
    st.subheader("Is the judge equally fair to every config?", anchor="bias")
    rows = pd.DataFrame(
        {
            "config": [c.config for c in report.configs],
            "bias": [c.bias.estimate for c in report.configs],
            "lo": [c.bias.ci_low for c in report.configs],
            "hi": [c.bias.ci_high for c in report.configs],
        }
    )
    pct = f"{100 * report.confidence:g}%"
    if len(report.configs) > 1:
        md_pair = report.bias.most_different()
        if report.bias.differs and md_pair is not None:
            favoured = md_pair.config_a if md_pair.difference > 0 else md_pair.config_b
            flips = (
                " Here the judge alone orders "
                + ", ".join(f"{md(a)} above {md(b)}" for a, b in report.flips[:4])
                + ", and the human-corrected numbers say the opposite."
                if report.flips
                else ""
            )
            bias = {c.config: c.bias.estimate for c in report.configs}
            st.warning(
                f"The judge's bias differs between configs: it favours {md(favoured)}. It scores "
                f"{md(md_pair.config_a)} {bias_words(bias[md_pair.config_a])} and {md(md_pair.config_b)} "
                f"{bias_words(bias[md_pair.config_b])} (a gap this size by chance: Holm-adjusted "
                f"{format_p(md_pair.p_holm)}). A ranking by the judge alone may flip.{flips}",
                icon=":material/warning:",
            )
        elif report.flips:
            st.info(
                "The judge looks equally fair to every config: how much it over- or under-scores differs between "
                f"configs no more than chance would explain (Holm-adjusted tests at {100 * report.significance:g}%). "
                f"Yet the judge alone orders {len(report.flips)} pair(s) of configs the other way round from the "
                "corrected numbers: those configs are close, and the judge's noise is enough to swap them. Rank by the "
                "corrected means.",
                icon=":material/info:",
            )
        else:
            st.success(
                "The judge looks equally fair to every config (how much it over- or under-scores differs between "
                f"configs no more than chance would explain; Holm-adjusted tests at {100 * report.significance:g}%), "
                "and the judge alone orders them as the corrected numbers do; its level may still be off.",
                icon=":material/check_circle:",
            )
    spec = cache.chart_spec(
        charts.interval_dots,
        rows,
        "config",
        "bias",
        "lo",
        "hi",
        value_title="judge minus human (human scale)",
        value_format=".2f",
        zero_rule=True,
        title=charts.split_title("The judge's bias against the humans, per config"),
    )
    charts.draw(spec)
    st.caption(
        f"Bias = mean of (judge score - human score) on the cases a human labelled, with its {pct} interval. 0 (dashed) "
        "means the judge agrees with people on average. A bias that is the same for every config shifts every judge-only "
        "number alike; a bias that differs between configs favours one of them."
    )


def doc_json(report: JudgeReport) -> str:
    """The report as ``python -m nkcore judge --json`` writes it (NaN as null, ASCII)."""
    return json.dumps(to_jsonable(judge_doc(report)), indent=2, ensure_ascii=True)


def draw_downloads(report: JudgeReport) -> None:
    """The per-config table (CSV) and the whole report as JSON, equal to the CLI's."""
    st.subheader("Downloads", anchor="downloads")
    c1, c2 = st.columns(2)
    with c1:
        exports.download_table(config_table(report), "judge_configs", label="Per-config table (CSV)")
    c2.download_button(
        "All numbers (JSON)",
        data=doc_json(report),
        file_name=exports.file_name("judge_report", "json"),
        mime="application/json",
        key="dl_json_judge_report",
        on_click="ignore",
        icon=":material/download:",
        help="The same document as `python -m nkcore judge FILE ... --json` with these columns and prices.",
    )
