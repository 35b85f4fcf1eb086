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
q = (s - 1/M) / (1 - 1/M)). ``weighted`` counts each rating with its rater's quality q_t as weight (the
model-weighted gold), else every rating counts 1 (the plurality of identical raters).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.nk.grid import CellResult
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.priors import validate_alpha
from nkcore.nk.pvalue import SIGNIFICANCE, cell_stats
from nkcore.nk.samplers import draw_dirichlet, draw_noise
from nkcore.nk.scores import score_gap
from nkcore.nk.simulate import default_workers

__all__ = [
    "POLICIES",
    "POLICY_WORDS",
    "AdaptiveCell",
    "Policy",
    "RaterMix",
    "adaptive_cells",
    "allocate",
    "make_policy",
    "multinomial_rows",
    "plurality_margin",
    "policy_grid",
    "simulate_policy",
]

POLICIES: tuple[str, ...] = ("fixed", "margin", "sequential")
"""The policies' names, as ``nk --adaptive`` takes them."""
POLICY_WORDS: dict[str, str] = {
    "fixed": "every item gets the same number of ratings (K)",
    "margin": "a first round of ratings for every item, then the rest of the budget to the most contested items",
    "sequential": "ratings one at a time to the items whose plurality is not yet clear, up to a cap per item",
}
"""Each policy in words, for the page and the CLI."""
_POLICY_CODE = {"fixed": 0, "margin": 1, "sequential": 2}
_CHUNK_CELLS = 1 << 18  # rounds x items x labels per task


@dataclass(frozen=True, slots=True)
class Policy:
    """How a budget of N x K ratings is spread over N items.

    name: "fixed", "margin" or "sequential"; first_share: the first stage's share of K (K0 = max(1,
    round(first_share K)), at most K); contested: share of the items that get the second stage (``margin``);
    clear_margin: the plurality's lead (top count less the runner-up's) at which an item is clear (``sequential``);
    cap_factor: an item gets at most ceil(cap_factor K) ratings (``sequential``).
    """

    name: str
    first_share: float = 0.5
    contested: float = 0.2
    clear_margin: int = 2
    cap_factor: float = 3.0

    def first_stage(self, k: int) -> int:
        """K0, the ratings every item gets first.

        >>> Policy("margin").first_stage(10), Policy("fixed").first_stage(10), Policy("margin").first_stage(1)
        (5, 10, 1)
        """
        if self.name == "fixed":
            return int(k)
        return int(min(k, max(1, round(self.first_share * k))))

    def cap(self, k: int) -> int:
        """The most ratings one item may get: ceil(cap_factor K) for ``sequential`` (at least K), else unbounded.

        >>> Policy("sequential").cap(4)
        12
        """
        return max(int(k), math.ceil(self.cap_factor * k)) if self.name == "sequential" else 1 << 40

    def label(self) -> str:
        """A short name with the settings, e.g. ``margin (K0 = 50% of K, 20% of items)``."""
        if self.name == "margin":
            return f"margin (first {self.first_share:.0%} of K, then the {self.contested:.0%} most contested items)"
        if self.name == "sequential":
            return f"sequential (first {self.first_share:.0%} of K, until a lead of {self.clear_margin}, cap {self.cap_factor:g} K)"
        return "fixed K"


def make_policy(
    name: str,
    first_share: float = 0.5,
    contested: float = 0.2,
    clear_margin: int = 2,
    cap_factor: float = 3.0,
) -> Policy:
    """A checked ``Policy`` (``DataError`` naming the setting when one is out of range).

    >>> make_policy("margin", contested=0.1).contested
    0.1
    >>> make_policy("best")
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: policy must be one of fixed, margin, sequential; got 'best'
    """
    if name not in POLICIES:
        raise DataError(f"policy must be one of {', '.join(POLICIES)}; got {name!r}")
    if not (0.0 < float(first_share) <= 1.0):
        raise DataError(f"the first stage's share of K must be in (0, 1], got {first_share}")
    if not (0.0 < float(contested) <= 1.0):
        raise DataError(f"the share of contested items must be in (0, 1], got {contested}")
    if int(clear_margin) < 1 or int(clear_margin) != clear_margin:
        raise DataError(f"the clear margin must be a whole number >= 1, got {clear_margin}")
    if not (1.0 <= float(cap_factor) <= 100.0):
        raise DataError(f"the cap per item must be 1 to 100 times K, got {cap_factor}")
    return Policy(name, float(first_share), float(contested), int(clear_margin), float(cap_factor))


