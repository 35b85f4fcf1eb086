"""Cost & latency: what to ship under a latency budget, and what each extra sample per request (n) costs.

The verdict (what to ship: ``nkcore.advice``' headline) and the accuracy-against-cost chart lead, then why, then the
inputs; the full table, the latency chart (drawn only while open), the top-up rule and the stall notes sit in
expanders. The stalls section is a fragment (its two inputs rerun it only) and draws the one-page summary."""

from __future__ import annotations

import math
from collections.abc import Callable

import altair as alt
import streamlit as st

from nkcore import advice, cost, latency, voting
from nkcore.cost import CostTable
from nkcore.voting import sentences as words
from ui import charts
from ui.charts import voting as charts_voting
from ui.common import cache, datasets, exports, page
from ui.common.text import md

page.setup_page(
    "Cost & latency",
    "What should you ship under your latency budget, and what does each extra sample per request (n) cost?",
)
ds = datasets.choose_dataset("samples")
SOURCES = ("latencies in the data", "typed p50 and p95")
# Shown words -> nkcore trigger; the shown words are also what the link carries.
TRIGGERS = {
    "no strict plurality": "no_plurality",
    "no majority": "no_majority",
    "any disagreement": "not_unanimous",
}
WORDS = {code: words for words, code in TRIGGERS.items()}


def _per_extra(value: float, compared_with: str | None, fmt: str) -> str:
    """A marginal cell as text: the number, "no gain" (no extra correct answer at any price) or "—" (first row)."""
    if compared_with is None:
        return "—"
    return fmt.format(value) if math.isfinite(value) else "no gain"


# Samples without recorded latencies open in the typed-percentile mode (the only one that can work), said in one line.
HAS_LATENCY = "latency_s" in ds.frame.columns and bool(ds.frame["latency_s"].notna().any())
if not HAS_LATENCY:
    st.session_state["lat_src"] = SOURCES[1]

