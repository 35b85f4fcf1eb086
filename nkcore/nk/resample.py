"""Ask the (N, K) question of real data: resample rated items and compare two real models' predictions.

Each round draws N items with replacement among the items with at least K ratings ("qualifying" items), and
K of each drawn item's ratings without replacement (multivariate hypergeometric on the item's label counts,
:func:`draw_k`);
both models are scored against that K-rating sample. Per cell (budget, K):
- reproducibility: the share of rounds that agree with the full data's direction (the seed's definition:
  "the share of resampling rounds that reach the same conclusion"); NaN when the full data shows no difference
  (there is no conclusion to reproduce, and counting tied rounds as agreement would overstate it);
- significant_share: the share of rounds in which a paired test at ``significance`` finds that direction significant.
  Test: exact sign test on the items where the models differ (McNemar's exact test) for Accuracy and Wins;
  paired t-test on the per-item score differences for TV, KL, smoothed KL, JS and cross-entropy; none for
  macro F1 (not a mean over items: NaN);
- p, delta, ci_width with the paper's rule, the null being the same resampling with each item's two
  predictions swapped by a fair coin (drawn independently of the alternative rounds), the analogue of the
  spec's per-response coin.
Full data = every item with ratings and both predictions, all its ratings. Reference: spec "Real data".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from nkcore.common import limits
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.nk.cell import Cell, RealPart, make_cell
from nkcore.nk.draws import FLOAT32_WHOLE, draw_from_cum, draw_without_replacement
from nkcore.nk.grid import Config
from nkcore.nk.metrics import METRICS, PAPER_METRICS, parse_metrics
from nkcore.nk.pairs import PairData, full_gaps, prepare_pair, qualifying_items
from nkcore.nk.pvalue import Stats, summarize_gaps
from nkcore.nk.rounds import run_jobs
from nkcore.nk.rounds import workers as worker_count
from nkcore.nk.samplers import UNIFORM_MAX_K
from nkcore.nk.scores import item_gaps, plurality, tie_exact_mean
from nkcore.nk.simulate import WORK_MAX_K

ALPHA = 0.05
_CHUNK_ITEMS = 1 << 16
RESAMPLE_WORK_FACTOR = 6
"""A resampled rating costs about as much as this many simulated draws (without-replacement draws from real items,
probability machines; timed in docs/benchmarks.md), so ``sim_work`` bounds both."""
TASK_BYTES_PER_CELL = 160
"""Bytes one resampling task holds per (round, item, label) cell at its peak: the drawn items' counts, the draw
without replacement (remaining, cumulative, one-hot, result: int64), both models' distributions and their swapped
copies (float64) and the metrics' temporaries (tracemalloc, rounded up: docs/benchmarks.md)."""


ResampleCell = Cell
"""The former name of :class:`nkcore.nk.cell.Cell` (a real-data cell: its ``real`` part set)."""
GapSummary = Stats
"""The former name of :class:`nkcore.nk.pvalue.Stats` (a resampled cell's numbers, :func:`summarize_gaps`)."""


def paired_test_name(metric: str) -> str:
    """The paired test used for a metric's significant share, in words."""
    info = METRICS.get(metric)
    if info is not None and info.sign_test:
        return "exact sign test on the items where the models differ (McNemar)"
    if info is not None and info.per_item:
        return "paired t-test on per-item differences"
    return "none (not a per-item mean)"


def _paired_significant(d: np.ndarray, metric: str, direction: int, significance: float) -> np.ndarray:
    """Per round (rows of ``d``: per-item gaps), does the paired test find ``direction`` significant at alpha?"""
    if direction == 0:
        return np.zeros(d.shape[0], dtype=bool)
    if METRICS[metric].sign_test:
        plus, minus = np.count_nonzero(d > 0, axis=1), np.count_nonzero(d < 0, axis=1)
        n_disc = plus + minus
        p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(plus, minus), np.maximum(n_disc, 1), 0.5))
        p = np.where(n_disc == 0, 1.0, p)
        return (p < significance) & (np.sign(plus - minus) == direction)
    n = d.shape[1]
    if n < 2:
        return np.zeros(d.shape[0], dtype=bool)
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    p = np.where(sd > 0, 2.0 * stats.t.sf(np.abs(t), n - 1), np.where(mean != 0, 0.0, 1.0))
    return (p < significance) & (np.sign(mean) == direction)


