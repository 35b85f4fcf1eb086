"""``read_table``: the one entry point that reads a user's file into a table, deciding its format by content first
and name second, and turning any parser failure into a one-line ``DataError`` naming the file."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from nkcore.common import limits
from nkcore.errors import DataError, plain_reason
from nkcore.io.checks import SUPPORTED, check_columns, fail, hexbytes
from nkcore.io.jsonl import read_json
from nkcore.io.parquet import read_parquet
from nkcore.io.source import GZIP_MAGIC, PARQUET_MAGIC, check_binary, decode, gunzip, load_source, suffix_format
from nkcore.io.text import check_line_length, first_line, read_delimited, sniff_sep

__all__ = ["read_table"]


def read_table(source: bytes | str | Path, filename: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Read a CSV / TSV / Parquet / JSONL file (optionally gzipped) into a DataFrame, or raise a precise DataError.

    ``source`` is the file's bytes (an upload; ``filename`` gives its name) or a path. Order of decisions:
    size limit (before reading a path), gzip magic ``1f 8b`` (decompressed in steps, refused past the unpacked
    size or ratio limit),
    Parquet magic ``PAR1``, other binary magic / NUL bytes (refused whatever the name says), UTF-8 decoding
    (a UTF-8 or UTF-16 byte-order mark is honoured), then the name (``.jsonl``, ``.tsv``, ``.csv``) or, for other
    names, the content (``{`` / ``[`` starts JSON; otherwise the header's most frequent of , TAB ; |).
    Cells in :data:`NA_VALUES` are missing ("None" stays a string). Column names are stripped of spaces.
    Limits (``nkcore.common.limits``, each env-overridable): file size (``max_bytes`` when given, else
    ``file_bytes``; it also caps the unpacked size then, else ``unpacked_bytes``), gzip ratio, line length
    (scanned before parsing; it bounds every field too, as ``csv.field_size_limit`` would), JSON nesting depth
    (scanned without recursion before parsing), columns, rows and cells (rows x columns; the parser stops one row
    past the limit). Any parser failure (RecursionError, MemoryError, UnicodeError,
    csv / pandas / pyarrow errors) becomes a one-line ``DataError`` naming the file.

    Reference: RFC 4180 (CSV), JSON Lines (jsonlines.org), Apache Parquet format (magic ``PAR1``).

    >>> read_table(b"item,rater,label\\n1,a,yes\\n1,b,no\\n", "r.csv").shape
    (2, 3)
    """
    file_cap = limits.get("file_bytes") if max_bytes is None else max_bytes
    unpacked_cap = limits.get("unpacked_bytes") if max_bytes is None else max_bytes
    data, name = load_source(source, filename, file_cap)
    try:
        return _read_bytes(data, name, unpacked_cap)
    except DataError:
        raise
    except RecursionError:
        raise fail(name, "the file is nested too deeply to read: flatten the records") from None
    except MemoryError:
        raise fail(name, "the file needs more memory than this server gives one request: sample or split it") from None
    except (UnicodeError, csv.Error, ValueError, OverflowError, pd.errors.ParserError) as exc:
        raise fail(name, f"cannot read the file: it holds {plain_reason(exc)}; upload {SUPPORTED}") from None


def _read_bytes(data: bytes, name: str, unpacked_cap: int) -> pd.DataFrame:
    """``read_table`` after the size check: decide the format, check the limits, parse."""
    if not data:
        raise fail(name, "the file is empty (0 bytes)")
    fmt, _gz = suffix_format(name)
    if data.startswith(GZIP_MAGIC):
        data = gunzip(data, name, unpacked_cap)
        if not data:
            raise fail(name, "the file is empty (the compressed file holds 0 bytes)")
    if data.startswith(PARQUET_MAGIC):
        frame = read_parquet(data, name, unpacked_cap)
    else:
        if fmt == "parquet":
            raise fail(name, f"named .parquet but is not a Parquet file (first bytes {hexbytes(data)}, expected PAR1)")
        if not data.startswith((b"\xff\xfe", b"\xfe\xff")):
            check_binary(data, name, fmt)
        text = decode(data, name)
        if not text.strip():
            raise fail(name, "the file is empty (only blank lines)")
        check_line_length(text, name)
        if fmt in ("jsonl", "json") or (fmt is None and text.lstrip()[:1] in (b"{", b"[")):
            frame = read_json(text, name)
        else:
            stripped = text.lstrip(b"\r\n")
            frame = read_delimited(text, name, sniff_sep(first_line(stripped), fmt))
    if frame.shape[1] == 0:
        raise fail(name, "no columns found")
    check_columns([str(c) for c in frame.columns], name, "in the file")
    if len(frame) == 0:
        cols = ", ".join(map(str, frame.columns[:12]))
        raise fail(name, f"no rows: the file has column names ({cols}) but no data rows")
    return frame.reset_index(drop=True)
