"""Cost & latency: what to ship under a latency budget, and what each extra sample per request (n) costs.

The verdict (what to ship: ``nkcore.advice``' headline) and the accuracy-against-cost chart lead, then why, then the
inputs; the full table, the latency chart (drawn only while open), the top-up rule and the stall notes sit in
expanders. The stalls section is a fragment (its two inputs rerun it only) and draws the one-page summary.

A thin page: the inputs (ui.cost.controls), the cached table (ui.cost.compute), the views (ui.cost.views) and the
stalls with the summary (ui.cost.stalls)."""

from __future__ import annotations

import streamlit as st

from nkcore import advice, voting
from nkcore import evaluation as nkeval
from ui.common import cache, evaluation, page
from ui.common.text import md
from ui.cost import compute, controls, frontier, stalls, views

page.setup_page(
    "Cost & latency",
    "What should you ship under your latency budget, and what does each extra sample per request (n) cost?",
)
# the evaluation, the first line, the config picker; one run per case (nothing to vote over) still shows the frontier
ev, config, ds = evaluation.one_config("lat_config", when_stopped=frontier.frontier_section)
RUN_PRICE = None if ev.builtin else cache.compute(nkeval.price_per_call, ds)

# Samples without recorded latencies open in the typed-percentile mode (the only one that can work), said in one line.
HAS_LATENCY = controls.has_latency(ds)
if not HAS_LATENCY:
    st.session_state["lat_src"] = controls.SOURCES[1]

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
    st.caption(
        md(f"Price: {RUN_PRICE.sentence}; the input below opens on it.")
        if RUN_PRICE is not None
        else "Price: the run records no cost per call, so the input below opens on the chapter's example price "
        "($0.0062 per call): type yours."
    )
    inputs = controls.read_inputs(max_n, HAS_LATENCY, RUN_PRICE.dollars if RUN_PRICE is not None else None)
    if not inputs.ns:
        verdict_box.warning("Choose at least one flat samples per request (n) in the inputs below.")
        st.stop()
    with_rule = inputs.n0 + inputs.m <= max_n
    if not with_rule:
        st.info(
            f"The adaptive rule {inputs.n0}+{inputs.m} needs {inputs.n0 + inputs.m} samples per case and the data has "
            f"{max_n}: the table shows the flat rows only. Lower n0 or m to add the rule."
        )
    table = compute.cost_table(ds, inputs, with_rule)

    # ------------------------------------------------------------------ the verdict, its chart, and why
    # what to ship: only a gain the paired test on the same cases supports is paid for (nkcore.advice)
    adv = advice.advise(table, float(inputs.budget))
    frame, chart = views.draw_answer(verdict_box, chart_box, why_box, table, adv, float(inputs.budget))
    frontier.frontier_section(ev)  # two or more configs with a recorded cost: which are worth their cost
    views.draw_numbers(table, frame, with_rule)
    views.draw_latency(frame, float(inputs.budget))
    views.draw_adaptive(ds, inputs, with_rule, max_n)
    evaluation.configs_table(ev, config)

stalls.stalls_and_summary(
    ds,
    inputs,
    table,
    adv,
    {
        "dataset": ds.name,
        "price per call ($)": inputs.price,
        "price from": controls.price_source(inputs.price, RUN_PRICE),
        "requests per month": inputs.volume,
        "latency budget p95 (s)": inputs.budget,
        "latency from": inputs.source,
        "adaptive rule": f"{inputs.n0}+{inputs.m}, top up on {inputs.trigger_words}"
        if with_rule
        else "none (too few samples per case)",
    },
    chart,
)
page.finish_page()
