"""The dataset-level laws on a lattice: p, quantiles and ties of two independent sums S1 and S0 on the same step.

``law_lattice`` puts a per-item law on a lattice (cached); ``p_on_lattice`` is P(S0 >= S1) (ties against the
alternative; after the sign rule P(S0 <= S1)); ``quantiles`` the smallest s with P(S <= s) >= u; the tie helpers
correct p for the ties a linearly binned lattice (``binned_ties``) or a nearest-point lattice (``untie``) made.
Reference: docs/nk-method.md, "Exact engine" (N-fold laws).
"""

from __future__ import annotations

import numpy as np

from nkcore.nk.exact import convolve as cv
from nkcore.nk.exact.convolve import dot
from nkcore.nk.exact.item_law import ItemLaw

ERROR_COARSEN = 2
"""On a lattice of nearest points (N <= ``NEAREST_MAX_N``) p, the quantiles and the gap points are computed on
the ``NEAREST_POINTS`` lattice, and on one this many times coarser the ties the rounding made (``_untie``) and the
error terms (influence, quantile jumps): they are standard errors, which a step of 1 / 2^14 of the N-fold range
hardly moves (checked against a lattice 4 times finer: docs/nk-method.md, "Where the time goes")."""
LATTICES_KEPT = 4096
"""Most per-item lattices kept (the paper's full grid with four metrics puts about 1,000 on lattices: a grid
redrawn with the same laws, for another metric or budget, finds them all)."""
LATTICE_BYTES_KEPT = 256 << 20
"""... and at most this many bytes of them (the fine lattices of few items are up to 0.5 MB each)."""
_LATTICE_BYTES = 0
_LATTICES: dict[tuple[int, float, bool], tuple[ItemLaw, cv.Lattice]] = {}
"""Per-item laws already put on a lattice, by (law's id, step, nearest); the entry holds the law itself, so its id
stays its own while the entry lives. Every N of a K with an integer step shares the same lattice."""


def law_lattice(law: ItemLaw, h: float, near: bool) -> cv.Lattice:
    """``convolve.on_lattice`` of a per-item law, cached (the same law on the same step: the same lattice)."""
    key = (id(law), float(h), bool(near))
    got = _LATTICES.get(key)
    if got is not None and got[0] is law:
        return got[1]
    lat = cv.on_lattice(law.values, law.prob, h, near)
    global _LATTICE_BYTES
    if len(_LATTICES) >= LATTICES_KEPT or _LATTICE_BYTES > LATTICE_BYTES_KEPT:
        _LATTICES.clear()
        _LATTICE_BYTES = 0
    _LATTICES[key] = (law, lat)
    _LATTICE_BYTES += lat.pmf.nbytes
    return lat


def cdf(lat: cv.Lattice) -> np.ndarray:
    """P(S <= s) at each point of the lattice (clipped at 1 against round-off)."""
    out = np.cumsum(lat.pmf)
    return np.minimum(out, 1.0, out=out)


