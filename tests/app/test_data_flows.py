"""AppTests of the Data page's flows: label counts, several datasets in one file, an item key from several columns,
repeated (item, rater) rows, predictions checked against stored ratings, derived datasets, harness uploads,
deletion switched off, renaming. Oracles: hand-built small tables whose right answers are counted by hand."""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nkcore import store
from nkcore.ratings import ratings_from_frame
from nkcore.summary import summarize_ratings
from tests.app.conftest import RunPage, error_texts, plain

PAGE = "pages/1_Data.py"


def _csv(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode()


def _upload(at: AppTest, name: str, content: bytes) -> AppTest:
    at.file_uploader(key="dat_upload").set_value((name, content, "text/csv"))
    return at.run()


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metrics(at: AppTest) -> dict[str, str]:
    return {plain(m.label): plain(m.value) for m in at.metric}


def _texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [w.value for w in at.warning] + [s.value for s in at.success] + [i.value for i in at.info]
    return " ".join(plain(str(p)) for p in parts)


# ChaosNLI's layout: a subset column, an item column, a total, count_<label> columns empty outside their subset
COUNTS = pd.DataFrame(
    {
        "subset": ["snli", "snli", "snli", "abd", "abd"],
        "uid": ["s1", "s2", "s3", "a1", "a2"],
        "n_annotations": [5, 5, 5, 4, 4],
        "count_e": [3, 0, 2, None, None],
        "count_n": [1, 5, 2, None, None],
        "count_c": [1, 0, 1, None, None],
        "count_1": [None, None, None, 3, 1],
        "count_2": [None, None, None, 1, 3],
    }
)


def _expanded(counts: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    rows = [
        {"item": r["uid"], "rater": f"r{k}", "label": lab}
        for _, r in counts.iterrows()
        for k, lab in enumerate(lab for lab in labels for _ in range(int(r[f"count_{lab}"])))
    ]
    return pd.DataFrame(rows)


def test_label_counts_are_detected_kept_as_counts_and_stored_per_subset(run_page: RunPage) -> None:
    at = _ok(_upload(run_page(PAGE), "label_counts.csv", _csv(COUNTS)))
    assert at.selectbox(key="_dat_subcol_" + _token(at)).value == "subset"
    at = _ok(at.selectbox(key="_dat_subval_" + _token(at)).set_value("snli").run())
    kind_box = at.selectbox(key="_dat_kind_" + _token(at))
    assert kind_box.format_func("auto") == "Detected: Ratings (label counts)"
    assert not error_texts(at)
    at = _ok(at.button(key="dat_save").click().run())
    ds_id = at.query_params["ratings"]
    meta, frame = store.get(ds_id)
    assert meta.kind == "ratings" and list(frame.columns) == ["item", "count_e", "count_n", "count_c"]
    # the stored counts summarise exactly like one row per rating, except the raters (counts carry no ids)
    oracle = summarize_ratings(ratings_from_frame(_expanded(COUNTS[COUNTS.subset == "snli"], ["e", "n", "c"])))
    numbers = _metrics(at)
    assert numbers["items (N)"] == "3" and numbers["ratings"] == f"{oracle.n_ratings}"
    assert numbers["agreement (Krippendorff's alpha, nominal)"] == f"{oracle.alpha:.3f}"
    assert numbers["raters"] == "not recorded"
    assert "one row of the file each" not in _texts(at)


def test_budget_resamples_from_stored_label_counts(run_page: RunPage) -> None:
    counts = pd.DataFrame(
        {
            "item": [f"i{i}" for i in range(40)],
            "count_x": np.arange(40) % 6,
            "count_y": 5 - np.arange(40) % 6,
        }
    )
    rid = store.put(counts, "ratings", "counts.csv").id
    rng = np.random.default_rng(1)
    preds = pd.DataFrame(
        {
            "item": [f"i{i}" for i in range(40)] * 2,
            "model": ["a"] * 40 + ["b"] * 40,
            "pred_label": rng.choice(["x", "y"], size=80),
        }
    )
    pid = store.put(preds, "predictions", "preds.csv").id
    at = run_page(
        "pages/2_Budget.py",
        query={"ratings": rid, "predictions": pid, "bud_src": "Resample ratings + predictions"},
        timeout=180,
    )
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at), error_texts(at)
    assert "Resampling 40 items" in _texts(at)


def _token(at: AppTest) -> str:
    """The upload's widget-key token (the page keys each upload's widgets by its file id)."""
    for prefix in ("_dat_kind_", "_dat_subcol_"):
        keys = [w.key for w in at.selectbox if w.key and w.key.startswith(prefix)]
        if keys:
            return keys[0][len(prefix) :]
    raise AssertionError("no upload widgets on the page")


LEWIDI = pd.DataFrame(
    {
        "dataset": ["A"] * 6 + ["B"] * 6,
        "split": ["dev"] * 12,
        "item_id": ["dev_1", "dev_1", "dev_2", "dev_2", "dev_3", "dev_3"] * 2,
        "annotator_id": ["Ann1", "Ann2"] * 6,
        "label": [1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1],
    }
)


def test_several_datasets_in_one_file_store_each_as_its_own(run_page: RunPage) -> None:
    at = _ok(_upload(run_page(PAGE), "lewidi.csv", _csv(LEWIDI)))
    token = _token(at)
    at = _ok(at.radio(key=f"_dat_submode_{token}").set_value("store each").run())
    at = _ok(at.button(key="dat_save").click().run())
    stored = {m.name: m for m in store.list_datasets("ratings")}
    assert set(stored) == {"lewidi.csv [A]", "lewidi.csv [B]"}
    for name, part in (("lewidi.csv [A]", "A"), ("lewidi.csv [B]", "B")):
        _, frame = store.get(stored[name].id)
        assert (
            len(frame) == 6
            and frame["label"].tolist() == LEWIDI.loc[LEWIDI.dataset == part, "label"].astype(str).tolist()
        )


def test_all_rows_repeat_pairs_until_the_item_key_joins_two_columns(run_page: RunPage) -> None:
    at = _ok(_upload(run_page(PAGE), "lewidi.csv", _csv(LEWIDI)))
    token = _token(at)
    at = _ok(at.radio(key=f"_dat_submode_{token}").set_value("all rows").run())
    warning = " ".join(plain(w.value) for w in at.warning)
    # 12 rows, 6 (item, rater) pairs each seen twice: 6 extra rows; the message names the likely causes
    assert "6 rows repeat an (item, rater) pair" in warning and "6 pairs repeated" in warning
    assert "several datasets or splits in one file" in warning and "multi-select" in warning
    assert "dat_save" not in [b.key for b in at.button]
    at = _ok(at.multiselect(key=f"_dat_key_{token}").set_value(["dataset", "item_id"]).run())
    assert not any("repeat an (item, rater)" in plain(w.value) for w in at.warning)
    at = _ok(at.button(key="dat_save").click().run())
    _, frame = store.get(at.query_params["ratings"])
    assert sorted(frame["item"].unique()) == [f"{d} / dev_{i}" for d in "AB" for i in (1, 2, 3)]


@pytest.mark.parametrize(("keep", "labels"), [("first", ["x", "y"]), ("last", ["z", "y"])])
def test_repeated_ratings_keep_first_or_last(run_page: RunPage, keep: str, labels: list[str]) -> None:
    frame = pd.DataFrame({"item": [1, 2, 1], "rater": ["a", "a", "a"], "label": ["x", "y", "z"]})
    at = _ok(_upload(run_page(PAGE), "dups.csv", _csv(frame)))
    token = _token(at)
    assert any("refused" in e for e in error_texts(at))
    assert len(at.dataframe[0].value) == 2  # the rows involved (at most three shown)
    at = _ok(at.radio(key=f"_dat_dups_{token}").set_value(keep).run())
    at = _ok(at.button(key="dat_save").click().run())
    _, stored = store.get(at.query_params["ratings"])
    assert stored.sort_values("item")["label"].tolist() == labels


RATINGS = pd.DataFrame(
    {
        "item": ["1", "1", "1", "2", "2", "2", "3", "3", "3", "4", "4", "4"],
        "rater": ["a", "b", "c"] * 4,
        "label": ["x", "x", "y", "y", "y", "y", "x", "y", "y", "x", "x", "x"],
    }
)  # plurality: 1 -> x, 2 -> y, 3 -> y, 4 -> x
PREDICTIONS = pd.DataFrame(
    {
        "item": ["1", "2", "3", "4"] * 4,
        "model": ["big"] * 8 + ["small"] * 8,
        "model_run": ["big_s0"] * 4 + ["big_s1"] * 4 + ["small_s0"] * 4 + ["small_s1"] * 4,
        "pred_label": list("xyyx") + list("xyxx") + list("xxxx") + list("yyyy"),
    }
)


def test_predictions_pick_the_run_column_and_are_checked_against_the_ratings_sharing_most_items(
    run_page: RunPage,
) -> None:
    store.put(RATINGS, "ratings", "rated.csv")
    store.put(RATINGS.assign(item="other" + RATINGS["item"]), "ratings", "unrelated.csv")
    at = _ok(_upload(run_page(PAGE), "preds.csv", _csv(PREDICTIONS)))
    token = _token(at)
    assert at.selectbox(key=f"_dat_map_{token}_predictions_model").value == "model_run"
    against = at.selectbox(key=f"_dat_against_{token}")
    assert against.format_func(against.value) == "rated.csv"
    assert "Checked against the stored ratings rated.csv" in _texts(at)
    assert _metrics(at)["rated items covered"] in ("100%", "100.0%")


def test_predictions_without_stored_ratings_are_stored_unchecked(run_page: RunPage) -> None:
    at = _ok(_upload(run_page(PAGE), "preds.csv", _csv(PREDICTIONS)))
    assert "No stored ratings share items" in _texts(at) and not error_texts(at)
    at = _ok(at.button(key="dat_save").click().run())
    assert store.get(at.query_params["predictions"])[0].kind == "predictions"


def test_derive_paired_results_from_predictions_and_stored_ratings_reaches_compare(run_page: RunPage) -> None:
    rid = store.put(RATINGS, "ratings", "rated.csv").id
    at = _ok(_upload(run_page(PAGE), "preds.csv", _csv(PREDICTIONS)))
    at = _ok(at.button(key=f"dat_derive_{_token(at)}").click().run())
    assert not error_texts(at), error_texts(at)
    pid = at.query_params["eval"]
    meta, frame = store.get(pid)
    assert meta.kind == "paired" and rid in meta.derived_from and len(meta.derived_from) == 2
    # hand count against the plurality gold x, y, y, x
    acc = frame.groupby("config")["correct"].sum().to_dict()
    assert acc == {"big_s0": 4, "big_s1": 3, "small_s0": 2, "small_s1": 2}
    cmp = run_page("pages/3_Compare.py", query={"paired": pid}, timeout=120)
    assert not cmp.exception and not error_texts(cmp)


def test_derive_raw_samples_from_the_runs_of_one_model(run_page: RunPage) -> None:
    store.put(RATINGS, "ratings", "rated.csv")
    at = _ok(_upload(run_page(PAGE), "preds.csv", _csv(PREDICTIONS)))
    token = _token(at)
    at = _ok(at.radio(key=f"_dat_der_what_{token}").set_value("samples").run())
    at = _ok(at.selectbox(key=f"_dat_der_m_{token}").set_value("big").run())
    at = _ok(at.button(key=f"dat_derive_{token}").click().run())
    assert not error_texts(at), error_texts(at)
    _, frame = store.get(at.query_params["eval"])
    assert len(frame) == 8 and frame.groupby("case")["sample"].count().tolist() == [2, 2, 2, 2]


def _lm_eval(values: list[int]) -> bytes:
    line = {"doc_id": 0, "target": "A", "filtered_resps": ["A"], "metrics": ["acc"], "acc": 1}
    return "\n".join(json.dumps({**line, "doc_id": i, "acc": v}) for i, v in enumerate(values)).encode()


@pytest.mark.parametrize("gz", [False, True], ids=["jsonl", "jsonl.gz"])
def test_harness_files_uploaded_together_are_one_paired_dataset(run_page: RunPage, gz: bool) -> None:
    at = run_page(PAGE)
    names = ["samples_arc_2024-05-01T10-00-00.jsonl", "samples_arc_2024-05-02T10-00-00.jsonl"]
    data = [_lm_eval([1, 0, 1, 0]), _lm_eval([1, 1, 1, 0])]
    if gz:
        names, data = [n + ".gz" for n in names], [gzip.compress(d) for d in data]
    at.file_uploader(key="dat_harness").set_value(
        [(n, d, "application/octet-stream") for n, d in zip(names, data, strict=True)]
    )
    at = _ok(at.run())
    assert any("lm-evaluation-harness files: 2 configs" in plain(x.value) for x in at.success), [
        x.value for x in at.success
    ]
    at = _ok(at.button(key="dat_harness_save").click().run())
    assert not error_texts(at), error_texts(at)
    meta, frame = store.get(at.query_params["eval"])
    sums = frame.groupby("config", sort=False)["correct"].sum().tolist()
    assert sums == [2, 3] and frame["case"].nunique() == 4
    assert meta.name == f"{', '.join(names)} (lm-evaluation-harness)"  # named by its configs: one evaluation
    links = [x.proto.label for x in at.get("page_link")]
    assert {"Open Compare", "Open Sampling", "Open Cost & latency", "Open Planner"} <= set(links)  # one click each


def test_deleting_is_off_unless_the_server_allows_it(run_page: RunPage) -> None:
    store.put(RATINGS, "ratings", "rated.csv")
    at = _ok(run_page(PAGE))
    assert "dat_delete" not in [b.key for b in at.button]
    assert "NKP_ALLOW_DELETE=1" in _texts(at)


def test_rename_keeps_the_id_and_a_link_to_a_deleted_dataset_says_when(
    run_page: RunPage, monkeypatch: pytest.MonkeyPatch
) -> None:
    rid = store.put(RATINGS, "ratings", "rated.csv").id
    at = _ok(run_page(PAGE, query={"ratings": rid}))
    at.selectbox(key="_dat_rename_choice").set_value(rid)
    at = _ok(at.text_input(key="_dat_rename_name").input("pilot ratings").run())
    at = _ok(at.button(key="dat_rename").click().run())
    assert store.get(rid)[0].name == "pilot ratings" and at.query_params["ratings"] == rid
    assert "Renamed dataset" in _texts(at) and "pilot ratings" in _texts(at)
    monkeypatch.setenv("NKP_ALLOW_DELETE", "1")
    store.delete(rid)
    when = store.deleted_at(rid)
    assert when is not None
    at = _ok(run_page(PAGE, query={"ratings": rid}))
    warning = " ".join(plain(w.value) for w in at.warning)
    assert "was deleted from the dataset store on " + when[:10] in warning


def test_predictions_partly_outside_the_stored_ratings_can_still_be_stored(run_page: RunPage) -> None:
    store.put(RATINGS, "ratings", "rated.csv")
    extra = pd.DataFrame({"item": ["9"], "model": ["big"], "model_run": ["big_s0"], "pred_label": ["x"]})
    at = _ok(_upload(run_page(PAGE), "preds.csv", _csv(pd.concat([PREDICTIONS, extra]))))
    warning = " ".join(plain(w.value) for w in at.warning)
    assert "Checked against the stored ratings rated.csv" in warning and "'9'" in warning
    assert "dat_save" in [b.key for b in at.button] and not error_texts(at)


def test_derive_from_stored_predictions_without_an_upload(run_page: RunPage) -> None:
    rid = store.put(RATINGS, "ratings", "rated.csv").id
    canonical = PREDICTIONS.drop(columns="model").rename(columns={"model_run": "model"})
    pid = store.put(canonical, "predictions", "preds.csv").id
    at = _ok(run_page(PAGE))
    at = _ok(at.selectbox(key="_dat_der_src").set_value(pid).run())
    at = _ok(at.button(key="dat_derive_stored").click().run())
    assert not error_texts(at), error_texts(at)
    meta, frame = store.get(at.query_params["eval"])
    assert meta.derived_from == (pid, rid)
    assert frame.groupby("config")["correct"].sum().to_dict() == {
        "big_s0": 4,
        "big_s1": 3,
        "small_s0": 2,
        "small_s1": 2,
    }
