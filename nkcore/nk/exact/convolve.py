"""The law of a sum of N independent per-item gaps: exact lattice convolution by FFT, or Edgeworth.

A per-item law on the integer lattice h Z (values v = h j) has an N-fold sum on the same lattice with support
[N j_min, N j_max]; its pmf is the N-th power of the per-item pmf's DFT, zero-padded to the whole support
(N (j_max - j_min) + 1 points), so there is no wrap-around: exact up to floating round-off (about 1e-15 per
point; tiny negative values are set to 0). Where Chernoff's or Bernstein's tail bound leaves less than 1e-16 of
the mass outside a shorter window around the mean (``extent``), the transform has that window's length instead
(a skewed law with a rare large value: a few times the sum's spread, not its whole range). Laws on a non-integer
scale (the log metrics, 2^32 units per nat) or too long a lattice are first put on a coarser lattice h by linear
binning (each value's mass split between its two neighbours in proportion to the distance: the mean is kept exactly,
the variance grows by at most h^2/4).
For large N the sum is also approximated by its Edgeworth expansion (skewness and kurtosis terms; quantiles by
Cornish-Fisher); ``cells.plan`` decides which is used for a cell.
Reference: Feller (1971) vol. II, XVI (Edgeworth); Press et al., Numerical Recipes, 13.1 (convolution by FFT).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import fft as sfft
from scipy.special import ndtr, ndtri

from nkcore.nk.exact import fft

LATTICE_MAX = 1 << 20
"""Largest lattice (points of the N-fold support) convolved by FFT."""
TAIL_LOG = 37.0
"""ln(1 / tail mass) left outside a window (Bernstein): e^-37 = 8.5e-17."""


@dataclass(frozen=True, slots=True)
class Lattice:
    """A law on the lattice h Z: P(X = h (lo + i)) = pmf[i]."""

    h: float
    lo: int
    pmf: np.ndarray = field(repr=False)

    @property
    def hi(self) -> int:
        """Largest lattice index with mass."""
        return self.lo + self.pmf.size - 1


DOT_BLAS_MAX = 4096
"""``dot`` hands vectors up to this long to BLAS (single-threaded there: OpenBLAS splits a dot product over threads
only past 10,000 numbers), longer ones to numpy's own sum."""


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """sum(a * b): by BLAS for short vectors (the cells make thousands of these calls), without it for long ones
    (a threaded BLAS dot's threads fight the other processes on a busy machine; timings in docs/benchmarks.md).

    >>> dot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    11.0
    """
    if a.ndim == 1 and b.ndim == 1 and a.size <= DOT_BLAS_MAX:
        return float(np.dot(a, b))
    return float(np.sum(a * b))


def integer_step(values: np.ndarray) -> int:
    """The largest h with every value a multiple of h: gcd(|v_1|, ..., |v_n|) (0 when all are 0).

    The gcd of the first 64 values first: on near-continuous values (the log metrics' units) it is already 1, and
    the rest is never read.

    >>> integer_step(np.array([-4, 0, 6])), integer_step(np.zeros(3, dtype=np.int64))
    (2, 0)
    """
    a = np.abs(np.asarray(values).astype(np.int64).ravel())
    g = int(np.gcd.reduce(a[:64])) if a.size else 0
    if g != 1 and a.size > 64:
        g = int(np.gcd(g, np.gcd.reduce(a[64:])))
    return g


