"""Which config ships: the ranking, the winner's corrected score, the configs within a margin of the best, the
cost frontier and the verdict, for M configs on the same cases (the case is the unit).

The pieces: simultaneous rank intervals and the set that could be the best (:mod:`nkcore.rank.ranks`), the winner's
curse (:mod:`nkcore.rank.winner`), non-inferiority of every other config against the best observed one at the
margin (:mod:`nkcore.rank.noninferiority`; Holm 1979 over the M - 1 tests, the family rule), the cost frontier
(:mod:`nkcore.rank.frontier`). With a margin and costs, the config to ship is the cheapest of the best observed one
and the configs shown non-inferior to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from nkcore.common.checks import check_confidence
from nkcore.errors import DataError
from nkcore.paired.cases import CaseTable
from nkcore.paired.compare import holm
from nkcore.rank.bootstrap import DEFAULT_RESAMPLES
from nkcore.rank.frontier import FrontierConfig, cost_frontier
from nkcore.rank.noninferiority import NonInferiority, check_margin, non_inferiority
from nkcore.rank.ranks import Ranking, rank_table
from nkcore.rank.sentences import best_sentence, ship_sentence, within_sentence
from nkcore.rank.winner import WinnerEstimate, winner_estimate

__all__ = ["MarginTest", "RankReport", "margin_tests", "rank_report"]


@dataclass(frozen=True, slots=True)
class MarginTest:
    """One config against the best observed one at the margin: the test and its Holm-adjusted p."""

    test: NonInferiority
    p_holm: float
    non_inferior: bool


@dataclass(frozen=True, slots=True, eq=False)
class RankReport:
    """Everything ``rank`` says. ``margin_tests`` (with a margin) per other config, ``frontier`` (with costs)
    cheapest first, ``ship`` the config to ship (with a margin: the cheapest non-inferior one, or the best observed
    without costs), ``verdict`` one sentence or two joined by '; '."""

    ranking: Ranking
    winner: WinnerEstimate
    margin: float | None
    margin_tests: tuple[MarginTest, ...]
    costs: Mapping[str, float] | None
    frontier: tuple[FrontierConfig, ...] | None
    ship: str | None
    verdict: str


def margin_tests(table: CaseTable, best: str, margin: float, significance: float) -> tuple[MarginTest, ...]:
    """Every other config B against ``best`` (A) at ``margin``, Holm-adjusted over the M - 1 tests.

    >>> import pandas as pd
    >>> from nkcore.paired.cases import parse_cases
    >>> t = parse_cases(pd.DataFrame({"case": range(6), "A": [1, 1, 1, 1, 0, 1], "B": [1, 1, 1, 1, 0, 0]}))
    >>> [(m.test.config_b, round(m.p_holm, 3)) for m in margin_tests(t, "A", 0.5, 0.05)]
    [('B', 0.082)]
    """
    margin = check_margin(margin)
    a = table.index_of(best)
    tests = [
        non_inferiority(table.means[:, a], table.means[:, j], margin, significance, (best, name))
        for j, name in enumerate(table.configs)
        if j != a
    ]
    adjusted = holm([t.p_non_inferior for t in tests])
    return tuple(MarginTest(t, p, bool(p < significance)) for t, p in zip(tests, adjusted, strict=True))


def rank_report(
    table: CaseTable,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    margin: float | None = None,
    costs: Mapping[str, float] | None = None,
) -> RankReport:
    """The ranking, winner, margin tests, frontier and verdict for ``table`` (significance = 1 - confidence).

    >>> import pandas as pd
    >>> from nkcore.paired.cases import parse_cases
    >>> df = pd.DataFrame({"case": range(40), "A": [1, 1, 1, 0] * 10, "B": [1, 0, 1, 1] * 10, "C": [0] * 40})
    >>> r = rank_report(parse_cases(df), seed=1)
    >>> r.ranking.could_be_best, r.winner.config
    (('A', 'B'), 'A')
    """
    check_confidence(confidence)
    ranking = rank_table(table, confidence, resamples, seed)
    cov = np.cov(table.means, rowvar=False) / table.n_cases  # the covariance of the M means (cases paired)
    winner = winner_estimate(ranking.means, ranking.boot, ranking.names, confidence, cov)
    verdict = best_sentence(
        ranking.could_be_best, len(ranking.names), winner.config, winner.naive, winner.corrected, confidence
    )
    frontier = None
    cost_of: dict[str, float] | None = None
    if costs is not None:
        missing = [c for c in ranking.names if c not in costs]
        if missing:
            raise DataError(f"no cost for config(s) {', '.join(repr(c) for c in missing)}: give each a cost per call")
        cost_of = {c: float(costs[c]) for c in ranking.names}
        frontier = cost_frontier(ranking.pairs, ranking.names, ranking.means, np.array(list(cost_of.values())))
    tests: tuple[MarginTest, ...] = ()
    ship = None
    if margin is not None:
        significance = round(1.0 - confidence, 12)  # 1 - 0.95 is 0.050000000000000044
        tests = margin_tests(table, winner.config, margin, significance)
        passed = [m.test.config_b for m in tests if m.non_inferior]
        if cost_of is not None:
            ship = min([winner.config, *passed], key=lambda c: (cost_of[c], -ranking.means[ranking.names.index(c)]))
            verdict = ship_sentence(ship, winner.config, margin, significance, len(passed), len(tests)) + "; " + verdict
        else:
            ship = winner.config
            verdict = verdict + "; " + within_sentence(passed, winner.config, margin, significance, len(tests))
    return RankReport(ranking, winner, margin, tests, cost_of, frontier, ship, verdict)
