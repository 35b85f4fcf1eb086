"""Numbers for people: points, percent, p-values, counts. One rule each, so every page and CLI agrees.

A difference is formatted from the rounded values it compares when those are given (75.1% -> 75.4% reads
"+0.3 points"), and a zero never carries a sign ("0.0", not "-0.0").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

__all__ = [
    "count",
    "distinguishing_names",
    "format_p",
    "name_list",
    "p_value_text",
    "percent",
    "plural",
    "points",
    "points_between",
    "shorten",
]


def points(x: float, sign: bool = True, decimals: int = 1) -> str:
    """A fraction as percentage points: '+7.0', '-2.5'; a value that rounds to zero is '0.0' (no sign).

    >>> points(0.07), points(-0.025), points(-0.0004), points(0.123, sign=False)
    ('+7.0', '-2.5', '0.0', '12.3')
    """
    v = 100.0 * float(x)
    if round(abs(v), decimals) == 0:
        return f"{0:.{decimals}f}"
    return f"{v:+.{decimals}f}" if sign else f"{v:.{decimals}f}"


def points_between(a: float, b: float, decimals: int = 1) -> str:
    """b minus a in points, computed from the two values as shown (rounded), so the text adds up.

    >>> points_between(0.7514, 0.7536)  # shown as 75.1% and 75.4%
    '+0.3'
    """
    ra, rb = round(100.0 * a, decimals), round(100.0 * b, decimals)
    return points((rb - ra) / 100.0, decimals=decimals)


def percent(x: float, decimals: int = 1) -> str:
    """A fraction as a percentage: '13.0%'.

    >>> percent(0.130284), percent(1.0, 0)
    ('13.0%', '100%')
    """
    return f"{100.0 * float(x):.{decimals}f}%"


def format_p(p: float) -> str:
    """p for people, two significant digits: 'p < 0.001', 'p = 0.034', 'p = 0.10', 'p = 0.77', 'p = 1.0'.

    >>> format_p(0.0004), format_p(0.0341), format_p(0.1), format_p(0.774), format_p(0.999)
    ('p < 0.001', 'p = 0.034', 'p = 0.10', 'p = 0.77', 'p = 1.0')
    """
    text = p_value_text(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def p_value_text(p: float) -> str:
    """The number of :func:`format_p` alone, for a table cell: '< 0.001', '0.034', '0.10', '1.0'; '-' when missing.

    >>> [p_value_text(x) for x in (0.0004, 0.0341, 0.1, 0.999, float("nan"))]
    ['< 0.001', '0.034', '0.10', '1.0', '-']
    """
    if not math.isfinite(p):
        return "-"
    if p < 0.001:
        return "< 0.001"
    if p >= 0.995:
        return "1.0"
    decimals = max(0, 1 - math.floor(math.log10(p)))
    return f"{p:.{decimals}f}"


def plural(k: int, word: str) -> str:
    """'1 case', '12 cases', '1,000 cases'.

    >>> plural(1, "case"), plural(1000, "case")
    ('1 case', '1,000 cases')
    """
    return f"{k:,} {word}" + ("" if k == 1 else "s")


def count(k: float, word: str) -> str:
    """Like :func:`plural` for a count that may be fractional: '10.5 discordant cases'.

    >>> count(12, "discordant case"), count(10.5, "discordant case")
    ('12 discordant cases', '10.5 discordant cases')
    """
    number = f"{int(k):,}" if float(k).is_integer() else f"{k:,.1f}"
    return f"{number} {word}" + ("" if k == 1 else "s")


def shorten(text: object, limit: int = 40) -> str:
    """``text`` cut to at most ``limit`` characters, an ellipsis marking the cut (a user's name may be any length).

    >>> shorten("a-very-long-config-name", limit=10), shorten("abc", 4)
    ('a-very-lo…', 'abc')
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    s = str(text)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def name_list(names: Iterable[object], limit: int = 8, width: int = 40) -> str:
    """The first ``limit`` names, each cut to ``width``, comma-separated, with " ..." when more were left out.

    >>> name_list(["a", "b", "c"], limit=2)
    'a, b ...'
    """
    items = list(names)
    shown = ", ".join(shorten(n, width) for n in items[:limit])
    return shown + (" ..." if len(items) > limit else "")


_NAME_SEPARATORS = re.compile(r"([-_/:|@,\s]+)")


def distinguishing_names(names: Sequence[object], keep_within: int = 16) -> list[str]:
    """Each name cut to the part that tells it apart: the leading and trailing parts ALL names share are removed,
    at separators only (``- _ / : | @ ,`` and spaces; not ``.`` or ``=``, which sit inside versions and settings).

    Rule: names are split into words at separators; the longest run of whole words (with their separators) that
    every name starts with, and the longest every name ends with, are removed, as long as each name keeps at least
    one word. Names that all fit in ``keep_within`` characters, a single name, or a cut that would make two names
    equal are returned unchanged. Used for axis labels, where the full name goes into the tooltip and the title.

    >>> distinguishing_names(["bert-base-uncased_seed0", "bert-base-uncased_seed1"])
    ['seed0', 'seed1']
    >>> distinguishing_names(["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"])
    ['8B', '70B']
    >>> distinguishing_names(["n=1", "n=3", "n=5"])  # short names stay as they are
    ['n=1', 'n=3', 'n=5']
    >>> distinguishing_names(["gpt-4o-2024-08-06", "gpt-4o-mini-2024-07-18"])
    ['2024-08-06', 'mini-2024-07-18']
    """
    full = [str(n) for n in names]
    if len(full) < 2 or all(len(n) <= keep_within for n in full):
        return full
    # word, separator, word, ...: even positions are words (possibly empty at the ends), odd positions separators
    parts = [_NAME_SEPARATORS.split(n) for n in full]
    words = min(len(p) // 2 + 1 for p in parts)  # words of the shortest name
    # leading words shared by all names (each with the separator after it), at most words - 1 of them
    head = 0
    while head < words - 1 and all(p[2 * head : 2 * head + 2] == parts[0][2 * head : 2 * head + 2] for p in parts):
        head += 1
    # trailing words shared by all names (each with the separator before it), leaving at least one word
    tail = 0
    while head + tail < words - 1 and all(
        p[len(p) - 2 * tail - 2 :][:2] == parts[0][len(parts[0]) - 2 * tail - 2 :][:2] for p in parts
    ):
        tail += 1
    short = ["".join(p[2 * head : len(p) - 2 * tail]) for p in parts]
    if any(not s.strip() for s in short) or len(set(short)) < len(set(full)):
        return full
    return short
