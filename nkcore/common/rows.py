"""Row numbers in messages: data row 1 is the first row under the header."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["format_rows", "rows_do_not", "rows_where"]


def format_rows(positions: np.ndarray | Sequence[int], limit: int = 8, extra: Sequence[str] | None = None) -> str:
    """Human row numbers for 0-based positions, at most ``limit`` listed; ``extra`` adds a note per listed row.

    >>> format_rows([0, 4, 5])
    'data rows 1, 5, 6'
    >>> format_rows([2, 3, 9], limit=2, extra=["case 'a'", "case 'b'"])
    "data rows 3 (case 'a'), 4 (case 'b') and 1 more"
    """
    listed = list(positions)[:limit]
    shown = [
        f"{int(p) + 1}" + (f" ({extra[i]})" if extra is not None and i < len(extra) else "")
        for i, p in enumerate(listed)
    ]
    n = len(positions)
    more = f" and {n - limit} more" if n > limit else ""
    return f"data row{'s' if n > 1 else ''} {', '.join(shown)}{more}"


def rows_where(mask: np.ndarray | Sequence[bool], limit: int = 8) -> str:
    """:func:`format_rows` of the positions where ``mask`` holds.

    >>> rows_where([False, True, True])
    'data rows 2, 3'
    """
    return format_rows(np.flatnonzero(np.asarray(mask, dtype=bool)), limit=limit)


def rows_do_not(positions: np.ndarray | Sequence[int]) -> str:
    """:func:`format_rows` followed by the verb that agrees with it: 'data row 3 does not', 'data rows 1, 2 do not'.

    >>> rows_do_not([2]), rows_do_not([0, 1])
    ('data row 3 does not', 'data rows 1, 2 do not')
    """
    return f"{format_rows(positions)} {'does' if len(positions) == 1 else 'do'} not"
