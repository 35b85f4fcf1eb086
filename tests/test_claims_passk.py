"""Issue 53, claim 3: the pass@k interval next to the boundary.

Wilson's interval on 100 cases covers a truth of 0.999 only when all 100 pass: 0.905 (0.999^100). The interval is
now Clopper-Pearson on the effective number of cases, which holds at the boundary. For 0/1 per-case values
(pass@n and pass^n of n samples) the coverage is an exact binomial sum, so these checks have no Monte Carlo error.

The measurement quoted in nkcore/voting/passk.py: ``nice -n 10 .venv/bin/python -m tests.test_claims_passk``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from nkcore.common.bounded_mean import bounded_mean_intervals
from nkcore.voting.passk import pass_at_k, pass_hat_k


def exact_binary_coverage(cases: int, truth: float) -> float:
    """P(truth in the interval) when each case passes with chance ``truth``: sum over x of P(X = x) 1[covered]."""
    x = np.arange(cases + 1)
    values = (np.arange(cases)[:, None] < x[None, :]).astype(float)  # column x: x cases pass
    iv = bounded_mean_intervals(values)
    covered = (iv.low <= truth) & (truth <= iv.high)
    return float(stats.binom.pmf(x, cases, truth) @ covered)


@pytest.mark.parametrize("truth", [0.999, 0.001, 0.995, 0.99])
def test_coverage_at_the_corner_n10_k10_100_cases(truth: float) -> None:
    assert exact_binary_coverage(100, truth) >= 0.95


def test_coverage_never_below_95_percent_for_binary_cases() -> None:
    truths = np.arange(1, 400) / 400
    for cases in (20, 100):
        assert min(exact_binary_coverage(cases, float(t)) for t in truths) >= 0.95 - 1e-12


def simulated_coverage(cases: int, n: int, a: float, b: float, k: int, estimand: str, reps: int, seed: int = 1):
    """Graded designs: p ~ Beta(a, b) per case, c ~ Bin(n, p), the unbiased per-case estimate; coverage of the true
    population value, its Monte Carlo standard error, the mean width."""
    rng = np.random.default_rng(seed)
    c = rng.binomial(n, rng.beta(a, b, size=(cases, reps)))
    f = pass_at_k if estimand == "pass@k" else pass_hat_k
    x = np.array([f(n, v, k) for v in range(n + 1)])[c]
    if estimand == "pass^k":
        truth = math.prod((a + j) / (a + b + j) for j in range(k))
    else:
        truth = 1 - math.prod((b + j) / (a + b + j) for j in range(k))
    iv = bounded_mean_intervals(x)
    cov = float(np.mean((iv.low <= truth) & (truth <= iv.high)))
    return cov, math.sqrt(cov * (1 - cov) / reps), float(np.mean(iv.high - iv.low)), truth


def test_graded_corner_covers() -> None:
    cov, se, _, _ = simulated_coverage(60, 10, 3.0, 0.3, 5, "pass@k", 2000)  # truth 0.996
    assert cov >= 0.95 - 3 * max(se, 0.005)


if __name__ == "__main__":
    print("0/1 per-case values (pass@10 of n = k = 10): exact coverage")
    for cases in (20, 60, 100, 200):
        cells = [f"{t}: {exact_binary_coverage(cases, t):.4f}" for t in (0.5, 0.9, 0.99, 0.995, 0.999, 0.001)]
        worst = min(exact_binary_coverage(cases, float(t)) for t in np.arange(1, 2000) / 2000)
        print(f"  {cases} cases: " + ", ".join(cells) + f"; worst over truth 0.0005..0.9995: {worst:.4f}")
    print("graded values (20,000 replications): coverage +- Monte Carlo error, mean width")
    for d in [
        (60, 10, 3.0, 0.3, 5, "pass@k"),
        (100, 10, 3.0, 0.3, 3, "pass@k"),
        (20, 10, 3.0, 0.3, 10, "pass^k"),
        (60, 10, 0.3, 3.0, 3, "pass^k"),
        (200, 10, 2.0, 2.0, 5, "pass@k"),
        (100, 10, 0.05, 5.0, 3, "pass@k"),
    ]:
        cov, se, width, truth = simulated_coverage(*d, reps=20000)
        print(f"  {d}: truth {truth:.4f}, coverage {cov:.4f} +- {se:.4f}, width {width:.4f}")
