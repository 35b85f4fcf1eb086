"""nkcore.kinds reads 0/1 columns with the one true/false vocabulary (nkcore.common.truth) and counts rows with
nkcore.common.rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nkcore.kinds
from nkcore.common import rows, truth
from nkcore.errors import DataError
from nkcore.kinds import apply_mapping, detect_kind
from nkcore.kinds.detect import looks_binary

WORDS = sorted(truth.TRUE_WORDS | truth.FALSE_WORDS)


def test_shared_helpers_are_the_common_ones() -> None:
    assert nkcore.kinds.format_rows is rows.format_rows


@pytest.mark.parametrize("word", WORDS)
def test_every_word_of_the_vocabulary_maps_to_its_value(word: str) -> None:
    frame = pd.DataFrame({"case": [1, 1], "config": ["a", "b"], "ok": [word.upper(), f" {word} "]})
    out = apply_mapping(frame, "paired", {"case": "case", "config": "config", "correct": "ok"})
    expected = 1 if word in truth.TRUE_WORDS else 0
    assert out["correct"].tolist() == [expected, expected]


def test_right_wrong_columns_are_detected_as_correct() -> None:
    frame = pd.DataFrame({"question_id": [1, 1, 2], "model": ["a", "b", "a"], "is_correct": ["right", "Wrong", "y"]})
    guess = detect_kind(frame)
    assert guess.kind == "paired" and guess.mapping["correct"] == "is_correct"
    assert apply_mapping(frame, "paired", guess.mapping)["correct"].tolist() == [1, 0, 1]


def test_wide_empty_cells_stay_missing_and_other_words_are_refused() -> None:
    frame = pd.DataFrame({"case": ["q1", "q2", "q3"], "A": ["yes", "", None], "B": [1, 0, 1]})
    out = apply_mapping(frame, "paired", {"case": "case", "A": "A", "B": "B"})
    assert out["A"].iloc[0] == 1 and out["A"].iloc[1:].isna().all() and out["B"].tolist() == [1, 0, 1]
    with pytest.raises(DataError, match=r"must be 0/1 \(or true/false\), but data row 2 holds 'maybe'"):
        apply_mapping(frame.assign(A=["yes", "maybe", None]), "paired", {"case": "case", "A": "A", "B": "B"})
    long = pd.DataFrame({"case": [1, 2], "config": ["a", "b"], "ok": ["yes", ""]})
    with pytest.raises(DataError, match="data row 2"):  # a long table's correct cell may not be empty
        apply_mapping(long, "paired", {"case": "case", "config": "config", "correct": "ok"})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([*WORDS, "", "maybe", "2"]), st.none(), st.integers(-1, 2)), max_size=12))
def test_looks_binary_is_the_vocabulary_on_the_whole_column(values: list[object]) -> None:
    column = pd.Series(values, dtype=object)
    assert looks_binary(column) == truth.is_truth_column(column)


def test_looks_binary_on_numbers_booleans_and_unhashable_cells() -> None:
    assert looks_binary(pd.Series([0.0, 1.0, np.nan])) and not looks_binary(pd.Series([0.0, 0.5]))
    assert looks_binary(pd.Series([True, False])) and not looks_binary(pd.Series([[1], [0]]))
