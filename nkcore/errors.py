"""The one exception type for problems a user can fix (bad files, bad parameters), and its one-line rule.

The UI shows its message with ``st.error``; the CLI prints it on one line to stderr and exits 2. Messages quote
user data (column names, file names, cell values), which can hold line breaks or other control characters, so
:class:`DataError` passes every message through :func:`one_line`: whatever it quotes, a message is one printable
line.
"""

from __future__ import annotations

import re

__all__ = ["DataError", "one_line", "plain_reason", "printable_lines"]


def one_line(text: str) -> str:
    """``text`` as one printable line: each non-printable character becomes its Python escape, as ``repr`` shows it.

    Non-printable means ``not str.isprintable()``: control characters (``\\n``, ``\\r``, ``\\t``, ``\\x00``...),
    the Unicode line and paragraph separators, format characters (zero-width and bidirectional marks) and spaces
    other than the ASCII space. ``str.splitlines`` splits on none of what is left, so the result is exactly one
    line, and the escape shows the reader which character was there. Printable text, including non-ASCII letters,
    is unchanged (the rule is idempotent: an escape is printable).

    >>> one_line("Columns: it\\nem, rat\\rer, label")
    'Columns: it\\\\nem, rat\\\\rer, label'
    >>> one_line("zero\\u200bwidth, é unchanged")
    'zero\\\\u200bwidth, é unchanged'
    >>> one_line(one_line("a\\x00b")) == one_line("a\\x00b")
    True
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def printable_lines(text: str) -> str:
    """``text`` with every non-printable character but the line break and the tab escaped, by :func:`one_line`'s
    rule: what the CLI writes to a terminal.

    A name read from a file (a model, a provider, a config) can hold ESC colour sequences, a carriage return that
    sends the cursor back to overwrite the verdict, NUL, or a right-to-left override (U+202E) that shows the line's
    end reversed. Each becomes its visible Python escape (``\\x1b``, ``\\r``, ``\\x00``, ``\\u202e``); the lines of the
    text and their indentation are kept.

    >>> printable_lines("verdict: \\x1b[2KB wins\\r\\u202eA\\n\\tnote")
    'verdict: \\\\x1b[2KB wins\\\\r\\\\u202eA\\n\\tnote'
    """
    if text.isprintable():
        return text
    return "\n".join("\t".join(one_line(part) for part in line.split("\t")) for line in text.split("\n"))


_DIGITS = re.compile(r"integer string conversion: value has (\d+) digits")


def plain_reason(exc: BaseException) -> str:
    """Why a file could not be read, in the product's words rather than Python's: what is wrong and what to do.

    - a number of more digits than Python converts (``ValueError: Exceeds the limit (4300 digits)...``);
    - text that is not valid Unicode (a lone surrogate escape such as ``\\ud800``, ``UnicodeEncodeError``);
    - a record that does not fit a tool's format (pydantic's ``ValidationError``): how many fields, the first field
      and what is wrong with it;
    - anything else: the exception's first line, without its Python type name.

    >>> plain_reason(ValueError("Exceeds the limit (4300 digits) for integer string conversion: value has 5000 "
    ...                         "digits; use sys.set_int_max_str_digits() to increase the limit"))
    'a number with 5,000 digits (NK Planner reads numbers of up to 4,300 digits): check that the field holds a score, a count or a time, not an id or a blob'
    >>> plain_reason(UnicodeEncodeError("utf-8", "\\ud800", 0, 1, "surrogates not allowed"))
    'text that is not valid Unicode (a lone surrogate escape such as \\\\ud800): export the file again as UTF-8 from the tool that wrote it'
    """
    text = str(exc)
    digits = _DIGITS.search(text)
    if digits:
        return (
            f"a number with {int(digits.group(1)):,} digits (NK Planner reads numbers of up to 4,300 digits): check "
            "that the field holds a score, a count or a time, not an id or a blob"
        )
    if isinstance(exc, UnicodeError) and "surrogate" in text:
        return (
            "text that is not valid Unicode (a lone surrogate escape such as \\ud800): export the file again as "
            "UTF-8 from the tool that wrote it"
        )
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationError" and callable(errors):
        try:
            found = list(errors())
        except Exception:
            found = []
        if found:
            first = found[0]
            where = ".".join(str(part) for part in first.get("loc", ())) or "the record"
            more = f" (and {len(found) - 1:,} more)" if len(found) > 1 else ""
            return f"field {where!r} does not fit the format: {first.get('msg', 'invalid value')}{more}"
    first_line = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first_line[:200]


class DataError(ValueError):
    """Bad input a user can fix. The message names the problem and the rows or columns involved.

    Every string argument is made one printable line by :func:`one_line` (a quoted column name with a line break
    cannot split the CLI's one-line refusal), so ``str(exc)`` and ``exc.args`` are always one line.

    >>> str(DataError("no column 'it\\nem'"))
    "no column 'it\\\\nem'"
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(one_line(arg) if isinstance(arg, str) else arg for arg in args))
