"""Strategies and checks shared by the fuzz tests: hostile cells, CSV / JSONL / gzip / Parquet files, CLI runs.

Every file a strategy builds stays within a few KB, so one example costs milliseconds; the large hostile files live in
:mod:`tests.fuzz.corpus` instead.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import warnings
from collections.abc import Callable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Any, TypeVar

import pandas as pd
from hypothesis import settings
from hypothesis import strategies as st

from nkcore import cli
from nkcore.errors import DataError

PROFILE_DEFAULT = "nkp-fuzz"
PROFILE_LONG = "nkp-fuzz-long"
BASE_EXAMPLES = 25
LONG_FACTOR = 20
MAX_FILE_BYTES = 6_000  # a fuzzed file is at most a few KB

# Distinct warnings that successful CLI runs would print on stderr (listed at the end of the run by conftest).
WARNINGS_ON_SUCCESS: set[str] = set()

T = TypeVar("T")


def active_profile() -> str:
    """The profile in force: the long one when ``NKP_FUZZ_PROFILE=long``, else the bounded default."""
    return PROFILE_LONG if os.environ.get("NKP_FUZZ_PROFILE", "").strip().lower() == "long" else PROFILE_DEFAULT


def fuzz_settings(scale: float = 1.0) -> settings:
    """The active fuzz profile with ``scale`` times its examples (expensive targets use fewer)."""
    parent = settings.get_profile(active_profile())
    return settings(parent, max_examples=max(3, round(parent.max_examples * scale)))


# ------------------------------------------------------------------------------------------------ checks


def check_message(exc: BaseException) -> str:
    """Assert ``exc`` is a DataError with a non-empty one-line message; return the message."""
    assert isinstance(exc, DataError), f"{type(exc).__name__} instead of DataError: {exc}"
    message = str(exc)
    assert message.strip(), "DataError with an empty message"
    assert "\n" not in message and "\r" not in message, f"DataError message spans lines: {message!r}"
    return message


def outcome(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | DataError:
    """Call ``fn``; return its result, or the DataError it raised after checking its message is one line.

    Any other exception propagates (that is the failure the fuzz suite looks for).
    """
    try:
        return fn(*args, **kwargs)
    except DataError as exc:
        check_message(exc)
        return exc


@dataclass(frozen=True, slots=True)
class CliRun:
    """One in-process run of ``python -m nkcore``: exit code, stdout, and stderr as a terminal would show it."""

    argv: tuple[str, ...]
    code: int
    stdout: str
    stderr: str


def run_cli(argv: Sequence[str]) -> CliRun:
    """Run ``nkcore.cli.main(argv)`` capturing output; warnings are added to stderr as Python would print them."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:  # argparse errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    printed = "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, "") for w in caught)
    if code == 0 and printed:
        WARNINGS_ON_SUCCESS.update(f"{argv[0]}: {w.category.__name__}: {w.message}" for w in caught)
    return CliRun(tuple(argv), int(code), out.getvalue(), err.getvalue() + printed)


def _strict_constant(name: str) -> float:
    raise AssertionError(f"--json output holds {name}, which is not JSON")


def check_cli(run: CliRun, allowed: tuple[int, ...] = (0, 2)) -> CliRun:
    """Assert the run exited 0 or 2; on 2 stderr is exactly one non-empty line without a traceback; on 0 with
    ``--json`` (and no ``-h``) stdout is strict JSON (no NaN / Infinity)."""
    assert run.code in allowed, f"exit code {run.code} (allowed {allowed}) for {run.argv}; stderr: {run.stderr!r}"
    assert "Traceback" not in run.stderr, f"traceback on stderr for {run.argv}: {run.stderr[-500:]!r}"
    if run.code == 2:
        assert run.stderr.endswith("\n"), f"stderr does not end a line: {run.stderr!r}"
        body = run.stderr[:-1]
        assert body.strip(), f"exit 2 with an empty message for {run.argv}"
        assert "\n" not in body and "\r" not in body, f"stderr is not one line for {run.argv}: {run.stderr[:800]!r}"
    elif run.code == 0 and "--json" in run.argv and not {"-h", "--help"} & set(run.argv):
        check_fractions(json.loads(run.stdout, parse_constant=_strict_constant))
    return run


