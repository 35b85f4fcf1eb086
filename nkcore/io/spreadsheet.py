"""Tables for a spreadsheet: formula-like text defused (:func:`csv_safe`), plain column names, numbers rounded for
reading with the raw values kept, and infinities written "never" (:func:`readable_table`).

Reference: OWASP, "CSV Injection" (:func:`csv_safe`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

__all__ = [
    "GRID_NAMES",
    "NEVER",
    "PLAIN_NAMES",
    "csv_safe",
    "plain_name",
    "readable_table",
    "round_for_reading",
]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _csv_safe_text(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` safe to open in a spreadsheet: text that would run as a formula gets a leading ``'``.

    Rule (OWASP "CSV Injection"): a text cell or column name starting with ``=``, ``+``, ``-``, ``@``, TAB or CR is
    prefixed with a single quote, so Excel / LibreOffice / Google Sheets show it as text instead of evaluating
    ``=cmd|' /C calc'!A0`` or ``=HYPERLINK(...)``. Plain numbers written as text (``-1``, ``+2.5``) and numeric
    columns are left alone. Use it on every table a user downloads that holds uploaded text.

    >>> csv_safe(pd.DataFrame({"label": ["=1+1", "-1", "ok", "@SUM(A1)"]}))["label"].tolist()
    ["'=1+1", '-1', 'ok', "'@SUM(A1)"]
    """
    out = frame.copy()
    out.columns = [_csv_safe_text(str(c)) for c in frame.columns]
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if pd.api.types.is_object_dtype(col.dtype) or pd.api.types.is_string_dtype(col.dtype):
            out.isetitem(i, col.map(_csv_safe_text, na_action="ignore"))
    return out


NEVER = "never"
"""What an infinite number is written as in a download (a budget never reached, a gain that never pays)."""

PLAIN_NAMES: dict[str, str] = {
    # curves and accuracies (Sampling, Compare)
    "n": "samples per request n",
    "accuracy": "accuracy",
    "ci_low": "interval from",
    "ci_high": "interval to",
    "first_n_accuracy": "accuracy of the vote over the first n samples",
    "diff": "difference (B minus A)",
    "low": "interval from",
    "high": "interval to",
    # the cost and latency table (nkcore.cost.CostRow)
    "label": "configuration",
    "adaptive": "adaptive (tops up when unsure)",
    "calls": "calls per request",
    "accuracy_low": "95% interval from",
    "accuracy_high": "95% interval to",
    "correct": "correct cases",
    "n_cases": "cases",
    "p50": "p50 latency (s)",
    "p95": "p95 latency (s)",
    "p99": "p99 latency (s)",
    "cost_per_1k": "$ per 1k requests",
    "monthly_cost": "$ per month",
    "compared_with": "compared with row",
    "extra_calls": "extra calls per request",
    "extra_correct_per_1k_calls": "extra correct per 1k extra calls",
    "calls_per_extra_correct": "calls per extra correct",
    "cost_per_extra_correct": "$ per extra correct",
    # the resolution curve (nkcore.resolution)
    "min_resolvable_diff": "smallest resolvable difference (exact)",
    "sqrt_law_diff": "square-root law",
    "mde_at_power": "detectable at the chosen power (Connor)",
}
"""Column name -> plain name, for tables that are not an N x K grid (see :data:`GRID_NAMES`)."""

GRID_NAMES: dict[str, str] = {
    "budget": "budget (N x K ratings)",
    "k": "ratings per item K",
    "n": "items N",
    "metric": "metric",
    "p": "p-value",
    "delta": "effect size (mean gap)",
    "ci_width": "95% interval width",
    "reproducibility": "share of repeats with the same winner",
    "reproducibility_error": "share of repeats with the same winner, standard error",
    "significant_share": "share of repeats with a significant paired test",
    "ties": "share of tied repeats",
    "mean_gap": "signed mean gap (A minus B)",
    "full_gap": "gap on the full data",
    "direction": "winner on the full data (+1 A, -1 B, 0 tie)",
    "rounds": "repeated evaluations per side",
    "n_qualifying": "items with at least K ratings",
    "test": "paired test",
    "method": "how computed",
    "p_error": "p-value standard error",
    "delta_error": "effect size standard error",
    "ci_width_error": "95% interval width standard error",
    "extrapolated": "extrapolated (more items than the data has)",
}
"""Column name -> plain name in an N x K grid (a table with ``budget`` and ``k`` columns), where ``n`` is items."""


