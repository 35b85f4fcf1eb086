"""JSON tables: a JSON array of objects or JSON Lines (one object per line), one row per object, under the depth,
row, column and cell limits.

Reference: JSON Lines (jsonlines.org), RFC 8259 (JSON).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pandas as pd

from nkcore.common import limits
from nkcore.io.checks import check_columns, check_rows, fail, row_cap
from nkcore.io.json_safe import check_json_depth

__all__ = ["read_json"]


def _json_records(objs: Iterator[tuple[int | None, object]], name: str) -> pd.DataFrame:
    """A table from (line or None, object) pairs; every object must be a JSON object, and all of them together may
    use at most ``limits.get("columns")`` keys (checked while reading: a file of distinct keys would otherwise build
    a table of rows x keys cells)."""
    records: list[dict[str, object]] = []
    keys: dict[str, None] = {}
    for lineno, obj in objs:
        if len(records) >= row_cap(len(keys)):
            check_rows(name, len(records) + 1, len(keys), "the file (at least)")
        where = f"line {lineno} (data row {len(records) + 1})" if lineno else f"data row {len(records) + 1}"
        if not isinstance(obj, dict):
            raise fail(
                name,
                f'unparseable {where}: expected one JSON object per row ({{"item": ..., ...}}), '
                f"got a JSON {type(obj).__name__}",
            )
        if not keys.keys() >= obj.keys():
            keys.update(dict.fromkeys(obj))
            if len(keys) > limits.get("columns"):
                check_columns(list(keys), name, f"(distinct keys) by {where}")
        records.append(obj)
    return pd.DataFrame.from_records(records, columns=list(keys))


def _json_lines(text: bytes, name: str) -> Iterator[tuple[int, object]]:
    for lineno, raw in enumerate(text.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            yield lineno, json.loads(raw)
        except json.JSONDecodeError as exc:
            raise fail(name, f"unparseable line {lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None


def read_json(text: bytes, name: str) -> pd.DataFrame:
    """A table from UTF-8 ``text`` holding a JSON array of objects (it starts with ``[``) or JSON Lines; the
    nesting depth is scanned before parsing (:func:`nkcore.io.json_safe.check_json_depth`).

    >>> read_json(b'{"item": 1, "label": "a"}\\n\\n{"item": 2}\\n', "x.jsonl").to_dict("list")
    {'item': [1, 2], 'label': ['a', nan]}
    """
    body = text.strip()
    if not body:
        raise fail(name, "the file is empty (only blank lines)")
    check_json_depth(body, name, advice=" (one object per row with plain values)")
    if body.startswith(b"["):
        try:
            records = json.loads(body)
        except json.JSONDecodeError as exc:
            raise fail(name, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        if not isinstance(records, list):
            raise fail(name, 'a JSON file must hold an array of objects, one per row ({"item": ..., ...})')
        return _json_records(((None, r) for r in records), name)
    return _json_records(_json_lines(body, name), name)
