"""Per-item gap laws of the (N, K) engine: the law of one item's gap, in integer units, per metric.

Every item metric of the paper is a mean over items of a per-item gap d (``count_gaps.item_units_cm``: an
integer number of units, scale 1 for Accuracy and Wins, M K for TV, 2^32 for the log metrics), and items are
independent and identically distributed under the alternative and under the null (spec "Generative model",
"Null hypothesis"). So one item's law serves every number of items N. It is
- EXACT where the outcome law of (K, M) is small enough (``outcomes.law_fits``): every outcome type of
  (gold, A, B) counts with its probability, mapped to units;
- ESTIMATED otherwise, from ``n_items`` items drawn once, with fixed seeds: the same inputs give the same law on
  every machine. Each metric rests on the first n of these items, n sized by its own pilot (``needed_items``:
  metrics with an exact mean, whose law only lends its shape, rest on the pilot), so a law never depends on the
  other metrics asked with it, and a metric asked alone draws no more than it needs. Below K = 20 the items
  come from one nested stream per side (``nested``: an item's first K ratings are its ratings at K, so the small
  K asked together share their items, each drawn to the largest K it serves); from K = 20 on, the first
  ``MIN_ITEMS`` are one pool of items shared by every K, their ratings drawn in nested blocks (``pool``), the
  rest by the simulation's samplers (``samplers.draw_dataset``, a seed per (K, side)). The null law is
  symmetrised (d and -d with probability 1/2 each): under the null A and B are exchangeable, so the null gap is
  symmetric about 0 (checked on the exact laws in the tests).
Laws are cached per (prior, eps, K, metrics, n_items) in the process. The law object itself, and how units become
one (counted, binned, tilted to an exact mean, symmetrised): ``item_law``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.nk import outcomes
from nkcore.nk.count_gaps import item_units_cm
from nkcore.nk.exact.cell_cache import clear_cells
from nkcore.nk.exact.item_law import ItemLaw, law_from_units, tilted
from nkcore.nk.exact.means import accuracy_law_two_labels, clear_means, exact_mean
from nkcore.nk.exact.nested import CHUNK as NESTED_CHUNK
from nkcore.nk.exact.nested import nested_chunk
from nkcore.nk.exact.pool import POOL_MIN_K, clear_pools, pooled_counts
from nkcore.nk.metrics import ITEM_METRICS, METRICS
from nkcore.nk.priors import validate_prior
from nkcore.nk.samplers import draw_dataset

ENGINE_SEED = 20260113
"""Root seed of the items the engine draws where a law is estimated (fixed: the engine's numbers have no seed)."""
ITEMS_PER_N = 64
"""Estimated laws: items drawn per item of the largest dataset the law serves (``items_for``)."""
MIN_ITEMS = 1 << 15
"""Fewest items of an estimated law (the pilot draw)."""
Z_IN_PLAY = 5.6
"""A p-value is in play up to N = (Z_IN_PLAY sd / |mean|)^2 items (the normal form's p there is about 1e-8)."""
MAX_ITEMS = 1_600_000
MAX_N = 50_000
"""The largest number of items (N) an estimated law is sized for: the paper's largest budget at K = 1."""
NULL_SHARE = 8
"""The null's law rests on 1/8 of the alternative's items (at least MIN_ITEMS / 2) (its mean is 0 by symmetry, so
only its spread and shape are estimated, and p depends on them far less than on the alternative's mean)."""
_CHUNK = MIN_ITEMS
"""Items drawn per call of the sampler (bounds the memory of one draw)."""


def items_for(k: int, max_n: int = MAX_N) -> int:
    """Items drawn to estimate a law at K: ``ITEMS_PER_N`` x the largest N it serves, within [MIN, MAX].

    The largest N at K is max_n / K (budgets up to max_n); the p-value's sampling error of an estimated law
    shrinks like sqrt(N / n_items) (docs/nk-method.md, "Exact engine").

    >>> items_for(1), items_for(20), items_for(500)
    (1600000, 160000, 32768)
    """
    need = ITEMS_PER_N * -(-int(max_n) // max(1, int(k)))
    return int(min(MAX_ITEMS, max(MIN_ITEMS, need)))


def _check_metrics(metrics: Sequence[str]) -> tuple[str, ...]:
    bad = [m for m in metrics if m not in METRICS or not METRICS[m].per_item]
    if bad:
        known = [m for m in bad if m in METRICS]
        what = "is not a mean over items" if known else "is unknown"
        raise DataError(f"metric {bad[0]!r} {what}: the exact engine takes {', '.join(ITEM_METRICS)}")
    return tuple(metrics)


LAWS_KEPT = 1024
"""Most (alternative, null) law pairs cached in the process (a law of 32,768 values is about 0.5 MB: 1,024 pairs
are at most about 1 GB; the full grid of one prior and eps with four metrics holds 140)."""
_BY_METRIC: dict[tuple[tuple[float, ...], float, int, int, str], tuple[ItemLaw, ItemLaw]] = {}
"""The per-item laws computed so far, per (prior, eps, K, largest item count, metric)."""


def _laws(
    prior: tuple[float, ...], eps: float, ks: Sequence[int], metrics: tuple[str, ...], n_items: dict[int, int]
) -> dict[int, tuple[dict[str, ItemLaw], dict[str, ItemLaw]]]:
    """The (alternative, null) laws of each K of ``ks``: exact where the outcome law fits, else estimated from the
    side's items (``_estimated_units``: the small K together, from one nested stream)."""
    a = np.asarray(prior)
    m = a.size
    out: dict[int, tuple[dict[str, ItemLaw], dict[str, ItemLaw]]] = {}
    drawn = []
    for k in ks:
        if not outcomes.law_fits(k, m):
            drawn.append(k)
            continue
        sides: list[dict[str, ItemLaw]] = []
        for null in (False, True):
            ol = outcomes.outcome_law(a, eps, k, null)
            cm = [np.ascontiguousarray(x.T)[:, :, None] for x in (ol.gold, ol.a, ol.b)]
            units = item_units_cm(cm[0], cm[1], cm[2], k, metrics)
            sides.append({mt: law_from_units(u[:, 0], ol.prob, sc, True, 0) for mt, (u, sc) in units.items()})
        out[k] = (sides[0], sides[1])
    if not drawn:
        return out
    if m == 2 and "acc" in metrics:  # two labels: Accuracy's law by quadrature, never from drawn items
        for k in drawn:
            out[k] = _accuracy_two_labels(prior, eps, k)
        metrics = tuple(mt for mt in metrics if mt != "acc")
        if not metrics:
            return out
    limits.check_memory(3 * m * _CHUNK * 8 * 4, "drawing items for the per-item law")
    alt = _estimated_units(a, eps, drawn, metrics, False, {k: dict.fromkeys(metrics, n_items[k]) for k in drawn}, True)
    null_n = {k: {mt: max(MIN_ITEMS // 2, u.size // NULL_SHARE) for mt, u in alt[k][0].items()} for k in drawn}
    nulls = _estimated_units(a, eps, drawn, metrics, True, null_n)
    for k in drawn:
        (alt_units, scales), (null_units, _) = alt[k], nulls[k]
        alt_laws: dict[str, ItemLaw] = {}
        null_laws: dict[str, ItemLaw] = {}
        for mt in metrics:
            used = alt_units[mt].size
            law = law_from_units(alt_units[mt], None, scales[mt], False, used)
            pin = exact_mean(prior, eps, k, mt)
            alt_laws[mt] = law if pin is None else tilted(law, pin[0], pin[1])
            u = null_units[mt]  # symmetrised: d and -d with weight 1/2 each; the mean is exactly 0
            law0 = law_from_units(np.concatenate([u, -u]), None, scales[mt], False, u.size)
            null_laws[mt] = replace(law0, mean=0.0, mean_se=0.0, skew=0.0)
        if k in out:  # Accuracy's two-label laws, computed above
            alt_laws.update(out[k][0])
            null_laws.update(out[k][1])
        out[k] = (alt_laws, null_laws)
    return out


def _accuracy_two_labels(prior: tuple[float, ...], eps: float, k: int) -> tuple[dict[str, ItemLaw], dict[str, ItemLaw]]:
    """Accuracy's exact per-item laws at M = 2 (``means.accuracy_law_two_labels``: a quadrature, error below 1e-12
    on the paper's priors), for the K whose outcome law is too large to enumerate. Before issue 53 these laws were
    estimated from drawn items (about 43,000 at Toxicity, K = 50): their mean was 1.5 standard errors low, which put
    the reproducibility at N = 20 at 0.757 against 0.768, with no error stated for it."""
    sides = []
    for null in (False, True):
        minus, plus, _ = accuracy_law_two_labels(tuple(float(x) for x in prior), float(eps), int(k), null)
        units = np.array([-1, 0, 1], dtype=np.int64)
        sides.append({"acc": law_from_units(units, np.array([minus, 1.0 - minus - plus, plus]), 1.0, True, 0)})
    return sides[0], sides[1]


def exact_mean_known(metric: str) -> bool:
    """The metric's mean per-item gap is computed exactly (``means.exact_mean``), so pinned on estimated laws."""
    return METRICS[metric].exact_mean


def needed_items(units: dict[str, np.ndarray], k: int, max_items: int) -> int:
    """Items an estimated law needs, from a pilot draw: ``ITEMS_PER_N`` x the largest N at which a metric whose
    mean is not exact (Accuracy, Wins, JS) still has a p in play (between about 1e-8 and 0.3: N up to
    (Z_IN_PLAY sd / |mean|)^2; a metric whose p stays above 0.3 up to the largest N, N < (0.5 sd / |mean|)^2,
    needs no more), at most ``max_items``. A function of the pilot alone, so of (prior, eps, K): reproducible.

    >>> needed_items({"acc": np.array([1, 0, 0, -1, 1, 1] * 100)}, 20, 10**7)  # in play to N = 158: the pilot
    32768
    >>> needed_items({"acc": np.array([1, -1] * 500 + [1] * 20)}, 1, 1_600_000)  # mean 0.02: to N = 50,000
    1600000
    """
    n_max = -(-MAX_N // max(1, k))
    need = 0
    for mt, u in units.items():
        if exact_mean_known(mt):
            continue
        mu, sd = float(np.mean(u)), float(np.std(u))
        if sd == 0:
            continue
        lo = (0.5 * sd / abs(mu)) ** 2 if mu else np.inf
        if lo > n_max:
            continue
        need = max(need, int(min(n_max, (Z_IN_PLAY * sd / abs(mu)) ** 2)))
    return int(min(max_items, max(MIN_ITEMS, ITEMS_PER_N * need)))


Units = tuple[dict[str, np.ndarray], dict[str, float]]


def _estimated_units(
    a: np.ndarray,
    eps: float,
    ks: Sequence[int],
    metrics: tuple[str, ...],
    null: bool,
    totals: dict[int, dict[str, int]],
    adaptive: bool = False,
) -> dict[int, Units]:
    """Per K, the per-item units of each metric's first ``totals[K][metric]`` items of the side, and the scales.
    K below ``POOL_MIN_K``: every K from the one nested stream (``nested``: chunk c of its items drawn once, to
    the largest K still short of items there; on one thread: the chunks on two threads took more CPU and no less
    time, docs/benchmarks.md); from there on, each K from its own stream (``_draw_units``)."""
    out = {k: _draw_units(a, eps, k, metrics, null, totals[k], adaptive) for k in ks if k >= POOL_MIN_K}
    small = sorted(k for k in ks if k < POOL_MIN_K)
    if not small:
        return out
    want = {k: dict(totals[k]) for k in small}
    pilot = _nested_units(a, eps, null, 0, small, metrics, want)
    if adaptive:  # the pilot: each metric sized by its own units (none past its total)
        for k in small:
            want[k] = {
                mt: max(min(NESTED_CHUNK, want[k][mt]), needed_items({mt: pilot[k][0][mt]}, k, want[k][mt]))
                for mt in metrics
            }
    rest = -(-max(max(w.values()) for w in want.values()) // NESTED_CHUNK)  # chunks in all
    chunks = [_nested_units(a, eps, null, c, small, metrics, want) for c in range(1, rest)]
    for k in small:
        got = [pilot[k][0]] + [c[k][0] for c in chunks if k in c]
        parts = {mt: np.concatenate([g[mt] for g in got if mt in g]) for mt in metrics}
        out[k] = ({mt: p[: want[k][mt]] for mt, p in parts.items()}, pilot[k][1])
    return out


def _nested_units(
    a: np.ndarray,
    eps: float,
    null: bool,
    chunk: int,
    ks: Sequence[int],
    metrics: tuple[str, ...],
    want: dict[int, dict[str, int]],
) -> dict[int, Units]:
    """Chunk ``chunk`` of the side's nested stream: per K of ``ks`` still short of items there, the units of each
    metric still short, drawn to the largest such K (``nested.nested_chunk``)."""
    start = chunk * NESTED_CHUNK
    live = [k for k in ks if max(want[k].values()) > start]
    out: dict[int, Units] = {}

    def visit(k: int, counts: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        mts = tuple(mt for mt in metrics if want[k][mt] > start)
        units = item_units_cm(counts[0], counts[1], counts[2], k, mts)
        out[k] = (
            {mt: np.asarray(u).ravel().astype(np.int64) for mt, (u, _) in units.items()},
            {mt: sc for mt, (_, sc) in units.items()},
        )

    if live:
        nested_chunk(a, eps, null, chunk, live, visit)
    return out


def _draw_units(
    a: np.ndarray,
    eps: float,
    k: int,
    metrics: tuple[str, ...],
    null: bool,
    totals: dict[str, int],
    adaptive: bool = False,
) -> Units:
    """Per-item units of each metric's first ``totals[metric]`` items at K >= ``POOL_MIN_K``, drawn in chunks from
    the stream of (K, side) (the same items for every metric, as many as the largest count); the first chunk is the
    side's pool of items shared by every K (``pool.pooled_counts``: ``MIN_ITEMS`` items, half as many for the null,
    whose laws rest on MIN_ITEMS / 2 items unless the alternative's rest on more than 4 MIN_ITEMS). ``adaptive``:
    the first chunk is a pilot that sets each metric's count (``needed_items`` of its own pilot units, at most its
    total), so a metric's law rests on the same items whatever else is asked."""
    rng = np.random.default_rng(np.random.SeedSequence(ENGINE_SEED, spawn_key=(k, int(null))))
    parts: dict[str, list[np.ndarray]] = {mt: [] for mt in metrics}
    scales: dict[str, float] = {}
    want = dict(totals)
    pooled = MIN_ITEMS // 2 if null else _CHUNK  # the null's laws rest on at least MIN_ITEMS / 2 items, mostly no more
    start = 0
    while start < max(want.values()):
        size = min(_CHUNK if start else pooled, max(want.values()) - start)
        if start == 0:  # the first chunk: the side's items shared by every K (``pool``)
            g, ma, mb = pooled_counts(tuple(a.tolist()), eps, k, pooled, null)
            g, ma, mb = g[..., :size], ma[..., :size], mb[..., :size]
        else:
            g, ma, mb = draw_dataset(rng, a, eps, size, k, 1, null)
        live = tuple(mt for mt in metrics if want[mt] > start)
        for mt, (u, sc) in item_units_cm(g, ma, mb, k, live).items():
            parts[mt].append(np.asarray(u).ravel()[: want[mt] - start].astype(np.int64))
            scales[mt] = sc
        start += size
        if adaptive and start == size:  # the pilot: each metric sized by its own units (none past its total)
            want = {mt: max(start, needed_items({mt: parts[mt][0]}, k, want[mt])) for mt in metrics}
    return {mt: np.concatenate(p) for mt, p in parts.items()}, scales


def clear_caches() -> None:
    """Forget every cached per-item law, exact mean and cell (for benchmarks that time a cold start)."""
    _BY_METRIC.clear()
    clear_cells()
    clear_means()
    clear_pools()


LawPairs = dict[tuple[tuple[float, ...], float, int, int, str], tuple[ItemLaw, ItemLaw]]


def cached_laws(prior: Sequence[float], eps: float, ks: Sequence[int], metrics: Sequence[str]) -> LawPairs:
    """The cached (alternative, null) law pairs of these K and metrics, by cache key (for another process's cache:
    ``adopt_laws``)."""
    a, e = tuple(float(x) for x in prior), float(eps)
    kk, mm = {int(k) for k in ks}, set(metrics)
    return {  # over a copy: another thread may adopt laws meanwhile
        key: v for key, v in list(_BY_METRIC.items()) if key[0] == a and key[1] == e and key[2] in kk and key[4] in mm
    }


def missing_laws(prior: Sequence[float], eps: float, ks: Sequence[int], metrics: Sequence[str]) -> list[int]:
    """The K of ``ks`` whose laws (default item counts) of some of ``metrics`` are not cached yet."""
    a, e = tuple(float(x) for x in prior), float(eps)
    return [int(k) for k in ks if any((a, e, int(k), items_for(int(k)), mt) not in _BY_METRIC for mt in metrics)]


def adopt_laws(pairs: LawPairs) -> None:
    """Put law pairs into this process's cache, within ``LAWS_KEPT`` (the cache's one writer: the laws computed here,
    and those of another process, its ``cached_laws``)."""
    if len(_BY_METRIC) + len(pairs) > LAWS_KEPT:
        _BY_METRIC.clear()
        clear_cells()  # their cells hold the laws: let them go too
    _BY_METRIC.update(pairs)


def item_laws(
    prior: Sequence[float], eps: float, k: int, metrics: Sequence[str], n_items: int | None = None
) -> tuple[dict[str, ItemLaw], dict[str, ItemLaw]]:
    """Per metric, the law of one item's gap under the alternative and under the null (cached).

    Exact where ``outcomes.law_fits(K, M)``; else estimated from drawn items: a pilot of ``MIN_ITEMS``, then
    as many as ``needed_items`` says for the metric, at most ``n_items`` (default ``items_for(K)``); the null from
    1/8 of that, symmetrised; TV and the log metrics with their exact mean (``tilted``). Reference: spec
    "Generative model", "Null hypothesis"; the per-item units of ``count_gaps.item_units_cm``.

    >>> alt, null = item_laws((1.37658107, 1.33054633), 0.3, 1, ["acc"])
    >>> alt["acc"].exact, round(alt["acc"].mean, 4), null["acc"].mean
    (True, 0.0405, 0.0)
    """
    return item_laws_many(prior, eps, [k], metrics, n_items)[int(k)]


def item_laws_many(
    prior: Sequence[float], eps: float, ks: Sequence[int], metrics: Sequence[str], n_items: int | None = None
) -> dict[int, tuple[dict[str, ItemLaw], dict[str, ItemLaw]]]:
    """``item_laws`` for several K at once (cached per K): the small K missing from the cache are drawn together,
    from one nested stream (``nested``), which costs each item the steps of the largest K it serves instead of
    the sum over K; each law is the same as when its K is asked alone (module doc)."""
    a = tuple(float(x) for x in validate_prior(prior))
    if not 0.0 <= float(eps) <= 1.0:
        raise DataError(f"eps must be between 0 and 1, got {eps}")
    if any(int(k) < 1 for k in ks):
        raise DataError(f"ratings per item (K) must be at least 1, got {min(int(k) for k in ks)}")
    n_of = {int(k): items_for(int(k)) if n_items is None else int(n_items) for k in ks}
    for n in n_of.values():
        if n < 2:
            raise DataError(f"need at least 2 items to estimate a per-item law, got {n}")
        limits.check("items", n, "the per-item law")
    mts = _check_metrics(metrics)
    # the laws are read here once and kept for this call: adopting new ones may empty the cache (LAWS_KEPT), and
    # another thread of a server may empty it at any time
    found: LawPairs = {}
    missing: dict[int, tuple[str, ...]] = {}
    for k, n in n_of.items():
        absent = []
        for mt in mts:
            key = (a, float(eps), k, n, mt)
            pair = _BY_METRIC.get(key)
            if pair is None:
                absent.append(mt)
            else:
                found[key] = pair
        if absent:
            missing[k] = tuple(absent)
    for lack in set(missing.values()):  # K missing the same metrics: together (a law does not depend on the others)
        group = [k for k, v in missing.items() if v == lack]
        got = _laws(a, float(eps), group, lack, {k: n_of[k] for k in group})
        new = {(a, float(eps), k, n_of[k], mt): (alt[mt], null[mt]) for k, (alt, null) in got.items() for mt in lack}
        adopt_laws(new)
        found.update(new)
    out = {}
    for k, n in n_of.items():
        got_k = {mt: found[(a, float(eps), k, n, mt)] for mt in mts}
        out[k] = ({mt: g[0] for mt, g in got_k.items()}, {mt: g[1] for mt, g in got_k.items()})
    return out


__all__ = [
    "ENGINE_SEED",
    "ITEMS_PER_N",
    "adopt_laws",
    "cached_laws",
    "clear_caches",
    "item_laws",
    "item_laws_many",
    "items_for",
    "missing_laws",
    "needed_items",
]
