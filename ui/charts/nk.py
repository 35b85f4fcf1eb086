"""Altair builders for the Budget (N x K) page: the heatmap over budget and K, and the gap distributions.

Data frames in, charts out; no statistics here (every number comes from ``nkcore.nk``).
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from nkcore.nk.sentences import TIE_TOLERANCE, fmt_gap, fmt_p
from ui.charts import EXPORT_WIDTH, PADDING, PALETTE, SUBTITLE_CHARS, split_title, title_px, wrap

CELL_SELECTION = "cell"
"""Name of the click selection on the heatmap (read back from ``ui.charts.draw(..., on_select="rerun")``)."""
HIGHLIGHT = "#edae49"
CHOSEN = "#d1495b"


ROW_PX = 32
"""Height of a heatmap row (px): room for the star, the "x" and the significance dot one above the other."""
SIG_FILL = "white"
SIG_STROKE = "#111111"
"""The p < 0.05 dot: white inside, near-black rim, so it shows on the darkest and the lightest cell alike."""
MARK_KEY = "White dot: p < 0.05. Orange frame: the chosen budget; star: its best K. Red ring: the cell below."


def _cell_text(df: pd.DataFrame) -> pd.DataFrame:
    """The tooltip's numbers as text: p as '< 0.001' or three decimals, gaps with three significant digits and 0
    for float noise (never '1e-10' for two models that tie)."""
    return df.assign(
        p_text=[fmt_p(float(p)) for p in df["p"]],
        delta_text=[fmt_gap(float(x)) for x in df["delta"]],
        ci_text=[fmt_gap(float(x)) for x in df["ci_width"]],
    )


def _top_legend(fmt: str, values: list[float]) -> alt.Legend:
    """A horizontal colour legend above the grid: never beside it, where it would squeeze a phone's grid."""
    return alt.Legend(
        orient="top", direction="horizontal", gradientLength=200, titleOrient="left", format=fmt, values=values
    )


K_BREAK = "…"
"""The empty column the K axis shows where its step jumps (1-10 in steps of 1, then 20-500 in steps of 20)."""


def k_domain(ks: list[int]) -> list[int | str]:
    """The K axis's columns: ``ks`` in order, with an empty column :data:`K_BREAK` where the step between two
    neighbours is more than twice the step before it, so that an ordinal axis does not draw 10 -> 20 as far apart
    as 9 -> 10.

    >>> k_domain([1, 2, 3, 10, 20, 40, 60])
    [1, 2, 3, '…', 10, 20, 40, 60]
    >>> k_domain([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 40])
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, '…', 20, 40]
    >>> k_domain([5, 10, 15])
    [5, 10, 15]
    """
    out: list[int | str] = list(ks[:2])
    for i in range(2, len(ks)):
        if ks[i] - ks[i - 1] > 2 * (ks[i - 1] - ks[i - 2]):
            out.append(K_BREAK)
        out.append(ks[i])
    return out


