"""The paired bootstrap over cases shared by the vote curve and the rho estimate.

Resampling cases (not calls) keeps each case's samples together, so intervals reflect case-to-case variation;
using the same resampled cases at every n makes the steps between n paired. Reference: the chapter's
``paired_bootstrap`` (resample cases, not calls); Efron & Tibshirani (1993), ch. 13 (percentile intervals).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from nkcore.errors import DataError

__all__ = ["MAX_BOOT", "MIN_BOOT", "bootstrap_weights", "check_boot"]

MIN_BOOT, MAX_BOOT = 100, 100_000  # bootstrap replicates: fewer make a useless interval, more only take time


def check_boot(n_boot: int) -> None:
    """``DataError`` unless ``MIN_BOOT <= n_boot <= MAX_BOOT``.

    >>> check_boot(2000)
    """
    if not MIN_BOOT <= n_boot <= MAX_BOOT:
        raise DataError(f"bootstrap replicates must be between {MIN_BOOT} and {MAX_BOOT:,}, got {n_boot}")


def bootstrap_weights(n_cases: int, n_boot: int, rng: np.random.Generator, chunk: int = 250) -> Iterator[np.ndarray]:
    """Case-count matrices (reps x cases) of a bootstrap over cases, ``chunk`` replicates at a time.

    Row r counts how often each case is drawn in replicate r (n_cases draws with replacement), so a weighted
    sum ``w @ x`` is the replicate's total of a per-case quantity x.

    >>> w = next(bootstrap_weights(5, 3, np.random.default_rng(0)))
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 5), [5.0, 5.0, 5.0])
    """
    done = 0
    while done < n_boot:
        k = min(chunk, n_boot - done)
        idx = rng.integers(0, n_cases, size=(k, n_cases)) + (np.arange(k) * n_cases)[:, None]
        yield np.bincount(idx.ravel(), minlength=k * n_cases).reshape(k, n_cases).astype(float)
        done += k
