"""Altair builders for the Sampling and Cost & latency pages (data frames in, charts out; no statistics here)."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

from ui.charts import EXPORT_WIDTH, NAME_LABEL_PX, PADDING, PALETTE, bottom_legend, name_labels, title, title_px

N_TIP = alt.Tooltip("n:Q", title="samples per request (n)")
SERIES_COLORS = {
    "measured (exact, all subsets)": PALETTE[0],
    "measured (first n samples)": PALETTE[6],
    "independent samples": PALETTE[5],
    "correlated, estimated rho": PALETTE[2],
    "correlated, what-if rho": PALETTE[1],
    "beta-binomial difficulty model": PALETTE[3],
}


def y_domain(measured: pd.DataFrame, models: pd.DataFrame, pad: float = 0.02) -> tuple[float, float]:
    """The accuracy axis of the vote curve: every plotted value inside it (band, exact and first-n points, model
    lines), ``pad`` beyond the extremes, within [0, 1]; no point is ever clipped onto the axis.

    >>> m = pd.DataFrame({"accuracy": [0.6, 0.7], "ci_low": [0.55, 0.65], "ci_high": [0.66, 0.75],
    ...                   "first_n_accuracy": [0.5, 0.72]})
    >>> y_domain(m, pd.DataFrame({"accuracy": [0.58, 0.9]}))
    (0.48, 0.92)
    """
    values = [measured[c] for c in ("accuracy", "ci_low", "ci_high", "first_n_accuracy") if c in measured.columns]
    if "accuracy" in models.columns:
        values.append(models["accuracy"])
    allv = pd.concat(values).astype(float).dropna()
    if allv.empty:
        return 0.0, 1.0
    low, high = max(0.0, float(allv.min()) - pad), min(1.0, float(allv.max()) + pad)
    return round(low, 4), round(high, 4)


def vote_curve_chart(measured: pd.DataFrame, models: pd.DataFrame) -> alt.LayerChart:
    """Accuracy against samples per request (n): the measured exact curve with its 95% band, the first-n
    points, and the model predictions as lines.

    ``measured``: columns n, accuracy, ci_low, ci_high, first_n_accuracy. ``models``: long, columns n, series,
    accuracy (series names as in :data:`SERIES_COLORS`).
    """
    domain = list(SERIES_COLORS)
    legend = bottom_legend(len(domain), 220)
    legend.orient = "top"  # above the plot: read before the lines, and inside the first screen at 1024 px
    color = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[SERIES_COLORS[d] for d in domain]),
        legend=legend,
    )
    x = alt.X("n:Q", title="samples per request (n)", axis=alt.Axis(tickMinStep=1, format="d"))
    y_axis = alt.Axis(format=".0%")
    band = (
        alt.Chart(measured)
        .mark_area(opacity=0.18, color=PALETTE[0])
        .encode(
            x=x,
            y=alt.Y(
                "ci_low:Q",
                title="accuracy (majority vote)",
                axis=y_axis,
                scale=alt.Scale(zero=False, domain=list(y_domain(measured, models)), clamp=False, nice=False),
            ),
            y2=alt.Y2("ci_high"),
        )
    )
    exact = measured.assign(series="measured (exact, all subsets)")
    line = (
        alt.Chart(exact)
        .mark_line(point=alt.OverlayMarkDef(size=60, filled=True), strokeWidth=3)
        .encode(
            x=x,
            y=alt.Y("accuracy:Q"),
            color=color,
            tooltip=[
                N_TIP,
                alt.Tooltip("accuracy:Q", title="exact accuracy", format=".1%"),
                alt.Tooltip("ci_low:Q", title="95% interval from", format=".1%"),
                alt.Tooltip("ci_high:Q", title="95% interval to", format=".1%"),
            ],
        )
    )
    first = measured.assign(series="measured (first n samples)")
    first_pts = (
        alt.Chart(first)
        .mark_point(shape="diamond", size=70, filled=True)
        .encode(
            x=x,
            y=alt.Y("first_n_accuracy:Q"),
            color=color,
            tooltip=[
                N_TIP,
                alt.Tooltip("first_n_accuracy:Q", title="first n samples", format=".1%"),
            ],
        )
    )
    model_lines = (
        alt.Chart(models)
        .mark_line(strokeDash=[5, 3], strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y("accuracy:Q"),
            color=color,
            tooltip=[
                alt.Tooltip("series:N", title="model"),
                N_TIP,
                alt.Tooltip("accuracy:Q", title="predicted accuracy", format=".1%"),
            ],
        )
    )
    chart_title = title(
        "Majority-vote accuracy against samples per request (n)",
        "measured (solid, with its 95% band) and predicted (dashed)",
    )
    # Streamlit fits title, axes and legend (one to six lines, by width) into the height
    return alt.LayerChart(layer=[band, model_lines, line, first_pts]).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=400 + title_px(chart_title), title=chart_title
    )


_LABEL_MARKS: dict[str, dict[str, Any]] = {
    "right": {"align": "left", "dx": 14},
    "left": {"align": "right", "dx": -14},
    "above": {"align": "center", "baseline": "bottom", "dy": -14},
    "below": {"align": "center", "baseline": "top", "dy": 14},
}
"""Where a point's label sits (Vega-Lite text mark properties) for each side :func:`label_sides` picks."""
PLOT_PX = (300, 300)
"""The plot size (px) the label placement assumes: a phone's width and the plot's height less its padding (a wider
window only spreads the points further apart)."""
_CHAR_PX, _TEXT_PX, _POINT_PX = 7.5, 16.0, 10.0


