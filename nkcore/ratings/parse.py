"""The one parser of ratings (item, rater, label) and of model predictions (item, model, label / probabilities)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.rows import format_rows, rows_do_not
from nkcore.errors import DataError
from nkcore.kinds import natural_order, show_value
from nkcore.ratings.tables import (
    COUNT_TABLE_BYTES_PER_CELL,
    PROB_TOLERANCE,
    Predictions,
    Ratings,
    need_columns,
    text_column,
)


def _codes(values: pd.Series) -> tuple[np.ndarray, tuple[str, ...]]:
    """Integer codes into the natural-ordered unique values."""
    codes, uniques = pd.factorize(values)
    uniq = [str(u) for u in uniques]
    order = natural_order(uniq)
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[pd.Index(uniq).get_indexer(order)] = np.arange(len(uniq))
    return rank[codes], tuple(order)


def ratings_from_frame(df: pd.DataFrame) -> Ratings:
    """Validate a ratings table (columns item, rater, label; one row per rating) and count labels per item.

    counts[i, m] = #{rows with item i and label m}. Errors (DataError, naming rows): no rows; a missing or blank
    item / rater / label; the same rater rating the same item twice; fewer than 2 items; fewer than 2 label
    classes; more labels or items than ``limits.get("labels")`` / ``limits.get("items")``, or a count table over
    the memory limit (checked before the table is made). Items and labels are sorted naturally (numeric labels by value), so the result does not depend on
    the row order.

    Reference: the (N items x K ratings) layout of "Forest vs Tree" (arXiv 2508.03663), section 2.

    >>> r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "label": [2, 10, 2]}))
    >>> r.labels, r.counts.tolist()
    (('2', '10'), [[1, 1], [1, 0]])
    """
    need_columns(df, ("item", "rater", "label"), "ratings")
    if len(df) == 0:
        raise DataError("the ratings table has no rows")
    labels = text_column(df, "label", "label")
    items = text_column(df, "item", "item id")
    raters = text_column(df, "rater", "rater id")
    label_codes, label_names = _codes(labels)
    limits.check("labels", len(label_names), "the ratings table")
    item_codes, item_names = _codes(items)
    limits.check("items", len(item_names), "the ratings table")
    rater_codes, rater_uniques = pd.factorize(raters)
    n_items, n_labels, n_raters = len(item_names), len(label_names), len(rater_uniques)
    limits.check_memory(
        n_items * n_labels * COUNT_TABLE_BYTES_PER_CELL, f"the count table of {n_items:,} items x {n_labels:,} labels"
    )
    key = item_codes * max(n_raters, 1) + rater_codes
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(np.diff(key[order]) == 0)
    if len(dup):
        rows = np.sort(np.unique(np.concatenate([order[dup], order[dup + 1]])))
        first = order[dup[0] + 1]
        raise DataError(
            f"duplicate ratings: rater {show_value(raters.iloc[first])} rated item {show_value(items.iloc[first])} more than once "
            f"({len(dup)} duplicated (item, rater) pairs; {format_rows(rows)}). Likely causes: several datasets or splits in "
            "one file (keep one, or build the item id from the dataset and item columns); a rater who submitted twice "
            "(keep the first or last rating); a multi-select question (one row per ticked option). Keep one label per "
            "rater and item."
        )
    if n_items < 2:
        raise DataError(
            f"only one item ({show_value(item_names[0])}) in {len(df)} ratings: agreement and the (N, K) planner need at "
            "least 2 items (N)"
        )
    if n_labels < 2:
        raise DataError(
            f"only one label class: all {len(df)} ratings are {show_value(label_names[0])}; agreement and the (N, K) planner "
            "need at least 2 different labels"
        )
    counts = np.bincount(item_codes * n_labels + label_codes, minlength=n_items * n_labels).reshape(n_items, n_labels)
    return Ratings(item_names, label_names, counts.astype(np.int64, copy=False), len(df), int(n_raters))


def _prob_label(col: str) -> str:
    return col[2:]


def predictions_from_frame(df: pd.DataFrame, ratings: Ratings) -> Predictions:
    """Validate model predictions (item, model, pred_label and/or p_<label>) against ``ratings`` and align them.

    Errors (DataError, naming rows or columns): missing columns; blank item / model / pred_label; items the
    ratings do not have; the same (item, model) twice; predicted labels the ratings never use; p_<label> columns
    for unknown labels or a label without its column; probabilities that are missing, outside [0, 1], or whose
    row sum differs from 1 by more than :data:`PROB_TOLERANCE`. Without pred_label the hard label is the argmax
    of the probabilities (first label on ties).

    >>> r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]}))
    >>> p = predictions_from_frame(pd.DataFrame({"item": [2], "model": ["m"], "pred_label": ["y"]}), r)
    >>> p.hard.tolist()  # item "1" has no prediction (-1); item "2" is predicted "y" (code 1)
    [[-1, 1]]
    """
    need_columns(df, ("item", "model"), "predictions")
    prob_cols = [str(c) for c in df.columns if str(c).startswith("p_") and len(str(c)) > 2]
    has_hard = "pred_label" in df.columns
    if not has_hard and not prob_cols:
        raise DataError("predictions need a pred_label column and/or one probability column per label (p_<label>)")
    if len(df) == 0:
        raise DataError("the predictions table has no rows")
    labels = ratings.labels
    label_index = {lab: i for i, lab in enumerate(labels)}
    items = text_column(df, "item", "item id")
    models = text_column(df, "model", "model name")
    item_pos = pd.Index(ratings.items).get_indexer(items)
    unknown = np.flatnonzero(item_pos < 0)
    if len(unknown):
        names = list(dict.fromkeys(items.iloc[unknown].tolist()))
        shown = ", ".join(map(show_value, names[:5])) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        raise DataError(
            f"{len(names)} item{'s' if len(names) > 1 else ''} in the predictions {'are' if len(names) > 1 else 'is'} "
            f"not in the ratings: {shown} ({format_rows(unknown)}). Predictions must be for rated items."
        )
    model_codes, model_names = pd.factorize(models)
    n_models, n_items, n_labels = len(model_names), len(ratings.items), len(labels)
    if prob_cols:
        limits.check_memory(
            n_models * n_items * n_labels * 16, f"the probabilities of {n_models:,} models x {n_items:,} items"
        )
    key = model_codes.astype(np.int64) * n_items + item_pos
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(np.diff(key[order]) == 0)
    if len(dup):
        first = order[dup[0] + 1]
        rows = np.sort(np.unique(np.concatenate([order[dup], order[dup + 1]])))
        raise DataError(
            f"duplicate predictions: model {show_value(models.iloc[first])} predicts item {show_value(items.iloc[first])} more than once "
            f"({format_rows(rows)})"
        )
    probs = None
    if prob_cols:
        extra = [c for c in prob_cols if _prob_label(c) not in label_index]
        if extra:
            raise DataError(
                f"probability columns for labels the ratings never use: {', '.join(extra)}; the ratings' labels are "
                f"{', '.join(labels)}"
            )
        absent = [lab for lab in labels if f"p_{lab}" not in prob_cols]
        if absent:
            raise DataError(
                f"no probability column for label{'s' if len(absent) > 1 else ''} {', '.join(map(repr, absent))}: "
                f"give one p_<label> column per label ({', '.join('p_' + lab for lab in labels)})"
            )
        p = np.empty((len(df), n_labels), dtype=np.float64)
        for j, lab in enumerate(labels):
            col = pd.to_numeric(df[f"p_{lab}"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            bad = np.flatnonzero(~np.isfinite(col))
            if len(bad):
                raise DataError(f"column p_{lab} must hold a probability in every row; {rows_do_not(bad)}")
            out = np.flatnonzero((col < 0) | (col > 1))
            if len(out):
                raise DataError(f"column p_{lab} has values outside [0, 1] in {format_rows(out)}")
            p[:, j] = col
        sums = p.sum(axis=1)
        off = np.flatnonzero(np.abs(sums - 1.0) > PROB_TOLERANCE)
        if len(off):
            shown = ", ".join(f"{sums[i]:.4g}" for i in off[:3])
            raise DataError(
                f"probabilities do not sum to 1 in {format_rows(off)} (sums {shown}); each row's p_<label> columns "
                "must add up to 1"
            )
        probs = np.full((n_models, n_items, n_labels), np.nan)
        probs[model_codes, item_pos] = p
    hard = np.full((n_models, n_items), -1, dtype=np.int64)
    if has_hard:
        pred = text_column(df, "pred_label", "pred_label")
        codes = pd.Index(list(labels)).get_indexer(pred)
        never = np.flatnonzero(codes < 0)
        if len(never):
            names = list(dict.fromkeys(pred.iloc[never].tolist()))
            raise DataError(
                f"models predict label{'s' if len(names) > 1 else ''} the ratings never use: "
                f"{', '.join(map(show_value, names[:6]))} ({format_rows(never)}); the ratings' labels are {', '.join(labels)}"
            )
        hard[model_codes, item_pos] = codes
    else:
        hard[model_codes, item_pos] = np.argmax(p, axis=1)
    return Predictions(tuple(str(m) for m in model_names), labels, hard, probs, ratings.items)
