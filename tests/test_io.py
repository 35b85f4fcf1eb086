"""nkcore.io: reading CSV / TSV / Parquet / JSONL (gzipped or not) and every bad file of issue 6; fingerprints."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nkcore.errors import DataError
from nkcore.io import MAX_COLUMNS, check_json_depth, csv_safe, fingerprint, load_json, read_table

FRAME = pd.DataFrame({"item": ["a", "a", "b"], "rater": ["r1", "r2", "r1"], "label": ["yes", "no", "None"]})
CSV = b"item,rater,label\na,r1,yes\na,r2,no\nb,r1,None\n"


def _parquet(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def _jsonl(frame: pd.DataFrame) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in frame.to_dict(orient="records"))


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (CSV, "r.csv"),
        (CSV.replace(b",", b"\t"), "r.tsv"),
        (CSV.replace(b",", b"\t"), "r.txt"),
        (CSV.replace(b",", b";"), "export.csv"),
        (gzip.compress(CSV, mtime=0), "r.csv.gz"),
        (gzip.compress(CSV.replace(b",", b"\t"), mtime=0), "r.tsv.gz"),
        (_parquet(FRAME), "r.parquet"),
        (_parquet(FRAME), "r.csv"),  # content wins over a wrong name
        (gzip.compress(_parquet(FRAME), mtime=0), "r.parquet.gz"),
        (_jsonl(FRAME), "r.jsonl"),
        (gzip.compress(_jsonl(FRAME), mtime=0), "r.jsonl.gz"),
        (_jsonl(FRAME), "upload"),  # no name: JSON detected from the content
        (json.dumps(FRAME.to_dict(orient="records")).encode(), "r.json"),
        (b"\xef\xbb\xbf" + CSV, "bom.csv"),
        (CSV.decode().encode("utf-16"), "excel-unicode.csv"),
        (CSV.replace(b"\n", b"\r\n"), "windows.csv"),
        (b"\n\n" + CSV, "leading-blank-lines.csv"),
    ],
)
def test_good_files_read_the_same_table(data: bytes, name: str) -> None:
    frame = read_table(data, name)
    assert list(frame.columns) == ["item", "rater", "label"]
    assert frame.astype(str).to_numpy().tolist() == FRAME.to_numpy().tolist()
    assert fingerprint(frame) == fingerprint(FRAME)  # same table whatever the format


def test_path_source_and_str_path(tmp_path: Path) -> None:
    p = tmp_path / "ratings.csv.gz"
    p.write_bytes(gzip.compress(CSV))
    assert read_table(p).shape == (3, 3)
    assert read_table(str(p)).shape == (3, 3)


def test_none_is_a_label_but_empty_and_nan_are_missing() -> None:
    frame = read_table(b"item,label\n1,None\n2,\n3,NaN\n4,NA\n", "x.csv")
    assert frame["label"].iloc[0] == "None"
    assert frame["label"].isna().tolist() == [False, True, True, True]


@pytest.mark.parametrize(
    ("data", "name", "words"),
    [
        (b"", "e.csv", ["e.csv", "empty", "0 bytes"]),
        (b"\n \n\n", "e.csv", ["empty", "blank"]),
        (gzip.compress(b"", mtime=0), "e.csv.gz", ["empty"]),
        (b"item,rater,label\n", "h.csv", ["no rows", "item, rater, label"]),
        (b'{"a": 1}\n{"a": \n', "j.jsonl", ["line 2", "not valid JSON"]),
        (b'{"a": 1}\n\n[1, 2]\n', "j.jsonl", ["line 3 (data row 2)", "object"]),
        (b'[{"a": 1}, 3]', "j.json", ["data row 2", "object"]),
        (b"1,2,3\n4,5,6\n", "n.csv", ["no header", "looks like data"]),
        (b"a,a,b\n1,2,3\n", "d.csv", ["duplicated column", "'a'"]),
        (
            b"a,b\n1,2\n3,4,5\n6,7\n8,9,10,11\n",
            "x.csv",
            ["2 unparseable lines", "line 3 (data row 2, 3 fields)", "line 5 (data row 4, 4 fields)"],
        ),
        (b"a,b\n1,2,3\n", "x.csv", ["1 unparseable line", "line 2 (data row 1, 3 fields)"]),
        # a quoted value spanning two lines: line and data row differ
        (b'a,b\n"x\ny",1\n\n1,2,3\n', "x.csv", ["line 5 (data row 2, 3 fields)"]),
        (b'a,b\n"x,1\n', "q.csv", ["quote opened on line 2 (data row 1) is never closed"]),
        (b'a,b\n1,2\n\n"x\ny",1\n3,"4\n5,6\n', "q.csv", ["quote opened on line 6 (data row 3) is never closed"]),
        (b'a,b\n1,"' + b"x" * 200_000 + b"\n2,3\n", "q.csv", ["line 2 (data row 1) is never closed"]),
        (b"PK\x03\x04" + bytes(100), "book.csv", ["binary", "Excel", "despite its .csv name"]),
        (b"\x89PNG\r\n\x1a\n" + bytes(50), "img.csv", ["binary", "PNG image"]),
        (b"abc,def\n\x00\x01\x02\x03", "blob.csv", ["binary", "NUL byte at offset 8"]),
        (b"\x1f\x8b\x08\x00garbage", "x.csv.gz", ["gzip", "corrupt"]),
        (b"not parquet at all", "x.parquet", ["not a Parquet file", "PAR1"]),
        (b"PAR1 broken PAR1", "x.parquet", ["not a readable Parquet file"]),
    ],
)
def test_bad_files_raise_precise_messages(data: bytes, name: str, words: list[str]) -> None:
    with pytest.raises(DataError) as err:
        read_table(data, name)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_undecodable_bytes_name_the_encoding_offset_and_line() -> None:
    data = "item,label\n1,café\n".encode("latin-1")  # é = 0xe9, not valid UTF-8 here
    with pytest.raises(DataError) as err:
        read_table(data, "latin.csv")
    msg = str(err.value)
    offset = data.index(b"\xe9")
    assert "UTF-8" in msg and "0xe9" in msg and f"byte offset {offset}" in msg and "line 2" in msg


def test_size_limit_bytes_path_and_decompressed(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="over the size limit"):
        read_table(CSV, "r.csv", max_bytes=10)
    p = tmp_path / "big.csv"
    p.write_bytes(CSV)
    with pytest.raises(DataError, match="over the size limit"):
        read_table(p, max_bytes=10)
    bomb = gzip.compress(b"a\n" + b"1\n" * 10_000)
    assert len(bomb) < 2_000
    with pytest.raises(DataError, match="uncompressed content is over the size limit"):
        read_table(bomb, "bomb.csv.gz", max_bytes=2_000)


def test_size_limit_is_checked_before_reading_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "big.csv"
    p.write_bytes(CSV)

    def boom(self: Path) -> bytes:
        raise AssertionError("read_bytes must not be called for a file over the limit")

    monkeypatch.setattr(Path, "read_bytes", boom)
    with pytest.raises(DataError, match="over the size limit"):
        read_table(p, max_bytes=10)


def test_missing_path_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        read_table(tmp_path / "nope.csv")


def test_ids_with_leading_zeros_survive_jsonl() -> None:
    frame = read_table(b'{"item": "007", "label": 1}\n{"item": "010", "label": 2}\n', "x.jsonl")
    assert frame["item"].tolist() == ["007", "010"]


# --- fingerprint -------------------------------------------------------------------------------------------


def test_fingerprint_is_sha256_hex_and_ignores_the_index() -> None:
    fp = fingerprint(FRAME)
    assert len(fp) == 64 and all(c in "0123456789abcdef" for c in fp)
    assert fingerprint(FRAME.set_axis([10, 20, 30])) == fp
    assert fingerprint(FRAME.astype(object)) == fp  # object vs str storage does not matter


def test_fingerprint_sees_names_order_values_and_dtype_families() -> None:
    fp = fingerprint(FRAME)
    assert fingerprint(FRAME.rename(columns={"label": "lab"})) != fp
    assert fingerprint(FRAME[["rater", "item", "label"]]) != fp
    assert fingerprint(FRAME.iloc[::-1]) != fp
    ints = pd.DataFrame({"a": [1, 2]})
    assert fingerprint(ints) != fingerprint(pd.DataFrame({"a": ["1", "2"]}))
    assert fingerprint(ints) == fingerprint(pd.DataFrame({"a": pd.array([1, 2], dtype="Int64")}))
    assert fingerprint(pd.DataFrame({"a": [0.0, np.nan]})) == fingerprint(pd.DataFrame({"a": [-0.0, np.nan]}))
    # a missing cell is not the text "None" nor the empty string
    a = pd.DataFrame({"a": pd.Series(["x", None], dtype=object)})
    assert fingerprint(a) != fingerprint(pd.DataFrame({"a": ["x", "None"]}))
    assert fingerprint(a) != fingerprint(pd.DataFrame({"a": ["x", ""]}))


_text = st.text(alphabet="abcxyz _-é0123456789", min_size=1, max_size=6).map(lambda s: "k" + s.strip())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_text, _text, st.floats(0, 1, allow_nan=False)), min_size=1, max_size=30))
def test_round_trips_give_the_same_fingerprint(rows: list[tuple[str, str, float]]) -> None:
    frame = pd.DataFrame(rows, columns=["item", "label", "p"])
    fp = fingerprint(frame)
    csv = frame.to_csv(index=False).encode()
    assert fingerprint(read_table(csv, "t.csv")) == fp
    assert fingerprint(read_table(gzip.compress(csv), "t.csv.gz")) == fp
    assert fingerprint(read_table(_parquet(frame), "t.parquet")) == fp
    assert fingerprint(read_table(_jsonl(frame), "t.jsonl")) == fp


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=20), st.data())
def test_any_single_change_changes_the_fingerprint(values: list[int], data: st.DataObject) -> None:
    frame = pd.DataFrame({"v": values})
    i = data.draw(st.integers(0, len(values) - 1))
    changed = frame.copy()
    changed.loc[i, "v"] = values[i] + data.draw(st.integers(1, 3))
    assert fingerprint(changed) != fingerprint(frame)


# --- hostile shapes: many columns, enormous lines, decompression / Parquet bombs --------------------------


def test_ten_thousand_columns_are_refused_from_the_header() -> None:
    header = ",".join(f"c{i}" for i in range(10_000)).encode()
    with pytest.raises(DataError) as err:  # was minutes (quadratic duplicate check), now checked on the header
        read_table(header + b"\n" + b",".join([b"1"] * 10_000) + b"\n", "wide.csv")
    assert "10,000 columns in the header (line 1)" in str(err.value) and f"at most {MAX_COLUMNS:,}" in str(err.value)
    ok = ",".join(f"c{i}" for i in range(MAX_COLUMNS)).encode()
    assert read_table(ok + b"\n" + b",".join([b"1"] * MAX_COLUMNS) + b"\n", "ok.csv").shape == (1, MAX_COLUMNS)


def test_jsonl_with_ever_new_keys_is_refused_while_reading() -> None:
    lines = b"".join(json.dumps({f"k{i}": 1}).encode() + b"\n" for i in range(MAX_COLUMNS + 5))
    with pytest.raises(DataError, match=r"1,001 columns \(distinct keys\) by line 1001 \(data row 1001\)"):
        read_table(lines, "keys.jsonl")


def test_parquet_with_too_many_columns_or_a_huge_uncompressed_size() -> None:
    wide = pd.DataFrame({f"c{i}": [1] for i in range(MAX_COLUMNS + 1)})
    with pytest.raises(DataError, match="1,001 columns in the Parquet file"):
        read_table(_parquet(wide), "wide.parquet")
    zeros = _parquet(pd.DataFrame({"a": np.zeros(200_000)}))  # 1.6 MB of float64 zeros in 2 KB (dictionary + RLE)
    assert len(zeros) < 5_000
    with pytest.raises(DataError, match=r"uncompressed content \(200,000 rows x 1 columns.* over the size limit"):
        read_table(zeros, "bomb.parquet", max_bytes=100_000)
    assert read_table(zeros, "fine.parquet", max_bytes=400_000).shape == (200_000, 1)


def test_a_single_enormous_line_without_a_header_is_a_clear_error() -> None:
    with pytest.raises(DataError, match=r"line 1 is longer than 1,048,576 bytes on one line.*NKP_MAX_LINE_BYTES"):
        read_table(b"a" * 3_000_000, "one_line.csv")  # used to escape as _csv.Error (field larger than field limit)


def test_a_header_line_too_long_for_the_column_limit_is_named_as_a_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_LINE_BYTES", "10000000")
    with pytest.raises(DataError, match="the first line is 3,000,000 characters long, too long for a header"):
        read_table(b"a" * 3_000_000, "one_line.csv")


def test_long_names_are_refused() -> None:
    with pytest.raises(DataError, match=r"column 2 in the header .* name of 5,000 characters"):
        read_table(b"a," + b"b" * 5_000 + b"\n1,2\n", "long_name.csv")


def test_duplicated_names_are_found_in_every_format() -> None:
    with pytest.raises(DataError, match=r"duplicated column names in the header .*'a'"):
        read_table(b"a,b,a\n1,2,3\n", "d.csv")
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.table([[1], [2]], names=["a", "a"]), buf)
    with pytest.raises(DataError, match="duplicated column names in the Parquet file: 'a'"):
        read_table(buf.getvalue(), "d.parquet")


def test_csv_safe_escapes_formulas_in_cells_and_names_but_not_numbers() -> None:
    frame = pd.DataFrame(
        {
            '=HYPERLINK("x")': ["=cmd|' /C calc'!A0", "+SUM(1)", "-1", "@x", "\tTAB", "\rCR", "plain", None],
            "n": [-1, 2, 3, 4, 5, 6, 7, 8],
        }
    )
    out = csv_safe(frame)
    assert list(out.columns) == ['\'=HYPERLINK("x")', "n"]
    assert out.iloc[:, 0].tolist()[:7] == ["'=cmd|' /C calc'!A0", "'+SUM(1)", "-1", "'@x", "'\tTAB", "'\rCR", "plain"]
    assert pd.isna(out.iloc[7, 0]) and out["n"].tolist() == frame["n"].tolist()
    assert str(frame.columns[0]).startswith("=")  # the input is not changed
    text = out.to_csv(index=False)
    assert not any(line.startswith(("=", "+", "@")) or ",=" in line for line in text.splitlines())


def test_messages_are_one_line_whatever_the_file_name_or_library_says() -> None:
    with pytest.raises(DataError) as err:
        read_table(b"", "evil\nname\x1b[31m.csv")
    assert str(err.value).isprintable() and "evil\\nname\\x1b[31m.csv: the file is empty" in str(err.value)


# ---------------------------------------------------------------------------------------------------------
# load_json: the one safe JSON loader


def _depth(value: object) -> int:
    """Nesting depth by recursion (the oracle; a scalar is 0, ``[]`` 1, ``{"a": [1]}`` 2)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab\n', max_size=6),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\a', max_size=3), kids, max_size=3)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(value=_JSON_VALUES, cap=st.integers(1, 6))
