"""Data page (AppTest): every kind of good file, every bad input of issue 6, a failed upload keeps what is loaded,
the mapping can be corrected, a bound widget changes the numbers, delete, and persistence across two app runs."""

from __future__ import annotations

import gzip
import io
import json
import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nkcore import store
from tests.app.conftest import RunPage, clear_streamlit_caches, error_texts, plain

PAGE = "pages/1_Data.py"


def _csv(frame: pd.DataFrame, sep: str = ",") -> bytes:
    return frame.to_csv(index=False, sep=sep).encode()


def _ratings(n_items: int = 12, k: int = 5) -> pd.DataFrame:
    rows = [
        (f"t{i}", f"w{(i + r) % 9}", ["pos", "neg", "neutral"][(i * r) % 3]) for i in range(n_items) for r in range(k)
    ]
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


RATINGS = _ratings()
# predictions on the built-in sample ratings (items 1..500, labels safe / unsafe / unsure)
PREDS = pd.DataFrame(
    {
        "item_id": [1, 2, 3, 1, 2, 3],
        "model_name": ["big"] * 3 + ["small"] * 3,
        "prediction": ["safe", "unsafe", "safe", "safe", "safe", "unsure"],
        "p_safe": [0.8, 0.1, 0.7, 0.6, 0.5, 0.2],
        "p_unsafe": [0.1, 0.8, 0.2, 0.2, 0.3, 0.2],
        "p_unsure": [0.1, 0.1, 0.1, 0.2, 0.2, 0.6],
    }
)
PAIRED_WIDE = pd.DataFrame({"question_id": [f"q{i}" for i in range(10)], "A": [1, 0] * 5, "B": [1, 1, 1, 0, 1] * 2})
SAMPLES = pd.DataFrame(
    {
        "prompt_id": [c for c in range(6) for _ in range(3)],
        "sample_index": [1, 2, 3] * 6,
        "model_answer": ["4", "4", "5", "x", "y", "x", "1", "1", "1", "a", "b", "c", "7", "7", "8", "z", "z", "z"],
        "gold_answer": ["4"] * 3 + ["x"] * 3 + ["1"] * 3 + ["a"] * 3 + ["8"] * 3 + ["q"] * 3,
        "latency": [1.0, 2.0, 1.5] * 6,
    }
)


def _parquet(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def _jsonl_gz(frame: pd.DataFrame) -> bytes:
    return gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in frame.to_dict(orient="records")))


def _metrics(at: AppTest) -> dict[str, str]:
    """The LAST value shown for each metric label (the view section comes after the upload check)."""
    return {_plain(m.label): _plain(m.value) for m in at.metric}


def _plain(text: str) -> str:
    """Markdown as the reader sees it: the page backslash-escapes user text (``\\[`` shows ``[``)."""
    return re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")  # and the word joiner that stops autolinks


def _errors(at: AppTest) -> str:
    """The page's error messages, then its warnings (a file the page cannot tell is explained in a warning)."""
    return " ".join([*(_plain(e) for e in error_texts(at)), *(_plain(w.value) for w in at.warning)])


def _upload(at: AppTest, name: str, content: bytes) -> AppTest:
    at.file_uploader(key="dat_upload").set_value((name, content, "application/octet-stream"))
    return at.run()


def _save(at: AppTest) -> AppTest:
    return at.button(key="dat_save").click().run()


def test_default_view_shows_the_sample_ratings(run_page: RunPage) -> None:
    at = run_page(PAGE)
    assert not at.exception
    assert at.title[0].value == "Data"
    numbers = _metrics(at)
    assert numbers["items (N)"] == "500" and numbers["ratings per item (K), min / median / max"] == "40 / 40 / 40"
    assert "agreement (Krippendorff's alpha, nominal)" in numbers  # safe / unsafe labels: nominal
    assert any("Nothing uploaded yet" in plain(m.value) for m in at.markdown)


