"""Bounds on parsed work in every harness reader: values counted before parsing, archives read without trusting
their declared sizes or names, epochs in range. The hostile files are made by :mod:`tests.hostile_files`, small,
with the limits lowered to match (the full-size ones run in ``benchmarks/bench_limits.py``)."""

from __future__ import annotations

import json

import pytest

from nkcore.errors import DataError
from nkcore.harness import read_harness
from nkcore.io import read_table
from nkcore.io.json_safe import count_json_values
from tests import hostile_files as hf


@pytest.fixture(autouse=True)
def _inspect() -> None:
    pytest.importorskip("inspect_ai")


def test_eval_sample_of_empty_objects_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_JSON_VALUES", "10000")
    with pytest.raises(
        DataError, match=r"x\.eval: the archive up to samples/c0_epoch_1\.json has more than 10,000 JSON values"
    ):
        read_harness([("x.eval", hf.eval_empty_dicts_in_metadata(20_000))])
    res = read_harness([("x.eval", hf.eval_empty_dicts_in_metadata(1_000))])  # under the limit: read
    assert res.configs == ("mockllm/m",)


def test_eval_header_of_integers_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_JSON_VALUES", "10000")
    with pytest.raises(
        DataError,
        match=r"x\.eval: the archive up to header\.json has more than 10,000 JSON values.*NKP_MAX_JSON_VALUES",
    ):
        read_harness([("x.eval", hf.eval_integer_header(50_000))])


def test_eval_of_more_entries_than_the_limit_is_refused_before_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_ARCHIVE_ENTRIES", "50")
    with pytest.raises(
        DataError, match=r"the archive has 61 archive entries; the limit is 50 .*NKP_MAX_ARCHIVE_ENTRIES"
    ):
        read_harness([("x.eval", hf.eval_minimal_samples(60))])
    assert len(read_harness([("x.eval", hf.eval_minimal_samples(40))]).configs) == 1


def test_eval_entry_inflating_past_its_declared_size_is_refused_at_once() -> None:
    with pytest.raises(
        DataError, match=r"entry header\.json unpacks to more than the 1,000 bytes the archive declares"
    ):
        read_harness([("x.eval", hf.eval_lying_sizes(1_000, 5_000_000))])


@pytest.mark.parametrize("entry", ["samples/../../../x.json", "/samples/x.json", "samples\\x.json", "samples//x.json"])
def test_eval_entry_names_that_are_not_plain_relative_are_refused(entry: str) -> None:
    with pytest.raises(DataError, match=r"an entry named .*not a plain relative name"):
        read_harness([("x.eval", hf.eval_named(entry))])


@pytest.mark.parametrize("epoch", [-5, 0, 10**12, 1_001])
def test_eval_epochs_outside_one_to_the_limit_are_refused(epoch: int) -> None:
    with pytest.raises(DataError, match=rf"sample c0 has epoch {epoch}; epochs run from 1 to 1,000"):
        read_harness([("x.eval", hf.eval_epochs([1, epoch]))])


def test_eval_epochs_in_range_are_read() -> None:
    res = read_harness([("x.eval", hf.eval_epochs([1, 2, 1_000]))])
    assert res.samples is not None and sorted(res.samples["sample"].tolist()) == [1, 2, 1_000]


def test_lm_eval_lines_padded_with_objects_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_JSON_VALUES", "50000")
    with pytest.raises(DataError, match=r"a\.jsonl: the file up to line 5 has more than 50,000 JSON values"):
        read_harness([("a.jsonl", hf.lm_eval_padded(20, 5_000))])
    res = read_harness([("a.jsonl", hf.lm_eval_padded(20, 100))])
    assert res.configs == ("a.jsonl",)


def test_promptfoo_list_of_empty_objects_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_JSON_VALUES", "10000")
    with pytest.raises(DataError, match=r"r\.json: the JSON has more than 10,000 JSON values"):
        read_harness([("r.json", hf.promptfoo_empty_dicts(100_000))])


def test_jsonl_table_cells_of_objects_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_JSON_VALUES", "10000")
    with pytest.raises(
        DataError,
        match=r"t\.jsonl: the file up to line \d+ \(values nested in its cells\) has more than 10,000 JSON values",
    ):
        read_table(hf.jsonl_padded_cells(100, 1_000), "t.jsonl")
    assert read_table(hf.jsonl_padded_cells(100, 10), "t.jsonl").shape == (100, 3)


def test_json_array_table_of_objects_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_JSON_VALUES", "10000")
    with pytest.raises(DataError, match=r"t\.json: the JSON has more than 10,000 JSON values"):
        read_table(b"[" + b",".join([b'{"item": 1}'] * 20_000) + b"]", "t.json")


def test_value_count_matches_the_parsed_values_it_bounds() -> None:
    """The count is at least the number of Python objects json.loads makes, minus one per container (closed form
    on documents whose values are counted by hand)."""
    assert count_json_values(b"[]") == 2 and count_json_values(b"[1,2,3]") == 4
    assert count_json_values(b'{"a": 1, "b": [true, null]}') == 7  # { : , : [ , + 1
    assert count_json_values(b'"a,b:{c"') == 1 and count_json_values(b'["\\\\", ","]') == 3
    doc = {"k": [{"x": i, "y": [i, str(i)]} for i in range(50)], "s": 'a"b\\,c:'}

    def objects(v: object) -> int:
        if isinstance(v, dict):
            return 1 + sum(1 + objects(x) for x in v.values())
        if isinstance(v, list):
            return 1 + sum(objects(x) for x in v)
        return 1

    text = json.dumps(doc).encode()
    assert objects(doc) <= 2 * count_json_values(text) and count_json_values(text) <= objects(doc)
