"""Cost & latency across configs: the cost-quality frontier, when the evaluation in use has two or more configs with a
cost per call recorded. The configs that no other config beats on quality with confidence (all pairs at once) at no
higher mean cost, in one sentence, a chart (cost against score with intervals, the frontier marked) and a table.

The numbers are the ``rank`` command's (``python -m nkcore rank FILE --cost-column cost --json`` gives the same
frontier): :func:`nkcore.rank.frontier_view.frontier_rows`, through the cache.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from nkcore.errors import DataError
from nkcore.rank.frontier_view import frontier_rows, frontier_sentence, money
from ui import charts
from ui.charts import rank as rank_charts
from ui.common import cache, exports
from ui.common.evaluation import Evaluation
from ui.common.text import md
from ui.compare.ship import cost_column

__all__ = ["frontier_section"]


def frontier_section(ev: Evaluation) -> bool:
    """The section (returns whether it was drawn): nothing for one config or when a config has no recorded cost."""
    if len(ev.configs) < 2 or ev.source.kind != "paired":
        return False
    column = cost_column(ev.source, ev.configs)
    if column is None:
        return False
    st.subheader(f"Across the {len(ev.configs)} configs: which are worth their cost?", anchor="cost-frontier")
    try:
        rows = cache.compute(frontier_rows, ev.source, cost_column=column)
    except DataError as exc:
        st.info(f"The cost frontier cannot be drawn on these data: {md(exc)}", icon=":material/info:")
        return True
    st.markdown(f"**{md(frontier_sentence(rows))}.**")
    frame = pd.DataFrame(
        [
            {
                "config": r.config,
                "cost": r.cost,
                "mean": r.mean,
                "low": r.low,
                "high": r.high,
                "status": rank_charts.FRONTIER if r.on_frontier else rank_charts.NOT_FRONTIER,
                "beaten_by": r.beaten_by or "",
            }
            for r in rows
        ]
    )
    charts.draw(cache.chart_spec(rank_charts.frontier_chart, frame, "95%"))

    def chart() -> alt.LayerChart:
        return rank_charts.frontier_chart(frame, "95%")

    shown = pd.DataFrame(
        {
            "config": [r.config for r in rows],
            "$ per call": [money(r.cost) for r in rows],
            "score % (95%)": [f"{100 * r.mean:.1f} ({100 * r.low:.1f}-{100 * r.high:.1f})" for r in rows],
            "on the frontier": ["yes" if r.on_frontier else "no" for r in rows],
            "beaten by": [r.beaten_by or "" for r in rows],
        }
    )
    if not any(r.beaten_by for r in rows):  # nobody is beaten: the column would be empty
        shown = shown.drop(columns="beaten by")
    exports.table(shown, "cost_frontier", hide_index=True, width="stretch")
    st.caption(
        "Cost: the mean cost per call the run recorded for each config. Score: the mean over cases (each case's "
        "mean over its repeats) with its 95% interval, all configs at once. Beaten by: the cheapest config that costs no more and scores resolvably higher. A config is off the frontier when "
        "another config costs no more and scores resolvably higher in the paired comparison on the same cases "
        "(all pairs at once); a config that is only observed to score higher does not push another off. The same "
        "frontier: python -m nkcore rank FILE --cost-column cost --json."
    )
    exports.download_chart(chart, "cost_frontier")
    return True
