"""Adaptive allocation of ratings under a budget of N x K: more ratings where the items are contested.

"Forest vs Tree" (AAAI-26, arXiv 2508.03663) closes with "if certain samples exhibit greater annotator
disagreement, it may be appropriate to allocate more annotators to those samples". This module asks the paper's
question (is "A beats B" reproducible?) of three ways to spend the same budget of N x K ratings on N items:

- ``fixed``: every item gets K ratings (the paper's design; the engine's numbers, ``nkcore.nk.grid``);
- ``margin`` (two stages): every item gets K0 = max(1, round(first_share K)) ratings; the plurality's margin
  m_i = c_(1) - c_(2) (the top label's count less the runner-up's) ranks the items; the ceil(contested N) items
  with the smallest margins (ties broken at random) share the other N (K - K0) ratings equally (the most contested
  get the remainder, one each);
- ``sequential``: every item gets K0 ratings; then, step by step, one more rating to every item whose margin is not
  yet clear (m_i < clear_margin) and that has fewer than the cap (ceil(cap_factor K)) ratings, the most contested
  first when the budget left cannot serve them all, until the budget is spent or every item is clear or capped
  (ratings left over are not spent: ``mean_ratings_per_item`` < K says so). Toloka's "dynamic overlap" in the
  paper's terms.

The policy sees only the human ratings (gold), never the models, so the null's gold is the alternative's. On a
prior (alpha, eps), item i's ratings come from beta_i as in the paper, and model A (B) answers item i as often as
the humans rated it, k_i times, from beta_i (gamma_i), or both from (beta_i + gamma_i) / 2 under the null (the
paper's design with K replaced by k_i; with ``fixed`` k_i = K and this is the paper's model). Counts with a
different k_i per item are drawn exactly, as a chain of binomials (Multinomial(n, p): c_1 ~ Bin(n, p_1),
c_j ~ Bin(n - c_1 - ... - c_(j-1), p_j / (1 - p_1 - ... - p_(j-1)))); a second stage adds independent counts (a sum of
independent multinomials with the same p is one). The items of a dataset are not independent under ``margin``
and ``sequential`` (they compete for the budget), so there is no exact per-item law: the numbers are simulated
(``method`` = "simulate", seeded; ``SeedSequence(seed, spawn_key=(N, K, side, chunk, policy))``), the p rule,
Delta, CI-width and reproducibility as in ``nkcore.nk.pvalue``. ``fixed`` is the engine itself: ``adaptive_cell``
with ``fixed`` returns the engine's cells (the exact engine or the simulation, as asked) unchanged.

Raters who are not alike (``RaterMix``): each gold rating comes from a rater drawn from a population of types
(share w_t, quality q_t): with probability q_t the rating is a draw from beta_i, else a uniform random label (the
one-coin model of Dawid & Skene, 1979, in the "informative or random" form: a one-coin accuracy s is
q = (s - 1/M) / (s* - 1/M), s* the accuracy of an informative rater; ``nkcore.ratings.population`` fits the
population to real ratings, and ``population_shift`` says how it moves the minimal budget and best K). ``weighted`` counts each rating with its rater's quality q_t as weight (the
model-weighted gold), else every rating counts 1 (the plurality of identical raters).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.nk.best import BestK, MinimalBudget, best_k, minimal_budgets
from nkcore.nk.cell import Cell, PolicyPart, make_cell
from nkcore.nk.grid import configurations
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.policies import (
    POLICIES,
    POLICY_CODE,
    POLICY_WORDS,
    Policy,
    RaterMix,
    Recommendation,
    allocate,
    check_mix,
    hypergeometric_rows,
    make_policy,
    mix_label,
    multinomial_rows,
    plurality_margin,
    recommend,
)
from nkcore.nk.priors import validate_prior
from nkcore.nk.pvalue import cell_stats
from nkcore.nk.rounds import by_side, run_jobs, side_jobs
from nkcore.nk.rounds import workers as worker_count
from nkcore.nk.samplers import draw_dirichlet, draw_noise
from nkcore.nk.scores import score_gap

__all__ = [
    "POLICIES",
    "POLICY_WORDS",
    "AdaptiveCell",
    "Policy",
    "PopulationShift",
    "RaterMix",
    "adaptive_cells",
    "allocate",
    "hypergeometric_rows",
    "make_policy",
    "multinomial_rows",
    "plurality_margin",
    "policy_grid",
    "population_shift",
    "recommend_prior",
    "simulate_policy",
]

AdaptiveCell = Cell
"""The former name of :class:`nkcore.nk.cell.Cell` (a policy's cell: its ``allocation`` part set)."""
CHUNK_CELLS = 1 << 18
"""Rounds x items x labels per task."""


def _gold_draw(
    rng: np.random.Generator, beta: np.ndarray, mix: RaterMix | None, weighted: np.ndarray | None
) -> Callable[[np.ndarray, np.ndarray | None], np.ndarray]:
    """The prior's gold draw for ``allocate``: identical raters (counts from beta_i), or a rater population (each
    rating informative with its type's quality, else a uniform random label); ``weighted`` (not None): each drawn
    rating also adds its rater's quality there (the model-weighted gold)."""
    if mix is None:
        return lambda extra, _so_far: multinomial_rows(rng, beta, extra)
    m = beta.shape[-1]
    w, q = np.asarray(mix.shares), np.asarray(mix.qualities)
    uniform = np.broadcast_to(np.full(m, 1.0 / m), beta.shape)

    def draw(extra: np.ndarray, _so_far: np.ndarray | None) -> np.ndarray:
        by_type = multinomial_rows(rng, np.broadcast_to(w, (*extra.shape, w.size)), extra)
        out = np.zeros((*extra.shape, m), dtype=np.int64)
        for t in range(w.size):
            good = rng.binomial(by_type[..., t], q[t])
            c = multinomial_rows(rng, beta, good) + multinomial_rows(rng, uniform, by_type[..., t] - good)
            out += c
            if weighted is not None:
                weighted[...] += c * q[t]
        return out

    return draw


def _task(
    entropy: int,
    prior: np.ndarray,
    eps: float,
    n: int,
    k: int,
    side: int,
    chunk: int,
    size: int,
    policy: Policy,
    metrics: tuple[str, ...],
    mix: RaterMix | None,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """One chunk of rounds of one side: the gold spread by the policy, the machines answering each item as often
    as it was rated. A weighted population: the policy spends ratings on the plain counts (its margins), the metrics
    read the ratings weighted by their raters' quality."""
    key = (n, k, side, chunk, POLICY_CODE[policy.name])
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))
    m = prior.size
    beta = np.moveaxis(draw_dirichlet(rng, prior, (size, n)), 0, -1)
    rho = np.moveaxis(draw_noise(rng, m, (size, n)), 0, -1)
    gamma = (1.0 - eps) * beta + eps * rho
    weighted = np.zeros(beta.shape) if mix is not None and mix.weighted else None
    plain = allocate(rng, policy, k, n, size, _gold_draw(rng, beta, mix, weighted))
    kk = plain.sum(axis=-1)
    if side == 0:
        a, b = multinomial_rows(rng, beta, kk), multinomial_rows(rng, gamma, kk)
    else:
        mid = 0.5 * (beta + gamma)
        a, b = multinomial_rows(rng, mid, kk), multinomial_rows(rng, mid, kk)
    gold = (
        plain if weighted is None else np.where(weighted.sum(axis=-1, keepdims=True) > 0, weighted, plain.astype(float))
    )
    gaps = {mt: np.asarray(score_gap(mt, gold, a, b), dtype=float) for mt in metrics}
    return gaps, kk


