"""Ratings held per item in nested cells, flattened into the flat layouts NK Planner reads.

Some datasets publish one record per item with the ratings inside it:

- **rater lists** (LeWiDi 2023 and 2025): ``annotators`` ("Ann1,Ann2,Ann3" or a list) with ``annotations`` in
  the same order ("1,0,0" or a list), or ``annotations`` as an object {rater: label}; flattened to one row per
  rating (``item, rater, label``);
- **label counters** (ChaosNLI's ``label_counter``: {"e": 30, "n": 70}): an object of label -> whole count per
  item; flattened to label counts (``item`` + one ``count_<label>`` column per label);
- **score lists without raters** (Pavlick & Kwiatkowski's ``labels``: 40 slider positions per item): anonymous
  ratings. Categorical values become label counts; graded scores (many distinct non-whole numbers) are refused
  with what to do, since ratings are categorical labels.

The item is the column named like an item id (``item``, ``uid``, ``id``...) or the key of a JSON object of records
(:data:`nkcore.io.jsonl.KEY_COLUMN`). Columns naming a dataset, split, task or language are kept beside the ratings.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.kinds.columns import COUNT_PREFIX, SYNONYMS, normal_name
from nkcore.kinds.detect import detect_kind
from nkcore.kinds.values import graded_advice, graded_scores, natural_order, show_value

__all__ = ["RATER_LISTS", "Flattened", "flatten_nested"]

# Column names of per-item rater lists and of the labels that go with them.
RATER_LISTS = ("annotators", "raters", "workers", "annotator_ids", "rater_ids", "worker_ids", "users")
_LABEL_LISTS = ("annotations", "labels", "ratings", "judgments", "judgements", "votes", "responses", "scores")
_COUNTERS = ("label_counter", "label_counts", "counter", "counts", "votes", "label_count")
# Scalar columns kept beside the flattened ratings (a subset chooser can then split on them).
_KEPT = ("dataset", "split", "task", "subset", "lang", "language", "source", "data_split", "dataset_name")
_RECORD_KEYS = ("key", "_key")
_PEEK = 50  # cells looked at to tell a column's shape


@dataclass(frozen=True, slots=True)
class Flattened:
    """A nested ratings table made flat: ``frame`` (``item, rater, label`` rows, or ``item`` + ``count_<label>``
    columns), its ``layout`` ("rows" or "counts") and ``reason``, a sentence saying what was read from which
    columns."""

    frame: pd.DataFrame
    layout: str
    reason: str


def _peek(col: pd.Series) -> list[object]:
    return col.dropna().head(_PEEK).tolist()


def _shape(col: pd.Series) -> str | None:
    """ "dict", "list" or "text" when the first present cells of an object column are all of that shape."""
    if pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
        return None
    cells = _peek(col)
    if not cells:
        return None
    for kind, types in (("dict", (dict,)), ("list", (list, tuple)), ("text", (str,))):
        if all(isinstance(c, types) for c in cells):
            return kind
    return None


def _item_column(frame: pd.DataFrame, taken: set[str]) -> str | None:
    names = {normal_name(c): str(c) for c in frame.columns if str(c) not in taken}
    for n in (*SYNONYMS["item"], *_RECORD_KEYS):
        if n in names:
            return names[n]
    return None


def _named(frame: pd.DataFrame, names: tuple[str, ...]) -> list[str]:
    by = {normal_name(c): str(c) for c in frame.columns}
    return [by[n] for n in names if n in by]


def _kept(frame: pd.DataFrame, taken: set[str]) -> list[str]:
    return [
        str(c)
        for c in frame.columns
        if str(c) not in taken and normal_name(c) in _KEPT and _shape(frame[c]) in (None, "text")
    ]


def _as_list(cell: object) -> list[object] | None:
    """A list cell as a list, a comma-separated text as its stripped parts; None for a missing cell."""
    if isinstance(cell, (list, tuple)):
        return list(cell)
    if isinstance(cell, str):
        return [p.strip() for p in cell.split(",")] if cell.strip() else []
    if cell is None or (isinstance(cell, float) and np.isnan(cell)):
        return None
    return [cell]


def _label_text(value: object) -> str | None:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value).strip()
    return text or None


def _rater_rows(frame: pd.DataFrame, item: str, raters: str | None, labels: str, name: str) -> Flattened:
    """One row per rating from per-item rater lists (``raters`` parallel to ``labels``, or ``labels`` an object
    {rater: label})."""
    items: list[str] = []
    who: list[str] = []
    what: list[str | None] = []
    origin: list[int] = []
    cap = limits.get("rows")
    for row, (key, rs, ls) in enumerate(
        zip(
            frame[item].tolist(),
            frame[raters].tolist() if raters else [None] * len(frame),
            frame[labels].tolist(),
            strict=True,
        )
    ):
        if isinstance(ls, Mapping):
            pairs = [(str(r).strip(), v) for r, v in ls.items()]
        else:
            r_list, l_list = _as_list(rs), _as_list(ls)
            if r_list is None or l_list is None:
                continue
            if len(r_list) != len(l_list):
                raise DataError(
                    f"{name}: item {show_value(key)} (data row {row + 1:,}) lists {plural(len(r_list), 'rater')} in "
                    f"{raters!r} but {plural(len(l_list), 'label')} in {labels!r}; give one label per rater, in the "
                    "same order"
                )
            pairs = [(str(r).strip(), v) for r, v in zip(r_list, l_list, strict=True)]
        for r, v in pairs:
            items.append(str(key))
            who.append(r)
            what.append(_label_text(v))
            origin.append(row)
        if len(items) > cap:
            limits.check("rows", len(items), f"{name} (ratings, at least)")
    if not items:
        raise DataError(f"{name}: no ratings in columns {raters!r} and {labels!r} (every item's list is empty)")
    out = pd.DataFrame({"item": items, "rater": who, "label": what})
    at = np.asarray(origin)
    for col in _kept(frame, {item, labels, *([raters] if raters else [])}):
        out[col] = frame[col].to_numpy()[at]
    source = f"{raters} + {labels}" if raters and not isinstance(_peek(frame[labels])[0], Mapping) else labels
    reason = (
        f"one record per item with its raters' labels (item <- {item}; raters and labels <- {source}), turned into "
        f"one row per rating: {len(out):,} ratings of {frame[item].nunique():,} items"
    )
    return Flattened(out, "rows", reason)


def _whole_counts(cells: list[object]) -> bool:
    return all(
        isinstance(c, Mapping)
        and len(c) > 0
        and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 and float(v).is_integer()
            for v in c.values()
        )
        for c in cells
    )


def _counter_counts(frame: pd.DataFrame, item: str, counter: str, name: str) -> Flattened:
    """Label counts from a column of {label: count} objects."""
    table: dict[str, dict[int, int]] = {}
    for row, cell in enumerate(frame[counter].tolist()):
        if not isinstance(cell, Mapping):
            continue
        for label, count in cell.items():
            if not isinstance(count, (int, float)) or isinstance(count, bool) or count < 0 or count != int(count):
                raise DataError(
                    f"{name}: column {counter!r} must hold whole counts >= 0 per label; data row {row + 1:,} "
                    f"has {show_value(label)}: {show_value(count)}"
                )
            table.setdefault(str(label), {})[row] = int(count)
    labels = natural_order(list(table))
    limits.check("labels", len(labels), name)
    out = pd.DataFrame({"item": frame[item].astype(str).to_numpy()})
    # a count past int64 (10^30) is kept as a float, so the count reader refuses it by the ratings-per-item limit
    huge = any(c > 2**62 for per_label in table.values() for c in per_label.values())
    for label in labels:
        counts = np.zeros(len(frame), dtype=np.float64 if huge else np.int64)
        for row, count in table[label].items():
            counts[row] = count
        out[f"{COUNT_PREFIX}{label}"] = counts
    for col in _kept(frame, {item, counter}):
        out[col] = frame[col].to_numpy()
    shown = ", ".join(labels[:8]) + (" ..." if len(labels) > 8 else "")
    reason = (
        f"one record per item with its label counts (item <- {item}; counts <- {counter}, labels {shown}): read "
        "as ratings kept as counts (no rater ids)"
    )
    return Flattened(out, "counts", reason)


def _tally(cell: object) -> dict[str, int] | None:
    """{label: how many times} of one item's list of values (None for a missing cell)."""
    values = _as_list(cell)
    if values is None:
        return None
    return dict(Counter(t for t in map(_label_text, values) if t is not None))


