"""Planner: before looking at any numbers, how many cases does an evaluation need, and what can it resolve?

The answer to "how many cases do I need" (one sentence, ``nkcore.resolution.sentences``) and the curve that supports
it lead, with the three numbers behind it; the controls follow; how each number is computed sits in an expander.
The label-error floor, with its own controls and the summary download, and "More cases or more repeats?" are fragments.

A thin page: the controls (ui.planner.controls), the cached numbers (ui.planner.compute), the answer
(ui.planner.answer), the label-error floor (ui.planner.label_error), cases or repeats (ui.planner.repeats) and
sequential stopping (ui.planner.sequential), many configs (ui.planner.ranking)."""

from __future__ import annotations

import streamlit as st

from ui.common import evaluation, page
from ui.planner import answer, compute, controls, label_error, ranking, repeats, sequential

page.setup_page(
    "Planner",
    "How many cases does an evaluation need, and what is the smallest difference between two configs it can resolve?",
)

with page.user_errors():
    evaluation.say_what(evaluation.choose_evaluation())
    answer_box = st.container()  # the answer, its chart and its numbers: filled once the controls below are read
    choices = controls.read_controls()
    numbers = compute.plan_numbers(choices)
    answer.draw_answer(answer_box, choices, numbers)

label_error.label_error_section(
    label_error.PlanView(numbers.plan, numbers.answer, choices.target_pts, numbers.chart, choices.e_pct)
)

with page.user_errors():
    rep_ds = repeats.repeats_dataset(choices.ds if choices.from_data else None)
    repeats.repeats_section(choices.significance, choices.power, rep_ds)
    sequential.render(choices.significance, choices.target_pts / 100.0, choices.discordance, choices.power)
ranking.ranking_section(choices.significance, choices.power)
page.finish_page()
