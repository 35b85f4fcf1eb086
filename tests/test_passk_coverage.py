"""Coverage of the pass@k / pass^k intervals by simulation (the fast profile of
``benchmarks/bench_passk_coverage.py``): the TRUE population value E_F[1 - (1-p)^k] or E_F[p^k], in closed form
for F = Beta(a, b), must lie in the 95% interval in about 95% of seeded replications.

With R replications the Monte Carlo s.d. of a coverage near 0.95 is sqrt(0.0475 / R): 0.0049 at R = 2,000, so a
bound of 0.92 sits 6 s.d. below 0.95 and 3.5 s.d. below 0.939, the exact coverage of Wilson's interval at the
binary designs (pass^10 of 10 samples, 20 or 60 cases). The same check catches the former percentile bootstrap,
whose coverage is far lower there.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from nkcore import voting
from nkcore.common.bounded_mean import bounded_mean_intervals
from nkcore.voting.passk import case_bootstrap_bands, pass_at_k, pass_hat_k, pass_k_curves

REPS = 2000
BOUND = 0.92


def _truth(a: float, b: float, k: int, estimand: str) -> float:
    """E[p^k] = prod_{j<k} (a + j) / (a + b + j) for p ~ Beta(a, b); pass@k is 1 - E[(1-p)^k]."""
    if estimand == "pass^k":
        return math.prod((a + j) / (a + b + j) for j in range(k))
    return 1.0 - math.prod((b + j) / (a + b + j) for j in range(k))


def _values(cases: int, n: int, a: float, b: float, k: int, estimand: str, seed: int) -> np.ndarray:
    """cases x REPS per-case estimates: p ~ Beta(a, b), c ~ Binomial(n, p), then the unbiased estimate."""
    rng = np.random.default_rng(seed)
    c = rng.binomial(n, rng.beta(a, b, size=(cases, REPS)))
    est = pass_at_k if estimand == "pass@k" else pass_hat_k
    return np.array([est(n, x, k) for x in range(n + 1)])[c]


def _cover(lo: np.ndarray, hi: np.ndarray, truth: float) -> float:
    return float(np.mean((lo <= truth) & (truth <= hi)))


DESIGNS = [
    (60, 10, 3.0, 0.3, 1, "pass@k"),
    (60, 10, 3.0, 0.3, 3, "pass@k"),
    (60, 10, 3.0, 0.3, 5, "pass@k"),
    (60, 10, 3.0, 0.3, 10, "pass@k"),
    (60, 10, 3.0, 0.3, 5, "pass^k"),
    (20, 10, 3.0, 0.3, 10, "pass^k"),
    (20, 10, 3.0, 0.3, 10, "pass@k"),
    (200, 10, 2.0, 2.0, 5, "pass@k"),
    (60, 10, 0.3, 3.0, 3, "pass^k"),
    (60, 10, 0.3, 3.0, 10, "pass^k"),
]


@pytest.mark.parametrize(("cases", "n", "a", "b", "k", "estimand"), DESIGNS)
def test_score_interval_covers_the_population_value(
    cases: int, n: int, a: float, b: float, k: int, estimand: str
) -> None:
    x = _values(cases, n, a, b, k, estimand, seed=cases * 1000 + k)
    iv = bounded_mean_intervals(x)
    assert _cover(iv.low, iv.high, _truth(a, b, k, estimand)) >= BOUND
    assert np.all(iv.high - iv.low > 0)  # never zero width


@pytest.mark.parametrize(("k", "old_at_most"), [(5, 0.75), (10, 0.2)])
def test_the_same_check_catches_the_percentile_bootstrap(k: int, old_at_most: float) -> None:
    """pass@5 and pass@10, 60 cases, Beta(3, 0.3): the bootstrap covers about 0.61 and 0.03 (benchmark, 2,000
    replications); the bounds here are more than 4 Monte Carlo s.d. above those."""
    x = _values(60, 10, 3.0, 0.3, k, "pass@k", seed=k)
    truth = _truth(3.0, 0.3, k, "pass@k")
    old = case_bootstrap_bands(x, n_boot=400, seed=1)
    assert _cover(old.low, old.high, truth) <= old_at_most
    new = bounded_mean_intervals(x)
    assert _cover(new.low, new.high, truth) >= BOUND


def test_every_case_passing_gives_an_interval_not_a_point() -> None:
    """p = 1: every per-case value is 1; the bootstrap is [1, 1], the score interval Clopper-Pearson's
    [(alpha/2)^(1/N), 1] (mu^N = 0.025 at its lower end)."""
    x = np.ones((60, 3))
    iv = bounded_mean_intervals(x)
    assert iv.low == pytest.approx(np.full(3, 0.025 ** (1 / 60)), rel=1e-10) and np.all(iv.high == 1.0)
    old = case_bootstrap_bands(x, n_boot=100)
    assert np.all(old.low == 1.0) and np.all(old.high == 1.0)


def test_pass_k_curves_end_to_end_coverage() -> None:
    """Through parse_samples and pass_k_curves: 20 cases of 10 samples, p ~ Beta(3, 0.3), 150 replications;
    pass@3 and pass^10 cover their truths (Monte Carlo s.d. 0.018 at 150, the bound 0.87 is 4 s.d. below)."""
    rng = np.random.default_rng(2024)
    reps, cases, n = 150, 20, 10
    hit_at3 = hit_hat10 = 0
    for _ in range(reps):
        right = rng.random((cases, n)) < rng.beta(3.0, 0.3, size=cases)[:, None]
        frame = pd.DataFrame(
            {
                "case": np.repeat(np.arange(cases), n),
                "sample": np.tile(np.arange(1, n + 1), cases),
                "correct": right.ravel().astype(int),
            }
        )
        r = pass_k_curves(voting.parse_samples(frame), majority=False)
        a3, h10 = r.pass_at_k[2], r.pass_hat_k[9]
        hit_at3 += a3.ci_low <= _truth(3.0, 0.3, 3, "pass@k") <= a3.ci_high
        hit_hat10 += h10.ci_low <= _truth(3.0, 0.3, 10, "pass^k") <= h10.ci_high
    assert hit_at3 / reps >= 0.87 and hit_hat10 / reps >= 0.87
