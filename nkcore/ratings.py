"""Ratings (item, rater, label) and model predictions as count matrices, validated with precise messages.

``Ratings.counts[i, m]`` is how many raters gave item ``i`` label ``m``; this is the input of the (N, K) engine,
of agreement (Krippendorff's alpha) and of the plurality label. ``Predictions`` aligns each model's hard label
and (optionally) its probabilities with the same items and labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.rows import format_rows
from nkcore.errors import DataError
from nkcore.kinds import natural_order, show_names, show_value, to_text
from nkcore.kinds.columns import SYNONYMS, normal_name

__all__ = [
    "PROB_TOLERANCE",
    "CountColumns",
    "Predictions",
    "Ratings",
    "count_columns",
    "need_columns",
    "predictions_from_frame",
    "ratings_from_counts",
    "ratings_from_frame",
    "text_column",
]

# How far a row of probabilities may be from summing to 1 (files often round to 6 decimals).
PROB_TOLERANCE = 1e-3
# Bytes per cell of the items x labels count table while it is built and used (int64 tally, the table, the float
# copies and temporaries of a prior fit): checked against the memory limit before the table is made.
COUNT_TABLE_BYTES_PER_CELL = 48


@dataclass(frozen=True, slots=True, eq=False)
class Ratings:
    """Per-item label counts.

    ``items``: item ids in natural order; ``labels``: label names in natural order (numeric labels by value);
    ``counts``: (items (N), labels (M)) int64, ``counts[i, m]`` = ratings of item i with label m;
    ``n_ratings`` = counts.sum(); ``n_raters``: distinct raters (for label counts, which carry no rater ids, the
    largest ratings per item (K): a lower bound); ``from_counts``: True when read from a label-count table (no
    rater ids, one row per item).
    """

    items: tuple[str, ...]
    labels: tuple[str, ...]
    counts: np.ndarray
    n_ratings: int
    n_raters: int
    from_counts: bool = False

    @property
    def ratings_per_item(self) -> np.ndarray:
        """Ratings per item (K_i), shape (N,)."""
        return self.counts.sum(axis=1)


@dataclass(frozen=True, slots=True, eq=False)
class Predictions:
    """Each model's predictions on the rated items.

    ``models``: model names in order of first appearance; ``labels``: the ratings' labels; ``hard``: (models, items)
    int64 label codes into ``labels``, -1 where the model has no prediction for the item; ``probs``:
    (models, items, labels) float64 (NaN where missing) or None when the file has no p_<label> columns;
    ``items``: the ratings' items (the second axis).
    """

    models: tuple[str, ...]
    labels: tuple[str, ...]
    hard: np.ndarray
    probs: np.ndarray | None
    items: tuple[str, ...] = field(default=())


def need_columns(df: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    """DataError naming the canonical ``columns`` that ``df`` lacks (and the columns it has)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        have = show_names(df.columns)
        raise DataError(
            f"{what} need the columns {', '.join(columns)}; missing: {', '.join(missing)} (the table has: {have}). "
            "Map the file's columns first."
        )


def text_column(df: pd.DataFrame, col: str, what: str) -> pd.Series:
    """Stripped text values of ``col`` (RangeIndex); DataError naming the rows that are missing or blank."""
    text = to_text(df[col]).reset_index(drop=True)
    blank = (text.isna() | (text == "")).to_numpy()
    if blank.any():
        rows = np.flatnonzero(blank)
        raise DataError(f"missing or blank {what} in {format_rows(rows)} (column {col!r}); every row needs one")
    return text


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
    return Ratings(item_names, label_names, counts.astype(np.int64), len(df), int(n_raters))


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
                raise DataError(f"column p_{lab} must hold a probability in every row; {format_rows(bad)} do not")
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


# ------------------------------------------------------------------------------------------------ label counts
# Prefix of a label-count column (count_e, count_airplane); columns named like these hold per-item totals or other
# bookkeeping, never one label's count.
COUNT_PREFIX = "count_"
_NOT_LABELS = frozenset(
    {
        "n",
        "k",
        "total",
        "count",
        "counts",
        "n_annotations",
        "n_annotators",
        "n_ratings",
        "n_raters",
        "n_labels",
        "num_annotations",
        "num_ratings",
        "annotations",
        "ratings",
        "subset",
        "split",
    }
)
# Columns that may state each item's number of ratings; when present they must equal the row's count sum.
_TOTAL_NAMES = ("n_annotations", "n_ratings", "num_annotations", "num_ratings", "total", "n")


@dataclass(frozen=True, slots=True)
class CountColumns:
    """Which columns of a label-count table hold what: ``item`` the item id, ``labels`` label -> its count column,
    ``total`` a column stating each item's number of ratings (or None), ``subset`` a subset column (or None)."""

    item: str
    labels: dict[str, str]
    total: str | None = None
    subset: str | None = None