def _round_gaps(
    data: PairData,
    cum_items: np.ndarray | None,
    qual: np.ndarray,
    n: int,
    k: int,
    size: int,
    rng: np.random.Generator,
    null: bool,
    metrics: tuple,
) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """``size`` rounds of one configuration: per metric the score gaps and the per-item gaps (None for F1).

    ``cum_items``: the items' label-major cumulative counts (M, items) in float32 for :func:`draw_from_cum`, or
    None (then :func:`draw_without_replacement`).
    """
    idx = qual[rng.integers(0, qual.size, size=(size, n))]
    if cum_items is not None and k <= UNIFORM_MAX_K:
        dmaj = draw_from_cum(rng, cum_items[:, idx.ravel()], k)
        gold = np.ascontiguousarray(dmaj.T, dtype=np.int64).reshape(size, n, -1)
    else:
        gold = draw_without_replacement(rng, data.counts[idx], k)
    la, lb = data.labels_a[idx], data.labels_b[idx]
    swap = None
    if null:
        swap = rng.random((size, n)) < 0.5
        la, lb = np.where(swap, lb, la), np.where(swap, la, lb)
    out: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    lg = plurality(gold) if any(METRICS[mt].labels_only for mt in metrics) else None
    dists: tuple[np.ndarray, np.ndarray] | None = None
    for mt in metrics:
        info = METRICS[mt]
        if info.label_gap is not None:  # the hard labels against the plurality of the K ratings
            assert lg is not None
            gap = info.label_gap(lg, la, lb, gold.shape[-1])
            if not info.per_item:  # macro F1: a gap per round
                out[mt] = (gap, None)
                continue
            d = gap
        else:
            if dists is None:
                da, db = data.dist_a[idx], data.dist_b[idx]
                if swap is not None:
                    da, db = np.where(swap[..., None], db, da), np.where(swap[..., None], da, db)
                dists = (da, db)
            d = item_gaps(mt, gold, dists[0], dists[1], la, lb, data.is_prob)
        out[mt] = (tie_exact_mean(d), d)  # equal rounds give equal gaps: ties count as ties in p
    return out


