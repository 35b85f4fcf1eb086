"""The rater population fitted to ratings with rater ids: a few quality classes with their shares of the ratings.

The simulation's raters who are not alike (``nkcore.nk.policies.RaterMix``) come in types t with a share w_t of the
ratings and a quality q_t: the probability that a rating is informative (a draw from the item's response
distribution beta_i, as the paper's raters answer) rather than a uniform random label. This module estimates that
population from real ratings:

1. each rater's one-coin skill s_r (the one-coin Dawid-Skene model of crowd-kit, ``nkcore.ratings.quality``): the
   chance that their rating equals the item's latent label;
2. the mapping. Under the mix, a random rating matches the item's label with probability 1/M (M labels) and an
   informative one with probability s* = E_i[beta_i(label_i)], the same for every informative rater. So
   s_r = q_r s* + (1 - q_r) / M, that is **q_r = (s_r - 1/M) / (s* - 1/M)** (clipped to [0, 1]). With s* = 1
   (every informative rating is the item's label) this is ``informative_share``; on items the raters genuinely
   disagree about s* < 1, and is estimated as the rating-weighted mean skill of the raters not below the others;
3. which raters are below the others: z_r = (s_r - s*) / sqrt(s* (1 - s*) / n_r) (n_r: their ratings), divided by
   the spread phi of the z of the raters not flagged (phi = max(1, 1.4826 x their median absolute deviation): the
   fitted skills vary more than binomially, since the true labels are themselves estimated; on sparse crowd data
   identical raters' z spread about 1.3); rater r is flagged when z_r / phi < -z_crit with z_crit = max(``Z_FLAG``,
   the one-sided normal quantile at 0.05 / R) (a family-wise bound over the R raters) and n_r >= ``MIN_RATINGS``;
   s*, phi and the flags recomputed until they settle. The raters not flagged form the class of quality 1 (the reference); the flagged ones are binned by
   q_r into "fair" (q_r >= 1/2) and "poor" (q_r < 1/2), each with its share of the ratings and the rating-weighted
   mean q_r as its quality.

Raters alike (the paper) therefore come out as one class of quality 1: the one-coin skills of identical raters
differ only by the binomial noise the flag allows for. The classes' (shares, qualities) feed ``RaterMix``.
Reference: Dawid & Skene (1979); crowd-kit (Ustalov et al., JOSS 2024).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.ratings.quality import Aggregate, aggregate_ratings
from nkcore.ratings.raters import RaterRatings

__all__ = [
    "CLASS_NAMES",
    "MIN_RATINGS",
    "Z_FLAG",
    "FittedPopulation",
    "RaterClass",
    "disagreement_shares",
    "fit_population",
    "population_frame",
    "population_from_aggregate",
    "population_sentence",
]

Z_FLAG = 3.0
MIN_RATINGS = 10
"""A rater with fewer ratings is never flagged: too few to tell them from the others."""
"""A rater is below the others when their skill is more than this many standard errors below s*."""
CLASS_NAMES: tuple[str, ...] = ("alike", "fair", "poor")
"""The classes: raters as good as the reference (quality 1), flagged raters with q >= 1/2, flagged with q < 1/2."""


@dataclass(frozen=True, slots=True)
class RaterClass:
    """One class of raters: ``name`` (``CLASS_NAMES``), ``n_raters``, ``share`` (of all ratings), ``quality``
    (rating-weighted mean q_r: the share of informative ratings) and ``skill`` (rating-weighted mean one-coin s_r)."""

    name: str
    n_raters: int
    share: float
    quality: float
    skill: float


@dataclass(frozen=True, slots=True)
class FittedPopulation:
    """The fitted population: ``classes`` (non-empty ones, in ``CLASS_NAMES`` order), ``reference_skill`` (s*),
    ``n_labels`` (M), per rater ``raters``, ``skills``, ``qualities`` (q_r), ``flagged`` and ``disagreement`` (the
    share of the items they rated where their label is not among the top labels of the item's other ratings)."""

    classes: tuple[RaterClass, ...]
    reference_skill: float
    n_labels: int
    raters: tuple[str, ...]
    skills: tuple[float, ...]
    qualities: tuple[float, ...]
    n_ratings: tuple[int, ...]
    flagged: tuple[bool, ...]
    disagreement: tuple[float, ...]

    @property
    def shares(self) -> tuple[float, ...]:
        """The classes' shares of the ratings (``RaterMix.shares``)."""
        return tuple(c.share for c in self.classes)

    @property
    def mix_qualities(self) -> tuple[float, ...]:
        """The classes' qualities (``RaterMix.qualities``)."""
        return tuple(c.quality for c in self.classes)

    @property
    def n_flagged(self) -> int:
        """Raters below the others."""
        return int(sum(self.flagged))

    @property
    def alike(self) -> bool:
        """No rater is below the others: the population is the paper's identical raters."""
        return self.n_flagged == 0


def disagreement_shares(rr: RaterRatings) -> np.ndarray:
    """Per rater, the share of their ratings whose label is not among the most frequent labels of the item's other
    ratings (leave-one-out plurality, ties count as agreement; ratings of items rated once are left out); NaN for a
    rater with no such rating.

    >>> from nkcore.ratings.raters import rater_ratings
    >>> disagreement_shares(rater_ratings([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 1, 0, 0, 0, 1])).tolist()
    [0.0, 0.0, 1.0]
    """
    counts = rr.ratings.counts
    others = counts[rr.item_codes].astype(np.int64).copy()
    others[np.arange(rr.item_codes.size), rr.label_codes] -= 1
    has = others.sum(axis=1) > 0
    own = others[np.arange(rr.item_codes.size), rr.label_codes]
    miss = (own < others.max(axis=1)) & has
    n = np.bincount(rr.rater_codes, weights=has.astype(float), minlength=rr.n_raters)
    bad = np.bincount(rr.rater_codes, weights=miss.astype(float), minlength=rr.n_raters)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, bad / n, np.nan)


