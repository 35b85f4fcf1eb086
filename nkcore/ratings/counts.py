"""Label-count files (an item column plus one count column per label) read as ratings, kept as counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.rows import format_rows, rows_do_not
from nkcore.errors import DataError
from nkcore.kinds import natural_order, show_value, to_text
from nkcore.kinds.columns import normal_name
from nkcore.kinds.count_layout import COUNT_PREFIX, CountColumns, count_columns, item_column
from nkcore.kinds.values import natural_argsort
from nkcore.ratings.tables import COUNT_TABLE_BYTES_PER_CELL, Ratings, text_column


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
    memory limits; an item with more ratings (K_i = sum_m counts[i, m]) than ``limits.get("ratings_per_item")``, or
    more ratings in all (sum_i K_i) than ``limits.get("ratings")`` (:func:`_check_ratings`, before any integer sum).

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
        item = item_col or item_column([str(c) for c in frame.columns], set(pairs.values()))
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
                f"the label-count table mixes {len(names)} subsets in column {found.subset!r} ({shown}); choose one: "
                f"--subset {found.subset}={names[0]} (the Data page offers each)"
            )
    frame = frame.reset_index(drop=True)
    values: dict[str, np.ndarray] = {}
    for label, col in found.labels.items():
        v = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.flatnonzero(frame[col].notna().to_numpy() & ~np.isfinite(v))
        bad = np.union1d(bad, np.flatnonzero(np.isfinite(v) & ((v < 0) | (v != np.floor(v)))))
        if len(bad):
            raise DataError(f"column {col} must hold whole numbers >= 0 (label counts); {rows_do_not(bad)}")
        if np.isnan(v).all():
            continue  # a label of another subset
        values[label] = np.nan_to_num(v, nan=0.0)  # an empty cell: no rating chose the label; int64 once checked
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
    _check_ratings(items, sum((values[lab] for lab in label_names), np.zeros(len(items))))
    dup = np.flatnonzero(items.duplicated(keep=False).to_numpy())
    if len(dup):
        raise DataError(
            f"item {show_value(items.iloc[dup[0]])} has more than one row of label counts ({format_rows(dup)}); "
            "give one row per item"
        )
    counts = np.column_stack([values[lab] for lab in label_names]).astype(np.int64)
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
    order = natural_argsort(items)
    counts = counts[order]
    return Ratings(
        tuple(items.iloc[order].tolist()),
        label_names,
        counts.astype(np.int64),
        int(counts.sum()),
        int(per_item.max()),
        from_counts=True,
    )


def _check_ratings(items: pd.Series, per_item: np.ndarray) -> None:
    """Refuse counts that claim more ratings per item (K) or more ratings in all than the server's limits.

    ``per_item``: each item's count sum K_i as float64 (a count past 2**63 is still a number here; the int64 table is
    made only after this check). Names the first item over ``ratings_per_item`` (the file's order) and how many are;
    then checks the total sum_i K_i against ``ratings``. A 500-byte file can claim 10**12 ratings per item; without
    this, the prior fit's per-item check and the summaries would take them at their word.

    >>> _check_ratings(pd.Series(["a", "b"]), np.array([100.0, 63.0]))
    >>> _check_ratings(pd.Series(["a", "b"]), np.array([2e8, 2e8]))
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: item 'a' (data row 1, one of 2 items over the limit) has 200,000,000 ratings; the limit is 10,000 ratings per item (server setting NKP_MAX_RATINGS_PER_ITEM): check that the count columns hold numbers of ratings (not ids, scores or totals), or keep a sample of each item's ratings
    """
    over = np.flatnonzero(per_item > limits.get("ratings_per_item"))
    if len(over):
        i = int(over[0])
        more = f", one of {len(over):,} items over the limit" if len(over) > 1 else ""
        where = f"item {show_value(items.iloc[i])} ({format_rows([i])}{more})"
        limits.check("ratings_per_item", float(per_item[i]), where, counted="ratings")
    limits.check("ratings", float(per_item.sum()), "the label-count table")