# JSON keys that hold a probability, a share or an accuracy: always in [0, 1] (or null).
FRACTION_KEYS = frozenset(
    {
        "p",
        "p_exact",
        "p_midp",
        "p_chi2_cc",
        "p_single",
        "accuracy",
        "first_n_accuracy",
        "ci_low",
        "ci_high",
        "reproducibility",
        "ties",
        "topup_share",
        "discordance",
    }
)


def check_fractions(doc: object, path: str = "") -> None:
    """Assert every value under a key of :data:`FRACTION_KEYS` in a JSON document is null or within [0, 1]."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            where = f"{path}.{key}"
            if key in FRACTION_KEYS and isinstance(value, (int, float)) and not isinstance(value, bool):
                assert 0.0 <= value <= 1.0, f"{where} = {value} is not a fraction in [0, 1]"
            check_fractions(value, where)
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            check_fractions(value, f"{path}[{i}]")


# ------------------------------------------------------------------------------------------------ cells

# Text that numbers, booleans and missing markers turn into in real files; the extremes break naive parsers.
SPECIAL_CELLS = (
    "",
    " ",
    "nan",
    "NaN",
    "NA",
    "null",
    "None",
    "inf",
    "-inf",
    "Infinity",
    "-0",
    "-0.0",
    "0",
    "1",
    "2",
    "0.5",
    "1e308",
    "-1e308",
    "1e309",
    "1e-300",
    "5e-324",
    "1180591620717411303424",
    "-9223372036854775809",
    "0x10",
    "1_000",
    "true",
    "FALSE",
    "yes",
    "no",
    '=HYPERLINK("http://x","y")',
    "+1",
    "@SUM(A1)",
    "\u00e9t\u00e9",
    "\U0001f600",
    "\u202e",
    "\ufeff",
    "a\x00b",
)

cell_text = st.text(st.characters(codec="utf-8"), max_size=12)
cells = st.one_of(
    st.sampled_from(SPECIAL_CELLS),
    st.integers(-(10**20), 10**20).map(str),
    st.floats().map(repr),
    cell_text,
    cell_text.map(lambda s: f'"{s}"'),  # quoted
    cell_text.map(lambda s: f'"{s}'),  # unbalanced quote
    cell_text.map(lambda s: f'"{s}""{s}"'),  # escaped quote inside
    st.integers(100, 1_500).map(lambda n: "x" * n),  # a long field, still within a few KB
)

# Column names of every kind (canonical and the synonyms nkcore.kinds knows), plus junk.
COLUMN_WORDS = (
    "case",
    "sample",
    "answer",
    "gold",
    "correct",
    "latency_s",
    "config",
    "item",
    "rater",
    "label",
    "model",
    "pred_label",
    "p_a",
    "p_b",
    "p_",
    "item_id",
    "annotator_id",
    "Case",
    " case ",
    "n=1",
    "n=3",
)
column_names = st.one_of(st.sampled_from(COLUMN_WORDS), cell_text, st.sampled_from(SPECIAL_CELLS))

# Columns of each kind, and small pools of values so that rows repeat ids and labels (reaching the deep checks).
KIND_COLUMNS: dict[str, tuple[str, ...]] = {
    "samples": ("case", "sample", "answer", "gold", "latency_s"),
    "samples_correct": ("case", "sample", "correct"),
    "paired": ("case", "config", "correct"),
    "paired_wide": ("case", "n=1", "n=3"),
    "ratings": ("item", "rater", "label"),
    "predictions": ("item", "model", "pred_label", "p_a", "p_b"),
}
_POOLS: dict[str, tuple[str, ...]] = {
    "case": ("1", "2", "3", "4"),
    "item": ("1", "2", "3", "4"),
    "sample": ("1", "2", "3"),
    "answer": ("a", "b", "c"),
    "gold": ("a", "b"),
    "pred_label": ("a", "b"),
    "label": ("a", "b"),
    "rater": ("r1", "r2", "r3"),
    "config": ("A", "B"),
    "model": ("m1", "m2"),
    "correct": ("0", "1"),
    "n=1": ("0", "1"),
    "n=3": ("0", "1"),
    "latency_s": ("0.5", "1.25", "3"),
    "p_a": ("0.25", "0.5", "1"),
    "p_b": ("0.75", "0.5", "0"),
}


def kind_cell(column: str) -> st.SearchStrategy[str]:
    """A cell of ``column``: mostly a plausible value, sometimes a hostile one."""
    pool = _POOLS.get(column)
    if pool is None:
        return cells
    return st.one_of(st.sampled_from(pool), st.sampled_from(pool), st.sampled_from(pool), cells)


@dataclass(frozen=True, slots=True)
class Grid:
    """A table of text cells before it is written out: a header and rows (rows may be ragged)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@st.composite
