"""Safe JSON reading for the harness readers: size, line-length and nesting-depth limits, one-line errors.

Every limit comes from :mod:`nkcore.common.limits` (``file_bytes``, ``line_bytes``, ``json_depth``, ``rows``); a
file over one, or one that is not valid JSON, raises ``DataError`` naming the file and how to fix it. Python's
parser recurses once per nesting level, so a RecursionError from it is reported as a nesting problem too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from nkcore.common import limits
from nkcore.errors import DataError

__all__ = ["check_file_size", "fail", "iter_json_lines", "json_depth", "limit", "load_json", "long_line"]


def fail(name: str, message: str) -> DataError:
    """A ``DataError`` for the file ``name``, on one line whatever the name or message holds.

    >>> str(fail("a\\nb.json", "not JSON"))
    'a b.json: not JSON'
    """
    text = f"{name}: {message}"
    return DataError("".join(ch if ch.isprintable() else " " for ch in text))


def limit(name: str, key: str, value: float, what: str) -> None:
    """``limits.check`` with the file's name in front of the sentence."""
    try:
        limits.check(key, value, what)
    except DataError as exc:
        raise fail(name, str(exc)) from None


def check_file_size(name: str, size: int) -> None:
    """Refuse a file over the ``file_bytes`` limit (before it is parsed)."""
    limit(name, "file_bytes", size, "the file")


def json_depth(obj: object, cap: int) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0, ``[]`` 1, ``[[1]]`` 2), without recursion; stops
    counting once past ``cap``.

    >>> json_depth({"a": [1, {"b": []}]}, 64)
    4
    """
    deepest = 0
    stack: list[tuple[object, int]] = [(obj, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Iterable[object] = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > cap:
                return deepest
        stack.extend((child, depth) for child in children if isinstance(child, (dict, list)))
    return deepest


def long_line(name: str, lineno: int) -> DataError:
    """The error for a line over the ``line_bytes`` limit."""
    cap = limits.get("line_bytes")
    lim = limits.LIMITS["line_bytes"]
    return fail(
        name,
        f"line {lineno:,} is longer than {cap:,} {lim.unit}; the limit is {cap:,} {lim.unit} "
        f"(server setting {lim.env}): {lim.hint}",
    )


def _check_depth(name: str, raw: bytes, obj: object, where: str) -> None:
    cap = limits.get("json_depth")
    if raw.count(b"[") + raw.count(b"{") <= cap:  # fewer brackets than the cap: cannot nest deeper
        return
    if json_depth(obj, cap) > cap:
        lim = limits.LIMITS["json_depth"]
        raise fail(
            name,
            f"the JSON{where} is nested more than {cap:,} {lim.unit} deep; the limit is {cap:,} {lim.unit} "
            f"(server setting {lim.env}): {lim.hint}",
        )


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8-sig")


def load_json(data: bytes, name: str) -> object:
    """Parse one JSON document under the size and depth limits.

    >>> load_json(b'{"a": [1, 2]}', "x.json")
    {'a': [1, 2]}
    """
    check_file_size(name, len(data))
    try:
        obj = json.loads(_decode(data))
    except RecursionError:
        raise fail(name, "the JSON is nested too deeply to read: flatten the records") from None
    except UnicodeDecodeError as exc:
        raise fail(name, f"not UTF-8 text (byte {exc.start:,}): save the file as UTF-8 JSON") from None
    except json.JSONDecodeError as exc:
        raise fail(name, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise fail(name, f"not readable JSON ({str(exc)[:120]})") from None
    _check_depth(name, data, obj, "")
    return obj


def iter_json_lines(data: bytes, name: str) -> Iterator[tuple[int, dict[str, object]]]:
    """Yield (line number, object) for every non-blank line of a JSON Lines file, under the size, line-length,
    depth and row limits; every line must hold one JSON object."""
    check_file_size(name, len(data))
    line_cap = limits.get("line_bytes")
    row_cap = limits.get("rows")
    rows = 0
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        if len(raw) > line_cap:
            raise long_line(name, lineno)
        if not raw.strip():
            continue
        try:
            obj = json.loads(_decode(raw) if lineno == 1 else raw)
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
        _check_depth(name, raw, obj, f" on line {lineno:,}")
        rows += 1
        if rows > row_cap:
            limit(name, "rows", rows, "the file (at least)")
        yield lineno, obj