def test_load_json_matches_json_and_refuses_exactly_past_the_depth_limit(value: object, cap: int) -> None:
    """Under the limit load_json is json.loads; past it (recursive depth oracle) one DataError naming line 1.
    Brackets, quotes and backslashes inside strings never count."""
    text = json.dumps(value)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NKP_MAX_JSON_DEPTH", str(cap))
        if _depth(value) <= cap:
            assert load_json(text.encode(), "x.json") == value
            assert load_json(text, "x.json") == value
        else:
            with pytest.raises(DataError, match=f"x.json: the JSON on line 1 is nested more than {cap} levels deep"):
                load_json(text.encode(), "x.json")


def test_load_json_errors_are_one_line_and_name_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_json(b'\xef\xbb\xbf{"a": 1}', "bom.json") == {"a": 1}
    cases: list[tuple[bytes, str]] = [
        (b'{"a": 1,', r"not valid JSON: Expecting property name enclosed in double quotes at line 1, column 9"),
        (b'{"a": "\xff"}', r"not UTF-8 text \(byte 7\)"),
        (b'{"a": ' + b"9" * 5_000 + b"}", r"the JSON holds a number with 5,000 digits \(NK Planner reads numbers"),
        (b"[" * 65 + b"]" * 65, "the JSON on line 1 is nested more than 64 levels deep.*NKP_MAX_JSON_DEPTH"),
    ]
    for data, message in cases:
        with pytest.raises(DataError, match=f"^bad\\\\nname.json: {message}") as err:
            load_json(data, "bad\nname.json")
        assert "\n" not in str(err.value)
    assert load_json(b"[" * 64 + b"]" * 64, "x.json") is not None
    with pytest.raises(DataError, match=r"the file is 11 bytes, over the size limit of 10 bytes$"):
        load_json(b'{"a": 1234}', "x.json", max_bytes=10)
    monkeypatch.setenv("NKP_MAX_FILE_BYTES", "10")
    with pytest.raises(DataError, match=r"over the size limit of 10 bytes \(server setting NKP_MAX_FILE_BYTES\)"):
        load_json(b'{"a": 1234}', "x.json")
    monkeypatch.setenv("NKP_MAX_JSON_DEPTH", "100000")  # the scan lets it through: the parser's own failure
    monkeypatch.delenv("NKP_MAX_FILE_BYTES")
    with pytest.raises(DataError, match=r"x\.json: the JSON is nested too deeply to read"):
        load_json(b"[" * 50_000 + b"]" * 50_000, "x.json")


