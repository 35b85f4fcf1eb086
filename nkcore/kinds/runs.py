"""Which column of a predictions table names the model run, and which rows belong to a chosen subset.

Column rules, so they live with the other column rules in :mod:`nkcore.kinds` (kind detection asks them which column
is the run); the derived datasets of :mod:`nkcore.derive` use them.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.kinds.columns import RUN_NAMES, SYNONYMS, normal_name
from nkcore.kinds.subsets import parse_subset, subset_rows
from nkcore.kinds.values import to_text

__all__ = ["choose_subset", "model_name_column", "run_column", "run_values"]


def _is_id_like(col: pd.Series) -> bool:
    """Text, integer or boolean column (a float column of scores never names a run)."""
    return not pd.api.types.is_float_dtype(col.dtype) or bool(
        np.all(np.mod(col.dropna().to_numpy(dtype=np.float64), 1) == 0)
    )


def _run_rank(name: str) -> int:
    n = normal_name(name)
    words = RUN_NAMES + SYNONYMS["model"]
    return words.index(n) if n in words else len(words)


def run_column(frame: pd.DataFrame, item_col: str, exclude: Sequence[str] = ()) -> str:
    """The column that makes (item, column) unique: which model run predicted the row.

    Candidates: every column other than ``item_col`` and ``exclude`` whose values are ids (text or whole numbers,
    not scores), with at least 2 distinct values. Among those with no repeated (item, value) pair, the one named
    most like a run or model (``model_run``, ``run``, ``seed``, ``model``, ``system``...) wins, then the one with
    the fewest distinct values. When no single column does it, a pair of candidates joined (``model`` +
    ``seed`` -> ``"roberta / 0"``) is returned as ``"model+seed"`` (see :func:`run_values`).
    DataError when nothing makes the rows unique.

    >>> f = pd.DataFrame({"uid": [1, 1, 1, 2, 2, 2], "model": ["r", "r", "b"] * 2, "model_run": ["r0", "r1", "b0"] * 2})
    >>> run_column(f, "uid")
    'model_run'
    """
    skip = {item_col, *exclude}
    items = to_text(frame[item_col])
    # ids compared as text (the product's id rule), so a cell holding a list or a dict cannot break the count
    texts = {
        str(c): to_text(frame[c])
        for c in frame.columns
        if str(c) not in skip and _is_id_like(frame[c]) and not str(c).lower().startswith(("p_", "prob_", "logit"))
    }
    distinct = {c: int(t.nunique()) for c, t in texts.items()}
    cands = [c for c in texts if distinct[c] >= 2]
    unique = [c for c in cands if not pd.DataFrame({"i": items, "r": texts[c]}).duplicated().any()]
    if unique:
        return min(unique, key=lambda c: (_run_rank(c), distinct[c], c))
    named = sorted(cands, key=lambda c: (_run_rank(c), c))[:6]
    for pair in combinations(named, 2):
        a, b = sorted(pair, key=lambda c: normal_name(c) not in SYNONYMS["model"])  # the model's name first
        key = run_values(frame, f"{a}+{b}")
        if not pd.DataFrame({"i": items, "r": key}).duplicated().any():
            return f"{a}+{b}"
    raise DataError(
        f"no column tells the model runs apart: some item has two rows for every choice of "
        f"{', '.join(cands[:8]) or 'run column'}; add a column naming the model run (e.g. model_run)"
    )


def model_name_column(frame: pd.DataFrame, detected: str | None) -> str | None:
    """The column naming the model itself (``model``, ``system``...), not its run (``model_run``, ``seed``): the
    first column named like a model that is not named like a run, else ``detected``.

    >>> model_name_column(pd.DataFrame({"model_run": ["r0"], "model": ["r"]}), "model_run")
    'model'
    """
    synonyms = SYNONYMS["model"]
    named = [str(c) for c in frame.columns if normal_name(c) in synonyms and normal_name(c) not in RUN_NAMES]
    return min(named, key=lambda c: synonyms.index(normal_name(c))) if named else detected


def run_values(frame: pd.DataFrame, column: str) -> pd.Series:
    """The run name of each row: the column's text, or for ``"a+b"`` the two columns' text joined by ``" / "``."""
    if column in frame.columns:
        return to_text(frame[column])
    a, _, b = column.partition("+")
    return to_text(frame[a]).astype(object) + " / " + to_text(frame[b]).astype(object)


def choose_subset(frame: pd.DataFrame, subset: str | None, what: str) -> pd.DataFrame:
    """The rows of ``subset`` (``COLUMN=VALUE``, or ``VALUE`` of the table's one subset column; see
    :func:`nkcore.kinds.parse_subset`), re-indexed from 0; the whole table when ``subset`` is None.

    >>> f = pd.DataFrame({"subset": ["snli", "mnli", "snli"], "uid": [1, 2, 3]})
    >>> choose_subset(f, "snli", "predictions")["uid"].tolist(), len(choose_subset(f, "subset=mnli", "predictions"))
    ([1, 3], 1)
    """
    if subset is None:
        return frame
    try:
        column, value = parse_subset(subset, frame)
    except DataError as exc:
        raise DataError(f"the {what}: {exc}") from None
    return subset_rows(frame, column, value)
