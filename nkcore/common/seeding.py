"""Seeds: every random function in nkcore takes ``seed: int | np.random.Generator``; these turn it into numbers."""

from __future__ import annotations

import numpy as np

from nkcore.errors import DataError

__all__ = ["as_entropy", "as_generator"]


def _check_seed(seed: object) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise DataError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def as_generator(seed: int | np.random.Generator) -> np.random.Generator:
    """The generator for ``seed``: a Generator as is; a non-negative integer seeds ``np.random.default_rng``.

    Anything else (negative, float, bool) raises ``DataError``.

    >>> float(as_generator(3).random()) == float(np.random.default_rng(3).random())
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(_check_seed(seed))


def as_entropy(seed: int | np.random.Generator) -> int:
    """An integer seed (for ``np.random.SeedSequence``) from an int, or from a Generator by one draw.

    >>> as_entropy(7)
    7
    >>> as_entropy(np.random.default_rng(0)) == as_entropy(np.random.default_rng(0))
    True
    """
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    return _check_seed(seed)