with page.user_errors():
    max_n = cache.compute(voting.parse_samples, ds).max_n
    if not HAS_LATENCY:
        st.info(
            f"{md(ds.name)} records no latencies (no latency_s column), so single-call latency comes from the p50 and "
            "p95 typed below.",
            icon=":material/info:",
        )
    # Positions first, filled below: the verdict and its chart lead, the inputs follow them.
    verdict_box = st.container()
    chart_box = st.container()
    why_box = st.container()
    with st.container(border=True):
        st.markdown("**Inputs**")
        c1, c2, c3, c4 = st.columns(
            [1.4, 1.4, 1.1, 1.1]
        )  # room for "400000" and "0.0062" beside the +/- buttons at 1024 px
        price = c1.number_input(
            "price per call ($)", 0.0, 10.0, 0.0062, 0.0001, format="%.4f", key="lat_price", bind="query-params"
        )
        volume = c2.number_input(
            "requests per month", 0, 10**10, 400_000, 10_000, key="lat_volume", bind="query-params"
        )
        budget = c3.slider(
            "latency budget, p95 (s)", 0.5, 30.0, 6.5, 0.1, key="lat_budget", bind="query-params",
            help="The slowest 5% of requests may take longer than this (p95: the 95th percentile of request "
            "latency; a request waits for its slowest sample).",
        )  # fmt: skip
        source = c4.radio(
            "single-call latency from",
            SOURCES,
            key="lat_src",
            bind="query-params",
            disabled=not HAS_LATENCY,
            help="The latency_s column of the data, or a lognormal fitted to the median (p50) and the 95th "
            "percentile (p95) typed below.",
        )
        c5, c6, c7, c8 = st.columns(4)
        typed = source == SOURCES[1]
        p50 = c5.number_input(
            "single-call median, p50 (s)", 0.01, 600.0, 1.9, 0.1, key="lat_p50", bind="query-params",
            disabled=not typed, help=f"p50, the {advice.PERCENTILE_HELP['p50']}, for one model call.",
        )  # fmt: skip
        p95 = c6.number_input(
            "single-call slow tail, p95 (s)", 0.01, 600.0, 4.6, 0.1, key="lat_p95", bind="query-params",
            disabled=not typed, help=f"p95, the {advice.PERCENTILE_HELP['p95']}, for one model call.",
        )  # fmt: skip
        n0 = c7.number_input(
            "adaptive rule: samples drawn first (n0)", 1, max_n, min(3, max_n), 1, key="lat_n0", bind="query-params"
        )
        m = c8.number_input(
            "adaptive rule: samples added when unsure (m)", 1, max_n, min(2, max_n), 1, key="lat_m",
            bind="query-params",
        )  # fmt: skip
        c9, c10 = st.columns([2, 2])
        trigger_words = c9.radio(
            "adaptive rule: add the m samples when the first n0 show…",
            list(TRIGGERS),
            captions=[words.TRIGGER_HELP[t] for t in TRIGGERS.values()],
            horizontal=True,
            key="lat_trigger",
            bind="query-params",
        )
        trigger = TRIGGERS[trigger_words]
        ns = c10.multiselect(
            "flat samples per request (n) to compare",
            list(range(1, max_n + 1)),
            default=[n for n in (1, 3, 5, 7) if n <= max_n],
            key="lat_ns",
            bind="query-params",
            help=f"The data has up to {max_n} samples per case.",
        )
    if not ns:
        verdict_box.warning("Choose at least one flat samples per request (n) in the inputs below.")
        st.stop()
    lat_kind = "lognormal" if typed else "data"
    with_rule = int(n0) + int(m) <= max_n
    if not with_rule:
        st.info(
            f"The adaptive rule {n0}+{m} needs {int(n0) + int(m)} samples per case and the data has {max_n}: the table "
            "shows the flat rows only. Lower n0 or m to add the rule."
        )
    table = cache.compute(
        cost.build_table_from_frame,
        ds,
        ns=tuple(sorted(int(n) for n in ns)),
        n0=int(n0),
        m=int(m),
        adaptive=with_rule,
        trigger=trigger,
        price=float(price),
        requests_per_month=float(volume),
        latency=lat_kind,
        p50_s=float(p50) if typed else None,
        p95_s=float(p95) if typed else None,
    )

    # ------------------------------------------------------------------ the verdict, its chart, and why
    # what to ship: only a gain the paired test on the same cases supports is paid for (nkcore.advice)
    adv = advice.advise(table, float(budget))
    with verdict_box:
        if adv.pick is not None:
            st.success(f"**{md(adv.headline)}**", icon=":material/recommend:")
        else:
            st.warning(f"**{md(adv.headline)}**", icon=":material/warning:")
    frame = table.to_frame()

    def chart() -> alt.LayerChart:  # built only when an export is clicked; the page draws the cached spec
        return charts_voting.cost_accuracy_chart(frame, float(budget))

    with chart_box:
        charts.draw(cache.chart_spec(charts_voting.cost_accuracy_chart, frame, float(budget)))
        st.caption(advice.ACCURACY_CHART_CAPTION)
        exports.download_chart(chart, "accuracy_vs_cost", explains=advice.ACCURACY_CHART_EXPLAINS)
    with why_box:
        if adv.reasons:
            st.markdown(f"**Why:** {md(adv.reasons)}")
        if dearest := advice.dearest_sentence(table, adv):
            st.markdown(md(dearest))

    # ------------------------------------------------------------------ the numbers behind the chart
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

    # ------------------------------------------------------------------ latency, drawn only while open
    latency_box = st.expander(
        "Request latency per configuration: median (p50), p95 and p99 against the budget",
        icon=":material/timer:",
        key="lat_show_latency",
        on_change="rerun",
    )
    with latency_box:
        if latency_box.open:
            charts.draw(cache.chart_spec(charts_voting.latency_bars_chart, frame, float(budget)))
            st.caption(advice.LATENCY_CHART_CAPTION)
            exports.download_chart(
                lambda: charts_voting.latency_bars_chart(frame, float(budget)), "latency_percentiles"
            )

    # ------------------------------------------------------------------ the adaptive rule
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


@st.fragment
def stalls_and_summary(
    table: CostTable, adv: advice.Advice, params: dict[str, object], chart: Callable[[], alt.LayerChart]
) -> None:
    """Rare stalls and queued branches (two inputs of their own), then the one-page summary of the view.

    A fragment: its inputs rerun this section only. The summary is drawn here so that it follows them; every other
    number in it comes from the full run (``table``, ``adv``), which any other input reruns.
    """
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


stalls_and_summary(
    table,
    adv,
    {
        "dataset": ds.name,
        "price per call ($)": price,
        "requests per month": volume,
        "latency budget p95 (s)": budget,
        "latency from": source,
        "adaptive rule": f"{n0}+{m}, top up on {trigger_words}" if with_rule else "none (too few samples per case)",
    },
    chart,
)
page.finish_page()
