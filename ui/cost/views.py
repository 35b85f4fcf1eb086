"""Cost & latency's views: what to ship (the verdict, the accuracy-against-cost chart, why), the numbers behind the
chart, request latency against the budget (drawn only while open), and which requests the adaptive rule tops up."""

from __future__ import annotations

import math
from collections.abc import Callable

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from nkcore import advice, cost, voting
from nkcore.cost import CostTable
from nkcore.voting import sentences as words
from ui import charts
from ui.charts import voting as charts_voting
from ui.common import cache, datasets, exports
from ui.common.text import md
from ui.cost.controls import WORDS, Inputs

__all__ = ["draw_adaptive", "draw_answer", "draw_latency", "draw_numbers"]


def _per_extra(value: float, compared_with: str | None, fmt: str) -> str:
    """A marginal cell as text: the number, "no gain" (no extra correct answer at any price) or "—" (first row)."""
    if compared_with is None:
        return "—"
    return fmt.format(value) if math.isfinite(value) else "no gain"


def draw_answer(
    verdict_box: DeltaGenerator,
    chart_box: DeltaGenerator,
    why_box: DeltaGenerator,
    table: CostTable,
    adv: advice.Advice,
    budget: float,
) -> tuple[pd.DataFrame, Callable[[], alt.LayerChart]]:
    """What to ship, its chart and why, in the boxes placed above the inputs; returns the table as a frame and the
    chart's builder (called only when an export is clicked)."""
    with verdict_box:
        if adv.pick is not None:
            st.success(f"**{md(adv.headline)}**", icon=":material/recommend:")
        else:
            st.warning(f"**{md(adv.headline)}**", icon=":material/warning:")
    frame = table.to_frame()

    def chart() -> alt.LayerChart:  # built only when an export is clicked; the page draws the cached spec
        return charts_voting.cost_accuracy_chart(frame, budget)

    with chart_box:
        charts.draw(cache.chart_spec(charts_voting.cost_accuracy_chart, frame, budget))
        st.caption(advice.ACCURACY_CHART_CAPTION)
        exports.download_chart(chart, "accuracy_vs_cost", explains=advice.ACCURACY_CHART_EXPLAINS)
    with why_box:
        if adv.reasons:
            st.markdown(f"**Why:** {md(adv.reasons)}")
        if dearest := advice.dearest_sentence(table, adv):
            st.markdown(md(dearest))
    return frame, chart


def draw_numbers(table: CostTable, frame: pd.DataFrame, with_rule: bool) -> None:
    """The numbers behind the chart: one row per configuration, with the full-precision download."""
    with st.expander("The numbers: one row per configuration", icon=":material/table:"):
        view = frame.assign(
            label=[f"{r.label} (adaptive)" if r.adaptive else r.label for r in table.rows],
            accuracy=100 * frame["accuracy"],
            accuracy_low=100 * frame["accuracy_low"],
            accuracy_high=100 * frame["accuracy_high"],
            calls_per_extra_correct=[
                _per_extra(r.calls_per_extra_correct, r.compared_with, "{:,.0f}") for r in table.rows
            ],
            cost_per_extra_correct=[
                _per_extra(r.cost_per_extra_correct, r.compared_with, "${:,.2f}") for r in table.rows
            ],
            compared_with=[r.compared_with or "—" for r in table.rows],
        )[
            ["label", "accuracy", "accuracy_low", "accuracy_high", "calls", "p50", "p95", "p99", "cost_per_1k",
             "monthly_cost", "calls_per_extra_correct", "cost_per_extra_correct", "compared_with"]
        ]  # fmt: skip
        view.columns = [
            "configuration", "accuracy", "95% interval from", "to", "calls per request", "p50 (s)", "p95 (s)",
            "p99 (s)", "$ / 1k requests", "$ / month", "calls per extra correct", "$ per extra correct", "vs row",
        ]  # fmt: skip
        formats = {"accuracy": "%.1f%%", "95% interval from": "%.1f%%", "to": "%.1f%%", "calls per request": "%.2f",
                   "p50 (s)": "%.1f", "p95 (s)": "%.1f", "p99 (s)": "%.1f", "$ / 1k requests": "$%.2f",
                   "$ / month": "$%,.0f"}  # fmt: skip
        exports.table(
            view,
            "cost_latency_view",
            download=False,  # the full-precision table is offered below
            hide_index=True,
            width="stretch",
            column_config={
                c: st.column_config.NumberColumn(format=formats[c], help=h)
                if c in formats
                else st.column_config.TextColumn(help=h)
                for c, h in advice.COLUMN_HELP.items()
            },
        )
        exports.download_table(frame, "cost_latency_table")
        for r in table.rows:
            st.markdown(f"- {md(cost.marginal_sentence(r))}")
        st.caption(advice.table_note(table.n_cases, table.topup_share if with_rule else None))


def draw_latency(frame: pd.DataFrame, budget: float) -> None:
    """Request latency per configuration against the budget, drawn only while its expander is open."""
    latency_box = st.expander(
        "Request latency per configuration: median (p50), p95 and p99 against the budget",
        icon=":material/timer:",
        key="lat_show_latency",
        on_change="rerun",
    )
    with latency_box:
        if latency_box.open:
            charts.draw(cache.chart_spec(charts_voting.latency_bars_chart, frame, budget))
            st.caption(advice.LATENCY_CHART_CAPTION)
            exports.download_chart(lambda: charts_voting.latency_bars_chart(frame, budget), "latency_percentiles")


def draw_adaptive(ds: datasets.Dataset, inputs: Inputs, with_rule: bool, max_n: int) -> None:
    """Which requests top up under the adaptive rule, for two triggers."""
    n0, m = inputs.n0, inputs.m
    with st.expander("Which requests top up under the adaptive rule", icon=":material/add_circle:"):
        st.markdown(words.ADAPTIVE_NOTE)
        if with_rule:
            for trig in ("no_plurality", "not_unanimous"):
                res = cache.compute(voting.adaptive_from_frame, ds, n0=int(n0), m=int(m), trigger=trig)
                st.markdown(
                    f"- **Top up on {WORDS[trig]}** ({words.TRIGGER_HELP[trig]}): {md(voting.adaptive_sentence(res))}"
                )
        else:
            st.markdown(f"The rule {n0}+{m} needs more samples per case than the data has ({max_n}).")
