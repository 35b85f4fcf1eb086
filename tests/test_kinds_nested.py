"""nkcore.kinds: ratings nested per item made flat, label counts detected by detect_kind, subsets, item keys,
duplicates and the refusals that say what a file is and what to do."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nkcore.errors import DataError
from nkcore.io import read_table
from nkcore.kinds import (
    KEY_COLUMN,
    apply_mapping,
    detect_kind,
    duplicates,
    duplicates_advice,
    flatten_nested,
    parse_item_key,
    parse_subset,
    with_key,
)
from nkcore.ratings import ratings_from_counts, ratings_from_frame

# Three items as LeWiDi 2023 writes them (comma-separated raters and labels in the same order) ...
LEWIDI_2023 = {
    "1": {"text": "t1", "annotators": "Ann1,Ann2,Ann3", "annotations": "1,0,0", "split": "dev", "lang": "en"},
    "2": {"text": "t2", "annotators": "Ann1,Ann3", "annotations": "1,1", "split": "dev", "lang": "en"},
    "5": {"text": "t5", "annotators": "Ann2,Ann3,Ann4", "annotations": "0,0,1", "split": "dev", "lang": "en"},
}
# ... and as LeWiDi 2025 does (an object rater -> label)
LEWIDI_2025 = {
    key: {**rec, "annotations": dict(zip(rec["annotators"].split(","), rec["annotations"].split(","), strict=True))}
    for key, rec in LEWIDI_2023.items()
}
LONG = pd.DataFrame(  # the oracle: the same ratings written out by hand, one row per rating
    {
        "item": ["1", "1", "1", "2", "2", "5", "5", "5"],
        "rater": ["Ann1", "Ann2", "Ann3", "Ann1", "Ann3", "Ann2", "Ann3", "Ann4"],
        "label": ["1", "0", "0", "1", "1", "0", "0", "1"],
    }
)


@pytest.mark.parametrize("doc", [LEWIDI_2023, LEWIDI_2025], ids=["text lists", "rater objects"])
def test_rater_lists_are_one_row_per_rating(doc: dict[str, dict[str, object]]) -> None:
    frame = read_table(json.dumps(doc, indent=4).encode(), "MD-Agreement_dev.json")
    flat = flatten_nested(frame, "MD-Agreement_dev.json")
    assert flat is not None and flat.layout == "rows"
    assert "one record per item with its raters' labels" in flat.reason and "8 ratings of 3 items" in flat.reason
    pd.testing.assert_frame_equal(flat.frame[["item", "rater", "label"]], LONG)
    assert flat.frame["split"].tolist() == ["dev"] * 8  # subset-like columns kept, the text is not
    assert "text" not in flat.frame.columns
    guess = detect_kind(flat.frame)
    assert (guess.kind, guess.missing) == ("ratings", ())
    got = ratings_from_frame(apply_mapping(flat.frame, "ratings", guess.mapping))
    want = ratings_from_frame(LONG)
    assert (got.items, got.labels, got.n_raters) == (want.items, want.labels, 4)
    np.testing.assert_array_equal(got.counts, want.counts)


def test_rater_and_label_lists_of_different_lengths_name_the_item_and_row() -> None:
    frame = pd.DataFrame({"key": ["a", "b"], "annotators": ["A,B", "A,B,C"], "annotations": ["1,0", "1,0"]})
    with pytest.raises(
        DataError, match=r"x\.json: item 'b' \(data row 2\) lists 3 raters in 'annotators' but 2 labels"
    ):
        flatten_nested(frame, "x.json")


def test_label_counters_are_label_counts() -> None:
    """ChaosNLI's JSON Lines: ``label_counter`` per item; the counts equal a hand tally."""
    rows = [
        {"uid": "u1", "label_counter": {"n": 70, "e": 30}, "majority_label": "n", "label_count": [30, 70, 0]},
        {"uid": "u2", "label_counter": {"c": 99, "e": 1}, "majority_label": "c", "label_count": [1, 0, 99]},
        {"uid": "u3", "label_counter": {"e": 50, "n": 25, "c": 25}, "majority_label": "e", "label_count": [50, 25, 25]},
    ]
    frame = read_table(b"".join(json.dumps(r).encode() + b"\n" for r in rows), "chaosNLI_snli.jsonl")
    flat = flatten_nested(frame)
    assert flat is not None and flat.layout == "counts" and "label_counter" in flat.reason
    guess = detect_kind(flat.frame)
    assert (guess.kind, guess.layout) == ("ratings", "counts")
    r = ratings_from_counts(apply_mapping(flat.frame, "ratings", guess.mapping))
    assert r.items == ("u1", "u2", "u3") and r.labels == ("c", "e", "n")
    tally = [[row["label_counter"].get(lab, 0) for lab in r.labels] for row in rows]  # type: ignore[attr-defined]
    assert r.counts.tolist() == tally and r.n_ratings == 300 and r.from_counts


