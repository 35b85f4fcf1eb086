"""Altair builders for "as the cases came in" (Compare page): the running difference with its confidence sequence
band, the decision point, the fixed-n interval at the end. Data frames in, charts out; no statistics here."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.charts import EXPORT_WIDTH, PADDING, PALETTE, SIGNIFICANT, title, title_px

BAND = "anytime-valid band (check it whenever you like)"
FIXED = "fixed-n interval on all cases (valid only at the end)"


def running_chart(path: pd.DataFrame, decided_at: int | None, fixed: pd.DataFrame) -> alt.LayerChart:
    """The running difference (B minus A, points) against cases seen, with its band; a rule at the decision.

    ``path``: n, diff, low, high (fractions); ``fixed``: one row n, diff, low, high (the fixed-n test's interval).
    """
    # numbers as float64: int64 columns reach the browser as BigInt (Arrow), which Vega's scales do not read
    data = path.assign(
        n=path["n"].astype(float), diff_pts=100 * path["diff"], low_pts=100 * path["low"], high_pts=100 * path["high"]
    )
    lo = float(min(data["low_pts"].quantile(0.02), 100 * fixed["low"].min()))
    hi = float(max(data["high_pts"].quantile(0.98), 100 * fixed["high"].max()))
    pad = 0.05 * (hi - lo) + 0.5
    y_scale = alt.Scale(domain=[lo - pad, hi + pad], nice=False)
    x = alt.X("n:Q", title="cases seen, in the order they came in", axis=alt.Axis(format=",d"))
    y_title = "B minus A (percentage points)"
    tooltip = [
        alt.Tooltip("n:Q", title="cases seen", format=","),
        alt.Tooltip("diff_pts:Q", title="difference so far (points)", format="+.1f"),
        alt.Tooltip("low_pts:Q", title="band from (points)", format="+.1f"),
        alt.Tooltip("high_pts:Q", title="band to (points)", format="+.1f"),
    ]
    chart_title = title(
        "As the cases came in", "the difference so far, its anytime-valid band, and the fixed-n interval at the end"
    )
    base = alt.Chart(data, title=chart_title)
    band = base.mark_area(opacity=0.25, color=SIGNIFICANT, clip=True).encode(
        x=x, y=alt.Y("low_pts:Q", title=y_title, scale=y_scale), y2="high_pts:Q", tooltip=tooltip
    )
    line = base.mark_line(color=SIGNIFICANT, strokeWidth=2, clip=True).encode(
        x=x, y=alt.Y("diff_pts:Q", scale=y_scale), tooltip=tooltip
    )
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color="#444", strokeDash=[4, 3]).encode(y="zero:Q")
    f = fixed.assign(
        n=fixed["n"].astype(float),
        diff_pts=100 * fixed["diff"],
        low_pts=100 * fixed["low"],
        high_pts=100 * fixed["high"],
    )
    f_tip = [
        alt.Tooltip("diff_pts:Q", title="fixed-n difference (points)", format="+.1f"),
        alt.Tooltip("low_pts:Q", title="fixed-n interval from", format="+.1f"),
        alt.Tooltip("high_pts:Q", title="fixed-n interval to", format="+.1f"),
    ]
    fixed_bar = (
        alt.Chart(f)
        .mark_rule(color=PALETTE[1], strokeWidth=4)
        .encode(x="n:Q", y=alt.Y("low_pts:Q", scale=y_scale), y2="high_pts:Q", tooltip=f_tip)
    )
    fixed_dot = (
        alt.Chart(f)
        .mark_point(color=PALETTE[1], filled=True, size=80)
        .encode(x="n:Q", y=alt.Y("diff_pts:Q", scale=y_scale), tooltip=f_tip)
    )
    layers: list[alt.Chart] = [band, line, zero, fixed_bar, fixed_dot]
    if decided_at is not None:
        d = pd.DataFrame({"n": [float(decided_at)], "label": [f"decided at case {decided_at:,}"]})
        rule = alt.Chart(d).mark_rule(color=PALETTE[2], strokeWidth=2).encode(x="n:Q")
        text = (
            alt.Chart(d)
            .mark_text(align="left", dx=4, dy=-6, color=PALETTE[2], fontWeight="bold")
            .encode(x="n:Q", y=alt.value(12), text="label:N")
        )
        layers += [rule, text]
    legend = pd.DataFrame({"what": [BAND, FIXED]})
    key = (
        alt.Chart(legend)
        .mark_point(opacity=0)
        .encode(
            color=alt.Color(
                "what:N",
                title=None,
                scale=alt.Scale(domain=[BAND, FIXED], range=[SIGNIFICANT, PALETTE[1]]),
                legend=alt.Legend(orient="bottom", direction="vertical", symbolOpacity=1, labelLimit=400),
            )
        )
    )
    layers.append(key)
    return alt.LayerChart(layer=layers).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=380 + title_px(chart_title)
    )


__all__ = ["BAND", "FIXED", "running_chart"]
