"""The limits and error sentences every reader of ``nkcore.io`` shares: one-line errors naming the file, row /
column / cell limits, sizes in words.

Every limit comes from :mod:`nkcore.common.limits` (each env-overridable); over one, the ``DataError`` names the
file, the limit, its server setting and how to stay under it.
"""

from __future__ import annotations

from collections import Counter

from nkcore.common import limits
from nkcore.errors import DataError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_COLUMNS",
    "MAX_NAME_CHARS",
    "SUPPORTED",
    "check_columns",
    "check_rows",
    "fail",
    "hexbytes",
    "limit",
    "limit_hint",
    "row_cap",
    "size_text",
]

DEFAULT_MAX_BYTES = limits.LIMITS["file_bytes"].default
# No NK Planner table needs more columns (long formats; a probability or config column per label / config at most).
# The limit (``limits.get("columns")``, this is its default) is checked on the header, before any data is parsed.
MAX_COLUMNS = limits.LIMITS["columns"].default
MAX_NAME_CHARS = 1_000  # longest column name
SUPPORTED = "CSV, TSV, Parquet or JSONL (optionally gzipped)"


def fail(name: str, message: str) -> DataError:
    """The error for file ``name``: ``"<name>: <message>"``, on one line even when the name or a library's message
    holds line breaks (:class:`DataError` shows each non-printable character as its escape).

    >>> str(fail("a.csv", "no header"))
    'a.csv: no header'
    """
    return DataError(f"{name}: {message}")


def limit(name: str, key: str, value: float, what: str, more_than: bool = False) -> None:
    """``limits.check`` with the file's name in front of the sentence.

    >>> limit("a.csv", "columns", 3, "the file")
    """
    try:
        limits.check(key, value, what, more_than)
    except DataError as exc:
        raise fail(name, str(exc)) from None


def row_cap(n_columns: int) -> int:
    """Most rows a table of ``n_columns`` columns may have: min(row limit, cell limit // columns).

    >>> row_cap(1) == min(limits.get("rows"), limits.get("cells"))
    True
    """
    return min(limits.get("rows"), limits.get("cells") // max(n_columns, 1))


def check_rows(name: str, n_rows: int, n_columns: int, what: str, more_than: bool = False) -> None:
    """Refuse more rows than the row limit, or more cells (rows x columns) than the cell limit; ``more_than``: the
    reading stopped one row past the limit, so the file has more rows than ``n_rows`` says."""
    limit(name, "rows", n_rows, what, more_than)
    limit(name, "cells", n_rows * max(n_columns, 1), what, more_than)


def check_columns(names: list[str], name: str, where: str) -> None:
    """Refuse too many columns, over-long or duplicated column names (linear time: a header may be huge).

    >>> check_columns(["a", "a"], "x.csv", "in the header")
    Traceback (most recent call last):
    nkcore.errors.DataError: x.csv: duplicated column names in the header: 'a'
    """
    cap = limits.get("columns")
    if len(names) > cap:
        lim = limits.LIMITS["columns"]
        raise fail(
            name,
            f"{len(names):,} columns {where}; NK Planner reads at most {cap:,} (server setting {lim.env}). Its tables "
            "are long: one row per rating, prediction, result or sample, with a few columns (e.g. item, rater, label).",
        )
    long = [i for i, n in enumerate(names) if len(n) > MAX_NAME_CHARS]
    if long:
        raise fail(
            name,
            f"column {long[0] + 1} {where} has a name of {len(names[long[0]]):,} characters; column names can be at "
            f"most {MAX_NAME_CHARS:,}. Is a closing quote missing in the first line?",
        )
    dupes = sorted(n for n, c in Counter(n for n in names if n).items() if c > 1)
    if dupes:
        raise fail(name, f"duplicated column names {where}: {', '.join(map(repr, dupes[:10]))}")


def limit_hint(key: str) -> str:
    """Where the limit ``key`` is set, and how to stay under it, for a sentence that names a size.

    >>> limit_hint("file_bytes")
    ' (server setting NKP_MAX_FILE_BYTES): upload a smaller or sampled file'
    """
    lim = limits.LIMITS[key]
    return f" (server setting {lim.env}): {lim.hint}"


def size_text(n: int) -> str:
    """A byte count in words: MiB or KiB with one decimal, and the exact count.

    >>> size_text(3 * 2**20)
    '3.0 MiB (3,145,728 bytes)'
    >>> size_text(12)
    '12 bytes'
    """
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB ({n:,} bytes)"
    if n >= 2**10:
        return f"{n / 2**10:.1f} KiB ({n:,} bytes)"
    return f"{n:,} bytes"


def hexbytes(data: bytes, n: int = 4) -> str:
    """The first ``n`` bytes of ``data`` in hex, for naming a file's magic.

    >>> hexbytes(b"PK\\x03\\x04rest")
    '50 4b 03 04'
    """
    return " ".join(f"{b:02x}" for b in data[:n])
