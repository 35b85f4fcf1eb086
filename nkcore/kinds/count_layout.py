"""Recognising a label-count table: an item column plus one column of whole-number counts per label.

The shape test behind kind detection (:func:`nkcore.kinds.detect_kind`) and the count parser
(:func:`nkcore.ratings.ratings_from_counts`), so it lives with the column rules (it reads no ratings).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.kinds.columns import COUNT_PREFIX, SYNONYMS, normal_name

__all__ = ["COUNT_PREFIX", "CountColumns", "count_columns", "item_column", "whole_nonneg"]

# Prefix of a label-count column (count_e, count_airplane); columns named like these hold per-item totals or other
# bookkeeping, never one label's count.
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


def _numeric(col: pd.Series) -> bool:
    """Numeric (not boolean) column, or empty in every row."""
    if col.isna().all():
        return True
    return pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype)


def whole_nonneg(col: pd.Series) -> bool:
    """Numeric (not boolean) column whose present values are whole numbers >= 0 (empty cells allowed)."""
    if col.isna().all():
        return True
    if not _numeric(col):
        return False
    v = col.to_numpy(dtype=np.float64, na_value=np.nan)
    v = v[~np.isnan(v)]
    return bool(np.all((v >= 0) & (v == np.floor(v))))


def item_column(columns: list[str], taken: set[str]) -> str | None:
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

    Count columns are ``count_<label>`` (the label is the rest of the name; numbers, each row checked by the parser);
    without any, and with
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
    if prefixed:  # named count_<label>: numbers are enough (the parser names a row that is not a whole count)
        if check_values and not all(_numeric(frame[c]) for c in prefixed.values()):
            return None
        labels = prefixed
    elif named_labels:
        item_guess = item_col or item_column(columns, set())
        labels = {
            c: c for c in columns if c != item_guess and normal_name(c) not in _NOT_LABELS and whole_nonneg(frame[c])
        }
    else:
        return None
    if len(labels) < 2:
        return None
    taken = set(labels.values())
    item = item_col or item_column(columns, taken) or next((c for c in columns if c not in taken), None)
    if item is None:
        return None
    rest = [c for c in columns if c not in taken and c != item]
    total = next((c for c in rest if normal_name(c) in _TOTAL_NAMES and whole_nonneg(frame[c])), None)
    subset = next((c for c in rest if normal_name(c) in ("subset", "split", "dataset")), None)
    return CountColumns(item, labels, total, subset)
