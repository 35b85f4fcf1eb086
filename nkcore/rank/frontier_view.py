"""What the pages draw of a ranking: every config's score with an interval that holds for all configs at once (the
leaderboard chart of Compare's "Which config ships"), and the cost-quality frontier as a table and a sentence (Cost &
latency). The numbers are the ``rank`` command's: the same case bootstrap (same cases, resamples and seed) as
:func:`nkcore.rank.document.rank_doc`, so the page's frontier and could-be-best set are the CLI's.

Simultaneous score intervals (sup-t band): with case means X (n x M), mean_j, se_j = sd_i(X_ij) / sqrt(n) and the case
bootstrap's means m*_bj, the max statistic T*_b = max_j |m*_bj - mean_j| / se_j has the (confidence)-quantile c, and
mean_j +- c se_j covers every config's true mean at once with probability -> confidence (Montiel Olea &
Plagborg-Moller 2019, "Simultaneous confidence bands: theory, implementation, and an application to SVARs", Journal
of Applied Econometrics 34(1):1, the sup-t band; Romano & Wolf 2005 for the max-T construction). A config whose
case means are all equal (se_j = 0) has the point interval and is left out of the max.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore import paired
from nkcore.common.checks import check_confidence
from nkcore.common.formatting import percent
from nkcore.errors import DataError
from nkcore.rank.bootstrap import DEFAULT_RESAMPLES, bootstrap_means, case_means
from nkcore.rank.document import mean_costs
from nkcore.rank.leaderboard import rank_report
from nkcore.rank.sentences import and_list
from nkcore.rank.simultaneous import critical_value

__all__ = [
    "FrontierRow",
    "ScoreBand",
    "frontier_rows",
    "frontier_sentence",
    "money",
    "score_band",
    "ship_headline",
    "simultaneous_scores",
]


@dataclass(frozen=True, slots=True)
class ScoreBand:
    """Each config's ``mean`` (in the order of ``configs``) with its simultaneous interval ``low``..``high`` (cut to
    [0, 1]) at ``confidence``; ``critical`` the sup-t quantile c."""

    configs: tuple[str, ...]
    mean: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    critical: float
    confidence: float


def score_band(
    x: np.ndarray,
    names: Sequence[str],
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> ScoreBand:
    """The sup-t simultaneous intervals of every config's mean (module docstring) from case means ``x``.

    mean_j +- c se_j, c the ``confidence``-quantile of max_j |m*_j - mean_j| / se_j over case-bootstrap resamples.

    >>> x = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0]] * 25)
    >>> b = score_band(x, ["A", "B", "C"], seed=1)
    >>> b.mean, bool(2.2 < b.critical < 2.9), b.low[0] < 0.75 - 1.96 * 0.0433 < b.high[0]
    ((0.75, 0.5, 0.75), True, True)
    """
    x = case_means(x)
    check_confidence(confidence)
    boot = bootstrap_means(x, resamples, seed)
    mean = x.mean(axis=0)
    se = x.std(axis=0, ddof=1) / np.sqrt(x.shape[0])
    live = se > 0
    if live.any():
        stats = (np.abs(boot[:, live] - mean[live]) / se[live]).max(axis=1)
        c = critical_value(stats, confidence)
    else:
        c = 0.0
    low = np.clip(mean - c * se, 0.0, 1.0)
    high = np.clip(mean + c * se, 0.0, 1.0)
    return ScoreBand(
        tuple(str(n) for n in names),
        tuple(float(v) for v in mean),
        tuple(float(v) for v in low),
        tuple(float(v) for v in high),
        float(c),
        float(confidence),
    )


def simultaneous_scores(
    frame: pd.DataFrame, confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> ScoreBand:
    """:func:`score_band` on a paired-results table (any layout ``rank`` reads; the case is the unit), with the
    ``rank`` command's bootstrap (same resamples and seed)."""
    table = paired.parse_cases(frame)
    return score_band(table.means, table.configs, confidence, resamples, seed)


@dataclass(frozen=True, slots=True)
class FrontierRow:
    """One config on the cost-quality chart: its mean ``cost`` per call, ``mean`` score with the simultaneous
    interval ``low``..``high``, whether it is ``on_frontier``, (off it) ``beaten_by``: the cheapest config that
    costs no more and scores resolvably higher (all pairs at once), and whether it ``beats_cheapest``: scores
    resolvably higher than the cheapest config."""

    config: str
    cost: float
    mean: float
    low: float
    high: float
    on_frontier: bool
    beaten_by: str | None
    beats_cheapest: bool = False


