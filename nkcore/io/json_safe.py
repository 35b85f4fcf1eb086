"""Safe JSON: one loader for every JSON document the product reads (size cap, nesting depth scanned without
recursion before parsing, one-line errors naming the file), and the depth scan it uses.

Python's ``json`` parser recurses once per nesting level, so ``[[[[...]]]]`` of a few KB would end in a
RecursionError; the scan refuses it first against ``limits.get("json_depth")`` (env-overridable).
Reference: RFC 8259 (JSON).
"""

from __future__ import annotations

import json
import re

import numpy as np

from nkcore.common import limits
from nkcore.io.checks import fail, limit_hint, size_text

__all__ = ["check_json_depth", "load_json"]

# A JSON string, or an unterminated one up to the end (every quote starts a match: one linear pass, no backtracking).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.?[^"\\]*)*(?:"|\Z)', re.DOTALL)
_SCAN_CHUNK = 1 << 24


def check_json_depth(text: bytes, name: str, first_line: int = 1, advice: str = "") -> None:
    """Refuse JSON nested deeper than ``limits.get("json_depth")`` levels, without recursion, before parsing.

    Strings are blanked out first (brackets inside them do not nest), then the depth after every bracket is the
    running sum of +1 for ``[`` / ``{`` and -1 for ``]`` / ``}`` (numpy, in chunks). The error names the line of
    the first bracket past the limit (``first_line`` is the number of the first line of ``text``); ``advice`` is
    added to its sentence.

    >>> check_json_depth(b'{"a": "[[[[", "b": [[1]]}', "x.json")
    >>> check_json_depth(b"[" * 100 + b"]" * 100, "x.json")
    Traceback (most recent call last):
    nkcore.errors.DataError: x.json: the JSON on line 1 is nested more than 64 levels deep; the limit is 64 levels (server setting NKP_MAX_JSON_DEPTH): flatten the records
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
        if int(run.max()) > cap:
            at = start + int(idx[np.argmax(run > cap)])
            line = bare.count(b"\n", 0, at) + first_line
            lim = limits.LIMITS["json_depth"]
            raise fail(
                name,
                f"the JSON on line {line:,} is nested more than {cap:,} {lim.unit} deep; the limit is {cap:,} "
                f"{lim.unit} (server setting {lim.env}): {lim.hint}{advice}",
            )
        depth = max(int(run[-1]), 0)


def load_json(data: bytes | str, name: str, max_bytes: int | None = None) -> object:
    """Parse one JSON document under the size and depth limits, or raise a one-line ``DataError`` naming ``name``.

    Order: size (``max_bytes`` when given, else ``limits.get("file_bytes")``), UTF-8 decoding (a byte-order mark is
    dropped), the depth scan (:func:`check_json_depth`), then ``json.loads``; a RecursionError, an invalid document,
    an integer of more digits than Python converts or any other ValueError / OverflowError becomes the ``DataError``.

    >>> load_json(b'{"a": [1, 2]}', "x.json")
    {'a': [1, 2]}
    >>> load_json("[1,", "x.json")
    Traceback (most recent call last):
    nkcore.errors.DataError: x.json: not valid JSON: Expecting value at line 1, column 4
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    cap = limits.get("file_bytes") if max_bytes is None else max_bytes
    if len(raw) > cap:
        where = limit_hint("file_bytes") if max_bytes is None else ""
        raise fail(name, f"the file is {size_text(len(raw))}, over the size limit of {size_text(cap)}{where}")
    if isinstance(data, str):
        text = data
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise fail(name, f"not UTF-8 text (byte {exc.start:,}): save the file as UTF-8 JSON") from None
    check_json_depth(raw, name)
    try:
        return json.loads(text)
    except RecursionError:
        raise fail(name, "the JSON is nested too deeply to read: flatten the records") from None
    except json.JSONDecodeError as exc:
        raise fail(name, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer of more digits than Python converts
        raise fail(name, f"not readable JSON ({str(exc)[:120]})") from None
