"""The exact engine on real data: the resampler's numbers (``resample.resample_cells``) without Monte Carlo noise.

The resampler draws N items uniformly with replacement from the qualifying pool Q (items with at least K
ratings), K of each item's ratings without replacement (multivariate hypergeometric on its label counts), and
scores the two models' fixed predictions against them; the null swaps each item's two predictions by a fair
coin, which negates that item's gap. So the per-item gap law is the mixture over i in Q (weight 1/|Q|) of
the law of d_i(g), g ~ MultiHypergeometric(counts_i, K), exact by enumerating every composition g of K
(probability prod_m C(c_im, g_m) / C(n_i, K)) while the pairs (item, composition it can give) number at most
``ENUM_MAX`` (checked among |Q| x C(K + M - 1, M - 1) <= ``ENUM_CANDIDATES`` pairs), else estimated
from ``draws_per_item`` draws of every item; the null law is its symmetrisation. The N-fold laws, p, Delta and
CI-width are those of the simulated cells (``cells.cell_numbers``).
- reproducibility: P(sign(S1) = the full data's direction); NaN when the full data shows no difference (there
  is no conclusion to reproduce).
- significant_share: Accuracy and Wins, exactly: the sign test (McNemar) on the discordant items rejects in
  the full data's direction iff the count ahead reaches its critical value c(n_d) among n_d discordant items;
  n_d ~ Binomial(N, P(d != 0)) and the count ahead given n_d ~ Binomial(n_d, P(d > 0) / P(d != 0)), so the
  share is sum_{n_d} P(n_d) P(ahead >= c(n_d)). Paired t-test metrics: NaN. The t statistic's law depends on the
  sample variance jointly with the mean, and the normal-theory shortcut (S1 / N beyond t sd / sqrt(N)) missed
  the resampler by up to 0.2 on heavy-tailed KL gaps, so the share is left to the resampler
  (``--method simulate``). Macro F1: the resampler (not an item mean).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from math import comb

import numpy as np
from scipy.special import gammaln

from nkcore.common import limits
from nkcore.common.counting import distinct_counts
from nkcore.nk.cell import RealPart, make_cell
from nkcore.nk.exact import split
from nkcore.nk.exact.cells import CellNumbers, cell_numbers
from nkcore.nk.exact.convolve import dot
from nkcore.nk.exact.item_law import ItemLaw, law_from_units, symmetrised
from nkcore.nk.exact.laws import ENGINE_SEED
from nkcore.nk.grid import Config
from nkcore.nk.metrics import METRICS, PAPER_METRICS, parse_metrics
from nkcore.nk.outcomes import compositions
from nkcore.nk.resample import (
    ALPHA,
    PairData,
    ResampleCell,
    draw_without_replacement,
    full_gaps,
    paired_test_name,
    resample_cells,
)
from nkcore.nk.scores import UNIT, item_gaps_indexed
from nkcore.nk.simulate import default_workers

ENUM_MAX = 1_000_000
"""Largest enumeration (pairs of a qualifying item and a composition of K it can give) of an exact real-data law."""
ENUM_CANDIDATES = 20_000_000
"""Largest number of (qualifying item, composition of K) pairs checked for whether the item can give it."""
DRAWS_MAX = 1_000_000
"""Draws in all (items x draws per item) of an estimated real-data law."""
PER_ITEM_CALLS = 20_000
"""Up to this many qualifying items an estimated law draws the ratings of the items with the same label counts in
one numpy call (items with the same counts share the call; their draws are split in item order)."""
FALLBACK_ROUNDS = 1000
"""Resampling rounds for macro F1 (not a mean over items)."""
_CACHE: dict[tuple[str, int, tuple[str, ...]], tuple[dict[str, ItemLaw], int]] = {}


def _fingerprint(data: PairData) -> str:
    h = hashlib.sha1()
    for arr in (data.counts, data.dist_a, data.dist_b, data.labels_a, data.labels_b):
        h.update(np.ascontiguousarray(arr).tobytes())
    h.update(b"p" if data.is_prob else b"h")
    return h.hexdigest()


def _units(mts: tuple[str, ...], gold: np.ndarray, data: PairData, idx: np.ndarray) -> dict[str, np.ndarray]:
    """Per-item gaps of each metric for the rows of ``gold`` (P, M), row r on item ``idx[r]``, in 2^-32 units
    (``scores.item_gaps_indexed``: the work the metrics share done once)."""
    gaps = item_gaps_indexed(mts, gold, data.dist_a, data.dist_b, data.labels_a, data.labels_b, idx, data.is_prob)
    return {mt: np.rint(d * UNIT).astype(np.int64) for mt, d in gaps.items()}


def _distinct_draws(gold: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (item, composition) pairs of ``gold`` (items, draws, M) with their multiplicities: (item rows,
    compositions (pairs, M), counts). The law from them, weighted by the counts, is the law of every draw (each
    pair's gap is the same number); only fewer gaps are computed. Compositions are keyed in base K + 1.

    >>> r, g, c = _distinct_draws(np.array([[[1, 0], [1, 0], [0, 1]]]), 1)
    >>> r.tolist(), g.tolist(), c.tolist()
    ([0, 0], [[1, 0], [0, 1]], [2.0, 1.0])
    """
    n_items, per, m = gold.shape
    if float(k + 1) ** m * n_items >= 2.0**62:  # keys would not fit: every draw as it is
        return np.repeat(np.arange(n_items), per), gold.reshape(-1, m), np.ones(n_items * per)
    base = np.int64(k + 1) ** np.arange(m, dtype=np.int64)
    keys = gold.astype(np.int64) @ base + np.arange(n_items, dtype=np.int64)[:, None] * np.int64(k + 1) ** m
    uniq, counts = distinct_counts(keys)
    rows = uniq // (np.int64(k + 1) ** m)
    rest = uniq % (np.int64(k + 1) ** m)
    comp = (rest[:, None] // base[None, :]) % (k + 1)
    return rows, comp.astype(gold.dtype), counts


def _feasible_pairs(counts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Every (item, composition g of K with g <= its counts) pair: item rows, compositions and ln P(g) under the
    multivariate hypergeometric, ln prod_m C(c_m, g_m) - ln C(n, K); None beyond ``ENUM_MAX`` pairs. Which
    compositions an item can give, and their probabilities, depend on its counts alone: computed once per distinct
    count vector, then repeated for its items.

    >>> row, g, logp = _feasible_pairs(np.array([[2, 1], [1, 1], [2, 1]]), 2)
    >>> row.tolist(), g.tolist(), np.exp(logp).round(4).tolist()
    ([0, 0, 1, 2, 2], [[1, 1], [2, 0], [1, 1], [1, 1], [2, 0]], [0.6667, 0.3333, 1.0, 0.6667, 0.3333])
    """
    m = counts.shape[1]
    comp = compositions(k, m)
    vecs, inv = np.unique(counts, axis=0, return_inverse=True)
    inv = inv.ravel()
    limits.check_memory(vecs.shape[0] * comp.shape[0] * 2, "the real data's exact per-item law")
    ok = comp[:, 0][None, :] <= vecs[:, 0][:, None]
    for j in range(1, m):  # one 2-d comparison per category (cheaper than a 3-d one reduced over categories)
        ok &= comp[:, j][None, :] <= vecs[:, j][:, None]
    per_vec = ok.sum(axis=1)
    reps = per_vec[inv]
    if int(reps.sum()) > ENUM_MAX:
        return None
    vrow, vcol = np.nonzero(ok)  # (vector, composition) pairs, grouped by vector
    start = np.cumsum(per_vec) - per_vec
    lf = gammaln(np.arange(int(vecs.sum(-1).max()) + 1) + 1.0)  # ln x! from a table, not a ufunc per pair
    cv_, gv = vecs[vrow], comp[vcol]
    n_v = cv_.sum(-1)
    logp_v = (lf[cv_] - lf[gv] - lf[cv_ - gv]).sum(-1) - lf[n_v] + lf[k] + lf[n_v - k]
    first = np.cumsum(reps) - reps
    at = np.repeat(start[inv] - first, reps) + np.arange(int(reps.sum()))  # each item's run of its vector's pairs
    return np.repeat(np.arange(counts.shape[0]), reps), gv[at], logp_v[at]


def real_item_laws(data: PairData, k: int, metrics: Sequence[str]) -> tuple[dict[str, ItemLaw], int]:
    """Per metric, the alternative's per-item gap law at K (module doc), and how many items qualify (cached)."""
    mts = tuple(metrics)
    key = (_fingerprint(data), int(k), mts)
    got = _CACHE.get(key)  # one read: another thread of a server may empty the cache between two
    if got is not None:
        return got
    qual = np.flatnonzero(data.counts.sum(axis=1) >= k)
    m = data.counts.shape[1]
    out: dict[str, ItemLaw] = {}
    if qual.size == 0:
        return out, 0
    n_comp = comb(k + m - 1, m - 1)
    units: dict[str, list[np.ndarray]] = {mt: [] for mt in mts}
    weights: list[np.ndarray] = []
    pairs = _feasible_pairs(data.counts[qual], k) if qual.size * n_comp <= ENUM_CANDIDATES else None
    if pairs is not None:
        limits.check_memory(ENUM_MAX * m * 8 * 6, "the real data's exact per-item law")
        row, gold, logp = pairs
        prob = np.exp(logp) / qual.size
        for mt, u in _units(mts, gold, data, qual[row]).items():
            units[mt].append(u)
        weights.append(prob)
        exact, n_items = True, 0
    else:
        per = max(1, DRAWS_MAX // qual.size)
        rng = np.random.default_rng(np.random.SeedSequence(ENGINE_SEED, spawn_key=(k, 2)))
        limits.check_memory(qual.size * per * m * 8 * 8, "the real data's estimated per-item law")
        if qual.size <= PER_ITEM_CALLS:  # numpy's multivariate hypergeometric, one call per distinct count vector
            vecs, inv = np.unique(data.counts[qual], axis=0, return_inverse=True)
            inv = inv.ravel()
            gold = np.empty((qual.size, per, m), dtype=np.int64)
            for v in range(vecs.shape[0]):
                rows = np.flatnonzero(inv == v)
                draws = rng.multivariate_hypergeometric(vecs[v], k, size=per * rows.size)
                gold[rows] = draws.reshape(rows.size, per, m)
        else:
            gold = draw_without_replacement(rng, np.repeat(data.counts[qual][:, None, :], per, axis=1), k)
        rows, gold_rows, mult = _distinct_draws(gold, k)
        # each distinct (item, composition) scored once, weighted by how often it was drawn
        for mt, u in _units(mts, gold_rows, data, qual[rows]).items():
            units[mt].append(u)
        weights.append(mult)
        exact, n_items = False, qual.size * per
    w = np.concatenate(weights)
    for mt in mts:
        out[mt] = law_from_units(np.concatenate(units[mt]), w, UNIT, exact, n_items)
    _remember(key, out, int(qual.size))
    return out, int(qual.size)


def _remember(key: tuple[str, int, tuple[str, ...]], laws: dict[str, ItemLaw], n_qual: int) -> None:
    """Put one K's laws into ``_CACHE`` (its one writer: the laws computed here and those of a forked child), at
    most 256 entries."""
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = (laws, n_qual)


@lru_cache(maxsize=256)
def _critical_counts(n: int, significance: float) -> np.ndarray:
    """For m = 0 .. n discordant items, the sign test's critical count c(m): the smallest a > m / 2 with
    2 P(Bin(m, 1/2) >= a) < significance (the test's p < significance). Depends on (n, significance) only: cached.

    >>> _critical_counts(10, 0.05)[[5, 6, 10]].tolist()  # 6 of 6: p = 0.031; 9 of 10: p = 0.021
    [6.0, 6.0, 9.0]
    """
    from scipy import stats  # on demand: scipy.stats is slow to import (the CLI's start-up)

    m = np.arange(n + 1)
    c = stats.binom.isf(significance / 2, m, 0.5) + 1
    c = np.where(2.0 * stats.binom.sf(c - 1, m, 0.5) < significance, c, c + 1)
    out = np.maximum(c, np.floor(m / 2) + 1)
    out.setflags(write=False)
    return out


_NULLS: dict[int, tuple[ItemLaw, ItemLaw]] = {}
"""The null law of each alternative law in use (by its id; the entry holds the law, so the id stays its own)."""


def _null_of(law: ItemLaw) -> ItemLaw:
    """``symmetrised(law)``, computed once per law (and so one object, whose lattices ``cells`` caches)."""
    got = _NULLS.get(id(law))
    if got is not None and got[0] is law:
        return got[1]
    if len(_NULLS) > 1024:
        _NULLS.clear()
    null = symmetrised(law)
    _NULLS[id(law)] = (law, null)
    return null


def _numbers_of_k(
    data: PairData, k: int, cfgs: list[Config], metrics: tuple[str, ...]
) -> tuple[dict[str, ItemLaw], int, dict[tuple[int, str], CellNumbers]]:
    """The laws at K, its qualifying items, and the engine's numbers of each of its cells (budget, metric)."""
    laws, n_qual = real_item_laws(data, k, metrics)
    if n_qual == 0:
        return laws, 0, {}
    return (
        laws,
        n_qual,
        {(cfg.budget, mt): cell_numbers(law, _null_of(law), cfg.n) for cfg in cfgs for mt, law in laws.items()},
    )


SPLIT_MIN_KS = 4
"""A real-data grid of this many values of K or more runs on two processes where the machine has two cores
(``split``; the wall times behind the threshold: docs/benchmarks.md). Fewer K: threads (a fork is not repaid)."""


def sign_test_share(law: ItemLaw, n: int, direction: int, significance: float) -> float:
    """Share of rounds in which the exact two-sided sign test on the discordant items rejects in ``direction``.

    >>> from nkcore.nk.exact.item_law import law_from_units
    >>> round(sign_test_share(law_from_units(np.array([1, 0, -1]), np.array([0.5, 0.4, 0.1]), 1.0, True, 0), 30, 1, 0.05), 3)
    0.809
    """
    if direction == 0:
        return 0.0
    ahead = float(law.prob[law.values * direction > 0].sum())
    behind = float(law.prob[law.values * direction < 0].sum())
    q = ahead + behind
    if q <= 0:
        return 0.0
    from scipy import stats  # on demand (see _critical_counts)

    m = np.arange(n + 1)
    p_m = stats.binom.pmf(m, n, q)
    c = _critical_counts(int(n), float(significance))
    reach = np.where(c <= m, stats.binom.sf(c - 1, m, ahead / q), 0.0)
    return dot(p_m, reach)


def exact_resample_cells(
    data: PairData,
    configs: Sequence[Config],
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    significance: float = ALPHA,
    progress: Callable[[float], None] | None = None,
    processes: int | None = None,
) -> list[ResampleCell]:
    """``resample.resample_cells`` from the exact engine: one ``ResampleCell`` per configuration and metric.

    ``rounds`` = 0, ``alt`` / ``null`` hold 1000 quantile points; configurations where no item has K ratings are
    left out (as the resampler does). Macro F1 comes from the resampler (1000 rounds, seed 0). ``progress``
    (optional) receives the share of K done after each K (on two processes: after each of this process's K and
    while it waits for the other's); an exception it raises stops the run (the K not started are dropped). With
    ``SPLIT_MIN_KS`` values of K or more and two ``processes`` (default ``split.processes()``), the K are shared
    with a forked child (``split.run_shared``) and the laws it computed join this process's cache; else each K runs
    on a thread. The numbers depend on neither.
    """
    mts = parse_metrics(metrics)
    full = full_gaps(data, mts)
    item = tuple(m for m in mts if METRICS[m].per_item)
    rest = [m for m in mts if not METRICS[m].per_item]
    out: list[ResampleCell] = []
    f1 = {
        (c.budget, c.k, c.metric): c
        for mt in rest
        for c in resample_cells(data, configs, [mt], FALLBACK_ROUNDS, 0, significance)
    }
    by_k: dict[int, list[Config]] = {}
    for cfg in configs:
        by_k.setdefault(cfg.k, []).append(cfg)
    ks = sorted(by_k)
    done: dict[int, tuple[dict[str, ItemLaw], int, dict[tuple[int, str], CellNumbers]]] = {}
    if item and len(ks) >= SPLIT_MIN_KS and split.processes(processes) > 1:
        done = split.run_shared(
            None,
            0.0,
            ks,
            [1.0] * len(ks),
            lambda k: _numbers_of_k(data, k, by_k[k], item),
            lambda got: None,
            lambda extra: None,
            progress,
        )
        fp = _fingerprint(data)
        for k, (laws, n_qual, _) in done.items():  # the child's laws join this process's cache
            if n_qual and (fp, k, item) not in _CACHE:
                _remember((fp, k, item), laws, n_qual)
    elif item and ks:  # each K on a thread of its own (numpy releases the GIL in the heavy calls); the same numbers
        with ThreadPoolExecutor(max_workers=min(default_workers(), len(ks))) as pool:
            futures = [pool.submit(_numbers_of_k, data, k, by_k[k], item) for k in ks]
            try:
                for i, (k, fut) in enumerate(zip(ks, futures, strict=True)):
                    done[k] = fut.result()
                    if progress is not None:
                        progress((i + 1) / len(ks))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    for cfg in configs:
        laws, n_qual, numbers = done.get(cfg.k, ({}, 0, {}))
        for mt in mts:
            if not METRICS[mt].per_item:  # not a mean over items (macro F1): the resampler's cell
                if (cfg.budget, cfg.k, mt) in f1:
                    out.append(f1[(cfg.budget, cfg.k, mt)])
                continue
            if n_qual == 0:
                continue
            c, law = numbers[(cfg.budget, mt)], laws[mt]
            direction = int(np.sign(full[mt]))
            behind = 1.0 - c.reproducibility - c.ties
            repro = {1: c.reproducibility, -1: behind}.get(direction, float("nan"))
            sig = sign_test_share(law, cfg.n, direction, significance) if METRICS[mt].sign_test else float("nan")
            real = RealPart(full[mt], direction, sig, n_qual, paired_test_name(mt))
            out.append(make_cell(cfg.budget, cfg.k, cfg.n, mt, c, 0, reproducibility=repro, real=real))
    return out


def clear_real_caches() -> None:
    """Forget the cached real-data laws and their null laws (for benchmarks that time a cold start)."""
    _CACHE.clear()
    _NULLS.clear()


exact_resample_grid = exact_resample_cells
"""The same function under the grid's name."""

__all__ = [
    "ENUM_CANDIDATES",
    "ENUM_MAX",
    "clear_real_caches",
    "exact_resample_cells",
    "exact_resample_grid",
    "real_item_laws",
    "sign_test_share",
]
