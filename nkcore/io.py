"""Reading user files into tables: CSV, TSV, Parquet and JSONL (optionally gzipped), with precise errors.

The format is decided by the file's content first (gzip, Parquet and other binary magic bytes) and by its
name second (``.csv``, ``.tsv``, ``.jsonl``...; for text files without a telling name the delimiter is sniffed
from the header line). Everything a user can get wrong raises :class:`nkcore.errors.DataError` with a message
that names the file, the problem and the line or byte offset involved.

``fingerprint`` gives a table's content hash (sha256), the id under which ``nkcore.store`` keeps it.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import re
import struct
import warnings
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.errors import DataError

__all__ = ["DEFAULT_MAX_BYTES", "MAX_COLUMNS", "MAX_NAME_CHARS", "NA_VALUES", "csv_safe", "fingerprint", "read_table"]

DEFAULT_MAX_BYTES = limits.LIMITS["file_bytes"].default
# No NK Planner table needs more columns (long formats; a probability or config column per label / config at most).
# The limit (``limits.get("columns")``, this is its default) is checked on the header, before any data is parsed.
MAX_COLUMNS = limits.LIMITS["columns"].default
MAX_NAME_CHARS = 1_000  # longest column name

# Cells read as missing in text files. Deliberately NOT "None" (a real label name in many annotation schemes).
NA_VALUES = ("", "NA", "N/A", "n/a", "NaN", "nan", "NULL", "null", "<NA>", "#N/A")

_GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
# Binary formats people upload by mistake, with a hint for each.
_BINARY_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive or an Excel .xlsx workbook"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel .xls / Office document"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "a program (ELF executable)"),
    (b"BZh", "a bzip2 archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive"),
)
_TEXT_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": None, ".jsonl": "jsonl", ".ndjson": "jsonl"}
_ALL_SUFFIXES = {**_TEXT_SUFFIXES, ".json": "json", ".parquet": "parquet", ".pq": "parquet"}
_BAD_LINE = re.compile(r"Skipping line \d+: expected \d+ fields")
_SUPPORTED = "CSV, TSV, Parquet or JSONL (optionally gzipped)"


def _fail(name: str, message: str) -> DataError:
    """The error for file ``name``; one line even when the name or a library's message holds line breaks
    (:class:`DataError` shows each non-printable character as its escape, :func:`nkcore.errors.one_line`)."""
    return DataError(f"{name}: {message}")


def _limit(name: str, key: str, value: int | float, what: str) -> None:
    """``limits.check`` with the file's name in front of the sentence."""
    try:
        limits.check(key, value, what)
    except DataError as exc:
        raise _fail(name, str(exc)) from None


