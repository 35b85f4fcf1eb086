"""Safe JSON reading for the harness readers: size, line-length and nesting-depth limits, one-line errors.

Every limit comes from :mod:`nkcore.common.limits` (``file_bytes``, ``line_bytes``, ``json_depth``, ``rows``); a
file over one, or one that is not valid JSON, raises ``DataError`` naming the file and how to fix it. One JSON
document is read by :func:`nkcore.io.load_json` (re-exported here with :func:`nkcore.io.fail`,
:func:`nkcore.io.limit` and :func:`nkcore.io.line_too_long` as ``long_line``, for the harness readers);
:func:`iter_json_lines` reads JSON Lines with the same depth scan, line by line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from nkcore.common import limits
from nkcore.io import check_json_depth, fail, limit, load_json
from nkcore.io import line_too_long as long_line

__all__ = ["check_file_size", "fail", "iter_json_lines", "limit", "load_json", "long_line"]


def check_file_size(name: str, size: int) -> None:
    """Refuse a file over the ``file_bytes`` limit (before it is parsed).

    >>> check_file_size("a.jsonl", 10)
    """
    limit(name, "file_bytes", size, "the file")


def iter_json_lines(data: bytes, name: str) -> Iterator[tuple[int, dict[str, object]]]:
    """Yield (line number, object) for every non-blank line of a JSON Lines file, under the size, line-length,
    depth and row limits; every line must hold one JSON object.

    >>> list(iter_json_lines(b'{"a": 1}\\n\\n{"a": [2]}\\n', "x.jsonl"))
    [(1, {'a': 1}), (3, {'a': [2]})]
    """
    check_file_size(name, len(data))
    line_cap = limits.get("line_bytes")
    row_cap = limits.get("rows")
    rows = 0
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        if len(raw) > line_cap:
            raise long_line(name, lineno)
        if not raw.strip():
            continue
        check_json_depth(raw, name, first_line=lineno)
        try:
            obj = json.loads(raw.decode("utf-8-sig") if lineno == 1 else raw)
        except RecursionError:
            raise fail(name, f"line {lineno:,} is nested too deeply to read: flatten the records") from None
        except UnicodeDecodeError as exc:
            raise fail(name, f"line {lineno:,} is not UTF-8 text (byte {exc.start:,}): save it as UTF-8") from None
        except json.JSONDecodeError as exc:
            raise fail(name, f"line {lineno:,} is not valid JSON ({exc.msg} at column {exc.colno})") from None
        except ValueError as exc:  # e.g. an integer of more digits than Python converts
            raise fail(name, f"line {lineno:,} is not readable JSON ({str(exc)[:120]})") from None
        if not isinstance(obj, dict):
            raise fail(name, f"line {lineno:,} holds a JSON {type(obj).__name__}, not one object per line")
        rows += 1
        if rows > row_cap:
            limit(name, "rows", rows, "the file (at least)")
        yield lineno, obj
