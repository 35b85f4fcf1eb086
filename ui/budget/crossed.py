"""The Budget page's "Who rated" section: resampling raters as well as items, beside items alone; ordered labels.

``crossed_section(ratings, predictions, models)`` draws, when switched on, one sentence and a table of p and the
95% interval's width per (budget, ratings per item (K)) with raters resampled and with items alone
(:func:`nkcore.nk.crossed.crossed_frames`); for ordered numeric labels, the MAE, Wasserstein-1 and Spearman scores
and the check of "MAE needs >= 25 ratings per item" (:func:`nkcore.nk.ordinal.ordinal_frames`). Numbers come through
``ui.common.cache.compute``; names (user text) reach the page through ``ui.common.text.md`` or tables only.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from nkcore.errors import DataError
from nkcore.nk import crossed, ordinal
from nkcore.nk.cell import Cell
from nkcore.nk.metrics import METRICS
from ui.common import cache, exports
from ui.common.datasets import Dataset
from ui.common.text import md

__all__ = ["BUDGETS", "KS", "ROUNDS", "crossed_section", "crossed_table", "ordinal_table"]

BUDGETS: tuple[int, ...] = (250, 1000, 2500)
KS: tuple[int, ...] = (1, 3, 5, 10)
ROUNDS = 500
_METRICS = ("acc", "tv", "wins", "kl", "js", "ce")


def crossed_table(cells: Sequence[Cell], metric: str) -> pd.DataFrame:
    """One row per (budget, K) of ``metric``: p and CI-width with raters resampled and with items alone."""
    rows = [
        {
            "budget (N x K)": c.budget,
            "ratings per item (K)": c.k,
            "items (N)": c.n,
            "p, raters too": c.p,
            "p, items only": c.item_p,
            "CI-width, raters too": c.ci_width,
            "CI-width, items only": c.item_ci_width,
            "width ratio": c.ci_width_ratio,
            "short of K": 100.0 * c.short_share,
        }
        for c in cells
        if c.metric == metric
    ]
    return pd.DataFrame(rows)


def ordinal_table(run: ordinal.OrdinalRun) -> pd.DataFrame:
    """Per model: MAE of the item mean, mean Wasserstein-1 and Spearman of the item means."""
    return pd.DataFrame(
        [
            {
                "model": s.model,
                "MAE of the item mean": s.mae,
                "Wasserstein-1": s.wasserstein,
                "Spearman (item means)": s.spearman,
                "items": s.n_items,
            }
            for s in run.scores
        ]
    )


_CONFIG = {
    "p, raters too": st.column_config.NumberColumn(format="%.3f"),
    "p, items only": st.column_config.NumberColumn(format="%.3f"),
    "CI-width, raters too": st.column_config.NumberColumn(format="%.3g"),
    "CI-width, items only": st.column_config.NumberColumn(format="%.3g"),
    "width ratio": st.column_config.NumberColumn(
        format="%.2f", help="CI-width with raters resampled divided by CI-width with items alone."
    ),
    "short of K": st.column_config.NumberColumn(
        format="%.0f%%",
        help="Average share of items left with fewer than K ratings once raters are drawn; they cannot be drawn.",
    ),
}


def crossed_section(
    ratings: Dataset,
    predictions: Dataset,
    models: tuple[str, str],
    budgets: Sequence[int] = BUDGETS,
    ks: Sequence[int] = KS,
) -> None:
    """Draw the rater-identity comparison for models A, B on ``ratings`` and ``predictions`` (both real data).

    The resampling runs only when the reader switches it on (``?bud_raters=true``); the ordinal check shows when
    the labels are ordered numbers. A ``DataError`` is shown as a message and ends that part.
    """
    st.subheader("Who rated: does counting the raters change the answer?")
    if "rater" not in ratings.frame.columns:
        st.info("These ratings are label counts without rater ids, so raters cannot be resampled.")
    else:
        st.caption(
            "Resampling items alone treats every rating as coming from a fresh rater. When the same raters label many "
            "items, their habits are shared by the whole dataset; drawing raters as well as items (a crossed, or "
            "pigeonhole, bootstrap) counts that uncertainty too."
        )
        on = st.toggle("Resample raters as well as items", value=False, key="bud_raters", bind="query-params")
        metric = st.selectbox(
            "Metric",
            _METRICS,
            format_func=lambda m: METRICS[m].label,
            key="bud_raters_metric",
            bind="query-params",
        )
        if on:
            try:
                run = cache.compute(
                    crossed.crossed_frames,
                    ratings,
                    predictions,
                    model_a=models[0],
                    model_b=models[1],
                    budgets=tuple(int(b) for b in budgets),
                    ks=tuple(int(k) for k in ks),
                    metrics=(metric,),
                    rounds=ROUNDS,
                    seed=0,
                )
            except DataError as exc:
                st.error(md(str(exc)))
            else:
                st.markdown(f"**{md(run.sentence)}**")
                st.caption(
                    f"{run.n_items:,} items with both models' predictions, rated by {run.n_raters:,} raters "
                    f"({run.ratings_per_rater[0]:,} to {run.ratings_per_rater[2]:,} ratings each); {run.rounds} "
                    "rounds per cell. p below 0.05 means the comparison is reproducible at that budget."
                    + (
                        f" Skipped: K = {', '.join(map(str, run.skipped_k))} (no item has that many ratings)."
                        if run.skipped_k
                        else ""
                    )
                )
                exports.table(
                    crossed_table(run.cells, metric),
                    "crossed_vs_items",
                    hide_index=True,
                    width="stretch",
                    column_config=_CONFIG,
                )
    if ordinal.is_ordinal_frame(ratings.frame):
        _ordinal_part(ratings, predictions, models)


def _ordinal_part(ratings: Dataset, predictions: Dataset, models: tuple[str, str]) -> None:
    st.markdown("**Ordered labels**")
    try:
        run = cache.compute(
            ordinal.ordinal_frames, ratings, predictions, model_a=models[0], model_b=models[1], rounds=ROUNDS
        )
    except DataError as exc:
        st.error(md(str(exc)))
        return
    st.markdown(md(run.sentence))
    st.caption(
        "The labels are numbers on one scale, so closeness counts: MAE compares each model's mean rating of an item "
        "with the raters' mean, Wasserstein-1 the whole spread of ratings, Spearman whether the models rank the "
        "items as the raters do. If the numbers are only codes for categories, these scores mean nothing: use the "
        "label metrics instead." + (f" Wide scale binned: {md(run.binning.text)}." if run.binning is not None else "")
    )
    exports.table(
        ordinal_table(run),
        "ordinal_scores",
        hide_index=True,
        width="stretch",
        column_config={
            "MAE of the item mean": st.column_config.NumberColumn(format="%.3f"),
            "Wasserstein-1": st.column_config.NumberColumn(format="%.3f"),
            "Spearman (item means)": st.column_config.NumberColumn(format="%.3f"),
        },
    )