@pytest.mark.parametrize(
    ("name", "content", "kind", "expect"),
    [
        ("team ratings.csv", _csv(RATINGS), "ratings", {"items (N)": "12", "raters": "9"}),
        ("preds.jsonl.gz", _jsonl_gz(PREDS), "predictions", {"models": "2", "items (N)": "3"}),
        ("paired.tsv", _csv(PAIRED_WIDE, sep="\t"), "paired", {"cases": "10", "accuracy of A": "50.0%"}),
        (
            "samples.parquet",
            _parquet(SAMPLES),
            "samples",
            {"cases": "6", "samples per request (n), min / median / max": "3 / 3 / 3"},
        ),
    ],
    ids=["ratings-csv", "predictions-jsonl-gz", "paired-wide-tsv", "samples-parquet"],
)
def test_each_good_file_kind_is_detected_checked_stored_and_chosen(
    run_page: RunPage, name: str, content: bytes, kind: str, expect: dict[str, str]
) -> None:
    at = _upload(run_page(PAGE), name, content)
    assert not at.exception and not error_texts(at), error_texts(at)
    assert any("valid" in plain(s.value) for s in at.success)
    at = _save(at)
    assert not at.exception and not error_texts(at), error_texts(at)
    key = "eval" if kind in ("paired", "samples") else kind  # paired results and raw samples are evaluations
    ds_id = at.query_params[key][0] if isinstance(at.query_params[key], list) else at.query_params[key]
    assert len(ds_id) == 64
    assert any("Stored" in plain(s.value) for s in at.success)
    numbers = _metrics(at)  # the view now shows the stored dataset
    for label, value in expect.items():
        assert numbers[label] == value, (label, numbers)
    assert at.session_state["dat_view"] == kind


