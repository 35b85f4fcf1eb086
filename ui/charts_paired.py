"""Altair builders for the Compare and Planner pages (data frames in, charts out; no statistics here)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.charts import NOT_SIGNIFICANT, PALETTE, SIGNIFICANT, interval_dots

INTERVAL_COLORS = {
    "paired (exact bootstrap)": SIGNIFICANT,
    "if the configs were independent (marginal)": NOT_SIGNIFICANT,
}

_TICKS = (10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000)

CURVE_COLORS = {
    "smallest resolvable difference (exact)": PALETTE[0],
    "square-root law": PALETTE[5],
    "detectable at the chosen power (Connor)": PALETTE[1],
}


def _series_color(field: str, colors: dict[str, str]) -> alt.Color:
    """A colour encoding with a fixed domain (the keys of ``colors``) and a bottom legend wide enough for the labels."""
    domain = list(colors)
    return alt.Color(
        f"{field}:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[colors[d] for d in domain]),
        legend=alt.Legend(orient="bottom", labelLimit=320),
    )


def _points_axis(title: str, signed: bool) -> alt.Axis:
    """An axis for differences stored as fractions (0.04) but read in percentage points ("+4")."""
    fmt = "+.1~f" if signed else ".1~f"  # 4, 0.5, +2.5: one decimal only where a tick needs it
    return alt.Axis(title=title, labelExpr=f"format(datum.value * 100, '{fmt}')")


def accuracy_chart(acc: pd.DataFrame, level_pct: str = "95%") -> alt.LayerChart:
    """Accuracy of each config with its marginal interval. ``acc``: config, accuracy, ci_low, ci_high.

    Streamlit fits the whole chart (title, axis) into ``height``, so rows get 45 px on top of 110 px of furniture.
    """
    chart = interval_dots(
        acc,
        "config",
        "accuracy",
        "ci_low",
        "ci_high",
        value_title=f"accuracy with its {level_pct} interval",
        value_format=".0%",
        title="Accuracy of each config (marginal intervals)",
    )
    return chart.properties(height=110 + 45 * max(1, len(acc)))


def difference_chart(diffs: pd.DataFrame) -> alt.LayerChart:
    """Paired difference of each pair, with the paired interval and (below it) the marginal one.

    ``diffs``: long, one row per pair and interval kind: pair, interval (a key of :data:`INTERVAL_COLORS`),
    diff, low, high (fractions of cases).
    """
    color = _series_color("interval", INTERVAL_COLORS)
    y = alt.Y("pair:N", title="pair (A → B)", sort=None)
    y_offset = alt.YOffset("interval:N", sort=list(INTERVAL_COLORS), scale=alt.Scale(paddingInner=0.3))
    x_axis = _points_axis("difference in accuracy, B minus A (percentage points)", signed=True)
    tooltip = [
        alt.Tooltip("pair:N", title="A -> B"),
        alt.Tooltip("interval:N"),
        alt.Tooltip("diff_pts:Q", title="difference (points)", format="+.1f"),
        alt.Tooltip("low_pts:Q", title="interval from (points)", format="+.1f"),
        alt.Tooltip("high_pts:Q", title="interval to (points)", format="+.1f"),
    ]
    diffs = diffs.assign(diff_pts=100 * diffs["diff"], low_pts=100 * diffs["low"], high_pts=100 * diffs["high"])
    base = alt.Chart(diffs, title="Difference between configs: paired against marginal interval")
    whisker = base.mark_rule(strokeWidth=3).encode(
        y=y, yOffset=y_offset, x=alt.X("low:Q", axis=x_axis), x2="high:Q", color=color, tooltip=tooltip
    )
    dot = base.mark_point(filled=True, size=70).encode(y=y, yOffset=y_offset, x="diff:Q", color=color, tooltip=tooltip)
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color="#444", strokeDash=[4, 3]).encode(x="zero:Q")
    n_pairs = max(1, diffs["pair"].nunique())
    # Streamlit fits title and legend into the height
    return alt.LayerChart(layer=[whisker, dot, zero]).properties(height=150 + 80 * n_pairs)


def resolution_chart(curve: pd.DataFrame, cases: int, target_diff: float | None) -> alt.LayerChart:
    """Resolvable difference against cases (log axis): exact sawtooth, square-root law, MDE at power.

    ``curve``: cases, series (a key of :data:`CURVE_COLORS`), diff (fraction; inf/NaN rows are dropped).
    A vertical rule marks the current number of cases; a horizontal rule the target difference, if any.
    """
    data = curve[pd.notna(curve["diff"]) & (curve["diff"] < 1.0)]
    data = data.assign(diff_pts=100 * data["diff"])
    domain = list(CURVE_COLORS)
    color = _series_color("series", CURVE_COLORS)
    lo, hi = int(data["cases"].min()), int(data["cases"].max())
    x = alt.X(
        "cases:Q", title="cases (log scale)", scale=alt.Scale(type="log", domain=[lo, hi], nice=False),
        axis=alt.Axis(format=",d", values=[v for v in _TICKS if lo <= v <= hi]),
    )  # fmt: skip
    y = alt.Y("diff:Q", axis=_points_axis("difference in accuracy (percentage points)", signed=False))
    lines = (
        alt.Chart(data, title="What an evaluation can resolve, against its number of cases")
        .mark_line(strokeWidth=2.5, interpolate="step-after", clip=True)
        .encode(
            x=x,
            y=y,
            color=color,
            strokeDash=alt.StrokeDash(
                "series:N",
                scale=alt.Scale(domain=domain, range=[[1, 0], [5, 4], [1, 0]]),
                legend=None,
            ),
            tooltip=[
                alt.Tooltip("series:N", title="line"),
                alt.Tooltip("cases:Q", format=","),
                alt.Tooltip("diff_pts:Q", title="difference (points)", format=".1f"),
            ],
        )
    )
    layers: list[alt.Chart] = [lines]
    now = pd.DataFrame({"cases": [cases], "label": [f"now: {cases:,} cases"]})
    layers.append(alt.Chart(now).mark_rule(color="#444", strokeDash=[2, 2]).encode(x="cases:Q"))
    layers.append(
        alt.Chart(now)
        .mark_text(align="left", dx=4, dy=-6, color="#444", fontSize=12)
        .encode(x="cases:Q", y=alt.value(8), text="label:N")
    )
    if target_diff is not None:
        tgt = pd.DataFrame({"diff": [target_diff], "label": [f"target: {100 * target_diff:.1f} points"]})
        layers.append(alt.Chart(tgt).mark_rule(color=PALETTE[3], strokeWidth=2).encode(y="diff:Q"))
        layers.append(
            alt.Chart(tgt)
            .mark_text(align="left", dx=4, dy=-6, color="#8a6100", fontSize=12)
            .encode(y="diff:Q", x=alt.value(0), text="label:N")
        )
    return alt.LayerChart(layer=layers).properties(height=480)  # Streamlit fits title, axis and legend into the height