def _reference(s: np.ndarray, n: np.ndarray, m: int) -> tuple[float, np.ndarray]:
    """s* and the flags (module docstring, step 3), iterated to a fixed point (at most 50 rounds; s* is the one of
    the returned flags)."""
    from scipy.stats import norm

    z_crit = max(Z_FLAG, float(norm.isf(0.05 / max(s.size, 1))))
    flagged = np.zeros(s.size, dtype=bool)
    for _ in range(50):
        keep = ~flagged
        ref = float(np.average(s[keep], weights=n[keep]))
        z = (s - ref) / np.sqrt(max(ref * (1.0 - ref), 1e-12) / np.maximum(n, 1))
        mad = float(np.median(np.abs(z[keep] - np.median(z[keep])))) if keep.sum() >= 5 else 0.0
        phi = max(1.0, 1.4826 * mad)
        new = (z / phi < -z_crit) & (n >= MIN_RATINGS)
        if not (~new).any():  # never flag everyone: the best rater is the reference
            new = s < s.max()
        if np.array_equal(new, flagged):
            break
        flagged = new
    keep = ~flagged
    return float(np.average(s[keep], weights=n[keep])), flagged


def population_from_aggregate(agg: Aggregate, rr: RaterRatings) -> FittedPopulation:
    """The population from a fitted aggregate's per-rater skills (``quality`` of the one-coin model, or any model
    whose quality is the chance to be right): the mapping, flags and classes of the module docstring."""
    m = len(agg.label_names)
    if m < 2:
        raise DataError("need at least 2 labels to tell informative ratings from random ones")
    s = np.array([q.quality for q in agg.raters], dtype=float)
    n = np.array([q.n_ratings for q in agg.raters], dtype=float)
    ok = np.isfinite(s) & (n > 0)
    if not ok.any():
        raise DataError("no rater has a fitted quality")
    ref, flag_ok = _reference(s[ok], n[ok], m)
    flagged = np.zeros(s.size, dtype=bool)
    flagged[ok] = flag_ok
    if ref <= 1.0 / m:
        raise DataError(
            f"the raters agree no more than chance ({ref:.0%} against {1 / m:.0%} for {m} labels): no quality to fit"
        )
    q = np.clip((s - 1.0 / m) / (ref - 1.0 / m), 0.0, 1.0)
    q = np.where(flagged | ~ok, q, 1.0)
    group = np.where(~flagged, 0, np.where(q >= 0.5, 1, 2))
    classes = []
    total = float(n[ok].sum())
    for g, name in enumerate(CLASS_NAMES):
        sel = ok & (group == g)
        if sel.any():
            w = n[sel]
            quality = 1.0 if g == 0 else float(np.average(q[sel], weights=w))
            classes.append(
                RaterClass(name, int(sel.sum()), float(w.sum() / total), quality, float(np.average(s[sel], weights=w)))
            )
    return FittedPopulation(
        tuple(classes),
        ref,
        m,
        tuple(q_.rater for q_ in agg.raters),
        tuple(float(x) for x in s),
        tuple(float(x) for x in q),
        tuple(int(x) for x in n),
        tuple(bool(x) for x in flagged),
        tuple(float(x) for x in disagreement_shares(rr)),
    )


