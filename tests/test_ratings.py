"""nkcore.ratings: Ratings / Predictions from tables, against brute-force counting, and every bad input."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nkcore.errors import DataError
from nkcore.ratings import Predictions, Ratings, predictions_from_frame, ratings_from_frame

RATINGS = pd.DataFrame(
    {
        "item": ["i2", "i2", "i10", "i10", "i10", "i1"],
        "rater": ["a", "b", "a", "b", "c", "a"],
        "label": ["2", "10", "10", "10", "1", "1"],
    }
)


def test_counts_items_labels_in_natural_order() -> None:
    r = ratings_from_frame(RATINGS)
    assert isinstance(r, Ratings)
    assert r.items == ("i1", "i2", "i10")
    assert r.labels == ("1", "2", "10")  # numeric labels by value, not "1" < "10" < "2"
    assert r.counts.dtype == np.int64
    assert r.counts.tolist() == [[1, 0, 0], [0, 1, 1], [1, 0, 2]]
    assert (r.n_ratings, r.n_raters) == (6, 3)
    assert r.ratings_per_item.tolist() == [1, 2, 3]


ids = st.sampled_from([f"u{i}" for i in range(6)])
labels = st.sampled_from(["neg", "pos", "neutral", "7"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ids, st.integers(0, 9), labels), min_size=2, max_size=60, unique_by=lambda t: (t[0], t[1])))
def test_counts_match_brute_force_and_ignore_row_order(rows: list[tuple[str, int, str]]) -> None:
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    if frame["item"].nunique() < 2 or frame["label"].nunique() < 2:
        with pytest.raises(DataError):
            ratings_from_frame(frame)
        return
    r = ratings_from_frame(frame)
    expected = Counter((i, lab) for i, _, lab in rows)
    for a, item in enumerate(r.items):
        for b, lab in enumerate(r.labels):
            assert r.counts[a, b] == expected[(item, lab)]
    assert r.n_ratings == len(rows) == r.counts.sum()
    assert r.n_raters == len({t[1] for t in rows})
    shuffled = ratings_from_frame(frame.sample(frac=1.0, random_state=1))
    assert shuffled.items == r.items and np.array_equal(shuffled.counts, r.counts)


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (RATINGS.assign(label=["2", np.nan, "10", " ", "1", "1"]), ["missing or blank label", "rows 2, 4"]),
        (RATINGS.assign(item=["i2", None, "i10", "i10", "i10", "i1"]), ["missing or blank item id", "row 2"]),
        (RATINGS.assign(rater=["a", "a", "a", "b", "c", "a"]), ["duplicate ratings", "'a'", "'i2'", "rows 1, 2"]),
        (RATINGS.assign(item="only", rater=list("abcdef")), ["only one item", "'only'", "at least 2 items"]),
        (RATINGS.assign(label="yes"), ["only one label class", "'yes'"]),
        (RATINGS.drop(columns="rater"), ["missing: rater"]),
        (RATINGS.iloc[:0], ["no rows"]),
    ],
)
def test_bad_ratings(frame: pd.DataFrame, words: list[str]) -> None:
    with pytest.raises(DataError) as err:
        ratings_from_frame(frame)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_numeric_float_labels_are_the_same_labels_as_ints() -> None:
    r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2], "rater": [1, 2, 1], "label": [1.0, 2.0, 1.0]}))
    assert r.labels == ("1", "2") and r.items == ("1", "2")


# --- predictions -------------------------------------------------------------------------------------------


@pytest.fixture
def ratings() -> Ratings:
    return ratings_from_frame(RATINGS)


def test_predictions_align_with_ratings(ratings: Ratings) -> None:
    frame = pd.DataFrame(
        {
            "item": ["i10", "i1", "i10"],
            "model": ["big", "big", "small"],
            "pred_label": ["10", "1", "2"],
            "p_1": [0.1, 0.7, 0.2],
            "p_2": [0.2, 0.2, 0.5],
            "p_10": [0.7, 0.1, 0.3],
        }
    )
    p = predictions_from_frame(frame, ratings)
    assert isinstance(p, Predictions)
    assert p.models == ("big", "small") and p.labels == ratings.labels and p.items == ratings.items
    # items (i1, i2, i10); labels (1, 2, 10)
    assert p.hard.tolist() == [[0, -1, 2], [-1, -1, 1]]
    assert p.probs is not None and p.probs.shape == (2, 3, 3)
    assert p.probs[0, 2].tolist() == [0.1, 0.2, 0.7]
    assert np.isnan(p.probs[1, 0]).all()


def test_hard_label_from_probabilities_when_no_pred_label(ratings: Ratings) -> None:
    frame = pd.DataFrame(
        {"item": ["i1", "i2"], "model": ["m", "m"], "p_1": [0.2, 0.5], "p_2": [0.3, 0.5], "p_10": [0.5, 0.0]}
    )
    p = predictions_from_frame(frame, ratings)
    assert p.hard.tolist() == [[2, 0, -1]]  # argmax; a tie goes to the first label


def test_predictions_without_probabilities(ratings: Ratings) -> None:
    p = predictions_from_frame(pd.DataFrame({"item": ["i1"], "model": ["m"], "pred_label": [1]}), ratings)
    assert p.probs is None and p.hard.tolist() == [[0, -1, -1]]


BASE = pd.DataFrame({"item": ["i1", "i2"], "model": ["m", "m"], "pred_label": ["1", "2"]})


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (BASE.assign(pred_label=["1", "cat"]), ["never use", "'cat'", "row 2", "1, 2, 10"]),
        (BASE.assign(item=["i1", "zzz"]), ["not in the ratings", "'zzz'", "row 2"]),
        (BASE.assign(item=["i1", "i1"]), ["duplicate predictions", "'m'", "'i1'", "rows 1, 2"]),
        (BASE.assign(pred_label=["1", None]), ["missing or blank pred_label", "row 2"]),
        (BASE.drop(columns="model"), ["missing: model"]),
        (BASE.drop(columns="pred_label"), ["pred_label column and/or one probability column"]),
        (BASE.assign(p_1=[0.5, 0.2], p_2=[0.5, 0.2], p_10=[0.0, 0.2]), ["do not sum to 1", "row 2", "0.6"]),
        (BASE.assign(p_1=[0.5, 0.2], p_2=[0.5, 0.8]), ["no probability column for label '10'", "p_10"]),
        (BASE.assign(p_1=[1.0, 0.0], p_2=[0.0, 1.0], p_10=[0.0, 0.0], p_cat=[0.0, 0.0]), ["never use: p_cat"]),
        (BASE.assign(p_1=[1.2, 0.0], p_2=[-0.2, 1.0], p_10=[0.0, 0.0]), ["outside [0, 1]", "row 1"]),
        (BASE.assign(p_1=[1.0, np.nan], p_2=[0.0, 1.0], p_10=[0.0, 0.0]), ["p_1", "row 2"]),
    ],
)
def test_bad_predictions(ratings: Ratings, frame: pd.DataFrame, words: list[str]) -> None:
    with pytest.raises(DataError) as err:
        predictions_from_frame(frame, ratings)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_rounded_probabilities_are_accepted(ratings: Ratings) -> None:
    frame = BASE.assign(p_1=[0.333333, 0.1], p_2=[0.333333, 0.8], p_10=[0.333333, 0.1])
    assert predictions_from_frame(frame, ratings).probs is not None


def test_need_columns_quotes_the_tables_columns_on_one_line() -> None:
    frame = pd.DataFrame({"it\nem": ["1"], "rat\rer": ["a"], "label": ["x"]})
    with pytest.raises(DataError) as err:
        ratings_from_frame(frame)
    message = str(err.value)
    assert message.splitlines() == [message]
    assert "missing: item, rater (the table has: 'it\\nem', 'rat\\rer', 'label')" in message
