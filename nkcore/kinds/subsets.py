"""Subsets of a file (a column naming its dataset, split or task) and item keys built from several columns.

One file often holds several datasets or splits (LeWiDi 2023: four datasets whose item ids repeat). A subset column
is named like ``dataset``, ``split``, ``task`` or ``subset`` and holds 2 to :data:`MAX_SUBSETS` values; the rows of
one value are one dataset. An item key joins the text of several columns (``dataset`` + ``item_id``) so that items
of different subsets stay different items. The Data page's choosers and the CLI's ``--subset`` / ``--item-key``
both use these rules.
"""

from __future__ import annotations

import pandas as pd

from nkcore.errors import DataError
from nkcore.kinds.columns import normal_name
from nkcore.kinds.values import natural_order, show_names, to_text

__all__ = [
    "KEY_COLUMN",
    "MAX_SUBSETS",
    "SUBSET_NAMES",
    "parse_item_key",
    "parse_subset",
    "subset_columns",
    "subset_rows",
    "subset_values",
    "with_key",
]

SUBSET_NAMES = ("dataset", "split", "task", "subset", "source_dataset", "dataset_name", "data_split")
MAX_SUBSETS = 50
KEY_COLUMN = "item_key"


def subset_columns(frame: pd.DataFrame) -> list[str]:
    """Columns that name a dataset, split, task or subset and hold 2 to :data:`MAX_SUBSETS` distinct values.

    >>> subset_columns(pd.DataFrame({"dataset": ["a", "b"], "split": ["dev", "dev"], "item": [1, 2]}))
    ['dataset']
    """
    out = []
    for col in frame.columns:
        if normal_name(col) in SUBSET_NAMES:
            try:
                n = frame[col].nunique(dropna=True)
            except TypeError:  # unhashable cells (lists from JSON)
                continue
            if 2 <= n <= MAX_SUBSETS:
                out.append(str(col))
    return out


def subset_values(frame: pd.DataFrame, column: str) -> list[str]:
    """The distinct values of a subset column as text, in natural order.

    >>> subset_values(pd.DataFrame({"split": ["dev10", "dev9", "dev9"]}), "split")
    ['dev9', 'dev10']
    """
    return natural_order([str(v) for v in to_text(frame[column]).dropna().unique()])


def subset_rows(frame: pd.DataFrame, column: str, value: str) -> pd.DataFrame:
    """The rows of ``frame`` whose ``column`` reads ``value`` (as text), re-indexed from 0.

    >>> subset_rows(pd.DataFrame({"split": ["a", "b", "a"], "x": [1, 2, 3]}), "split", "a")["x"].tolist()
    [1, 3]
    """
    return frame[(to_text(frame[column]) == value).to_numpy()].reset_index(drop=True)


def with_key(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame`` with an item key column :data:`KEY_COLUMN` = the text of ``columns`` joined by " / ".

    A row with any of those cells empty gets an empty key (the parser then names it).

    >>> with_key(pd.DataFrame({"dataset": ["A", "B"], "item_id": [1, 1]}), ["dataset", "item_id"])["item_key"].tolist()
    ['A / 1', 'B / 1']
    """
    if len(columns) < 2:
        raise DataError("an item key from several columns needs at least two columns")
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise DataError(
            f"no column {', '.join(map(repr, absent))} for the item key; the columns are {show_names(frame.columns)}"
        )
    parts = [to_text(frame[c]).astype(object) for c in columns]
    key = parts[0]
    for part in parts[1:]:
        key = key + " / " + part
    return frame.assign(**{KEY_COLUMN: key.where(pd.concat(parts, axis=1).notna().all(axis=1))})


def parse_item_key(text: str) -> list[str]:
    """The columns of ``--item-key COL1,COL2`` (at least two, each named once).

    >>> parse_item_key("dataset, item_id")
    ['dataset', 'item_id']
    """
    columns = [c.strip() for c in text.split(",") if c.strip()]
    if len(columns) < 2 or len(set(columns)) != len(columns):
        raise DataError(
            f"--item-key takes two or more different columns, COL1,COL2 (e.g. dataset,item_id), not {text!r}"
        )
    return columns


def parse_subset(text: str, frame: pd.DataFrame) -> tuple[str, str]:
    """(column, value) of ``--subset COLUMN=VALUE``, or of ``--subset VALUE`` when exactly one subset column
    (:func:`subset_columns`, or a column named ``subset`` / ``split`` / ``dataset``) holds that value; DataError
    naming the columns and values when the choice is not in the file.

    >>> f = pd.DataFrame({"dataset": ["A", "B"], "item_id": [1, 1]})
    >>> parse_subset("dataset=B", f), parse_subset("A", f)
    (('dataset', 'B'), ('dataset', 'A'))
    """
    column, sep, value = text.partition("=")
    column, value = column.strip(), value.strip()
    if sep:
        if not column or not value:
            raise DataError(f"--subset takes COLUMN=VALUE (e.g. --subset dataset=ArMIS) or VALUE, not {text!r}")
        if column not in frame.columns:
            raise DataError(
                f"--subset {text}: the file has no column {column!r}; its columns are {show_names(frame.columns)}"
            )
        values = subset_values(frame, column)
        if value not in values:
            shown = ", ".join(values[:12]) + (" ..." if len(values) > 12 else "")
            raise DataError(f"--subset {text}: column {column!r} has no value {value!r}; its values are {shown}")
        return column, value
    value = column
    candidates = subset_columns(frame) or [
        str(c) for c in frame.columns if normal_name(c) in ("subset", "split", "dataset")
    ]
    holding = [c for c in candidates if value in subset_values(frame, c)]
    if len(holding) == 1:
        return holding[0], value
    if not candidates:
        raise DataError(
            f"--subset {value!r} given, but the file has no dataset/split/subset column; name the column: "
            "--subset COLUMN=VALUE"
        )
    if not holding:
        listed = "; ".join(f"{c}: {', '.join(subset_values(frame, c)[:8])}" for c in candidates)
        raise DataError(f"--subset {value!r}: no subset column holds that value ({listed})")
    raise DataError(
        f"--subset {value!r} is a value of several columns ({', '.join(holding)}): name one, --subset "
        f"{holding[0]}={value}"
    )
