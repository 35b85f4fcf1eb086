"""Checks of the statistical parameters every test and plan takes, with one message each."""

from __future__ import annotations

import math

from nkcore.errors import DataError

__all__ = ["check_alpha", "check_level", "check_power"]


def _finite(x: float) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def check_alpha(alpha: float) -> float:
    """The significance level, strictly between 0 and 1.

    >>> check_alpha(0.05)
    0.05
    """
    if not (_finite(alpha) and 0.0 < alpha < 1.0):
        raise DataError(f"alpha (the significance level) must be between 0 and 1, e.g. 0.05; got {alpha}")
    return float(alpha)


def check_level(level: float) -> float:
    """An interval's confidence level, strictly between 0 and 1.

    >>> check_level(0.95)
    0.95
    """
    if not (_finite(level) and 0.0 < level < 1.0):
        raise DataError(f"the interval level must be between 0 and 1 (e.g. 0.95); got {level}")
    return float(level)


def check_power(power: float) -> float:
    """The power of a planned test: at least 0.5, below 1.

    >>> check_power(0.8)
    0.8
    """
    if not (_finite(power) and 0.5 <= power < 1.0):
        raise DataError(f"power must be at least 0.5 and below 1, e.g. 0.8; got {power}")
    return float(power)