def frontier_rows(
    frame: pd.DataFrame,
    cost_column: str = "cost",
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[FrontierRow, ...]:
    """Every config with its cost, its score and whether it is on the cost frontier (:mod:`nkcore.rank.frontier`:
    no config costs no more and scores resolvably higher), cheapest first; the same frontier as ``rank
    --cost-column`` with the same seed.

    >>> df = pd.DataFrame({"case": list(range(60)) * 3, "config": ["A"] * 60 + ["B"] * 60 + ["C"] * 60,
    ...                    "correct": [1] * 60 + [1, 0] * 30 + [0] * 60, "cost": [3.0] * 60 + [1.0] * 60 + [2.0] * 60})
    >>> [(r.config, r.on_frontier, r.beaten_by, r.beats_cheapest) for r in frontier_rows(df, seed=1)]
    [('B', True, None, False), ('C', False, 'B', False), ('A', True, None, True)]
    """
    if cost_column not in frame.columns:
        raise DataError(f"no cost column {cost_column!r}: the run records no cost per call")
    table = paired.parse_cases(frame.drop(columns=[cost_column]))
    costs = mean_costs(frame, cost_column, table)
    rep = rank_report(table, confidence, resamples, seed, None, costs)
    band = score_band(table.means, table.configs, confidence, resamples, seed)
    names = rep.ranking.names
    above = rep.ranking.pairs.low > 0.0  # [k, j]: k resolvably above j
    np.fill_diagonal(above, False)
    cost = np.array([costs[c] for c in names])
    on = {f.config for f in rep.frontier or ()}
    rows = []
    order = np.argsort(cost, kind="stable")
    for j in order:
        beaters = [k for k in order if above[k, j] and cost[k] <= cost[j]]
        rows.append(
            FrontierRow(
                names[j],
                float(cost[j]),
                band.mean[j],
                band.low[j],
                band.high[j],
                names[j] in on,
                names[beaters[0]] if beaters else None,
                bool(above[j, order[0]]),
            )
        )
    return tuple(rows)


def money(value: float) -> str:
    """A cost per call in dollars, two significant digits, never in scientific notation.

    >>> money(0.000866), money(0.0000433), money(0.0062), money(0.001), money(1.5), money(0.0)
    ('$0.00087', '$0.000043', '$0.0062', '$0.001', '$1.50', '$0')
    """
    if not value > 0:
        return "$0"
    if value >= 1:
        return f"${value:,.2f}"
    digits = max(2, 1 - math.floor(math.log10(value)))
    text = f"{value:.{digits}f}".rstrip("0")
    return "$" + (text + "0" if text.endswith(".") else text)


def frontier_sentence(rows: Sequence[FrontierRow], confidence: float = 0.95) -> str:
    """The frontier in one sentence (``rows`` cheapest first): whether paying more than the cheapest config buys a
    gain the cases can show, the configs on the frontier (cheapest first) and the configs beaten at no higher cost.

    >>> r = [FrontierRow("B", 0.001, 0.7, 0.6, 0.8, True, None), FrontierRow("C", 0.002, 0.5, 0.4, 0.6, False, "B"),
    ...      FrontierRow("A", 0.003, 0.9, 0.8, 1.0, True, None, True)]
    >>> frontier_sentence(r)
    'B ($0.001 per call, 70.0%) and A ($0.003 per call, 90.0%) are on the cost frontier: no config costs no more and scores resolvably higher than either (95%, all pairs at once); C is not worth its cost: B costs no more and scores resolvably higher'
    >>> frontier_sentence([r[0], FrontierRow("A", 0.003, 0.6, 0.5, 0.7, False, "B")])
    'Ship B ($0.001 per call, 70.0%): the only config on the cost frontier; the other config is beaten by one that costs no more and scores resolvably higher (95%, all pairs at once)'
    >>> frontier_sentence([r[0], FrontierRow("A", 0.003, 0.75, 0.6, 0.9, True, None)])
    'No config scores resolvably higher than the cheapest, B ($0.001 per call, 70.0%) (95%, all pairs at once): paying more buys no gain these cases can show'
    """
    if not rows:
        raise DataError("the cost frontier is empty: every config needs a cost and a score")
    level = f"{100 * confidence:g}%, all pairs at once"
    on = [r for r in rows if r.on_frontier]
    off = [r for r in rows if not r.on_frontier]
    cheapest = rows[0]
    said = f"{cheapest.config} ({money(cheapest.cost)} per call, {percent(cheapest.mean)})"
    beaten = "costs no more and scores resolvably higher"
    if len(on) == 1:
        others = "the other config is" if len(rows) == 2 else f"each of the {len(rows) - 1} other configs is"
        return f"Ship {on[0].config} ({money(on[0].cost)} per call, {percent(on[0].mean)}): the only config on the cost frontier; {others} beaten by one that {beaten} ({level})"
    if not any(r.beats_cheapest for r in rows):
        return (
            f"No config scores resolvably higher than the cheapest, {said} ({level}): paying more buys no gain these "
            "cases can show"
        )
    listed = and_list([f"{r.config} ({money(r.cost)} per call, {percent(r.mean)})" for r in on], 4)
    if not off:
        who = "both configs are" if len(rows) == 2 else f"all {len(rows)} configs are"
        gain = and_list([r.config for r in rows if r.beats_cheapest], 4)
        return (
            f"{who} on the cost frontier: none is beaten by a config that {beaten} ({level}); {gain} "
            f"{'scores' if gain.count(' and ') == 0 else 'score'} resolvably higher than the cheapest, {cheapest.config}"
        )
    which = "either" if len(on) == 2 else "any of them"
    head = f"{listed} are on the cost frontier: no config {beaten} than {which} ({level})"
    if len(off) == 1:
        return f"{head}; {off[0].config} is not worth its cost: {off[0].beaten_by} {beaten}"
    named = and_list([f"{r.config} (by {r.beaten_by})" for r in off], 4)
    return f"{head}; not worth their cost: {named}, each beaten by a config that {beaten}"


def ship_headline(n_configs: int, could_be_best: Sequence[str], winner: str) -> str:
    """The five-second answer above the verdict: how many configs could be the best, and what that leaves.

    >>> ship_headline(65, ["A"] * 12, "A")
    '12 of the 65 configs could be the best; the other 53 are shown to score lower'
    >>> ship_headline(11, ["Human"], "Human"), ship_headline(4, list("ABCD"), "B")
    ('Human is the best of the 11 configs; every other config is shown to score lower', 'The 4 configs cannot be told apart: any of them could be the best')
    """
    k = len(could_be_best)
    if k <= 1:
        return f"{winner} is the best of the {n_configs} configs; every other config is shown to score lower"
    if k >= n_configs:
        return f"The {n_configs} configs cannot be told apart: any of them could be the best"
    rest = n_configs - k
    return (
        f"{k} of the {n_configs} configs could be the best; the other "
        + (f"{rest} are" if rest > 1 else "one is")
        + " shown to score lower"
    )
