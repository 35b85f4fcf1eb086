"""Altair builders for the Budget (N x K) page: the heatmap over budget and K, and the gap distributions.

Data frames in, charts out; no statistics here (every number comes from ``nkcore.nk``).
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from nkcore.nk.sentences import TIE_TOLERANCE
from ui.charts import PALETTE

CELL_SELECTION = "cell"
"""Name of the click selection on the heatmap (read back from ``st.altair_chart(..., on_select="rerun")``)."""
HIGHLIGHT = "#edae49"


def heatmap(
    cells: pd.DataFrame,
    color_by: str,
    budget: int,
    best_k: int | None,
    chosen: tuple[int, int] | None,
    title: str,
) -> alt.LayerChart:
    """Budget (rows) x ratings per item K (columns), coloured by p-value or reproducibility.

    ``cells``: one row per cell of ONE metric, columns budget, k, n, p, delta, ci_width, reproducibility.
    Cells with p < 0.05 are outlined in black; the ``budget`` row is framed; its best K carries a star;
    the ``chosen`` (budget, K) cell is marked with a ring; cells with a true ``extrapolated`` column (more items than
    the data has) carry an "x". A click selects a cell (selection ``cell``).
    """
    df = cells.copy()
    df["significant"] = df["p"] < 0.05
    df["p_text"] = [("< 0.001" if p < 0.001 else f"{p:.3f}") for p in df["p"]]
    df["is_row"] = df["budget"] == budget
    df["is_best"] = df["is_row"] & (df["k"] == (best_k if best_k is not None else -1))
    df["is_chosen"] = [(b, k) == chosen for b, k in zip(df["budget"], df["k"], strict=True)]
    ks = sorted(df["k"].unique().tolist())
    budgets = sorted(df["budget"].unique().tolist(), reverse=True)
    # every K labelled (35 columns on the paper's grid): upright labels would hide every other one
    x = alt.X(
        "k:O",
        title="ratings per item (K)",
        sort=ks,
        axis=alt.Axis(labelAngle=-50 if len(ks) > 20 else 0, labelOverlap=False),
    )
    y = alt.Y("budget:O", title="budget (N x K ratings)", sort=budgets, axis=alt.Axis(format=","))
    if color_by == "p":
        color = alt.Color(
            "p:Q",
            title="p-value",
            scale=alt.Scale(scheme="blues", reverse=True, domain=[0, 0.5], clamp=True),
            legend=alt.Legend(orient="right", gradientLength=180),
        )
    else:
        color = alt.Color(
            "reproducibility:Q",
            title="A ahead in",
            scale=alt.Scale(scheme="blues", domain=[0.5, 1.0], clamp=True),
            legend=alt.Legend(orient="right", format=".0%", gradientLength=180),
        )
    sel = alt.selection_point(name=CELL_SELECTION, fields=["budget", "k"], on="click", clear=False)
    tooltip = [
        alt.Tooltip("budget:Q", title="budget (N x K)", format=","),
        alt.Tooltip("k:Q", title="ratings per item (K)"),
        alt.Tooltip("n:Q", title="items (N)"),
        alt.Tooltip("p_text:N", title="p-value"),
        alt.Tooltip("reproducibility:Q", title="A ahead in", format=".0%"),
        alt.Tooltip("delta:Q", title="Delta (mean gap)", format=".3g"),
        alt.Tooltip("ci_width:Q", title="CI-width", format=".3g"),
    ]
    base = alt.Chart(df, title=title).encode(x=x, y=y)
    rect = base.mark_rect(cursor="pointer").encode(color=color, tooltip=tooltip).add_params(sel)
    outline = (
        base.transform_filter("datum.significant")
        .mark_rect(filled=False, stroke="#111", strokeWidth=1.6)
        .encode(tooltip=tooltip)
    )
    row = base.transform_filter("datum.is_row").mark_rect(filled=False, stroke=HIGHLIGHT, strokeWidth=3)
    star = base.transform_filter("datum.is_best").mark_text(text="★", fontSize=15, color=HIGHLIGHT)
    layers: list[alt.Chart] = []
    if "extrapolated" in df.columns and bool(df["extrapolated"].any()):
        # more items (N) than the data has: drawn with replacement, marked so it is not read as a measurement
        layers.append(
            base.transform_filter("datum.extrapolated")
            .mark_text(text="x", fontSize=13, fontWeight="bold", color="#7a7a7a", dy=-8, dx=8)
            .encode(tooltip=[*tooltip, alt.Tooltip("extrapolated:N", title="extrapolation (items repeat)")])
        )
    ring = base.transform_filter("datum.is_chosen").mark_point(
        shape="circle", size=140, color="#d1495b", strokeWidth=2.5
    )
    height = max(160, 34 * len(budgets) + 90)
    return alt.LayerChart(layer=[rect, row, outline, star, *layers, ring]).properties(height=height)


def gap_distributions(
    alt_gaps: np.ndarray,
    null_gaps: np.ndarray,
    metric_label: str,
    title: str,
    names: tuple[str, str] | None = None,
) -> alt.LayerChart:
    """Overlaid histograms of the score gap (A minus B, positive = A looks better): alternative vs null.

    ``names``: legend names of the two samples (default: simulated alternative / null).
    """
    names = names or ("A really better (alternative)", "no difference (null)")
    alt_gaps = np.asarray(alt_gaps, dtype=float)
    null_gaps = np.asarray(null_gaps, dtype=float)
    lo = float(min(alt_gaps.min(), null_gaps.min()))
    hi = float(max(alt_gaps.max(), null_gaps.max()))
    if hi - lo <= TIE_TOLERANCE * max(1.0, abs(lo), abs(hi)):
        # every gap (nearly) equal, e.g. two models that agree on every item: one bin around it, on a readable axis
        mid = 0.0 if abs(lo) <= TIE_TOLERANCE else (lo + hi) / 2.0
        half = max(0.01, abs(mid) * 0.05)
        alt_gaps = np.where(np.abs(alt_gaps - mid) <= half, mid, alt_gaps)
        null_gaps = np.where(np.abs(null_gaps - mid) <= half, mid, null_gaps)
        lo, hi = mid - half, mid + half
    edges = np.linspace(lo, hi, 41)
    rows = []
    for name, data in ((names[0], alt_gaps), (names[1], null_gaps)):
        counts, _ = np.histogram(data, bins=edges)
        for c, left, right in zip(counts, edges[:-1], edges[1:], strict=True):
            rows.append({"datasets": name, "left": left, "right": right, "share": c / max(len(data), 1)})
    df = pd.DataFrame(rows)
    color = alt.Color(
        "datasets:N",
        title=None,
        scale=alt.Scale(domain=list(names), range=[PALETTE[0], PALETTE[5]]),
        legend=alt.Legend(labelLimit=400),
    )
    bars = (
        alt.Chart(df, title=title)
        .mark_rect(opacity=0.55)
        .encode(
            x=alt.X(
                "left:Q",
                title=f"score gap on {metric_label} (positive = A looks better)",
                axis=alt.Axis(labelOverlap=True),
                scale=alt.Scale(domain=[lo, hi], nice=False),
            ),
            x2="right:Q",
            y=alt.Y("share:Q", title="share of evaluations", stack=None, axis=alt.Axis(format=".0%")),
            y2=alt.datum(0),
            color=color,
            tooltip=[
                alt.Tooltip("datasets:N"),
                alt.Tooltip("left:Q", format=".3g"),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
    )
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#444", strokeDash=[4, 3]).encode(x="x:Q")
    return alt.LayerChart(layer=[bars, zero]).properties(height=380)
