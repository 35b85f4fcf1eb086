"""One (N, K) cell and metric, however its numbers were computed: the engine's one result record.

A :class:`Cell` is what the simulation (``grid``), real-data resampling (``resample``), crossed resampling
(``crossed``), the exact engine (``exact.engine``, ``exact.real``) and the rating-allocation policies
(``adaptive``, ``adaptive_resample``) return. Its core is the paper's numbers (spec "p-value, effect size,
interval"); the optional parts say more where they apply: :class:`RealPart` (real data: the full data's gap and
direction, the paired test), :class:`PolicyPart` (how a policy spread the ratings), :class:`CrossedPart` (raters
resampled too, beside items alone). Every part's fields read as the cell's own attributes (``cell.n_qualifying``),
and an absent part's fields are absent (``getattr(cell, "n_qualifying", None)`` is None on a simulated cell).
``summary()`` gives the numbers without the samples, with the keys of the CLI's JSON (a contract).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from nkcore.nk.pvalue import SIGNIFICANCE, Stats

_NAN = float("nan")


@dataclass(frozen=True, slots=True)
class RealPart:
    """Real data: full_gap, the gap on the full data; direction, its sign (+1 A better, -1 B better, 0 tie);
    significant_share, the share of rounds in which the paired ``test`` at the level finds that direction
    significant (NaN where no test is run); n_qualifying, the items with at least K ratings (drawn from; None for
    crossed cells, whose pool changes with the raters drawn)."""

    full_gap: float
    direction: int
    significant_share: float = _NAN
    n_qualifying: int | None = None
    test: str = ""


@dataclass(frozen=True, slots=True)
class PolicyPart:
    """How a policy spread the budget's ratings: policy ("fixed", "margin", "sequential"), first_stage_k (K0),
    mean_ratings_per_item / max_ratings_per_item (realised over the rounds: the mean over items and rounds, the
    largest any item got), raters ("identical" or the rater population's label)."""

    policy: str
    first_stage_k: int
    mean_ratings_per_item: float
    max_ratings_per_item: int
    raters: str = "identical"


@dataclass(frozen=True, slots=True)
class CrossedPart:
    """Raters resampled as well as items (``crossed``): ci_low / ci_high, the crossed gap's 2.5% and 97.5%
    quantiles; item_*: the same numbers when only items are drawn; ci_width_ratio = ci_width / item_ci_width;
    short_share: mean share of items left with fewer than K ratings after the rater draw; item_short_share: that
    share in the data; rounds_used: crossed rounds in which some item had K ratings; item_alt: the item-only gaps."""

    ci_low: float
    ci_high: float
    item_p: float
    item_delta: float
    item_ci_width: float
    item_ci_low: float
    item_ci_high: float
    item_reproducibility: float
    ci_width_ratio: float
    short_share: float
    item_short_share: float
    rounds_used: int
    item_alt: np.ndarray = field(repr=False, compare=False)


BASE_KEYS: tuple[str, ...] = (
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
    "reproducibility_error",
)
"""``summary()`` keys of a cell without a real-data part (the CLI's JSON)."""
REAL_KEYS: tuple[str, ...] = (
    "budget",
    "k",
    "n",
    "metric",
    "p",
    "delta",
    "ci_width",
    "reproducibility",
    "significant_share",
    "full_gap",
    "direction",
    "mean_gap",
    "ties",
    "rounds",
    "n_qualifying",
    "test",
    "method",
    "p_error",
    "delta_error",
    "ci_width_error",
    "reproducibility_error",
)
"""... of a real-data cell."""
POLICY_KEYS: tuple[str, ...] = ("policy", "first_stage_k", "mean_ratings_per_item", "max_ratings_per_item")
"""... added after those of a policy's cell."""
CROSSED_KEYS: tuple[str, ...] = (
    "budget",
    "k",
    "n",
    "metric",
    "p",
    "delta",
    "ci_width",
    "ci_low",
    "ci_high",
    "reproducibility",
    "mean_gap",
    "item_p",
    "item_delta",
    "item_ci_width",
    "item_ci_low",
    "item_ci_high",
    "item_reproducibility",
    "ci_width_ratio",
    "short_share",
    "item_short_share",
    "full_gap",
    "direction",
    "rounds",
    "rounds_used",
    "reproducibility_error",
)
"""... of a crossed cell."""


def _part_field(part: str, name: str, doc: str) -> Any:
    """A read-only property: field ``name`` of the cell's part ``part``; AttributeError when that part is absent
    (so ``getattr(cell, name, default)`` and ``hasattr`` read as they did on the former record types)."""

    def get(self: Any) -> Any:
        got = getattr(self, part)
        if got is None:
            raise AttributeError(f"this cell has no {part} part: no {name!r}")
        return getattr(got, name)

    return property(get, doc=doc)


@dataclass(frozen=True, slots=True)
class Cell:
    """The paper's numbers for one cell and one metric, with the gap samples for the detail view.

    budget, k, n: the cell (N = floor(budget / K) items, K ratings per item); p: paper's p-value; delta: |mean
    alternative gap|; ci_width: q97.5 - q2.5 of the alternative gaps; reproducibility: share of alternative
    datasets where A comes out ahead (real data: with the full data's direction); ties: share of exact ties;
    mean_gap: signed mean alternative gap; rounds: datasets per side; alt / null: the gap samples.
    method: how the numbers were computed: "simulate" (``rounds`` simulated or resampled datasets per side), or the
    exact engine (``nkcore.nk.exact``): "lattice" (exact convolution), "edgeworth" or "normal" (approximations for
    large N); the engine's cells have ``rounds`` = 0 and ``alt`` / ``null`` hold 1000 quantile points of the
    gap's law (at (i + 0.5) / 1000), the way the simulation holds its samples.
    p_error, delta_error, ci_width_error: the engine's accuracy of p, Delta and CI-width (one standard error:
    the per-item law's sampling error where it was estimated, plus the approximation's error; 0 where exact);
    NaN for the simulation (its error is its Monte Carlo error, which depends on ``rounds``).
    real, allocation, crossed: the optional parts (module doc).
    reproducibility_error: one standard error of ``reproducibility`` (issue 53): for simulated or resampled cells
    its Monte Carlo error over the ``rounds`` independent datasets (Agresti-Coull's, never 0: ``_share_error``);
    for the exact engine the per-item law's sampling error by the delta method (0 where the law is exact;
    ``exact.cells.reproducibility_error``); NaN where unknown.
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
    alt: np.ndarray = field(repr=False, compare=False)
    null: np.ndarray = field(repr=False, compare=False)
    method: str = "simulate"
    p_error: float = _NAN
    delta_error: float = _NAN
    ci_width_error: float = _NAN
    real: RealPart | None = None
    allocation: PolicyPart | None = None
    crossed: CrossedPart | None = None
    reproducibility_error: float = _NAN

    @property
    def significant(self) -> bool:
        """p < 0.05: "reasonably repeatable" in the paper's words."""
        return self.p < SIGNIFICANCE

    # every part's fields read as the cell's own; an absent part's fields are absent (AttributeError)
    full_gap = _part_field("real", "full_gap", "The gap on the full data (real data).")
    direction = _part_field("real", "direction", "The full data's direction: +1 A better, -1 B better, 0 tie.")
    significant_share = _part_field("real", "significant_share", "Share of rounds the paired test confirms.")
    n_qualifying = _part_field("real", "n_qualifying", "Items with at least K ratings (the pool rounds draw from).")
    test = _part_field("real", "test", "The paired test of ``significant_share``, in words.")
    policy = _part_field("allocation", "policy", 'The policy that spread the ratings ("fixed", "margin", ...).')
    first_stage_k = _part_field("allocation", "first_stage_k", "K0, the ratings every item got first.")
    mean_ratings_per_item = _part_field("allocation", "mean_ratings_per_item", "Mean ratings per item.")
    max_ratings_per_item = _part_field("allocation", "max_ratings_per_item", "The most ratings any item got.")
    raters = _part_field("allocation", "raters", '"identical" or the rater population\'s label.')
    ci_low = _part_field("crossed", "ci_low", "The crossed gap's 2.5% quantile.")
    ci_high = _part_field("crossed", "ci_high", "The crossed gap's 97.5% quantile.")
    item_p = _part_field("crossed", "item_p", "p when only items are drawn.")
    item_delta = _part_field("crossed", "item_delta", "Delta when only items are drawn.")
    item_ci_width = _part_field("crossed", "item_ci_width", "CI-width when only items are drawn.")
    item_ci_low = _part_field("crossed", "item_ci_low", "2.5% quantile when only items are drawn.")
    item_ci_high = _part_field("crossed", "item_ci_high", "97.5% quantile when only items are drawn.")
    item_reproducibility = _part_field("crossed", "item_reproducibility", "Reproducibility, items drawn only.")
    ci_width_ratio = _part_field("crossed", "ci_width_ratio", "ci_width / item_ci_width.")
    short_share = _part_field("crossed", "short_share", "Share of items short of K ratings after the rater draw.")
    item_short_share = _part_field("crossed", "item_short_share", "Share of items short of K ratings in the data.")
    rounds_used = _part_field("crossed", "rounds_used", "Crossed rounds in which some item had K ratings.")
    item_alt = _part_field("crossed", "item_alt", "The item-only resampling's alternative gaps.")

    def summary_keys(self) -> tuple[str, ...]:
        """The keys of :meth:`summary`, in order: by the parts present (the CLI's JSON keys)."""
        if self.crossed is not None:
            return CROSSED_KEYS
        keys = BASE_KEYS if self.real is None else REAL_KEYS
        return keys + POLICY_KEYS if self.allocation is not None else keys

    def summary(self) -> dict[str, object]:
        """The cell's numbers without the samples (what the CLI prints as JSON, and CSV downloads)."""
        return {f: getattr(self, f) for f in self.summary_keys()}


def make_cell(
    budget: int,
    k: int,
    n: int,
    metric: str,
    st: Stats,
    rounds: int,
    alt: np.ndarray | None = None,
    null: np.ndarray | None = None,
    *,
    reproducibility: float | None = None,
    real: RealPart | None = None,
    allocation: PolicyPart | None = None,
    crossed: CrossedPart | None = None,
    reproducibility_error: float | None = None,
) -> Cell:
    """A :class:`Cell` from its statistics (every number kept as it is): the one place that builds cells.

    ``alt`` / ``null``: the gap samples (default: the statistics' own quantile points, the exact engine's);
    ``reproducibility``: overrides the statistics' (the exact engine on real data counts the full data's direction).
    ``reproducibility_error`` (default): the statistics' own where they state one (the exact engine's), else the
    binomial Monte Carlo error of a share over ``rounds`` independent datasets (Agresti-Coull's: with
    r~ = (r rounds + 2) / (rounds + 4), sqrt(r~ (1 - r~) / (rounds + 4))), NaN without rounds.

    >>> from nkcore.nk.pvalue import cell_stats
    >>> c = make_cell(100, 4, 25, "acc", cell_stats([0.1, 0.2], [0.0, -0.1]), 2, np.zeros(2), np.zeros(2))
    >>> c.p, c.method, getattr(c, "n_qualifying", None), sorted(c.summary())[:3]
    (0.0, 'simulate', None, ['budget', 'ci_width', 'ci_width_error'])
    >>> c.reproducibility, round(c.reproducibility_error, 4)  # both rounds ahead: 1 of 2, yet not exact
    (1.0, 0.1925)
    """
    a = st.alt if alt is None else alt
    b = st.null if null is None else null
    assert a is not None and b is not None, "a cell needs its gap samples or quantile points"
    rep = st.reproducibility if reproducibility is None else reproducibility
    if reproducibility_error is None:
        reproducibility_error = _share_error(rep, rounds, getattr(st, "reproducibility_error", None))
    return Cell(
        budget,
        k,
        n,
        metric,
        st.p,
        st.delta,
        st.ci_width,
        rep,
        st.ties,
        st.mean_gap,
        rounds,
        a,
        b,
        st.method,
        st.p_error,
        st.delta_error,
        st.ci_width_error,
        real,
        allocation,
        crossed,
        float(reproducibility_error),
    )


def _share_error(share: float, rounds: int, stated: float | None) -> float:
    """The stated error when there is one, else the Agresti-Coull error of a share over ``rounds`` independent
    datasets: with r~ = (share rounds + 2) / (rounds + 4), sqrt(r~ (1 - r~) / (rounds + 4)) (Agresti & Coull
    1998), never 0: every round agreeing is not "exact" (the plain sqrt(r (1 - r) / rounds) is 0 there, and
    r +- 1.96 of it covered a true 0.9993 in 30% of runs at 500 rounds, docs/coverage.md). NaN without rounds or
    share."""
    if stated is not None:
        return float(stated)
    if rounds <= 0 or not np.isfinite(share):
        return _NAN
    tilde = (share * rounds + 2.0) / (rounds + 4.0)
    return float(np.sqrt(tilde * (1.0 - tilde) / (rounds + 4.0)))


def with_policy(cell: Cell, part: PolicyPart) -> Cell:
    """The cell with a policy part (every number kept bit for bit): e.g. the engine's cell as the ``fixed``
    policy's."""
    return replace(cell, allocation=part)


def fixed_policy(cell: Cell) -> Cell:
    """The engine's cell as the ``fixed`` policy's: K ratings per item, every number kept."""
    return with_policy(cell, PolicyPart("fixed", cell.k, float(cell.k), int(cell.k)))


__all__ = [
    "BASE_KEYS",
    "CROSSED_KEYS",
    "POLICY_KEYS",
    "REAL_KEYS",
    "Cell",
    "CrossedPart",
    "PolicyPart",
    "RealPart",
    "fixed_policy",
    "make_cell",
    "with_policy",
]