def _row_cap(n_columns: int) -> int:
    """Most rows a table of ``n_columns`` columns may have: the row limit, and the cell limit over the columns."""
    return min(limits.get("rows"), limits.get("cells") // max(n_columns, 1))


def _check_rows(name: str, n_rows: int, n_columns: int, what: str) -> None:
    """Refuse more rows than the row limit, or more cells (rows x columns) than the cell limit."""
    _limit(name, "rows", n_rows, what)
    _limit(name, "cells", n_rows * max(n_columns, 1), what)


def _hexbytes(data: bytes, n: int = 4) -> str:
    return " ".join(f"{b:02x}" for b in data[:n])


def _load_source(source: bytes | str | Path, filename: str | None, max_bytes: int) -> tuple[bytes, str]:
    """Return (raw bytes, display name), refusing files over ``max_bytes`` before reading them."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        name = filename or "the uploaded file"
        if len(data) > max_bytes:
            raise _fail(
                name, f"the file is {_size(len(data))}, over the size limit of {_size(max_bytes)}{_env('file_bytes')}"
            )
        return data, name
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = filename or path.name
        if not path.is_file():
            raise _fail(str(path), "no such file")
        size = path.stat().st_size
        if size > max_bytes:
            raise _fail(
                name, f"the file is {_size(size)}, over the size limit of {_size(max_bytes)}{_env('file_bytes')}"
            )
        return path.read_bytes(), name
    raise TypeError(f"read_table: source must be bytes, str or Path, not {type(source).__name__}")


def _env(key: str) -> str:
    """Where the limit ``key`` is set, and how to stay under it, for a sentence that names a size."""
    lim = limits.LIMITS[key]
    return f" (server setting {lim.env}): {lim.hint}"


def _size(n: int) -> str:
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB ({n:,} bytes)"
    if n >= 2**10:
        return f"{n / 2**10:.1f} KiB ({n:,} bytes)"
    return f"{n:,} bytes"


_GUNZIP_CHUNK = 1 << 20


def _gunzip(data: bytes, name: str, max_bytes: int) -> bytes:
    """Decompress gzip data in 1 MiB steps, stopping as soon as the output passes the unpacked-size cap.

    Cap = min(``max_bytes``, ``limits.get("gzip_ratio")`` x the packed size): a few KB that unpack to gigabytes
    (a "gzip bomb") are refused after reading just past the cap, never fully unpacked.
    """
    ratio_cap = limits.get("gzip_ratio") * max(len(data), 1)
    cap = min(max_bytes, ratio_cap)
    parts: list[bytes] = []
    total = 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            while total <= cap:
                block = fh.read(min(_GUNZIP_CHUNK, cap + 1 - total))
                if not block:
                    break
                parts.append(block)
                total += len(block)
    except (OSError, EOFError, zlib.error, struct.error) as exc:
        raise _fail(name, f"the gzip-compressed data is corrupt or truncated ({exc})") from None
    if total > cap:
        if cap == ratio_cap and ratio_cap < max_bytes:
            lim = limits.LIMITS["gzip_ratio"]
            raise _fail(
                name,
                f"the compressed file unpacks to more than {limits.get('gzip_ratio'):,} {lim.unit} "
                f"({_size(len(data))} packed); the limit is {limits.get('gzip_ratio'):,} {lim.unit} "
                f"(server setting {lim.env}): {lim.hint}",
            )
        raise _fail(
            name, f"the uncompressed content is over the size limit of {_size(max_bytes)}{_env('unpacked_bytes')}"
        )
    return b"".join(parts)


def _suffix_format(name: str) -> tuple[str | None, bool]:
    """(format named by the file name or None, whether the name ends in .gz)."""
    lower = name.lower()
    gz = lower.endswith(".gz") or lower.endswith(".gzip")
    if gz:
        lower = lower.rsplit(".", 1)[0]
    return _ALL_SUFFIXES.get(Path(lower).suffix), gz


def _decode(data: bytes, name: str) -> bytes:
    """Validate the text encoding; return UTF-8 bytes without a byte-order mark."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail(
                name, f"the file starts with a UTF-16 byte-order mark but is not valid UTF-16 (byte offset {exc.start})"
            ) from None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 1]
        raise _fail(
            name,
            f"undecodable bytes: tried UTF-8, byte 0x{bad.hex()} at byte offset {exc.start} (line {line}) "
            "is not valid UTF-8. Save the file as UTF-8 (in Excel: 'CSV UTF-8').",
        ) from None
    return data


def _check_binary(data: bytes, name: str, fmt: str | None) -> None:
    for magic, what in _BINARY_MAGIC:
        if data.startswith(magic):
            raise _fail(
                name,
                f"this is a binary file ({what}, first bytes {_hexbytes(data)}), not a text table"
                f"{f' despite its .{fmt} name' if fmt else ''}. Upload {_SUPPORTED}.",
            )
    head = data[:65536]
    nul = head.find(b"\x00")
    if nul >= 0:
        raise _fail(
            name,
            f"this is a binary file (NUL byte at offset {nul}), not a text table"
            f"{f' despite its .{fmt} name' if fmt else ''}. Upload {_SUPPORTED}.",
        )


def _first_line(text: bytes) -> str:
    end = text.find(b"\n")
    return text[: end if end >= 0 else len(text)].decode("utf-8").rstrip("\r")


def _sniff_sep(header: str, fmt: str | None) -> str:
    counts = {sep: header.count(sep) for sep in (",", "\t", ";", "|")}
    if fmt == "tsv":
        return "\t"
    if fmt == "csv" and counts[","] > 0:
        return ","
    best = max(counts, key=lambda s: counts[s])
    return best if counts[best] > 0 else ","


_SCAN_CHUNK = 1 << 24


