"""Judges: does an LLM judge's score hold up against human labels, and how many human labels to buy? (issue 55)

The corrected verdict leads (``nkcore.judge.sentences``), then each config's mean three ways, the judge's bias per
config, the corrected differences between configs, the plan (labels for a target half-width, prices, the cheapest
split), several judges side by side, notes and downloads. A thin page: ui.judges.source (the table and its columns),
ui.judges.compute (the cached report) and one module per section."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from nkcore.judge.document import METHOD
from ui.common import page
from ui.common.text import md
from ui.judges import compute, configs, pairs, panel, plan, source, verdict

page.setup_page(
    "Judges", "Does the judge's score hold up against the humans, and how many human labels should you buy?"
)

with page.user_errors():
    src = source.choose_source()
    verdict_box = st.container()
    choice = source.read_columns(src)
    body = st.container()
    plan_box = st.container()
    with plan_box:
        controls = plan.read_plan()
    choice = replace(choice, price_human=controls.price_human, price_judge=controls.price_judge)
    report = compute.report(src.ds, choice)
    if controls.width != 1.0 and report.plan is not None:
        report = compute.report(src.ds, replace(choice, half_width=controls.width * report.plan.target_half_width))
    with verdict_box:
        verdict.draw_verdict(report)
    with body:
        configs.draw_configs(report)
        configs.draw_bias(report)
        pairs.draw_pairs(report)
    with plan_box:
        plan.draw_plan(report)
    panel.draw_panel(report)
    with st.expander("Notes and method", icon=":material/menu_book:"):
        for note in report.notes:
            st.markdown(f"- {md(note)}")
        st.caption(md(METHOD))
    configs.draw_downloads(report)
page.finish_page()
