"""A quick simulation: the set of configs that could be the best contains the true best in at least 95% of the
runs, minus 3 Monte Carlo errors, for M = 3 and 10 configs, close (0.5 point apart) and spread (5 points apart).
Seeded; 300 runs each of 200 cases and 400 bootstrap resamples (benchmarks/bench_rank.py runs more). And the winner's
corrected score against the picked config's true mean by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nkcore.rank import rank_means
from nkcore.rank.simulate import simulate_case_means

RUNS = 300


def true_means(m: int, step: float) -> np.ndarray:
    """M true means step apart, the best (the last) at 0.75."""
    return 0.75 - step * np.arange(m)[::-1]


@pytest.mark.parametrize("m", [3, 10])
@pytest.mark.parametrize("step", [0.005, 0.05], ids=["close", "spread"])
def test_could_be_best_covers_the_true_best(m: int, step: float) -> None:
    p = true_means(m, step)
    names = [f"c{j}" for j in range(m)]
    rng = np.random.default_rng(1000 * m + int(1000 * step))
    hits = 0
    for _ in range(RUNS):
        x = simulate_case_means(p, 200, seed=rng)
        r = rank_means(x, names, resamples=400, seed=int(rng.integers(2**31)))
        hits += names[-1] in r.could_be_best
    coverage = hits / RUNS
    mc = math.sqrt(0.95 * 0.05 / RUNS)
    assert coverage >= 0.95 - 3 * mc, f"coverage {coverage:.3f} (Monte Carlo error {mc:.3f})"


def test_corrected_winner_removes_most_of_the_bias() -> None:
    """10 configs 0.5 point apart, 200 cases, 300 runs: the corrected winner's mean error (against the picked
    config's true mean) is within 20% of the naive one's plus 3 Monte Carlo errors; the naive one is far above 0."""
    from nkcore.rank import shrink_means

    p = true_means(10, 0.005)
    rng = np.random.default_rng(42)
    naive, corrected = [], []
    for _ in range(RUNS):
        x = simulate_case_means(p, 200, seed=rng)
        mean = x.mean(axis=0)
        j = int(np.argmax(mean))
        control = float(np.mean(mean - p))  # expectation 0: removes the cases' shared difficulty from the error
        naive.append(mean[j] - p[j] - control)
        corrected.append(shrink_means(mean, np.cov(x, rowvar=False) / 200).means[j] - p[j] - control)
    nb, cb = np.array(naive), np.array(corrected)
    mc = cb.std(ddof=1) / math.sqrt(RUNS)
    assert nb.mean() > 10 * nb.std(ddof=1) / math.sqrt(RUNS)
    assert abs(cb.mean()) < 0.2 * nb.mean() + 3 * mc, (nb.mean(), cb.mean(), mc)
