"""How a budget of N x K ratings is spread over N items: the allocation policies and the draws they use.

- ``fixed``: every item gets K ratings (the paper's design);
- ``margin`` (two stages): every item gets K0 = max(1, round(first_share K)) ratings; the plurality's margin
  m_i = c_(1) - c_(2) (the top label's count less the runner-up's) ranks the items; the ceil(contested N) items
  with the smallest margins (ties broken at random) share the other N (K - K0) ratings equally (the most contested
  get the remainder, one each);
- ``sequential``: every item gets K0 ratings; then, step by step, one more rating to every item whose margin is not
  yet clear (m_i < clear_margin) and that has fewer than the cap (ceil(cap_factor K)) ratings, the most contested
  first when the budget left cannot serve them all, until the budget is spent or every item is clear or capped.
A policy sees only the human ratings (gold), never the models. Raters who are not alike: :class:`RaterMix` (the
one-coin model of Dawid & Skene, 1979). Counts with a different k_i per item are drawn exactly, as a chain of
binomials (:func:`multinomial_rows`) or, from a real item's pool, of hypergeometrics (:func:`hypergeometric_rows`).
The simulation on a prior is ``nkcore.nk.adaptive``, on real data ``nkcore.nk.adaptive_resample``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nkcore.errors import DataError

POLICIES: tuple[str, ...] = ("fixed", "margin", "sequential")
"""The policies' names, as ``nk --adaptive`` takes them."""
POLICY_WORDS: dict[str, str] = {
    "fixed": "every item gets the same number of ratings (K)",
    "margin": "a first round of ratings for every item, then the rest of the budget to the most contested items",
    "sequential": "ratings one at a time to the items whose plurality is not yet clear, up to a cap per item",
}
"""Each policy in words, for the page and the CLI."""
POLICY_CODE = {"fixed": 0, "margin": 1, "sequential": 2}
"""Each policy's code in the seeds of its rounds (``SeedSequence(seed, spawn_key=(..., code))``)."""


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


def mix_label(mix: RaterMix) -> str:
    """A rater population in words, e.g. ``unweighted mixture: 75% of quality 1.00, 25% of quality 0.00``.

    >>> mix_label(RaterMix((0.75, 0.25), (1.0, 0.0)))
    'unweighted mixture: 75% of quality 1.00, 25% of quality 0.00'
    """
    kinds = ", ".join(f"{w:.0%} of quality {q:.2f}" for w, q in zip(mix.shares, mix.qualities, strict=True))
    return f"{'weighted' if mix.weighted else 'unweighted'} mixture: {kinds}"


__all__ = [
    "POLICIES",
    "POLICY_CODE",
    "POLICY_WORDS",
    "RECOMMEND_Z",
    "Policy",
    "RaterMix",
    "Recommendation",
    "allocate",
    "check_mix",
    "hypergeometric_rows",
    "make_policy",
    "mix_label",
    "multinomial_rows",
    "plurality_margin",
    "recommend",
]


RECOMMEND_Z = 2.0
"""Adaptive allocation is recommended only when its reproducibility beats the best fixed K's at the same budget by
more than this many Monte Carlo standard errors of the difference (issue 53)."""


@dataclass(frozen=True, slots=True)
class Recommendation:
    """How to spend one budget: the best fixed K (K = 1 included) against the best adaptive policy, each re-run with
    a fresh seed after the pick (so the maximum over the candidates does not flatter either).

    fixed / adaptive: the re-run cells (``None``: no adaptive candidate fits); gain: adaptive's reproducibility less
    fixed's; gain_se: its Monte Carlo standard error, sqrt(r_a (1 - r_a) / R + r_f (1 - r_f) / R) over R rounds;
    adaptive_wins: gain > ``RECOMMEND_Z`` gain_se; tried: (policy label, K, reproducibility) of every candidate."""

    budget: int
    metric: str
    rounds: int
    fixed: Any
    adaptive: Any
    gain: float
    gain_se: float
    adaptive_wins: bool
    tried: tuple[tuple[str, int, float], ...]

    @property
    def choice(self) -> Any:
        """The cell recommended: adaptive only where it wins by more than the Monte Carlo error."""
        return self.adaptive if self.adaptive_wins else self.fixed


def recommend(
    run: Callable[[Policy, int, int], Any],
    budget: int,
    ks: Sequence[int],
    metric: str,
    rounds: int,
    seed: int = 0,
    policies: Sequence[Policy] = (),
) -> Recommendation:
    """Every fixed K of ``ks`` and K = 1 (N = budget // K >= 2) against the adaptive ``policies`` (default: margin
    and sequential with their default settings) at K >= 2, at one budget. ``run(policy, K, seed)`` returns the
    cell of one metric. A margin policy whose first round is 1 rating is left out: every first-round margin is then 1
    and its "contested" items would be picked at random (issue 53). Picks the best of each family by
    reproducibility (then p), re-runs both with seed + 1 and compares them (``Recommendation``).
    """
    pols = tuple(policies) or (Policy("margin"), Policy("sequential"))
    fixed_ks = sorted({1, *(int(k) for k in ks)})
    fixed_ks = [k for k in fixed_ks if k <= budget and budget // k >= 2]
    tried: list[tuple[str, int, float]] = []
    best: dict[str, tuple[tuple[float, float], Policy, int] | None] = {"fixed": None, "adaptive": None}
    candidates = [(Policy("fixed"), k) for k in fixed_ks] + [
        (p, k) for p in pols for k in fixed_ks if k >= 2 and not (p.name == "margin" and p.first_stage(k) < 2)
    ]
    for pol, k in candidates:
        c = run(pol, k, seed)
        r = float(c.reproducibility)
        tried.append((pol.label() if pol.name != "fixed" else "fixed K", k, r))
        fam = "fixed" if pol.name == "fixed" else "adaptive"
        key = (-r, float(c.p))
        got = best[fam]
        if got is None or key < got[0]:
            best[fam] = (key, pol, k)
    if best["fixed"] is None:
        raise DataError(f"no ratings per item (K) fits a budget of {budget} with at least 2 items")
    fx_pick = best["fixed"]
    fx = run(fx_pick[1], fx_pick[2], seed + 1)
    ad_pick = best["adaptive"]
    ad = None if ad_pick is None else run(ad_pick[1], ad_pick[2], seed + 1)
    rf = float(fx.reproducibility)
    if ad is None:
        return Recommendation(
            int(budget), metric, int(rounds), fx, None, float("nan"), float("nan"), False, tuple(tried)
        )
    ra = float(ad.reproducibility)
    se = math.sqrt((ra * (1 - ra) + rf * (1 - rf)) / int(rounds))
    gain = ra - rf
    return Recommendation(int(budget), metric, int(rounds), fx, ad, gain, se, gain > RECOMMEND_Z * se, tuple(tried))
