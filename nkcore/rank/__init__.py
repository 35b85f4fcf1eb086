"""Which config ships: M configs on the same cases ranked with simultaneous intervals (issue 54).

The case is the unit (each case's mean score over its repeats, :func:`nkcore.paired.parse_cases`). One concept
per module:

- ``bootstrap``       the case bootstrap of all M means at once (the same resampled cases for every config)
- ``simultaneous``    the paired max-statistic bootstrap: simultaneous intervals for every pairwise difference
- ``ranks``           rank intervals, the configs that could be the best, tie groups (tiers)
- ``shrinkage``       empirical-Bayes shrinkage of the M means (the winner's corrected score)
- ``winner``          the winner's curse: the best observed score, its selection-corrected score and interval
- ``noninferiority``  "B is not worse than A by more than delta": Tango's score test (0/1) or a t with a never-zero se, TOST
- ``frontier``        the cost-quality frontier (resolvably better at no higher cost)
- ``sentences``       the verdicts in words
- ``leaderboard``     all of it for one table: :func:`rank_report`
"""

from nkcore.rank.bootstrap import DEFAULT_RESAMPLES, bootstrap_counts, bootstrap_means
from nkcore.rank.frontier import FrontierConfig, cost_frontier
from nkcore.rank.leaderboard import MarginTest, RankReport, margin_tests, rank_report
from nkcore.rank.noninferiority import NI_TEST, NonInferiority, check_margin, non_inferiority
from nkcore.rank.ranks import ConfigRank, Ranking, rank_intervals, rank_means, rank_table
from nkcore.rank.shrinkage import Shrunk, shrink_means
from nkcore.rank.simultaneous import PairwiseIntervals, critical_value, max_statistic, pairwise_intervals
from nkcore.rank.winner import WinnerEstimate, winner_estimate

__all__ = [
    "DEFAULT_RESAMPLES",
    "NI_TEST",
    "ConfigRank",
    "FrontierConfig",
    "MarginTest",
    "NonInferiority",
    "PairwiseIntervals",
    "RankReport",
    "Ranking",
    "Shrunk",
    "WinnerEstimate",
    "bootstrap_counts",
    "bootstrap_means",
    "check_margin",
    "cost_frontier",
    "critical_value",
    "margin_tests",
    "max_statistic",
    "non_inferiority",
    "pairwise_intervals",
    "rank_intervals",
    "rank_means",
    "rank_report",
    "rank_table",
    "shrink_means",
    "winner_estimate",
]
