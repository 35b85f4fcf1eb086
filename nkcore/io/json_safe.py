"""Safe JSON: one loader for every JSON document the product reads (size cap, nesting depth and value count scanned
without recursion before parsing, one-line errors naming the file), and the scans it uses.

Python's ``json`` parser recurses once per nesting level, so ``[[[[...]]]]`` of a few KB would end in a
RecursionError; the scan refuses it first against ``limits.get("json_depth")`` (env-overridable). A byte bound does
not bound the parsed objects either: 2 MB of ``{},{},...`` is a million dicts (64 bytes each, plus the list's
pointer), so the values are counted before parsing (:func:`count_json_values`) against ``limits.get("json_values")``,
for one document or, through a :class:`JsonBudget`, for every document a request parses (the lines of a JSON Lines
file, the entries of an archive).
Reference: RFC 8259 (JSON).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from nkcore.common import limits
from nkcore.errors import DataError, plain_reason
from nkcore.io.checks import fail, limit, limit_hint, size_text

__all__ = ["JsonBudget", "JsonShape", "check_json_depth", "count_json_values", "json_shape", "load_json", "scan_json"]

_SCAN_CHUNK = 1 << 23
_OPEN = (91, 123)  # [ {
_CLOSE = (93, 125)  # ] }
_SEPARATORS = (44, 58)  # , :


@dataclass(frozen=True, slots=True)
class JsonShape:
    """What a scan of JSON text found: ``values`` (brackets, commas and colons outside strings, plus one) and
    ``too_deep_at`` (the byte offset of the first bracket past the depth cap, or None)."""

    values: int
    too_deep_at: int | None


def _run_before(text: bytes, at: int) -> int:
    """How many backslashes end ``text[:at]`` (read back in 8 MiB slices)."""
    run = 0
    while at > 0:
        piece = text[max(0, at - _SCAN_CHUNK) : at]
        tail = len(piece) - len(piece.rstrip(b"\\"))
        run += tail
        if tail < len(piece):
            break
        at -= len(piece)
    return run


def _escaped(full: np.ndarray, text: bytes, qpos: np.ndarray, start: int, backslash: np.ndarray) -> np.ndarray:
    """Which quotes (at ``qpos`` in the chunk starting at byte ``start``) follow an odd run of backslashes.

    Quotes after a backslash are rare in real text: their runs are measured back a byte at a time (vectorised over
    the quotes) for 16 bytes; if runs longer than that remain, the whole chunk's runs are measured at once (the
    running maximum of the last byte that is not a backslash)."""
    escaped = np.zeros(qpos.size, dtype=bool)
    glob = qpos + start
    cand = np.flatnonzero(glob > 0)
    cand = cand[full[glob[cand] - 1] == 92]
    if not cand.size:
        return escaped
    run = np.ones(cand.size, dtype=np.int64)
    pos = glob[cand] - 2
    active = np.ones(cand.size, dtype=bool)
    for _ in range(16):
        active &= pos >= 0
        active[active] = full[pos[active]] == 92
        if not active.any():
            escaped[cand] = run % 2 == 1
            return escaped
        run += active
        pos -= 1
    m = backslash.size
    carry = _run_before(text, start)
    idx = np.arange(m, dtype=np.int32)
    last_plain = np.maximum.accumulate(np.where(backslash, np.int32(-1), idx))
    prev = qpos[cand] - 1
    safe = np.maximum(prev, 0)
    runs = np.where(prev >= 0, safe - last_plain[safe] + np.where(last_plain[safe] < 0, carry, 0), carry)
    escaped[cand] = runs % 2 == 1
    return escaped


def json_shape(text: bytes, depth_cap: int | None = None) -> JsonShape:
    """Count the values of JSON ``text`` and find where it nests deeper than ``depth_cap``, without parsing.

    Vectorised over 8 MiB chunks (numpy): quotes preceded by an odd run of backslashes are escaped; the others
    open and close strings, so a byte is inside a string when the running parity (xor) of the quotes before it is
    odd; brackets, commas and colons outside strings are counted, and the depth is the running sum of +1 per
    ``[`` / ``{`` and -1 per ``]`` / ``}``. An unterminated string runs to the end. About 1 s per 100 MB.

    >>> json_shape(b'{"a": [1, 2, {}], "b": "x,y:[z\\"]"}')
    JsonShape(values=9, too_deep_at=None)
    >>> json_shape(b"[[[1]]]", depth_cap=2)
    JsonShape(values=4, too_deep_at=2)
    """
    cap = limits.get("json_depth") if depth_cap is None else depth_cap
    if not text.strip():
        return JsonShape(0, None)
    count = 0
    depth = 0
    in_string = 0
    full = np.frombuffer(text, dtype=np.uint8)
    too_deep: int | None = None
    deep_possible = text.count(b"[") + text.count(b"{") > cap
    for start in range(0, len(text), _SCAN_CHUNK):
        m = min(_SCAN_CHUNK, len(text) - start)
        a = np.frombuffer(text, dtype=np.uint8, count=m, offset=start)
        quote = a == 34
        backslash = a == 92
        if backslash.any() or (start and text[start - 1] == 92):
            qpos = np.flatnonzero(quote)
            if qpos.size:
                quote[qpos[_escaped(full, text, qpos, start, backslash)]] = False
        parity = np.bitwise_xor.accumulate(quote.view(np.uint8))
        if in_string:
            parity ^= 1
        outside = parity == 0
        in_string = int(parity[-1])
        opens = ((a == _OPEN[0]) | (a == _OPEN[1])) & outside
        seps = ((a == _SEPARATORS[0]) | (a == _SEPARATORS[1])) & outside
        n_open = int(np.count_nonzero(opens))
        count += n_open + int(np.count_nonzero(seps))
        if deep_possible and too_deep is None:
            closes = ((a == _CLOSE[0]) | (a == _CLOSE[1])) & outside
            step = opens.view(np.int8) - closes.view(np.int8)
            where = np.flatnonzero(step)
            if where.size:
                run = np.cumsum(step[where], dtype=np.int64) + depth
                if int(run.max()) > cap:
                    too_deep = start + int(where[np.argmax(run > cap)])
                depth = max(int(run[-1]), 0)
    return JsonShape(count + 1, too_deep)


def count_json_values(text: bytes) -> int:
    """The values of JSON ``text`` as counted before parsing: ``{``, ``[``, ``,`` and ``:`` outside strings, plus one
    (:func:`json_shape`).

    Every value but a container's first element follows a comma or a colon, and every first element is inside a
    bracket, so the count bounds the values (a key and its value count once, at the colon; a container's first
    element is counted by its bracket).

    >>> count_json_values(b'{"a": [1, 2, {}], "b": "x,y:[z"}')
    9
    >>> count_json_values(b""), count_json_values(b"7")
    (0, 1)
    """
    return json_shape(text, depth_cap=2**62).values


@dataclass(slots=True)
class JsonBudget:
    """The JSON values a request may still parse: ``spend`` adds a document's count and refuses the request past
    ``limits.get("json_values")`` (one budget for a JSON Lines file's lines, or an archive's entries).

    >>> b = JsonBudget("x.jsonl"); b.spend(10); b.used
    10
    """

    name: str
    cap: int = field(default_factory=lambda: limits.get("json_values"))
    used: int = 0

    def spend(self, n: int, what: str = "the JSON") -> None:
        """Count ``n`` more values; ``DataError`` naming ``what`` when the total passes the cap."""
        self.used += n
        if self.used > self.cap:
            limit(self.name, "json_values", self.used, what, more_than=True)


def _too_deep(text: bytes, at: int, name: str, first_line: int, advice: str) -> DataError:
    cap = limits.get("json_depth")
    line = text.count(b"\n", 0, at) + first_line
    lim = limits.LIMITS["json_depth"]
    return fail(
        name,
        f"the JSON on line {line:,} is nested more than {cap:,} {lim.unit} deep; the limit is {cap:,} "
        f"{lim.unit} (server setting {lim.env}): {lim.hint}{advice}",
    )


def scan_json(
    text: bytes,
    name: str,
    first_line: int = 1,
    advice: str = "",
    budget: JsonBudget | None = None,
    what: str = "the JSON",
) -> int:
    """Refuse JSON ``text`` nested deeper than ``limits.get("json_depth")`` or holding more values than ``budget``
    has left (a budget of its own, ``limits.get("json_values")``, when None), in one scan (:func:`json_shape`),
    before it is parsed; the count is spent from the budget and returned. ``first_line`` numbers the first line of
    ``text`` for the depth error, ``advice`` ends its sentence, ``what`` names the JSON in the count's.

    >>> scan_json(b'[{}, {}]', "x.json")
    5
    """
    if budget is None:
        budget = JsonBudget(name)
    shape = json_shape(text)
    if shape.too_deep_at is not None:
        raise _too_deep(text, shape.too_deep_at, name, first_line, advice)
    budget.spend(shape.values, what)
    return shape.values


def check_json_depth(text: bytes, name: str, first_line: int = 1, advice: str = "") -> None:
    """Refuse JSON nested deeper than ``limits.get("json_depth")`` levels, without recursion, before parsing.

    Brackets inside strings do not nest; the depth after every bracket is the running sum of +1 for ``[`` / ``{``
    and -1 for ``]`` / ``}`` (:func:`json_shape`). The error names the line of the first bracket past the limit
    (``first_line`` is the number of the first line of ``text``); ``advice`` is added to its sentence.

    >>> check_json_depth(b'{"a": "[[[[", "b": [[1]]}', "x.json")
    >>> check_json_depth(b"[" * 100 + b"]" * 100, "x.json")
    Traceback (most recent call last):
    nkcore.errors.DataError: x.json: the JSON on line 1 is nested more than 64 levels deep; the limit is 64 levels (server setting NKP_MAX_JSON_DEPTH): flatten the records
    """
    if text.count(b"[") + text.count(b"{") <= limits.get("json_depth"):
        return
    shape = json_shape(text)
    if shape.too_deep_at is not None:
        raise _too_deep(text, shape.too_deep_at, name, first_line, advice)


def load_json(
    data: bytes | str, name: str, max_bytes: int | None = None, budget: JsonBudget | None = None, what: str = "the JSON"
) -> object:
    """Parse one JSON document under the size and depth limits, or raise a one-line ``DataError`` naming ``name``.

    Order: size (``max_bytes`` when given, else ``limits.get("file_bytes")``), UTF-8 decoding (a byte-order mark is
    dropped), the depth and value scan (:func:`scan_json`; its count spent from ``budget`` when given, else from a
    budget of its own), then ``json.loads``; a RecursionError, an invalid document,
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
    scan_json(raw, name, budget=budget, what=what)
    try:
        return json.loads(text)
    except RecursionError:
        raise fail(name, "the JSON is nested too deeply to read: flatten the records") from None
    except json.JSONDecodeError as exc:
        raise fail(name, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer of more digits than Python converts
        raise fail(name, f"the JSON holds {plain_reason(exc)}") from None
