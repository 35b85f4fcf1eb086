"""The case bootstrap of M configs' means at once: every resample draws n cases with replacement, the same cases
for every config (the pairing is kept), and gives each config's mean over them.

For case means X (n cases x M configs) and a resample's counts c_1..c_n (how often each case was drawn,
multinomial(n; 1/n, ..., 1/n)), the resampled means are m*_j = sum_i c_i X_ij / n. The cases are the unit: a case's
repeats travel together (Efron & Tibshirani 1993, "An Introduction to the Bootstrap", ch. 6 and 13; Miller 2024,
"Adding Error Bars to Evals", arXiv:2411.00640, sec. 2.2, clustered questions).
"""

from __future__ import annotations

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError

__all__ = ["DEFAULT_RESAMPLES", "bootstrap_counts", "bootstrap_means", "case_means"]

#: Resamples of the case bootstrap by default (the 95% critical value's Monte Carlo error is about 1%).
DEFAULT_RESAMPLES = 2000
_CHUNK_CELLS = 4_000_000  # counts drawn at once (resamples x cases)


def case_means(means: np.ndarray) -> np.ndarray:
    """The (n cases, M configs) matrix of case means as floats, checked: two configs or more, one case or more, every
    value in [0, 1]; DataError otherwise.

    >>> case_means(np.array([[1, 0], [0.5, 1]])).tolist()
    [[1.0, 0.0], [0.5, 1.0]]
    """
    x = np.asarray(means, dtype=float)
    if x.ndim != 2 or x.shape[1] < 2:
        raise DataError("ranking configs needs at least two configs on the same cases")
    if x.shape[0] < 2:
        raise DataError("ranking configs needs at least two paired cases (the cases are resampled)")
    if not np.all(np.isfinite(x)) or np.any((x < 0.0) | (x > 1.0)):
        raise DataError("every case's mean score must lie between 0 and 1")
    return x


def bootstrap_counts(n: int, resamples: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """``resamples`` x ``n`` case counts of the case bootstrap (each row multinomial(n; 1/n each), sums to n).

    >>> c = bootstrap_counts(4, 3, seed=1); c.shape, c.sum(axis=1).tolist()
    ((3, 4), [4, 4, 4])
    """
    if resamples < 1:
        raise DataError(f"the bootstrap needs at least one resample; got {resamples}")
    limits.check("rounds", resamples, "the bootstrap", counted="resamples")
    rng = as_generator(seed)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=resamples)


def bootstrap_means(
    x: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int | np.random.Generator = 0
) -> np.ndarray:
    """The case bootstrap's means: ``resamples`` x M, row b = sum_i c_bi X_i / n for resample b's case counts.

    Drawn in chunks (at most 4,000,000 counts at a time) from one generator, so the result depends on the seed only.

    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> m = bootstrap_means(x, 500, seed=0); m.shape, bool(abs(m.mean() - 2 / 3) < 0.02)
    ((500, 2), True)
    """
    x = case_means(x)
    n, m = x.shape
    rng = as_generator(seed)
    if resamples < 1:
        raise DataError(f"the bootstrap needs at least one resample; got {resamples}")
    limits.check("rounds", resamples, "the bootstrap", counted="resamples")
    limits.check_memory(8.0 * resamples * m, "the bootstrap's means")
    step = max(1, _CHUNK_CELLS // n)
    out = np.empty((resamples, m))
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        counts = bootstrap_counts(n, stop - start, rng)
        out[start:stop] = counts @ x / n
    return out