def simulate_policy(
    prior: Sequence[float],
    eps: float,
    budget: int,
    k: int,
    policy: Policy,
    metrics: Sequence[str] | str | None = ("acc",),
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    workers: int | None = None,
    mix: RaterMix | None = None,
) -> list[AdaptiveCell]:
    """One cell (budget, K) of a policy on a prior, simulated: one ``AdaptiveCell`` per metric.

    N = floor(budget / K) items share N x K ratings by the policy; ``rounds`` alternative and ``rounds`` null
    datasets (spec "Generative model" / "Null hypothesis" with K replaced by each item's k_i); p, Delta, CI-width,
    reproducibility by ``nkcore.nk.pvalue.cell_stats``. Same inputs and seed, same numbers, whatever ``workers``.

    >>> c = simulate_policy((1.38, 1.33), 0.3, 200, 10, make_policy("margin"), ["tv"], rounds=50)[0]
    >>> c.n, c.first_stage_k, c.mean_ratings_per_item, c.max_ratings_per_item > 10
    (20, 5, 10.0, True)
    """
    mts = parse_metrics(metrics)
    a = np.asarray(validate_prior(prior), dtype=float)
    if not (0.0 <= float(eps) <= 1.0):
        raise DataError(f"eps must be between 0 and 1, got {eps}")
    b, kk = int(budget), int(k)
    if kk < 1 or b < kk:
        raise DataError(f"ratings per item (K) = {kk} must be between 1 and the budget {b}")
    if int(rounds) < 2:
        raise DataError(f"rounds must be at least 2, got {rounds}")
    if mix is not None:
        mix = check_mix(mix)
    n = b // kk
    m = a.size
    limits.check("rounds", int(rounds), "the request")
    limits.check("budget", b, "the adaptive cell")
    steps = 1 if policy.name != "sequential" else max(1, policy.cap(kk) - policy.first_stage(kk))
    limits.check("sim_work", 2 * int(rounds) * n * m * (4 + min(steps, 200)) * 3, "the adaptive simulation")
    per = max(1, min(int(rounds), CHUNK_CELLS // max(1, n * m)))
    limits.check_memory(per * n * m * 8 * 12, "one task of the adaptive simulation")
    entropy = as_entropy(seed)
    jobs = side_jobs(int(rounds), per)

    def run(job: tuple[int, int, int, int]) -> tuple[dict[str, np.ndarray], np.ndarray]:
        side, chunk, _, size = job
        return _task(entropy, a, float(eps), n, kk, side, chunk, size, policy, mts, mix)

    alt, nul = by_side(jobs, run_jobs(jobs, run, worker_count(workers)))
    kall = np.concatenate([p[1].ravel() for p in alt])
    part = PolicyPart(
        policy.name,
        policy.first_stage(kk),
        float(kall.mean()),
        int(kall.max()),
        "identical" if mix is None else mix_label(mix),
    )
    out = []
    for mt in mts:
        ga, gn = np.concatenate([p[0][mt] for p in alt]), np.concatenate([p[0][mt] for p in nul])
        out.append(make_cell(b, kk, n, mt, cell_stats(ga, gn), int(rounds), ga, gn, allocation=part))
    return out


def adaptive_cells(
    prior: Sequence[float],
    eps: float,
    cells: Sequence[tuple[int, int]],
    policy: Policy,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    workers: int | None = None,
    mix: RaterMix | None = None,
) -> list[AdaptiveCell]:
    """``simulate_policy`` for every (budget, K) of ``cells``, in order (a grid of one policy)."""
    limits.check("configs", len(cells), "the request")
    out: list[AdaptiveCell] = []
    for b, k in cells:
        out.extend(simulate_policy(prior, eps, b, k, policy, metrics, rounds, seed, workers, mix))
    return out


def policy_grid(
    prior: Sequence[float],
    eps: float,
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
    poor_share: float = 0.0,
    weighted: bool = False,
    shares: Sequence[float] = (),
    qualities: Sequence[float] = (),
) -> list[AdaptiveCell]:
    """Every (budget, K) of ``budgets`` x ``ks`` (K <= budget) of one policy, from plain parameters (the page's
    cached call; the CLI's ``nk --adaptive`` makes the same calls). ``poor_share`` > 0: that share of the ratings
    comes from raters who answer at random (quality 0), the rest from raters of quality 1 (``RaterMix``), weighted
    by their quality when ``weighted``. ``shares`` and ``qualities`` (one per type; e.g. the population fitted by
    ``nkcore.ratings.population``): that population instead.

    >>> [(c.budget, c.k, c.policy) for c in policy_grid((2.0, 1.0), 0.3, [20], [2, 4], "margin", rounds=20)]
    [(20, 2, 'margin'), (20, 4, 'margin')]
    """
    pol = make_policy(policy, first_share, contested, clear_margin, cap_factor)
    mix = None
    if len(shares) or len(qualities):
        mix = RaterMix(tuple(float(x) for x in shares), tuple(float(x) for x in qualities), bool(weighted))
    elif poor_share > 0:
        if not (0.0 < poor_share < 1.0):
            raise DataError(f"the share of raters who answer at random must be below 1, got {poor_share}")
        mix = RaterMix((1.0 - poor_share, poor_share), (1.0, 0.0), bool(weighted))
    cells = [(c.budget, c.k) for c in configurations(budgets, ks)]
    return adaptive_cells(prior, eps, cells, pol, metrics, rounds, seed, None, mix)


@dataclass(frozen=True, slots=True)
class PopulationShift:
    """One metric's minimal budget (``nkcore.nk.best.MinimalBudget``) and best K per budget (``BestK``) with raters
    alike (the paper), with the rater population counted like the others (``unweighted``) and weighted by quality."""

    metric: str
    alike: MinimalBudget
    unweighted: MinimalBudget
    weighted: MinimalBudget
    best_alike: tuple[BestK, ...]
    best_unweighted: tuple[BestK, ...]
    best_weighted: tuple[BestK, ...]


def population_shift(
    prior: Sequence[float],
    eps: float,
    budgets: Sequence[int],
    ks: Sequence[int],
    shares: Sequence[float],
    qualities: Sequence[float],
    metrics: Sequence[str] | str | None = ("acc",),
    rounds: int = 1000,
    seed: int = 0,
) -> list[PopulationShift]:
    """How a rater population moves the minimal budget and the best K on a prior: the grid ``budgets`` x ``ks``
    (K <= budget) simulated with K ratings per item (the ``fixed`` policy) three times, with the same seeds: raters
    alike, the population (``RaterMix(shares, qualities)``) counted like the others, and weighted by quality.
    Minimal budget: ``nkcore.nk.best.minimal_budgets`` (the smallest budget where some K has p < 0.05); best K:
    ``best_k``. One ``PopulationShift`` per metric.

    >>> sh = population_shift((2.0, 1.0), 0.3, [40], [2], (0.5, 0.5), (1.0, 0.0), ["acc"], rounds=20)[0]
    >>> sh.alike.metric, [b.k for b in sh.best_weighted]
    ('acc', [2])
    """
    mts = parse_metrics(metrics)
    pol = make_policy("fixed")
    cells = [(c.budget, c.k) for c in configurations(budgets, ks)]
    runs = [
        adaptive_cells(prior, eps, cells, pol, mts, rounds, seed, None, mix)
        for mix in (
            None,
            RaterMix(tuple(shares), tuple(qualities), False),
            RaterMix(tuple(shares), tuple(qualities), True),
        )
    ]
    out = []
    for mt in mts:
        mb = [minimal_budgets(r, [mt])[0] for r in runs]
        bk = [tuple(best_k(r, mt)) for r in runs]
        out.append(PopulationShift(mt, mb[0], mb[1], mb[2], bk[0], bk[1], bk[2]))
    return out


def recommend_prior(
    prior: Sequence[float],
    eps: float,
    budget: int,
    ks: Sequence[int],
    metric: str = "acc",
    first_share: float = 0.5,
    contested: float = 0.2,
    rounds: int = 1000,
    seed: int = 0,
) -> Recommendation:
    """``policies.recommend`` on a prior: every fixed K of ``ks`` and K = 1 against margin and sequential (with
    these settings) at one budget, all simulated by ``simulate_policy`` (the Budget page's recommendation)."""
    pols = (make_policy("margin", first_share, contested), make_policy("sequential", first_share))

    def run(pol: Policy, k: int, s: int) -> AdaptiveCell:
        return simulate_policy(prior, eps, budget, k, pol, [metric], rounds, s)[0]

    return recommend(run, int(budget), ks, metric, int(rounds), int(seed), pols)
