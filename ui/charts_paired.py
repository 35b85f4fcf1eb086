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
    domain = list(INTERVAL_COLORS)
    color = alt.Color(
        "interval:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[INTERVAL_COLORS[d] for d in domain]),
        legend=alt.Legend(orient="bottom", labelLimit=320),
    )
    y = alt.Y("pair:N", title=None, sort=None)
    y_offset = alt.YOffset("interval:N", sort=domain, scale=alt.Scale(paddingInner=0.3))
    x_axis = alt.Axis(format="+.0%", title="difference in accuracy, B minus A (percentage points)")
    tooltip = [
        alt.Tooltip("pair:N", title="A -> B"),
        alt.Tooltip("interval:N"),
        alt.Tooltip("diff:Q", title="difference", format="+.1%"),
        alt.Tooltip("low:Q", title="interval from", format="+.1%"),
        alt.Tooltip("high:Q", title="interval to", format="+.1%"),
    ]
    base = alt.Chart(diffs, title="Difference between configs: paired against marginal interval")
    whisker = base.mark_rule(strokeWidth=3).encode(
        y=y, yOffset=y_offset, x=alt.X("low:Q", axis=x_axis), x2="high:Q", color=color, tooltip=tooltip
    )
    dot = base.mark_point(filled=True, size=70).encode(y=y, yOffset=y_offset, x="diff:Q", color=color, tooltip=tooltip)
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color="#444", strokeDash=[4, 3]).encode(x="zero:Q")
    n_pairs = max(1, diffs["pair"].nunique())
    return alt.layer(whisker, dot, zero).properties(height=150 + 80 * n_pairs)  # Streamlit fits title and legend in


def resolution_chart(curve: pd.DataFrame, cases: int, target_diff: float | None) -> alt.LayerChart:
    """Resolvable difference against cases (log axis): exact sawtooth, square-root law, MDE at power.

    ``curve``: cases, series (a key of :data:`CURVE_COLORS`), diff (fraction; inf/NaN rows are dropped).
    A vertical rule marks the current number of cases; a horizontal rule the target difference, if any.
    """
    data = curve[pd.notna(curve["diff"]) & (curve["diff"] < 1.0)]
    domain = list(CURVE_COLORS)
    color = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[CURVE_COLORS[d] for d in domain]),
        legend=alt.Legend(orient="bottom", labelLimit=320),
    )
    lo, hi = int(data["cases"].min()), int(data["cases"].max())
    x = alt.X(
        "cases:Q", title="cases (log scale)", scale=alt.Scale(type="log", domain=[lo, hi], nice=False),
        axis=alt.Axis(format=",d", values=[v for v in _TICKS if lo <= v <= hi]),
    )  # fmt: skip
    y = alt.Y("diff:Q", title="difference in accuracy (points)", axis=alt.Axis(format=".0%"))
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
                alt.Tooltip("diff:Q", title="difference", format=".1%"),
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
    return alt.layer(*layers).properties(height=480)  # Streamlit fits title, axis and legend into the height
