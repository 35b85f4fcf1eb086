"""The crossed (pigeonhole) bootstrap of items AND raters: the resampling engine of ``nkcore.nk.crossed``.

1. draw R raters with replacement from the R raters of the data (rater r drawn w_r times, w ~ Multinomial(R, 1/R));
2. every rating of rater r is kept w_r times, so item i's label counts become c'_im = sum_{ratings j of i with
   label m} w_{rater(j)};
3. draw N items with replacement among the items with at least K kept ratings, and K of each drawn item's kept
   ratings without replacement (multivariate hypergeometric on c'_i, :func:`nkcore.nk.draws.draw_k`);
   items with fewer than K kept ratings cannot be drawn (as in item-only resampling) and their share is reported.
Both models are scored against those K ratings; the null is the same resampling with each drawn item's two
predictions swapped by a fair coin. The rater draw of a round is shared by every cell of the grid (common random
numbers). Each cell comes with the item-only numbers of :func:`nkcore.nk.resample.resample_cells` on the same data.
Reference: Owen, "The pigeonhole bootstrap", Annals of Applied Statistics 1(2), 2007.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from nkcore.common import limits
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.nk.cell import Cell, CrossedPart, RealPart, make_cell
from nkcore.nk.count_gaps import plurality_cm
from nkcore.nk.draws import draw_from_cum
from nkcore.nk.grid import Config
from nkcore.nk.metrics import METRICS, PAPER_METRICS, parse_metrics
from nkcore.nk.resample import (
    RESAMPLE_WORK_FACTOR,
    TASK_BYTES_PER_CELL,
    PairData,
    full_gaps,
    resample_cells,
    summarize_gaps,
)
from nkcore.nk.rounds import run_jobs
from nkcore.nk.rounds import workers as worker_count
from nkcore.nk.scores import item_gaps, tie_exact_mean
from nkcore.nk.simulate import WORK_MAX_K
from nkcore.ratings.raters import RaterRatings

__all__ = ["crossed_cells", "crossed_work", "pair_ratings"]

_CHUNK_CELLS = 1 << 18
"""Rounds of one rater draw are processed together: about this many (round, drawn item) pairs at the largest N."""


def pair_ratings(rr: RaterRatings, data: PairData) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The ratings of the items ``data`` uses: (item position in ``data``, rater code (re-numbered), label), raters."""
    pos = np.full(rr.ratings.counts.shape[0], -1, dtype=np.int64)
    pos[data.used] = np.arange(data.used.size)
    keep = pos[rr.item_codes] >= 0
    raters, rcodes = np.unique(rr.rater_codes[keep], return_inverse=True)
    return pos[rr.item_codes[keep]], rcodes.astype(np.int64), rr.label_codes[keep], int(raters.size)


def crossed_work(n_ratings: int, m: int, configs: Sequence[Config], rounds: int) -> int:
    """Draws of a crossed resampling, in ``sim_work`` units: item-only resampling's count plus the rater pass.

    Formula: RESAMPLE_WORK_FACTOR x sum over configurations of 2 x rounds x 3 x N x M x min(K, 40), plus
    2 x rounds x ratings x M (re-weighting every rating in every round).
    """
    per_cells = RESAMPLE_WORK_FACTOR * sum(2 * rounds * 3 * c.n * m * min(c.k, WORK_MAX_K) for c in configs)
    return int(per_cells + 2 * rounds * n_ratings * m)


