"""nkcore.errors: every DataError message is one printable line, whatever user text it quotes."""

from __future__ import annotations

import ast
import pickle
import unicodedata

import pytest

from nkcore.errors import DataError, one_line

# Every character str.splitlines() breaks a line at: the oracle for "one line".
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.mark.parametrize("ch", list(LINE_BREAKS))
def test_no_line_break_survives(ch: str) -> None:
    message = str(DataError(f"Columns: it{ch}em, label"))
    assert message.splitlines() == [message]
    assert message == f"Columns: it{repr(ch)[1:-1]}em, label"  # the escape repr shows, so the reader sees it


def test_every_code_point_comes_out_printable_and_decodes_back() -> None:
    """Brute force over the Basic Multilingual Plane: each character comes out printable and on one
    line, printable ones unchanged, others as an escape that Python's own literal parser decodes back to it."""
    for code in range(0x10000):
        ch = chr(code)
        out = one_line(ch)
        assert out.isprintable() and out.splitlines() == [out]
        if ch.isprintable():
            assert out == ch
        else:
            assert out.startswith("\\") and ast.literal_eval(f"'{out}'") == ch


def test_escapes_are_those_of_repr_and_the_rule_is_idempotent() -> None:
    for ch in "\x00\t\x1b\x7f\u200b\u202e\xa0":
        assert unicodedata.category(ch)[0] in "CZ"
        assert one_line(ch) == repr(ch)[1:-1]
        assert one_line(one_line(ch)) == one_line(ch)
    assert one_line("é, 中文, 'quotes' and \\ stay") == "é, 中文, 'quotes' and \\ stay"


def test_args_and_pickling_keep_the_one_line_form() -> None:
    exc = DataError("a\nb", 3)
    assert exc.args == ("a\\nb", 3)
    again = pickle.loads(pickle.dumps(exc))
    assert isinstance(again, DataError) and again.args == exc.args
    assert str(DataError()) == ""
    assert isinstance(exc, ValueError)
