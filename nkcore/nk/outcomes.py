"""The exact law of one item's (gold, A, B) counts, and whole datasets drawn as counts of outcome types.

With K ratings per item and M categories an item can only end in finitely many outcomes: gold counts g, A's
counts a and B's counts b, each a composition of K into M parts (C(K + M - 1, M - 1) of them). Items are
independent and identically distributed (spec "Generative model": beta_i, rho_i drawn per item), and every
metric is either a mean over items of a per-item gap or (macro F1) a function of per-class tallies, so a
dataset of N items is summarised EXACTLY by how many of its items end in each outcome type:
    counts of types ~ Multinomial(N, pi),  score gap = sum_t counts_t d_t / N.
When there are fewer types than items this is much cheaper than drawing every item (the engine's ``auto``
choice, ``use_types``); the distribution of every score gap is the same.

pi is computed exactly from Dirichlet moments, E[prod_m beta_m^n_m] = prod_m a_m^(n_m) / a0^(|n|) (rising
factorials), by splitting each machine's K responses into those drawn from beta and those drawn from rho:
- alternative: G, A from beta; each of B's responses from rho with probability eps (gamma = (1-eps) beta + eps rho);
- null: G from beta; each response of A and of B from rho with probability eps/2 (fair coin between beta and
  gamma), the rest from beta;
P(g, a, j, r) = [K!/(g!)] [K!/(a!)] [K!/(j! r!)] (1-eps)^|j| eps^|r| E[beta^(g+a+j)] E[rho^r] for the
alternative (b = j + r), and likewise with two splits for the null. Reference: spec "Generative model",
"Null hypothesis"; Minka (2000) for Dirichlet moments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np
from scipy.special import gammaln, xlogy

from nkcore.common import limits
from nkcore.nk.count_gaps import item_units_cm, plurality_cm
from nkcore.nk.metrics import METRICS
from nkcore.nk.scores import macro_f1_from_tallies

MAX_TERMS = 250_000
"""Largest enumeration (terms of the sum over response splits) computed for an exact law."""


@dataclass(frozen=True, slots=True)
class OutcomeLaw:
    """Law of one item's outcome: ``gold``, ``a``, ``b`` are (T, M) counts of the T types, ``prob`` (T,) sums to 1."""

    k: int
    null: bool
    gold: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    prob: np.ndarray = field(repr=False)


def compositions(k: int, m: int) -> np.ndarray:
    """Every vector of M whole numbers >= 0 that sums to K (the possible counts of K ratings), (C, M).

    >>> compositions(2, 2).tolist()
    [[0, 2], [1, 1], [2, 0]]
    """
    rows = []
    for bars in combinations(range(k + m - 1), m - 1):
        edges = (-1, *bars, k + m - 1)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(m)])
    return np.array(rows, dtype=np.int64).reshape(-1, m)


def n_types(k: int, m: int) -> int:
    """Number of outcome types of one item: C(K + M - 1, M - 1) cubed.

    >>> n_types(1, 2), n_types(2, 3)
    (8, 216)
    """
    return comb(k + m - 1, m - 1) ** 3


def n_terms(k: int, m: int, null: bool) -> int:
    """Terms of the exact sum: compositions of gold (and of A) times the splits of a machine into beta / rho."""
    c = comb(k + m - 1, m - 1)
    splits = sum(comb(s + m - 1, m - 1) * comb(k - s + m - 1, m - 1) for s in range(k + 1))
    return c * splits * splits if null else c * c * splits


def use_types(n: int, k: int, m: int) -> bool:
    """The engine's rule: draw datasets as counts of outcome types when that is cheaper than drawing items.

    Cost model (timed on 2 cores, docs/benchmarks.md): about 40 ns per outcome type and round (a multinomial draw and the sums)
    against about 60 + 20 M + 5 K M ns per item and round (draws and metrics), i.e.
    T <= N (1.5 + M/2 + K M/8). A fixed function of (N, K, M), never of the seed or the worker count; the
    exact law must also be small enough to compute (``law_fits``).

    >>> use_types(100, 1, 2), use_types(100, 4, 3), use_types(2500, 1, 12)
    (True, False, True)
    """
    return 8 * n_types(k, m) <= n * (12 + 4 * m + k * m) and law_fits(k, m)


