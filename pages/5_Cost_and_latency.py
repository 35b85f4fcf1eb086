"""Cost & latency: money and tail latency of each extra sample per request (n), flat and adaptive."""

from __future__ import annotations

import streamlit as st

from nkcore import cost, latency, voting
from ui import bootstrap, cache, charts_voting, exports

bootstrap.setup_page(
    "Cost & latency",
    "Each extra sample per request (n) costs money and tail latency. One table puts accuracy, calls, latency "
    "percentiles and cost side by side, with the adaptive top-up rule between the flat rows, and says what to ship "
    "under your latency budget.",
)
ds = bootstrap.choose_dataset("samples")
SOURCES = ("latencies in the data", "typed p50 and p95")
TRIGGER_WORDS = {
    "no_plurality": "no strict plurality (a tie for first)",
    "no_majority": "no majority (the top answer has at most half)",
    "not_unanimous": "not unanimous (any disagreement)",
}

with bootstrap.user_errors():
    with st.container(border=True):
        st.markdown("**Inputs**")
        c1, c2, c3, c4 = st.columns(4)
        price = c1.number_input(
            "price per call ($)", 0.0, 10.0, 0.0062, 0.0001, format="%.4f", key="lat_price", bind="query-params"
        )
        volume = c2.number_input(
            "requests per month", 0, 10**10, 400_000, 10_000, key="lat_volume", bind="query-params"
        )
        budget = c3.slider(
            "latency budget, p95 (s)", 0.5, 30.0, 6.5, 0.1, key="lat_budget", bind="query-params",
            help="the slowest 5% of requests may take longer than this",
        )  # fmt: skip
        source = c4.radio("single-call latency from", SOURCES, key="lat_src", bind="query-params")
        c5, c6, c7, c8 = st.columns(4)
        typed = source == SOURCES[1]
        p50 = c5.number_input(
            "single-call p50 (s)", 0.01, 600.0, 1.9, 0.1, key="lat_p50", bind="query-params", disabled=not typed
        )
        p95 = c6.number_input(
            "single-call p95 (s)", 0.01, 600.0, 4.6, 0.1, key="lat_p95", bind="query-params", disabled=not typed
        )
        n0 = c7.number_input("adaptive: first draw n0", 1, 50, 3, 1, key="lat_n0", bind="query-params")
        m = c8.number_input("adaptive: then add m more", 1, 50, 2, 1, key="lat_m", bind="query-params")
        c9, c10 = st.columns([2, 2])
        trigger = c9.radio(
            "adaptive: top up when the first n0 samples have…",
            list(TRIGGER_WORDS),
            captions=list(TRIGGER_WORDS.values()),
            horizontal=True,
            key="lat_trigger",
            bind="query-params",
        )
        ns = c10.multiselect(
            "flat samples per request (n) to compare",
            list(range(1, 32)),
            default=[1, 3, 5, 7],
            key="lat_ns",
            bind="query-params",
        )
    if not ns:
        st.warning("Choose at least one flat samples per request (n).")
        st.stop()
    lat_kind = "lognormal" if typed else "data"
    table = cache.compute(
        cost.build_table_from_frame,
        ds,
        ns=tuple(sorted(int(n) for n in ns)),
        n0=int(n0),
        m=int(m),
        trigger=trigger,
        price=float(price),
        requests_per_month=float(volume),
        latency=lat_kind,
        p50_s=float(p50) if typed else None,
        p95_s=float(p95) if typed else None,
    )

    recommendation = cost.recommendation_sentence(table, float(budget))
    st.success(recommendation, icon=":material/recommend:")

    st.subheader("One row per configuration")
    frame = table.to_frame()
    view = frame.assign(accuracy=100 * frame["accuracy"])[
        ["label", "accuracy", "calls", "p50", "p95", "p99", "cost_per_1k", "monthly_cost", "calls_per_extra_correct",
         "cost_per_extra_correct", "compared_with"]
    ].replace([float("inf")], float("nan"))  # fmt: skip
    view.columns = [
        "configuration", "accuracy", "calls per request", "p50 (s)", "p95 (s)", "p99 (s)", "$ / 1k requests",
        "$ / month", "calls per extra correct", "$ per extra correct", "vs",
    ]  # fmt: skip
    num = st.column_config.NumberColumn
    st.dataframe(
        view,
        hide_index=True,
        width="stretch",
        column_config={
            "accuracy": num(format="%.1f%%"),
            "calls per request": num(format="%.2f"),
            "p50 (s)": num(format="%.1f"),
            "p95 (s)": num(format="%.1f"),
            "p99 (s)": num(format="%.1f"),
            "$ / 1k requests": num(format="$%.2f"),
            "$ / month": num(format="$%,.0f"),
            "calls per extra correct": num(format="%.0f"),
            "$ per extra correct": num(format="$%.2f"),
        },
    )
    st.caption(
        f"Accuracy: the vote over each case's first samples on the same {table.n_cases} cases (ties: the answer seen "
        f"first wins). Latency: a request waits for its slowest sample, so its q-quantile is the single-call quantile "
        f"at q^(1/n); the adaptive row adds a second fan-out for the {table.topup_share:.0%} of requests that top up. "
        "An empty cell in the marginal columns means no comparison row, or no extra correct answer at any price."
    )
    exports.download_table(frame, "cost_latency_table")
    for r in table.rows:
        st.markdown(f"- {cost.marginal_sentence(r)}")
    pick = cost.recommend(table, float(budget))
    dearest = max((r for r in table.rows if not r.adaptive), key=lambda r: r.calls)
    if pick is not None and dearest.calls > pick.calls:
        diff = cost.monthly_difference(pick.calls, dearest.calls, table.price_per_call, table.requests_per_month)
        st.markdown(
            f"- Running {dearest.label} instead of the recommended {pick.label} would cost **${diff:,.0f} a month** "
            f"more at {table.requests_per_month:,.0f} requests a month, for "
            f"{100 * (dearest.accuracy - pick.accuracy):+.1f} percentage points of accuracy on these cases."
        )

    st.subheader("Accuracy against cost, with latency as colour")
    chart = charts_voting.cost_accuracy_chart(frame, float(budget))
    lat_chart = charts_voting.latency_bars_chart(frame, float(budget))
    st.altair_chart(chart, width="stretch")
    st.caption(
        "Each point is one configuration: further right costs more, higher scores more. Darker points are slower at "
        "p95; hollow points are over the latency budget."
    )
    exports.download_chart(chart, "accuracy_vs_cost")
    st.altair_chart(lat_chart, width="stretch")
    st.caption("Request latency percentiles per configuration; the dashed line is the latency budget.")
    exports.download_chart(lat_chart, "latency_percentiles")

    st.subheader("Which requests top up")
    st.markdown(
        "The adaptive rule spends extra samples only where the first draw is unsure. Which trigger you use matters: "
        "two extra samples cannot overturn three that agree, but they can overturn a 2-1 split."
    )
    for trig in ("no_plurality", "not_unanimous"):
        res = cache.compute(voting.adaptive_from_frame, ds, n0=int(n0), m=int(m), trigger=trig)
        st.markdown(f"- **{TRIGGER_WORDS[trig]}:** {voting.adaptive_sentence(res)}")

    st.subheader("Rare stalls and queued branches")
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
    st.markdown(latency.stall_sentence(stalls[-1]))
    queued = cache.compute(
        latency.queued_fanout_from_frame,
        ds,
        n=flat_ns[-1],
        slots=int(slots),
        latency=lat_kind,
        p50_s=float(p50) if typed else None,
        p95_s=float(p95) if typed else None,
    )
    st.markdown(latency.queue_sentence(queued))

exports.summary_download(
    "Cost and latency",
    {
        "dataset": ds.name,
        "price per call ($)": price,
        "requests per month": volume,
        "latency budget p95 (s)": budget,
        "latency from": source,
        "adaptive rule": f"{n0}+{m}, top up on {TRIGGER_WORDS[trigger]}",
    },
    [
        ("recommendation", pick.label if pick is not None else "none fits", recommendation),
        *[
            (r.label, f"{r.accuracy:.1%}, ${r.cost_per_1k:,.2f} per 1k, p95 {r.p95:.1f} s", cost.marginal_sentence(r))
            for r in table.rows
        ],
        ("stalls", f"{stalls[-1].times_as_often:.1f}x", latency.stall_sentence(stalls[-1])),
        ("queued branches", f"p95 {queued.p95:.1f} s", latency.queue_sentence(queued)),
    ],
    [chart],
)
bootstrap.finish_page()
