"""Intervals of a single proportion k / n: Wilson score, Clopper-Pearson (exact), and the product's default,
Wilson with Clopper-Pearson's ends where Wilson's coverage collapses (:func:`wilson_exact_ends`)."""

from __future__ import annotations

import math

from scipy import special, stats

from nkcore.common.checks import check_confidence
from nkcore.errors import DataError

__all__ = [
    "EXACT_BELOW_N",
    "EXACT_ENDS_K",
    "INTERVAL_METHODS",
    "clopper_pearson",
    "interval_name",
    "proportion_interval",
    "wilson",
    "wilson_exact_ends",
]

INTERVAL_METHODS = ("wilson", "clopper-pearson")
# Below EXACT_BELOW_N cases, and for the end next to 0 (100%) when at most EXACT_ENDS_K results are right (wrong),
# the default interval takes Clopper-Pearson's end (docs/coverage.md: Wilson's worst coverage on the 0.001 grid is
# 0.847-0.910 at 15-500 cases, next to 0 or 1; with these ends 0.930-0.951).
EXACT_BELOW_N = 40
EXACT_ENDS_K = 4


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


def wilson_exact_ends(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's interval with Clopper-Pearson's lower end when k <= 4 and upper end when n - k <= 4, and
    Clopper-Pearson's interval for n < 40 (the product's default for one accuracy).

    Wilson's coverage collapses next to the boundary: for k = 1, 2, ... its lower end is about 0.18/n, 0.6/n, ...
    above the truth's likely range, so at a truth of 0.001-0.01 coverage falls to 0.84-0.91 (Brown, Cai & DasGupta
    2001, Stat. Sci. 16:101, sec. 4.1.1, whose "modified Wilson" swaps in one-sided Poisson ends for k <= 2 or 3;
    the exact Clopper-Pearson end is used here). Below 40 cases Wilson's own oscillation dips to 0.91-0.92 at
    interior truths, so the exact interval is used there. Exact worst coverage over truths 0.001, ..., 0.999 at 95%
    (benchmarks/coverage/proportions.py): 0.95+ (n = 15, 30), 0.930 (60), 0.931 (120), 0.932 (500), where Wilson
    gives 0.847, 0.860, 0.887, 0.887, 0.910. Typical counts are untouched:

    >>> [round(x, 4) for x in wilson_exact_ends(158, 200)]
    [0.7284, 0.8407]
    >>> [round(x, 4) for x in wilson_exact_ends(1, 500)]   # Wilson's lower end would be 0.0004
    [0.0001, 0.0112]
    """
    check_confidence(confidence)
    _check(k, n)
    if n < EXACT_BELOW_N:
        return clopper_pearson(k, n, confidence)
    lo, hi = wilson(k, n, confidence)
    if k <= EXACT_ENDS_K:
        lo = min(lo, clopper_pearson(k, n, confidence)[0])
    if n - k <= EXACT_ENDS_K:
        hi = max(hi, clopper_pearson(k, n, confidence)[1])
    return lo, hi


def proportion_interval(correct: int, n: int, confidence: float = 0.95, method: str = "wilson") -> tuple[float, float]:
    """Interval for ``correct / n`` by ``method``: "wilson" (default: :func:`wilson_exact_ends`, Wilson with
    Clopper-Pearson's ends near 0 or 100% and below 40 cases) or "clopper-pearson" (also "exact", "beta").

    >>> [round(x, 4) for x in proportion_interval(158, 200)]
    [0.7284, 0.8407]
    """
    if method == "wilson":
        return wilson_exact_ends(correct, n, confidence)
    if method in ("clopper-pearson", "beta", "exact"):
        return clopper_pearson(correct, n, confidence)
    raise DataError(f"unknown interval method {method!r}; use 'wilson' or 'clopper-pearson'")


def interval_name(method: str, correct: int, n: int) -> str:
    """The name of the interval :func:`proportion_interval` gives for ``correct`` of ``n`` by ``method``, in words.

    >>> interval_name("wilson", 158, 200), interval_name("wilson", 1, 500), interval_name("wilson", 9, 20)
    ('Wilson', 'Wilson (Clopper-Pearson end near 0 or 100%)', 'Clopper-Pearson (exact, under 40 cases)')
    """
    if method != "wilson":
        return "Clopper-Pearson"
    if n < EXACT_BELOW_N:
        return f"Clopper-Pearson (exact, under {EXACT_BELOW_N} cases)"
    if min(correct, n - correct) <= EXACT_ENDS_K:
        return "Wilson (Clopper-Pearson end near 0 or 100%)"
    return "Wilson"