def test_the_depth_scan_names_the_line_and_ignores_unterminated_strings() -> None:
    """The line counts from ``first_line``; an unterminated string blanks the rest (the parser refuses it)."""
    deep = b'{"a": 1}\n{"b": "[[["}\n' + b"[" * 70 + b"]" * 70
    with pytest.raises(DataError, match=r"x\.jsonl: the JSON on line 12 is nested more than 64 levels deep"):
        check_json_depth(deep, "x.jsonl", first_line=10)
    check_json_depth(b'{"a": "' + b"[" * 100 + b'\\"' * 100, "x.json")
    check_json_depth(b"[" * 64 + b"]" * 64, "x.json")


def test_a_json_object_of_records_keyed_by_id_is_one_row_per_key() -> None:
    """LeWiDi's files: ``{"1": {...}, "2": {...}}``, pretty-printed or on one line; the key in column ``key``."""
    doc = {"1": {"text": "a", "annotators": "A,B"}, "7": {"text": "b", "annotators": "A", "n": 2}}
    expected = pd.DataFrame({"key": ["1", "7"], "text": ["a", "b"], "annotators": ["A,B", "A"], "n": [np.nan, 2.0]})
    for data in (json.dumps(doc, indent=4).encode(), json.dumps(doc).encode(), gzip.compress(json.dumps(doc).encode())):
        frame = read_table(data, "x.json.gz" if data[:2] == b"\x1f\x8b" else "x.json")
        pd.testing.assert_frame_equal(frame.astype(object), expected.astype(object))
    # a record with a field named key: the record key goes to _key
    frame = read_table(json.dumps({"a": {"key": 1}}, indent=1).encode(), "x.json")
    assert frame.columns.tolist() == ["_key", "key"] and frame["_key"].tolist() == ["a"]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b'{\n "a": 1,\n "b": {"c": 2}\n}', ["one JSON object spread over several lines", "JSON Lines"]),
        (b'{\n "a": {"b": 1},\n', ["not valid JSON"]),
    ],
)
def test_a_multi_line_json_object_that_is_not_records_is_refused(data: bytes, words: list[str]) -> None:
    with pytest.raises(DataError) as err:
        read_table(data, "x.json")
    assert all(w in str(err.value) for w in words), str(err.value)
