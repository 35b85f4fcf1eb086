"""The Data page's ratings view: the summary (items kept by ratings per item (K)), an ordered scale, who rated.

``ratings_summary(ds)`` draws the key numbers and returns them with the label and K charts; ``ratings_details(ds,
min_k)`` then draws, for labels that are ordered numbers (``nkcore.nk.ordinal.is_ordinal_frame``), what the scale is
and which metrics use the order, the bins of a wide scale (more than 11 values, e.g. -50..50) and the spread of the
items' mean ratings, and finally the per-rater section (``ui.data.raters``).

A wide scale is summarised on its bins (as the (N, K) engine sees it): the binned table is a derived ``Dataset``
whose fingerprint is the source's plus the number of bins, so ``ui.common.cache`` keys stay exact. The items' mean
ratings are read on the unbinned values. Controls are bound to the link: ``dat_min_k``, ``dat_bins``.
"""

from __future__ import annotations

from dataclasses import replace

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from nkcore import summary as nksummary
from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.nk import ordinal
from nkcore.summary.ratings import RatingsSummary
from ui.common import cache, exports
from ui.charts import data as charts_data
from ui.charts import EXPORT_WIDTH, PADDING, PALETTE, draw, title, title_px
from ui.common.datasets import Dataset
from ui.data.raters import raters_section
from ui.common.text import md

__all__ = [
    "BINS_MAX",
    "binned",
    "item_mean_chart",
    "ratings_details",
    "ratings_summary",
    "upload_bins_chooser",
]

BINS_MAX = 20


def binned(ds: Dataset, bins: int) -> tuple[Dataset, ordinal.Binning | None]:
    """``ds`` with a wide numeric scale cut into ``bins`` equal bins (a derived dataset), and the bins; else ``ds``."""
    frame, _, binning = cache.compute(ordinal.bin_frames, ds, n_bins=int(bins))
    if binning is None:
        return ds, None
    return replace(ds, fingerprint=f"{ds.fingerprint}:bins={int(bins)}", frame=frame), binning


def upload_bins_chooser(table: pd.DataFrame, token: str) -> int:
    """For an uploaded ratings table whose labels are an ordered numeric scale with more distinct values than the
    server's label limit (NKP_MAX_LABELS), the number of equal bins to store it in (chosen by the reader); else 0."""
    if "label" not in table.columns or not ordinal.is_ordinal_frame(table):
        return 0
    distinct = int(table["label"].nunique())
    if distinct <= limits.get("labels"):
        return 0
    bins = int(
        st.slider(
            "Store the scale cut into this many equal bins",
            2,
            BINS_MAX,
            ordinal.DEFAULT_BINS,
            key=f"_dat_upbins_{token}",
            help="Each bin is named by its midpoint, so the bins keep their order.",
        )
    )
    binning = upload_binning(table, bins)
    st.caption(
        md(
            f"The labels are numbers with {distinct:,} different values, more than the {limits.get('labels'):,} "
            f"labels this server counts, so the scale is stored in {binning.text}."
        )
    )
    return bins


def upload_binning(table: pd.DataFrame, bins: int) -> ordinal.Binning:
    """The bins :func:`nkcore.nk.ordinal.bin_frames` would cut ``table``'s scale into (the table must be wide)."""
    binning = ordinal.bin_frames(table[["label"]], None, bins)[2]
    if binning is None:
        raise DataError("the labels are not a wide numeric scale, so there is nothing to bin")
    return binning


def _wide(ds: Dataset) -> bool:
    """Labels are an ordered numeric scale with more than 11 values, one row per rating (label counts are kept)."""
    if "label" not in ds.frame.columns or not ordinal.is_ordinal_frame(ds.frame):
        return False
    return binned(ds, ordinal.DEFAULT_BINS)[1] is not None


def _bins() -> int:
    return int(
        st.slider(
            "Bins for the wide scale",
            2,
            BINS_MAX,
            ordinal.DEFAULT_BINS,
            key="dat_bins",
            bind="query-params",
            help="The scale is cut into this many equal bins, each named by its midpoint; the labels, numbers and "
            "charts of this view use the bins. The Budget page uses 5 bins.",
        )
    )


def ratings_summary(ds: Dataset) -> tuple[RatingsSummary, list[alt.TopLevelMixin]]:
    """Draw the min-K slider and return the summary of the items kept and its two charts (labels, K).

    A wide numeric scale is summarised on its bins (the bins slider is drawn here, above the numbers)."""
    view = binned(ds, _bins())[0] if _wide(ds) else ds
    full = cache.compute(nksummary.summarize, view, kind="ratings")
    assert isinstance(full, RatingsSummary)
    min_k = 1
    if full.k_max > full.k_min:  # a slider only when items differ in ratings per item (K)
        min_k = st.slider(
            "Keep only items with at least this many ratings per item (K)",
            1,
            full.k_max,
            1,
            key="dat_min_k",
            bind="query-params",
            help="Items with fewer ratings are left out of every number and chart below.",
        )
    summary = full if min_k == 1 else cache.compute(nksummary.summarize, view, kind="ratings", min_k=min_k)
    assert isinstance(summary, RatingsSummary)
    charts: list[alt.TopLevelMixin] = [
        charts_data.label_bars(summary.labels, "How often each label was given"),
        charts_data.k_histogram(full.k_hist, min_k),
    ]
    return summary, charts