def fit_population(rr: RaterRatings, method: str = "one-coin") -> FittedPopulation:
    """Fit ``method`` (one-coin Dawid-Skene by default; crowd-kit) to ratings with rater ids and return the
    population of quality classes (module docstring: q_r = (s_r - 1/M) / (s* - 1/M))."""
    if method not in ("one-coin", "dawid-skene", "glad"):
        raise DataError(f"the population is fitted from a model of each rater's chance to be right; got {method!r}")
    return population_from_aggregate(aggregate_ratings(rr, method), rr)


def population_frame(ratings: pd.DataFrame, method: str = "one-coin") -> FittedPopulation:
    """``fit_population`` of a ratings table (item, rater, label; one row per rating): the page's cached call."""
    from nkcore.ratings.raters import rater_ratings_from_frame

    return fit_population(rater_ratings_from_frame(ratings), method)


def population_sentence(pop: FittedPopulation) -> str:
    """The fitted population in words: who is below the others, how often they disagree with them, and their share.

    >>> c = (RaterClass("alike", 8, 0.75, 1.0, 0.8), RaterClass("poor", 3, 0.25, 0.1, 0.4))
    >>> pop = FittedPopulation(c, 0.8, 2, tuple("abcdefghijk"), (0.8,) * 8 + (0.4,) * 3, (1.0,) * 8 + (0.1,) * 3,
    ...                        (10,) * 11, (False,) * 8 + (True,) * 3, (0.2,) * 8 + (0.6,) * 3)
    >>> population_sentence(pop)
    '3 raters of 11 are well below the others: they disagree with the others on 60% of the items they rated (the rest: 20%); by the one-coin model, 10% of their ratings carry information and the others are as good as random. They gave 27% of the ratings.'
    """
    n = len(pop.raters)
    if pop.alike:
        return (
            f"No rater of {n:,} is clearly below the others (one-coin skills within the spread expected of raters "
            f"alike around {pop.reference_skill:.0%}): the raters look alike, as the paper assumes."
        )
    f = np.array(pop.flagged)
    w = np.array(pop.n_ratings, dtype=float)
    d = np.array(pop.disagreement, dtype=float)
    q = np.array(pop.qualities, dtype=float)

    def mean(sel: np.ndarray, x: np.ndarray) -> float:
        ok = sel & np.isfinite(x)
        return float(np.average(x[ok], weights=w[ok])) if ok.any() else math.nan

    k = int(f.sum())
    rest = f"{mean(~f, d):.0%}" if (~f).any() else "n/a"
    return (
        f"{k:,} rater{'s' if k != 1 else ''} of {n:,} {'are' if k != 1 else 'is'} well below the others: "
        f"they disagree with the others on {mean(f, d):.0%} of the items they rated (the rest: {rest}); by the "
        f"one-coin model, {mean(f, q):.0%} of their ratings carry information and the others are as good as random. "
        f"They gave {float(w[f].sum() / w.sum()):.0%} of the ratings."
    )
