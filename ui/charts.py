"""One Altair theme for every chart, and the chart builders more than one page uses.

Page-specific builders live in ``ui/charts_<topic>.py``. Builders return Altair charts; pages draw them with
``st.altair_chart(chart, width="stretch")`` and offer them with ``ui.exports.download_chart``.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

FONT = "Source Sans Pro, Helvetica, Arial, sans-serif"
PALETTE = ["#1f5aa6", "#d1495b", "#00798c", "#edae49", "#66a182", "#8d96a3", "#2e4057"]
SIGNIFICANT = "#1f5aa6"
NOT_SIGNIFICANT = "#8d96a3"


def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "font": FONT,
            "view": {"stroke": None},
            "axis": {"labelFontSize": 12, "titleFontSize": 13, "gridColor": "#e8e8e8", "titleFontWeight": "normal"},
            "legend": {"labelFontSize": 12, "titleFontSize": 12, "orient": "bottom"},
            "title": {"fontSize": 14, "anchor": "start", "fontWeight": "normal"},
            "range": {"category": PALETTE},
        }
    }


def enable_theme() -> None:
    """Register and enable the NK Planner theme (idempotent)."""
    if "nkplanner" not in alt.theme.names():
        alt.theme.register("nkplanner", enable=False)(_theme)
    if alt.theme.active != "nkplanner":
        alt.theme.enable("nkplanner")


def line_with_band(
    data: pd.DataFrame,
    x: str,
    y: str,
    lo: str,
    hi: str,
    *,
    color: str | None = None,
    x_title: str,
    y_title: str,
    y_format: str = ".0%",
    title: str = "",
) -> alt.LayerChart:
    """A line with points and a shaded interval band (``lo`` to ``hi``), one colour per ``color`` group."""
    enc_color = alt.Color(f"{color}:N", title=None) if color else alt.value(PALETTE[0])
    base = alt.Chart(data, title=title).encode(
        x=alt.X(f"{x}:Q", title=x_title),
        color=enc_color,
    )
    band = base.mark_area(opacity=0.18).encode(
        y=alt.Y(f"{lo}:Q", title=y_title, axis=alt.Axis(format=y_format)), y2=f"{hi}:Q"
    )
    tooltip = [alt.Tooltip(f"{x}:Q"), alt.Tooltip(f"{y}:Q", format=y_format)]
    tooltip += [alt.Tooltip(f"{lo}:Q", format=y_format), alt.Tooltip(f"{hi}:Q", format=y_format)]
    line = base.mark_line(point=True).encode(y=alt.Y(f"{y}:Q"), tooltip=tooltip)
    return alt.LayerChart(layer=[band, line]).properties(height=320)


def interval_dots(
    data: pd.DataFrame,
    label: str,
    value: str,
    lo: str,
    hi: str,
    *,
    value_title: str,
    value_format: str = ".0%",
    zero_rule: bool = False,
    title: str = "",
) -> alt.LayerChart:
    """Horizontal dot-and-whisker chart: one row per ``label``, ``value`` with its interval ``lo``-``hi``."""
    base = alt.Chart(data, title=title).encode(y=alt.Y(f"{label}:N", title=label, sort=None))
    whisker = base.mark_rule(strokeWidth=2, color=PALETTE[0]).encode(
        x=alt.X(f"{lo}:Q", title=value_title, axis=alt.Axis(format=value_format)), x2=f"{hi}:Q"
    )
    tooltip = [alt.Tooltip(f"{label}:N")] + [alt.Tooltip(f"{c}:Q", format=value_format) for c in (value, lo, hi)]
    dot = base.mark_point(filled=True, size=80, color=PALETTE[0]).encode(x=f"{value}:Q", tooltip=tooltip)
    layers: list[alt.Chart] = [whisker, dot]
    if zero_rule:
        layers.append(
            alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color="#444", strokeDash=[4, 3]).encode(x="zero:Q")
        )
    # Streamlit fits title, axis and legend into the height: 110 px of furniture plus 45 px a row.
    return alt.LayerChart(layer=layers).properties(height=110 + 45 * max(1, len(data)))
