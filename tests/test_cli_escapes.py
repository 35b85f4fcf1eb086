"""Names read from a file reach the terminal escaped: a crafted log cannot colour, erase or reverse the CLI's lines.

A config, model or provider name in a results file can hold an ESC colour sequence, a carriage return followed by
"erase line" (the rest of the line then overwrites what was printed before it, the verdict included), NUL, a C1
control (U+009B, an 8-bit CSI) or a right-to-left override (U+202E) and the other bidirectional controls. In text
output each must arrive as its visible escape (``\\x1b``, ``\\r``, ``\\u202e``...), the lines of the report intact;
``--json`` must keep the exact strings (JSON escapes that decode to them).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from nkcore.cli import main
from nkcore.errors import one_line
from tests.conftest import ROOT

A = "gpt\x1b[31mRED\x1b[0m"
B = "evil\r\x1b[2Kverdict: A wins\u202eNUL\x00\x9b31m\u2066\u200f\u061c"
# what no terminal-bound text may hold: C0 controls but \n and \t, DEL, C1, bidi and zero-width marks
FORBIDDEN = {chr(c) for c in (*range(0, 9), *range(11, 32), *range(0x7F, 0xA0))} | set(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u200b"
)


def _paired(tmp_path: Path) -> Path:
    path = tmp_path / "paired.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(60):
            f.write(json.dumps({"case": f"c{i}", "config": A, "correct": int(i % 3 != 0)}) + "\n")
            f.write(json.dumps({"case": f"c{i}", "config": B, "correct": int(i % 5 != 0)}) + "\n")
    return path


def _promptfoo(tmp_path: Path) -> Path:
    """The recorded promptfoo run with its labelled provider renamed to the hostile name."""
    text = (ROOT / "tests/data/promptfoo/results.json").read_text(encoding="utf-8")
    path = tmp_path / "results.json"
    path.write_text(text.replace('"guesser"', json.dumps(B)), encoding="utf-8")
    return path


def _clean(text: str) -> None:
    bad = sorted({repr(c) for c in text if c in FORBIDDEN})
    assert not bad, bad


def test_printable_lines_escapes_what_one_line_escapes_but_keeps_lines_and_tabs() -> None:
    from nkcore.errors import printable_lines

    text = f"verdict: {B}\n\t{A}"
    out = printable_lines(text)
    _clean(out)
    assert out.split("\n") == ["verdict: " + one_line(B), "\t" + one_line(A)]
    assert "\\x1b[2K" in out and "\\r" in out and "\\u202e" in out and "\\x00" in out and "\\x9b" in out
    assert printable_lines(out) == out  # idempotent
    assert printable_lines("é, 日本, plain") == "é, 日本, plain"


def test_the_writer_escapes_every_write() -> None:
    from nkcore.cli import EscapingWriter

    sink = io.StringIO()
    w = EscapingWriter(sink)
    print(A, B, sep="\t", file=w)  # type: ignore[arg-type]
    _clean(sink.getvalue())
    assert sink.getvalue() == one_line(A) + "\t" + one_line(B) + "\n"


@pytest.mark.parametrize("source", ["paired", "promptfoo"])
def test_compare_text_output_escapes_names_read_from_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    if source == "paired":
        argv = ["compare", str(_paired(tmp_path)), "--a", A, "--b", B]
    else:
        argv = ["compare", str(_promptfoo(tmp_path)), "--a", "file://provider.js (skill=careful)", "--b", B]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert one_line(B) in out  # the name is there, visibly escaped
    verdicts = [line for line in out.splitlines() if line.startswith("verdict: ")]
    assert len(verdicts) == 1 and one_line(B) in verdicts[0], out
    assert all(
        line.startswith(("verdict: ", "note: ", "  ")) or line == out.splitlines()[0] for line in out.splitlines()
    )


def test_compare_json_keeps_the_exact_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(_paired(tmp_path)), "--a", A, "--b", B, "--json"]) == 0
    out = capsys.readouterr().out
    _clean(out)  # ASCII JSON: the controls are JSON escapes
    doc = json.loads(out)
    assert doc["a"]["config"] == A and doc["b"]["config"] == B  # exact strings after decoding
    assert set(doc["cases_per_config"]) == {A, B}


def test_an_error_naming_a_hostile_name_is_one_escaped_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(_paired(tmp_path)), "--a", A, "--b", "nope\x1b[2K\u202e"]) == 2
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert main(["compare", str(tmp_path / "missing\x1b[31m.csv"), "--a", "x", "--b", "y"]) == 2
    err = capsys.readouterr().err
    _clean(err)
    assert "missing\\x1b[31m.csv" in err


def test_a_line_break_in_a_config_name_cannot_forge_an_output_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The terminal writer keeps line breaks (the output has lines); a name read from a file is one line, so a
    config named 'B<newline>verdict: A is clearly better' prints as one escaped name, never as a line of its own."""
    forged = "B\nverdict: A is clearly better (p < 0.001)"
    path = tmp_path / "paired.csv"
    pd.DataFrame({"case": [1, 1, 2, 2], "config": ["A", forged] * 2, "correct": [1, 0, 1, 1]}).to_csv(path, index=False)
    assert main(["compare", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("verdict: A is clearly better") for line in lines)
    assert any("B\\nverdict: A is clearly better" in line for line in lines)