def label_sides(data: pd.DataFrame, x: str, y: str, label: str) -> list[str]:
    """For each point (x, y) of a scatter, the side of it its label goes: "right" unless the label would cross
    another point or another point's interval bar (columns ``accuracy_low`` / ``accuracy_high``, when present),
    then the first free one of "left", "above", "below" ("right" when none is free).

    Rule: positions are mapped to a :data:`PLOT_PX` plot (x from 0, y over the points' and intervals' range); a
    label is a box of 7.5 px per character by 16 px, 14 px from its point; it is free when it meets no other point
    (10 px around it) and no other point's bar. Layout a reader can see: at 1024 px the label "n=3" sat under the
    bar of "3+2", $2 to its right.

    >>> d = pd.DataFrame({"c": [19.0, 21.0, 6.0], "a": [0.78, 0.79, 0.71], "l": ["n=3", "3+2", "n=1"],
    ...                   "accuracy_low": [0.72, 0.73, 0.64], "accuracy_high": [0.83, 0.84, 0.77]})
    >>> label_sides(d, "c", "a", "l")
    ['left', 'right', 'right']
    """
    if data.empty:
        return []
    has_ci = {"accuracy_low", "accuracy_high"} <= set(data.columns)
    xs = data[x].to_numpy(dtype=float)
    ys = data[y].to_numpy(dtype=float)
    lo = data["accuracy_low"].to_numpy(dtype=float) if has_ci else ys
    hi = data["accuracy_high"].to_numpy(dtype=float) if has_ci else ys
    width, height = PLOT_PX
    x_span = max(float(xs.max()), 1e-12) * 1.05
    y_min, y_max = float(min(lo.min(), ys.min())), float(max(hi.max(), ys.max()))
    y_span = max(y_max - y_min, 1e-12) * 1.2
    px = xs / x_span * width
    py = (y_max + 0.1 * y_span - ys) / y_span * height
    p_lo = (y_max + 0.1 * y_span - lo) / y_span * height  # the bar's bottom end (larger px)
    p_hi = (y_max + 0.1 * y_span - hi) / y_span * height

    def box(i: int, side: str) -> tuple[float, float, float, float]:
        w = _CHAR_PX * len(str(data[label].iloc[i]))
        if side == "right":
            return px[i] + 14, py[i] - _TEXT_PX / 2, px[i] + 14 + w, py[i] + _TEXT_PX / 2
        if side == "left":
            return px[i] - 14 - w, py[i] - _TEXT_PX / 2, px[i] - 14, py[i] + _TEXT_PX / 2
        top = min(py[i], p_hi[i]) if side == "above" else max(py[i], p_lo[i])
        y0 = top - 14 - _TEXT_PX if side == "above" else top + 14
        return px[i] - w / 2, y0, px[i] + w / 2, y0 + _TEXT_PX

    def free(i: int, b: tuple[float, float, float, float]) -> bool:
        for j in range(len(xs)):
            if j == i:
                continue
            point = (px[j] - _POINT_PX, py[j] - _POINT_PX, px[j] + _POINT_PX, py[j] + _POINT_PX)
            bar = (px[j] - 2, p_hi[j], px[j] + 2, p_lo[j])
            for o in (point, bar):
                if min(b[2], o[2]) > max(b[0], o[0]) and min(b[3], o[3]) > max(b[1], o[1]):
                    return False
        return True

    return [next((s for s in _LABEL_MARKS if free(i, box(i, s))), "right") for i in range(len(xs))]


