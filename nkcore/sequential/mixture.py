"""The mixture SPRT on the discordant cases of one 0/1 result per case: e-value, anytime p, confidence sequence.

With one 0/1 result per case and config, only the discordant cases (one config right, the other wrong) carry
evidence; each is B's win with probability theta = P(B right | discordant), and "no difference" is theta = 1/2 (the
coin of McNemar's test). After m discordant cases, k of them B's wins, the Beta(a, a) mixture of the likelihood
ratios against theta = 1/2 is the Bayes factor

    E_m = B(a + k, a + m - k) / B(a, a) * 2^m,

a nonnegative martingale with mean 1 under theta = 1/2 (a test martingale), so by Ville's inequality
P(sup_m E_m >= 1/alpha) <= alpha: rejecting at the first m with E_m >= 1/alpha is valid however long the run is
watched and whenever it is stopped. The anytime p is min(1, 1 / max_{s <= m} E_s). The confidence sequence is the
set of theta0 whose mixture likelihood ratio is below 1/alpha,

    CS_m = {theta0 : k log theta0 + (m - k) log(1 - theta0) > log B(a + k, a + m - k) - log B(a, a) - log(1/alpha)},

an interval (the log-likelihood is concave in logit theta0), and it excludes 1/2 exactly when E_m >= 1/alpha.
References: Robbins (1970), "Statistical methods related to the law of the iterated logarithm", Ann. Math. Statist.
41; Howard, Ramdas, McAuliffe & Sekhon (2021), "Time-uniform, nonparametric, nonasymptotic confidence sequences",
Ann. Statist. 49(2), section 3 (conjugate mixtures); Ramdas, Grunwald, Vovk & Shafer (2023), "Game-theoretic
statistics and safe anytime-valid inference", Statist. Sci. 38(4) (e-values, Ville's inequality).

The endpoints are the two roots of h(u) = k u - m log(1 + e^u) - c in u = logit theta0; h is concave, so Newton's
method started where h < 0 moves monotonically onto the root (scalar, warm-started, for the Monitor; vectorised for
whole runs).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betaln, expit

__all__ = [
    "PRIOR",
    "beta_mixture_bounds",
    "e_value_region",
    "log_e_value",
    "log_mixture",
    "lower_logit",
]

PRIOR = 4.0
"""a of the Beta(a, a) mixing prior on theta (prior sd of theta 0.17). Chosen by simulation over theta in 0.58-0.8
(benchmarks/bench_sequential.py, docs/sequential.md): a = 4 is within 5% of the best median stopping time of
a in {1, 2, 4, 8, 16, 32} for every theta; a = 1 (uniform) is 18% slower at theta = 0.58, a = 16 40% slower at 0.8."""

_TOL = 1e-12


def log_mixture(k: np.ndarray | float, m: np.ndarray | float, prior: float = PRIOR) -> np.ndarray:
    """log of the Beta(prior, prior) mixture of theta^k (1 - theta)^(m - k): betaln(a + k, a + m - k) - betaln(a, a).

    >>> round(float(log_mixture(0, 0)), 12)
    0.0
    """
    return np.asarray(betaln(prior + np.asarray(k), prior + np.asarray(m) - np.asarray(k)) - betaln(prior, prior))


def log_e_value(k: np.ndarray | float, m: np.ndarray | float, prior: float = PRIOR) -> np.ndarray:
    """log E_m = log B(a + k, a + m - k) - log B(a, a) + m log 2: the mixture SPRT's e-value against theta = 1/2.

    Example: the chapter's n=1 -> n=3 comparison, 26 of 38 discordant cases won by n=3 (fixed-n McNemar p = 0.034):

    >>> round(float(np.exp(log_e_value(26, 38))), 3)
    3.72
    """
    return log_mixture(k, m, prior) + np.asarray(m) * math.log(2.0)


def e_value_region(m_max: int, significance: float, prior: float = PRIOR) -> tuple[np.ndarray, np.ndarray]:
    """The mixture SPRT's rejection region for every m = 0..m_max: arrays (lo, hi) with

        E_m(k) >= 1/alpha  exactly when  k <= lo[m] or k >= hi[m]    (lo = -1, hi = m + 1: no k)

    where E_m(k) is :func:`log_e_value` exponentiated. log E_m(k) is convex in k and symmetric about m / 2, so it
    falls on k = 0..floor(m/2) and rises on ceil(m/2)..m; each edge is found by bisection on those halves,
    evaluating log E_m at the same (k, m) points and with the same comparison as ``log_e_value(k, m) >= log(1/alpha)``
    (O(m_max log m_max) evaluations in place of one per simulated case). Reference: Robbins (1970), as above.

    Example: 26 of 38 discordant cases won by B is E = 3.72 < 20 (not rejected at 0.05); 29 of 38 would be:

    >>> lo, hi = e_value_region(38, 0.05)
    >>> int(lo[38]), int(hi[38])
    (9, 29)
    >>> bool(log_e_value(29, 38) >= math.log(20)), bool(log_e_value(28, 38) >= math.log(20))
    (True, False)
    """
    threshold = math.log(1.0 / significance)
    m = np.arange(m_max + 1, dtype=np.int64)

    def first(lo: np.ndarray, hi: np.ndarray, rejected_below: bool) -> np.ndarray:
        # the smallest k in [lo, hi) where "E >= 1/alpha" stops holding (rejected_below) or starts (not), else hi
        while True:
            active = lo < hi
            if not active.any():
                return lo
            mid = (lo + hi) // 2
            hit = np.zeros(m.shape, bool)
            hit[active] = log_e_value(mid[active], m[active], prior) >= threshold
            flip = ~hit if rejected_below else hit
            hi = np.where(active & flip, mid, hi)
            lo = np.where(active & ~flip, mid + 1, lo)

    half = m // 2
    lo = first(np.zeros_like(m), half + 1, rejected_below=True) - 1
    hi = first((m + 1) // 2, m + 1, rejected_below=False)
    return lo, hi


def _h(u: float, k: float, m: float, c: float) -> tuple[float, float]:
    """h(u) = k u - m softplus(u) - c and h'(u) = k - m sigmoid(u)."""
    if u > 0:
        e = math.exp(-u)
        sp, sig = u + math.log1p(e), 1.0 / (1.0 + e)
    else:
        e = math.exp(u)
        sp, sig = math.log1p(e), e / (1.0 + e)
    return k * u - m * sp - c, k - m * sig


