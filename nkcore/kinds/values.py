"""Cell values of a user's table as text: ids and labels as stripped text, values cut for messages, natural order.

One rule each, shared by the kinds' mapping (:mod:`nkcore.kinds.mapping`), the ratings parser and the summaries:
an id read as ``1.0`` (a numeric column with a missing cell) is the same id as ``1``; a label longer than
:data:`MAX_LABEL_CHARS` (an answer longer than :data:`MAX_ANSWER_CHARS`) is almost always a wrong column or an
unclosed quote that swallowed the rest of the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from nkcore.common.rows import format_rows
from nkcore.errors import DataError

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_LABEL_CHARS",
    "bounded_text",
    "graded_advice",
    "graded_scores",
    "item_ids",
    "natural_argsort",
    "natural_order",
    "show_names",
    "show_value",
    "to_text",
]

# More distinct numbers than this, some of them not whole, are graded scores (a slider), not categorical labels.
MAX_GRADED_LABELS = 20
# Longest id or label, and longest answer / gold answer (model answers can be long; ids never are).
MAX_LABEL_CHARS = 1_000
MAX_ANSWER_CHARS = 100_000


def show_value(value: object, limit: int = 60) -> str:
    """``repr`` of a value for a message, cut to about ``limit`` characters (a cell can be megabytes long).

    Numpy scalars show as the Python number they hold; a cut string says its full length.

    >>> show_value("x" * 100, limit=10)
    "'xxxxxxxxx… (100 characters)"
    >>> show_value(np.int64(3))
    '3'
    """
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value):,} characters)" if isinstance(value, str) else ""
    return f"{text[:limit]}…{size}"


def show_names(names: Sequence[object], limit: int = 20) -> str:
    """Names (a file's columns, configs) for a message: each quoted by :func:`show_value`, the first ``limit`` of them.

    Quoting keeps a name with a comma, a space or a line break readable as one name (``'it\\nem'``), and a cut
    list says how many names there are.

    >>> show_names(["case", "it\\nem", 3])
    "'case', 'it\\\\nem', '3'"
    >>> show_names([f"c{i}" for i in range(5)], limit=2)
    "'c0', 'c1', ... (5 in all)"
    """
    shown = ", ".join(show_value(str(name)) for name in list(names)[:limit])
    return shown + (f", ... ({len(names):,} in all)" if len(names) > limit else "")


def to_text(series: pd.Series) -> pd.Series:
    """Render a column as stripped text, keeping missing values missing; integral floats lose ".0".

    Floats appear when a numeric id column has a missing cell (``1.0`` would otherwise not equal ``1``);
    booleans become "true" / "false"; other floats keep their shortest ``repr``.

    >>> to_text(pd.Series([1.0, None, 2.5])).tolist()
    ['1', nan, '2.5']
    """
    if pd.api.types.is_bool_dtype(series.dtype) and not series.isna().any():
        return series.map({True: "true", False: "false"}).astype("str")
    if pd.api.types.is_float_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        out = np.empty(len(values), dtype=object)
        nan = np.isnan(values)
        finite = np.isfinite(values)
        integral = finite & (values == np.round(values)) & (np.abs(values) < 2**53)
        out[integral] = values[integral].astype(np.int64).astype(str)
        rest = finite & ~integral
        out[rest] = [repr(float(v)) for v in values[rest]]
        out[~finite & ~nan] = [str(v) for v in values[~finite & ~nan]]
        out[nan] = None
        return pd.Series(out, index=series.index, dtype="str")
    if pd.api.types.is_integer_dtype(series.dtype):
        return series.astype("str")
    if pd.api.types.is_string_dtype(series.dtype) and series.dtype != object:
        return _stripped(series)
    out_obj = series.map(lambda v: v if v is None or (isinstance(v, float) and v != v) else str(v), na_action="ignore")
    return _stripped(out_obj.astype("str"))


def _stripped(text: pd.Series) -> pd.Series:
    """``text.str.strip()``, or ``text`` itself when no value starts or ends with white space: a million ids need no
    second copy (the first and last character of each value are looked at, by the same white-space rule).

    >>> _stripped(pd.Series([" a", "b"], dtype="str")).tolist(), _stripped(pd.Series(["a", None], dtype="str")).tolist()
    (['a', 'b'], ['a', nan])
    """
    if len(text) == 0:
        return text.str.strip()
    for end in (0, -1):
        if bool(text.str[end].str.isspace().fillna(False).any()):
            return text.str.strip()
    return text


def bounded_text(series: pd.Series, what: str, limit: int) -> pd.Series:
    """:func:`to_text`, refusing values longer than ``limit`` characters with a DataError naming the data rows.

    >>> bounded_text(pd.Series(["ab", None]), "'x'", 2).tolist()
    ['ab', nan]
    """
    text = to_text(series)
    lengths = text.str.len().to_numpy(dtype=np.float64, na_value=0.0)
    bad = np.flatnonzero(lengths > limit)
    if len(bad):
        raise DataError(
            f"column {what} holds a value of {int(lengths[bad[0]]):,} characters in {format_rows(bad)}; values of "
            f"this column can be at most {limit:,} characters. Is the right column chosen, or is a closing quote "
            "missing in the file?"
        )
    return text


def _natural_key(value: str) -> tuple[tuple[tuple[int, int, str], ...], str]:
    parts = re.split(r"(\d+)", value.lower())
    return (tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p != ""), value)


def natural_order(values: Sequence[str]) -> list[str]:
    """Sort labels naturally: all-numeric labels by value, others by text with digit runs compared as numbers.

    >>> natural_order(["10", "2", "-1"])
    ['-1', '2', '10']
    >>> natural_order(["item10", "item9", "b"])
    ['b', 'item9', 'item10']
    """
    vals = list(values)
    try:
        nums = [float(v) for v in vals]
    except (TypeError, ValueError):
        return sorted(vals, key=_natural_key)
    if all(np.isfinite(nums)):
        return [v for _, v in sorted(zip(nums, vals, strict=True))]
    return sorted(vals, key=_natural_key)


def natural_argsort(values: Sequence[str] | pd.Series) -> np.ndarray:
    """The positions that put ``values`` in :func:`natural_order` (numbers compared as numbers, vectorised).

    A pandas Series of text that all reads as numbers is ordered by one cast and a stable argsort (ties between
    equal numbers, "1" and "1.0", fall back to the exact rule).

    >>> natural_argsort(["10", "2", "-1"]).tolist(), natural_argsort(["item10", "item9", "b"]).tolist()
    ([2, 1, 0], [2, 1, 0])
    >>> natural_argsort(pd.Series(["10", "2", "-1"])).tolist()
    [2, 1, 0]
    """
    if isinstance(values, pd.Series):
        try:
            cast = values.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)
        except (ValueError, TypeError, ArithmeticError):  # some value is not a number (pyarrow's errors are these)
            cast = None
        if cast is not None and len(cast) and bool(np.all(np.isfinite(cast))):
            order = np.argsort(cast, kind="stable")
            if not bool(np.any(np.diff(cast[order]) == 0)):
                return order
        values = values.tolist()
    vals = list(values)
    text = np.asarray(vals, dtype=str) if vals else np.array([], dtype=str)
    try:
        nums = np.char.strip(text).astype(np.float64) if vals else np.array([])
    except ValueError:  # some value is not a number
        nums = np.array([np.nan])
    if len(vals) and bool(np.all(np.isfinite(nums))):
        return np.lexsort((text, nums))
    keys = [_natural_key(v) for v in vals]
    return np.asarray(sorted(range(len(vals)), key=keys.__getitem__), dtype=np.int64)


def graded_scores(values: pd.Series) -> str | None:
    """A short description of ``values`` when they are graded scores rather than categorical labels, else None.

    Graded: every present value is a number (or text of one), more than :data:`MAX_GRADED_LABELS` distinct values,
    some of them not whole (a slider's positions, z-scores). Whole numbers (class ids, a 0-100 scale) are left to
    the label limit.

    >>> graded_scores(pd.Series(np.linspace(-50, 50, 41)))
    '41 distinct numbers from -50 to 50'
    >>> graded_scores(pd.Series([1, 2, 3, 2])) is None, graded_scores(pd.Series(["a", "b"])) is None
    (True, True)
    """
    present = values.dropna()
    if len(present) == 0:
        return None
    numbers = pd.to_numeric(present, errors="coerce")
    if numbers.isna().any():
        return None
    v = numbers.to_numpy(dtype=np.float64)
    distinct = np.unique(v)
    if len(distinct) <= MAX_GRADED_LABELS or bool(np.all(distinct == np.floor(distinct))):
        return None
    return f"{len(distinct):,} distinct numbers from {v.min():g} to {v.max():g}"


def graded_advice(column: str, description: str) -> str:
    """The refusal sentence for a label column of graded scores (``description`` from :func:`graded_scores`).

    >>> graded_advice("rating", "305 distinct numbers from -50 to 50")[:60]
    "column 'rating' holds graded scores (305 distinct numbers fr"
    """
    return (
        f"column {column!r} holds graded scores ({description}), not categorical labels, and no rater ids: NK "
        "Planner reads ratings as one label per (item, rater). Bin the scores into a few labels (e.g. low / middle / "
        "high) and give one row per rating (item, rater, label; a response number will do for anonymous raters) or "
        "one count_<label> column per label, then upload that file"
    )


def item_ids(frame: pd.DataFrame) -> frozenset[str]:
    """The item ids of a ratings or predictions table, as text by :func:`to_text` (the parsers' rule); empty when
    it has no ``item`` column.

    >>> sorted(item_ids(pd.DataFrame({"item": [1.0, 2.0, None]})))
    ['1', '2']
    """
    if "item" not in frame.columns:
        return frozenset()
    return frozenset(to_text(frame["item"]).dropna().tolist())