def grids(draw: st.DrawFn) -> Grid:
    """A header and up to 30 rows: either a kind's columns with plausible values, or random columns and cells."""
    kind = draw(st.sampled_from((*KIND_COLUMNS, "random")))
    if kind == "random":
        header = tuple(draw(st.lists(column_names, min_size=1, max_size=6)))
    else:
        header = KIND_COLUMNS[kind]
    n_rows = draw(st.integers(0, 30))
    rows = []
    for _ in range(n_rows):
        row = [draw(kind_cell(col)) for col in header]
        ragged = draw(st.sampled_from((0, 0, 0, 0, 0, 0, 1, -1)))
        if ragged > 0:
            row.append(draw(cells))
        elif ragged < 0 and row:
            row.pop()
        rows.append(tuple(row))
    return Grid(header, tuple(rows))


@st.composite
def delimited_files(draw: st.DrawFn) -> bytes:
    """A CSV / TSV / ;- or |-separated file of a random grid: random line endings, BOMs, encodings, NUL bytes."""
    grid = draw(grids())
    sep = draw(st.sampled_from((",", ",", "\t", ";", "|", " ")))
    eol = draw(st.sampled_from(("\n", "\n", "\r\n", "\r")))
    lines = [sep.join(grid.header), *(sep.join(r) for r in grid.rows)]
    text = eol.join(lines) + draw(st.sampled_from(("", eol, eol * 3)))
    text = draw(st.sampled_from(("", "", "\n\n", "\ufeff"))) + text
    encoding = draw(st.sampled_from(("utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16", "utf-16-le", "latin-1")))
    data = text.encode(encoding, errors="replace")
    if draw(st.booleans()) and draw(st.booleans()):  # corrupt one byte (NUL, a stray high byte, a quote)
        pos = draw(st.integers(0, max(0, len(data) - 1)))
        data = data[:pos] + draw(st.sampled_from((b"\x00", b"\xff", b'"', b"\r", b"\x1f\x8b"))) + data[pos + 1 :]
    return data[:MAX_FILE_BYTES]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | cell_text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(cell_text, children, max_size=3),
    max_leaves=8,
)


@st.composite
def json_records(draw: st.DrawFn) -> object:
    """One JSON row: mostly an object with a kind's keys, sometimes any JSON value."""
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    kind = draw(st.sampled_from(tuple(KIND_COLUMNS)))
    keys = list(KIND_COLUMNS[kind]) + draw(st.lists(st.sampled_from(COLUMN_WORDS) | cell_text, max_size=2))
    record: dict[str, object] = {}
    for key in keys:
        if draw(st.integers(0, 7)) == 0:
            continue
        choice = draw(st.integers(0, 3))
        if choice == 0:
            record[key] = draw(json_values)
        else:
            value = draw(kind_cell(key))
            record[key] = _number_or_text(value) if choice == 1 else value
    return record