def heatmap(
    cells: pd.DataFrame,
    color_by: str,
    budget: int,
    best_k: int | None,
    chosen: tuple[int, int] | None,
    title: str,
    *,
    width: int = EXPORT_WIDTH + 80,
) -> alt.LayerChart:
    """Budget (rows) x ratings per item K (columns), coloured by p-value or by how often A is strictly ahead.

    ``cells``: one row per cell of ONE metric, columns budget, k, n, p, delta, ci_width, reproducibility.
    ``title``: the page's one-line title; the part before ": " is the chart's title, the rest its subtitle, followed
    by a key to the marks (:data:`MARK_KEY`), so a PNG of the chart explains itself.

    Marks: cells with p < 0.05 carry a white dot with a dark rim (seen on any fill, in the PNG too); the ``budget``
    row is framed in orange and its best K carries a star; the ``chosen`` (budget, K) cell is ringed in red; cells
    with a true ``extrapolated`` column (more items than the data has) carry an "x". A click selects a cell
    (selection :data:`CELL_SELECTION`).

    Sizing for a room and a phone: the width follows the container (``autosize`` fit-x; ``width`` is the size of an
    exported image), rows are :data:`ROW_PX` high whatever the width, the K labels are upright and thinned (every
    other one dropped until none overlap), the colour legend sits above the grid, and the marks inside a cell scale
    with the cell's width. Where the K step jumps (1-10, then 20-500) the axis leaves an empty column labelled
    :data:`K_BREAK` (:func:`k_domain`).
    """
    df = _cell_text(cells)
    df["significant"] = df["p"] < 0.05
    df["is_row"] = df["budget"] == budget
    df["is_best"] = df["is_row"] & (df["k"] == (best_k if best_k is not None else -1))
    df["is_chosen"] = [(b, k) == chosen for b, k in zip(df["budget"], df["k"], strict=True)]
    ks = sorted(df["k"].unique().tolist())
    budgets = sorted(df["budget"].unique().tolist(), reverse=True)
    x = alt.X(
        "k:O",
        title="ratings per item (K)",
        sort=ks,
        scale=alt.Scale(domain=k_domain(ks)),
        axis=alt.Axis(labelAngle=0, labelOverlap="parity", labelSeparation=6, labelPadding=4),
    )
    y = alt.Y("budget:O", title="budget (N x K ratings)", sort=budgets, axis=alt.Axis(format=",", labelPadding=4))
    if color_by == "p":
        color = alt.Color(
            "p:Q",
            title="p-value",
            scale=alt.Scale(scheme="blues", reverse=True, domain=[0, 0.5], clamp=True),
            legend=_top_legend(".1f", [0, 0.1, 0.2, 0.3, 0.4, 0.5]),
        )
    else:
        color = alt.Color(
            "reproducibility:Q",
            title="A ahead in",
            scale=alt.Scale(scheme="blues", domain=[0.5, 1.0], clamp=True),
            legend=_top_legend(".0%", [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
        )
    sel = alt.selection_point(name=CELL_SELECTION, fields=["budget", "k"], on="click", clear=False)
    tooltip = [
        alt.Tooltip("budget:Q", title="budget (N x K)", format=","),
        alt.Tooltip("k:Q", title="ratings per item (K)"),
        alt.Tooltip("n:Q", title="items (N)", format=","),
        alt.Tooltip("p_text:N", title="p-value"),
        alt.Tooltip("reproducibility:Q", title="A ahead in", format=".0%"),
        alt.Tooltip("delta_text:N", title="Delta (mean gap)"),
        alt.Tooltip("ci_text:N", title="CI-width"),
    ]
    extrapolated = "extrapolated" in df.columns and bool(df["extrapolated"].any())
    if extrapolated:
        tooltip.append(alt.Tooltip("extrapolated:N", title="extrapolation (items repeat)"))
    chart_title = split_title(title)
    key = MARK_KEY + (" x: extrapolation (more items than the data has)." if extrapolated else "")
    sub = chart_title.subtitle if isinstance(chart_title.subtitle, list) else []
    chart_title = alt.TitleParams(text=chart_title.text, subtitle=[*sub, *wrap(key, SUBTITLE_CHARS)])
    # a mark's size follows the cell: bandwidth('x') is the column's width in px (8 px on a phone, 30 at 1400 px)
    cell_px = "min(bandwidth('x'), bandwidth('y'))"
    # ONE frame for every layer (sent once; Altair copies a chart per layer, so each layer is a bare chart with its
    # own encoding rather than a copy of a base chart carrying data and title)
    enc = {"x": x, "y": y, "tooltip": tooltip}
    rect = alt.Chart().mark_rect(cursor="pointer").encode(color=color, **enc).add_params(sel)
    row = alt.Chart().transform_filter("datum.is_row").mark_rect(filled=False, stroke=HIGHLIGHT, strokeWidth=3)
    star = (
        alt.Chart()
        .transform_filter("datum.is_best")
        .mark_text(
            text="★",
            fontSize=alt.ExprRef(f"clamp({cell_px} * 0.45, 8, 14)"),
            color=HIGHLIGHT,
            stroke="#5c3d00",
            strokeWidth=0.4,
            dy=-9,
            cursor="pointer",
        )
    )
    dot = (
        alt.Chart()
        .transform_filter("datum.significant")
        .mark_point(
            shape="circle",
            filled=True,
            fill=SIG_FILL,
            stroke=SIG_STROKE,
            strokeWidth=1.3,
            opacity=1,
            size=alt.ExprRef(f"pow(clamp({cell_px} * 0.45, 5, 9), 2)"),
            yOffset=9,
            cursor="pointer",
        )
    )
    layers: list[alt.Chart] = [rect, row.encode(**enc), dot.encode(**enc), star.encode(**enc)]
    if extrapolated:
        # more items (N) than the data has: drawn with replacement, marked so it is not read as a measurement
        cross = (
            alt.Chart()
            .transform_filter("datum.extrapolated")
            .mark_text(
                text="x",
                fontSize=alt.ExprRef(f"clamp({cell_px} * 0.45, 8, 13)"),
                fontWeight="bold",
                color="white",
                stroke=SIG_STROKE,
                strokeWidth=0.8,
                cursor="pointer",
            )
        )
        layers.append(cross.encode(**enc))
    ring = (
        alt.Chart()
        .transform_filter("datum.is_chosen")
        .mark_point(
            shape="circle",
            color=CHOSEN,
            strokeWidth=2.5,
            size=alt.ExprRef(f"pow(max(6, {cell_px} - 3), 2)"),
            cursor="pointer",
        )
    )
    return alt.LayerChart(data=df, layer=[*layers, ring.encode(**enc)]).properties(
        title=chart_title,
        padding=PADDING,
        width=width,
        height=alt.Step(ROW_PX),
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
    )


def tick_format(lo: float, hi: float, ticks: int = 6) -> str:
    """A d3 number format for an axis from ``lo`` to ``hi``: as many decimals as a tick step needs, trailing zeros
    dropped, so a tick never shows float noise (0.30000000000000004 reads 0.3, a 1e-10 wide range is never drawn).

    >>> tick_format(-0.05, 0.12), tick_format(0.0, 27.6), tick_format(-0.01, 0.01)
    ('.2~f', '.0~f', '.3~f')
    """
    span = max(abs(hi - lo), 1e-12)
    decimals = -math.floor(math.log10(span / ticks))
    return f".{min(max(decimals, 0), 6)}~f"


def gap_distributions(
    alt_gaps: np.ndarray,
    null_gaps: np.ndarray,
    metric_label: str,
    title: str,
    names: tuple[str, str] | None = None,
) -> alt.LayerChart:
    """Overlaid histograms of the score gap (A minus B, positive = A looks better): alternative vs null.

    ``names``: legend names of the two samples (default: simulated alternative / null). Non-finite gaps are left
    out. When every gap is (nearly) the same, e.g. two models that agree on every item, the gaps are drawn as one
    bar on a readable axis around that value (at least 0.02 wide) instead of a range of float noise. Axis ticks and
    tooltips are formatted for the range shown (:func:`tick_format`).
    """
    names = names or ("A really better (alternative)", "no difference (null)")
    alt_gaps = np.asarray(alt_gaps, dtype=float).ravel()
    null_gaps = np.asarray(null_gaps, dtype=float).ravel()
    alt_gaps = alt_gaps[np.isfinite(alt_gaps)]
    null_gaps = null_gaps[np.isfinite(null_gaps)]
    both = np.concatenate([alt_gaps, null_gaps])
    lo, hi = (float(both.min()), float(both.max())) if both.size else (0.0, 0.0)
    bins = 40
    if hi - lo <= TIE_TOLERANCE * max(1.0, abs(lo), abs(hi)):
        # every gap (nearly) equal: one bar centred on that value (an odd number of bins puts it mid-bin)
        mid = 0.0 if abs(lo) <= TIE_TOLERANCE else (lo + hi) / 2.0
        half = max(0.01, abs(mid) * 0.05)
        alt_gaps = np.where(np.abs(alt_gaps - mid) <= half, mid, alt_gaps)
        null_gaps = np.where(np.abs(null_gaps - mid) <= half, mid, null_gaps)
        lo, hi, bins = mid - half, mid + half, 41
    edges = np.linspace(lo, hi, bins + 1)
    rows = []
    for name, data in ((names[0], alt_gaps), (names[1], null_gaps)):
        counts, _ = np.histogram(data, bins=edges)
        for c, left, right in zip(counts, edges[:-1], edges[1:], strict=True):
            rows.append({"datasets": name, "left": left, "right": right, "share": c / max(len(data), 1)})
    df = pd.DataFrame(rows)
    fmt = tick_format(lo, hi)
    fine = f".{int(fmt[1:-2]) + 1}~f"  # a bin's edges: one decimal more than the ticks
    color = alt.Color(
        "datasets:N",
        title=None,
        scale=alt.Scale(domain=list(names), range=[PALETTE[0], PALETTE[5]]),
        legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=400),
    )
    chart_title = split_title(title)
    bars = (
        alt.Chart(df, title=chart_title)
        .mark_rect(opacity=0.55)
        .encode(
            x=alt.X(
                "left:Q",
                title=f"score gap on {metric_label} (positive = A looks better)",
                axis=alt.Axis(labelOverlap=True, format=fmt, titleLimit=600),
                scale=alt.Scale(domain=[lo, hi], nice=False),
            ),
            x2=alt.X2("right"),
            y=alt.Y("share:Q", title="share of evaluations", stack=None, axis=alt.Axis(format=".0%")),
            y2=alt.Y2Datum(0),
            color=color,
            tooltip=[
                alt.Tooltip("datasets:N", title="evaluations"),
                alt.Tooltip("left:Q", title="gap from", format=fine),
                alt.Tooltip("right:Q", title="gap to", format=fine),
                alt.Tooltip("share:Q", title="share", format=".1%"),
            ],
        )
    )
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#444", strokeDash=[4, 3]).encode(x=alt.X("x:Q"))
    return alt.LayerChart(layer=[bars, zero]).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=340 + title_px(chart_title)
    )
