"""Judges page charts: each config's mean three ways (corrected by human labels, humans only, judge only), each with
its interval, on the human scale."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.charts import EXPORT_WIDTH, NAME_LABEL_PX, PADDING, PALETTE, bottom_legend, name_labels, title

__all__ = ["METHODS", "three_intervals"]

METHODS: tuple[str, ...] = (
    "judge corrected by human labels (PPI)",
    "human labels only",
    "judge only",
)
"""The three ways to estimate a config's mean, in the chart's order (legend and rows)."""
ROW_STEP = 20
"""Height (px) of one interval: a config's band holds three."""


def three_intervals(rows: pd.DataFrame, judge: str) -> alt.LayerChart:
    """One band per config (``config``), three intervals in it, one per ``method`` (:data:`METHODS`): ``estimate``
    with ``ci_low`` to ``ci_high``. The corrected one is the answer; the judge-only one shows how far the judge alone
    is off (its interval says nothing about that bias)."""
    names = name_labels(rows["config"].tolist())
    data = rows.assign(_axis=list(names.short))
    colors = alt.Scale(domain=list(METHODS), range=[PALETTE[0], PALETTE[1], "#999999"])
    base = alt.Chart(
        data,
        title=title("Mean on the human scale, three ways", f"judge: {judge}"),
    ).encode(
        y=alt.Y(
            "_axis:N",
            title="config" + (f" ({names.common})" if names.common else ""),
            sort=None,
            axis=alt.Axis(labelLimit=NAME_LABEL_PX, labelPadding=6),
        ),
        yOffset=alt.YOffset("method:N", sort=list(METHODS), scale=alt.Scale(paddingInner=0.2)),
        color=alt.Color("method:N", scale=colors, sort=list(METHODS), title=None, legend=bottom_legend(3, 300)),
    )
    tooltip = [
        alt.Tooltip("config:N"),
        alt.Tooltip("method:N"),
        alt.Tooltip("estimate:Q", format=".3f"),
        alt.Tooltip("ci_low:Q", format=".3f", title="interval from"),
        alt.Tooltip("ci_high:Q", format=".3f", title="interval to"),
    ]
    rule = base.mark_rule(strokeWidth=3).encode(
        x=alt.X("ci_low:Q", title="mean score, on the human labels' scale", scale=alt.Scale(zero=False)),
        x2=alt.X2("ci_high"),
        tooltip=tooltip,
    )
    dot = base.mark_point(filled=True, size=70, opacity=1).encode(x=alt.X("estimate:Q"), tooltip=tooltip)
    n = max(1, data["config"].nunique())
    return alt.LayerChart(layer=[rule, dot]).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=(3 * ROW_STEP + 12) * n
    )