def _score_counts(frame: pd.DataFrame, item: str, scores: str, name: str) -> Flattened:
    """Anonymous ratings (a list of values per item, no raters) as label counts; graded scores are refused."""
    values = [v for cell in frame[scores].tolist() for v in (_as_list(cell) or [])]
    graded = graded_scores(pd.Series(values, dtype=object))
    if graded is not None:
        raise DataError(f"{name}: {graded_advice(scores, graded)}")
    counters = [_tally(cell) for cell in frame[scores].tolist()]
    flat = _counter_counts(
        frame.assign(**{scores: pd.Series(counters, index=frame.index, dtype=object)}), item, scores, name
    )
    reason = (
        f"anonymous ratings (item <- {item}, a list of labels per item in {scores}, no rater ids): read as label counts"
    )
    return Flattened(flat.frame, "counts", reason)


def flatten_nested(frame: pd.DataFrame, name: str = "the file") -> Flattened | None:
    """The flat ratings of a table whose ratings are nested per item, or None when nothing is nested.

    Only a table that no kind fits as it is (:func:`nkcore.kinds.detect_kind` finds a role missing) is looked at.
    Rules, first match wins (see the module doc): a rater-list column (``annotators``...) with a label column
    (``annotations``...) of lists, comma-separated text in the same order, or {rater: label} objects -> one row per
    rating; a column of {label: whole count} objects (``label_counter``...) -> label counts; a label column of
    lists with no rater column -> label counts of anonymous ratings, refused when the values are graded scores
    (:func:`nkcore.kinds.values.graded_scores`). Needs an item column (named like an item id, or a record key).
    Errors (DataError naming the file, item and row): a rater list and a label list of different lengths; a count
    that is not a whole number >= 0; graded scores; the row and label limits.

    >>> f = pd.DataFrame({"key": ["1", "2"], "annotators": ["A,B", "A,C"], "annotations": ["1,0", "0,0"]})
    >>> flatten_nested(f).frame.to_dict("list")
    {'item': ['1', '1', '2', '2'], 'rater': ['A', 'B', 'A', 'C'], 'label': ['1', '0', '0', '0']}
    >>> g = pd.DataFrame({"uid": ["a", "b"], "label_counter": [{"e": 3, "n": 1}, {"n": 4}]})
    >>> flatten_nested(g).frame.to_dict("list")
    {'item': ['a', 'b'], 'count_e': [3, 0], 'count_n': [1, 4]}
    """
    if len(frame) == 0 or not detect_kind(frame).missing:  # a flat table of some kind (or label counts)
        return None
    label_lists = [c for c in _named(frame, _LABEL_LISTS) if _shape(frame[c]) in ("dict", "list", "text")]
    rater_lists = [c for c in _named(frame, RATER_LISTS) if _shape(frame[c]) in ("list", "text")]
    for labels in label_lists:
        shape = _shape(frame[labels])
        item = _item_column(frame, {labels, *rater_lists})
        if item is None:
            continue
        if (
            shape == "dict"
            and all(
                isinstance(c, Mapping) and all(not isinstance(v, (dict, list)) for v in c.values())
                for c in _peek(frame[labels])
            )
            and not _whole_counts(_peek(frame[labels]))
        ):
            return _rater_rows(frame, item, rater_lists[0] if rater_lists else None, labels, name)
        if rater_lists and shape in ("list", "text"):
            return _rater_rows(frame, item, rater_lists[0], labels, name)
    for counter in [c for c in frame.columns if _shape(frame[c]) == "dict"]:
        cells = _peek(frame[counter])
        if _whole_counts(cells) and (normal_name(counter) in _COUNTERS or "count" in normal_name(counter)):
            item = _item_column(frame, {str(counter)})
            if item is not None:
                return _counter_counts(frame, item, str(counter), name)
    if not rater_lists:
        for labels in label_lists:
            if _shape(frame[labels]) == "list":
                item = _item_column(frame, {labels})
                if item is not None:
                    return _score_counts(frame, item, labels, name)
    return None
