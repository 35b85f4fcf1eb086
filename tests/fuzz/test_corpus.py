"""Regression tests over the hostile-file corpus: every file x every subcommand that reads files.

Each hostile file must give exit code 2 with one line on stderr ("refuse"), or for the benign-but-odd ones a result
or such a refusal ("any"). Readers are checked directly too, with oracles where the file has a right answer (a
``\\r``-only or UTF-16 file is either read as the same table as its plain UTF-8 twin, or refused).
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from nkcore.io import csv_safe, read_table
from tests.conftest import ROOT, SAMPLE_DIR
from tests.fuzz import corpus
from tests.fuzz.strategies import check_cli, check_message, outcome, run_cli

RATINGS = SAMPLE_DIR / "ratings.csv"
PREDICTIONS = SAMPLE_DIR / "predictions.csv"
_NK = ("--budget", "100", "--k", "5", "--rounds", "20", "--workers", "1", "--json")

# Every way the command line reads a file, with the hostile file in that place.
READERS: dict[str, tuple[str, ...]] = {
    "data": ("data", "{f}", "--json"),
    "data_predictions_against": ("data", str(PREDICTIONS), "--kind", "predictions", "--ratings", "{f}", "--json"),
    "compare": ("compare", "{f}", "--json"),
    "vote": ("vote", "{f}", "--n-boot", "100", "--json"),
    "fanout": ("fanout", "--latencies", "{f}", "--json"),
    "nk_ratings": ("nk", "--ratings", "{f}", *_NK),
    "nk_predictions": ("nk", "--ratings", str(RATINGS), "--predictions", "{f}", *_NK),
}

SMALL = [e for e in corpus.ENTRIES if not e.large]
LARGE = [e for e in corpus.ENTRIES if e.large]


@pytest.fixture(scope="session")
def large_files(hostile_dir: Path) -> dict[str, Path]:
    """The 50 MiB line and the gzip bomb, written once per session."""
    return {e.name: corpus.materialize(e, hostile_dir) for e in LARGE}


def _argv(reader: str, path: Path) -> list[str]:
    return [str(path) if a == "{f}" else a for a in READERS[reader]]


def _check_entry(entry: corpus.Entry, reader: str, path: Path) -> None:
    run = check_cli(run_cli(_argv(reader, path)))
    if entry.expect == "refuse":
        assert run.code == 2, f"{entry.name} ({entry.note}) was accepted by {reader}: {run.stdout[:300]!r}"


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("entry", SMALL, ids=[e.name for e in SMALL])
def test_cli_on_hostile_file(entry: corpus.Entry, reader: str, hostile_files: dict[str, Path]) -> None:
    """Each small hostile file through each file-reading subcommand: exit 0 or 2, one line on stderr."""
    _check_entry(entry, reader, hostile_files[entry.name])


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("entry", LARGE, ids=[e.name for e in LARGE])
def test_cli_on_large_hostile_file(entry: corpus.Entry, reader: str, large_files: dict[str, Path]) -> None:
    """The 50 MiB line and the 1 GiB gzip bomb are refused with exit 2 by every subcommand that reads files."""
    _check_entry(entry, reader, large_files[entry.name])


@pytest.mark.parametrize("entry", SMALL, ids=[e.name for e in SMALL])
def test_read_table_on_hostile_file(entry: corpus.Entry, hostile_files: dict[str, Path]) -> None:
    """read_table gives a table or a one-line DataError for each hostile file (and the two encodings' oracle)."""
    result = outcome(read_table, hostile_files[entry.name])
    if entry.name in ("cr_only", "utf16_no_bom") and isinstance(result, pd.DataFrame):
        pd.testing.assert_frame_equal(result, read_table(corpus.RATINGS_TEXT.encode(), "ratings.csv"))
    if entry.name in ("png_as_csv", "columns_1001", "header_only", "deep_array_json", "deep_object_jsonl"):
        assert not isinstance(result, pd.DataFrame), f"read_table accepted {entry.name} ({entry.note})"


def test_formula_cell_is_accepted_and_defused(hostile_files: dict[str, Path]) -> None:
    """A =HYPERLINK(...) label is a valid label (the file is read and summarised) but its CSV export is text."""
    path = hostile_files["formula_injection"]
    run = check_cli(run_cli(["data", str(path), "--json"]), allowed=(0,))
    assert '"kind": "ratings"' in run.stdout
    frame = read_table(path)
    assert corpus.FORMULA in frame["label"].tolist()
    exported = csv_safe(frame).to_csv(index=False)
    cells = [c for row in csv.reader(io.StringIO(exported)) for c in row]
    assert "'" + corpus.FORMULA in cells
    assert not [
        c for c in cells if c.startswith(("=", "+", "@", "\t", "\r")) or (c.startswith("-") and not c[1:2].isdigit())
    ]


def test_real_process_prints_one_line_for_a_png(hostile_files: dict[str, Path]) -> None:
    """Outside pytest's capture too: ``python -m nkcore data image.csv`` exits 2 with exactly one stderr line."""
    proc = subprocess.run(
        [sys.executable, "-m", "nkcore", "data", str(hostile_files["png_as_csv"]), "--json"],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr.decode(errors="replace")
    lines = proc.stderr.decode(errors="replace").splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines


def test_large_entries_are_what_they_claim(large_files: dict[str, Path]) -> None:
    """The corpus writers produce a 50 MiB line, and a gzip bomb that read_table refuses in one line."""
    with large_files["long_line_50mb"].open("rb") as fh:
        fh.readline(), fh.readline()
        assert len(fh.readline()) > 50 * corpus.MIB
    bomb = large_files["gzip_bomb"]
    assert bomb.stat().st_size < 2 * corpus.MIB and bomb.read_bytes()[:2] == b"\x1f\x8b"
    try:
        read_table(bomb)
    except Exception as exc:
        check_message(exc)
    else:
        raise AssertionError("a 1 GiB gzip bomb was read as a table")
