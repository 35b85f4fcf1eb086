"""``python -m nkcore data``: detection, summary, --json keys, exit 2 with one line on bad input."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from nkcore.cli import main
from nkcore.io import fingerprint, read_table
from nkcore.kinds import apply_mapping

ROOT = Path(__file__).resolve().parents[1]
RATINGS = "item_id,annotator_id,label\n" + "".join(
    f"{i},{r},{'pos' if (i + r) % 3 else 'neg'}\n" for i in range(1, 6) for r in range(1, 5)
)


@pytest.fixture
def ratings_file(tmp_path: Path) -> Path:
    p = tmp_path / "ratings.csv.gz"
    p.write_bytes(gzip.compress(RATINGS.encode()))
    return p


def test_json_output(ratings_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", str(ratings_file), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"file", "kind", "layout", "mapping", "confidence", "reason", "n_rows", "fingerprint", "summary"}
    assert out["kind"] == "ratings" and out["n_rows"] == 20
    assert out["mapping"] == {"item": "item_id", "rater": "annotator_id", "label": "label"}
    table = apply_mapping(read_table(ratings_file), "ratings", out["mapping"])
    assert out["fingerprint"] == fingerprint(table)
    s = out["summary"]
    assert (s["n_items"], s["n_ratings"], s["n_raters"], s["k_min"], s["k_max"]) == (5, 20, 4, 4, 4)
    neg = sum(1 for i in range(1, 6) for r in range(1, 5) if (i + r) % 3 == 0)
    assert {x["label"]: x["count"] for x in s["labels"]} == {"neg": neg, "pos": 20 - neg}


def test_plain_output_uses_the_glossary(ratings_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", str(ratings_file)]) == 0
    out = capsys.readouterr().out
    assert "ratings data" in out and "items (N): 5" in out and "ratings per item (K)" in out
    assert "Krippendorff's alpha" in out


def test_forced_kind_and_predictions_against_ratings(
    tmp_path: Path, ratings_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "".join(json.dumps({"item_id": i, "model_name": "m", "prediction": "pos"}) + "\n" for i in range(1, 4))
    )
    assert main(["data", str(preds), "--kind", "predictions", "--ratings", str(ratings_file), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["n_items_rated"] == 5 and out["summary"]["covered_share"] == pytest.approx(0.6)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"item_id": 1, "model_name": "m", "prediction": "maybe"}) + "\n")
    assert main(["data", str(bad), "--ratings", str(ratings_file)]) == 2
    assert "never use" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "name", "words"),
    [
        (b"", "empty.csv", ["empty"]),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "pic.csv", ["binary"]),
        (b"foo,bar\n1,2\n", "odd.csv", ["cannot tell what this file holds", "(foo, bar)", "item, rater, label"]),
        (b"item,rater\n1,2\n", "two.csv", ["cannot use this file as ratings data", "no column found for label"]),
        (b"item,rater,label\n1,a,x\n1,a,y\n2,b,x\n", "dup.csv", ["duplicate ratings"]),
        (gzip.compress(b"item,rater,label\n1,a,x\n" * 100)[:40], "cut.csv.gz", ["corrupt or truncated"]),
        (
            b"a" * 3_000_000,
            "one_line.csv",
            ["line 1 is longer than 1,048,576 bytes", "NKP_MAX_LINE_BYTES"],
        ),  # was a traceback
        (",".join(f"c{i}" for i in range(10_000)).encode() + b"\n", "wide.csv", ["10,000 columns"]),
        (b'item,rater,label\n1,a,x\n2,a,"' + b"y" * 200_000 + b"\n", "quote.csv", ["line 3 (data row 2)"]),
        (b"item,rater,label\n1,a,x\n2,a," + b"y" * 5_000 + b"\n", "long.csv", ["5,000 characters in data row 2"]),
    ],
    ids=[
        "empty",
        "png",
        "no-kind",
        "missing-column",
        "duplicate",
        "truncated-gz",
        "one-line",
        "10k-columns",
        "unclosed-quote",
        "enormous-label",
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, name: str, words: list[str]
) -> None:
    p = tmp_path / name
    p.write_bytes(content)
    assert main(["data", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and len(err) < 600
    for w in words:
        assert w in err


def test_the_user_maps_columns_the_detection_cannot_guess(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "odd.csv"
    p.write_text("thing,person,verdict\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n")
    assert main(["data", str(p)]) == 2
    capsys.readouterr()
    assert (
        main(["data", str(p), "--map", "item=thing", "--map", "rater=person", "--map", "label=verdict", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "ratings" and out["mapping"] == {"item": "thing", "rater": "person", "label": "verdict"}
    assert out["summary"]["n_items"] == 2 and out["summary"]["n_ratings"] == 4
    assert main(["data", str(p), "--map", "thing"]) == 2
    assert "--map takes ROLE=COLUMN" in capsys.readouterr().err
    assert main(["data", str(p), "--kind", "ratings", "--map", "item=nope"]) == 2
    assert "'nope'" in capsys.readouterr().err


@pytest.mark.slow  # out of make test-quick (the edit loop); make test runs it
def test_module_entry_point(ratings_file: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "nkcore", "data", str(ratings_file), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["kind"] == "ratings"
    missing = subprocess.run(
        [sys.executable, "-m", "nkcore", "data", str(ratings_file.parent / "nope.csv")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "no such file" in missing.stderr and "Traceback" not in missing.stderr


@pytest.mark.parametrize(
    ("content", "rows"),
    [
        (b"item,rater,label\n1,a,x\n1,b,y\n1,b,x\n2,a,x\n", "2, 3"),  # ratings: nkcore.ratings
        (b"case,sample,answer,gold\n1,1,a,a\n1,2,b,a\n1,2,a,a\n2,1,x,x\n2,2,x,x\n", "2, 3"),  # samples: nkcore.voting
        (b"case,config,correct\n1,a,1\n1,b,0\n1,b,1\n2,a,1\n2,b,1\n", "2, 3"),  # paired: nkcore.paired
        (b"item,rater,label\n1,a,x\n1,b,\n2,a,x\n2,b,\n", "2, 4"),  # a blank label
        (b'item,rater,label\n1,a,x\n1,b,"y\n2,a,x\n', "2"),  # an unclosed quote: line 3 = data row 2
    ],
    ids=["ratings", "samples", "paired", "blank", "quote"],
)
def test_every_kind_numbers_rows_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, rows: str
) -> None:
    """'data row N' is the N-th row under the header, whichever module finds the problem."""
    p = tmp_path / "x.csv"
    p.write_bytes(content)
    assert main(["data", str(p)]) == 2
    err = capsys.readouterr().err
    found = re.search(r"rows? (\d+(?:, \d+)*)", err)
    assert found and found.group(1) == rows, err
    assert "header as row" not in err


def test_column_names_with_line_breaks_are_quoted_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSONL keys can hold any character: the refusal lists them quoted with their escapes, on one line."""
    p = tmp_path / "control.jsonl"
    p.write_text('{"it\\nem": 1, "rat\\rer": "a", "label": "x"}\n{"it\\nem": 2, "rat\\rer": "b", "label": "y"}\n')
    assert main(["data", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [err[:-1]] and "Columns: 'it\\nem', 'rat\\rer', 'label'. Pass --map" in err


@pytest.mark.parametrize("word", ["extra\nword", "a\rb", "x\u2028y", "tab\there"])
def test_argparse_refusals_are_one_line(word: str, capsys: pytest.CaptureFixture[str]) -> None:
    """argparse echoes unrecognised arguments as typed; the refusal shows their escapes instead (one line)."""
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "--cases", "4", "--discordance", "0.1", word])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.endswith(f"error: unrecognized arguments: {repr(word)[1:-1]}\n") and err.splitlines() == [err[:-1]]