def crossed_cells(
    rr: RaterRatings,
    data: PairData,
    configs: Sequence[Config],
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    item_only: bool = True,
    workers: int | None = None,
) -> list[Cell]:
    """Crossed resampling of every configuration, beside item-only resampling; one cell per configuration and metric.

    ``data`` comes from :func:`nkcore.nk.resample.prepare_pair` on ``rr.ratings.counts`` (its ``used`` indexes
    ``rr``'s items). Seeds: ``SeedSequence(seed, spawn_key=(side, chunk))`` for a chunk's rater draws and
    ``(side, chunk, N, K)`` for its item and rating draws, so numbers do not depend on the grid's other cells'
    order or the worker threads (``workers``, default: the cores). ``item_only=False`` leaves the item-only numbers NaN (for the coverage study). Limits (before any draw):
    rounds, configurations, work (:func:`crossed_work`) and memory.
    """
    mts = parse_metrics(metrics)
    rounds = int(rounds)
    if rounds < 2:
        raise DataError(f"rounds must be at least 2, got {rounds}")
    if rr.ratings.counts.shape != (rr.ratings.counts.shape[0], data.counts.shape[1]):
        raise DataError("the ratings and the pair data have different labels")
    entropy = as_entropy(seed)
    m = int(data.counts.shape[1])
    n_used = int(data.used.size)
    it, ra, la, n_raters = pair_ratings(rr, data)
    limits.check("rounds", rounds, "the request")
    limits.check("configs", len(configs), "the request")
    limits.check("sim_work", crossed_work(int(it.size), m, configs, rounds), "the crossed resampling")
    max_n = max((c.n for c in configs), default=1)
    chunk = int(max(1, min(rounds, 64, _CHUNK_CELLS // max(1, max_n))))
    nw = worker_count(workers)
    limits.check_memory(
        nw * chunk * (max_n * m * TASK_BYTES_PER_CELL + n_used * (m * 16 + 16) + it.size * 16)
        + len(configs) * rounds * 2 * len(mts) * 8 * 3,
        "the crossed resampling at its peak",
    )
    full = full_gaps(data, mts)
    # ratings as a sparse (label x item, rater) count matrix, rows label-major: label m of item i is row m x items + i
    by_label = sparse.csr_matrix(
        (np.ones(it.size), (la * n_used + it, ra)), shape=(m * n_used, max(1, n_raters)), dtype=np.float64
    )
    by_k: dict[int, list[int]] = {}
    for ci, cfg in enumerate(configs):
        by_k.setdefault(int(cfg.k), []).append(ci)

    def task(side: int, ch: int, size: int) -> tuple[dict[tuple[int, str], np.ndarray], dict[int, np.ndarray]]:
        """One chunk of rounds of one side: a rater draw shared by every cell, then each K's items and ratings."""
        found: dict[tuple[int, str], np.ndarray] = {}
        shorts: dict[int, np.ndarray] = {}
        rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(side, ch)))
        # w_r ~ Multinomial(R, 1/R): how often each rater is drawn, as counts of R uniform draws (bincount per round)
        drawn = rng.integers(0, n_raters, size=(size, n_raters)) + (np.arange(size) * n_raters)[:, None]
        w = np.bincount(drawn.ravel(), minlength=size * n_raters).reshape(size, n_raters)
        # c'_im = sum of w over the raters of item i's label-m ratings: one sparse product for every round at once
        cw = by_label @ w.T.astype(np.float64)  # (M x items, rounds)
        # label-major cumulative counts (M, rounds x items), float32 (whole numbers, exact below 2^24)
        cum_all = np.cumsum(cw.reshape(m, n_used, size).transpose(0, 2, 1), axis=0, dtype=np.float32).reshape(
            m, size * n_used
        )
        totals = cum_all[m - 1].reshape(size, n_used)
        for k, cis in by_k.items():
            ok = totals >= k
            q = ok.sum(axis=1)  # qualifying items per round
            shorts[k] = 1.0 - q / n_used
            live = np.flatnonzero(q > 0)
            if live.size == 0:
                continue
            # The largest N of this K is drawn once; smaller budgets use the first N draws of each round.
            n_max = max(configs[ci].n for ci in cis)
            krng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(side, ch, k)))
            flat = np.flatnonzero(ok[live].ravel())  # qualifying (round, item) pairs, round by round
            first = np.concatenate(([0], np.cumsum(q[live])[:-1]))
            u = np.floor(krng.random((live.size, n_max)) * q[live][:, None]).astype(np.int64)
            idx = flat[first[:, None] + u] - (np.arange(live.size) * n_used)[:, None]  # (rounds, N) items
            rows = (live[:, None] * n_used + idx).ravel()
            dmaj = draw_from_cum(krng, cum_all[:, rows], k)
            per_item = _item_gaps(data, idx, dmaj, mts, krng if side == 1 else None)
            sums = {  # whole-number gaps from labels (Accuracy): the mean of the first N is exact from prefix sums
                mt: np.cumsum(per_item[mt], axis=1, dtype=np.int64)
                for mt in mts
                if METRICS[mt].per_item and METRICS[mt].label_gap is not None
            }
            for ci in cis:
                n = configs[ci].n
                for mt in mts:
                    g = per_item[mt]
                    info = METRICS[mt]
                    if not info.per_item:  # macro F1: from the stacked gold, A and B labels
                        assert info.label_gap is not None
                        lg, la_, lb_ = g[0][:, :n], g[1][:, :n], g[2][:, :n]
                        found[(ci, mt)] = np.asarray(info.label_gap(lg, la_, lb_, m), dtype=float)
                    elif mt in sums:  # whole-number gaps: the mean of the first N is exact from prefix sums
                        found[(ci, mt)] = sums[mt][:, n - 1] / n
                    else:
                        found[(ci, mt)] = np.asarray(tie_exact_mean(g[:, :n]), dtype=float)
        return found, shorts

    jobs = [
        (side, ch, min(chunk, rounds - start)) for side in (0, 1) for ch, start in enumerate(range(0, rounds, chunk))
    ]
    results = run_jobs(jobs, lambda j: task(*j), nw)
    gaps: dict[tuple[int, int, str], list[np.ndarray]] = {}
    short: dict[int, list[np.ndarray]] = {}
    for (side, _, _), (found, shorts) in zip(jobs, results, strict=True):  # in chunk order: independent of workers
        for (ci, mt), gap in found.items():
            gaps.setdefault((ci, side, mt), []).append(gap)
        if side == 0:
            for k, sh in shorts.items():
                short.setdefault(k, []).append(sh)
    item_cells = {}
    if item_only:
        usable = [c for c in configs if np.any(data.counts.sum(axis=1) >= c.k)]
        for c in resample_cells(data, usable, mts, rounds, entropy, workers=workers):
            item_cells[(c.budget, c.k, c.metric)] = c
    totals_full = data.counts.sum(axis=1)
    out: list[Cell] = []
    nan = float("nan")
    for ci, cfg in enumerate(configs):
        for mt in mts:
            if (ci, 0, mt) not in gaps or (ci, 1, mt) not in gaps:
                continue
            alt = np.concatenate(gaps[(ci, 0, mt)])
            nul = np.concatenate(gaps[(ci, 1, mt)])
            direction = int(np.sign(full[mt]))
            st = summarize_gaps(alt, nul, direction)
            ic = item_cells.get((cfg.budget, cfg.k, mt))
            if ic is not None:
                ist = summarize_gaps(ic.alt, ic.null, direction)
                item = (ist.p, ist.delta, ist.ci_width, ist.ci_low, ist.ci_high, ist.reproducibility)
                item_alt = ic.alt
            else:
                item = (nan,) * 6
                item_alt = np.empty(0)
            part = CrossedPart(
                st.ci_low,
                st.ci_high,
                *item,
                ci_width_ratio=st.ci_width / item[2] if item[2] > 0 else nan,
                short_share=float(np.mean(np.concatenate(short[int(cfg.k)]))),
                item_short_share=float(np.mean(totals_full < cfg.k)),
                rounds_used=int(alt.size),
                item_alt=item_alt,
            )
            real = RealPart(full[mt], direction)
            out.append(make_cell(cfg.budget, cfg.k, cfg.n, mt, st, rounds, alt, nul, real=real, crossed=part))
    return out


