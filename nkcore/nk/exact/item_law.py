"""One item's gap law in integer units (``ItemLaw``), and how the engine builds and reshapes one.

- ``law_from_units``: the law of per-item units, exact (weighted outcome types) or estimated (drawn items);
  counted by ``np.bincount`` over a narrow integer range, else by one sort or by hashing (``DISTINCT_PROBE``); more
  than ``RAW_MAX`` distinct values are binned linearly onto ``LAW_BINS`` steps;
- ``tilted``: an estimated law with its mean set to the exact mean (exponential tilting);
- ``symmetrised``: the law of a fair sign times d (the null's, whose A and B are exchangeable).
Where the units come from (outcome laws, drawn items) and the cache of laws: ``laws``. Reference:
docs/nk-method.md, "Exact engine"; the units of ``count_gaps.item_units_cm``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from nkcore.common.counting import distinct_counts, sorted_counts
from nkcore.nk.exact.convolve import dot, integer_step, moments

RAW_MAX = 1 << 15
"""An estimated law keeps its distinct values exactly up to this many (its ties with the other law are exact)."""
LAW_BINS = 4096
"""Most distinct values an estimated law keeps (more: linear binning onto this many steps over its range)."""
BINCOUNT_SPAN = 1 << 16
"""Integer units whose range is at most this (or at most their number) are counted by ``np.bincount``, not sorted."""
DISTINCT_PROBE = 1024
"""Unweighted units over a wide range are counted by one sort (``sorted_counts``) when they are at most 2
``RAW_MAX`` and 95% of their first this many are distinct, else by hashing (``distinct_counts``): whichever was
faster (docs/benchmarks.md). Either gives the same law."""


@dataclass(frozen=True, slots=True)
class ItemLaw:
    """The law of one item's gap in integer units: ``values`` (sorted, distinct) with probabilities ``prob``.

    scale: units per unit of gap (the gap is values / scale); exact: computed, not estimated; n_items: items the
    estimate rests on (0 when exact); mean, var, skew, kurt (excess): of the units; mean_se: standard error of
    ``mean`` (0 when exact, and for the symmetrised null whose mean is 0 by exchangeability); step: the lattice
    the values live on (every value a multiple of it); pinned: an estimated law whose mean was set to the exact
    mean (``means.exact_mean``, by exponential tilting: p_i exp(theta v_i), the closest law in relative entropy
    with that mean), so ``mean_se`` is the quadrature's error and only the shape is estimated. A law with more than
    ``RAW_MAX`` distinct values is kept on a lattice of ``LAW_BINS`` steps over its range by linear binning (the
    mean is kept exactly; the variance grows by at most step^2 / 4, a few parts in a million of it).
    """

    values: np.ndarray = field(repr=False)
    prob: np.ndarray = field(repr=False)
    scale: float
    exact: bool
    n_items: int
    mean: float
    var: float
    mean_se: float
    skew: float = 0.0
    kurt: float = 0.0
    step: float = 0.0
    pinned: bool = False


def law_from_units(units: np.ndarray, weights: np.ndarray | None, scale: float, exact: bool, n: int) -> ItemLaw:
    """The law of integer ``units`` (with optional ``weights``; else equal weights): exact, or from n items.

    >>> law = law_from_units(np.array([2, -2, 2, 0]), None, 2.0, False, 4)
    >>> law.values.tolist(), law.prob.tolist(), law.mean, law.step
    ([-2.0, 0.0, 2.0], [0.25, 0.25, 0.5], 0.5, 2.0)
    """
    u = np.asarray(units).ravel()
    w = None if weights is None else np.asarray(weights).ravel()
    lo, hi = (int(u.min()), int(u.max())) if u.size and u.dtype.kind in "iu" else (0, -1)
    if hi >= lo and hi - lo <= max(BINCOUNT_SPAN, u.size):  # a narrow integer range: counted, not sorted
        prob = np.bincount(u.astype(np.int64) - lo, weights=w, minlength=hi - lo + 1)
        vals = np.flatnonzero(prob) + lo
        prob = prob[vals - lo]
    elif (
        w is None and u.size <= 2 * RAW_MAX and np.unique(u[:DISTINCT_PROBE]).size >= 0.95 * min(u.size, DISTINCT_PROBE)
    ):
        vals, prob = sorted_counts(u)  # a wide range (the log metrics' 2^32 units), few items, mostly distinct
    elif u.size <= RAW_MAX:  # weighted (an exact law's outcome types), or few distinct values, few items: sorted
        vals, prob = _sorted_distinct(u, w)
    else:  # many items: hashed; sorted only if kept as they are
        vals, prob = distinct_counts(u, w, sort=False)
        if vals.size <= RAW_MAX:
            order = np.argsort(vals)
            vals, prob = vals[order], prob[order]
    prob = prob / prob.sum()
    return _make(vals.astype(np.int64), prob, scale, exact, n)


def _sorted_distinct(u: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``u``, ascending, and per value its count or the sum of its weights ``w``: the same numbers
    as ``distinct_counts`` then sorted (``np.bincount`` sums each value's weights in the order of ``u`` either way),
    without hashing, whose pandas import costs a cold process more than sorting a few thousand values.

    >>> [x.tolist() for x in _sorted_distinct(np.array([5, 4, 5]), np.array([0.5, 0.25, 0.25]))]
    [[4, 5], [0.25, 0.75]]
    """
    if w is None:
        return sorted_counts(u)
    vals, inv = np.unique(u, return_inverse=True)
    return vals, np.bincount(inv.ravel(), weights=w, minlength=vals.size).astype(float)