@dataclass(frozen=True, slots=True)
class RaterMix:
    """A population of raters: type t has share ``shares[t]`` of the ratings and quality ``qualities[t]`` (the
    probability that its rating is informative, a draw from the item's beta_i; else a uniform random label).
    ``weighted``: the gold counts each rating with its rater's quality (else 1)."""

    shares: tuple[float, ...]
    qualities: tuple[float, ...]
    weighted: bool = False

    def mean_quality(self) -> float:
        """sum_t w_t q_t: the share of informative ratings.

        >>> RaterMix((0.75, 0.25), (1.0, 0.0)).mean_quality()
        0.75
        """
        w = np.asarray(self.shares, float)
        return float(np.dot(w / w.sum(), self.qualities))


def check_mix(mix: RaterMix) -> RaterMix:
    """Refuse a population without raters or with shares / qualities outside [0, 1] (``DataError``)."""
    w, q = np.asarray(mix.shares, float), np.asarray(mix.qualities, float)
    if w.size == 0 or w.shape != q.shape:
        raise DataError("a rater population needs one share and one quality per type of rater")
    if np.any(~np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise DataError("the rater types' shares must be >= 0 with a positive sum")
    if np.any(~np.isfinite(q)) or np.any((q < 0) | (q > 1)):
        raise DataError("the rater types' qualities must be between 0 and 1")
    return RaterMix(tuple(float(x) for x in w / w.sum()), tuple(float(x) for x in q), bool(mix.weighted))


def multinomial_rows(rng: np.random.Generator, p: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Multinomial(n_r, p_r) counts for every row r (p: (..., M), n: (...) whole numbers), as a chain of binomials.

    Formula: c_1 ~ Bin(n, p_1), c_j ~ Bin(n - sum_(l<j) c_l, p_j / (1 - sum_(l<j) p_l)), c_M the rest
    (Johnson, Kotz & Balakrishnan, "Discrete Multivariate Distributions", 1997, ch. 35).

    >>> c = multinomial_rows(np.random.default_rng(0), np.array([[0.5, 0.5], [1.0, 0.0]]), np.array([4, 3]))
    >>> c.sum(axis=-1).tolist(), int(c[1, 0])
    ([4, 3], 3)
    """
    m = p.shape[-1]
    out = np.empty(p.shape, dtype=np.int64)
    left = np.asarray(n, dtype=np.int64).copy()
    rest = np.ones(p.shape[:-1])
    for j in range(m - 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            pj = np.where(rest > 0, p[..., j] / rest, 0.0)
        c = rng.binomial(left, np.clip(pj, 0.0, 1.0))
        out[..., j] = c
        left -= c
        rest = rest - p[..., j]
    out[..., m - 1] = left
    return out


def hypergeometric_rows(rng: np.random.Generator, pool: np.ndarray, n: np.ndarray) -> np.ndarray:
    """n_r ratings drawn without replacement from each row's label counts ``pool`` (rows need >= n_r ratings).

    Formula: the multivariate hypergeometric as a chain, c_j ~ Hypergeometric(x_j, rest - x_j, n - sum_(l<j) c_l)
    (Johnson, Kotz & Balakrishnan 1997, ch. 39).

    >>> hypergeometric_rows(np.random.default_rng(0), np.array([[3, 0], [1, 1]]), np.array([2, 2])).tolist()
    [[2, 0], [1, 1]]
    """
    m = pool.shape[-1]
    out = np.empty(pool.shape, dtype=np.int64)
    left = np.asarray(n, dtype=np.int64).copy()
    rest = pool.sum(axis=-1).astype(np.int64)
    for j in range(m - 1):
        good = pool[..., j].astype(np.int64)
        c = rng.hypergeometric(good, rest - good, left)
        out[..., j] = c
        left -= c
        rest -= good
    out[..., m - 1] = left
    return out


def plurality_margin(counts: np.ndarray) -> np.ndarray:
    """The plurality's lead per item: the top label's count less the runner-up's (0 on a tie).

    >>> plurality_margin(np.array([[3, 1, 0], [2, 2, 1], [0, 5, 0]])).tolist()
    [2, 0, 5]
    """
    s = np.sort(counts, axis=-1)
    return s[..., -1] - s[..., -2]


def _ranks(key: np.ndarray) -> np.ndarray:
    """Rank of each item within its round (0 = smallest key)."""
    order = np.argsort(key, axis=-1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(key.shape[-1])[None, :].repeat(key.shape[0], 0), axis=-1)
    return ranks


def allocate(
    rng: np.random.Generator,
    policy: Policy,
    k: int,
    n: int,
    rounds: int,
    draw: Callable[[np.ndarray, np.ndarray | None], np.ndarray],
    available: np.ndarray | None = None,
) -> np.ndarray:
    """Gold counts (rounds, N, M) of one policy spending N x K ratings per dataset.

    ``draw(extra, so_far)`` returns the counts of ``extra`` (rounds, N) more ratings per item given the counts so
    far (None before the first stage); ``available`` (rounds, N): ratings each item has in all (real data: its
    pool), else unbounded. The rules are in the module's docstring.
    """
    k0 = policy.first_stage(k)
    gold = draw(np.full((rounds, n), k0, dtype=np.int64), None)
    if policy.name == "fixed" or (k0 >= k and policy.name == "margin"):
        return gold
    room = None if available is None else np.asarray(available, dtype=np.int64)
    left = np.full(rounds, n * k, dtype=np.int64) - gold.sum(axis=(1, 2))
    if policy.name == "margin":
        n_c = max(1, min(n, math.ceil(policy.contested * n - 1e-9)))
        rank = _ranks(plurality_margin(gold) + rng.random((rounds, n)))
        per, rem = np.divmod(left, n_c)
        extra = np.where(rank < n_c, per[:, None] + (rank < rem[:, None]), 0)
        if room is not None:
            extra = np.minimum(extra, room - gold.sum(axis=-1))
        return gold + draw(extra, gold)
    cap = policy.cap(k)
    while True:
        got = gold.sum(axis=-1)
        mg = plurality_margin(gold)
        active = (mg < policy.clear_margin) & (got < cap) & (left[:, None] > 0)
        if room is not None:
            active &= got < room
        if not active.any():
            return gold
        over = active.sum(axis=1) > left
        if over.any():  # the budget left cannot serve every open item: the most contested first
            key = np.where(active, mg + rng.random((rounds, n)), np.inf)
            active &= ~over[:, None] | (_ranks(key) < left[:, None])
        step = active.astype(np.int64)
        gold = gold + draw(step, gold)
        left -= step.sum(axis=1)


@dataclass(frozen=True, slots=True)
class AdaptiveCell:
    """One cell (budget, K) of a policy, one metric: the engine's numbers plus how the ratings were spread.

    budget, k, n: the cell (K = the budget's ratings per item on average, N = floor(budget / K) items);
    p, delta, ci_width, reproducibility, ties, mean_gap, rounds, method, p_error, delta_error, ci_width_error: as in
    ``grid.CellResult``; policy, first_stage_k (K0); mean_ratings_per_item, max_ratings_per_item: realised over
    the rounds (the mean over items and rounds; the largest any item got); raters: "identical" or the rater
    population's label.
    """

    budget: int
    k: int
    n: int
    metric: str
    p: float
    delta: float
    ci_width: float
    reproducibility: float
    ties: float
    mean_gap: float
    rounds: int
    policy: str
    first_stage_k: int
    mean_ratings_per_item: float
    max_ratings_per_item: int
    alt: np.ndarray = field(repr=False, compare=False)
    null: np.ndarray = field(repr=False, compare=False)
    method: str = "simulate"
    p_error: float = float("nan")
    delta_error: float = float("nan")
    ci_width_error: float = float("nan")
    raters: str = "identical"

    @property
    def significant(self) -> bool:
        """p < 0.05."""
        return self.p < SIGNIFICANCE

    def summary(self) -> dict[str, object]:
        """The engine's cell keys plus ``policy``, ``mean_ratings_per_item``, ``max_ratings_per_item`` (CLI JSON)."""
        keys = (
            "budget",
            "k",
            "n",
            "metric",
            "p",
            "delta",
            "ci_width",
            "reproducibility",
            "ties",
            "mean_gap",
            "rounds",
            "method",
            "p_error",
            "delta_error",
            "ci_width_error",
            "policy",
            "first_stage_k",
            "mean_ratings_per_item",
            "max_ratings_per_item",
        )
        return {f: getattr(self, f) for f in keys}


def fixed_cell(cell: CellResult) -> AdaptiveCell:
    """The engine's cell as the ``fixed`` policy's (every number kept bit for bit, K ratings per item)."""
    return AdaptiveCell(
        cell.budget,
        cell.k,
        cell.n,
        cell.metric,
        cell.p,
        cell.delta,
        cell.ci_width,
        cell.reproducibility,
        cell.ties,
        cell.mean_gap,
        cell.rounds,
        "fixed",
        cell.k,
        float(cell.k),
        int(cell.k),
        cell.alt,
        cell.null,
        cell.method,
        cell.p_error,
        cell.delta_error,
        cell.ci_width_error,
    )


def _gold_ratings(
    rng: np.random.Generator, beta: np.ndarray, m: int, mix: RaterMix | None
) -> Callable[[np.ndarray, np.ndarray | None], np.ndarray]:
    """The prior's gold draw: identical raters (counts from beta_i) or an unweighted rater population (each rating
    informative with its type's quality, else a uniform random label)."""
    if mix is None:
        return lambda extra, _so_far: multinomial_rows(rng, beta, extra)
    w, q = np.asarray(mix.shares), np.asarray(mix.qualities)
    uniform = np.full(m, 1.0 / m)

    def draw(extra: np.ndarray, _so_far: np.ndarray | None) -> np.ndarray:
        by_type = multinomial_rows(rng, np.broadcast_to(w, (*extra.shape, w.size)), extra)
        out = np.zeros((*extra.shape, m), dtype=np.int64)
        for t in range(w.size):
            good = rng.binomial(by_type[..., t], q[t])
            c = multinomial_rows(rng, beta, good) + multinomial_rows(
                rng, np.broadcast_to(uniform, beta.shape), by_type[..., t] - good
            )
            out += c
        return out

    return draw


def _task(
    entropy: int,
    alpha: np.ndarray,
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
    key = (n, k, side, chunk, _POLICY_CODE[policy.name])
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))
    m = alpha.size
    beta = np.moveaxis(draw_dirichlet(rng, alpha, (size, n)), 0, -1)
    rho = np.moveaxis(draw_noise(rng, m, (size, n)), 0, -1)
    gamma = (1.0 - eps) * beta + eps * rho
    gold = allocate(rng, policy, k, n, size, _gold_ratings(rng, beta, m, mix))
    kk = gold.sum(axis=-1)
    if side == 0:
        a, b = multinomial_rows(rng, beta, kk), multinomial_rows(rng, gamma, kk)
    else:
        mid = 0.5 * (beta + gamma)
        a, b = multinomial_rows(rng, mid, kk), multinomial_rows(rng, mid, kk)
    gaps = {mt: np.asarray(score_gap(mt, gold, a, b), dtype=float) for mt in metrics}
    return gaps, kk


def simulate_policy(
    alpha: Sequence[float],
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
    a = np.asarray(validate_alpha(alpha), dtype=float)
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
    per = max(1, min(int(rounds), _CHUNK_CELLS // max(1, n * m)))
    limits.check_memory(per * n * m * 8 * 12, "one task of the adaptive simulation")
    entropy = as_entropy(seed)
    jobs = [
        (side, c, s, min(per, int(rounds) - s)) for side in (0, 1) for c, s in enumerate(range(0, int(rounds), per))
    ]
    nw = default_workers() if workers is None else min(max(1, int(workers)), 64)

    def run(job: tuple[int, int, int, int]) -> tuple[dict[str, np.ndarray], np.ndarray]:
        side, chunk, _, size = job
        return _task_mixed(entropy, a, float(eps), n, kk, side, chunk, size, policy, mts, mix)

    if nw == 1 or len(jobs) == 1:
        results = [run(j) for j in jobs]
    else:
        with ThreadPoolExecutor(max_workers=nw) as pool:
            results = list(pool.map(run, jobs))
    sides: list[dict[str, np.ndarray]] = []
    ks: list[np.ndarray] = []
    for side in (0, 1):
        parts = [r for j, r in zip(jobs, results, strict=True) if j[0] == side]
        sides.append({mt: np.concatenate([p[0][mt] for p in parts]) for mt in mts})
        if side == 0:
            ks = [p[1] for p in parts]
    kall = np.concatenate([x.ravel() for x in ks])
    label = "identical" if mix is None else _mix_label(mix)
    out = []
    for mt in mts:
        st = cell_stats(sides[0][mt], sides[1][mt])
        out.append(
            AdaptiveCell(
                b,
                kk,
                n,
                mt,
                st.p,
                st.delta,
                st.ci_width,
                st.reproducibility,
                st.ties,
                st.mean_gap,
                int(rounds),
                policy.name,
                policy.first_stage(kk),
                float(kall.mean()),
                int(kall.max()),
                sides[0][mt],
                sides[1][mt],
                raters=label,
            )
        )
    return out


def _mix_label(mix: RaterMix) -> str:
    kinds = ", ".join(f"{w:.0%} of quality {q:.2f}" for w, q in zip(mix.shares, mix.qualities, strict=True))
    return f"{'weighted' if mix.weighted else 'unweighted'} mixture: {kinds}"


def _task_mixed(
    entropy: int,
    alpha: np.ndarray,
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
    if mix is None or not mix.weighted:
        return _task(entropy, alpha, eps, n, k, side, chunk, size, policy, metrics, mix)
    return _task_weighted(entropy, alpha, eps, n, k, side, chunk, size, policy, metrics, mix)


def _task_weighted(
    entropy: int,
    alpha: np.ndarray,
    eps: float,
    n: int,
    k: int,
    side: int,
    chunk: int,
    size: int,
    policy: Policy,
    metrics: tuple[str, ...],
    mix: RaterMix,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Weighted gold: the policy spends ratings as for the unweighted mixture (its margins on plain counts), the
    metrics read the ratings weighted by their raters' quality."""
    key = (n, k, side, chunk, _POLICY_CODE[policy.name])
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))
    m = alpha.size
    beta = np.moveaxis(draw_dirichlet(rng, alpha, (size, n)), 0, -1)
    rho = np.moveaxis(draw_noise(rng, m, (size, n)), 0, -1)
    gamma = (1.0 - eps) * beta + eps * rho
    w, q = np.asarray(mix.shares), np.asarray(mix.qualities)
    uniform = np.broadcast_to(np.full(m, 1.0 / m), beta.shape)
    weighted = np.zeros(beta.shape)

    def draw(extra: np.ndarray, _so_far: np.ndarray | None) -> np.ndarray:
        by_type = multinomial_rows(rng, np.broadcast_to(w, (*extra.shape, w.size)), extra)
        out = np.zeros((*extra.shape, m), dtype=np.int64)
        for t in range(w.size):
            good = rng.binomial(by_type[..., t], q[t])
            c = multinomial_rows(rng, beta, good) + multinomial_rows(rng, uniform, by_type[..., t] - good)
            out += c
            weighted[...] += c * q[t]
        return out

    plain = allocate(rng, policy, k, n, size, draw)
    kk = plain.sum(axis=-1)
    if side == 0:
        a, b = multinomial_rows(rng, beta, kk), multinomial_rows(rng, gamma, kk)
    else:
        mid = 0.5 * (beta + gamma)
        a, b = multinomial_rows(rng, mid, kk), multinomial_rows(rng, mid, kk)
    gold = np.where(weighted.sum(axis=-1, keepdims=True) > 0, weighted, plain.astype(float))
    gaps = {mt: np.asarray(score_gap(mt, gold, a, b), dtype=float) for mt in metrics}
    return gaps, kk


def adaptive_cells(
    alpha: Sequence[float],
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
        out.extend(simulate_policy(alpha, eps, b, k, policy, metrics, rounds, seed, workers, mix))
    return out


def policy_grid(
    alpha: Sequence[float],
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
) -> list[AdaptiveCell]:
    """Every (budget, K) of ``budgets`` x ``ks`` (K <= budget) of one policy, from plain parameters (the page's
    cached call; the CLI's ``nk --adaptive`` makes the same calls). ``poor_share`` > 0: that share of the ratings
    comes from raters who answer at random (quality 0), the rest from raters of quality 1 (``RaterMix``), weighted
    by their quality when ``weighted``.

    >>> [(c.budget, c.k, c.policy) for c in policy_grid((2.0, 1.0), 0.3, [20], [2, 4], "margin", rounds=20)]
    [(20, 2, 'margin'), (20, 4, 'margin')]
    """
    from nkcore.nk.grid import configurations

    pol = make_policy(policy, first_share, contested, clear_margin, cap_factor)
    mix = None
    if poor_share > 0:
        if not (0.0 < poor_share < 1.0):
            raise DataError(f"the share of raters who answer at random must be below 1, got {poor_share}")
        mix = RaterMix((1.0 - poor_share, poor_share), (1.0, 0.0), bool(weighted))
    cells = [(c.budget, c.k) for c in configurations(budgets, ks)]
    return adaptive_cells(alpha, eps, cells, pol, metrics, rounds, seed, None, mix)