def _check_line_length(text: bytes, name: str) -> None:
    """Refuse a line longer than ``limits.get("line_bytes")`` before any parser sees it (linear, vectorised).

    Lines are measured in bytes between line breaks (a bound on their characters). One 50 MB line of fields would
    otherwise cost a parser minutes and gigabytes; this scan costs milliseconds.
    """
    cap = limits.get("line_bytes")
    if len(text) <= cap:
        return
    prev = -1  # position of the last line break seen
    for start in range(0, len(text), _SCAN_CHUNK):
        chunk = np.frombuffer(text, dtype=np.uint8, count=min(_SCAN_CHUNK, len(text) - start), offset=start)
        breaks = np.flatnonzero(chunk == 10) + start
        ends = np.concatenate([[prev], breaks]) if breaks.size else np.array([prev])
        gaps = np.diff(ends) - 1
        longest = int(gaps.max()) if gaps.size else 0
        if breaks.size:
            prev = int(breaks[-1])
        tail = start + chunk.size - 1 - prev  # the open line at the end of the chunk
        if max(longest, tail) > cap:
            line_start = prev + 1 if tail > longest else int(ends[np.argmax(gaps)]) + 1
            line = text.count(b"\n", 0, line_start) + 1
            lim = limits.LIMITS["line_bytes"]
            raise _fail(
                name,
                f"line {line:,} is longer than {cap:,} {lim.unit}; the limit is {cap:,} {lim.unit} "
                f"(server setting {lim.env}): {lim.hint}",
            )