def _whole_nonneg(col: pd.Series) -> bool:
    """Numeric (not boolean) column whose present values are whole numbers >= 0 (empty cells allowed)."""
    if col.isna().all():
        return True
    if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
        return False
    v = col.to_numpy(dtype=np.float64, na_value=np.nan)
    v = v[~np.isnan(v)]
    return bool(np.all((v >= 0) & (v == np.floor(v))))


def _item_column(columns: list[str], taken: set[str]) -> str | None:
    """The column named most like an item id (:data:`nkcore.kinds.columns.SYNONYMS`), else None."""
    synonyms = SYNONYMS["item"]
    best: tuple[int, str] | None = None
    for col in columns:
        if col in taken:
            continue
        n = normal_name(col)
        rank = synonyms.index(n) if n in synonyms else (len(synonyms) if n.endswith("_id") or n == "idx" else None)
        if rank is None and n.endswith("_idx"):
            rank = len(synonyms)
        if rank is not None and (best is None or rank < best[0]):
            best = (rank, col)
    return best[1] if best else None


def count_columns(
    frame: pd.DataFrame, item_col: str | None = None, *, named_labels: bool = True, check_values: bool = True
) -> CountColumns | None:
    """Recognise a label-count table: an item column plus one column of whole numbers >= 0 per label.

    Count columns are ``count_<label>`` (the label is the rest of the name); without any, and with
    ``named_labels``, every other column of whole numbers >= 0 that is not a total or a subset (``n_annotations``,
    ``total``, ``subset``...) is a label named by its column. At least 2 count columns are needed. The item column
    is ``item_col`` or the column named most like an item id (``item``, ``uid``, ``image_id``, ``*_idx``...), else
    the first column that is not a count. Returns None when the table does not look like label counts
    (``check_values=False``: ``count_<label>`` columns count whatever they hold, for the parser to name bad rows).

    >>> f = pd.DataFrame({"uid": ["a", "b"], "count_e": [3, 0], "count_n": [1, 4], "n_annotations": [4, 4]})
    >>> c = count_columns(f)
    >>> c.item, c.labels, c.total
    ('uid', {'e': 'count_e', 'n': 'count_n'}, 'n_annotations')
    """
    columns = [str(c) for c in frame.columns]
    if item_col is not None and item_col not in columns:
        raise DataError(f"no column {item_col!r} for the item ids; the columns are {', '.join(columns[:20])}")
    prefixed = {
        c[len(COUNT_PREFIX) :]: c
        for c in columns
        if c.lower().startswith(COUNT_PREFIX) and len(c) > len(COUNT_PREFIX) and c != item_col
    }
    if prefixed:
        if check_values and not all(_whole_nonneg(frame[c]) for c in prefixed.values()):
            return None
        labels = prefixed
    elif named_labels:
        item_guess = item_col or _item_column(columns, set())
        labels = {
            c: c for c in columns if c != item_guess and normal_name(c) not in _NOT_LABELS and _whole_nonneg(frame[c])
        }
    else:
        return None
    if len(labels) < 2:
        return None
    taken = set(labels.values())
    item = item_col or _item_column(columns, taken) or next((c for c in columns if c not in taken), None)
    if item is None:
        return None
    rest = [c for c in columns if c not in taken and c != item]
    total = next((c for c in rest if normal_name(c) in _TOTAL_NAMES and _whole_nonneg(frame[c])), None)
    subset = next((c for c in rest if normal_name(c) in ("subset", "split", "dataset")), None)
    return CountColumns(item, labels, total, subset)


