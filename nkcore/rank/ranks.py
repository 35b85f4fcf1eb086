"""Simultaneous rank intervals of M configs, the set that could be the best, and tie groups (tiers).

Rank 1 is the highest mean. From the simultaneous pairwise intervals of :mod:`nkcore.rank.simultaneous` (all
pairs at once at ``confidence``), config j's rank lies in

    rank_low(j)  = 1 + #{k : low(d_kj) > 0}      (the configs resolvably above j)
    rank_high(j) = M - #{k : low(d_jk) > 0}      (M minus the configs resolvably below j)

for every config at once with probability >= the intervals' coverage (Mogstad, Romano, Shaikh & Wilhelm 2024,
Review of Economic Studies 91(1):476, sec. 3.1, simultaneous confidence sets for all ranks; Klein, Wright &
Wieczorek 2020, "A joint confidence region for an overall ranking of populations", JRSS C 69(3):589). The configs
that could be the best are {j : rank_low(j) = 1}: no config is resolvably above j (the confidence set for the
best; cf. Hsu 1984's multiple comparisons with the best, Annals of Statistics 12(3):1136, which reaches the same
kind of set with one-sided bounds). A tie group (tier) is the configs with the same rank_low: the same number of
configs resolvably above them, listed by observed mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nkcore.common.checks import check_confidence
from nkcore.paired.cases import CaseTable
from nkcore.rank.bootstrap import DEFAULT_RESAMPLES, bootstrap_means, case_means
from nkcore.rank.simultaneous import PairwiseIntervals, pairwise_intervals

__all__ = ["ConfigRank", "Ranking", "rank_intervals", "rank_means", "rank_table"]


@dataclass(frozen=True, slots=True)
class ConfigRank:
    """One config: its ``mean`` over the cases (each case's mean over its repeats), the case-bootstrap percentile
    interval ``ci_low``..``ci_high`` of that mean alone (at the ranking's confidence, not simultaneous), its
    observed rank (1 = best; ties share the smallest) and the simultaneous rank interval ``rank_low``..``rank_high``.
    """

    config: str
    mean: float
    ci_low: float
    ci_high: float
    observed_rank: int
    rank_low: int
    rank_high: int


@dataclass(frozen=True, slots=True, eq=False)
class Ranking:
    """M configs ranked on the same cases. ``configs`` by observed mean, best first; ``could_be_best`` the configs
    no config is resolvably above; ``tie_groups`` the tiers (same rank_low), best first; ``pairs`` the simultaneous
    pairwise intervals (in the order of ``names``, the table's config order); ``boot`` the bootstrap means
    (resamples x M, in the order of ``names``), kept for the winner's correction."""

    configs: tuple[ConfigRank, ...]
    could_be_best: tuple[str, ...]
    tie_groups: tuple[tuple[str, ...], ...]
    n_cases: int
    confidence: float
    seed: int
    names: tuple[str, ...]
    means: np.ndarray
    pairs: PairwiseIntervals
    boot: np.ndarray

    @property
    def method(self) -> str:
        """The method in words."""
        kind = "studentized" if self.pairs.studentized else "unstudentized"
        return (
            f"paired max-statistic case bootstrap ({kind}, {self.pairs.resamples:,} resamples): simultaneous "
            "intervals for every pairwise difference (Romano & Wolf 2005; Mogstad, Romano, Shaikh & Wilhelm 2024)"
        )


def rank_intervals(pairs: PairwiseIntervals) -> tuple[np.ndarray, np.ndarray]:
    """(rank_low, rank_high) per config from simultaneous pairwise intervals.

    >>> from nkcore.rank.simultaneous import PairwiseIntervals
    >>> low = np.array([[0.0, 0.1, 0.2], [-0.3, 0.0, -0.1], [-0.4, -0.2, 0.0]])
    >>> p = PairwiseIntervals(low, low, low, low, 1.0, 0.95, True, 1)
    >>> [v.tolist() for v in rank_intervals(p)]
    [[1, 2, 2], [1, 3, 3]]
    """
    above = pairs.low > 0.0
    np.fill_diagonal(above, False)
    m = above.shape[0]
    rank_low = 1 + above.sum(axis=0)  # column j: the k with low(d_kj) > 0
    rank_high = m - above.sum(axis=1)
    return rank_low.astype(int), rank_high.astype(int)


def rank_means(
    x: np.ndarray,
    names: tuple[str, ...] | list[str],
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    studentized: bool = True,
) -> Ranking:
    """Rank the configs whose case means are the columns of ``x`` (n cases x M configs, values in [0, 1]).

    >>> x = np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]] * 10)
    >>> r = rank_means(x, ["A", "B", "C"], seed=1)
    >>> r.could_be_best, [(c.config, c.rank_low, c.rank_high) for c in r.configs]
    (('A', 'B'), [('A', 1, 2), ('B', 1, 2), ('C', 3, 3)])
    """
    x = case_means(x)
    check_confidence(confidence)
    names = tuple(str(c) for c in names)
    boot = bootstrap_means(x, resamples, seed)
    pairs = pairwise_intervals(x, boot, confidence, studentized)
    low, high = rank_intervals(pairs)
    mean = x.mean(axis=0)
    tail = (1.0 - confidence) / 2.0
    ci = np.quantile(boot, [tail, 1.0 - tail], axis=0, method="inverted_cdf")
    observed = 1 + (mean[None, :] > mean[:, None]).sum(axis=1)
    order = sorted(range(len(names)), key=lambda j: (-mean[j], j))
    rows = tuple(
        ConfigRank(
            names[j], float(mean[j]), float(ci[0, j]), float(ci[1, j]), int(observed[j]), int(low[j]), int(high[j])
        )
        for j in order
    )
    tiers: dict[int, list[str]] = {}
    for r in rows:
        tiers.setdefault(r.rank_low, []).append(r.config)
    return Ranking(
        configs=rows,
        could_be_best=tuple(r.config for r in rows if r.rank_low == 1),
        tie_groups=tuple(tuple(v) for _, v in sorted(tiers.items())),
        n_cases=int(x.shape[0]),
        confidence=float(confidence),
        seed=int(seed),
        names=names,
        means=mean,
        pairs=pairs,
        boot=boot,
    )


def rank_table(
    table: CaseTable,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    studentized: bool = True,
) -> Ranking:
    """:func:`rank_means` on a :class:`nkcore.paired.CaseTable` (the case is the unit: each case's mean score over
    its repeats)."""
    return rank_means(table.means, table.configs, confidence, resamples, seed, studentized)
