"""Nested draws for the small K of the exact engine: one stream of items whose first K ratings serve every K.

An estimated per-item law at small K (below ``pool.POOL_MIN_K``) can need many items: up to 1.6 million at K = 2
when two models are close and the p-value stays in play to N = 50,000 (``laws.needed_items``). Drawn afresh for
each K, item i is drawn once for K = 2, again for K = 3, and so on. Here the items of one side (alternative or
null) come in chunks of ``CHUNK``, each with its own seed, and every item's ratings are drawn one step at a time:
at step t gold, A and B each draw their t-th rating. The counts after K steps are the counts of that item at K,
so one pass serves every K, and an item drawn to step T costs T steps instead of 2 + 3 + ... + T.

The draws integrate beta and rho out (Polya urns, as ``samplers._urn_dataset``): a rating from beta_i ~
Dir(alpha) is category m with probability (alpha_m + n_m) / (alpha0 + n), n_m the item's earlier beta draws of
category m by any of the three machines; one from rho_i ~ Dir(1/M) likewise with (1/M + r_m) / (1 + r). Which
ratings come from rho is a coin per rating: B's with probability eps under the alternative (gamma = (1 - eps)
beta + eps rho), A's and B's with probability eps/2 under the null (spec "Generative model", "Null
hypothesis"). Both urns' sequences are exchangeable, so the first K draws of each machine, in this interleaved
order, have exactly the law of K draws each: the counts at every K are exact draws of the model at that K. The
counts at K depend on the first K steps only, so a law at K is the same whether other K are drawn with it or
not, and in whatever order (root seed ``NESTED_SEED``, a spawn key per side and chunk).
Reference: Blackwell & MacQueen (1973) for the Polya urn; spec "Generative model", "Null hypothesis".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from nkcore.nk.samplers import cumulative_to_counts, urn_thresholds

CHUNK = 1 << 15
"""Items per chunk (each its own seed; the first chunk is every small K's pilot)."""
NESTED_SEED = 20261215
"""Root seed of the nested draws (fixed: the engine's numbers have no seed)."""
MAX_STEPS = 127
"""Most ratings per item the int8 cumulative counts hold."""

Counts = tuple[np.ndarray, np.ndarray, np.ndarray]


def _rng(side: int, chunk: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(NESTED_SEED, spawn_key=(side, chunk)))


class _Urns:
    """The two urns of ``size`` items: cumulative thresholds (M - 1, size) and total masses (size,)."""

    def __init__(self, prior: np.ndarray, size: int) -> None:
        m = prior.size
        self.beta = urn_thresholds(np.cumsum(prior)[: m - 1], size)
        self.beta_total = np.full(size, float(prior.sum()))
        self.rho = urn_thresholds(np.arange(1, m) / m, size)
        self.rho_total = np.ones(size)
        # scratch arrays reused by every draw (the same arithmetic as fresh ones, without allocating per step)
        self._u, self._v, self._w = np.empty(size), np.empty(size), np.empty(size)
        self._coin, self._keep = np.empty(size, dtype=bool), np.empty(size, dtype=bool)
        self._ind, self._ind_r = np.empty((m - 1, size), dtype=bool), np.empty((m - 1, size), dtype=bool)

    def draw(self, rng: np.random.Generator, cum: np.ndarray, p_rho: float) -> None:
        """One rating per item into the cumulative counts ``cum`` (M - 1, size): from rho with probability
        ``p_rho`` (a coin per item), else from beta. Category <= j exactly when U total < threshold_j; the draw
        adds 1 to every threshold and cumulative count from its category on. Both urns are compared for every
        item and the coin masks one of them (faster than gathering the rho items: docs/benchmarks.md)."""
        u, ind = self._u, self._ind
        rng.random(out=u)
        np.less(np.multiply(u, self.beta_total, out=self._v), self.beta, out=ind)
        if p_rho > 0:
            coin, keep, ind_r = self._coin, self._keep, self._ind_r
            np.less(rng.random(out=self._w), p_rho, out=coin)
            np.logical_not(coin, out=keep)
            ind &= keep
            np.less(np.multiply(u, self.rho_total, out=self._v), self.rho, out=ind_r)
            ind_r &= coin
            self.rho += ind_r
            cum += ind_r.view(np.int8)
            self.rho_total += coin
            self.beta_total += keep
        else:
            self.beta_total += 1.0
        self.beta += ind
        cum += ind.view(np.int8)


def nested_chunk(
    prior: np.ndarray,
    eps: float,
    null: bool,
    chunk: int,
    ks: Sequence[int],
    visit: Callable[[int, Counts], None],
    size: int = CHUNK,
) -> None:
    """Draw chunk ``chunk`` of the side's stream to step max(ks) and call ``visit(K, (gold, A, B))`` at each K of
    ``ks`` with the counts (M, 1, size) after K steps (module doc: exact draws of the model at that K).

    >>> seen = {}
    >>> nested_chunk(np.array([1.0, 2.0, 3.0]), 0.3, False, 0, [2, 5], lambda k, c: seen.update({k: c}), 1000)
    >>> sorted(seen), [int(x.sum(axis=0).max()) for x in seen[5]]
    ([2, 5], [5, 5, 5])
    """
    top = max(ks)
    if top > MAX_STEPS:
        raise ValueError(f"nested draws hold at most {MAX_STEPS} ratings per item, asked for {top}")
    m = prior.size
    rng = _rng(int(null), int(chunk))
    urns = _Urns(prior, size)
    cums = [np.zeros((m - 1, size), dtype=np.int8) for _ in range(3)]
    p_a, p_b = (0.5 * eps, 0.5 * eps) if null else (0.0, eps)
    want = set(int(k) for k in ks)
    for step in range(1, top + 1):
        urns.draw(rng, cums[0], 0.0)  # gold: from beta
        urns.draw(rng, cums[1], p_a)
        urns.draw(rng, cums[2], p_b)
        if step in want:
            g, a, b = (cumulative_to_counts(c, step)[:, None, :] for c in cums)
            visit(step, (g, a, b))


__all__ = ["CHUNK", "NESTED_SEED", "nested_chunk"]