def plain_name(column: str, columns: Iterable[str] = ()) -> str:
    """The plain name of a column: :data:`GRID_NAMES` when ``columns`` hold ``budget`` and ``k``, else
    :data:`PLAIN_NAMES`; a column neither knows keeps its name.

    ``n`` means items (N) in an N x K grid and samples per request (n) elsewhere, so the other columns decide.

    >>> plain_name("n", ["budget", "k", "n"]), plain_name("n", ["n", "accuracy"]), plain_name("my col")
    ('items N', 'samples per request n', 'my col')
    """
    cols = set(columns)
    if {"budget", "k"} <= cols and column in GRID_NAMES:
        return GRID_NAMES[column]
    return PLAIN_NAMES.get(column, column)


def round_for_reading(x: float) -> float:
    """``x`` to three significant digits, never cutting the whole part (1234.5 -> 1234, not 1230).

    Formula: round(x, max(0, 2 - floor(log10 |x|))). NaN, infinities and 0 come back unchanged.

    >>> round_for_reading(0.77341), round_for_reading(12.345), round_for_reading(1234.4), round_for_reading(0.000123456)
    (0.773, 12.3, 1234.0, 0.000123)
    """
    v = float(x)
    if v == 0 or not math.isfinite(v):
        return v
    return round(v, max(0, 2 - math.floor(math.log10(abs(v)))))


def _is_inf(value: object) -> bool:
    return isinstance(value, (float, np.floating)) and math.isinf(float(value))


def _unique_names(names: list[str], originals: list[str]) -> list[str]:
    """Names made unique: a plain name used twice, or equal to another column's name, gets its original added."""
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    out = []
    for n, o in zip(names, originals, strict=True):
        out.append(n if seen[n] == 1 or n == o else f"{n} ({o})")
    return out


def readable_table(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` for reading in a spreadsheet: plain column names, floats rounded, the raw floats kept, no "inf".

    Rules:
    - each column gets its plain name (:func:`plain_name`; a name it does not know is kept);
    - a float column is rounded by :func:`round_for_reading`, and its unrounded values follow the table in a
      column ``"<plain name> (raw)"`` (every float column has one, so a script finds the same columns each time);
    - an infinite value, in any column, is written ``"never"`` (:data:`NEVER`), an empty cell stays empty;
    - text and integer columns are unchanged (formula-like text is defused by :func:`csv_safe`, applied after).

    >>> df = pd.DataFrame({"budget": [1000], "k": [5], "n": [200], "p": [0.012345], "ci_width": [float("inf")]})
    >>> readable_table(df).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'budget (N x K ratings)': 1000, 'ratings per item K': 5, 'items N': 200, 'p-value': 0.0123,
      '95% interval width': 'never', 'p-value (raw)': 0.012345, '95% interval width (raw)': 'never'}]
    """
    originals = [str(c) for c in frame.columns]
    names = _unique_names([plain_name(c, originals) for c in originals], originals)
    shown: dict[str, pd.Series] = {}
    raw: dict[str, pd.Series] = {}
    for i, name in enumerate(names):
        col = frame.iloc[:, i].reset_index(drop=True)
        if pd.api.types.is_float_dtype(col.dtype):
            has_inf = bool(np.isinf(col.to_numpy(dtype=float, na_value=np.nan)).any())
            rounded = col.map(round_for_reading, na_action="ignore")
            shown[name] = rounded.map(_never) if has_inf else rounded
            raw[f"{name} (raw)"] = col.map(_never) if has_inf else col
        elif pd.api.types.is_object_dtype(col.dtype):
            shown[name] = col.map(_never, na_action="ignore")
        else:
            shown[name] = col
    return pd.DataFrame({**shown, **{k: v for k, v in raw.items() if k not in shown}})


def _never(value: object) -> object:
    return NEVER if _is_inf(value) else value