def lower_logit(k: float, m: float, c: float, start: float | None = None) -> float:
    """The lower root in logit theta of k u - m log(1 + e^u) = c (c < the maximum), -inf when k = 0.

    Newton from ``start`` (a warm start: the previous root) when h(start) < 0, else from c / k - 1 (where h < 0,
    since h(u) <= k u - c); h is concave, so every step stays left of the root and the iteration converges.

    >>> u = lower_logit(3, 10, -8.0)
    >>> round(3 * u - 10 * math.log1p(math.exp(u)), 9)
    -8.0
    """
    if k <= 0:
        return -math.inf
    u = start if start is not None and math.isfinite(start) else c / k - 1.0
    h, dh = _h(u, k, m, c)
    if h >= 0:
        u = min(u, c / k - 1.0)
        h, dh = _h(u, k, m, c)
    for _ in range(200):
        step = h / dh
        u -= step
        if abs(step) < _TOL * (1.0 + abs(u)):
            break
        h, dh = _h(u, k, m, c)
    return u


def _lower_logits(k: np.ndarray, m: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Vectorised :func:`lower_logit` (same start, same iteration, run until every element has converged)."""
    k, m, c = (np.asarray(x, dtype=float) for x in (k, m, c))
    pos = k > 0
    kk = np.where(pos, k, 1.0)
    u = c / kk - 1.0
    for _ in range(200):
        sp = np.logaddexp(0.0, u)
        h = kk * u - m * sp - c
        dh = kk - m * expit(u)
        step = h / dh
        u = u - step
        if np.all(np.abs(step[pos]) < _TOL * (1.0 + np.abs(u[pos]))):
            break
    return np.where(pos, u, -np.inf)


def beta_mixture_bounds(
    k: np.ndarray, m: np.ndarray, significance: float, prior: float = PRIOR
) -> tuple[np.ndarray, np.ndarray]:
    """The confidence sequence of a Bernoulli rate from k successes in m trials: the theta0 in (0, 1) whose
    Beta(prior, prior) mixture likelihood ratio is below 1/alpha; arrays (lower, upper) in [0, 1].

    The set {theta0 : log L(theta0) > log mix - log(1/alpha)}; its endpoints by Newton in logit theta0. m = 0 gives
    [0, 1].

    >>> lo, hi = beta_mixture_bounds(np.array([26]), np.array([38]), 0.05)
    >>> round(float(lo[0]), 3), round(float(hi[0]), 3)
    (0.448, 0.869)
    """
    k, m = np.asarray(k, dtype=float), np.asarray(m, dtype=float)
    c = log_mixture(k, m, prior) - math.log(1.0 / significance)
    lo = expit(_lower_logits(k, m, c))
    hi = 1.0 - expit(_lower_logits(m - k, m, c))
    return np.where(m > 0, lo, 0.0), np.where(m > 0, hi, 1.0)
