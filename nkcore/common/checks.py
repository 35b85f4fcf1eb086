"""Checks of the statistical parameters every test and plan takes, with one message each."""

from __future__ import annotations

import math

from nkcore.errors import DataError

__all__ = ["check_confidence", "check_power", "check_significance"]


def _finite(x: float) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def check_significance(significance: float) -> float:
    """The significance level, strictly between 0 and 1.

    >>> check_significance(0.05)
    0.05
    """
    if not (_finite(significance) and 0.0 < significance < 1.0):
        raise DataError(f"alpha (the significance level) must be between 0 and 1, e.g. 0.05; got {significance}")
    return float(significance)


def check_confidence(confidence: float) -> float:
    """An interval's confidence level, strictly between 0 and 1.

    >>> check_confidence(0.95)
    0.95
    """
    if not (_finite(confidence) and 0.0 < confidence < 1.0):
        raise DataError(f"the interval level must be between 0 and 1 (e.g. 0.95); got {confidence}")
    return float(confidence)


def check_power(power: float) -> float:
    """The power of a planned test: at least 0.5, below 1.

    >>> check_power(0.8)
    0.8
    """
    if not (_finite(power) and 0.5 <= power < 1.0):
        raise DataError(f"power must be at least 0.5 and below 1, e.g. 0.8; got {power}")
    return float(power)
