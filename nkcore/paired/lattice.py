"""Exact laws of sums of per-case values on a lattice: the sign-flip test and the case bootstrap, by convolution.

Per-case values that lie on a lattice (multiples of 1/L: a mean of R repeats scored 0/1 is a multiple of 1/R, a
difference of two such means a multiple of 1/lcm(R_A, R_B), a partial-credit score of 0.5 a multiple of 1/2) are
integers m_i after scaling by L, so the two laws a paired comparison needs are laws of integer sums, computed
exactly by convolution instead of Monte Carlo:

- the sign-flip (randomisation) law of S = sum_i s_i m_i with independent fair signs s_i (Fisher 1935; the
  paired permutation test, e.g. ``scipy.stats.permutation_test(..., permutation_type="samples")``): equal |m| values
  group into scaled binomials, m (2 Binomial(c, 1/2) - c), convolved group by group;
- the case-resampling bootstrap law of the sum of n draws with replacement from the empirical law of the m_i
  (Efron & Tibshirani 1993, ch. 13): the n-fold convolution power of the empirical pmf, by repeated squaring, each
  power cut to a window outside which Bernstein's inequality leaves at most 1e-16 of the mass.

For one 0/1 result per case (m in {-1, 0, 1}) these are McNemar's exact test and the exact paired bootstrap of
:mod:`nkcore.paired.bootstrap` (tests compare them).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import signal, stats

from nkcore.common.checks import check_confidence
from nkcore.errors import DataError
from nkcore.resolution import bernstein_halfwidth

__all__ = ["MAX_LATTICE", "MAX_SUPPORT", "bootstrap_sum_pmf", "lattice_step", "percentile_interval", "sign_flip_p"]

#: The largest lattice denominator L looked for (1/L steps: lcm of repeat counts and score denominators).
MAX_LATTICE = 2520
#: The largest support (points) of an exact law; beyond it the callers use their documented approximation.
MAX_SUPPORT = 1 << 21
_TAIL_MASS = 1e-16
_TOL = 1e-9


def lattice_step(values: np.ndarray, max_denominator: int = MAX_LATTICE) -> int | None:
    """The smallest L <= ``max_denominator`` such that every value times L is a whole number (to 1e-9), else None.

    >>> lattice_step(np.array([0.0, 1 / 3, -2 / 3, 1.0])), lattice_step(np.array([0.5, 0.25])), lattice_step(np.array([0.1234567]))
    (3, 4, None)
    """
    v = np.unique(np.asarray(values, dtype=float))
    if v.size == 0:
        return 1
    if not np.all(np.isfinite(v)):
        raise DataError("per-case values must be finite numbers")
    for L in range(1, int(max_denominator) + 1):
        x = v * L
        if np.all(np.abs(x - np.round(x)) <= _TOL * max(1.0, L)):
            return L
    return None


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.size * b.size <= 4_000_000:
        out = np.convolve(a, b)
    else:
        out = signal.fftconvolve(a, b)
        np.clip(out, 0.0, None, out=out)
    return out


def sign_flip_law(m: np.ndarray) -> tuple[int, np.ndarray] | None:
    """(lo, pmf) of S = sum_i s_i m_i over independent fair signs s_i, for integers m_i; None past MAX_SUPPORT.

    ``pmf[j]`` is P(S = lo + j). Values with the same |m| = v > 0 and count c add v (2 Binomial(c, 1/2) - c), a
    binomial on every 2v-th point; the groups are convolved in turn (zeros add nothing).

    >>> lo, pmf = sign_flip_law(np.array([1, -1, 2]))   # S in {-4, -2, 0, 2, 4} with 1, 2, 2, 2, 1 of 8 patterns
    >>> lo, (pmf[::2] * 8).round(9).tolist()
    (-4, [1.0, 2.0, 2.0, 2.0, 1.0])
    """
    a = np.abs(np.asarray(m, dtype=np.int64))
    a = a[a > 0]
    total = int(a.sum())
    if 2 * total + 1 > MAX_SUPPORT:
        return None
    values, counts = np.unique(a, return_counts=True)
    pmf = np.ones(1)
    for v, c in zip(values.tolist(), counts.tolist(), strict=True):
        part = np.zeros(2 * v * c + 1)
        part[:: 2 * v] = stats.binom.pmf(np.arange(c + 1), c, 0.5)
        pmf = _convolve(pmf, part)
    return -total, pmf


def sign_flip_p(m: np.ndarray) -> float | None:
    """Exact two-sided sign-flip p of the sum of integers m_i: P(|S| >= |sum m_i|) under random signs; None past
    MAX_SUPPORT (the caller's Monte Carlo then).

    With m in {-1, 0, 1} (one 0/1 result per case) this is McNemar's exact p, min(1, 2 P(X <= min(b, c))),
    X ~ Binomial(b + c, 1/2).

    >>> round(sign_flip_p(np.array([1] * 26 + [-1] * 12 + [0] * 162)), 4)   # McNemar exact for 12 vs 26: 0.0336
    0.0336
    """
    law = sign_flip_law(m)
    if law is None:
        return None
    lo, pmf = law
    s = abs(int(np.asarray(m, dtype=np.int64).sum()))
    support = lo + np.arange(pmf.size)
    tail = float(pmf[np.abs(support) >= s].sum())
    return min(1.0, tail)


def bootstrap_sum_pmf(m: np.ndarray) -> tuple[int, np.ndarray] | None:
    """(lo, pmf) of the sum of n draws with replacement from the n integers m_i; None past MAX_SUPPORT.

    The n-fold convolution power of the empirical pmf, by repeated squaring; every power (of k draws) is cut to
    [k mean - t_k, k mean + t_k], t_k = :func:`nkcore.resolution.bernstein_halfwidth` (k var, range, 1e-16): each
    draw lies within the range of its mean, so the mass cut is at most 1e-16 per cut.

    >>> lo, pmf = bootstrap_sum_pmf(np.array([0, 1]))   # Binomial(2, 1/2)
    >>> lo, pmf.round(12).tolist()
    (0, [0.25, 0.5, 0.25])
    """
    x = np.asarray(m, dtype=np.int64)
    n = int(x.size)
    if n == 0:
        raise DataError("the bootstrap needs at least one case")
    base_lo = int(x.min())
    width = int(x.max()) - base_lo
    base = np.bincount(x - base_lo, minlength=width + 1).astype(float) / n
    mean = float(x.mean())
    var = float(x.var())
    spread = float(max(abs(x.max() - mean), abs(x.min() - mean), 1.0))

    def cut(lo: int, pmf: np.ndarray, k: int) -> tuple[int, np.ndarray]:
        t = bernstein_halfwidth(k * var, spread, _TAIL_MASS)
        a = max(lo, math.floor(k * mean - t) - 1)
        b = min(lo + pmf.size - 1, math.ceil(k * mean + t) + 1)
        return a, pmf[a - lo : b - lo + 1]

    t_final = bernstein_halfwidth(n * var, spread, _TAIL_MASS)
    if 2 * t_final + 3 > MAX_SUPPORT:
        return None
    result: tuple[int, np.ndarray] | None = None
    power_lo, power, k = base_lo, base, 1
    rest = n
    done = 0
    while rest:
        if rest & 1:
            if result is None:
                result = (power_lo, power.copy())
            else:
                result = cut(result[0] + power_lo, _convolve(result[1], power), done + k)
            done += k
        rest >>= 1
        if rest:
            power_lo, power = cut(2 * power_lo, _convolve(power, power), 2 * k)
            k *= 2
    assert result is not None
    return result


def percentile_interval(lo: int, pmf: np.ndarray, scale: float, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval of a lattice law: low = min{d : F(d) > (1-confidence)/2} / scale, high likewise at
    1 - (1-confidence)/2 (the reading of :func:`nkcore.paired.exact_paired_bootstrap`, the limit of sorted resamples).

    >>> percentile_interval(0, np.array([0.25, 0.5, 0.25]), 2.0, 0.5)
    (0.5, 1.0)
    """
    check_confidence(confidence)
    cdf = np.maximum.accumulate(np.cumsum(pmf))
    q = (1.0 - confidence) / 2.0
    i_lo = int(np.searchsorted(cdf, q, side="right"))
    i_hi = min(int(np.searchsorted(cdf, 1.0 - q, side="right")), cdf.size - 1)
    return (lo + i_lo) / scale, (lo + i_hi) / scale
