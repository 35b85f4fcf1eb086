"""The vote curve's accuracy band (issue 53): Clopper-Pearson on the effective cases, not the paired bootstrap.

Oracles: scipy's Beta quantiles (Clopper-Pearson's interval, exact when every case's credit is 0 or 1), the
beta-binomial upper tail (scipy.stats.betabinom) for the true majority@n accuracy, and simulation with a stated
Monte Carlo error. The former percentile bootstrap covered 0.24 at majority@5 of 5 samples, 30 cases, mean
per-sample chance 0.95 (docs/coverage.md); it was [1, 1] whenever every case was right.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore import voting as v


def _binary_frame(k: np.ndarray, m: int) -> pd.DataFrame:
    """k[i] right samples of m for case i (the right ones first)."""
    rows = [{"case": i, "sample": j + 1, "correct": int(j < ki)} for i, ki in enumerate(k) for j in range(m)]
    return pd.DataFrame(rows)


def test_every_case_right_gives_clopper_pearsons_n_of_n_not_a_point() -> None:
    curve = v.vote_curve(v.parse_samples(_binary_frame(np.full(20, 3), 3)), n_boot=100)
    low = stats.beta.ppf(0.025, 20, 1)  # = 0.025 ** (1 / 20)
    for p in curve.points:
        assert p.accuracy == 1.0
        assert (p.ci_low, p.ci_high) == pytest.approx((low, 1.0), abs=1e-9)


def test_zero_one_credit_gives_clopper_pearson_and_ignores_the_seed() -> None:
    """Cases all right or all wrong: every n's credit is 0 or 1, so the band is Clopper-Pearson on 13 of 20."""
    k = np.array([5] * 13 + [0] * 7)
    s = v.parse_samples(_binary_frame(k, 5))
    lo, hi = stats.beta.ppf(0.025, 13, 8), stats.beta.ppf(0.975, 14, 7)
    a, b = v.vote_curve(s, n_boot=100, seed=1), v.vote_curve(s, n_boot=500, seed=2)
    for p, q in zip(a.points, b.points, strict=True):
        assert (p.ci_low, p.ci_high) == pytest.approx((lo, hi), abs=1e-9)
        assert (p.ci_low, p.ci_high) == (q.ci_low, q.ci_high)


def test_band_covers_near_one_by_simulation() -> None:
    """300 data sets of 30 cases x 5 samples, each case's chance p ~ Beta(9.5, 0.5) (mean 0.95).

    Truth: P(Binomial(n, p) > n / 2) averaged over p, the beta-binomial tail. Each coverage is a share of 300
    independent data sets, Monte Carlo error at most sqrt(0.93 * 0.07 / 300) = 0.015 at 0.93: the bound 0.90 is
    two errors below 0.93 (the old bootstrap: 0.24 at n = 5, 0.52 at n = 3).
    """
    rng = np.random.default_rng(53)
    a, b, m, cases, reps = 9.5, 0.5, 5, 30, 300
    truth = {n: float(stats.betabinom.sf(n // 2, n, a, b)) for n in (1, 3, 5)}
    hits = dict.fromkeys(truth, 0)
    for _ in range(reps):
        k = rng.binomial(m, rng.beta(a, b, size=cases))
        curve = v.vote_curve(v.parse_samples(_binary_frame(k, m)), n_boot=100, seed=0)
        for n, t in truth.items():
            p = curve.point(n)
            hits[n] += p.ci_low <= t <= p.ci_high
    for n, h in hits.items():
        share = h / reps
        assert share >= 0.90, (n, share, truth[n], math.sqrt(share * (1 - share) / reps))


def test_a_step_few_cases_move_in_is_flagged_beside_its_interval() -> None:
    """200 cases, 3 samples each: 197 unanimous (right), 3 with one wrong sample. Only those 3 cases' credit moves
    from n = 1 to n = 3 (2/3 -> 1 under the plurality vote), so the step's paired percentile interval is read on 3
    moving cases, where its coverage is 0.50-0.93 (docs/coverage.md): the sentence and the JSON say so."""
    k = np.array([3] * 197 + [2] * 3)
    curve = v.vote_curve(v.parse_samples(_binary_frame(k, 3)), n_boot=200)
    step = curve.point(3)
    assert step.diff_cases_changed == 3
    assert step.diff == pytest.approx(3 * (1 - 2 / 3) / 200)
    assert not step.step_reliable
    assert "less reliable: only 3 of 200 cases change between n = 1 and 3" in v.curve_sentence(curve)
    many = np.array([3] * 140 + [2] * 60)  # 60 cases move: the interval is read at its level
    wide = v.vote_curve(v.parse_samples(_binary_frame(many, 3)), n_boot=200).point(3)
    assert wide.diff_cases_changed == 60 and wide.step_reliable
    assert "less reliable" not in v.curve_sentence(v.vote_curve(v.parse_samples(_binary_frame(many, 3)), n_boot=200))