def _item_gaps(
    data: PairData,
    idx: np.ndarray,
    dmaj: np.ndarray,
    mts: Sequence[str],
    swap_rng: np.random.Generator | None,
) -> dict[str, np.ndarray]:
    """Per drawn item gap (rounds, N) for each metric (F1: a stack of gold, A and B labels); null: swapped pairs.

    ``dmaj``: the drawn K-rating counts label-major (M, rounds x N).
    """
    la, lb = data.labels_a[idx], data.labels_b[idx]
    swap = None
    if swap_rng is not None:
        swap = swap_rng.random(idx.shape) < 0.5
        la, lb = np.where(swap, lb, la), np.where(swap, la, lb)
    lg = plurality_cm(dmaj).reshape(idx.shape)
    out: dict[str, np.ndarray] = {}
    gold = dists = None
    for mt in mts:
        info = METRICS[mt]
        if info.label_gap is not None and not info.per_item:
            out[mt] = np.stack([lg, la, lb])
        elif info.label_gap is not None:
            out[mt] = info.label_gap(lg, la, lb, dmaj.shape[0])  # whole numbers: -1, 0, 1
        else:
            if gold is None or dists is None:
                gold = np.ascontiguousarray(dmaj.T, dtype=np.int64).reshape(*idx.shape, dmaj.shape[0])
                da, db = data.dist_a[idx], data.dist_b[idx]
                if swap is not None:
                    da, db = np.where(swap[..., None], db, da), np.where(swap[..., None], da, db)
                dists = (da, db)
            out[mt] = np.asarray(item_gaps(mt, gold, dists[0], dists[1], la, lb, data.is_prob), dtype=float)
    return out
