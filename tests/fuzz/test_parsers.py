"""Fuzz the parsers behind the readers with tables of mixed-type cells: ratings and predictions
(``nkcore.ratings``), raw samples (``voting.parse_samples``), paired results (``paired.parse_paired``), the
validator of the Data page (``nkcore.summary.validate_and_summarize``), column mapping (``nkcore.kinds``) and the
store's ``validate_id``.

Property: a result, or ``DataError`` with a non-empty one-line message.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nkcore import paired, ratings, store, voting
from nkcore.errors import DataError
from nkcore.kinds import KINDS, apply_mapping, detect_kind
from nkcore.summary import validate_and_summarize
from tests.fuzz.strategies import (
    COLUMN_WORDS,
    KIND_COLUMNS,
    cell_text,
    cells,
    check_message,
    fuzz_settings,
    kind_cell,
    outcome,
)

# Python values a frame can hold after any reader: numbers at the extremes, missing markers, text, booleans.
values = st.one_of(
    st.none(),
    st.just(np.nan),
    st.just(pd.NA),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.sampled_from((0, 1, 2, -0.0, 1e308, float("inf"), "0", "1", "yes", "")),
    cells,
)


@st.composite
def frames(draw: st.DrawFn, kind: str | None = None) -> pd.DataFrame:
    """A frame with a kind's columns (plus maybe an extra or a missing one), rows of plausible or hostile values."""
    key = draw(st.sampled_from(tuple(KIND_COLUMNS))) if kind is None else kind
    columns = list(KIND_COLUMNS[key])
    if draw(st.integers(0, 4)) == 0 and columns:
        columns.pop(draw(st.integers(0, len(columns) - 1)))
    if draw(st.integers(0, 4)) == 0:
        columns.append(draw(st.sampled_from(COLUMN_WORDS) | cell_text))
    n_rows = draw(st.integers(0, 25))
    data: dict[str, list[object]] = {}
    for i, col in enumerate(columns):
        name = col if col not in data else f"{col}_{i}"
        data[name] = [draw(st.one_of(kind_cell(col), kind_cell(col), values)) for _ in range(n_rows)]
    frame = pd.DataFrame(data, columns=list(data))
    if draw(st.booleans()):  # numbers as numbers, as a reader with type inference gives them
        frame = frame.apply(_numeric_if_possible)
    return frame


def _numeric_if_possible(column: pd.Series) -> pd.Series:
    try:
        return pd.to_numeric(column)
    except (ValueError, TypeError):
        return column


@fuzz_settings()
@given(frame=frames("ratings"))
def test_ratings_from_frame(frame: pd.DataFrame) -> None:
    """ratings_from_frame: counts per item and label, or a one-line refusal."""
    result = outcome(ratings.ratings_from_frame, frame)
    if isinstance(result, ratings.Ratings):
        assert result.counts.sum() == result.n_ratings == len(frame)
        assert result.counts.shape == (len(result.items), len(result.labels))


_RATINGS = ratings.ratings_from_frame(
    pd.DataFrame({"item": ["1", "1", "2", "2"], "rater": ["r1", "r2", "r1", "r2"], "label": ["a", "b", "b", "b"]})
)


@fuzz_settings()
@given(frame=frames("predictions"))
def test_predictions_from_frame(frame: pd.DataFrame) -> None:
    """predictions_from_frame against a fixed ratings table (labels a, b; items 1, 2)."""
    outcome(ratings.predictions_from_frame, frame, _RATINGS)


@fuzz_settings()
@given(frame=st.one_of(frames("samples"), frames("samples_correct"), frames()))
def test_parse_samples(frame: pd.DataFrame) -> None:
    """voting.parse_samples: a sample set whose cases all have at least one sample, or a one-line refusal."""
    result = outcome(voting.parse_samples, frame)
    if not isinstance(result, DataError):
        assert result.n_cases >= 1


@fuzz_settings()
@given(
    frame=st.one_of(frames("paired"), frames("paired_wide"), frames()),
    configs=st.none() | st.lists(st.sampled_from(("A", "B", "n=1", "n=3", "C", "")), max_size=3),
)
def test_parse_paired(frame: pd.DataFrame, configs: list[str] | None) -> None:
    """paired.parse_paired with and without a config selection."""
    result = outcome(paired.parse_paired, frame, configs)
    if not isinstance(result, DataError):
        assert result.n_cases >= 1 and len(result.configs) >= 2


@fuzz_settings(1.5)
@given(frame=frames(), kind=st.sampled_from(KINDS), data=st.data())
def test_mapping_and_validation(frame: pd.DataFrame, kind: str, data: st.DataObject) -> None:
    """detect_kind never raises; apply_mapping with the detected or a random mapping, then validate_and_summarize."""
    columns = [str(c) for c in frame.columns]
    if not columns:
        return
    guess = detect_kind(frame, kind)
    mapping = dict(guess.mapping)
    if data.draw(st.booleans()):
        roles = st.sampled_from(("case", "sample", "answer", "gold", "correct", "item", "rater", "label", "p_a", "x"))
        mapping = data.draw(st.dictionaries(roles, st.sampled_from(columns) | cell_text, max_size=5))
    table = outcome(apply_mapping, frame, kind, mapping)
    if isinstance(table, pd.DataFrame):
        outcome(validate_and_summarize, table, kind)


_HEX64 = re.compile(r"[0-9a-f]{64}")


@fuzz_settings()
@given(
    ds_id=st.one_of(
        st.text(max_size=80),
        st.text("0123456789abcdef", min_size=64, max_size=64),
        st.text("0123456789abcdefABCDEF./\\\n\x00", min_size=60, max_size=68),
        st.binary(max_size=70),
        st.integers(),
        st.none(),
    )
)
def test_validate_id(ds_id: object) -> None:
    """validate_id returns the id exactly when it is 64 lowercase hex characters, else refuses in one line."""
    try:
        assert store.validate_id(ds_id) == ds_id  # type: ignore[arg-type]
    except DataError as exc:
        check_message(exc)
        assert not (isinstance(ds_id, str) and _HEX64.fullmatch(ds_id)), f"a valid id was refused: {ds_id!r}"
    else:
        assert isinstance(ds_id, str) and _HEX64.fullmatch(ds_id), f"an invalid id was accepted: {ds_id!r}"


@pytest.mark.parametrize("ids", [(1e19, 2e19), (1e300, 2e300), (float("inf"), 1.0), (2.0**63, 2.0**63 + 4096)])
def test_paired_float_case_ids_beyond_int64(ids: tuple[float, float]) -> None:
    """Two distinct case ids read as floats stay two cases (or the file is refused); none becomes another number.

    Oracle: the same table with the ids as text pairs into two cases.
    """
    frame = pd.DataFrame({"case": [ids[0], ids[0], ids[1], ids[1]], "config": list("ABAB"), "correct": [1, 0, 1, 1]})
    as_text = paired.parse_paired(frame.astype({"case": str}))
    assert as_text.n_cases == 2
    result = outcome(paired.parse_paired, frame)
    if isinstance(result, DataError):
        assert "9223372036854775808" not in str(result), f"case ids were wrapped to int64: {result}"
    else:
        assert result.n_cases == 2