def cost_accuracy_chart(table: pd.DataFrame, budget_s: float) -> alt.LayerChart:
    """Accuracy against cost per 1,000 requests, one labelled point per row, coloured by p95 latency; rows over
    the latency budget are drawn hollow; with ``accuracy_low`` / ``accuracy_high`` columns each point carries its
    interval as a vertical bar. Columns: label, accuracy, cost_per_1k, p95, calls.

    Point labels are the configurations' distinguishing parts (:func:`ui.charts.name_labels`); the tooltip has the
    full name. The colour legend sits under the plot, so a phone keeps the plot's width."""
    names = name_labels(table["label"].tolist())
    data = table.assign(within=table["p95"] <= budget_s, short_label=list(names.short)).reset_index(drop=True)
    has_ci = {"accuracy_low", "accuracy_high"} <= set(table.columns)
    scale = alt.Scale(scheme="orangered")
    base = alt.Chart(data).encode(
        x=alt.X(
            "cost_per_1k:Q",
            title="cost per 1,000 requests ($)",
            axis=alt.Axis(format="$,.0f"),
            scale=alt.Scale(zero=True, nice=True),
        ),
        y=alt.Y("accuracy:Q", title="accuracy", axis=alt.Axis(format=".0%"), scale=alt.Scale(zero=False, padding=30)),
    )
    points = base.mark_point(size=260, strokeWidth=3, opacity=1).encode(
        color=alt.Color(
            "p95:Q",
            title="p95 latency (s)",
            scale=scale,
            # a gradient, not a row of symbols that runs off a phone's width
            legend=alt.Legend(orient="bottom", type="gradient", format=".1f", gradientLength=160, titleOrient="left"),
        ),
        fill=alt.Fill("p95:Q", scale=scale, legend=None, condition={"test": "!datum.within", "value": "white"}),
        tooltip=[
            alt.Tooltip("label:N", title="configuration"),
            alt.Tooltip("accuracy:Q", format=".1%"),
            *(
                [
                    alt.Tooltip("accuracy_low:Q", title="95% interval from", format=".1%"),
                    alt.Tooltip("accuracy_high:Q", title="to", format=".1%"),
                ]
                if has_ci
                else []
            ),
            alt.Tooltip("calls:Q", title="calls per request", format=".2f"),
            alt.Tooltip("cost_per_1k:Q", title="$ per 1,000 requests", format="$,.2f"),
            alt.Tooltip("p95:Q", title="p95 latency (s)", format=".1f"),
        ],
    )
    data["label_side"] = label_sides(data, "cost_per_1k", "accuracy", "short_label")
    labels = [
        base.transform_filter(alt.datum.label_side == side)
        .mark_text(fontSize=13, limit=NAME_LABEL_PX, **_LABEL_MARKS[side])
        .encode(text=alt.Text("short_label:N"))
        for side in _LABEL_MARKS
        if (data["label_side"] == side).any()
    ]
    layers: list[alt.Chart] = []
    if has_ci:
        layers.append(
            base.mark_rule(color="#888", strokeWidth=2).encode(y=alt.Y("accuracy_low:Q"), y2=alt.Y2("accuracy_high"))
        )
    chart_title = title(
        "Accuracy against cost per 1,000 requests",
        "colour: p95 latency; hollow: over the latency budget" + ("; bars: 95% interval" if has_ci else ""),
    )
    return alt.LayerChart(layer=[*layers, points, *labels]).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=380 + title_px(chart_title), title=chart_title
    )


def latency_bars_chart(table: pd.DataFrame, budget_s: float) -> alt.LayerChart:
    """p50 / p95 / p99 per configuration as dots on one axis, with the latency budget as a rule.
    Columns: label, p50, p95, p99. Long configuration names are cut to their distinguishing part on the axis."""
    names = name_labels(table["label"].tolist())
    short = table.assign(short_label=list(names.short))
    long = short.melt(
        id_vars=["label", "short_label"], value_vars=["p50", "p95", "p99"], var_name="percentile", value_name="seconds"
    )
    order = list(names.short)
    dots = (
        alt.Chart(long)
        .mark_point(filled=True, size=90)
        .encode(
            y=alt.Y(
                "short_label:N",
                title=f"configuration ({names.common})" if names.common else "configuration",
                sort=order,
                axis=alt.Axis(labelLimit=NAME_LABEL_PX),
            ),
            x=alt.X("seconds:Q", title="request latency (s)"),
            color=alt.Color(
                "percentile:N",
                title=None,
                scale=alt.Scale(range=[PALETTE[2], PALETTE[3], PALETTE[1]]),
                legend=alt.Legend(orient="bottom", direction="horizontal"),
            ),
            tooltip=[
                alt.Tooltip("label:N", title="configuration"),
                alt.Tooltip("percentile:N"),
                alt.Tooltip("seconds:Q", format=".2f"),
            ],
        )
    )
    budget = alt.Chart(pd.DataFrame({"budget": [budget_s], "text": [f"budget {budget_s:.1f} s"]}))
    rule = budget.mark_rule(color="#444", strokeDash=[4, 3]).encode(x=alt.X("budget:Q"))
    text = budget.mark_text(align="left", dx=4, dy=-6, color="#444").encode(
        x=alt.X("budget:Q"), y=alt.YValue(0), text=alt.Text("text:N")
    )
    chart_title = title("Request latency per configuration", "p50, p95 and p99 against the budget (dashed)")
    return alt.LayerChart(layer=[dots, rule, text]).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=alt.Step(34), title=chart_title
    )
