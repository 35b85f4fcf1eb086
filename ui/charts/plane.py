"""Altair builder of the (N, K) plane: items (N) against ratings per item (K), the budget drawn as lines.

The figure of *Forest vs Tree* (AAAI-26): every cell of the grid sits at its items (N) and ratings per item (K),
coloured by its p-value; a budget B is the curve N x K = B, a straight line of slope -1 on log-log axes, so the
cells of one budget lie along one line and moving along it trades items for ratings per item. Data frames in, a
chart out; no statistics here (every number comes from ``nkcore.nk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd

from ui.charts import PADDING, PALETTE, split_title

__all__ = ["MinimalPoint", "iso_budget_lines", "nk_plane"]

SIGNIFICANCE = 0.05
MINIMAL_COLOR = PALETTE[3]
CHOSEN_COLOR = PALETTE[1]
LINE_COLOR = "#8d96a3"
TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
"""Axis ticks of the log axes: 1, 2, 5 in every decade (Vega's own log ticks crowd or skip decades)."""


@dataclass(frozen=True, slots=True)
class MinimalPoint:
    """The smallest budget that reaches p < 0.05 and its split: items (N) x ratings per item (K) = budget."""

    budget: int
    n: int
    k: int


def iso_budget_lines(budgets: Sequence[int], k_max: int, points: int = 24) -> pd.DataFrame:
    """Points on the curves N x K = budget, for K from 1 to ``min(k_max, budget)`` (geometric steps).

    Columns: budget, k, n (= budget / K, not rounded: the line itself, on which the cells' N = floor(budget / K)
    sit at or just below).

    >>> df = iso_budget_lines([100], 500, points=3)
    >>> df[["k", "n"]].round(3).values.tolist()
    [[1.0, 100.0], [10.0, 10.0], [100.0, 1.0]]
    """
    rows = []
    for b in sorted({int(x) for x in budgets}):
        top = max(1, min(int(k_max), b))
        for k in np.geomspace(1.0, float(top), max(2, points)):
            rows.append({"budget": b, "k": float(k), "n": b / float(k)})
    return pd.DataFrame(rows, columns=["budget", "k", "n"])


def nk_plane(
    cells: pd.DataFrame,
    color_by: str,
    budgets: Sequence[int],
    title: str,
    *,
    chosen: tuple[int, int] | None = None,
    minimal: MinimalPoint | None = None,
) -> alt.LayerChart:
    """Items (N, log x axis) against ratings per item (K, log y axis), one mark per cell, the budgets as lines.

    ``title``: "<metric>: <what the chart shows>"; the part before ": " is the title, the rest its subtitle.
    ``cells``: one row per cell of ONE metric with columns budget, k, n, p, delta, ci_width, reproducibility.
    ``color_by``: "p" (p-value, darker = smaller) or "reproducibility" (A strictly ahead). Cells with p < 0.05 are
    squares and the others circles (a shape is visible on any fill and in a PNG). Each budget in ``budgets`` is the
    line N x K = budget, labelled at its top end; ``minimal`` adds the smallest budget that reaches p < 0.05 as an
    orange line with a star at its split, and ``chosen`` (budget, K) rings the cell shown in detail.
    """
    df = cells.copy()
    df["significant"] = np.where(df["p"] < SIGNIFICANCE, "p < 0.05", "p >= 0.05")
    df["p_text"] = [("< 0.001" if p < 0.001 else f"{p:.3f}") for p in df["p"]]
    df["is_chosen"] = [(int(b), int(k)) == chosen for b, k in zip(df["budget"], df["k"], strict=True)]
    k_max = int(max(df["k"].max(), minimal.k if minimal else 1))
    n_max = float(max(df["n"].max(), minimal.budget if minimal else 1, max(budgets, default=1)))
    x_scale = alt.Scale(type="log", domain=[1, n_max * 1.15], nice=False)
    y_scale = alt.Scale(type="log", domain=[0.8, k_max * 1.25], nice=False)
    x_ticks = [v for v in TICKS if v <= n_max * 1.15]
    y_ticks = [v for v in TICKS if v <= k_max * 1.25]
    x = alt.X(
        "n:Q",
        title="items (N), log scale",
        scale=x_scale,
        axis=alt.Axis(values=x_ticks, format=",", labelOverlap=True, grid=True),
    )
    y = alt.Y(
        "k:Q",
        title="ratings per item (K), log scale",
        scale=y_scale,
        axis=alt.Axis(values=y_ticks, format=",", labelOverlap=True, grid=True),
    )
    if color_by == "p":
        color = alt.Color(
            "p:Q",
            title="p-value",
            scale=alt.Scale(scheme="blues", reverse=True, domain=[0, 0.5], clamp=True),
            legend=alt.Legend(orient="top", gradientLength=160, titleOrient="left"),
        )
    else:
        color = alt.Color(
            "reproducibility:Q",
            title="A ahead in",
            scale=alt.Scale(scheme="blues", domain=[0.5, 1.0], clamp=True),
            legend=alt.Legend(orient="top", format=".0%", gradientLength=160, titleOrient="left"),
        )
    shape = alt.Shape(
        "significant:N",
        title=None,
        scale=alt.Scale(domain=["p < 0.05", "p >= 0.05"], range=["square", "circle"]),
        legend=alt.Legend(orient="bottom", direction="horizontal"),
    )
    tooltip = [
        alt.Tooltip("budget:Q", title="budget (N x K)", format=","),
        alt.Tooltip("n:Q", title="items (N)", format=","),
        alt.Tooltip("k:Q", title="ratings per item (K)"),
        alt.Tooltip("p_text:N", title="p-value"),
        alt.Tooltip("reproducibility:Q", title="A ahead in", format=".0%"),
        alt.Tooltip("delta:Q", title="Delta (mean gap)", format=".3g"),
    ]
    lines_df = iso_budget_lines(budgets, k_max)
    lines = (
        alt.Chart(lines_df)
        .mark_line(color=LINE_COLOR, strokeWidth=1, strokeDash=[5, 3])
        .encode(x=x, y=y, detail=alt.Detail("budget:N"))
    )
    ends = lines_df.sort_values("k").groupby("budget", as_index=False).last()
    ends["label"] = [f"{int(b):,}" for b in ends["budget"]]
    labels = (
        alt.Chart(ends)
        .mark_text(align="center", dy=-17, fontSize=11, color="#555")
        .encode(x=x, y=y, text=alt.Text("label:N"))
    )
    chart_title = split_title(title)
    points = (
        alt.Chart(df, title=chart_title)
        .mark_point(filled=True, size=110, stroke="#2e4057", strokeWidth=0.6, opacity=1)
        .encode(x=x, y=y, color=color, shape=shape, tooltip=tooltip)
    )
    layers: list[alt.Chart] = [lines, labels, points]
    if minimal is not None:
        mline = iso_budget_lines([minimal.budget], k_max)
        layers.append(alt.Chart(mline).mark_line(color=MINIMAL_COLOR, strokeWidth=3).encode(x=x, y=y))
        top = mline.sort_values("k").tail(1).assign(label=f"{minimal.budget:,}: smallest with p < 0.05")
        layers.append(
            alt.Chart(top)
            .mark_text(align="left", dx=8, dy=-17, fontSize=12, fontWeight="bold", color=MINIMAL_COLOR)
            .encode(x=x, y=y, text=alt.Text("label:N"))
        )
        star = pd.DataFrame(
            [{"n": minimal.n, "k": minimal.k, "budget": minimal.budget, "what": "smallest budget with p < 0.05"}]
        )
        layers.append(
            alt.Chart(star)
            .mark_text(text="★", fontSize=22, color=MINIMAL_COLOR, stroke="#2e4057", strokeWidth=0.7)
            .encode(
                x=x,
                y=y,
                tooltip=[
                    alt.Tooltip("what:N", title="star"),
                    alt.Tooltip("budget:Q", title="budget (N x K)", format=","),
                    alt.Tooltip("n:Q", title="items (N)", format=","),
                    alt.Tooltip("k:Q", title="ratings per item (K)"),
                ],
            )
        )
    if chosen is not None and bool(df["is_chosen"].any()):
        layers.append(
            alt.Chart(df[df["is_chosen"]])
            .mark_point(shape="circle", size=420, color=CHOSEN_COLOR, strokeWidth=2.5, filled=False)
            .encode(x=x, y=y)
        )
    # legends above (the colour scale) and below (the shapes) leave the plot the container's whole width
    return alt.LayerChart(layer=layers).properties(height=440, padding=PADDING)