def on_lattice(values: np.ndarray, prob: np.ndarray, h: float, nearest: bool = False) -> Lattice:
    """Put a law on the lattice h Z: exactly when every value is a multiple of h, else by linear binning (each
    value's mass split between its two neighbours: the mean is kept) or, ``nearest``, by rounding to the nearest
    point (equal values stay equal, so ties between two laws stay ties; the mean moves by at most h / 2).

    >>> lat = on_lattice(np.array([0.0, 1.5]), np.array([0.5, 0.5]), 1.0)
    >>> lat.lo, lat.pmf.tolist()
    (0, [0.5, 0.25, 0.25])
    >>> on_lattice(np.array([0.0, 1.4]), np.array([0.5, 0.5]), 1.0, nearest=True).pmf.tolist()
    [0.5, 0.5]
    """
    x = np.asarray(values, dtype=float) / h
    if nearest:  # no split: each value's whole mass on its nearest point
        j = np.rint(x)
        lo = int(j.min())
        pmf = np.bincount((j - lo).astype(np.int64), weights=prob, minlength=int(j.max()) - lo + 1)
        return Lattice(float(h), lo, pmf)
    j = np.floor(x)
    f = x - j
    lo = int(j.min())
    hi = int(j.max() + (1 if np.any(f > 0) else 0))
    idx = (j - lo).astype(np.int64)
    size = hi - lo + 1
    pmf = np.bincount(idx, weights=prob * (1.0 - f), minlength=size)
    up = f > 0
    if np.any(up):
        pmf += np.bincount(idx[up] + 1, weights=prob[up] * f[up], minlength=size)
    return Lattice(float(h), lo, pmf[:size])


