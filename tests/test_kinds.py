"""nkcore.kinds: detecting the kind and column roles of a table; applying (and refusing) a column mapping."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nkcore.errors import DataError
from nkcore.kinds import (
    KINDS,
    MAX_ANSWER_CHARS,
    MAX_LABEL_CHARS,
    apply_mapping,
    detect_counts,
    detect_kind,
    format_rows,
    natural_order,
    show_names,
    show_value,
    to_text,
)


@pytest.mark.parametrize(
    ("columns", "kind", "mapping"),
    [
        (["item", "rater", "label"], "ratings", {"item": "item", "rater": "rater", "label": "label"}),
        (
            ["item_id", "annotator_id", "label"],
            "ratings",
            {"item": "item_id", "rater": "annotator_id", "label": "label"},
        ),
        (["Item ID", "Worker", "Rating"], "ratings", {"item": "Item ID", "rater": "Worker", "label": "Rating"}),
        (
            ["_unit_id", "_worker_id", "response"],
            "ratings",
            {"item": "_unit_id", "rater": "_worker_id", "label": "response"},
        ),
        (
            ["question_id", "model_name", "is_correct"],
            "paired",
            {"case": "question_id", "config": "model_name", "correct": "is_correct"},
        ),
        (["case", "config", "correct"], "paired", {"case": "case", "config": "config", "correct": "correct"}),
        (
            ["prompt_id", "sample_index", "model_answer", "gold_answer", "latency"],
            "samples",
            {
                "case": "prompt_id",
                "sample": "sample_index",
                "answer": "model_answer",
                "gold": "gold_answer",
                "latency_s": "latency",
            },
        ),
        (
            ["case", "sample", "answer", "correct"],
            "samples",
            {"case": "case", "sample": "sample", "answer": "answer", "correct": "correct"},
        ),
    ],
)
def test_detects_kind_and_synonyms(columns: list[str], kind: str, mapping: dict[str, str]) -> None:
    values = {
        "is_correct": [1, 0, 1],
        "correct": [1, 0, 1],
        "latency": [1.2, 0.4, 3.0],
        "sample_index": [0, 1, 2],
        "sample": [0, 1, 2],
    }
    frame = pd.DataFrame({c: values.get(c, ["a", "b", "c"]) for c in columns})
    guess = detect_kind(frame)
    assert guess.kind == kind
    assert guess.mapping == mapping
    assert not guess.missing and guess.confidence > 0.8
    assert guess.reason.startswith(kind)


def test_predictions_with_probability_columns() -> None:
    frame = pd.DataFrame(
        {"item_id": [1, 2], "model": ["m", "m"], "prediction": ["x", "y"], "p_x": [0.9, 0.2], "p_y": [0.1, 0.8]}
    )
    guess = detect_kind(frame)
    assert guess.kind == "predictions"
    assert guess.mapping == {
        "item": "item_id",
        "model": "model",
        "pred_label": "prediction",
        "p_x": "p_x",
        "p_y": "p_y",
    }
    only_probs = detect_kind(frame.drop(columns="prediction").rename(columns={"p_x": "prob_x", "p_y": "prob_y"}))
    assert only_probs.kind == "predictions" and only_probs.mapping["p_x"] == "prob_x"


def test_wide_paired_layout() -> None:
    frame = pd.DataFrame({"case": ["q1", "q2", "q3"], "n=1": [1, 0, 1], "n=3": [1, 1, 1], "n=5": [True, True, False]})
    guess = detect_kind(frame)
    assert (guess.kind, guess.layout) == ("paired", "wide")
    assert guess.mapping == {"case": "case", "n=1": "n=1", "n=3": "n=3", "n=5": "n=5"}
    table = apply_mapping(frame, "paired", guess.mapping)
    assert table.columns.tolist() == ["case", "n=1", "n=3", "n=5"]
    assert table["n=5"].tolist() == [1, 1, 0]


def test_correct_column_must_be_binary_to_be_detected() -> None:
    frame = pd.DataFrame({"case": ["a", "b"], "config": ["x", "y"], "correct": [0.5, 2.0]})
    guess = detect_kind(frame, "paired")
    assert "correct" in guess.missing


def test_unrecognisable_table_is_a_low_confidence_guess_with_missing_roles() -> None:
    guess = detect_kind(pd.DataFrame({"foo": [1], "bar": [2]}))
    assert guess.kind in KINDS and guess.missing and guess.confidence <= 0.3


def test_forced_kind_and_unknown_kind() -> None:
    frame = pd.DataFrame({"item": [1], "rater": [2], "label": [3]})
    assert detect_kind(frame, "predictions").missing
    with pytest.raises(DataError, match="unknown data kind 'votes'"):
        detect_kind(frame, "votes")


# --- apply_mapping -----------------------------------------------------------------------------------------


RAW = pd.DataFrame({"item_id": [1.0, 2.0, np.nan], "who": ["a ", "b", "c"], "lab": [1, 2, 3], "extra": [0, 0, 0]})


def test_apply_mapping_renames_keeps_only_mapped_and_normalises_ids() -> None:
    out = apply_mapping(RAW, "ratings", {"item": "item_id", "rater": "who", "label": "lab"})
    assert out.columns.tolist() == ["item", "rater", "label"]
    assert out["item"].tolist()[:2] == ["1", "2"] and pd.isna(out["item"].iloc[2])
    assert out["rater"].tolist() == ["a", "b", "c"]
    assert out["label"].tolist() == ["1", "2", "3"]


@pytest.mark.parametrize(
    ("mapping", "words"),
    [
        ({"item": "item_id", "rater": "who"}, ["missing column for label"]),
        (
            {"item": "item_id", "rater": "nope", "label": "lab"},
            ["'nope'", "rater", "not in the file", "'item_id', 'who', 'lab'"],
        ),
        ({"item": "item_id", "rater": "who", "label": "who"}, ["'who'", "more than one role"]),
        (
            {"item": "item_id", "rater": "who", "label": "lab", "colour": "extra"},
            ["'colour'", "not a column of ratings"],
        ),
    ],
)
def test_apply_mapping_errors_name_the_columns(mapping: dict[str, str], words: list[str]) -> None:
    with pytest.raises(DataError) as err:
        apply_mapping(RAW, "ratings", mapping)
    for w in words:
        assert w in str(err.value)


def test_apply_mapping_kind_specific_requirements() -> None:
    samples = pd.DataFrame({"case": [1], "sample": [0], "answer": ["4"]})
    with pytest.raises(DataError, match=r"gold .* or a correct"):
        apply_mapping(samples, "samples", {"case": "case", "sample": "sample", "answer": "answer"})
    preds = pd.DataFrame({"item": [1], "model": ["m"]})
    with pytest.raises(DataError, match="pred_label column and/or one probability column"):
        apply_mapping(preds, "predictions", {"item": "item", "model": "model"})
    wide = pd.DataFrame({"case": [1], "a": [1]})
    with pytest.raises(DataError, match="at least two 0/1 columns"):
        apply_mapping(wide, "paired", {"case": "case", "a": "a"})


def test_correct_values_are_coerced_or_rejected_with_rows() -> None:
    frame = pd.DataFrame({"case": [1, 2, 3, 4], "config": list("abab"), "ok": ["TRUE", "no", "1", "yes"]})
    out = apply_mapping(frame, "paired", {"case": "case", "config": "config", "correct": "ok"})
    assert out["correct"].tolist() == [1, 0, 1, 1]
    bad = frame.assign(ok=[1, 0, 2, np.nan])
    with pytest.raises(DataError, match=r"must be 0 or 1, but data rows 3, 4 hold 2.0, nan"):
        apply_mapping(bad, "paired", {"case": "case", "config": "config", "correct": "ok"})


def test_latency_and_probabilities_must_be_numbers() -> None:
    frame = pd.DataFrame(
        {"case": [1, 1], "sample": [0, 1], "answer": ["a", "b"], "gold": ["a", "a"], "lat": [1.0, -2.0]}
    )
    m = {"case": "case", "sample": "sample", "answer": "answer", "gold": "gold", "latency_s": "lat"}
    with pytest.raises(DataError, match="must not be negative; negative values at data row 2"):
        apply_mapping(frame, "samples", m)
    with pytest.raises(DataError, match="must hold numbers, but data row 1 holds 'fast'"):
        apply_mapping(frame.assign(lat=["fast", "1.0"]), "samples", m)
    preds = pd.DataFrame({"item": [1], "model": ["m"], "p_x": ["high"]})
    with pytest.raises(DataError, match="p_x"):
        apply_mapping(preds, "predictions", {"item": "item", "model": "model", "p_x": "p_x"})


# --- helpers -----------------------------------------------------------------------------------------------


def test_natural_order_and_format_rows() -> None:
    assert natural_order(["-3", "1", "0", "-1", "10", "2"]) == ["-3", "-1", "0", "1", "2", "10"]
    assert natural_order(["x10", "x2", "a"]) == ["a", "x2", "x10"]
    assert format_rows([2]) == "data row 3"
    assert format_rows(list(range(20)), limit=3) == "data rows 1, 2, 3 and 17 more"


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=30, unique=True))
def test_natural_order_sorts_numbers_by_value(values: list[int]) -> None:
    assert natural_order([str(v) for v in values]) == [str(v) for v in sorted(values)]


def test_to_text_keeps_missing_and_drops_float_noise() -> None:
    out = to_text(pd.Series([1.0, 2.5, np.nan, 3.0]))
    assert out.tolist()[:2] == ["1", "2.5"] and pd.isna(out.iloc[2]) and out.iloc[3] == "3"
    assert to_text(pd.Series([True, False])).tolist() == ["true", "false"]
    assert to_text(pd.Series([" a", "b "])).tolist() == ["a", "b"]


def test_no_kind_fits_says_what_each_kind_needs() -> None:
    guess = detect_kind(pd.DataFrame({"foo": [1], "bar": [2]}))
    assert "none of the columns (foo, bar)" in guess.reason
    for words in ("item, rater, label", "case, config, correct", "case, sample, answer"):
        assert words in guess.reason


def test_enormous_ids_labels_and_answers_are_refused_with_their_rows() -> None:
    frame = pd.DataFrame({"item": ["1", "2", "3"], "rater": ["a", "b", "a"], "label": ["x", "y" * 5_000, "x"]})
    with pytest.raises(DataError) as err:
        apply_mapping(frame, "ratings", {"item": "item", "rater": "rater", "label": "label"})
    msg = str(err.value)
    assert "'label' (label (the rating given)) holds a value of 5,000 characters in data row 2" in msg
    assert f"at most {MAX_LABEL_CHARS:,}" in msg and "closing quote" in msg and len(msg) < 400
    ok = frame.assign(label=["x", "y" * MAX_LABEL_CHARS, "x"])
    assert apply_mapping(ok, "ratings", {"item": "item", "rater": "rater", "label": "label"}).shape == (3, 3)
    samples = pd.DataFrame({"case": [1, 1], "sample": [0, 1], "answer": ["a" * 5_000, "b"], "gold": ["b", "b"]})
    m = {"case": "case", "sample": "sample", "answer": "answer", "gold": "gold"}
    assert apply_mapping(samples, "samples", m)["answer"].str.len().tolist() == [5_000, 1]  # long answers are fine
    with pytest.raises(DataError, match=f"at most {MAX_ANSWER_CHARS:,} characters"):
        apply_mapping(samples.assign(gold=["b", "g" * (MAX_ANSWER_CHARS + 1)]), "samples", m)


def test_messages_show_cut_values() -> None:
    assert show_value("x" * 100, limit=10) == "'xxxxxxxxx… (100 characters)"
    assert show_value(np.float64(2.5)) == "2.5" and show_value("ok") == "'ok'"
    frame = pd.DataFrame({"case": [1, 2], "config": ["a", "b"], "ok": ["z" * 10_000, "1"]})
    with pytest.raises(DataError) as err:
        apply_mapping(frame, "paired", {"case": "case", "config": "config", "correct": "ok"})
    assert "data row 1 holds 'zzz" in str(err.value) and "(10,000 characters)" in str(err.value)
    assert len(str(err.value)) < 300


# Column names a JSONL file can carry: every character str.splitlines() breaks at, and a comma inside a name.
ODD_NAMES = ["it\nem", "rat\rer", "a\x0bb", "c\x1ed", "e\u2028f", "g, h"]


@pytest.mark.parametrize("kind", ["ratings", "samples", "paired", "predictions"])
def test_missing_column_messages_quote_the_files_columns_on_one_line(kind: str) -> None:
    """The columns listed in a refusal are quoted with their escapes (repr), so each name reads as one name and the
    message is one line (str.splitlines as the oracle)."""
    frame = pd.DataFrame({name: [1, 2] for name in ODD_NAMES})
    with pytest.raises(DataError) as err:
        apply_mapping(frame, kind, {})
    message = str(err.value)
    assert message.splitlines() == [message]
    assert f"columns are: {show_names(ODD_NAMES)}" in message
    assert show_names(ODD_NAMES) == ", ".join(repr(name) for name in ODD_NAMES)


def test_show_names_cuts_long_lists_and_long_names() -> None:
    names = [f"c{i}" for i in range(25)] + ["x" * 100]
    shown = show_names(names)
    assert shown == ", ".join(repr(f"c{i}") for i in range(20)) + ", ... (26 in all)"
    assert show_names(["x" * 100], limit=1) == show_value("x" * 100)
    assert show_names([]) == ""


def test_label_counts_are_ratings_with_a_counts_layout_and_map_to_item_plus_counts() -> None:
    frame = pd.DataFrame(
        {"uid": ["a", "b", "c"], "count_e": [3, 0, None], "count_n": [1, 4, 2], "n_annotations": [4, 4, 2]}
    )
    guess = detect_counts(frame)
    assert guess is not None and (guess.kind, guess.layout, guess.missing) == ("ratings", "counts", ())
    assert guess.mapping == {"item": "uid", "count_e": "count_e", "count_n": "count_n"}
    table = apply_mapping(frame, "ratings", guess.mapping)
    assert list(table.columns) == ["item", "count_e", "count_n"]
    assert table["count_e"].tolist() == [3, 0, 0] and str(table["count_e"].dtype) == "int64"  # empty = 0 ratings
    assert detect_counts(pd.DataFrame({"item": [1], "rater": ["a"], "label": ["x"]})) is None


@pytest.mark.parametrize(
    ("mapping", "words"),
    [
        ({"item": "uid", "count_e": "count_e"}, "at least 2 count_<label> columns"),
        ({"item": "uid", "rater": "count_n", "count_e": "count_e", "count_x": "n_annotations"}, "not both"),
    ],
)
def test_bad_count_mappings_are_refused(mapping: dict[str, str], words: str) -> None:
    frame = pd.DataFrame({"uid": ["a", "b"], "count_e": [3, 0], "count_n": [1, 4], "n_annotations": [4, 4]})
    with pytest.raises(DataError, match=words):
        apply_mapping(frame, "ratings", mapping)


def test_a_count_that_is_not_a_whole_number_names_its_row() -> None:
    frame = pd.DataFrame({"uid": ["a", "b"], "count_e": [3, 1.5], "count_n": [1, 4]})
    with pytest.raises(DataError, match="data row 2"):
        apply_mapping(frame, "ratings", {"item": "uid", "count_e": "count_e", "count_n": "count_n"})


def test_predictions_model_is_the_column_that_makes_item_and_model_unique() -> None:
    # ChaosNLI's layout: model repeats across seeds, model_run tells the runs apart
    frame = pd.DataFrame(
        {
            "uid": [1, 2] * 4,
            "model": ["roberta"] * 4 + ["bert"] * 4,
            "model_run": ["roberta_s0"] * 2 + ["roberta_s1"] * 2 + ["bert_s0"] * 2 + ["bert_s1"] * 2,
            "seed": [0, 0, 1, 1] * 2,
            "pred_label": list("abab" * 2),
        }
    )
    guess = detect_kind(frame)
    assert (guess.kind, guess.mapping["model"]) == ("predictions", "model_run")
    assert not apply_mapping(frame, "predictions", guess.mapping)[["item", "model"]].duplicated().any()
    # a column that separates datasets, not runs, is never taken for the model
    lewidi = pd.DataFrame({"dataset": ["A", "B"], "item_id": [1, 1], "model": ["m", "m"], "pred_label": ["x", "y"]})
    assert detect_kind(lewidi, "predictions").mapping["model"] == "model"
    # unique already: unchanged
    assert detect_kind(frame[frame["model_run"].isin(["roberta_s0", "bert_s0"])]).mapping["model"] == "model"


def test_the_package_names_are_their_modules_objects_whatever_was_imported_first() -> None:
    """``nkcore.kinds`` imports each name on first use (PEP 562): with every submodule imported first, each name of
    ``__all__`` is still the object of its home module (a submodule named like a package name would shadow it)."""
    import importlib
    import pkgutil

    import nkcore.kinds as kinds

    for mod in pkgutil.iter_modules(kinds.__path__):
        importlib.import_module(f"nkcore.kinds.{mod.name}")
    for name in kinds.__all__:
        home = importlib.import_module(kinds._HOMES[name])
        assert getattr(kinds, name) is getattr(home, name), name
    assert callable(kinds.duplicates) and not isinstance(kinds.duplicates, type(kinds))
