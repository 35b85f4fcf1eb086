"""Altair builders for the Sampling and Cost & latency pages (data frames in, charts out; no statistics here)."""

from __future__ import annotations

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


def vote_curve_chart(measured: pd.DataFrame, models: pd.DataFrame) -> alt.LayerChart:
    """Accuracy against samples per request (n): the measured exact curve with its paired band, the first-n
    points, and the model predictions as lines.

    ``measured``: columns n, accuracy, ci_low, ci_high, first_n_accuracy. ``models``: long, columns n, series,
    accuracy (series names as in :data:`SERIES_COLORS`).
    """
    domain = list(SERIES_COLORS)
    color = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[SERIES_COLORS[d] for d in domain]),
        legend=bottom_legend(len(domain), 220),
    )
    x = alt.X("n:Q", title="samples per request (n)", axis=alt.Axis(tickMinStep=1, format="d"))
    y_axis = alt.Axis(format=".0%")
    band = (
        alt.Chart(measured)
        .mark_area(opacity=0.18, color=PALETTE[0])
        .encode(
            x=x,
            y=alt.Y("ci_low:Q", title="accuracy (majority vote)", axis=y_axis, scale=alt.Scale(zero=False)),
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


def cost_accuracy_chart(table: pd.DataFrame, budget_s: float) -> alt.LayerChart:
    """Accuracy against cost per 1,000 requests, one labelled point per row, coloured by p95 latency; rows over
    the latency budget are drawn hollow; with ``accuracy_low`` / ``accuracy_high`` columns each point carries its
    interval as a vertical bar. Columns: label, accuracy, cost_per_1k, p95, calls.

    Point labels are the configurations' distinguishing parts (:func:`ui.charts.name_labels`); the tooltip has the
    full name. The colour legend sits under the plot, so a phone keeps the plot's width."""
    names = name_labels(table["label"].tolist())
    data = table.assign(within=table["p95"] <= budget_s, short_label=list(names.short))
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
    labels = base.mark_text(dx=14, align="left", fontSize=13, limit=NAME_LABEL_PX).encode(
        text=alt.Text("short_label:N")
    )
    layers: list[alt.Chart] = []
    if has_ci:
        layers.append(
            base.mark_rule(color="#888", strokeWidth=2).encode(y=alt.Y("accuracy_low:Q"), y2=alt.Y2("accuracy_high"))
        )
    chart_title = title(
        "Accuracy against cost per 1,000 requests",
        "colour: p95 latency; hollow: over the latency budget" + ("; bars: 95% interval" if has_ci else ""),
    )
    return alt.LayerChart(layer=[*layers, points, labels]).properties(
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
