"""Distinct values and how often each occurs, by hashing (``pandas.factorize``) rather than sorting every value.

``numpy.unique`` sorts all n values (O(n log n)); the per-item laws of the exact engine count millions of drawn
gaps that take a few thousand distinct values, where hashing each value once and sorting only the distinct ones
is several times faster (measured: 1.6 million int64 values with 1,000-30,000 distinct: ~40 ms against ~350 ms).
The result is the same as ``numpy.unique(x, return_counts=True)`` (tested), weights summed exactly as
``numpy.bincount`` sums them.
"""

from __future__ import annotations

import numpy as np


def distinct_counts(
    x: np.ndarray, weights: np.ndarray | None = None, sort: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of an array (every entry counted) and, per value, its count (float; or the sum of its
    ``weights``); ascending, or in order of first appearance when ``sort`` is False (no sort at all: the cheap
    form when the caller only sums over the values or bins them).

    Formula: for each distinct v, sum_{i: x_i = v} w_i (w_i = 1 without weights).

    >>> v, c = distinct_counts(np.array([3, 1, 3, 2, 3]))
    >>> v.tolist(), c.tolist()
    ([1, 2, 3], [1.0, 1.0, 3.0])
    >>> distinct_counts(np.array([5, 4, 5]), np.array([0.5, 0.25, 0.25]))[1].tolist()
    [0.25, 0.75]
    """
    import pandas as pd  # on demand: a process that only sorts (``sorted_counts``) does not load pandas

    flat = np.asarray(x).ravel()
    codes, uniq = pd.factorize(flat, sort=False)
    w = None if weights is None else np.asarray(weights, dtype=float).ravel()
    counts = np.bincount(codes, weights=w, minlength=len(uniq)).astype(float)
    values = np.asarray(uniq)
    if not sort:
        return values, counts
    order = np.argsort(values, kind="stable")
    return values[order], counts[order]


def sorted_counts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of an array, ascending, and how often each occurs (float), by one sort of every value: for
    values that are mostly distinct (the log metrics' per-item gaps in units of 2^-32), where hashing each value
    and then sorting the distinct ones costs more (measured: 32,768 int64 values, 3.1 ms hashed and sorted, 1.3 ms
    this way; 200,000 values, 24 and 16 ms). Same result as ``numpy.unique(x, return_counts=True)`` (tested).

    Formula: s = sort(x); the distinct values are s_i with i = 0 or s_i != s_(i-1), each counted up to the next.

    >>> v, c = sorted_counts(np.array([3, 1, 3, 2, 3]))
    >>> v.tolist(), c.tolist()
    ([1, 2, 3], [1.0, 1.0, 3.0])
    """
    s = np.sort(np.asarray(x).ravel())
    if s.size == 0:
        return s, np.zeros(0)
    first = np.empty(s.size, dtype=bool)
    first[0] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return s[starts], np.diff(starts, append=s.size).astype(float)


__all__ = ["distinct_counts", "sorted_counts"]
