"""JSON tables and JSON Lines: the one JSON-lines reader (:func:`iter_json_lines`, also used by the evaluation-harness
readers), and :func:`read_json`, which makes a table of a JSON array of objects, JSON Lines (one object per line) or
an object of objects keyed by id (one row per key), under the depth, row, column and cell limits.

Reference: JSON Lines (jsonlines.org), RFC 8259 (JSON).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator

import pandas as pd

from nkcore.common import limits
from nkcore.errors import plain_reason
from nkcore.io.checks import check_columns, check_rows, fail, limit, row_cap
from nkcore.io.json_safe import JsonBudget, check_json_depth, json_shape, load_json, scan_json
from nkcore.io.text import line_too_long

__all__ = ["KEY_COLUMN", "iter_json_lines", "json_lines", "nested_values", "read_json"]

# The column that holds each record's key when a file is a JSON object of records keyed by id (LeWiDi's files).
KEY_COLUMN = "key"
_MEMO_CHARS = 64  # texts up to this long are kept once per table however often they repeat


def json_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of ``data`` without a list of every line (one line's bytes at a time).

    >>> list(json_lines(b"a\\nb"))
    [(1, b'a'), (2, b'b')]
    """
    start, lineno = 0, 1
    while start <= len(data):
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        yield lineno, data[start:end]
        start, lineno = end + 1, lineno + 1


_SMALL_LINE_VALUES = 4096  # below this many brackets, commas and colons a line's raw count is spent as it is


def iter_json_lines(
    data: bytes, name: str, max_bytes: int | None = None, budget: JsonBudget | None = None, table: bool = False
) -> Iterator[tuple[int, dict[str, object]]]:
    """Yield (line number, object) for every non-blank line of a JSON Lines file; every line must hold one object.

    Limits (``nkcore.common.limits``): file size (``max_bytes`` when given, else ``file_bytes``), line length
    (``line_bytes``), nesting depth of each line (``json_depth``) and the values of all lines together
    (``json_values``, spent from ``budget`` when given), both scanned before parsing (:func:`nkcore.io.json_safe.
    json_shape`: once over the whole file; when that finds too many values or too deep a line, line by line, so
    the error names the line), and rows (``rows``). A byte-order mark on line 1 is dropped. Errors are one-line
    :class:`nkcore.errors.DataError` naming the file and the line.

    ``table``: the lines are a table's rows (``read_table``), bounded like a CSV file's by rows, cells and the line
    length; only the values nested inside a row's cells (lists, objects) are spent from the JSON-values budget,
    counted on each parsed line (at most ``line_bytes`` of it), so a million flat rows of any width are not
    refused by a limit meant for nested documents.

    >>> list(iter_json_lines(b'{"a": 1}\\n\\n{"a": [2]}\\n', "x.jsonl"))
    [(1, {'a': 1}), (3, {'a': [2]})]
    >>> list(iter_json_lines(b'{"a": 1}\\n[1]\\n', "x.jsonl"))
    Traceback (most recent call last):
    nkcore.errors.DataError: x.jsonl: line 2 (data row 2) holds a JSON list, not one object per line ({"item": ..., ...})
    """
    if max_bytes is None:
        limit(name, "file_bytes", len(data), "the file")
    elif len(data) > max_bytes:
        raise fail(name, f"the file is {len(data):,} bytes, over the size limit of {max_bytes:,} bytes")
    if budget is None:
        budget = JsonBudget(name)
    line_cap = limits.get("line_bytes")
    rows_cap = limits.get("rows")
    per_line = True
    if not table:
        whole = json_shape(data)
        per_line = whole.too_deep_at is not None or budget.used + whole.values > budget.cap
        if not per_line:
            budget.spend(whole.values, "the file")
    rows = 0
    advice = " (one object per row with plain values)"
    for lineno, raw in json_lines(data):
        if len(raw) > line_cap:
            raise line_too_long(name, lineno)
        if not raw.strip():
            continue
        if table:
            check_json_depth(raw, name, first_line=lineno, advice=advice)
        elif per_line:
            raw_count = raw.count(b"{") + raw.count(b"[") + raw.count(b",") + raw.count(b":")
            if raw_count < _SMALL_LINE_VALUES:
                check_json_depth(raw, name, first_line=lineno, advice=advice)
                budget.spend(raw_count + 1, f"the file up to line {lineno:,}")
            else:
                scan_json(raw, name, lineno, advice, budget, f"the file up to line {lineno:,}")
        try:
            obj = json.loads(raw.decode("utf-8-sig") if lineno == 1 else raw)
        except RecursionError:
            raise fail(name, f"line {lineno:,} is nested too deeply to read: flatten the records") from None
        except UnicodeDecodeError as exc:
            raise fail(name, f"line {lineno:,} is not UTF-8 text (byte {exc.start:,}): save it as UTF-8") from None
        except json.JSONDecodeError as exc:
            raise fail(name, f"line {lineno:,} is not valid JSON ({exc.msg} at column {exc.colno})") from None
        except ValueError as exc:  # e.g. an integer of more digits than Python converts
            raise fail(name, f"line {lineno:,} holds {plain_reason(exc)}") from None
        if not isinstance(obj, dict):
            raise fail(
                name,
                f"line {lineno:,} (data row {rows + 1:,}) holds a JSON {type(obj).__name__}, not one object per line "
                '({"item": ..., ...})',
            )
        rows += 1
        if rows > rows_cap:
            limit(name, "rows", rows, "the file", more_than=True)
        if table:
            nested = nested_values(obj)
            if nested:
                budget.spend(nested, f"the file up to line {lineno:,} (values nested in its cells)")
        yield lineno, obj