def coarse_extent(fine: Lattice, coarse: Lattice, n: int) -> None:
    """Give ``coarse`` (the same law's nearest points on a lattice ``factor`` = coarse.h / fine.h times coarser) the
    ``extent`` of its sum of N copies from the fine lattice's, instead of its own tail bounds (the fine sum has
    mostly been computed already). Each value's point moves by at most w = floor((factor + 1) / 2) fine steps
    between the two (|factor c - f| <= (factor + 1) / 2), so factor S_c is within N w of S_f, and a deviation x
    of the fine sum bounds one of (x + 2 N w) / factor of the coarse sum: N coarse steps more than it needs, little
    for the few items (N <= 30) of the nearest-point cells that use it.

    >>> fine = on_lattice(np.array([0.0, 1.0, 9.0]), np.array([0.6, 0.3, 0.1]), 0.5, True)
    >>> coarse = on_lattice(np.array([0.0, 1.0, 9.0]), np.array([0.6, 0.3, 0.1]), 1.0, True)
    >>> coarse_extent(fine, coarse, 400); extent(coarse, 400)  # its own bounds: (480, 580); few items only, then
    (480, 980)
    """
    if n <= 1:  # one item: no sum, no extent
        return
    factor = round(coarse.h / fine.h)
    w = (factor + 1) // 2
    j = coarse.pmf.size - 1
    mu = dot(coarse.pmf, np.arange(j + 1))
    below, above = (-(-(x + 2 * n * w) // factor) + 1 for x in extent(fine, n))
    _keep_extent(coarse, n, max(min(below, int(np.ceil(n * mu))), 0), max(min(above, int(np.ceil(n * (j - mu)))), 0))


def power(lat: Lattice, n: int) -> Lattice:
    """The law of the sum of N independent copies: the N-th power of the pmf's DFT, no wrap-around.

    >>> power(Lattice(1.0, 0, np.array([0.5, 0.5])), 3).pmf.round(6).tolist()
    [0.125, 0.375, 0.375, 0.125]
    """
    return powers(lat, n, False)[0]


def _int_power(spec: np.ndarray, n: int) -> np.ndarray:
    """spec ** n by repeated squaring (log2 N complex products: faster than the complex power)."""
    out: np.ndarray | None = None
    base = spec
    while n:
        if n & 1:
            out = base.copy() if out is None else out * base
        n >>= 1
        if n:
            base = base * base
    assert out is not None
    return out


CHERNOFF_BLOCKS = 2048
"""Chernoff's bound is evaluated on at most this many blocks of the lattice, fewer (at least 256) where N block
widths stay within 2% of the sum's extent (each block's mass at its far end: still an upper bound, loose by at
most N block widths)."""
CHERNOFF_GAIN = 0.25
"""Chernoff's bound is tried only when Bernstein's range term exceeds this share of its normal term (else
Bernstein is within 25% of the best a tail bound can do, at a fraction of the cost)."""
CHERNOFF_MIN = 2048
"""... and only when Bernstein's extent is longer than this many steps (shorter transforms cost less than the bound)."""
_T_STEPS = 2.0 ** (np.arange(-8, 3) / 2.0)
"""Values of t / t* at which Chernoff's bound is evaluated (t* = sqrt(2 c / (N v)), the normal law's optimum; any t
gives a valid bound, and the grid's best is within 6% of the optimum for a normal-like tail)."""


def _chernoff(lat: Lattice, n: int, mu: float, v: float) -> tuple[float, float]:
    """(x below, x above): Chernoff's extents x = min_t (N psi(+-t) + c) / t of the sum of N copies around N mu,
    psi(t) = ln E exp(t (X - mu)) bounded above on ``CHERNOFF_BLOCKS`` blocks; mu, v (> 0) in lattice steps."""
    pmf = lat.pmf
    j = pmf.size - 1
    # blocks: at most CHERNOFF_BLOCKS, and narrow enough that the bound's slack (N widths) stays within 2% of the
    # normal extent sqrt(2 c N v)
    width = max(-(-(j + 1) // CHERNOFF_BLOCKS), min(-(-(j + 1) // 256), int(0.02 * np.sqrt(2 * TAIL_LOG * v / n))))
    blocks = -(-(j + 1) // width)
    mass = np.zeros(blocks * width)
    mass[: j + 1] = pmf
    mass = mass.reshape(blocks, width).sum(axis=1)
    keep = mass > 0
    lm = np.log(mass[keep])
    start = (np.arange(blocks) * width)[keep].astype(float)
    far_up = np.minimum(start + width - 1, j) - mu  # each block's largest value (t > 0) and smallest (t < 0)
    far_down = mu - start
    t = np.sqrt(2.0 * TAIL_LOG / (n * v)) * _T_STEPS
    out = []
    for far in (far_down, far_up):
        e = np.multiply.outer(t, far) + lm
        top = e.max(axis=1)
        psi = top + np.log(np.exp(e - top[:, None]).sum(axis=1))
        out.append(float(np.min((n * psi + TAIL_LOG) / t)))
    return out[0], out[1]


_EXTENTS: dict[tuple[int, int], tuple[Lattice, int, int]] = {}
"""``extent`` per (lattice's id, N), the lattice held so its id stays its own (the cells of a K share lattices)."""


def extent(lat: Lattice, n: int) -> tuple[int, int]:
    """Lattice steps below and above N mu (the sum's mean, mu the per-item mean in steps) outside which the sum of
    N copies holds less than e^-``TAIL_LOG`` (8.5e-17) per side, within its support.

    The smaller of two bounds per side: Chernoff's, P(S - N mu >= x) <= exp(N psi(t) - t x) for every t > 0, so
    x = min_t (N psi(t) + c) / t over a grid of t (psi the per-item cumulant generating function: tight for any
    shape, skewed or heavy-tailed laws included); and Bernstein's, P(|S - N mu| > x) <= 2 exp(-x^2 / (2 (N v +
    b x / 3))) (v the variance, b the range, in steps). Reference: Boucheron, Lugosi & Massart (2013),
    Concentration Inequalities, 2.2 (Chernoff) and 2.8 (Bernstein).

    >>> extent(Lattice(1.0, 0, np.array([0.7, 0.3])), 1)  # one item: its own support, 0.3 below and 0.7 above
    (1, 1)
    >>> extent(Lattice(1.0, 0, np.array([0.7, 0.3])), 10_000)  # Binomial(10,000, 0.3), sd 45.8: Bernstein, 8.9 sd
    (408, 408)
    >>> rare = np.zeros(1001); rare[[0, 1000]] = [0.999, 0.001]  # a rare large value: Chernoff
    >>> extent(Lattice(1.0, 0, rare), 100)  # 100 items: at most 10 of them large (support: 100,000 steps above)
    (100, 9982)
    """
    got = _EXTENTS.get((id(lat), n))
    if got is not None and got[0] is lat:
        return got[1], got[2]
    j = lat.pmf.size - 1
    c = TAIL_LOG
    i = np.arange(j + 1, dtype=float)
    mu = dot(lat.pmf, i)
    v = dot(lat.pmf, (i - mu) ** 2)
    x_b = (2 * c * j / 3 + np.sqrt((2 * c * j / 3) ** 2 + 8 * c * n * v)) / 2
    x_lo = x_hi = x_b
    if v > 0 and x_b > CHERNOFF_MIN and 2 * c * j / 3 > CHERNOFF_GAIN * np.sqrt(2 * c * n * v):  # Chernoff does better
        x_lo, x_hi = _chernoff(lat, n, mu, v)
        x_hi, x_lo = min(x_hi, x_b), min(x_lo, x_b)
    below = max(min(int(np.ceil(x_lo)) + 1, int(np.ceil(n * mu))), 0)
    above = max(min(int(np.ceil(x_hi)) + 1, int(np.ceil(n * (j - mu)))), 0)
    _keep_extent(lat, n, below, above)
    return below, above


def _keep_extent(lat: Lattice, n: int, below: int, above: int) -> None:
    if len(_EXTENTS) > 4096:
        _EXTENTS.clear()
    _EXTENTS[(id(lat), n)] = (lat, below, above)


def window(lat: Lattice, n: int) -> int:
    """Lattice points the sum of N copies needs: its whole support, or the ``extent`` around its mean.

    >>> window(Lattice(1.0, 0, np.array([0.5, 0.5])), 3), window(Lattice(1.0, 0, np.array([0.7, 0.3])), 10_000)
    (4, 819)
    """
    size = (lat.pmf.size - 1) * n + 1
    below, above = extent(lat, n)
    return int(min(size, below + above + 3))


def powers(lat: Lattice, n: int, previous: bool = True) -> tuple[Lattice, Lattice]:
    """The sums of N and of N - 1 copies (one forward transform serves both; N - 1 = 0: the point mass at 0).

    Each is computed on its ``window`` (the whole support, or the part outside which Chernoff's and Bernstein's
    bounds leave less than 1e-16 of the mass per side): a circular transform of that length, unwrapped at the
    window's start.

    >>> [x.pmf.round(6).tolist() for x in powers(Lattice(1.0, 0, np.array([0.5, 0.5])), 2)]
    [[0.25, 0.5, 0.25], [0.5, 0.5]]
    """
    if n == 1:
        return lat, Lattice(lat.h, 0, np.ones(1))
    j = lat.pmf.size - 1
    mu = dot(lat.pmf, np.arange(j + 1))
    length = sfft.next_fast_len(max(window(lat, n), j + 1), real=True)
    below, above = extent(lat, n)  # N's extents also hold the narrower sum of N - 1 (both grow with N)
    slack = max(length - (below + above + 1), 0) // 2
    spec = fft.rfft(lat.pmf, length)
    out = []
    for k in (n, n - 1) if previous else (n,):
        size = j * k + 1
        if size <= length:
            pmf = fft.irfft(_int_power(spec, k), length)[:size]
            start = 0
        else:  # circular: index t holds the mass of every s = t (mod length); keep the window from k mu - below
            circ = fft.irfft(_int_power(spec, k), length)
            start = int(min(max(int(np.floor(k * mu)) - below - slack, 0), size - length))
            shift = start % length  # np.roll(circ, -shift), without its generic-axis overhead
            pmf = np.concatenate((circ[shift:], circ[:shift]))
        np.maximum(pmf, 0.0, out=pmf)
        pmf /= pmf.sum()
        out.append(Lattice(lat.h, lat.lo * k + start, pmf))
    return out[0], out[-1]


@dataclass(frozen=True, slots=True)
class Moments:
    """Mean, variance and the standardised third and fourth cumulants (skewness, excess kurtosis) of a law."""

    mean: float
    var: float
    skew: float
    kurt: float


def moments(values: np.ndarray, prob: np.ndarray) -> Moments:
    """Moments of a discrete law (values, probabilities).

    >>> moments(np.array([-1.0, 1.0]), np.array([0.5, 0.5]))
    Moments(mean=0.0, var=1.0, skew=0.0, kurt=-2.0)
    """
    v = np.asarray(values, dtype=float)
    mu = dot(prob, v)
    c = v - mu
    c2 = c * c  # products, not c**3 and c**4: numpy's float power calls pow() per element (50 times slower)
    var = dot(prob, c2)
    if var <= 0:
        return Moments(mu, 0.0, 0.0, 0.0)
    return Moments(mu, var, dot(prob, c2 * c) / var**1.5, dot(prob, c2 * c2) / var**2 - 3.0)


def sum_moments(m: Moments, n: int) -> Moments:
    """Moments of the sum of N independent copies: mean and variance times N, skewness / sqrt(N), kurtosis / N."""
    return Moments(m.mean * n, m.var * n, m.skew / np.sqrt(n), m.kurt / n)


def normal_density(z: np.ndarray | float) -> np.ndarray:
    """The standard normal density exp(-z^2 / 2) / sqrt(2 pi) (scipy.special's ndtr / ndtri and this formula in
    place of scipy.stats.norm, whose per-call argument checks cost more than the numbers here).

    >>> round(float(normal_density(0.0)), 6)
    0.398942
    """
    z = np.asarray(z, dtype=float)
    return np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)


def edgeworth_cdf(x: np.ndarray | float, m: Moments) -> np.ndarray:
    """P(X <= x) by the Edgeworth expansion to order 1/n (skewness, kurtosis, squared-skewness terms).

    F(x) = Phi(z) - phi(z) [g1/6 He2(z) + g2/24 He3(z) + g1^2/72 He5(z)], z = (x - mean) / sd.

    >>> float(edgeworth_cdf(0.0, Moments(0.0, 1.0, 0.0, 0.0)))
    0.5
    """
    z = (np.asarray(x, dtype=float) - m.mean) / np.sqrt(m.var)
    z2 = z * z
    z3 = z2 * z
    he2, he3, he5 = z2 - 1, z3 - 3 * z, z3 * z2 - 10 * z3 + 15 * z
    corr = m.skew / 6 * he2 + m.kurt / 24 * he3 + m.skew**2 / 72 * he5
    return np.clip(ndtr(z) - normal_density(z) * corr, 0.0, 1.0)


def cornish_fisher(u: np.ndarray | float, m: Moments) -> np.ndarray:
    """Quantiles by the Cornish-Fisher expansion (the inverse of ``edgeworth_cdf`` to the same order).

    >>> round(float(cornish_fisher(0.975, Moments(0.0, 4.0, 0.0, 0.0))), 4)
    3.9199
    """
    z = ndtri(np.asarray(u, dtype=float))
    g1, g2 = m.skew, m.kurt
    z2 = z * z
    z3 = z2 * z
    w = z + g1 / 6 * (z2 - 1) + g2 / 24 * (z3 - 3 * z) - g1**2 / 36 * (2 * z3 - 5 * z)
    return m.mean + np.sqrt(m.var) * w


__all__ = [
    "LATTICE_MAX",
    "Lattice",
    "Moments",
    "coarse_extent",
    "cornish_fisher",
    "dot",
    "edgeworth_cdf",
    "integer_step",
    "moments",
    "normal_density",
    "on_lattice",
    "power",
    "powers",
    "sum_moments",
    "window",
]