@pytest.mark.parametrize("bad", [-1, 2.5, "x"])
def test_a_label_counter_with_a_bad_count_is_refused_naming_the_row(bad: object) -> None:
    good = [{"x": 1, "y": 2}] * 60
    frame = pd.DataFrame({"uid": [f"u{i}" for i in range(61)], "label_counter": [*good, {"x": 1, "y": bad}]})
    with pytest.raises(DataError, match=r"column 'label_counter' must hold whole counts >= 0 per label; data row 61"):
        flatten_nested(frame)
    early = pd.DataFrame({"uid": ["a", "b"], "label_counter": [{"x": 1, "y": 2}, {"x": 1, "y": bad}]})
    assert flatten_nested(early) is None  # not counts from the first rows on: not read as a label counter


def test_graded_score_lists_without_raters_are_refused_with_what_to_do() -> None:
    """Pavlick & Kwiatkowski: ~40 slider positions in [-50, 50] per item, no rater ids."""
    rng = np.random.default_rng(0)
    rows = [{"id": f"i{i}", "task": "snli", "labels": list(rng.uniform(-50, 50, 40))} for i in range(5)]
    frame = read_table(b"".join(json.dumps(r).encode() + b"\n" for r in rows), "preprocessed-data.jsonl")
    with pytest.raises(DataError) as err:
        flatten_nested(frame, "preprocessed-data.jsonl")
    message = str(err.value)
    assert "'labels' holds graded scores (200 distinct numbers" in message and "no rater ids" in message
    assert "Bin the scores" in message and "upload" in message


def test_categorical_label_lists_without_raters_are_anonymous_label_counts() -> None:
    lists = [["pos", "pos", "neg"], ["neg"], ["pos", "neu", "neu", "pos"]]
    frame = pd.DataFrame({"item_id": ["a", "b", "c"], "labels": lists})
    flat = flatten_nested(frame)
    assert flat is not None and flat.layout == "counts" and "anonymous" in flat.reason
    r = ratings_from_counts(flat.frame)
    assert r.counts.tolist() == [[Counter(x)[lab] for lab in r.labels] for x in lists]


def test_flat_tables_are_left_alone() -> None:
    assert flatten_nested(LONG) is None
    assert flatten_nested(pd.DataFrame({"uid": ["a", "b"], "count_x": [1, 2], "count_y": [0, 1]})) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.sampled_from("ABCDE"), st.sampled_from(["x", "y", "z"])), min_size=1, max_size=5),
        min_size=2,
        max_size=8,
    )
)
def test_flattened_rater_lists_count_what_the_lists_hold(items: list[list[tuple[str, str]]]) -> None:
    """Per item, the flattened ratings' labels are the multiset of the item's list (brute-force oracle)."""
    frame = pd.DataFrame(
        {
            "key": [f"k{i}" for i in range(len(items))],
            "annotators": [[r for r, _ in pairs] for pairs in items],
            "annotations": [[lab for _, lab in pairs] for pairs in items],
        }
    )
    flat = flatten_nested(frame)
    assert flat is not None
    for i, pairs in enumerate(items):
        got = flat.frame.loc[flat.frame["item"] == f"k{i}", ["rater", "label"]]
        assert sorted(map(tuple, got.to_numpy().tolist())) == sorted(pairs)


def test_detect_kind_returns_the_counts_layout_itself() -> None:
    counts = pd.DataFrame({"image_id": [1, 2, 3], "count_cat": [5, 0, 2], "count_dog": [0, 5, 3]})
    for kind in (None, "ratings"):
        guess = detect_kind(counts, kind)
        assert (guess.kind, guess.layout, guess.missing) == ("ratings", "counts", ())
        assert guess.mapping == {"item": "image_id", "count_cat": "count_cat", "count_dog": "count_dog"}
    # a count column empty in every row (another subset's label) is left out of the mapping
    one = counts.assign(count_bird=[None, None, None])
    assert "count_bird" not in detect_kind(one).mapping
    # a file that fits a kind completely keeps it, count_* columns or not
    per_rating = LONG.assign(count_x=[1] * 8)
    assert detect_kind(per_rating).layout == "long" and detect_kind(per_rating).kind == "ratings"


