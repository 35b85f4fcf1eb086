"""The one true/false vocabulary for 0/1 columns (correct, right/wrong...), used by every parser.

Accepted, any case, surrounding blanks ignored: 1, 1.0, true, t, yes, y, correct, right (true) and 0, 0.0, false,
f, no, n, wrong, incorrect (false); booleans; numbers equal to 0 or 1. Missing: NaN, None, empty text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["FALSE_WORDS", "TRUE_WORDS", "Truth", "is_truth_column", "parse_truth"]

TRUE_WORDS = frozenset({"1", "1.0", "true", "t", "yes", "y", "correct", "right"})
FALSE_WORDS = frozenset({"0", "0.0", "false", "f", "no", "n", "wrong", "incorrect"})


@dataclass(frozen=True, slots=True)
class Truth:
    """A parsed 0/1 column: ``values`` (1.0, 0.0, NaN where missing or bad), ``missing`` and ``bad`` masks."""

    values: np.ndarray
    missing: np.ndarray
    bad: np.ndarray


def parse_truth(series: pd.Series) -> Truth:
    """Read a column of right/wrong results in the vocabulary above.

    >>> t = parse_truth(pd.Series(["yes", "N", "", "maybe", 1]))
    >>> t.values.tolist()[:2], t.missing.tolist(), t.bad.tolist()
    ([1.0, 0.0], [False, False, True, False, False], [False, False, False, True, False])
    """
    n = len(series)
    out = np.full(n, np.nan)
    if pd.api.types.is_bool_dtype(series.dtype):
        missing = series.isna().to_numpy()
        out[~missing] = series[~missing].astype(bool).to_numpy()
        return Truth(out, missing, np.zeros(n, dtype=bool))
    if pd.api.types.is_numeric_dtype(series.dtype):
        arr = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        missing = np.isnan(arr)
        bad = ~missing & (arr != 0) & (arr != 1)
        good = ~missing & ~bad
        out[good] = arr[good]
        return Truth(out, missing, bad)
    text = series.astype("string").str.strip().str.lower()
    missing = (text.isna() | (text == "")).to_numpy(dtype=bool, na_value=True)
    is_true = text.isin(TRUE_WORDS).to_numpy(dtype=bool, na_value=False)
    is_false = text.isin(FALSE_WORDS).to_numpy(dtype=bool, na_value=False)
    out[is_true] = 1.0
    out[is_false] = 0.0
    return Truth(out, missing, ~missing & ~is_true & ~is_false)


def is_truth_column(series: pd.Series) -> bool:
    """True when every non-missing value of ``series`` is in the vocabulary (and at least one is present).

    >>> is_truth_column(pd.Series(["Correct", "wrong", None])), is_truth_column(pd.Series(["a", "b"]))
    (True, False)
    """
    t = parse_truth(series)
    return bool((~t.missing).any() and not t.bad.any())
