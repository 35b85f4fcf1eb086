"""Text tables (CSV, TSV, semicolon- or pipe-separated): the delimiter sniffed from the header, line-length and
separator pre-scans (linear, before any parser sees the text), then pandas under the row, column and cell limits.

Every failure names the file and the line (and data row) involved. Reference: RFC 4180 (CSV).
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from collections.abc import Iterator

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.io.checks import MAX_NAME_CHARS, check_columns, check_rows, fail, row_cap

__all__ = ["NA_VALUES", "check_line_length", "first_line", "line_too_long", "read_delimited", "sniff_sep"]

# Cells read as missing in text files. Deliberately NOT "None" (a real label name in many annotation schemes).
NA_VALUES = ("", "NA", "N/A", "n/a", "NaN", "nan", "NULL", "null", "<NA>", "#N/A")

_BAD_LINE = re.compile(r"Skipping line \d+: expected \d+ fields")
_SCAN_CHUNK = 1 << 24


def first_line(text: bytes) -> str:
    """The first line of UTF-8 ``text``, without its line break.

    >>> first_line(b"a,b\\r\\n1,2\\n")
    'a,b'
    """
    end = text.find(b"\n")
    return text[: end if end >= 0 else len(text)].decode("utf-8").rstrip("\r")


def sniff_sep(header: str, fmt: str | None) -> str:
    """The delimiter: TAB for a ``.tsv`` name, ``,`` for a ``.csv`` one whose header has a comma, else the header's
    most frequent of ``,`` TAB ``;`` ``|`` (``,`` when it has none).

    >>> sniff_sep("item;rater;label", None)
    ';'
    """
    counts = {sep: header.count(sep) for sep in (",", "\t", ";", "|")}
    if fmt == "tsv":
        return "\t"
    if fmt == "csv" and counts[","] > 0:
        return ","
    best = max(counts, key=lambda s: counts[s])
    return best if counts[best] > 0 else ","


def line_too_long(name: str, line: int) -> DataError:
    """The error for line ``line`` of file ``name`` being over the ``line_bytes`` limit.

    >>> str(line_too_long("x.csv", 3)).startswith("x.csv: line 3 is longer than 1,048,576 bytes on one line")
    True
    """
    cap = limits.get("line_bytes")
    lim = limits.LIMITS["line_bytes"]
    return fail(
        name,
        f"line {line:,} is longer than {cap:,} {lim.unit}; the limit is {cap:,} {lim.unit} "
        f"(server setting {lim.env}): {lim.hint}",
    )


def check_line_length(text: bytes, name: str) -> None:
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
            raise line_too_long(name, text.count(b"\n", 0, line_start) + 1)


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def read_delimited(text: bytes, name: str, sep: str) -> pd.DataFrame:
    """A table from UTF-8 delimited ``text`` with separator ``sep``: header checked (columns, names, not data),
    separators counted, then pandas with :data:`NA_VALUES` as missing; a row with more fields than the header, an
    unclosed quote or a parser failure is a ``DataError`` naming the lines.

    >>> read_delimited(b"item;label\\n1;None\\n2;NA\\n", "x.txt", ";")["label"].tolist()
    ['None', nan]
    """
    stripped = text.lstrip(b"\r\n")
    if not stripped.strip():
        raise fail(name, "the file is empty (only blank lines)")
    header_line = first_line(stripped)
    cap = limits.get("columns")
    if len(header_line) > cap * (MAX_NAME_CHARS + 1):
        raise fail(
            name,
            f"the first line is {len(header_line):,} characters long, too long for a header of column names "
            f"(at most {cap:,} columns of at most {MAX_NAME_CHARS:,} characters). Is the first line a header?",
        )
    try:
        header = next(csv.reader([header_line], delimiter=sep))
    except csv.Error as exc:
        raise fail(name, f"cannot read the header (line 1): {exc}") from None
    names = [h.strip() for h in header]
    check_columns(names, name, "in the header (line 1)")
    if not any(names):
        raise fail(name, "no header: the first line has no column names")
    if all(_is_number(h) for h in names if h) and len(names) > 1:
        raise fail(
            name,
            f"no header: the first line ({header_line[:80]!r}) looks like data, not column names. "
            "Add a first line with column names, e.g. item,rater,label.",
        )
    _check_separators(stripped, sep, name)
    lead = text[: len(text) - len(stripped)].count(b"\n")
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
                nrows=row_cap(len(names)) + 1,
            )
        except pd.errors.EmptyDataError:
            raise fail(name, "the file is empty (no columns)") from None
        except (pd.errors.ParserError, ValueError) as exc:
            if "EOF inside string" in str(exc):
                line, row = _last_record(stripped, sep)
                raise fail(
                    name,
                    f"a quote opened on line {line + lead} (data row {row}) is never closed, so the rest of the file "
                    'would be one value. Close the quote, or double quotes that are part of a value ("").',
                ) from None
            msg = str(exc).replace("Error tokenizing data. C error: ", "").strip()
            raise fail(name, f"cannot parse the file as {_sep_name(sep)}: {msg}") from None
    if any(_BAD_LINE.search(str(w.message)) or "does not match length of data" in str(w.message) for w in caught):
        bad = [(ln, row, n) for ln, row, n in _records(stripped, sep) if n > len(names)]
        listed = ", ".join(f"line {ln + lead} (data row {row}, {n} fields)" for ln, row, n in bad[:10])
        more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        raise fail(
            name,
            f"{len(bad)} unparseable line{'s' if len(bad) != 1 else ''}: more fields than the {len(names)} columns "
            f"of the header: {listed}{more}. Quote values that contain the delimiter {sep!r}.",
        )
    check_rows(name, len(frame), frame.shape[1], "the file", len(frame) > row_cap(len(names)))
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
            raise fail(
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


def _sep_name(sep: str) -> str:
    return {",": "CSV", "\t": "TSV (tab-separated)", ";": "semicolon-separated text", "|": "pipe-separated text"}[sep]
