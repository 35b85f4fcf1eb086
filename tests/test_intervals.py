"""The default interval of one accuracy (issue 53): its exact coverage next to 0 and 1, where Wilson's collapses."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from nkcore.common import intervals
from nkcore.paired import accuracy_of, accuracy_sentence

GRID = np.arange(1, 1000) / 1000


def _worst_coverage(interval: object, n: int) -> float:
    """min over p = 0.001, ..., 0.999 of sum_k Binom(k; n, p) 1[lo(k) <= p <= hi(k)], by direct enumeration."""
    ends = np.array([interval(k, n, 0.95) for k in range(n + 1)])  # type: ignore[operator]
    pmf = stats.binom.pmf(np.arange(n + 1)[:, None], n, GRID[None, :])
    inside = (ends[:, :1] <= GRID + 1e-15) & (GRID <= ends[:, 1:] + 1e-15)
    return float((pmf * inside).sum(axis=0).min())


@pytest.mark.parametrize("n", [15, 30, 60, 120, 500])
def test_default_interval_holds_next_to_the_boundary(n: int) -> None:
    # Wilson alone: 0.847, 0.860, 0.887, 0.887, 0.910 (Brown, Cai & DasGupta 2001, Figs. 4-5); the default >= 0.93
    assert _worst_coverage(intervals.wilson, n) < 0.915
    assert _worst_coverage(lambda k, m, c: intervals.proportion_interval(k, m, c), n) >= 0.93


def test_default_interval_keeps_typical_counts_and_is_named() -> None:
    for k, n in ((158, 200), (5, 40), (35, 40), (480, 1000)):
        assert intervals.proportion_interval(k, n) == pytest.approx(intervals.wilson(k, n), abs=1e-12)
    assert intervals.proportion_interval(1, 500)[0] == pytest.approx(intervals.clopper_pearson(1, 500)[0])
    assert intervals.proportion_interval(499, 500)[1] == pytest.approx(intervals.clopper_pearson(499, 500)[1])
    assert intervals.proportion_interval(7, 20) == pytest.approx(intervals.clopper_pearson(7, 20))
    assert "Clopper-Pearson end near 0 or 100%" in accuracy_sentence(accuracy_of("A", 2, 300))
    assert "95% Wilson interval" in accuracy_sentence(accuracy_of("A", 150, 300))
    assert "Clopper-Pearson (exact, under 40 cases)" in accuracy_sentence(accuracy_of("A", 7, 20))
