"""Adaptive allocation of ratings on real data: extra ratings drawn without replacement from each item's own pool.

The real-data question of ``nkcore.nk.resample`` (N items drawn with replacement among those with at least K
ratings, two real models' predictions fixed, the null swapping each item's predictions by a fair coin), with the
item's ratings spread by a policy of ``nkcore.nk.adaptive`` instead of K each: the first K0 ratings, and every
later one, are drawn without replacement from what is left of the item's pool (a chain of hypergeometrics), so an
item never gets more ratings than it has (ChaosNLI: 100 per item; Jobs: 10 to 13). A policy that wants more than
an item has gets what is there, and the budget it could not spend is left unspent (the cell's
``mean_ratings_per_item`` says so). Reproducibility = the share of rounds with the full data's direction (the
seed's definition). ``fixed`` is the engine itself (``nkcore.nk.resample`` or ``nkcore.nk.exact.real``).
Reference: spec "Real data"; Johnson, Kotz & Balakrishnan (1997), ch. 39 (the multivariate hypergeometric).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.nk.cell import Cell, PolicyPart, RealPart, fixed_policy, make_cell
from nkcore.nk.grid import Config
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.pairs import PairData, full_gaps
from nkcore.nk.policies import (
    POLICY_CODE,
    Policy,
    Recommendation,
    allocate,
    hypergeometric_rows,
    make_policy,
    recommend,
)
from nkcore.nk.pvalue import summarize_gaps
from nkcore.nk.resample import paired_test_name
from nkcore.nk.rounds import by_side, run_jobs, side_jobs
from nkcore.nk.rounds import workers as worker_count
from nkcore.nk.scores import score_gap

__all__ = [
    "AdaptiveResampleCell",
    "adaptive_resample_frames",
    "fixed_resample_cell",
    "policy_grid_frames",
    "recommend_frames",
    "resample_policy",
]

_CHUNK_CELLS = 1 << 18


AdaptiveResampleCell = Cell
"""The former name of :class:`nkcore.nk.cell.Cell` (a real-data cell of a policy: ``real`` and ``allocation``
set; ``significant_share`` is NaN for the adaptive policies: no paired test is run on their rounds)."""


def fixed_resample_cell(c: Cell) -> Cell:
    """The engine's real-data cell as the ``fixed`` policy's (every number kept, K ratings per item)."""
    return fixed_policy(c)


def _gaps(
    data: PairData,
    qual: np.ndarray,
    cfg: Config,
    policy: Policy,
    size: int,
    rng: np.random.Generator,
    null: bool,
    metrics: tuple[str, ...],
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    idx = qual[rng.integers(0, qual.size, size=(size, cfg.n))]
    pool = data.counts[idx]

    def draw(extra: np.ndarray, so_far: np.ndarray | None) -> np.ndarray:
        return hypergeometric_rows(rng, pool if so_far is None else pool - so_far, extra)

    gold = allocate(rng, policy, cfg.k, cfg.n, size, draw, pool.sum(axis=-1))
    la, lb = data.labels_a[idx], data.labels_b[idx]
    da, db = data.dist_a[idx], data.dist_b[idx]
    if null:
        swap = rng.random((size, cfg.n)) < 0.5
        la, lb = np.where(swap, lb, la), np.where(swap, la, lb)
        da, db = np.where(swap[..., None], db, da), np.where(swap[..., None], da, db)
    gaps = {mt: np.asarray(score_gap(mt, gold, da, db, la, lb, data.is_prob), dtype=float) for mt in metrics}
    return gaps, gold.sum(axis=-1)


def resample_policy(
    data: PairData,
    configs: Sequence[Config],
    policy: Policy,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    workers: int | None = None,
) -> list[AdaptiveResampleCell]:
    """Resample every configuration (budget, K) with the ratings spread by ``policy``; one cell per metric.

    Seeds: ``SeedSequence(seed, spawn_key=(N, K, side, chunk, policy))``, independent of the worker count.

    >>> from nkcore.nk.pairs import prepare_pair
    >>> from nkcore.nk.policies import make_policy
    >>> counts = np.array([[9, 1], [5, 5], [2, 8], [6, 4]])
    >>> data = prepare_pair(counts, np.array([0, 0, 1, 0]), np.array([1, 1, 1, 1]))
    >>> c = resample_policy(data, [Config(16, 4, 4)], make_policy("margin"), ["acc"], rounds=20)[0]
    >>> c.first_stage_k, c.mean_ratings_per_item, c.max_ratings_per_item <= 10
    (2, 4.0, True)
    """
    mts = parse_metrics(metrics)
    if int(rounds) < 2:
        raise DataError(f"rounds must be at least 2, got {rounds}")
    m = int(data.counts.shape[1])
    limits.check("rounds", int(rounds), "the request")
    limits.check("configs", len(configs), "the request")
    limits.check("sim_work", sum(2 * int(rounds) * c.n * m * 40 for c in configs), "the adaptive resampling")
    entropy = as_entropy(seed)
    totals = data.counts.sum(axis=1)
    full = full_gaps(data, mts)
    nw = worker_count(workers)
    out: list[AdaptiveResampleCell] = []
    for cfg in configs:
        qual = np.flatnonzero(totals >= cfg.k)
        if qual.size == 0:
            continue
        per = max(1, min(int(rounds), _CHUNK_CELLS // max(1, cfg.n * m)))
        limits.check_memory(per * cfg.n * m * 8 * 12, "one task of the adaptive resampling")
        jobs = side_jobs(int(rounds), per)

        def run(job: tuple[int, int, int, int], cfg: Config = cfg, qual: np.ndarray = qual) -> tuple:
            side, chunk, _, size = job
            key = (cfg.n, cfg.k, side, chunk, POLICY_CODE[policy.name])
            rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))
            return _gaps(data, qual, cfg, policy, size, rng, side == 1, mts)

        alt, nul = by_side(jobs, run_jobs(jobs, run, nw))
        kall = np.concatenate([r[1].ravel() for r in alt])
        part = PolicyPart(policy.name, policy.first_stage(cfg.k), float(kall.mean()), int(kall.max()))
        for mt in mts:
            a = np.concatenate([r[0][mt] for r in alt])
            b = np.concatenate([r[0][mt] for r in nul])
            direction = int(np.sign(full[mt]))
            real = RealPart(full[mt], direction, float("nan"), int(qual.size), paired_test_name(mt))
            st = summarize_gaps(a, b, direction)
            out.append(make_cell(cfg.budget, cfg.k, cfg.n, mt, st, int(rounds), a, b, real=real, allocation=part))
    return out


def adaptive_resample_frames(
    ratings: object,
    predictions: object,
    model_a: str,
    model_b: str,
    budgets: Sequence[int],
    ks: Sequence[int],
    policy: Policy,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int = 0,
    use_probabilities: bool = True,
) -> tuple[int, list[AdaptiveResampleCell]]:
    """Frames in (a ratings table, a predictions table), the policy's real-data cells out, with the usable items.

    The tables are read as ``nkcore.nk.frames.resample_frames`` reads them; K values no item has are left out.
    """
    import pandas as pd

    from nkcore.nk.frames import pair_data, ratings_of
    from nkcore.nk.grid import configurations
    from nkcore.nk.resample import qualifying_items

    if not isinstance(ratings, pd.DataFrame) or not isinstance(predictions, pd.DataFrame):
        raise DataError("ratings and predictions must be tables")
    data = pair_data(ratings_of(ratings), predictions, model_a, model_b, use_probabilities)
    qual = qualifying_items(data.counts, ks)
    usable = [int(k) for k in ks if qual.get(int(k), 0) > 0]
    if not usable:
        raise DataError(f"no item has {min(ks)} or more ratings: choose smaller ratings per item (K)")
    cells = resample_policy(data, configurations(budgets, usable), policy, metrics, rounds, seed)
    return int(data.counts.shape[0]), cells


def policy_grid_frames(
    ratings: object,
    predictions: object,
    model_a: str,
    model_b: str,
    budgets: Sequence[int],
    ks: Sequence[int],
    policy: str,
    first_share: float = 0.5,
    contested: float = 0.2,
    clear_margin: int = 2,
    cap_factor: float = 3.0,
    metrics: Sequence[str] | str | None = ("acc",),
    rounds: int = 1000,
    seed: int = 0,
) -> list[AdaptiveResampleCell]:
    """``adaptive_resample_frames`` from plain parameters (the page's cached call): the policy's real-data cells."""
    pol = make_policy(policy, first_share, contested, clear_margin, cap_factor)
    return adaptive_resample_frames(ratings, predictions, model_a, model_b, budgets, ks, pol, metrics, rounds, seed)[1]


def recommend_frames(
    ratings: object,
    predictions: object,
    model_a: str,
    model_b: str,
    budget: int,
    ks: Sequence[int],
    metric: str = "acc",
    first_share: float = 0.5,
    contested: float = 0.2,
    rounds: int = 1000,
    seed: int = 0,
) -> Recommendation:
    """``policies.recommend`` on real data: every fixed K of ``ks`` and K = 1 against margin and sequential at one
    budget, each resampled (``resample_policy``; K values no item has are left out)."""
    import pandas as pd

    from nkcore.nk.frames import pair_data, ratings_of
    from nkcore.nk.resample import qualifying_items

    if not isinstance(ratings, pd.DataFrame) or not isinstance(predictions, pd.DataFrame):
        raise DataError("ratings and predictions must be tables")
    data = pair_data(ratings_of(ratings), predictions, model_a, model_b, True)
    every = sorted({1, *(int(k) for k in ks)})
    qual = qualifying_items(data.counts, every)
    usable = [k for k in every if qual.get(k, 0) > 0]
    if not usable:
        raise DataError("no item has a rating: nothing to resample")
    pols = (make_policy("margin", first_share, contested), make_policy("sequential", first_share))

    def run(pol: Policy, k: int, s: int) -> AdaptiveResampleCell:
        return resample_policy(data, [Config(int(budget), k, int(budget) // k)], pol, [metric], rounds, s)[0]

    return recommend(run, int(budget), usable, metric, int(rounds), int(seed), pols)
