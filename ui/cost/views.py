"""Cost & latency's views: what to ship (the verdict, the accuracy-against-cost chart, why), the numbers behind the
chart, request latency against the budget (drawn only while open), and which requests the adaptive rule tops up."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from nkcore import advice, cost
from nkcore.cost import CostTable
from nkcore.voting import adaptive as voting_adaptive
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


def _decimals(span: float, parts: int, most: int = 4) -> int:
    """Decimals that tell ``parts`` equal steps of ``span`` apart: ceil(-log10(span / parts)), in [0, most]."""
    if not span > 0 or not math.isfinite(span):
        return 0
    return int(min(most, max(0, math.ceil(-math.log10(span / parts)))))


def readable(spec: dict[str, Any], frame: pd.DataFrame) -> dict[str, Any]:
    """The accuracy-against-cost chart's spec (:func:`ui.charts.voting.cost_accuracy_chart`) made readable for its
    numbers: the cost axis with enough decimals for its range (no "$0 $0 $1 $1" under $10), the accuracy axis cut
    to [0, 1] (the intervals plus 2 points, never past 100%), and the latency legend with as many decimals as tell
    its ends apart (not six "1.1"), at most three values. A copy; the builder is ``ui.charts``' (not this page's).

    >>> f = pd.DataFrame({"cost_per_1k": [0.1, 0.7], "accuracy_low": [0.9, 0.95], "accuracy_high": [0.99, 1.0],
    ...                   "p95": [1.08, 1.14]})
    >>> s = readable({"layer": [{"encoding": {"x": {"field": "cost_per_1k", "axis": {"format": "$,.0f"}},
    ...   "y": {"field": "accuracy", "scale": {"zero": False, "padding": 30}},
    ...   "color": {"field": "p95", "legend": {"format": ".1f"}}}}]}, f)
    >>> e = s["layer"][0]["encoding"]; e["x"]["axis"]["format"], e["y"]["scale"]["domain"], e["color"]["legend"]
    ('$,.2f', [0.88, 1.0], {'format': '.2f', 'values': [1.08, 1.11, 1.14]})
    """
    out = copy.deepcopy(spec)
    cost_max = float(np.nanmax(frame["cost_per_1k"])) if len(frame) else 0.0
    money = f"$,.{_decimals(cost_max, 10, 3)}f"
    low_col = frame["accuracy_low"] if "accuracy_low" in frame else frame["accuracy"]
    high_col = frame["accuracy_high"] if "accuracy_high" in frame else frame["accuracy"]
    lo = max(0.0, math.floor(100 * (float(np.nanmin(low_col)) - 0.02)) / 100)
    hi = min(1.0, math.ceil(100 * (float(np.nanmax(high_col)) + 0.02)) / 100)
    p95 = frame["p95"].to_numpy(dtype=float) if "p95" in frame else np.zeros(0)
    p95 = p95[np.isfinite(p95)]
    for layer in out.get("layer", []):
        enc = layer.get("encoding", {})
        x, y, color = enc.get("x", {}), enc.get("y", {}), enc.get("color", {})
        if x.get("field") == "cost_per_1k":
            x.setdefault("axis", {})["format"] = money
        if y.get("field") in ("accuracy", "accuracy_low") and lo < hi:
            scale = {k: v for k, v in y.get("scale", {}).items() if k != "padding"}
            y["scale"] = {**scale, "zero": False, "nice": False, "domain": [lo, hi]}
        if color.get("field") == "p95" and isinstance(color.get("legend"), dict) and p95.size:
            digits = _decimals(float(p95.max() - p95.min()), 4, 3) or 1
            values = sorted({round(float(v), digits) for v in np.linspace(p95.min(), p95.max(), 3)})
            color["legend"] = {**color["legend"], "format": f".{digits}f", "values": values}
    return out


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
        built = charts_voting.cost_accuracy_chart(frame, budget)
        return alt.LayerChart.from_dict(readable(built.to_dict(), frame))

    with chart_box:
        charts.draw(readable(cache.chart_spec(charts_voting.cost_accuracy_chart, frame, budget), frame))
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
        mc = with_rule and table.adaptive_method == "monte-carlo"
        st.caption(
            advice.table_note(
                table.n_cases,
                table.topup_share if with_rule else None,
                table.adaptive_std_error if mc else 0.0,
                voting_adaptive.MC_ORDERS if mc else 0,
            )
        )


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
    """Which requests top up under the adaptive rule, for two triggers: in expectation over random orders of each
    case's samples, as the table's adaptive row (:func:`nkcore.cost.adaptive_from_frame`)."""
    n0, m = inputs.n0, inputs.m
    with st.expander("Which requests top up under the adaptive rule", icon=":material/add_circle:"):
        st.markdown(words.ADAPTIVE_NOTE)
        if with_rule:
            for trig in ("no_plurality", "not_unanimous"):
                res, flat_n0, flat_full = cache.compute(
                    cost.adaptive_from_frame, ds, n0=int(n0), m=int(m), trigger=trig
                )
                said = advice.adaptive_expected_sentence(res, flat_n0, flat_full)
                st.markdown(f"- **Top up on {WORDS[trig]}** ({words.TRIGGER_HELP[trig]}): {md(said)}")
        else:
            st.markdown(f"The rule {n0}+{m} needs more samples per case than the data has ({max_n}).")
