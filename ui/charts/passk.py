"""Altair builder for the pass@k section of the Sampling page (a data frame in, a chart out; no statistics here)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.charts import PADDING, PALETTE, bottom_legend, title

PASS_AT_K = "at least one of k right (pass@k)"
MAJORITY_AT_K = "majority of k right (majority vote)"
PASS_HAT_K = "all k right (pass^k)"
SERIES_COLORS = {PASS_AT_K: PALETTE[2], MAJORITY_AT_K: PALETTE[0], PASS_HAT_K: PALETTE[1]}


def passk_chart(curves: pd.DataFrame) -> alt.LayerChart:
    """pass@k, majority@k and pass^k against samples per case (k), each a line with its 95% interval band.

    ``curves``: long, columns k, series (names as in :data:`SERIES_COLORS`), value, ci_low, ci_high, n_cases.
    """
    domain = [s for s in SERIES_COLORS if s in set(curves["series"])]
    color = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[SERIES_COLORS[d] for d in domain]),
        legend=_legend(len(domain)),
        sort=domain,
    )
    x = alt.X("k:Q", title="samples per case (k)", axis=alt.Axis(tickMinStep=1, format="d"))
    base = alt.Chart()
    band = base.mark_area(opacity=0.15).encode(
        x=x,
        y=alt.Y("ci_low:Q", title="share of cases", axis=alt.Axis(format=".0%"), scale=alt.Scale(domain=[0, 1])),
        y2=alt.Y2("ci_high"),
        color=color,
    )
    line = base.mark_line(point=alt.OverlayMarkDef(size=50, filled=True), strokeWidth=2.5).encode(
        x=x,
        y=alt.Y("value:Q"),
        color=color,
        tooltip=[
            alt.Tooltip("series:N", title="reading"),
            alt.Tooltip("k:Q", title="samples per case (k)"),
            alt.Tooltip("value:Q", title="share of cases", format=".1%"),
            alt.Tooltip("ci_low:Q", title="95% interval from", format=".1%"),
            alt.Tooltip("ci_high:Q", title="95% interval to", format=".1%"),
            alt.Tooltip("n_cases:Q", title="cases with k samples", format=","),
        ],
    )
    # one frame shared by both layers (sent once), only the columns the marks and tooltips read
    data = curves[["k", "series", "value", "ci_low", "ci_high", "n_cases"]]
    return alt.LayerChart(data=data, layer=[band, line]).properties(
        height=340,
        padding=PADDING,
        title=title("At least one right, majority right, all right", "against samples per case (k)"),
    )


def _legend(items: int) -> alt.Legend:
    """The bottom legend (:func:`ui.charts.bottom_legend`: columns follow the width) drawing the lines (solid
    strokes), not the faint bands that share the colour scale."""
    legend = bottom_legend(items, item_px=290)
    legend.symbolType = "stroke"
    legend.symbolStrokeWidth = 3
    legend.symbolOpacity = 1
    return legend
