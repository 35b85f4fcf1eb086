"""The exact engine's accuracy terms: how far an estimated or binned per-item law can move p and the CI-width.

- ``influence_var`` / ``null_influence_var``: the delta method on the lattice: one item's influence on p is
  g(d) = P(S0 >= d + S1') (S1' a sum of N - 1 items), Var(p_hat) = N^2 Var_d[g(d)] / n; the null's is symmetrised;
  for a law whose mean is pinned to its exact value, the part of g proportional to d is removed;
- ``normal_p_error``: the same in the normal form, for long lattices;
- ``binning_error``: the change of p by putting a law on a lattice by linear binning;
- ``ci_error``: the CI-width's error from the estimated spread; ``quantile_jump``: on a discrete S1, the chance
  that a quantile sits on the neighbouring atom of the true law.
Reference: van der Vaart (1998), Asymptotic Statistics, ch. 20 (influence functions); docs/nk-method.md.
"""

from __future__ import annotations

import numpy as np
from scipy import fft as sfft
from scipy.special import ndtr, ndtri

from nkcore.nk.exact import convolve as cv
from nkcore.nk.exact import fft
from nkcore.nk.exact.convolve import dot
from nkcore.nk.exact.item_law import ItemLaw

DIRECT_MAX = 16
"""Up to this many values of one item's gap, ``_correlate`` takes dot products instead of transforms."""


def _correlate(h: np.ndarray, rest: np.ndarray, size: int) -> np.ndarray:
    """g(d) = sum_t rest(t) h(d + t) for d = 0 .. size - 1, h of length size + len(rest) - 1.

    A circular transform of length len(h) has no wrap-around for these d (d + t <= len(h) - 1); a point mass
    (one item: rest = the sum of no items) needs no transform at all, and up to ``DIRECT_MAX`` values of d are
    dot products.

    >>> _correlate(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.5]), 2).round(12).tolist()
    [1.5, 2.5]
    >>> h, r = np.arange(40.0) ** 2, np.linspace(0.0, 1.0, 20)
    >>> bool(np.allclose(_correlate(h, r, 21), [h[d : d + 20] @ r for d in range(21)]))  # by transforms
    True
    """
    if rest.size == 1:
        return h[:size] * rest[0]
    if size <= DIRECT_MAX:  # few values of d (Accuracy, Wins: 3): one dot product each beats three transforms
        return np.array([dot(h[d : d + rest.size], rest) for d in range(size)])
    length = sfft.next_fast_len(h.size, real=True)
    corr = fft.irfft(fft.rfft(h, length) * np.conj(fft.rfft(rest, length)), length)
    return corr[:size]


def influence_var(
    law: cv.Lattice, rest: cv.Lattice, other_cdf: np.ndarray, other_lo: int, mode: str, pinned: bool = False
) -> float:
    """Var over one item d of g(d) = E[h(d + rest)], h the other side's tail: the delta method's item term.

    mode "ge": h(s) = P(other >= s); "le": P(other <= s). Computed for every d of ``law`` by one FFT correlation.
    """
    padded = np.concatenate([[0.0], other_cdf, [1.0]])
    lo = law.lo + rest.lo
    hi = law.hi + rest.hi
    pos = np.minimum(np.maximum(np.arange(lo, hi + 1) - other_lo, -1), other_cdf.size)  # (np.clip: 10 us more)
    h = 1.0 - padded[pos] if mode == "ge" else padded[pos + 1]
    # g(d) = sum_t rest(t) h(d + t): correlation of h with rest, for d in law's support
    g = _correlate(h, rest.pmf, law.pmf.size)
    mean = dot(law.pmf, g)
    resid = g - mean
    if pinned:  # the mean is known: only the part of g not explained by d itself is estimated
        x = np.arange(law.pmf.size) - dot(law.pmf, np.arange(law.pmf.size))
        vx = dot(law.pmf, x**2)
        if vx > 0:
            resid = resid - dot(law.pmf, resid * x) / vx * x
    return max(dot(law.pmf, resid**2), 0.0)


def binning_error(alt: ItemLaw, null: ItemLaw, h: float, p: float) -> float:
    """The change of p by putting the laws on the lattice h Z by linear binning (a bound): each item's variance grows
    by at most h^2 / 4, so the spread of S0 - S1 by a factor of at most 1 + h^2 / (4 (v0 + v1)): p moves by
    phi(z) |z| times that. (Nearest points: ``cells._untie``.)"""
    v = alt.var + null.var
    if v <= 0:
        return 0.0
    z = float(ndtri(1.0 - min(max(p, 1e-300), 1.0 - 1e-16)))
    if not np.isfinite(z):  # p within 1e-16 of 0: phi(z) |z| -> 0 (the formula would give 0 x inf)
        return 0.0
    return float(float(cv.normal_density(z)) * abs(z) * h * h / (4.0 * v))