def _number_or_text(value: str) -> object:
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        return value


@st.composite
def jsonl_files(draw: st.DrawFn) -> bytes:
    """JSON Lines or a JSON array of mixed records; sometimes a line is cut or not JSON at all."""
    records = draw(st.lists(json_records(), max_size=25))
    if draw(st.integers(0, 4)) == 0:
        text = json.dumps(records)
    else:
        lines = [json.dumps(r) for r in records]
        if lines and draw(st.integers(0, 5)) == 0:
            i = draw(st.integers(0, len(lines) - 1))
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        text = draw(st.sampled_from(("\n", "\r\n"))).join(lines)
    return text.encode("utf-8", errors="replace")[:MAX_FILE_BYTES]


@st.composite
def gzip_files(draw: st.DrawFn) -> bytes:
    """gzip of random bytes or of a table; sometimes truncated, sometimes gzip inside gzip."""
    inner = draw(st.one_of(st.binary(max_size=2_000), delimited_files(), jsonl_files()))
    data = gzip.compress(inner, mtime=0)
    if draw(st.booleans()):
        data = gzip.compress(data, mtime=0)
    if draw(st.integers(0, 3)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    return data


@st.composite
def parquet_files(draw: st.DrawFn) -> bytes:
    """A Parquet file of a random grid (text or numbers), or PAR1 followed by junk."""
    if draw(st.integers(0, 3)) == 0:
        return b"PAR1" + draw(st.binary(max_size=500))
    grid = draw(grids())
    width = len(grid.header)
    rows = [tuple(r[:width]) + ("",) * (width - len(r)) for r in grid.rows]
    names = [f"{h}" if h not in grid.header[:i] else f"{h}_{i}" for i, h in enumerate(grid.header)]
    frame = pd.DataFrame(rows, columns=names, dtype=object)
    if draw(st.booleans()):
        frame = frame.apply(lambda c: pd.to_numeric(c, errors="coerce") if c.name != names[0] else c)
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    data = buf.getvalue()
    if draw(st.integers(0, 4)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    return data


any_file_bytes = st.one_of(
    st.binary(max_size=2_000),
    delimited_files(),
    delimited_files(),
    jsonl_files(),
    gzip_files(),
    parquet_files(),
)

file_names = st.sampled_from(
    (
        "f.csv",
        "f.tsv",
        "f.tab",
        "f.txt",
        "f.jsonl",
        "f.ndjson",
        "f.json",
        "f.parquet",
        "f.csv.gz",
        "f.jsonl.gz",
        "f",
        "F.CSV",
        "f.xlsx",
        "f\nname.csv",
    )
)

# Numbers a flag may be given: the extremes, tiny, huge, negative, and not-a-number.
FLOAT_WORDS = (
    "nan",
    "inf",
    "-inf",
    "1e-300",
    "5e-324",
    "1e308",
    "-1e308",
    "0",
    "-0",
    "-1",
    "1",
    "0.5",
    "0.05",
    "0.999999999",
    "1e-9",
    "2",
    "abc",
    "",
    "0x1p-3",
)
INT_WORDS = ("0", "-1", "1", "2", "3", "7", "10", "100", "-(10**30)", "9" * 30, "1.5", "1e3", "abc", "", "007")
float_args = st.one_of(st.sampled_from(FLOAT_WORDS), st.floats().map(repr), st.floats(0, 1).map(repr))
int_args = st.one_of(st.sampled_from(INT_WORDS), st.integers(-5, 50).map(str), st.integers().map(str))
text_args = st.one_of(st.sampled_from(("", " ", "A", "n=1", "n=3", "-", "--json")), cell_text)
