"""Simulated paired results for checking the ranking (tests and ``benchmarks/bench_rank.py``): M configs on the
same cases with known true means, cases of varying difficulty, optional repeats.

Case i has a difficulty z_i ~ N(0, rho), each repeat r of config j an independent noise e_ijr ~ N(0, 1 - rho); the
score is 1[z_i + e_ijr < t_j] with t_j = Phi^{-1}(p_j), so config j's true mean is p_j exactly and two configs'
results on one case correlate through z_i (a latent-threshold model, as a probit random-intercept model:
Agresti 2013, "Categorical Data Analysis", 3rd ed., sec. 13.2). The case mean is the mean over the repeats.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from nkcore.common.seeding import as_generator
from nkcore.errors import DataError

__all__ = ["simulate_case_means"]


def simulate_case_means(
    true_means: np.ndarray,
    n_cases: int,
    repeats: int = 1,
    rho: float = 0.5,
    seed: int | np.random.Generator = 0,
) -> np.ndarray:
    """Case means (n_cases x M) of 0/1 scores over ``repeats`` repeats, config j's true mean ``true_means[j]``.

    >>> x = simulate_case_means(np.array([0.6, 0.8]), 20_000, seed=0)
    >>> x.mean(axis=0).round(2).tolist()
    [0.6, 0.8]
    """
    p = np.asarray(true_means, dtype=float)
    if p.ndim != 1 or np.any((p <= 0) | (p >= 1)) or not 0.0 <= rho < 1.0 or n_cases < 1 or repeats < 1:
        raise DataError("simulate with true means in (0, 1), 0 <= rho < 1, at least one case and one repeat")
    rng = as_generator(seed)
    t = stats.norm.ppf(p)
    z = rng.normal(0.0, np.sqrt(rho), size=(n_cases, 1, 1))
    e = rng.normal(0.0, np.sqrt(1.0 - rho), size=(n_cases, p.size, repeats))
    return (z + e < t[None, :, None]).mean(axis=2)
