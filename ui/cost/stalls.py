"""Cost & latency's rare stalls and queued branches (two inputs of their own), then the one-page summary of the
view (a fragment: its inputs rerun this section only)."""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import streamlit as st

from nkcore import advice, cost, latency
from nkcore.cost import CostTable
from ui.common import cache, datasets, exports, page
from ui.common.text import md
from ui.cost.controls import Inputs

__all__ = ["stalls_and_summary"]


@st.fragment
def stalls_and_summary(
    ds: datasets.Dataset,
    inputs: Inputs,
    table: CostTable,
    adv: advice.Advice,
    params: dict[str, object],
    chart: Callable[[], alt.LayerChart],
) -> None:
    """Rare stalls and queued branches (two inputs of their own), then the one-page summary of the view.

    A fragment: its inputs rerun this section only. The summary is drawn here so that it follows them; every other
    number in it comes from the full run (``table``, ``adv``), which any other input reruns.
    """
    lat_kind, typed, p50, p95 = inputs.lat_kind, inputs.typed, inputs.p50, inputs.p95
    with page.user_errors():
        with st.expander("Rare stalls and queued branches", icon=":material/hourglass_top:"):
            s1, s2 = st.columns(2)
            one_in = s1.number_input(
                "a stall hits one call in… (e.g. once an hour at 1 request a second = 3,600)",
                2, 10**9, 3600, 100, key="lat_stall", bind="query-params",
            )  # fmt: skip
            slots = s2.number_input(
                "concurrent slots for one request's samples", 1, 64, 2, 1, key="lat_slots", bind="query-params"
            )
            flat_ns = tuple(int(r.n) for r in table.rows if not r.adaptive)
            stalls = latency.stall_table(1.0 / float(one_in), flat_ns)
            st.markdown(md(latency.stall_sentence(stalls[-1])))
            queued = cache.compute(
                latency.queued_fanout_from_frame,
                ds,
                n=flat_ns[-1],
                slots=int(slots),
                latency=lat_kind,
                p50_s=float(p50) if typed else None,
                p95_s=float(p95) if typed else None,
            )
            st.markdown(md(latency.queue_sentence(queued)))
        pick = table.row(adv.pick) if adv.pick is not None else None
        exports.summary_download(
            "Cost and latency",
            params,
            [
                ("recommendation", pick.label if pick is not None else "none fits", adv.sentence),
                *[
                    (
                        r.label,
                        f"{r.accuracy:.1%}, ${r.cost_per_1k:,.2f} per 1k, p95 {r.p95:.1f} s",
                        cost.marginal_sentence(r),
                    )
                    for r in table.rows
                ],
                ("stalls", f"{stalls[-1].times_as_often:.1f}x", latency.stall_sentence(stalls[-1])),
                ("queued branches", f"p95 {queued.p95:.1f} s", latency.queue_sentence(queued)),
            ],
            [chart],
        )
