"""Applying a column mapping: the file's chosen columns renamed to the canonical names and their values normalised.

Ids and labels become text (:func:`nkcore.kinds.values.to_text`), ``correct`` 0/1 in the one true/false vocabulary
(:mod:`nkcore.common.truth`), ``latency_s`` and ``p_*`` numbers; any problem is a :class:`nkcore.errors.DataError`
naming the column and the data rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from nkcore.common.rows import format_rows, rows_do_not
from nkcore.common.truth import parse_truth
from nkcore.errors import DataError
from nkcore.kinds.columns import COUNT_PREFIX, ID_ROLES, ROLES, TEXT_ROLES, describe_role, is_role_of, kind_columns
from nkcore.kinds.values import (
    MAX_ANSWER_CHARS,
    MAX_LABEL_CHARS,
    bounded_text,
    graded_advice,
    graded_scores,
    show_names,
    show_value,
    to_text,
)

__all__ = ["apply_mapping", "no_rater_advice"]


def _show(values: pd.Series, positions: np.ndarray, limit: int = 3) -> str:
    return ", ".join(show_value(values.iloc[int(i)]) for i in positions[:limit])


def _hold(positions: np.ndarray) -> str:
    return "holds" if len(positions) == 1 else "hold"


def _zero_one(series: pd.Series, what: str, allow_missing: bool = False) -> pd.Series:
    """0/1 integers; with ``allow_missing`` empty cells stay missing (float NaN) instead of being refused."""
    truth = parse_truth(series)
    refused = truth.bad if allow_missing else truth.bad | truth.missing
    bad = np.flatnonzero(refused)
    if len(bad):
        numeric = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
        rule = "0 or 1" if numeric else "0/1 (or true/false)"
        raise DataError(f"column {what} must be {rule}, but {format_rows(bad)} {_hold(bad)} {_show(series, bad)}")
    if truth.missing.any():
        return pd.Series(truth.values, index=series.index)
    return pd.Series(truth.values.astype(np.int64), index=series.index)


def _score(series: pd.Series, what: str) -> pd.Series:
    """0/1 results as integers, or, when some value lies strictly between 0 and 1 (partial credit: inspect_ai's P,
    a graded score), every value as a float in [0, 1]; anything else is refused naming the rows."""
    truth = parse_truth(series)
    values = truth.values.copy()
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    partial = truth.bad & (numbers > 0) & (numbers < 1)
    if not partial.any():
        return _zero_one(series, what)
    values[partial] = numbers[partial]
    bad = np.flatnonzero((truth.bad & ~partial) | truth.missing)
    if len(bad):
        raise DataError(
            f"column {what} must hold scores from 0 to 1 (or true/false), but {format_rows(bad)} {_hold(bad)} "
            f"{_show(series, bad)}"
        )
    return pd.Series(values, index=series.index)


def _numeric(series: pd.Series, what: str) -> pd.Series:
    values = pd.to_numeric(series, errors="coerce")
    bad = np.flatnonzero(values.isna().to_numpy() & series.notna().to_numpy())
    if len(bad):
        raise DataError(f"column {what} must hold numbers, but {format_rows(bad)} {_hold(bad)} {_show(series, bad)}")
    return values.astype(np.float64)


def no_rater_advice(frame: pd.DataFrame, mapping: Mapping[str, str]) -> str | None:
    """What a ratings file with an item and a label column but no rater column holds, and what to do, or None.

    Graded scores (:func:`nkcore.kinds.values.graded_scores`) are not labels; one label per item with no rater is
    gold labels (or one rating per item), which plans nothing.

    >>> no_rater_advice(pd.DataFrame({"item_id": [1, 2], "gold_label": ["a", "b"]}), {"item": "item_id", "label": "gold_label"})[:62]
    "one label per item in 'gold_label' and no rater: this looks li"
    """
    label, item = mapping.get("label"), mapping.get("item")
    if label is None or label not in frame.columns:
        return None
    graded = graded_scores(frame[label])
    if graded is not None:
        return graded_advice(label, graded)
    if item is not None and item in frame.columns and not frame[item].duplicated().any():
        return (
            f"one label per item in {label!r} and no rater: this looks like gold labels, not ratings. NK Planner "
            "plans from several ratings per item: upload the file with one row per rating (item, rater, label); to "
            "score models against these labels, put them in the predictions file as a gold column (data derive "
            "paired --gold-column)"
        )
    return None


def _check_mapping(frame: pd.DataFrame, kind: str, mapping: dict[str, str]) -> bool:
    """Refuse a mapping that names unknown roles or columns, uses a column twice or lacks a required role.

    Returns whether it is the wide paired layout (case plus one 0/1 column per config).
    """
    required, _optional = kind_columns(kind)
    columns = [str(c) for c in frame.columns]
    listed = show_names(columns)
    for role, col in mapping.items():
        if not is_role_of(kind, role):
            raise DataError(f"{role!r} is not a column of {kind} data; the {kind} columns are {', '.join(required)}")
        if col not in columns:
            raise DataError(
                f"column {col!r} (chosen for {describe_role(role)}) is not in the file; its columns are: {listed}"
            )
    by_col: dict[str, list[str]] = {}
    for role, col in mapping.items():
        by_col.setdefault(col, []).append(role)
    dupes = {c: r for c, r in by_col.items() if len(r) > 1}
    if dupes:
        col, roles = next(iter(dupes.items()))
        raise DataError(
            f"column {col!r} is chosen for more than one role ({', '.join(roles)}); pick one column per role"
        )
    wide = kind == "paired" and "config" not in mapping and "correct" not in mapping
    counts = [r for r in mapping if r.startswith(COUNT_PREFIX)] if kind == "ratings" else []
    if counts and ("rater" in mapping or "label" in mapping):
        raise DataError(
            "ratings are either one row per rating (item, rater, label) or label counts (item + one count_<label> "
            "column per label), not both: choose one layout"
        )
    if counts and len(counts) < 2:
        raise DataError(
            f"label counts need at least 2 count_<label> columns, one per label; the file's columns are: {listed}"
        )
    need = ("case",) if wide else ("item",) if counts else required
    missing = [r for r in need if r not in mapping]
    if missing:
        words = "; ".join(describe_role(r) for r in missing)
        advice = no_rater_advice(frame, mapping) if kind == "ratings" and missing == ["rater"] else None
        if advice is not None:
            raise DataError(f"{advice}. The file's columns are: {listed}")
        raise DataError(
            f"missing column for {words}. The file's columns are: {listed}. Choose a column for each role (on the "
            "Data page, or --map ROLE=COLUMN)"
        )
    if kind == "samples" and "gold" not in mapping and "correct" not in mapping:
        raise DataError(
            f"samples data needs a gold (correct answer) or a correct (0/1) column; the file's columns are: {listed}"
        )
    if kind == "predictions" and "pred_label" not in mapping and not any(r.startswith("p_") for r in mapping):
        raise DataError(
            "predictions need a pred_label column and/or one probability column per label (p_<label>); "
            f"the file's columns are: {listed}"
        )
    if wide and len([r for r in mapping if r != "case"]) < 2:
        raise DataError(
            "paired data needs either config and correct columns (long layout) or at least two 0/1 columns, one per "
            f"config (wide layout); the file's columns are: {listed}"
        )
    return wide


def _normalise(series: pd.Series, role: str, what: str, wide: bool, scores: bool = False) -> pd.Series:
    """The values of one mapped column in their canonical form (see :func:`apply_mapping`); ``scores``: a
    ``correct`` column may hold partial credit (long paired results: an evaluation)."""
    if role in ID_ROLES or role in TEXT_ROLES:
        return bounded_text(series, what, MAX_ANSWER_CHARS if role in ("answer", "gold") else MAX_LABEL_CHARS)
    if role == "correct" and scores:
        return _score(series, what)
    if role == "correct" or (wide and role != "case"):
        return _zero_one(series, what, allow_missing=wide)
    if role in ("latency_s", "cost") or role.startswith("p_"):
        values = _numeric(series, what)
        if role in ("latency_s", "cost") and (values < 0).any():
            bad = np.flatnonzero((values < 0).to_numpy())
            raise DataError(f"column {what} must not be negative; negative values at {format_rows(bad)}")
        return values
    if role.startswith(COUNT_PREFIX):
        values = _numeric(series, what)
        v = values.to_numpy()
        bad = np.flatnonzero(np.isfinite(v) & ((v < 0) | (v != np.floor(v))))
        if len(bad):
            raise DataError(f"column {what} must hold whole numbers >= 0 (label counts); {rows_do_not(bad)}")
        return values.fillna(0).astype(np.int64)  # an empty count is 0 ratings of that label
    if role == "sample":
        if pd.api.types.is_integer_dtype(series.dtype) and not series.isna().any():
            return series.astype(np.int64)
        return to_text(series)
    return series


def apply_mapping(frame: pd.DataFrame, kind: str, mapping: Mapping[str, str]) -> pd.DataFrame:
    """Rename the mapped columns to their canonical names, keep only those, and normalise their values.

    Checks: ``kind`` is known; every mapped column exists and is used once; the required roles are present
    (samples: case, sample, answer and gold and/or correct; paired: case + config + correct (long) or case + >= 2
    config columns (wide); ratings: item, rater, label; predictions: item, model and pred_label and/or p_<label>).
    Values: ids and labels become text (missing stays missing), ``correct`` and wide config columns 0/1 integers
    in the vocabulary of :mod:`nkcore.common.truth` (an empty cell of a wide config column means "no result for this
    case" and stays missing; the ``correct`` column of long paired results may hold scores in [0, 1], partial
    credit, then kept as floats), ``latency_s``, ``cost`` and ``p_*`` floats; a ``sample`` column of whole numbers stays integer.
    Ratings as label counts (``item`` + ``count_<label>`` roles, no rater or label) keep the item and one whole-number
    count column per label (an empty cell is 0). Rows keep their order.

    >>> df = pd.DataFrame({"q": [1, 1], "cfg": ["a", "b"], "ok": ["true", "no"]})
    >>> apply_mapping(df, "paired", {"case": "q", "config": "cfg", "correct": "ok"})["correct"].tolist()
    [1, 0]
    """
    chosen = {str(k): str(v) for k, v in mapping.items() if v is not None and str(v) != ""}
    wide = _check_mapping(frame, kind, chosen)
    out = {}
    for role, col in chosen.items():
        series = frame[col].reset_index(drop=True)
        out[role] = _normalise(series, role, f"{col!r} ({describe_role(role)})", wide, kind == "paired" and not wide)
    required, optional = ROLES[kind]
    order = [r for r in (*required, *optional) if r in out]
    order += [r for r in out if r not in order]
    return pd.DataFrame({r: out[r] for r in order})