# A JSON string: quote, then runs of ordinary characters and backslash escapes, then quote (unrolled: no backtracking).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def _check_json_depth(text: bytes, name: str) -> None:
    """Refuse JSON nested deeper than ``limits.get("json_depth")`` levels, without recursion, before parsing.

    Strings are blanked out first (brackets inside them do not nest), then the depth after every bracket is the
    running sum of +1 for ``[`` / ``{`` and -1 for ``]`` / ``}`` (numpy, in chunks). Python's json parser recurses
    once per level, so ``[[[[...]]]]`` of a few KB would otherwise end in a RecursionError.
    """
    cap = limits.get("json_depth")
    if text.count(b"[") + text.count(b"{") <= cap:
        return
    bare = _JSON_STRING.sub(b'""', text) if b'"' in text else text
    depth = 0
    for start in range(0, len(bare), _SCAN_CHUNK):
        chunk = np.frombuffer(bare, dtype=np.uint8, count=min(_SCAN_CHUNK, len(bare) - start), offset=start)
        step = (chunk == 91).view(np.int8) + (chunk == 123).view(np.int8)
        step -= (chunk == 93).view(np.int8) + (chunk == 125).view(np.int8)
        idx = np.flatnonzero(step)
        if not idx.size:
            continue
        run = np.cumsum(step[idx], dtype=np.int64) + depth
        deepest = int(run.max())
        if deepest > cap:
            at = start + int(idx[np.argmax(run > cap)])
            line = bare.count(b"\n", 0, at) + 1
            lim = limits.LIMITS["json_depth"]
            raise _fail(
                name,
                f"the JSON on line {line:,} is nested more than {cap:,} {lim.unit} deep; the limit is {cap:,} "
                f"{lim.unit} (server setting {lim.env}): {lim.hint} (one object per row with plain values)",
            )
        depth = max(int(run[-1]), 0)


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _read_delimited(text: bytes, name: str, sep: str) -> pd.DataFrame:
    stripped = text.lstrip(b"\r\n")
    if not stripped.strip():
        raise _fail(name, "the file is empty (only blank lines)")
    header_line = _first_line(stripped)
    cap = limits.get("columns")
    if len(header_line) > cap * (MAX_NAME_CHARS + 1):
        raise _fail(
            name,
            f"the first line is {len(header_line):,} characters long, too long for a header of column names "
            f"(at most {cap:,} columns of at most {MAX_NAME_CHARS:,} characters). Is the first line a header?",
        )
    try:
        header = next(csv.reader([header_line], delimiter=sep))
    except csv.Error as exc:
        raise _fail(name, f"cannot read the header (line 1): {exc}") from None
    names = [h.strip() for h in header]
    _check_columns(names, name, "in the header (line 1)")
    if not any(names):
        raise _fail(name, "no header: the first line has no column names")
    if all(_is_number(h) for h in names if h) and len(names) > 1:
        raise _fail(
            name,
            f"no header: the first line ({header_line[:80]!r}) looks like data, not column names. "
            "Add a first line with column names, e.g. item,rater,label.",
        )
    _check_separators(stripped, sep, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            frame = pd.read_csv(
                io.BytesIO(stripped),
                sep=sep,
                keep_default_na=False,
                na_values=list(NA_VALUES),
                on_bad_lines="warn",
                encoding="utf-8",
                index_col=False,
                low_memory=False,
                nrows=_row_cap(len(names)) + 1,
            )
        except pd.errors.EmptyDataError:
            raise _fail(name, "the file is empty (no columns)") from None
        except (pd.errors.ParserError, ValueError) as exc:
            lead = text[: len(text) - len(stripped)].count(b"\n")
            if "EOF inside string" in str(exc):
                line, row = _last_record(stripped, sep)
                raise _fail(
                    name,
                    f"a quote opened on line {line + lead} (data row {row}) is never closed, so the rest of the file "
                    'would be one value. Close the quote, or double quotes that are part of a value ("").',
                ) from None
            msg = str(exc).replace("Error tokenizing data. C error: ", "").strip()
            raise _fail(name, f"cannot parse the file as {_sep_name(sep)}: {msg}") from None
    if any(_BAD_LINE.search(str(w.message)) or "does not match length of data" in str(w.message) for w in caught):
        lead = text[: len(text) - len(stripped)].count(b"\n")
        bad = [(ln, row, n) for ln, row, n in _records(stripped, sep) if n > len(names)]
        listed = ", ".join(f"line {ln + lead} (data row {row}, {n} fields)" for ln, row, n in bad[:10])
        more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        raise _fail(
            name,
            f"{len(bad)} unparseable line{'s' if len(bad) != 1 else ''}: more fields than the {len(names)} columns "
            f"of the header: {listed}{more}. Quote values that contain the delimiter {sep!r}.",
        )
    _check_rows(name, len(frame), frame.shape[1], "the file")
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def _check_separators(text: bytes, sep: str, name: str) -> None:
    """Refuse a text table with more separators than twice the cell limit, before the parser tokenizes them.

    The parser splits every line into fields before it can skip a line with too many, so 200 MB of ``1,1,1,...``
    would cost it 100 million fields (gigabytes) to refuse. A table within the limits has fewer separators than
    cells; twice the cell limit leaves room for separators inside quoted text.
    """
    cap = 2 * limits.get("cells")
    if len(text) > cap:
        count = text.count(sep.encode())
        if count > cap:
            lim = limits.LIMITS["cells"]
            raise _fail(
                name,
                f"the file has {count:,} {sep!r} separators, more than twice the cell limit of {cap // 2:,} "
                f"{lim.unit} allows (server setting {lim.env}): {lim.hint}",
            )


def _records(text: bytes, sep: str) -> Iterator[tuple[int, int, int]]:
    """(first line, data row, number of fields) of each record under the header (error paths only).

    Lines count from 1 with the header as line 1; data rows count the non-blank records under the header from 1
    (a quoted value may span lines, so the two differ). A field over the csv module's size limit ends the scan
    with that record (it is the one an unclosed quote swallowed the rest of the file into).
    """
    reader = csv.reader(io.StringIO(text.decode("utf-8"), newline=""), delimiter=sep)
    start, row = 1, -1
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error:
            yield start, row + 1, 0
            return
        if record:
            row += 1
            if row > 0:
                yield start, row, len(record)
        start = reader.line_num + 1


def _last_record(text: bytes, sep: str) -> tuple[int, int]:
    """(first line, data row) of the last record: where an unclosed quote starts."""
    last = (1, 0)
    for record in _records(text, sep):
        last = record[:2]
    return last


def _check_columns(names: list[str], name: str, where: str) -> None:
    """Refuse too many columns, over-long or duplicated column names (linear time: a header may be huge)."""
    cap = limits.get("columns")
    if len(names) > cap:
        lim = limits.LIMITS["columns"]
        raise _fail(
            name,
            f"{len(names):,} columns {where}; NK Planner reads at most {cap:,} (server setting {lim.env}). Its tables "
            "are long: one row per rating, prediction, result or sample, with a few columns (e.g. item, rater, label).",
        )
    long = [i for i, n in enumerate(names) if len(n) > MAX_NAME_CHARS]
    if long:
        raise _fail(
            name,
            f"column {long[0] + 1} {where} has a name of {len(names[long[0]]):,} characters; column names can be at "
            f"most {MAX_NAME_CHARS:,}. Is a closing quote missing in the first line?",
        )
    dupes = sorted(n for n, c in Counter(n for n in names if n).items() if c > 1)
    if dupes:
        raise _fail(name, f"duplicated column names {where}: {', '.join(map(repr, dupes[:10]))}")


def _sep_name(sep: str) -> str:
    return {",": "CSV", "\t": "TSV (tab-separated)", ";": "semicolon-separated text", "|": "pipe-separated text"}[sep]


def _json_records(objs: Iterator[tuple[int | None, object]], name: str) -> pd.DataFrame:
    """A table from (line or None, object) pairs; every object must be a JSON object, and all of them together may
    use at most :data:`MAX_COLUMNS` keys (checked while reading: a file of distinct keys would otherwise build a
    table of rows x keys cells)."""
    records: list[dict[str, object]] = []
    keys: dict[str, None] = {}
    for lineno, obj in objs:
        if len(records) >= _row_cap(len(keys)):
            _check_rows(name, len(records) + 1, len(keys), "the file (at least)")
        where = f"line {lineno} (data row {len(records) + 1})" if lineno else f"data row {len(records) + 1}"
        if not isinstance(obj, dict):
            raise _fail(
                name,
                f'unparseable {where}: expected one JSON object per row ({{"item": ..., ...}}), '
                f"got a JSON {type(obj).__name__}",
            )
        if not keys.keys() >= obj.keys():
            keys.update(dict.fromkeys(obj))
            if len(keys) > limits.get("columns"):
                _check_columns(list(keys), name, f"(distinct keys) by {where}")
        records.append(obj)
    return pd.DataFrame.from_records(records, columns=list(keys))


def _json_lines(text: bytes, name: str) -> Iterator[tuple[int, object]]:
    for lineno, raw in enumerate(text.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            yield lineno, json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _fail(name, f"unparseable line {lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None


def _read_json(text: bytes, name: str) -> pd.DataFrame:
    body = text.strip()
    if not body:
        raise _fail(name, "the file is empty (only blank lines)")
    _check_json_depth(body, name)
    if body.startswith(b"["):
        try:
            records = json.loads(body)
        except json.JSONDecodeError as exc:
            raise _fail(name, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        if not isinstance(records, list):
            raise _fail(name, 'a JSON file must hold an array of objects, one per row ({"item": ..., ...})')
        return _json_records(((None, r) for r in records), name)
    return _json_records(_json_lines(body, name), name)


def _read_parquet(data: bytes, name: str, max_bytes: int) -> pd.DataFrame:
    try:
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(io.BytesIO(data))
        meta, names = parquet.metadata, [str(n) for n in parquet.schema_arrow.names]
        n_columns, n_rows = meta.num_columns, meta.num_rows
        unpacked = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    except Exception as exc:  # pyarrow raises several unrelated types for a corrupt file
        raise _fail(name, f"not a readable Parquet file ({type(exc).__name__}: {str(exc)[:200]})") from None
    _check_columns(names, name, "in the Parquet file")
    _check_rows(name, n_rows, n_columns, "the Parquet file")
    # Dictionary / run-length encoding can pack a billion cells into a few bytes (a "Parquet bomb"): refuse more
    # cells than a text file under the size limit could hold (2 bytes a cell, "0,"), and more uncompressed bytes.
    if unpacked > max_bytes or n_rows * n_columns > max_bytes // 2:
        raise _fail(
            name,
            f"the uncompressed content ({n_rows:,} rows x {n_columns:,} columns, {_size(unpacked)} encoded) is over "
            f"the size limit of {_size(max_bytes)}",
        )
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises several unrelated types for a corrupt file
        raise _fail(name, f"not a readable Parquet file ({type(exc).__name__}: {str(exc)[:200]})") from None
    frame = frame.reset_index(drop=frame.index.name is None and isinstance(frame.index, pd.RangeIndex))
    frame.columns = [str(c) for c in frame.columns]
    return frame


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
    data, name = _load_source(source, filename, file_cap)
    try:
        return _read_bytes(data, name, unpacked_cap)
    except DataError:
        raise
    except RecursionError:
        raise _fail(name, "the file is nested too deeply to read: flatten the records") from None
    except MemoryError:
        raise _fail(name, "the file needs more memory than this server gives one request: sample or split it") from None
    except (UnicodeError, csv.Error, ValueError, OverflowError, pd.errors.ParserError) as exc:
        raise _fail(
            name, f"cannot read the file ({type(exc).__name__}: {str(exc)[:200]}); upload {_SUPPORTED}"
        ) from None


def _read_bytes(data: bytes, name: str, unpacked_cap: int) -> pd.DataFrame:
    """``read_table`` after the size check: decide the format, check the limits, parse."""
    if not data:
        raise _fail(name, "the file is empty (0 bytes)")
    fmt, _gz = _suffix_format(name)
    if data.startswith(_GZIP_MAGIC):
        data = _gunzip(data, name, unpacked_cap)
        if not data:
            raise _fail(name, "the file is empty (the compressed file holds 0 bytes)")
    if data.startswith(_PARQUET_MAGIC):
        frame = _read_parquet(data, name, unpacked_cap)
    else:
        if fmt == "parquet":
            raise _fail(
                name, f"named .parquet but is not a Parquet file (first bytes {_hexbytes(data)}, expected PAR1)"
            )
        if not data.startswith((b"\xff\xfe", b"\xfe\xff")):
            _check_binary(data, name, fmt)
        text = _decode(data, name)
        if not text.strip():
            raise _fail(name, "the file is empty (only blank lines)")
        _check_line_length(text, name)
        if fmt in ("jsonl", "json") or (fmt is None and text.lstrip()[:1] in (b"{", b"[")):
            frame = _read_json(text, name)
        else:
            stripped = text.lstrip(b"\r\n")
            frame = _read_delimited(text, name, _sniff_sep(_first_line(stripped), fmt))
    if frame.shape[1] == 0:
        raise _fail(name, "no columns found")
    _check_columns([str(c) for c in frame.columns], name, "in the file")
    if len(frame) == 0:
        cols = ", ".join(map(str, frame.columns[:12]))
        raise _fail(name, f"no rows: the file has column names ({cols}) but no data rows")
    return frame.reset_index(drop=True)


# ---------------------------------------------------------------------------------------------------------
# Fingerprint


def _column_bytes(col: pd.Series) -> tuple[str, bytes]:
    """(dtype family, canonical bytes) of one column; stable across pandas/numpy versions."""
    dtype = col.dtype
    if pd.api.types.is_bool_dtype(dtype) and not col.isna().any():
        return "bool", col.to_numpy(dtype=np.uint8).tobytes()
    if pd.api.types.is_integer_dtype(dtype):
        if col.isna().any():
            values = col.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)
            return "float", _float_bytes(values)
        return "int", col.to_numpy(dtype="<i8").tobytes()
    if pd.api.types.is_float_dtype(dtype):
        return "float", _float_bytes(col.to_numpy(dtype=np.float64, na_value=np.nan))
    if pd.api.types.is_datetime64_any_dtype(dtype):
        values = [None if pd.isna(v) else pd.Timestamp(v).isoformat() for v in col]
        return "datetime", json.dumps(values, ensure_ascii=False).encode("utf-8")
    values = [None if _missing(v) else str(v) for v in col.tolist()]
    return "str", json.dumps(values, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _missing(v: object) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v) or v is pd.NaT


def _float_bytes(values: np.ndarray) -> bytes:
    out = np.array(values, dtype="<f8")
    out[np.isnan(out)] = np.nan  # one NaN bit pattern
    out[out == 0] = 0.0  # -0.0 == 0.0
    return out.tobytes()


def fingerprint(frame: pd.DataFrame) -> str:
    """sha256 hex of a canonical serialisation of ``frame``: column names, dtype families, values, row order.

    Serialisation: a JSON header ``{"columns": [...], "n_rows": n}``, then per column its name, its family
    (int -> little-endian int64; float -> little-endian float64 with one NaN and -0.0 == 0.0; bool -> uint8;
    anything else -> JSON list of ``str(value)`` / null), each block length-prefixed. The index is ignored, and so
    are pandas' storage details (object vs str dtype, numpy vs nullable ints without missing values), so the same
    table read from CSV, Parquet or the store gives the same id.

    >>> fingerprint(pd.DataFrame({"a": [1, 2]})) == fingerprint(pd.DataFrame({"a": [1, 2]}, index=[5, 6]))
    True
    """
    h = hashlib.sha256()
    header = {"columns": [str(c) for c in frame.columns], "n_rows": len(frame)}
    h.update(json.dumps(header, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    for name in frame.columns:
        family, payload = _column_bytes(frame[name])
        for block in (str(name).encode("utf-8"), family.encode("ascii"), payload):
            h.update(len(block).to_bytes(8, "little"))
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------------------
# Exports

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