def resample_cells(
    data: PairData,
    configs: Sequence[Config],
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    significance: float = ALPHA,
    workers: int | None = None,
) -> list[ResampleCell]:
    """Resample every configuration (budget, K, N); one ``ResampleCell`` per configuration and metric.

    Seeds: ``SeedSequence(seed, spawn_key=(N, K, side, chunk))``, independent of the worker count.
    Limits (checked before any draw): rounds, configurations, work (``RESAMPLE_WORK_FACTOR`` x 2 sides x rounds x
    3 x N x M x min(K, 40) summed over the configurations, in ``sim_work`` draws) and memory (the largest tasks at once, and the
    gap samples kept).
    """
    mts = parse_metrics(metrics)
    if int(rounds) < 2:
        raise DataError(f"rounds must be at least 2, got {rounds}")
    if not (0 < significance < 1):
        raise DataError(f"alpha (significance level) must be between 0 and 1, got {significance}")
    entropy = as_entropy(seed)
    m = int(data.counts.shape[1])
    nw = worker_count(workers)
    limits.check("rounds", int(rounds), "the request")
    limits.check("configs", len(configs), "the request")
    work = RESAMPLE_WORK_FACTOR * sum(2 * int(rounds) * 3 * c.n * m * min(c.k, WORK_MAX_K) for c in configs)
    limits.check("sim_work", work, "the resampling")
    tasks = sorted(  # the first task of each side of each configuration: the largest of that configuration
        (_chunk_rounds(c.n, c.k, int(rounds)) * c.n * m * TASK_BYTES_PER_CELL for c in configs for _side in (0, 1)),
        reverse=True,
    )
    limits.check_memory(sum(tasks[: max(1, nw)]), "the resampling at its peak")
    limits.check_memory(len(configs) * int(rounds) * 2 * len(mts) * 8 * 2, "keeping the resampled gaps")
    full = full_gaps(data, mts)
    totals = data.counts.sum(axis=1)
    cum_items = (
        np.cumsum(data.counts.T, axis=0, dtype=np.float32) if int(totals.max()) < FLOAT32_WHOLE else None
    )  # label-major cumulative counts, shared by every round (float32 holds them exactly)
    jobs = []
    for ci, cfg in enumerate(configs):
        qual = np.flatnonzero(totals >= cfg.k)
        if qual.size == 0:
            continue
        per = _chunk_rounds(cfg.n, cfg.k, int(rounds))
        for side in (0, 1):
            for chunk, start in enumerate(range(0, rounds, per)):
                jobs.append((ci, side, start, min(per, rounds - start), chunk, qual))

    def run(job: tuple) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
        ci, side, _, size, chunk, qual = job
        cfg = configs[ci]
        rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(cfg.n, cfg.k, side, chunk)))
        res = _round_gaps(data, cum_items, qual, cfg.n, cfg.k, size, rng, side == 1, mts)
        if side == 0:  # keep only what is needed: the gaps, and per round "significant in the full direction?"
            return {
                mt: (g, None if d is None else _paired_significant(d, mt, int(np.sign(full[mt])), significance))
                for mt, (g, d) in res.items()
            }
        return {mt: (g, None) for mt, (g, _) in res.items()}

    results = run_jobs(jobs, run, nw)
    by_cell: dict[tuple[int, int], list] = {}
    for job, res in zip(jobs, results, strict=True):
        by_cell.setdefault((job[0], job[1]), []).append((job[2], res))
    out: list[ResampleCell] = []
    for ci, cfg in enumerate(configs):
        if (ci, 0) not in by_cell:
            continue
        n_qual = int(np.count_nonzero(totals >= cfg.k))
        alt_parts = [r for _, r in sorted(by_cell[(ci, 0)], key=lambda t: t[0])]
        null_parts = [r for _, r in sorted(by_cell[(ci, 1)], key=lambda t: t[0])]
        for mt in mts:
            alt = np.concatenate([p[mt][0] for p in alt_parts])
            nul = np.concatenate([p[mt][0] for p in null_parts])
            direction = int(np.sign(full[mt]))
            sig = (
                float(np.mean(np.concatenate([p[mt][1] for p in alt_parts])))
                if alt_parts[0][mt][1] is not None
                else float("nan")
            )
            real = RealPart(full[mt], direction, sig, n_qual, paired_test_name(mt))
            out.append(
                make_cell(
                    cfg.budget, cfg.k, cfg.n, mt, summarize_gaps(alt, nul, direction), int(rounds), alt, nul, real=real
                )
            )
    return out


def _chunk_rounds(n: int, k: int, rounds: int) -> int:
    """Rounds per task of a configuration: about ``_CHUNK_ITEMS`` drawn ratings, at least one round."""
    return max(1, min(rounds, _CHUNK_ITEMS // max(1, n * max(1, min(k, UNIFORM_MAX_K)))))


__all__ = [
    "ALPHA",
    "RESAMPLE_WORK_FACTOR",
    "TASK_BYTES_PER_CELL",
    "GapSummary",
    "PairData",
    "ResampleCell",
    "draw_without_replacement",
    "full_gaps",
    "paired_test_name",
    "prepare_pair",
    "qualifying_items",
    "resample_cells",
    "summarize_gaps",
]
