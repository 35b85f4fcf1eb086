"""One pool of drawn items shared by every K: the per-item laws of the exact engine at large K, drawn nested.

An estimated per-item law at K needs the counts of gold, A and B of many items (``laws``). Drawing them afresh
for each of the paper's 35 values of K draws each item's beta_i, rho_i again and all K ratings again. Here the
items of one side (alternative or null) are drawn once per (prior, eps): their probabilities (beta_i for gold,
and A and B's per spec "Generative model" / "Null hypothesis", as in ``samplers._dirichlet_dataset``), and their
ratings come in blocks of ``BLOCK``: the counts at K = q BLOCK + r are the sum of blocks 0 .. q - 1 plus a
remainder of r ratings. A sum of independent Multinomial(BLOCK, p) and Multinomial(r, p) counts is a
Multinomial(K, p) count, so each K's items have exactly the law of the sampler's; only the laws of different
K now share items (they are correlated, each still exact in distribution). Every block and remainder has its own
seed (a spawn key of side and block, or side and K), so the counts at K do not depend on which K were
computed before or in which order: the same inputs give the same law (root seed ``POOL_SEED``). Cost per K: one remainder draw and, at
most, the new blocks (each BLOCK uniforms per item and machine), instead of K ratings per item.
Reference: spec "Generative model", "Null hypothesis"; the multinomial's additivity (Johnson, Kotz &
Balakrishnan, Discrete Multivariate Distributions, ch. 35).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from nkcore.common import limits
from nkcore.nk.samplers import count_dtype, draw_counts, draw_dirichlet, draw_noise

BLOCK = 20
"""Ratings per block (at most ``samplers.UNIFORM_MAX_K``: drawn by direct categorical draws)."""
POOL_MIN_K = 20
"""The pool serves K from here on (below, the Polya-urn sampler is cheaper, and most laws are exact)."""
PREFIXES_KEPT = 4
"""Block sums kept per pool (the largest q asked last; another q is summed again from its blocks' seeds), besides
those of the K named to ``keep_prefixes``."""
KEPT_BYTES = 256 << 20
"""At most this many bytes of block sums named to ``keep_prefixes`` per pool (at M = 12 a sum of the alternative's
32,768 items is about 2.4 MB: the paper's 25 K from 20 to 500 take 59 MB)."""
_KEEP: frozenset[int] = frozenset()
POOLS_KEPT = 2
"""Pools kept in the process (one per side and (prior, eps): a grid uses two); the oldest is dropped. At M = 12 a
pool holds about 16 MB (two float arrays of probabilities and ``PREFIXES_KEPT`` int16 block sums)."""
POOL_SEED = 20261201
"""Root seed of the pool's draws (fixed: the engine's numbers have no seed)."""

Counts = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass
class _Pool:
    """The items of one side: per machine (gold, A, B) the category-major probabilities (M, P), and block sums."""

    probs: tuple[np.ndarray, np.ndarray, np.ndarray]
    side: int
    sums: OrderedDict[int, Counts] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    kept: set[int] = field(default_factory=set)  # the q of ``sums`` kept for ``keep_prefixes``, never dropped
    kept_bytes: int = 0


_POOLS: OrderedDict[tuple[tuple[float, ...], float, int, int], _Pool] = OrderedDict()
_POOLS_LOCK = threading.Lock()


def _rng(*key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(POOL_SEED, spawn_key=key))


def _new_pool(prior: tuple[float, ...], eps: float, size: int, null: bool) -> _Pool:
    a = np.asarray(prior)
    limits.check_memory(4 * a.size * size * 8, "the pool of drawn items")
    side = int(null)
    rng = _rng(side, 0, 0)
    beta = draw_dirichlet(rng, a, (size,))
    mix = draw_noise(rng, a.size, (size,))
    w = 0.5 * eps if null else eps  # null: (beta + gamma) / 2 = (1 - eps/2) beta + (eps/2) rho
    mix *= w
    mix += (1.0 - w) * beta
    return _Pool((beta, mix, mix) if null else (beta, beta, mix), side)


def _pool(prior: tuple[float, ...], eps: float, size: int, null: bool) -> _Pool:
    key = (prior, float(eps), int(size), int(null))
    with _POOLS_LOCK:
        got = _POOLS.get(key)
        if got is None:
            got = _new_pool(prior, eps, size, null)
            _POOLS[key] = got
            while len(_POOLS) > POOLS_KEPT:
                _POOLS.popitem(last=False)
        else:
            _POOLS.move_to_end(key)
        return got


def _block(pool: _Pool, b: int) -> Counts:
    rng = _rng(pool.side, 1, b)
    g, a, x = (draw_counts(rng, p, BLOCK) for p in pool.probs)
    return g, a, x


def _block_sum(pool: _Pool, q: int) -> Counts | None:
    """Counts of blocks 0 .. q - 1 (None for q = 0), from the nearest kept sum below q (under the pool's lock)."""
    if q == 0:
        return None
    with pool.lock:
        got = pool.sums.get(q)
        if got is not None:
            pool.sums.move_to_end(q)
            return got
        below = [s for s in pool.sums if s < q]
        start = max(below) if below else 0
        dt = count_dtype(q * BLOCK)  # int16 while the counts fit (half the memory of a wider type)
        acc: list[np.ndarray] | None = [c.astype(dt) for c in pool.sums[start]] if start else None
        for b in range(start, q):
            blk = _block(pool, b)
            acc = [c.astype(dt) for c in blk] if acc is None else [s + c for s, c in zip(acc, blk, strict=True)]
            if b + 1 < q:
                _keep(pool, b + 1, (acc[0], acc[1], acc[2]))
        assert acc is not None
        out: Counts = (acc[0], acc[1], acc[2])
        pool.sums[q] = out
        _keep(pool, q, out)
        others = [s for s in pool.sums if s not in pool.kept]
        for s in others[: max(0, len(others) - PREFIXES_KEPT)]:  # the oldest first
            del pool.sums[s]
        return out


def _keep(pool: _Pool, q: int, sums: Counts) -> None:
    """Keep the sum of blocks 0 .. q - 1 if its K was named to ``keep_prefixes`` and ``KEPT_BYTES`` allows."""
    size = sum(c.nbytes for c in sums)
    if q in _KEEP and q not in pool.kept and pool.kept_bytes + size <= KEPT_BYTES:
        pool.sums[q] = sums
        pool.kept.add(q)
        pool.kept_bytes += size


def pooled_counts(prior: tuple[float, ...], eps: float, k: int, size: int, null: bool) -> Counts:
    """Gold, A and B counts (M, 1, size) of ``size`` items at K ratings each, from the side's shared pool.

    Counts at K = q BLOCK + r: blocks 0 .. q - 1 (each Multinomial(BLOCK, p_i) per item and machine, own seed)
    plus r ratings (own seed per K): Multinomial(K, p_i) in distribution (module doc).

    >>> g, a, b = pooled_counts((1.0, 2.0), 0.3, 45, 1000, False)
    >>> g.shape, bool((g.sum(axis=0) == 45).all()), bool((b.sum(axis=0) == 45).all())
    ((2, 1, 1000), True, True)
    >>> bool((pooled_counts((1.0, 2.0), 0.3, 45, 1000, False)[2] == b).all())  # no seed: the same counts
    True
    """
    pool = _pool(prior, eps, size, null)
    q, r = divmod(int(k), BLOCK)
    base = _block_sum(pool, q)
    dt = count_dtype(k)
    if r:
        rng = _rng(pool.side, 2, int(k))
        rem: list[np.ndarray] = [draw_counts(rng, p, r).astype(dt) for p in pool.probs]
        parts = rem if base is None else [s.astype(dt) + c for s, c in zip(base, rem, strict=True)]
    else:
        assert base is not None
        parts = [c.astype(dt) for c in base]
    return parts[0][:, None, :], parts[1][:, None, :], parts[2][:, None, :]


def keep_prefixes(ks: Iterable[int]) -> None:
    """From now on this process keeps the block sums of these K (within ``KEPT_BYTES`` per pool) whenever it computes
    them on the way to a larger K: for a process that takes the K in descending order, each a lookup after the
    first (the forked child of ``split.run_shared``)."""
    global _KEEP
    _KEEP = frozenset(int(k) // BLOCK for k in ks if int(k) >= BLOCK)


def clear_pools() -> None:
    """Forget every pool (for benchmarks that time a cold start)."""
    with _POOLS_LOCK:
        _POOLS.clear()


__all__ = ["BLOCK", "POOL_MIN_K", "POOL_SEED", "clear_pools", "keep_prefixes", "pooled_counts"]