def ratings_from_counts(
    frame: pd.DataFrame,
    item_col: str | None = None,
    count_cols: Mapping[str, str] | Sequence[str] | None = None,
    *,
    subset: str | None = None,
) -> Ratings:
    """Ratings from a label-count table (one row per item, one count column per label), kept as counts.

    counts[i, m] = the item's value in label m's column; an empty cell is 0 (a label that does not apply to the
    row's subset). ``count_cols`` is label -> column, or a list of columns (``count_<label>`` names the label
    ``<label>``, any other column is the label of its own name); without it :func:`count_columns` finds them, and
    the item column too when ``item_col`` is None. A file with a subset column (``subset``, ``split``) holding
    several values needs ``subset=`` to pick one; count columns left all empty by that choice are dropped. The
    result is the :class:`Ratings` the per-rating parser :func:`ratings_from_frame` gives for the same ratings
    (items and labels in natural order), except ``n_raters``, which counts carry no ids for: it is the largest
    ratings per item (K), a lower bound.

    Errors (DataError, naming rows or columns): no count columns; a count that is not a whole number >= 0; an item
    id missing, blank or repeated; an item with no ratings; a total column (``n_annotations``) that differs from the
    row's count sum; a mixed-subset file without ``subset=``; fewer than 2 items or labels; the labels, items and
    memory limits.

    Reference: ChaosNLI (Nie, Zhou & Bansal 2020) and CIFAR-10H (Peterson et al. 2019) publish their ratings this way.

    >>> f = pd.DataFrame({"item": [2, 1], "count_y": [0, 1], "count_x": [1, 1]})
    >>> r = ratings_from_counts(f)
    >>> r.items, r.labels, r.counts.tolist(), r.n_ratings
    (('1', '2'), ('x', 'y'), [[1, 1], [1, 0]], 3)
    """
    if len(frame) == 0:
        raise DataError("the label-count table has no rows")
    if count_cols is None:
        found = count_columns(frame, item_col, check_values=False)
        if found is None:
            raise DataError(
                "no label-count columns found: give one column of whole numbers >= 0 per label, named count_<label> "
                f"(the table has: {', '.join(map(str, frame.columns[:20]))})"
            )
    else:
        pairs = (
            dict(count_cols)
            if isinstance(count_cols, Mapping)
            else {
                (c[len(COUNT_PREFIX) :] if c.lower().startswith(COUNT_PREFIX) and len(c) > len(COUNT_PREFIX) else c): c
                for c in map(str, count_cols)
            }
        )
        absent = [c for c in pairs.values() if c not in frame.columns]
        if absent:
            raise DataError(f"no count column {', '.join(map(repr, absent))} in the table")
        guess = count_columns(frame.drop(columns=list(pairs.values())), item_col, named_labels=False)
        item = item_col or _item_column([str(c) for c in frame.columns], set(pairs.values()))
        if item is None:
            raise DataError("no item column found in the label-count table; name it item (or pass item_col)")
        sub = next((str(c) for c in frame.columns if normal_name(c) in ("subset", "split", "dataset")), None)
        found = CountColumns(item, pairs, guess.total if guess else None, sub)
    if subset is not None:
        if found.subset is None:
            raise DataError(f"subset={subset!r} given, but the table has no subset column")
        frame = frame[to_text(frame[found.subset]) == subset]
        if len(frame) == 0:
            raise DataError(f"no rows of subset {subset!r} in the label-count table")
    elif found.subset is not None:
        names = natural_order([str(v) for v in to_text(frame[found.subset]).dropna().unique()])
        if len(names) > 1:
            shown = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
            raise DataError(
                f"the label-count table mixes {len(names)} subsets in column {found.subset!r} ({shown}); choose one "
                "(subset=..., --subset)"
            )
    frame = frame.reset_index(drop=True)
    values: dict[str, np.ndarray] = {}
    for label, col in found.labels.items():
        v = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.flatnonzero(frame[col].notna().to_numpy() & ~np.isfinite(v))
        bad = np.union1d(bad, np.flatnonzero(np.isfinite(v) & ((v < 0) | (v != np.floor(v)))))
        if len(bad):
            raise DataError(f"column {col} must hold whole numbers >= 0 (label counts); {format_rows(bad)} do not")
        if np.isnan(v).all():
            continue  # a label of another subset
        values[label] = np.nan_to_num(v, nan=0.0).astype(np.int64)
    items = text_column(frame, found.item, "item id")
    label_names = tuple(natural_order(list(values)))
    limits.check("labels", len(label_names), "the label-count table")
    limits.check("items", len(items), "the label-count table")
    limits.check_memory(
        len(items) * max(len(label_names), 1) * COUNT_TABLE_BYTES_PER_CELL,
        f"the count table of {len(items):,} items x {len(label_names):,} labels",
    )
    if len(label_names) < 2:
        raise DataError(
            f"only {len(label_names)} label count column{'s' if len(label_names) != 1 else ''} with values; agreement "
            "and the (N, K) planner need at least 2 labels"
        )
    dup = np.flatnonzero(items.duplicated(keep=False).to_numpy())
    if len(dup):
        raise DataError(
            f"item {show_value(items.iloc[dup[0]])} has more than one row of label counts ({format_rows(dup)}); "
            "give one row per item"
        )
    counts = np.column_stack([values[lab] for lab in label_names])
    per_item = counts.sum(axis=1)
    empty = np.flatnonzero(per_item == 0)
    if len(empty):
        raise DataError(f"items with no ratings (every count 0 or empty) in {format_rows(empty)}; drop those rows")
    if found.total is not None:
        total = pd.to_numeric(frame[found.total], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        off = np.flatnonzero(np.isfinite(total) & (total != per_item))
        if len(off):
            i = off[0]
            raise DataError(
                f"column {found.total} says {total[i]:.0f} ratings but the label counts add up to {per_item[i]} in "
                f"{format_rows(off)}; fix the counts or the total"
            )
    if len(items) < 2:
        raise DataError(f"only one item ({show_value(items.iloc[0])}): the (N, K) planner needs at least 2 items (N)")
    order = np.asarray(pd.Index(items).get_indexer(natural_order(items.tolist())))
    counts = counts[order]
    return Ratings(
        tuple(items.iloc[order].tolist()),
        label_names,
        counts.astype(np.int64),
        int(counts.sum()),
        int(per_item.max()),
        from_counts=True,
    )
