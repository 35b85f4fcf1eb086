"""Differences between configs on the human scale, corrected by human labels (PPI on per-case differences when the
configs share cases), beside the humans-only and judge-only differences."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from nkcore.judge import JudgeReport
from ui import charts
from ui.common import cache, exports

__all__ = ["draw_pairs", "pair_table"]


def pair_table(report: JudgeReport) -> pd.DataFrame:
    """One row per pair of configs (A minus B), numbers as the JSON document has them."""
    nan = math.nan
    return pd.DataFrame(
        [
            {
                "pair": f"{p.config_a} - {p.config_b}",
                "corrected difference": p.ppi.estimate,
                "from": p.ppi.ci_low,
                "to": p.ppi.ci_high,
                "p": p.p_value,
                "humans only": p.human_only.estimate if p.human_only is not None else nan,
                "judge only": p.judge_only.estimate if p.judge_only is not None else nan,
                "human labels": p.n_human,
                "paired by case": "yes" if p.paired else "no",
            }
            for p in report.pairs
        ]
    )


def draw_pairs(report: JudgeReport) -> None:
    """The corrected differences (a chart with 0 marked, and the table)."""
    if not report.pairs:
        return
    pct = f"{100 * report.confidence:g}%"
    st.subheader("Differences between configs, corrected", anchor="pairs")
    table = pair_table(report)
    spec = cache.chart_spec(
        charts.interval_dots,
        table,
        "pair",
        "corrected difference",
        "from",
        "to",
        value_title="A minus B, human scale",
        value_format=".2f",
        zero_rule=True,
        title=charts.split_title(f"Corrected difference between configs, {pct} interval"),
        label_title="A - B",
    )
    charts.draw(spec)
    fmt = {
        c: st.column_config.NumberColumn(format="%.3f")
        for c in ("corrected difference", "from", "to", "humans only", "judge only")
    }
    fmt["p"] = st.column_config.NumberColumn(format="%.2g")
    exports.table(table, "judge_pairs", hide_index=True, width="stretch", column_config=fmt)
    paired = any(p.paired for p in report.pairs)
    st.caption(
        f"An interval entirely above 0 (dashed) says A scores higher than B on the human scale, at {pct}. "
        + (
            "The configs share cases, so each difference is taken case by case: the human labels of a case for both "
            "configs, the judge's scores elsewhere. "
            if paired
            else "The configs have cases of their own, so each difference is of two independent corrected means. "
        )
        + "**p**: the chance of a difference this large if the configs were equal on the human scale. **humans only** "
        "and **judge only**: the same difference from the labels alone and from the judge alone."
    )
