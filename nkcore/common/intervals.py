"""Intervals of a single proportion k / n: Wilson score and Clopper-Pearson (exact)."""

from __future__ import annotations

import math

from scipy import special, stats

from nkcore.common.checks import check_confidence
from nkcore.errors import DataError

__all__ = ["INTERVAL_METHODS", "clopper_pearson", "proportion_interval", "wilson"]

INTERVAL_METHODS = ("wilson", "clopper-pearson")


def _check(k: int, n: int) -> None:
    if n <= 0 or not (0 <= k <= n):
        raise DataError(f"a proportion needs 0 <= correct <= n and n > 0; got {k} of {n}")


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval: (x + z^2/2)/(n + z^2) +- z sqrt(x(n-x)/n + z^2/4)/(n + z^2), z = Phi^-1(1 - a/2)
    (Wilson 1927, JASA 22:209).

    >>> [round(x, 4) for x in wilson(158, 200)]
    [0.7284, 0.8407]
    """
    check_confidence(confidence)
    _check(k, n)
    z = float(stats.norm.isf((1.0 - confidence) / 2))
    denom = n + z * z
    centre = (k + z * z / 2) / denom
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson (exact) interval: Beta(a/2; k, n-k+1) to Beta(1-a/2; k+1, n-k) quantiles, a = 1 - confidence,
    with 0 and 1 at the ends (Clopper & Pearson 1934, Biometrika 26:404).

    >>> [round(x, 4) for x in clopper_pearson(58, 1000)]
    [0.0443, 0.0743]
    """
    check_confidence(confidence)
    _check(k, n)
    a = 1.0 - confidence
    lo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, a / 2))
    hi = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1 - a / 2))
    return lo, hi


def proportion_interval(correct: int, n: int, confidence: float = 0.95, method: str = "wilson") -> tuple[float, float]:
    """Interval for ``correct / n`` by ``method``: "wilson" (default) or "clopper-pearson" (also "exact", "beta").

    >>> [round(x, 4) for x in proportion_interval(158, 200)]
    [0.7284, 0.8407]
    """
    if method == "wilson":
        return wilson(correct, n, confidence)
    if method in ("clopper-pearson", "beta", "exact"):
        return clopper_pearson(correct, n, confidence)
    raise DataError(f"unknown interval method {method!r}; use 'wilson' or 'clopper-pearson'")