def item_mean_chart(means: pd.Series, edges: tuple[float, ...] = ()) -> alt.LayerChart | alt.FacetChart:
    """Histogram of the items' mean ratings (about 20 bins over the scale); bin edges of a wide scale as rules."""
    data = pd.DataFrame({"mean": means.to_numpy(dtype=float)})
    chart_title = title(
        "Mean rating of each item",
        "grey lines: the bins' edges" if edges else "how the raters' average is spread over the items",
    )
    bars = (
        alt.Chart(data)
        .mark_bar(color=PALETTE[2])
        .encode(
            x=alt.X("mean:Q", bin=alt.Bin(maxbins=20), title="mean rating of the item"),
            y=alt.Y("count():Q", title="items (N)", axis=alt.Axis(format=",~d")),
            tooltip=[
                alt.Tooltip("mean:Q", bin=alt.Bin(maxbins=20), title="mean rating", format=".2f"),
                alt.Tooltip("count():Q", title="items", format=","),
            ],
        )
    )
    layers: list[alt.Chart] = [bars]
    if edges:
        rules = alt.Chart(pd.DataFrame({"edge": list(edges)})).mark_rule(color="#8d96a3", strokeDash=[4, 3])
        layers.append(rules.encode(x=alt.X("edge:Q")))
    return alt.layer(*layers, title=chart_title).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=220 + title_px(chart_title)
    )


def _scale_words(values: np.ndarray) -> str:
    lo, hi = float(values.min()), float(values.max())
    return f"{lo:g}-{hi:g}" if lo >= 0 else f"{lo:g} to {hi:g}"


def ratings_details(ds: Dataset, min_k: int = 1) -> list[alt.TopLevelMixin]:
    """Draw the ordered-scale part (when the labels are ordered numbers) and the per-rater section.

    Returns the charts drawn (for the page's HTML summary)."""
    drawn: list[alt.TopLevelMixin] = []
    if ordinal.is_ordinal_frame(ds.frame):
        drawn = _ordinal_part(ds, min_k)
    raters_section(ds)
    return drawn


def _ordinal_part(ds: Dataset, min_k: int) -> list[alt.TopLevelMixin]:
    st.subheader("Ordered labels")
    ordered = st.toggle(
        "Read the numbers as an ordered scale",
        value=True,
        key="dat_ordered",
        bind="query-params",
        help="Turn off when the numbers are codes for categories (0 = one class, 1 = another): their order then "
        "means nothing.",
    )
    if not ordered:
        st.caption("The labels are numbers but are read here as codes for categories: no order, no scale metrics.")
        return []
    try:
        means = ordinal.item_mean_values(ds.frame, min_k)
        bins = int(st.session_state.get("dat_bins", ordinal.DEFAULT_BINS))
        binning = binned(ds, bins)[1] if _wide(ds) else None
    except (DataError, ValueError) as exc:
        st.error(md(str(exc)))
        return []
    values = ordinal.scale_values(ds.frame)
    head = f"Labels {_scale_words(values)} are numbers, so they are read as an ordered scale"
    if binning is not None:
        st.markdown(
            md(
                f"{head}: {values.size:,} different values, too many to count each one as a label, so they are cut "
                f"into {binning.text}. If they are codes for categories, turn this off."
            )
        )
    else:
        near = f"a {values[-2]:g} is closer to a {values[-1]:g} than a {values[0]:g} is"
        listed = "" if values.size == values[-1] - values[0] + 1 else f" ({', '.join(f'{v:g}' for v in values)})"
        st.markdown(md(f"{head}{listed}: {near}. If they are codes for categories, turn this off."))
    st.caption(
        "So closeness counts, not only an exact match. Beside the label metrics, a model can be scored by the MAE "
        "of the item mean (how far its mean rating of an item is from the raters' mean, averaged over items), by "
        "Wasserstein-1 (how much of the ratings, and how far along the scale, must move to turn the model's "
        "ratings into the raters'), and by Spearman's correlation (whether the model ranks the items as the "
        "raters' means do). The Budget page computes them for two models' predictions."
    )
    if means.empty or not np.all(np.isfinite(means.to_numpy(dtype=float))):
        st.info("No item has a mean rating to show (every label must be a number).")
        return []
    chart = item_mean_chart(means, binning.edges if binning is not None else ())
    draw(chart)
    exports.download_chart(chart, "ratings_item_means", explains="Bars: items per range of mean rating")
    q = means.quantile([0.1, 0.5, 0.9])
    st.caption(
        f"{len(means):,} items (N): the median item's mean rating is {q[0.5]:.2f}; 80% of items lie between "
        f"{q[0.1]:.2f} and {q[0.9]:.2f}."
    )
    return [chart]