def nested_values(record: dict[str, object]) -> int:
    """The JSON values nested inside a record's cells: every element of a list or object that is a cell's value,
    at any depth (the cells themselves are counted by the cell limit). Iterative (the depth is checked before).

    >>> nested_values({"item": 1, "ratings": [1, 2, {"a": 3}]}), nested_values({"item": 1, "label": "x"})
    (4, 0)
    """
    count = 0
    stack: list[object] = [v for v in record.values() if isinstance(v, (list, dict))]
    while stack:
        value = stack.pop()
        items = value.values() if isinstance(value, dict) else value
        assert isinstance(items, Iterable)
        for item in items:
            count += 1
            if isinstance(item, (list, dict)):
                stack.append(item)
    return count


def _json_records(objs: Iterator[tuple[int | None, object]], name: str) -> pd.DataFrame:
    """A table from (line or None, object) pairs; every object must be a JSON object, and all of them together may
    use at most ``limits.get("columns")`` keys (checked while reading: a file of distinct keys would otherwise build
    a table of rows x keys cells). Built column by column as the objects come (each object is dropped once read:
    a key is kept once per column, not once per row, and a repeated short text once per column), missing values NaN.
    """
    columns: dict[str, list[object]] = {}
    memo: dict[str, str] = {}
    n = 0
    columns_cap = limits.get("columns")
    for lineno, obj in objs:
        if n >= row_cap(len(columns)):
            check_rows(name, n + 1, len(columns), "the file", more_than=True)
        where = f"line {lineno} (data row {n + 1})" if lineno else f"data row {n + 1}"
        if not isinstance(obj, dict):
            raise fail(
                name,
                f'unparseable {where}: expected one JSON object per row ({{"item": ..., ...}}), '
                f"got a JSON {type(obj).__name__}",
            )
        for key, value in obj.items():
            column = columns.get(key)
            if column is None:
                if len(columns) >= columns_cap:
                    check_columns(
                        [*columns, *(k for k in obj if k not in columns)], name, f"(distinct keys) by {where}"
                    )
                column = columns[key] = [math.nan] * n
            if isinstance(value, str) and len(value) <= _MEMO_CHARS:
                value = memo.setdefault(value, value)
            column.append(value)
        n += 1
        for column in columns.values():
            if len(column) < n:
                column.append(math.nan)
    memo.clear()
    if not columns:
        return pd.DataFrame(index=range(n))
    return pd.DataFrame(columns)


def _keyed(doc: dict[str, object]) -> Iterator[tuple[None, dict[str, object]]]:
    """One record per key of an object of objects: the key in :data:`KEY_COLUMN` (or ``_key`` when a record has a
    field of that name), then the record's fields."""
    column = "_" + KEY_COLUMN if any(isinstance(v, dict) and KEY_COLUMN in v for v in doc.values()) else KEY_COLUMN
    for key, record in doc.items():
        assert isinstance(record, dict)  # checked by _is_keyed
        yield None, {column: key, **record}


def _is_keyed(doc: object) -> bool:
    """An object whose values are all objects (records keyed by id), with at least one key."""
    return isinstance(doc, dict) and bool(doc) and all(isinstance(v, dict) for v in doc.values())


def _one_document(body: bytes) -> bool:
    """Whether a body starting with ``{`` is one JSON document spread over several lines (its first line is not a
    complete JSON value), rather than JSON Lines."""
    end = body.find(b"\n")
    if end < 0:
        return False
    try:
        json.loads(body[:end])
    except (ValueError, RecursionError):
        return True
    return False


def read_json(text: bytes, name: str) -> pd.DataFrame:
    """A table from UTF-8 ``text`` holding a JSON array of objects (it starts with ``[``), JSON Lines, or one JSON
    object of records keyed by id (``{"1": {...}, "2": {...}}``: one row per key, the key in column ``key``); the
    nesting depth is scanned before parsing (:func:`nkcore.io.json_safe.check_json_depth`).

    >>> read_json(b'{"item": 1, "label": "a"}\\n\\n{"item": 2}\\n', "x.jsonl").to_dict("list")
    {'item': [1, 2], 'label': ['a', nan]}
    >>> read_json(b'{\\n "a1": {"text": "x", "n": 2},\\n "a2": {"text": "y"}\\n}', "x.json").to_dict("list")
    {'key': ['a1', 'a2'], 'text': ['x', 'y'], 'n': [2.0, nan]}
    """
    body = text.strip()
    if not body:
        raise fail(name, "the file is empty (only blank lines)")
    if body.startswith(b"["):
        scan_json(body, name, advice=" (one object per row with plain values)")
        try:
            records = json.loads(body)
        except json.JSONDecodeError as exc:
            raise fail(name, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        if not isinstance(records, list):
            raise fail(name, 'a JSON file must hold an array of objects, one per row ({"item": ..., ...})')
        return _json_records(((None, r) for r in records), name)
    if body.startswith(b"{") and _one_document(body):
        doc = load_json(body, name, max_bytes=len(body))
        if not _is_keyed(doc):
            raise fail(
                name,
                "one JSON object spread over several lines, not a table: give JSON Lines (one object per line), an "
                'array of objects, or an object of records keyed by id ({"id1": {...}, "id2": {...}})',
            )
        assert isinstance(doc, dict)
        return _json_records(_keyed(doc), name)
    if b"\n" not in body:  # one line: a one-row table, or an object of records keyed by id
        try:
            only = json.loads(body)
        except (ValueError, RecursionError):
            only = None
        if _is_keyed(only):
            assert isinstance(only, dict)
            return _json_records(_keyed(only), name)
    return _json_records(iter_json_lines(body, name, max_bytes=len(body), table=True), name)
