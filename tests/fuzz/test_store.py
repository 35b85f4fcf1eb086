"""Fuzz the dataset store's readers: a damaged description (``<id>.json``) or table (``<id>.parquet``) on disk.

A team server's data directory can hold half-written, hand-edited or foreign files. Property: ``store.get`` returns
the dataset or raises ``DataError`` with a one-line message; ``store.list_datasets`` skips what it cannot read.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nkcore import store
from tests.fuzz.strategies import fuzz_settings, json_values, outcome, parquet_files

_ID = "ab" * 32

meta_fields = st.fixed_dictionaries(
    {},
    optional={
        "id": st.sampled_from((_ID, "0" * 64, "../x", 7)) | json_values,
        "kind": st.sampled_from(("ratings", "samples")) | json_values,
        "name": json_values,
        "n_rows": st.sampled_from((1, 0, -1, 10**30, 1e308, float("inf"), float("nan"), "3", None)) | json_values,
        "columns": st.sampled_from((["item", "rater", "label"], [], "abc", 5)) | json_values,
        "mapping": st.sampled_from(({}, {"item": "i"}, [["a", "b"]], [1, 2], "ab", 3)) | json_values,
        "created": json_values,
    },
)

meta_files = st.one_of(
    meta_fields.map(lambda d: json.dumps(d).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=300),
    st.sampled_from((b"", b"{", b"[" * 5_000, b'{"n_rows": 1e400}', b"\xff\xfe{}")),
)


@fuzz_settings()
@given(meta=meta_files, table=parquet_files() | st.binary(max_size=300), name=st.sampled_from((_ID, "0" * 64)))
def test_damaged_store_entry(meta: bytes, table: bytes, name: str) -> None:
    """get() and list_datasets() over an entry whose description and table are arbitrary bytes."""
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / f"{name}.json").write_bytes(meta)
        (Path(root) / f"{name}.parquet").write_bytes(table)
        outcome(store.get, name, root)
        listed = store.list_datasets(root=root)
        assert all(m.id == name for m in listed)


def _meta(**fields: object) -> bytes:
    base = {"id": _ID, "kind": "ratings", "name": "x.csv", "n_rows": 1, "columns": ["a"], "mapping": {}}
    return json.dumps(base | fields).encode()


# Descriptions that broke the store once: each must read as "damaged" (get) and be skipped (list_datasets).
DAMAGED_META: dict[str, bytes] = {
    "deep_array": b"[" * 2_000,
    "deep_object": b'{"a":' * 2_000 + b"1" + b"}" * 2_000,
    "n_rows_overflow": _meta().replace(b'"n_rows": 1', b'"n_rows": 1e400'),
    "n_rows_nan": _meta().replace(b'"n_rows": 1', b'"n_rows": NaN'),
    "n_rows_text": _meta(n_rows="many"),
    "columns_number": _meta(columns=5),
    "mapping_list": _meta(mapping=[1, 2]),
    "not_utf8": b"\xff\xfe\x00{",
}


@pytest.mark.parametrize("name", list(DAMAGED_META))
def test_known_damaged_description(name: str, tmp_path: Path) -> None:
    """A damaged ``<id>.json`` beside a good table: get() refuses in one line, list_datasets() skips it."""
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / f"{_ID}.parquet")
    (tmp_path / f"{_ID}.json").write_bytes(DAMAGED_META[name])
    result = outcome(store.get, _ID, tmp_path)
    assert not isinstance(result, tuple), f"a damaged description ({name}) was read as a dataset"
    assert store.list_datasets(root=tmp_path) == []
