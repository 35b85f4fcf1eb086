"""Rows that repeat a key pair ((item, rater) in ratings, (item, model) in predictions): counted, shown, kept once.

The likely causes, most likely first: several datasets or splits in one file whose item ids repeat (keep one
subset, or build the item key from the subset and item columns: :mod:`nkcore.kinds.subsets`); repeated
submissions (keep the first or the last row); a multi-select question, one row per ticked option (not one label
per rating: split it into one yes/no question per option).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from nkcore.common.formatting import plural
from nkcore.common.rows import format_rows
from nkcore.errors import DataError
from nkcore.kinds.columns import KEEP_CHOICES
from nkcore.kinds.subsets import subset_columns, subset_values

__all__ = ["Duplicates", "drop_duplicates", "duplicates", "duplicates_advice", "key_columns"]


@dataclass(frozen=True, slots=True)
class Duplicates:
    """Rows that repeat a (key) pair: ``n_rows`` rows beyond the first of each pair, ``n_pairs`` pairs repeated,
    ``examples`` the first three rows involved (all columns), ``columns`` the pair's columns, ``rows`` the
    0-based positions of every row involved."""

    n_rows: int
    n_pairs: int
    examples: pd.DataFrame
    columns: tuple[str, ...]
    rows: tuple[int, ...] = ()


def key_columns(kind: str) -> tuple[str, ...] | None:
    """The pair of canonical columns that must be unique in ``kind``'s table, or None when nothing is checked.

    >>> key_columns("ratings"), key_columns("predictions"), key_columns("paired")
    (('item', 'rater'), ('item', 'model'), None)
    """
    return {"ratings": ("item", "rater"), "predictions": ("item", "model")}.get(kind)


def duplicates(table: pd.DataFrame, columns: tuple[str, ...] = ("item", "rater")) -> Duplicates | None:
    """The repeated pairs of ``columns`` in a table, or None when every pair is unique (or a column is absent).

    >>> d = duplicates(pd.DataFrame({"item": [1, 1, 1, 2], "rater": ["a", "a", "a", "a"], "label": list("xyzx")}))
    >>> d.n_rows, d.n_pairs, len(d.examples), d.rows
    (2, 1, 3, (0, 1, 2))
    """
    if any(c not in table.columns for c in columns):
        return None
    keys = table[list(columns)].astype(str)
    extra = keys.duplicated(keep="first")
    if not extra.any():
        return None
    involved = keys.duplicated(keep=False).to_numpy()
    n_pairs = int(keys[involved].drop_duplicates().shape[0])
    rows = tuple(int(i) for i in involved.nonzero()[0])
    return Duplicates(int(extra.sum()), n_pairs, table[involved].head(3), columns, rows)


def drop_duplicates(table: pd.DataFrame, keep: str, columns: tuple[str, ...] = ("item", "rater")) -> pd.DataFrame:
    """One row per pair: the first (``keep="first"``) or the last (``"last"``) of each repeated pair.

    >>> t = pd.DataFrame({"item": [1, 1], "rater": ["a", "a"], "label": ["x", "y"]})
    >>> drop_duplicates(t, "last")["label"].tolist()
    ['y']
    """
    if keep not in KEEP_CHOICES:
        raise DataError(f"keep must be first or last, not {keep!r}")
    keys = table[list(columns)].astype(str)
    return table[~keys.duplicated(keep=keep).to_numpy()].reset_index(drop=True)


def duplicates_advice(
    dup: Duplicates, file_frame: pd.DataFrame, item_column: str | None, kind: str = "ratings", keyed: bool = False
) -> str:
    """The one-line refusal of repeated pairs for the CLI: how many, which rows, the likely cause in this file
    and the flag that fixes it (``--subset COLUMN=VALUE`` / ``--item-key`` when the file has a dataset or split
    column, ``--keep first|last`` for repeated submissions).

    ``file_frame`` is the file as read (its subset columns are looked for there); ``item_column`` the file's
    item column, named in the ``--item-key`` suggestion; ``keyed``: the items are already named by a subset column
    and their id (``--item-key`` given), so only repeated submissions are left to explain.

    >>> f = pd.DataFrame({"dataset": ["A", "B"], "item_id": [1, 1], "rater": ["r", "r"]})
    >>> d = duplicates(pd.DataFrame({"item": ["1", "1"], "rater": ["r", "r"]}))
    >>> duplicates_advice(d, f, "item_id")[:102]
    'duplicate ratings: 1 row repeats an (item, rater) pair (1 pair repeated; data rows 1, 2). Likely cause'
    """
    pair = ", ".join(dup.columns)
    head = (
        f"duplicate {kind}: {plural(dup.n_rows, 'row')} {'repeats' if dup.n_rows == 1 else 'repeat'} an ({pair}) pair "
        f"({plural(dup.n_pairs, 'pair')} repeated; {format_rows(list(dup.rows))})"
    )
    if keyed:
        return (
            f"{head}. Each item is already named by its dataset and id (--item-key), so these rows truly repeat an "
            f"({pair}) pair (repeated submissions): pass --keep first or --keep last"
        )
    subsets = subset_columns(file_frame)
    if subsets:
        col = subsets[0]
        values = subset_values(file_frame, col)
        shown = ", ".join(values[:6]) + (" ..." if len(values) > 6 else "")
        key = f"{col},{item_column}" if item_column else f"{col},ITEM_COLUMN"
        return (
            f"{head}. Likely cause: the file holds {len(values)} datasets or splits in column {col!r} ({shown}) "
            f"whose item ids repeat. Pass --subset {col}={values[0]} to keep one of them, or --item-key {key} to "
            "keep all with each item named by both; for repeated submissions pass --keep first or --keep last"
        )
    return (
        f"{head}. Likely causes: repeated submissions (pass --keep first or --keep last), or a multi-select question "
        "with one row per ticked option (then split it into one yes/no question per option)"
    )
