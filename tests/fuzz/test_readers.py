"""Fuzz the readers: random bytes, CSV / TSV, JSONL, gzip and Parquet files through ``read_table`` and on through
kind detection, column mapping and validation (the Data page's and ``python -m nkcore data``'s path).

Property: each call returns, or raises ``DataError`` with a non-empty one-line message; nothing else escapes.
"""

from __future__ import annotations

import pandas as pd
from hypothesis import example, given
from hypothesis import strategies as st

from nkcore.io import csv_safe, fingerprint, read_table
from nkcore.kinds import KINDS, apply_mapping, detect_kind
from nkcore.summary import validate_and_summarize
from tests.fuzz.strategies import (
    any_file_bytes,
    delimited_files,
    file_names,
    fuzz_settings,
    gzip_files,
    jsonl_files,
    outcome,
    parquet_files,
)


def _through_every_kind(frame: pd.DataFrame) -> None:
    """Detect, map and validate ``frame`` as each kind; detection never raises for a table with columns."""
    best = detect_kind(frame)
    assert best.kind in KINDS
    for kind in KINDS:
        guess = detect_kind(frame, kind)
        table = outcome(apply_mapping, frame, kind, guess.mapping)
        if isinstance(table, pd.DataFrame):
            outcome(validate_and_summarize, table, kind)


def _read_and_use(data: bytes, name: str) -> None:
    frame = outcome(read_table, data, name)
    if isinstance(frame, pd.DataFrame):
        assert frame.shape[0] > 0 and frame.shape[1] > 0, "read_table returned an empty table"
        assert len(fingerprint(frame)) == 64
        csv_safe(frame)
        _through_every_kind(frame)


@fuzz_settings()
@given(data=st.binary(max_size=4_000), name=file_names)
def test_random_bytes(data: bytes, name: str) -> None:
    """Random bytes under any file name."""
    _read_and_use(data, name)


@fuzz_settings(2)
@given(data=delimited_files(), name=file_names)
def test_delimited_text(data: bytes, name: str) -> None:
    """CSV / TSV / ;- or |-separated text: quotes, unbalanced quotes, BOMs, NUL, ragged rows, extremes."""
    _read_and_use(data, name)


@fuzz_settings()
@given(data=jsonl_files(), name=st.sampled_from(("f.jsonl", "f.json", "f", "f.csv")))
@example(data=b'[{"\\r": null}]', name="f.jsonl")  # a column named CR: messages listing the columns broke
def test_jsonl(data: bytes, name: str) -> None:
    """JSON Lines and JSON arrays of nested, mixed-type records."""
    _read_and_use(data, name)


@fuzz_settings()
@given(data=gzip_files(), name=file_names)
def test_gzip(data: bytes, name: str) -> None:
    """gzip of random bytes or tables, truncated, nested."""
    _read_and_use(data, name)


@fuzz_settings(0.5)
@given(data=parquet_files(), name=st.sampled_from(("f.parquet", "f.csv", "f")))
def test_parquet(data: bytes, name: str) -> None:
    """Parquet of random tables, truncated Parquet, and PAR1 followed by junk."""
    _read_and_use(data, name)


@fuzz_settings()
@given(data=any_file_bytes, limit=st.integers(0, 5_000))
def test_size_limit(data: bytes, limit: int) -> None:
    """With any size limit a file over it is refused in one line; one under it reads as without the limit."""
    frame = outcome(read_table, data, "f.csv", max_bytes=limit)
    if len(data) > limit:
        assert not isinstance(frame, pd.DataFrame), f"a {len(data)}-byte file passed a {limit}-byte limit"
