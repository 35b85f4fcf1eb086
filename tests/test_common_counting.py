"""``distinct_counts`` and ``sorted_counts``: the same values and counts as numpy's sort-based ``unique`` (the
oracle), weighted or not."""

from __future__ import annotations

import numpy as np
import pytest

from nkcore.common.counting import distinct_counts, sorted_counts


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.float64])
@pytest.mark.parametrize("spread", [3, 1000, 10**9])
def test_distinct_counts_match_numpy_unique(dtype: type, spread: int) -> None:
    rng = np.random.default_rng(spread)
    hi = min(spread, np.iinfo(np.int16).max) if dtype is np.int16 else spread
    x = rng.integers(-hi, hi + 1, 20_000).astype(dtype)
    w = rng.random(x.size)
    values, counts = distinct_counts(x)
    u, c = np.unique(x, return_counts=True)
    assert values.dtype == u.dtype
    np.testing.assert_array_equal(values, u)
    np.testing.assert_array_equal(counts, c.astype(float))
    values, sums = distinct_counts(x, w)
    u, inv = np.unique(x, return_inverse=True)
    np.testing.assert_array_equal(values, u)
    np.testing.assert_allclose(sums, np.bincount(inv, weights=w), rtol=1e-13)


def test_distinct_counts_of_a_two_dimensional_array_count_every_entry() -> None:
    values, counts = distinct_counts(np.array([[2, 2], [7, 2]]))
    assert values.tolist() == [2, 7]
    assert counts.tolist() == [3.0, 1.0]


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.float64])
@pytest.mark.parametrize("spread", [3, 1000, 10**9])
def test_sorted_counts_match_numpy_unique(dtype: type, spread: int) -> None:
    rng = np.random.default_rng(spread + 1)
    hi = min(spread, np.iinfo(np.int16).max) if dtype is np.int16 else spread
    x = rng.integers(-hi, hi + 1, (3, 7_001)).astype(dtype)
    values, counts = sorted_counts(x)
    u, c = np.unique(x, return_counts=True)
    assert values.dtype == u.dtype
    np.testing.assert_array_equal(values, u)
    np.testing.assert_array_equal(counts, c.astype(float))


def test_sorted_counts_of_one_value_and_of_none() -> None:
    assert [a.tolist() for a in sorted_counts(np.array([4, 4, 4]))] == [[4], [3.0]]
    assert [a.tolist() for a in sorted_counts(np.array([], dtype=np.int64))] == [[], []]
