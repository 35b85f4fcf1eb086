"""The cost-quality frontier: the configs no other config beats resolvably on quality at a lower (or equal) mean
cost.

Config j is off the frontier when some config k has mean cost c_k <= c_j and is resolvably above j in the
simultaneous pairwise intervals (low(d_kj) > 0; :mod:`nkcore.rank.simultaneous`). This is the Pareto frontier of
(cost, quality) with "better quality" read as "resolvably better at the ranking's confidence, all pairs at once"
(Pareto dominance as in multi-objective model selection, e.g. Kapoor et al. 2024, "AI Agents That Matter",
arXiv:2407.01502, sec. 2, accuracy against cost), so a config cheaper and only observed-better does not push
another off it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nkcore.errors import DataError
from nkcore.rank.simultaneous import PairwiseIntervals

__all__ = ["FrontierConfig", "cost_frontier"]


@dataclass(frozen=True, slots=True)
class FrontierConfig:
    """One config on the frontier: its mean ``cost`` per call and its ``mean`` score."""

    config: str
    cost: float
    mean: float


def cost_frontier(
    pairs: PairwiseIntervals, names: tuple[str, ...], means: np.ndarray, costs: np.ndarray
) -> tuple[FrontierConfig, ...]:
    """The configs on the frontier, cheapest first (``means`` and ``costs``: each config's mean score and mean cost
    per call, in the order of ``names`` and of ``pairs``).

    >>> low = np.array([[0.0, 0.1, -0.1], [-0.3, 0.0, -0.2], [-0.1, 0.0, 0.0]])
    >>> p = PairwiseIntervals(low, low, low, low, 1.0, 0.95, True, 1)
    >>> [f.config for f in cost_frontier(p, ("A", "B", "C"), np.array([0.8, 0.6, 0.7]), np.array([2.0, 3.0, 1.0]))]
    ['C', 'A']
    """
    costs = np.asarray(costs, dtype=float)
    if costs.shape != (len(names),) or not np.all(np.isfinite(costs)):
        raise DataError("every config needs a mean cost (a number) to draw the cost frontier")
    above = pairs.low > 0.0
    np.fill_diagonal(above, False)
    cheaper = costs[:, None] <= costs[None, :]  # [k, j]: k costs no more than j
    dominated: np.ndarray = np.asarray((above & cheaper).any(axis=0))
    keep = [int(j) for j in np.argsort(costs, kind="stable") if not dominated[j]]
    return tuple(FrontierConfig(names[j], float(costs[j]), float(means[j])) for j in keep)