def law_fits(k: int, m: int) -> bool:
    """The exact law of (K, M) is small enough to compute (``MAX_TERMS``) and its type keys fit in int64."""
    small = max(n_terms(k, m, False), n_terms(k, m, True)) <= MAX_TERMS
    return small and (k + 1) ** (3 * m) < 2**62


def _log_moment(prior: np.ndarray, n: np.ndarray) -> np.ndarray:
    """ln E[prod_m x_m^n_m] for x ~ Dirichlet(alpha); ``n`` (..., M) whole numbers."""
    a0 = prior.sum()
    return (gammaln(prior + n) - gammaln(prior)).sum(axis=-1) - (gammaln(a0 + n.sum(axis=-1)) - gammaln(a0))


def _log_coef(c: np.ndarray) -> np.ndarray:
    """ln of the multinomial coefficient |c|! / prod_m c_m! for counts (..., M)."""
    return gammaln(c.sum(axis=-1) + 1.0) - gammaln(c + 1.0).sum(axis=-1)


def _splits(k: int, m: int, p_rho: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every split of K responses into counts from beta (j) and from rho (r), with ln P(j, r | beta, rho) minus
    the moments: ln [K! / (j! r!)] + |j| ln(1 - p_rho) + |r| ln p_rho. Shapes (S, M), (S, M), (S,)."""
    js, rs = [], []
    for s in range(k + 1):
        cj, cr = compositions(s, m), compositions(k - s, m)
        js.append(np.repeat(cj, len(cr), axis=0))
        rs.append(np.tile(cr, (len(cj), 1)))
    j, r = np.concatenate(js), np.concatenate(rs)
    nj, nr = j.sum(axis=1), r.sum(axis=1)
    logw = gammaln(k + 1.0) - gammaln(j + 1.0).sum(axis=1) - gammaln(r + 1.0).sum(axis=1)
    logw = logw + xlogy(nj, 1.0 - p_rho) + xlogy(nr, p_rho)
    return j, r, logw


@lru_cache(maxsize=64)
def _law(prior: tuple[float, ...], eps: float, k: int, null: bool) -> OutcomeLaw:
    a = np.asarray(prior, dtype=float)
    m = a.size
    # every term holds 3 machines' counts (int64), their beta / rho sums and keys: about 12 M + 8 numbers
    limits.check_memory(n_terms(k, m, null) * (12 * m + 8) * 8, f"the exact outcome law of K = {k:,}, M = {m:,}")
    noise = np.full(m, 1.0 / m)
    g = compositions(k, m)
    lg = _log_coef(g)
    if null:
        j, r, lw = _splits(k, m, 0.5 * eps)
        # axes: (gold, split of A, split of B)
        beta_n = g[:, None, None, :] + j[None, :, None, :] + j[None, None, :, :]
        rho_n = r[:, None, :] + r[None, :, :]
        logp = lg[:, None, None] + lw[None, :, None] + lw[None, None, :] + _log_moment(a, beta_n)
        logp = logp + _log_moment(noise, rho_n)[None, :, :]
        ta, tb = (j + r)[None, :, None, :], (j + r)[None, None, :, :]
    else:
        j, r, lw = _splits(k, m, eps)
        # axes: (gold, A, split of B)
        beta_n = g[:, None, None, :] + g[None, :, None, :] + j[None, None, :, :]
        logp = lg[:, None, None] + lg[None, :, None] + lw[None, None, :] + _log_moment(a, beta_n)
        logp = logp + _log_moment(noise, r)[None, None, :]
        ta, tb = g[None, :, None, :], (j + r)[None, None, :, :]
    shape = logp.shape
    tg = np.broadcast_to(g[:, None, None, :], (*shape, m)).reshape(-1, m)
    ta = np.broadcast_to(ta, (*shape, m)).reshape(-1, m)
    tb = np.broadcast_to(tb, (*shape, m)).reshape(-1, m)
    p = np.exp(logp.ravel())
    base = (k + 1) ** np.arange(m, dtype=np.int64)
    key = ((tg @ base) * (k + 1) ** m + ta @ base) * (k + 1) ** m + tb @ base
    uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
    prob = np.bincount(inv.ravel(), weights=p, minlength=uniq.size)
    prob = prob / prob.sum()
    return OutcomeLaw(k, null, tg[first], ta[first], tb[first], prob)


def outcome_law(prior: Sequence[float] | np.ndarray, eps: float, k: int, null: bool) -> OutcomeLaw:
    """The exact law of one item's (gold, A, B) counts under the alternative or the null (cached).

    >>> law = outcome_law((1.37658107, 1.33054633), 0.3, 1, null=False)
    >>> law.prob.size, round(float(law.prob @ ((law.a == law.gold).all(1) * 1.0 - (law.b == law.gold).all(1))), 4)
    (8, 0.0405)
    """
    return _law(tuple(float(x) for x in prior), float(eps), int(k), bool(null))


def type_gaps(law: OutcomeLaw, type_counts: np.ndarray, n: int, metrics: Sequence[str]) -> dict[str, np.ndarray]:
    """Score gaps of datasets given as counts of outcome types (R, T) with N items each.

    Item-mean metrics: sum_t counts_t units_t / (scale N), the same integer units as the per-item kernel
    (``item_units_cm``), so the numbers equal the per-item engine's on the same items. Macro F1: per-class
    tallies of the plurality labels (true positives, gold + machine label counts) summed over types.
    """
    m = law.gold.shape[1]
    cm = [np.ascontiguousarray(x.T)[:, :, None] for x in (law.gold, law.a, law.b)]  # (M, T, 1): one item per type
    units = item_units_cm(cm[0], cm[1], cm[2], law.k, [x for x in metrics if METRICS[x].per_item])
    counts = np.asarray(type_counts, dtype=np.int64)
    out: dict[str, np.ndarray] = {}
    for metric in metrics:
        if not METRICS[metric].per_item:  # macro F1, from per-class tallies
            lg, la, lb = (plurality_cm(c)[:, 0] for c in cm)
            cls = np.arange(m)
            gold_c = counts @ (lg[:, None] == cls).astype(np.int64)
            f1 = []
            for lab in (la, lb):
                tp = counts @ ((lg[:, None] == cls) & (lab[:, None] == cls)).astype(np.int64)
                f1.append(macro_f1_from_tallies(tp, gold_c + counts @ (lab[:, None] == cls).astype(np.int64)))
            out[metric] = f1[0] - f1[1]
        else:
            u, scale = units[metric]
            out[metric] = (counts @ u[:, 0].astype(np.int64)) / (scale * n)
    return out


def draw_type_counts(rng: np.random.Generator, law: OutcomeLaw, n: int, rounds: int) -> np.ndarray:
    """Counts of outcome types (rounds, T) of ``rounds`` datasets of N items: Multinomial(N, pi) each."""
    return rng.multinomial(n, law.prob, size=rounds)


def draw_item_types(rng: np.random.Generator, law: OutcomeLaw, n: int, rounds: int) -> np.ndarray:
    """The outcome type (an index into the law) of every item of ``rounds`` datasets, (rounds, N)."""
    return rng.choice(law.prob.size, size=(rounds, n), p=law.prob)


__all__ = [
    "MAX_TERMS",
    "OutcomeLaw",
    "compositions",
    "draw_item_types",
    "draw_type_counts",
    "law_fits",
    "n_terms",
    "n_types",
    "outcome_law",
    "type_gaps",
    "use_types",
]