def test_a_table_of_rater_attributes_says_what_it_is() -> None:
    frame = pd.DataFrame({"key": ["0", "1"], "Age": [19.0, 34.0], "Gender": ["F", "M"], "Nationality": ["US", "UK"]})
    guess = detect_kind(frame)
    assert guess.confidence == 0 and guess.missing
    assert "raters' attributes (Age, Gender, Nationality)" in guess.reason and "Upload the ratings file" in guess.reason


def test_graded_scores_in_a_flat_file_without_raters_are_refused_with_what_to_do() -> None:
    frame = pd.DataFrame({"item_id": ["a"] * 30 + ["b"] * 30, "rating": np.linspace(-50, 50, 60)})
    guess = detect_kind(frame, "ratings")
    with pytest.raises(DataError, match=r"column 'rating' holds graded scores \(60 distinct numbers from -50 to 50\)"):
        apply_mapping(frame, "ratings", guess.mapping)
    whole = frame.assign(rating=np.tile([1, 2, 3], 20))  # whole numbers: the usual missing-rater refusal
    with pytest.raises(DataError, match="missing column for rater"):
        apply_mapping(whole, "ratings", detect_kind(whole, "ratings").mapping)


MIXED = pd.DataFrame(
    {
        "dataset": ["ArMIS", "ArMIS", "HS-Brexit", "HS-Brexit"],
        "split": ["test"] * 4,
        "item_id": ["test_1", "test_2", "test_1", "test_2"],
        "rater": ["A"] * 4,
    }
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("dataset=HS-Brexit", ("dataset", "HS-Brexit")),
        ("ArMIS", ("dataset", "ArMIS")),
        ("split=test", ("split", "test")),
    ],
)
def test_subset_flags(text: str, expected: tuple[str, str]) -> None:
    assert parse_subset(text, MIXED) == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("model=x", "the file has no column 'model'"),
        ("dataset=MD", "column 'dataset' has no value 'MD'; its values are ArMIS, HS-Brexit"),
        ("snli", "no subset column holds that value (dataset: ArMIS, HS-Brexit)"),
        ("=x", "--subset takes COLUMN=VALUE"),
    ],
)
def test_subset_flags_that_do_not_fit_say_why(text: str, words: str) -> None:
    with pytest.raises(DataError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_subset(text, MIXED)


def test_item_key_and_the_duplicate_advice_name_the_flags() -> None:
    table = MIXED.rename(columns={"item_id": "item"})
    dup = duplicates(table, ("item", "rater"))
    assert dup is not None and (dup.n_rows, dup.n_pairs, dup.rows) == (2, 2, (0, 1, 2, 3))
    advice = duplicates_advice(dup, MIXED, "item_id")
    assert advice.startswith("duplicate ratings: 2 rows repeat an (item, rater) pair (2 pairs repeated; data rows 1")
    assert "column 'dataset' (ArMIS, HS-Brexit)" in advice
    assert "--subset dataset=ArMIS" in advice and "--item-key dataset,item_id" in advice and "--keep first" in advice
    keyed = with_key(MIXED, parse_item_key("dataset,item_id"))
    assert keyed[KEY_COLUMN].tolist() == [
        "ArMIS / test_1",
        "ArMIS / test_2",
        "HS-Brexit / test_1",
        "HS-Brexit / test_2",
    ]
    assert duplicates(keyed.assign(item=keyed[KEY_COLUMN]), ("item", "rater")) is None
    with pytest.raises(DataError, match="--item-key takes two or more different columns"):
        parse_item_key("dataset")
    with pytest.raises(DataError, match="no column 'nope' for the item key"):
        with_key(MIXED, ["dataset", "nope"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-1000, 1000).map(str),
            st.floats(-1e6, 1e6, allow_nan=False).map(str),
            st.text(alphabet="ab19 .-", max_size=6),
            st.sampled_from(["nan", "inf", "item10", "item9", "Item2", " 5", "1_000", "\u0661", "+5", "1e400"]),
        ),
        max_size=30,
    )
)
def test_natural_argsort_orders_as_natural_order(values: list[str]) -> None:
    """The vectorised argsort puts values in exactly natural_order's order (the sorted() rule is the oracle)."""
    from nkcore.kinds.values import natural_argsort, natural_order

    assert [values[i] for i in natural_argsort(values)] == natural_order(values)
    text = pd.Series(values, dtype="str")  # the Series path (one cast) orders the same
    assert [values[i] for i in natural_argsort(text)] == natural_order(values)