MIXED_PREDICTIONS = "".join(
    f"{d},test_{i},{m},{'1' if (i + len(m) + len(d)) % 3 else '0'}\n"
    for d in ("ArMIS", "HS-Brexit")
    for i in range(1, 7)
    for m in ("lr", "prior")
)


@pytest.fixture
def mixed_predictions(tmp_path: Path) -> Path:
    """Two datasets in one predictions file whose item ids repeat (as LeWiDi 2023's)."""
    p = tmp_path / "predictions.csv"
    p.write_text("dataset,item_id,model,pred_label\n" + MIXED_PREDICTIONS)
    return p


def test_repeated_rows_are_refused_with_the_count_the_cause_and_the_flag(
    mixed_predictions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["data", str(mixed_predictions)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "duplicate predictions: 12 rows repeat an (item, model) pair (12 pairs repeated" in err
    assert "2 datasets or splits in column 'dataset' (ArMIS, HS-Brexit)" in err
    assert "--subset dataset=ArMIS" in err and "--item-key dataset,item_id" in err and "--keep first" in err


def test_subset_item_key_and_keep_flags(mixed_predictions: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pd.read_csv(mixed_predictions)
    runs = {
        ("--subset", "dataset=HS-Brexit"): frame[frame["dataset"] == "HS-Brexit"],
        ("--subset", "ArMIS"): frame[frame["dataset"] == "ArMIS"],
        ("--item-key", "dataset,item_id"): frame,
        ("--keep", "first"): frame.drop_duplicates(["item_id", "model"], keep="first"),
        ("--keep", "last"): frame.drop_duplicates(["item_id", "model"], keep="last"),
    }
    for flags, expected in runs.items():
        assert main(["data", str(mixed_predictions), *flags, "--json"]) == 0, flags
        out = json.loads(capsys.readouterr().out)
        assert out["kind"] == "predictions" and out["n_rows"] == len(expected), flags
        counts = {x["label"]: x["count"] for x in out["summary"]["labels"]}
        assert counts == expected["pred_label"].astype(str).value_counts().to_dict(), flags
    assert main(["data", str(mixed_predictions), "--item-key", "dataset,item_id", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mapping"]["item"] == "item_key" and "item <- item_key (dataset / item_id)" in out["reason"]
    assert main(["data", str(mixed_predictions), "--subset", "dataset=MD"]) == 2
    assert "column 'dataset' has no value 'MD'; its values are ArMIS, HS-Brexit" in capsys.readouterr().err


def test_lewidi_per_item_json_is_read_as_ratings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {
        str(k): {"text": f"t{k}", "annotators": "Ann1,Ann2,Ann3", "annotations": ",".join(labels), "split": "dev"}
        for k, labels in enumerate([("1", "0", "0"), ("1", "1", "1"), ("0", "0", "1"), ("0", "0", "0")], start=1)
    }
    path = tmp_path / "ArMIS_dev.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc, indent=4).encode()))
    assert main(["data", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (
        out["kind"] == "ratings"
        and out["n_rows"] == 12
        and "one record per item with its raters' labels" in out["reason"]
    )
    s = out["summary"]
    assert (s["n_items"], s["n_ratings"], s["n_raters"], s["k_min"], s["k_max"]) == (4, 12, 3, 3, 3)
    assert {x["label"]: x["count"] for x in s["labels"]} == {"0": 7, "1": 5}  # counted by hand


@pytest.mark.parametrize(
    ("value", "words"),
    [("-0.5", "column p_safe has values outside [0, 1] in data row 1"), ("7", "outside [0, 1] in data row 1"),
     ("inf", "column p_safe must hold a probability in every row; data row 1 does not")],
)  # fmt: skip
def test_one_bad_probability_is_named_not_reported_as_a_missing_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, words: str
) -> None:
    """A p_safe of -0.5 in one row made the whole column vanish from the detection: 'no probability column for
    label safe'. The column is found, and the parser names the row."""
    ratings = tmp_path / "r.csv"
    ratings.write_text("item,rater,label\n1,a,safe\n1,b,unsafe\n2,a,safe\n2,b,safe\n")
    preds = tmp_path / "p.csv"
    preds.write_text(f"item,model,p_safe,p_unsafe\n1,m,{value},0.5\n2,m,0.4,0.6\n")
    assert main(["data", str(preds), "--ratings", str(ratings)]) == 2
    err = capsys.readouterr().err
    assert words in err and "no probability column" not in err


def test_with_item_key_given_a_repeat_is_a_repeated_submission(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --item-key already given, the advice told the user to pass --item-key; it names --keep only."""
    p = tmp_path / "r.csv"
    p.write_text("dataset,item_id,rater,label\nA,1,r,x\nA,1,r,y\nB,1,r,x\nA,2,r,x\nB,2,s,y\n")
    assert main(["data", str(p), "--item-key", "dataset,item_id"]) == 2
    err = capsys.readouterr().err
    assert "already named by its dataset and id (--item-key)" in err and "--keep first" in err
    assert "--item-key dataset," not in err and "--subset" not in err
    assert main(["data", str(p), "--item-key", "dataset,item_id", "--keep", "first", "--json"]) == 0