BIG = b"item,rater,label\n" + b"".join(f"{i},r{i % 7},{'ab'[i % 2]}\n".encode() for i in range(110_000))
FULL_GZ = gzip.compress(b"item,rater,label\n" + b"".join(f"{i},r{i % 5},{'ab'[i % 2]}\n".encode() for i in range(2000)))
BAD = [
    ("wrong columns", "odd.csv", b"foo,bar\n1,2\n3,4\n", ["cannot tell what this file holds", "Choose the kind"]),
    ("missing column", "two.csv", b"item,rater\n1,a\n2,b\n", ["missing column for label", "columns are", "rater"]),
    ("empty file", "empty.csv", b"", ["empty"]),
    ("0-byte gz", "empty.csv.gz", b"", ["empty.csv.gz", "empty (0 bytes)"]),
    ("truncated gz", "cut.csv.gz", FULL_GZ[: len(FULL_GZ) // 2], ["cut.csv.gz", "corrupt or truncated"]),
    ("header only", "header.csv", b"item_id,annotator_id,label\n", ["no rows"]),
    ("undecodable bytes", "latin.csv", "item,rater,label\n1,a,café\n".encode("latin-1"), ["UTF-8", "byte offset"]),
    ("binary with .csv name", "photo.csv", b"\x89PNG\r\n\x1a\n" + bytes(64), ["binary", ".csv name"]),
    ("NaN label", "nan.csv", b"item,rater,label\n1,a,x\n1,b,\n2,a,y\n", ["missing or blank label", "data row 2"]),
    ("blank label", "blank.csv", b"item,rater,label\n1,a,x\n1,b,  \n2,a,y\n3,b,NaN\n", ["data rows 2, 4"]),
    ("one item", "one_item.csv", b"item,rater,label\n1,a,x\n1,b,y\n", ["only one item"]),
    ("one class", "one_class.csv", b"item,rater,label\n1,a,x\n2,b,x\n", ["only one label class"]),
    ("duplicate rows", "dup.csv", b"item,rater,label\n1,a,x\n1,a,x\n2,b,y\n", ["repeated (item, rater) rows"]),
    (
        "probabilities not summing to 1",
        "p.csv",
        b"item,model,p_safe,p_unsafe,p_unsure\n1,m,0.5,0.2,0.3\n2,m,0.5,0.5,0.5\n",
        ["do not sum to 1", "data row 2"],
    ),
    ("unparseable line", "lines.csv", b"item,rater,label\n1,a,x\n1,b,y,z\n", ["unparseable line", "line 3"]),
    ("over the size limit", "big.csv", BIG, ["over the size limit"]),
    (
        "10,000 columns",
        "wide.csv",
        ",".join(f"c{i}" for i in range(10_000)).encode() + b"\n" + b"1," * 9_999 + b"1\n",
        ["10,000 columns in the header (line 1)", "at most 1,000"],
    ),
    ("enormous line", "long.csv", b"item,rater,label\n1,a,x\n2,b," + b"y" * 300_000 + b"\n", ["300,000 characters"]),
    ("unclosed quote", "q.csv", b'item,rater,label\n1,a,x\n2,b,"y\n3,a,x\n', ["line 3 (data row 2) is never closed"]),
    ("enormous first line", "one.csv", b"a" * 1_040_000, ["first line is 1,040,000 characters long"]),
]


@pytest.mark.parametrize(("what", "name", "content", "words"), BAD, ids=[b[0] for b in BAD])
def test_each_bad_input_gets_a_precise_message_not_an_exception(
    run_page: RunPage, monkeypatch: pytest.MonkeyPatch, what: str, name: str, content: bytes, words: list[str]
) -> None:
    monkeypatch.setenv("NKP_MAX_FILE_BYTES", str(2**20))  # 1 MiB: the BIG file is over it
    assert len(BIG) > 2**20
    at = _upload(run_page(PAGE), name, content)
    assert not at.exception, [e.value for e in at.exception]
    errors = _errors(at)
    for w in words:
        assert w in errors, (w, errors)
    assert "dat_save" not in [b.key for b in at.button]


def test_a_failed_upload_after_a_good_one_keeps_the_good_one(run_page: RunPage) -> None:
    at = _save(_upload(run_page(PAGE), "good.csv", _csv(RATINGS)))
    ds_id = at.query_params["ratings"]
    good = _metrics(at)
    at = _upload(at, "bad.csv", b"\x00\x01binary")
    assert not at.exception
    assert any("binary" in e for e in error_texts(at))
    assert at.query_params["ratings"] == ds_id  # still chosen, still in the link
    assert _metrics(at)["items (N)"] == good["items (N)"] == "12"
    assert any(ds_id[:12] in str(v) for v in at.dataframe[-1].value["id"])  # still stored


def test_the_user_corrects_an_undetected_mapping(run_page: RunPage) -> None:
    odd = RATINGS.rename(columns={"item_id": "thing", "annotator_id": "person", "label": "verdict"})
    at = _upload(run_page(PAGE), "odd.csv", _csv(odd))
    assert "cannot tell what this file holds" in _errors(at) and not error_texts(at)  # explained, not an error
    kind_box = next(s for s in at.selectbox if s.label == "What does the file hold?")
    at = kind_box.set_value("ratings").run()
    for prefix, column in (("item", "thing"), ("rater", "person"), ("label", "verdict")):
        next(s for s in at.selectbox if s.label.startswith(prefix + " (")).set_value(column)
    at = at.run()
    assert not at.exception and not error_texts(at), error_texts(at)
    at = _save(at)
    assert _metrics(at)["items (N)"] == "12"


def test_the_minimum_ratings_slider_changes_the_numbers(run_page: RunPage) -> None:
    uneven = pd.concat([_ratings(10, 5), _ratings(4, 2).assign(item_id=lambda d: "extra" + d["item_id"])])
    at = _save(_upload(run_page(PAGE), "uneven.csv", _csv(uneven)))
    assert _metrics(at)["items (N)"] == "14"
    at = at.slider(key="dat_min_k").set_value(3).run()
    numbers = _metrics(at)
    assert numbers["items (N)"] == "10" and numbers["items left out"] == "4"
    assert at.session_state["dat_min_k"] == 3  # bound to ?dat_min_k= (the browser test checks the URL)


def test_delete_a_stored_dataset(run_page: RunPage, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_ALLOW_DELETE", "1")
    at = _save(_upload(run_page(PAGE), "good.csv", _csv(RATINGS)))
    ds_id = at.query_params["ratings"]
    at.file_uploader(key="dat_upload").clear()
    at = at.run()
    assert at.button(key="dat_delete").disabled
    at = at.checkbox(key="_dat_delete_sure").check().run()
    at = at.button(key="dat_delete").click().run()
    assert not at.exception
    assert any(f"Deleted dataset `{ds_id[:12]}`" in plain(s.value) for s in at.success)
    assert "ratings" not in at.query_params
    assert _metrics(at)["items (N)"] == "500"  # back to the sample
    assert any("Nothing uploaded yet" in plain(m.value) for m in at.markdown)


def test_persistence_across_two_app_runs_sharing_one_data_dir(run_page: RunPage) -> None:
    first = _save(_upload(run_page(PAGE), "kept.csv", _csv(RATINGS)))
    ds_id = first.query_params["ratings"]
    clear_streamlit_caches()  # a restart: nothing in memory survives, only NKP_DATA_DIR
    second = run_page(PAGE, query={"ratings": ds_id})
    assert not second.exception
    assert _metrics(second)["items (N)"] == "12"
    assert second.dataframe[-1].value["name"].tolist() == ["kept.csv"]
    third = run_page(PAGE)  # a fresh session without the link still lists it in the sidebar
    box = next(s for s in third.sidebar.selectbox if s.label.startswith("Ratings"))
    assert ds_id in box.options or any("kept.csv" in o for o in box.options)


def test_hostile_and_unknown_dataset_ids_in_the_link(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"ratings": "../../etc/passwd"})
    assert not at.exception
    assert any("not a valid id" in plain(w.value) for w in at.warning)
    assert _metrics(at)["items (N)"] == "500"
    at = run_page(PAGE, query={"ratings": "0" * 64})
    assert any("not on this server" in plain(w.value) for w in at.warning)


def test_a_file_no_kind_fits_says_what_each_kind_needs(run_page: RunPage) -> None:
    at = _upload(run_page(PAGE), "odd.csv", b"foo,bar\n1,2\n3,4\n")
    warning = " ".join(_plain(w.value) for w in at.warning)
    assert "cannot tell what this file holds" in warning and "(foo, bar)" in warning
    assert "Ratings need item, rater, label" in warning and "dat_save" not in [b.key for b in at.button]


LABELS = pd.DataFrame(
    {
        "item": ["a,b", "a,b", "c", "c", "d", "d"],
        "rater": ["r1", "r2", "r1", "r2", "r1", "r2"],
        "label": ['say "hi", twice', "日本語", "日本語", "x,y", 'say "hi", twice', "日本語"],
    }
)


def test_labels_with_commas_quotes_and_unicode_survive_the_round_trip(run_page: RunPage) -> None:
    at = _save(_upload(run_page(PAGE), "labels.csv", _csv(LABELS)))
    assert not at.exception and not error_texts(at), error_texts(at)
    ds_id = at.query_params["ratings"]
    _meta, frame = store.get(ds_id)
    assert sorted(frame["label"].unique()) == sorted(LABELS["label"].unique())
    numbers = _metrics(at)
    assert numbers["items (N)"] == "3" and numbers["labels"] == "3"
    captions = " ".join(_plain(c.value) for c in at.caption)
    assert "the most common is '日本語' (50.0% of all ratings)" in captions


HOSTILE_TEXT = pd.DataFrame(
    {
        "item": ["=cmd|' /C calc'!A0", "=cmd|' /C calc'!A0", "@SUM(A1)", "@SUM(A1)", "-1", "-1"],
        "rater": ["r1", "r2", "r1", "r2", "r1", "r2"],
        "label": ["![t](http://127.0.0.1:9/t.png)", ":red[x]", ":red[x]", ":red[x]", "+1+HYPERLINK()", "ok"],
    }
)


def _upload_hostile_text(at: AppTest) -> AppTest:
    return _save(_upload(at, "![x](http://127.0.0.1:9/n.png).csv", _csv(HOSTILE_TEXT)))


# an image, a colour directive or a bare URL (autolinked) made by user text
_UNESCAPED = re.compile(r"(?<!\\)!\\?\[|(?<!\\):red|(?<!\\)://|\\:/")


def test_user_text_is_neither_markdown_on_the_page_nor_a_formula_in_the_csv_download(
    run_page: RunPage, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ui.common import exports

    downloaded: list[pd.DataFrame] = []
    real = exports.download_table
    monkeypatch.setattr(exports, "download_table", lambda df, name, **kw: (downloaded.append(df), real(df, name, **kw)))
    at = _upload_hostile_text(run_page(PAGE))
    assert not at.exception and not error_texts(at), error_texts(at)
    summary = [m.value for m in at.markdown if m.value.startswith("- **")]  # ui.common.exports' summary of the view
    shown = [m.value for m in at.markdown if m.value not in summary] + [c.value for c in at.caption]
    shown += [s.value for s in at.success]
    assert any("n.png" in _plain(t) for t in shown) and any(":red" in _plain(t) for t in shown)
    for text in shown:  # every user-made bracket is escaped: no image, no link, no colour directive
        assert not _UNESCAPED.search(text), text
    table = downloaded[-1]  # the view of the stored dataset, after the last run
    text = exports.table_csv(table).decode("utf-8")  # the bytes the download button writes
    assert "'=cmd|' /C calc'!A0" in text and "'@SUM(A1)" in text and "'+1+HYPERLINK()" in text
    assert not any(cell.startswith(("=", "@", "+")) for line in text.splitlines() for cell in line.split(","))
    assert "\n-1," in text  # a negative number stays a number


def test_the_summary_of_the_view_does_not_render_user_text_as_markdown(run_page: RunPage) -> None:
    at = _upload_hostile_text(run_page(PAGE))
    summary = [m.value for m in at.markdown if m.value.startswith("- **")]
    assert summary and not any(_UNESCAPED.search(t) for t in summary)


# --- links: the dataset id is validated before any file access (ui.common.datasets.choose_dataset) -------------

HOSTILE_IDS = {
    "traversal": "../../etc/passwd",
    "encoded": "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "very-long": "a" * 10_000,
    "nul": "0" * 63 + "\x00",
    "newline": "0" * 63 + "\n",
    "escape": "\x1b[31m" + "0" * 59,
    "empty": "",
}


def _spy_file_access(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every id that reaches the store's file access (get / delete)."""
    reached: list[str] = []
    for name in ("get", "delete"):
        real = getattr(store, name)
        monkeypatch.setattr(
            store, name, lambda ds_id, *a, _real=real, **k: (reached.append(ds_id), _real(ds_id, *a, **k))[1]
        )
    return reached


@pytest.mark.parametrize("bad", list(HOSTILE_IDS.values()), ids=list(HOSTILE_IDS))
def test_hostile_ids_in_a_compare_link_are_refused_before_any_file_access(
    run_page: RunPage, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    reached = _spy_file_access(monkeypatch)
    at = run_page("pages/3_Compare.py", query={"paired": bad})
    assert not at.exception, [e.value for e in at.exception]
    warnings = " ".join(plain(w.value) for w in at.warning)
    assert "not a valid id" in warnings and len(warnings) < 400
    assert "\x00" not in warnings and "etc/passwd" not in warnings
    assert "paired" not in at.query_params  # the bad value is dropped from the URL: the view shown is the sample's
    assert reached == []


def _stored_paired() -> str:
    frame = pd.DataFrame({"case": ["1", "1", "2", "2"], "config": ["a", "b", "a", "b"], "correct": [1, 0, 1, 1]})
    return store.put(frame, "paired", "p.csv").id


def test_a_link_to_a_deleted_dataset_says_so_and_shows_the_sample(run_page: RunPage) -> None:
    ds_id = _stored_paired()
    at = run_page("pages/3_Compare.py", query={"paired": ds_id})
    assert at.query_params["eval"] == ds_id  # an old link: moved to eval
    store.delete(ds_id)
    clear_streamlit_caches()
    at = run_page("pages/3_Compare.py", query={"paired": ds_id})
    assert not at.exception
    when = store.deleted_at(ds_id)
    assert when is not None
    assert any(
        f"was deleted from the dataset store on {when[:10]}" in plain(w.value) and ds_id[:12] in plain(w.value)
        for w in at.warning
    )
    assert "paired" not in at.query_params


def test_a_link_with_an_id_of_the_wrong_kind_names_the_kind(run_page: RunPage) -> None:
    ratings_id = store.put(RATINGS.rename(columns={"item_id": "item", "annotator_id": "rater"}), "ratings", "r.csv").id
    at = run_page("pages/3_Compare.py", query={"paired": ratings_id})
    assert not at.exception and "paired" not in at.query_params
    assert any("ratings" in w.value and "not on this server" not in plain(w.value) for w in at.warning)


def test_an_upper_case_id_is_refused_with_a_message_that_says_lower_case(run_page: RunPage) -> None:
    ds_id = _stored_paired()
    at = run_page("pages/3_Compare.py", query={"paired": ds_id.upper()})
    assert not at.exception and "paired" not in at.query_params
    assert any("lowercase" in w.value or "lower-case" in plain(w.value) for w in at.warning)


@pytest.mark.parametrize("value", ["paired", "Paired results"])
def test_the_kind_in_a_link_may_be_its_key_or_its_label(run_page: RunPage, value: str) -> None:
    at = run_page(PAGE, query={"dat_view": value})
    assert not at.exception and not at.warning, [plain(w.value) for w in at.warning]
    assert at.session_state["dat_view"] == "paired" and _metrics(at)["cases"] == "200"


def test_a_failed_upload_is_explained_inside_the_upload_box(run_page: RunPage) -> None:
    at = _upload(run_page(PAGE), "photo.csv", b"\x89PNG\r\n\x1a\n" + bytes(64))
    top = list(at.main.children.values())
    box = top[[type(c).__name__ for c in top].index("FileUploader") + 1]  # the bordered box under the uploader
    assert [type(c).__name__ for c in box.children.values()] == ["Error"]  # not an empty box and a message below
    assert "binary" in box.children[0].value