def quantile_jump(
    law: cv.Lattice,
    rest: cv.Lattice,
    cdf: np.ndarray,
    lo: int,
    q: int,
    u: float,
    n: int,
    n_items: int,
    rest_cdf: np.ndarray | None = None,
) -> float:
    """Standard error, in lattice steps, of a u-quantile q of S1 that sits on an atom, from the estimated law.

    F(q - 1) < u <= F(q); the estimate of F(x) = P(S1 <= x) has influence g(d) = P(S1' <= x - d) (S1' a sum of
    N - 1 items), se(F) = N sd_d[g] / sqrt(n). The quantile moves one atom down if F(q - 1) really reaches u, one
    up if F(q) really falls short of it: probabilities Phi(-distance / se); the error is the root of their sum.
    ``rest_cdf``: the cdf of S1', when already computed.
    """
    rest_cdf = np.minimum(np.cumsum(rest.pmf), 1.0) if rest_cdf is None else rest_cdf
    d = law.lo + np.arange(law.pmf.size)
    total = 0.0
    for x, dist in ((q - 1, u - (cdf[q - 1 - lo] if q - 1 >= lo else 0.0)), (q, cdf[q - lo] - u)):
        pos = x - d - rest.lo
        g = np.where(pos < 0, 0.0, rest_cdf[np.minimum(np.maximum(pos, 0), rest_cdf.size - 1)])
        mean = dot(law.pmf, g)
        se = n * np.sqrt(max(dot(law.pmf, (g - mean) ** 2), 0.0) / n_items)
        if se > 0:
            total += float(ndtr(-abs(float(dist)) / se))
    return float(np.sqrt(total))


def ci_error(alt: ItemLaw, ci: float) -> float:
    """Standard error of the CI-width from the estimated per-item variance: ci sqrt((kurt + 2) / n) / 2."""
    if alt.exact or alt.n_items == 0 or alt.var <= 0:
        return 0.0
    return float(ci * np.sqrt(max(alt.kurt + 2.0, 0.0) / alt.n_items) / 2.0)


def normal_p_error(alt: ItemLaw, null: ItemLaw, n: int) -> float:
    """The delta method in the normal form, for large lattices: p ~ Phi(-z), z = sqrt(N) mu1 / sd, sd^2 = v0 + v1:
    se(p) = phi(z) sqrt((sqrt(N) se(mu1) / sd)^2 + (z se(sd^2) / (2 sd^2))^2), se(v) = v sqrt((kurt + 2) / n)."""
    var = alt.var + null.var
    if var <= 0:
        return 0.0
    sd = float(np.sqrt(var))
    z = np.sqrt(n) * alt.mean / sd
    se_var = 0.0
    for law in (alt, null):
        if not law.exact and law.n_items > 0:
            se_var = float(np.hypot(se_var, law.var * np.sqrt(max(law.kurt + 2.0, 0.0) / law.n_items)))
    return float(float(cv.normal_density(z)) * np.hypot(np.sqrt(n) * alt.mean_se / sd, z * se_var / (2.0 * var)))


def null_influence_var(
    l0: cv.Lattice, rest0: cv.Lattice, s1: cv.Lattice, flip: bool, c1: np.ndarray | None = None
) -> float:
    """The null's item term: g(y) = P(y + S0' >= S1) (flip: <=), symmetrised in y (the null law is). ``c1``: the cdf
    of S1, when already computed."""
    c1 = np.minimum(np.cumsum(s1.pmf), 1.0) if c1 is None else c1
    padded = np.concatenate([[0.0], c1, [1.0]])
    lo = l0.lo + rest0.lo
    hi = l0.hi + rest0.hi
    pos = np.minimum(np.maximum(np.arange(lo, hi + 1) - s1.lo, -1), c1.size)
    h = padded[pos + 1] if not flip else 1.0 - padded[pos]  # P(S1 <= s) or P(S1 >= s)
    g = _correlate(h, rest0.pmf, l0.pmf.size)
    g = 0.5 * (g + g[::-1]) if l0.lo == -l0.hi else g
    mean = dot(l0.pmf, g)
    return max(dot(l0.pmf, (g - mean) ** 2), 0.0)


__all__ = [
    "binning_error",
    "ci_error",
    "influence_var",
    "normal_p_error",
    "null_influence_var",
    "quantile_jump",
]
