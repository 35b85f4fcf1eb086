"""Every refusal in the product's own words (issue 52): no Python exception name, no advice to call a Python
function, the field or the sample named, and what to do.

Inputs are made here: a JSON Lines record with a 5,000-digit number, a JSON file holding a lone surrogate escape
(``\\ud800``), an inspect_ai log whose sample does not fit inspect_ai's format, an ``.eval`` archive holding
``header.json`` twice, and a paired CSV whose ``correct`` column holds partial credit. The oracle for "Python's
words": the phrases the issue quoted, and the exception type names.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from nkcore.cli import main
from tests import hostile_files as hf

PYTHON_WORDS = (
    "sys.set_int_max_str_digits",
    "UnicodeEncodeError",
    "surrogates not allowed",
    "ValidationError",
    "validation errors for",
    "Traceback",
)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    err = capsys.readouterr().err
    return code, err


def _plain(err: str) -> None:
    assert err.count("\n") == 1, err  # one line
    for words in PYTHON_WORDS:
        assert words not in err, (words, err)


@pytest.mark.parametrize("command", ["data", "compare", "vote"])
def test_a_number_of_5000_digits_is_named_not_pythons_limit(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text('{"doc_id": 0, "target": "B", "filtered_resps": ["B"], "acc": ' + "9" * 5000 + "}\n")
    code, err = _run(capsys, command, str(path))
    assert code == 2
    _plain(err)
    assert "5,000 digits" in err and "4,300" in err


@pytest.mark.parametrize("command", ["data", "compare", "vote"])
def test_a_lone_surrogate_is_named_not_an_encoding_error(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sur.json"
    path.write_text('[{"case": "\\ud800", "config": "a", "correct": 1}]')
    code, err = _run(capsys, command, str(path))
    assert code == 2
    _plain(err)
    assert "not valid Unicode" in err and "UTF-8" in err


def test_an_inspect_sample_that_does_not_fit_names_the_sample_and_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("inspect_ai")
    bad = hf.sample(2, epoch=1)
    bad["scores"] = {"match": {"value": {"nested": [1, 2]}, "answer": 5, "explanation": ["not", "text"]}}
    bad["input"] = 7
    entries = {
        "header.json": json.dumps(hf.HEADER).encode(),
        "samples/c1_epoch_1.json": json.dumps(hf.sample(1)).encode(),
        "samples/c2_epoch_1.json": json.dumps(bad).encode(),
    }
    path = tmp_path / "bad.eval"
    path.write_bytes(hf.eval_zip(entries))
    code, err = _run(capsys, "compare", str(path), str(path))
    assert code == 2
    _plain(err)
    assert "sample 2 (id 'c2')" in err and "field '" in err


def test_an_archive_with_two_headers_is_refused_not_read_with_the_second(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import zipfile

    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it writes
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("header.json", json.dumps(hf.HEADER))
            zf.writestr("samples/c1_epoch_1.json", json.dumps(hf.sample(1)))
            zf.writestr("header.json", json.dumps({**hf.HEADER, "status": "error"}))
    path = tmp_path / "twice.eval"
    path.write_bytes(buf.getvalue())
    code, err = _run(capsys, "vote", str(path))
    assert code == 2
    _plain(err)
    assert "header.json more than once" in err


def test_a_paired_csv_with_partial_credit_is_read_as_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "half.csv"
    path.write_text("case,config,correct\n1,a,1\n1,b,0.5\n2,a,0\n2,b,1\n3,a,1\n3,b,0.5\n")
    assert main(["data", str(path)]) == 0
    out = capsys.readouterr().out
    assert "paired data" in out and "correct <- correct" in out
    assert "no column found for correct" not in out
