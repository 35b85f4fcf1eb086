"""Compare's "Which config ships", what the page opens on when the evaluation has three or more configs: the decision
in one sentence, the leaderboard chart (every config's score with its interval, all configs at once; the configs that
could be the best marked; rank intervals and tie groups), the margin (bound to the link) and the table. The pairwise
tests follow it on the page.

The numbers are the ``rank`` command's (``nkcore.rank.document.rank_doc``, through the cache): the page and
``python -m nkcore rank FILE --margin POINTS --json`` give the same document on the same table (the same verdict,
could-be-best set and winner). The chart's intervals come from the same case bootstrap
(``nkcore.rank.frontier_view.simultaneous_scores``). Paired 0/1 results and results with repeats or partial scores
are read alike: the case is the unit.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from nkcore import evaluation as nkeval
from nkcore.errors import DataError
from nkcore.rank.document import rank_doc
from nkcore.rank.frontier_view import money, ship_headline, simultaneous_scores
from ui import charts
from ui.charts import rank as rank_charts
from ui.common import cache, exports
from ui.common.datasets import Dataset
from ui.common.text import md

__all__ = ["MIN_CONFIGS", "TOP", "cost_column", "leaderboard_rows", "ship_section"]

MIN_CONFIGS = 3
"""Configs from which Compare opens on "Which config ships"."""
TOP = 15
"""Rows the leaderboard draws until "show all" is on: with the verdict above it, they fit a 1024 x 768 window."""


def cost_column(ds: Dataset, configs: tuple[str, ...]) -> str | None:
    """``cost`` when the run recorded a cost for every config (then the frontier and the config to ship follow)."""
    if "cost" not in ds.frame.columns:
        return None
    table = cache.compute(nkeval.config_table, ds)
    priced = table.set_index("config")["price_per_call"].reindex(list(configs))
    return "cost" if bool(priced.notna().all()) else None


def _rank_text(c: dict[str, Any]) -> str:
    low, high = c["rank_low"], c["rank_high"]
    return f"{low}" if low == high else f"{low}–{high}"


def leaderboard_rows(doc: dict[str, Any], band: Any) -> pd.DataFrame:
    """The chart's rows, best observed first: the ``rank`` document's configs with the simultaneous interval
    (``band``, a :class:`nkcore.rank.frontier_view.ScoreBand`), the rank interval as text, the tie group and whether
    the config could be the best."""
    where = {c: j for j, c in enumerate(band.configs)}
    tier_of = {c: t + 1 for t, group in enumerate(doc["tie_groups"]) for c in group}
    best = set(doc["could_be_best"])
    return pd.DataFrame(
        [
            {
                "config": c["config"],
                "mean": c["mean"],
                "low": band.low[where[c["config"]]],
                "high": band.high[where[c["config"]]],
                "rank": _rank_text(c),
                "tier": tier_of[c["config"]],
                "status": rank_charts.BEST if c["config"] in best else rank_charts.NOT_BEST,
            }
            for c in doc["configs"]
        ]
    )


def _table(doc: dict[str, Any], margin: float) -> pd.DataFrame:
    best = set(doc["could_be_best"])
    tests = {t["config"]: t for t in doc.get("margin_tests", [])}
    rows = []
    for c in doc["configs"]:  # few, short columns: the table fits a projector's 1024 px without scrolling
        row = {
            "config": c["config"],
            "could be best": "yes" if c["config"] in best else "no",
            "score % (95%)": f"{100 * c['mean']:.1f} ({100 * c['ci_low']:.1f}-{100 * c['ci_high']:.1f})",
            "rank": f"{c['rank_low']}" if c["rank_low"] == c["rank_high"] else f"{c['rank_low']}-{c['rank_high']}",
        }
        if "cost" in c:
            row["$ per call"] = money(c["cost"])
        if tests:
            t = tests.get(c["config"])
            row[f"within {margin:g} pt"] = "best" if t is None else ("yes" if t["non_inferior"] else "not shown")
        rows.append(row)
    return pd.DataFrame(rows)


def ship_section(ds: Dataset, configs: tuple[str, ...]) -> bool:
    """Draw the section when ``configs`` are three or more (returns whether it was drawn)."""
    if len(configs) < MIN_CONFIGS:
        return False
    verdict_box = st.container()
    chart_box = st.container()
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    margin = c1.number_input(
        "margin: a config may score at most this much below the best and still count as not worse (points)",
        min_value=0.0,
        max_value=20.0,
        value=1.0,
        step=0.5,
        key="cmp_margin",
        bind="query-params",
        help="0 leaves the non-inferiority test out. The test: Tango's score test at the margin for 0/1 results, "
        "else a one-sided paired t on the case differences shifted by the margin (its standard error never 0); Holm "
        "over the configs against the best observed.",
    )
    show_all = len(configs) > TOP and c2.toggle(
        f"show all {len(configs)} configs",
        key="cmp_ship_all",
        bind="query-params",
        help=f"The chart draws the {TOP} best observed configs; on: every config (the table below lists them all).",
    )
    try:
        doc = cache.compute(
            rank_doc,
            ds,
            margin_points=float(margin) if margin > 0 else None,
            cost_column=cost_column(ds, configs),
        )
        band = cache.compute(simultaneous_scores, ds, confidence=float(doc["level"]))
    except DataError as exc:  # the ranking cannot be read from these data: say why; the pairwise tests follow
        verdict_box.info(f"Which config ships cannot be answered on these data: {md(exc)}", icon=":material/info:")
        return True
    level = f"{round(100 * doc['level'])}%"
    with verdict_box:
        headline = ship_headline(len(configs), doc["could_be_best"], doc["winner"]["config"])
        st.markdown(f"#### Which config ships? {md(headline)}.")
        st.markdown(f"**{md(doc['verdict'])}.**")
    rows = leaderboard_rows(doc, band)
    with chart_box:
        charts.draw(cache.chart_spec(rank_charts.leaderboard_chart, rows, level, None if show_all else TOP))

    def chart() -> alt.LayerChart:
        return rank_charts.leaderboard_chart(rows, level)

    table = _table(doc, margin)
    # the columns' widths add up to the main column at a 1024 px window (562 px less the grid's 42)
    widths = {"config": 150 if "$ per call" in table.columns else 190, "could be best": 80, "score % (95%)": 110,
              "rank": 50, "$ per call": 65}  # fmt: skip
    helps = {
        "could be best": "yes: no config is resolvably above it (95%, all pairs at once)",
        "score % (95%)": "the mean score over cases, with the 95% interval of that score alone",
        "rank": "the ranks it could hold, for every config at once (1 = best)",
        "$ per call": "the mean cost per call the run recorded",
    }
    labels = {"could be best": "may be best", "$ per call": "$/call"}
    config = {
        c: st.column_config.TextColumn(
            labels.get(c, c),
            width=widths.get(c, 65),
            pinned=c == "config",
            help=helps.get(c, "shown not worse than the best by more than the margin (95%, Holm)"),
        )
        for c in table.columns
    }
    exports.table(table, "which_config_ships", hide_index=True, width="stretch", column_config=config)
    w = doc["winner"]
    st.caption(
        md(
            f"Score: the mean over cases; in the chart with its {level} interval holding for all configs at once "
            f"(sup-t band), in the table with the interval of that score alone. Rank: the interval of ranks, holding "
            "for every config at once; a config 'could be best' when no other is resolvably above it in the paired "
            "comparison on the same cases (sharper than comparing the bars, which ignore the pairing). A tie group: "
            "the configs with as many configs resolvably above them. "
            + (f"'Within {margin:g} pt': shown not worse than the best by more than the margin. " if margin > 0 else "")
            + f"The best observed score is biased upward by having been picked among {len(configs)}: {w['config']} "
            f"scores {100 * w['naive']:.1f}%, {100 * w['corrected']:.1f}% after the correction ({100 * w['ci_low']:.1f}% "
            f"to {100 * w['ci_high']:.1f}%). Method: {doc['method']}. The same numbers: python -m nkcore rank FILE"
            + (f" --margin {margin:g}" if margin > 0 else "")
            + " --json."
        )
    )
    exports.download_chart(chart, "which_config_ships")
    return True
