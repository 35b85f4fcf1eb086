"""Tables for download: text that a spreadsheet would run as a formula is defused.

Reference: OWASP, "CSV Injection".
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["csv_safe"]

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