def quantiles(lat: cv.Lattice, cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Lattice indices of the u-quantiles: the smallest s with P(S <= s) >= u."""
    i = np.searchsorted(cdf, u - 1e-12, side="left")
    return lat.lo + np.minimum(i, lat.pmf.size - 1)


def p_on_lattice(
    s1: cv.Lattice, s0: cv.Lattice, flip: bool, cdf0: np.ndarray | None = None, binned_step: float | None = None
) -> float:
    """P(S0 >= S1), or P(S0 <= S1) after the sign rule, for two independent lattice laws on the same step
    (``cdf0``: S0's cdf, when already computed; ``binned_step`` not None: the lattice is a linear binning of laws
    that live on that integer step (0: on none), and the ties the binning made count by halves, ``binned_ties``).

    >>> b = cv.Lattice(1.0, 0, np.array([0.5, 0.5]))
    >>> p_on_lattice(b, b, False), p_on_lattice(cv.Lattice(1.0, 5, np.ones(1)), b, False)  # P(S0 >= S1); S1 = 5
    (0.75, 0.0)
    >>> p_on_lattice(cv.Lattice(1.0, -3, np.ones(1)), b, False), p_on_lattice(cv.Lattice(1.0, -3, np.ones(1)), b, True)
    (1.0, 0.0)
    """
    cdf0 = cdf(s0) if cdf0 is None else cdf0
    # at each point s of S1: P(S0 >= s) = 1 - P(S0 <= s - 1); flip: P(S0 <= s)
    shift = 0 if flip else -1
    first = s1.lo + shift - s0.lo  # position in cdf0 of S1's first point
    n1 = s1.pmf.size
    a = min(max(0, -first), n1)  # S1's points below S0's support: P(S0 <= s) = 0
    b = max(min(n1, cdf0.size - first), a)  # from here on above it: P(S0 <= s) = cdf0[-1] (1 up to round-off)
    below = dot(s1.pmf[a:b], cdf0[first + a : first + b]) + float(s1.pmf[b:].sum()) * float(cdf0[-1])
    p = min(max(below if flip else 1.0 - below, 0.0), 1.0)  # scalars: min / max, not np.clip (10 us a call)
    if binned_step is not None:
        p = min(max(p - 0.5 * binned_ties(s1, s0, binned_step), 0.0), 1.0)
    return float(p)


def common_step(alt: ItemLaw, null: ItemLaw) -> float:
    """The integer lattice both laws live on (the gcd of their steps), 0 when either is off every integer lattice.

    A point mass at 0 (two models that agree on every item) lives on every lattice: the other law's step serves.
    """
    st1, st0 = (law.step if law.step > 0 or law.values.size != 1 or law.values[0] != 0 else -1.0 for law in (alt, null))
    st1, st0 = (st1 if st1 != -1.0 else st0), (st0 if st0 != -1.0 else st1)
    return float(np.gcd(int(st1), int(st0))) if st1 > 0 and st0 > 0 else 0.0


def lattice_ties(s1: cv.Lattice, s0: cv.Lattice) -> float:
    """P(S0 = S1) for two independent laws on the same lattice.

    >>> b = cv.Lattice(1.0, 0, np.array([0.5, 0.5]))
    >>> lattice_ties(b, b), lattice_ties(b, cv.Lattice(1.0, 1, np.array([1.0])))
    (0.5, 0.5)
    """
    lo, hi = max(s1.lo, s0.lo), min(s1.hi, s0.hi)
    if hi < lo:
        return 0.0
    return dot(s1.pmf[lo - s1.lo : hi - s1.lo + 1], s0.pmf[lo - s0.lo : hi - s0.lo + 1])


def untie(p: float, s1: cv.Lattice, s0: cv.Lattice, c1: cv.Lattice, c0: cv.Lattice) -> tuple[float, float]:
    """p less half the ties a nearest-point lattice made, and that half (its error term): the ties made are
    (P(C0 = C1) - P(S0 = S1)) / (``ERROR_COARSEN`` - 1), C the sums on the lattice ``ERROR_COARSEN`` times coarser
    (``NEAREST_POINTS``: the ties made grow linearly with the step, while the laws' own ties, equal atoms, are
    ties on every lattice).

    >>> s = cv.Lattice(1.0, 0, np.array([0.5, 0.5]))
    >>> untie(0.75, s, s, cv.Lattice(2.0, 0, np.array([1.0])), cv.Lattice(2.0, 0, np.array([1.0])))
    (0.5, 0.25)
    """
    made = max(lattice_ties(c1, c0) - lattice_ties(s1, s0), 0.0) / (ERROR_COARSEN - 1)
    return min(max(p - 0.5 * made, 0.0), 1.0), 0.5 * made


def binned_ties(s1: cv.Lattice, s0: cv.Lattice, step: float) -> float:
    """The share of P(S0 = S1) on a linearly binned lattice of step h (the sums') that the binning made:
    P(S0 = S1) (1 - s / h), s the laws' own lattice step (0 for the log metrics' near-continuous values).

    Linear binning spreads each value over its two lattice neighbours, so S0 - S1, a near-continuous law with density
    f at 0, is 0 on the lattice with probability about f(0) h where the laws themselves tie with probability about
    f(0) s. p counts ties against the alternative, so binning biases it up by half the difference (a continuity
    correction; its check against the limit h -> 0: docs/nk-method.md, "N-fold laws").

    >>> b = cv.Lattice(4.0, 0, np.array([0.5, 0.5]))
    >>> binned_ties(b, b, 1.0)  # P(S0 = S1) = 0.5, of which (1 - 1/4) made by the binning
    0.375
    """
    if s1.h <= 0:
        return 0.0
    return lattice_ties(s1, s0) * max(0.0, 1.0 - step / s1.h)


__all__ = [
    "ERROR_COARSEN",
    "binned_ties",
    "cdf",
    "common_step",
    "lattice_ties",
    "law_lattice",
    "p_on_lattice",
    "quantiles",
    "untie",
]