def _make(vals: np.ndarray, prob: np.ndarray, scale: float, exact: bool, n: int, se: float | None = None) -> ItemLaw:
    """An ``ItemLaw`` with its moments and lattice step; more than ``LAW_BINS`` values: binned (class doc)."""
    v = vals.astype(float)
    mean = dot(prob, v)
    if vals.dtype.kind == "i" and vals.size > RAW_MAX:  # binned: the values need not come sorted
        lo, hi = float(v.min()), float(v.max())
        h = (hi - lo) / LAW_BINS
        x = (v - lo) / h
        j = np.minimum(np.floor(x).astype(np.int64), LAW_BINS - 1)
        f = x - j
        binned = np.bincount(j, weights=prob * (1.0 - f), minlength=LAW_BINS + 1)
        binned += np.bincount(j + 1, weights=prob * f, minlength=LAW_BINS + 1)
        v = lo + h * np.arange(LAW_BINS + 1)
        keep = binned > 0
        v, prob = v[keep], binned[keep] / binned.sum()
        step = 0.0
    else:
        step = float(integer_step(vals)) if vals.dtype.kind == "i" else 0.0
    mom = moments(v, prob)  # its mean: that of the values as they came, which binning keeps (up to round-off)
    var, skew, kurt = mom.var, mom.skew, mom.kurt
    if se is None:
        se = 0.0 if exact or n == 0 else float(np.sqrt(var / n))
    return ItemLaw(v, prob, float(scale), exact, n, mean, var, se, skew, kurt, max(step, 1.0) if step else 0.0)


def tilted(law: ItemLaw, mean: float, mean_se: float) -> ItemLaw:
    """The law p_i exp(theta v_i) / Z with the given mean (Newton on theta), marked ``pinned``.

    >>> law = tilted(law_from_units(np.array([-1, 0, 1, 1]), None, 1.0, False, 4), 0.3, 0.0)
    >>> round(law.mean, 12), law.pinned, law.values.tolist()
    (0.3, True, [-1.0, 0.0, 1.0])
    """
    v = law.values
    sd = float(np.sqrt(law.var))
    if sd <= 0 or not v[0] < mean < v[-1]:
        return law
    u = (v - law.mean) / sd
    target = (mean - law.mean) / sd
    theta = 0.0
    for _ in range(50):
        e = law.prob * np.exp(theta * u - np.max(theta * u))
        q = e / e.sum()
        mu = dot(q, u)
        var = dot(q, (u - mu) ** 2)
        if abs(mu - target) < 1e-13 or var <= 0:
            break
        theta -= (mu - target) / var
    out = _make(v, q, law.scale, law.exact, law.n_items, mean_se)
    return replace(out, mean=float(mean), step=law.step, pinned=True)


def symmetrised(law: ItemLaw) -> ItemLaw:
    """The law of s d with s a fair sign independent of d: (L(d) + L(-d)) / 2 (mean exactly 0, mean_se 0).

    >>> law = symmetrised(law_from_units(np.array([-1, 1, 1, 0]), None, 1.0, False, 4))
    >>> law.values.tolist(), law.prob.tolist(), law.mean
    ([-1.0, 0.0, 1.0], [0.375, 0.25, 0.375], 0.0)
    """
    vals = np.concatenate([law.values, -law.values])
    w = np.concatenate([law.prob, law.prob])
    uniq, inv = np.unique(vals, return_inverse=True)
    prob = np.bincount(inv, weights=w, minlength=uniq.size)
    out = _make(uniq + 0.0, prob / prob.sum(), law.scale, law.exact, law.n_items, 0.0)  # + 0.0: no -0.0
    return ItemLaw(out.values, out.prob, out.scale, out.exact, out.n_items, 0.0, out.var, 0.0, 0.0, out.kurt, law.step)


__all__ = ["LAW_BINS", "RAW_MAX", "ItemLaw", "law_from_units", "symmetrised", "tilted"]
