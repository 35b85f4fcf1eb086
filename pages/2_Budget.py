"""Budget (N x K): how many items (N) and ratings per item (K) make 'model A beats model B' reproducible.

A thin page: the controls (ui.budget.controls), the cached numbers (ui.budget.compute), the answer and the chart
(ui.budget.views), the chosen cell (ui.budget.cell), rater identity and ordered labels on real data
(ui.budget.crossed), and the notes and summary (ui.budget.notes).
"""

from __future__ import annotations

import streamlit as st

from ui.budget import adaptive as budget_adaptive
from ui.budget import cell as budget_cell
from ui.budget import compute as budget_compute
from ui.budget import controls as budget_controls
from ui.budget import notes as budget_notes
from ui.budget import views as budget_views
from ui.budget.crossed import crossed_section
from ui.common import page

LANDED_ON_CELL = "bud_cell" in st.query_params  # a shared link to a chosen cell (read before any widget rewrites it)
budget_controls.follow_link()  # a heatmap click and an old or CLI metric name go into the link first

page.setup_page(
    "Budget (N x K)",
    "How many items (N) and ratings per item (K) does an evaluation need before 'model A beats model B' "
    "holds up when it is run again? (p < 0.05, the method of *Forest vs Tree*, AAAI-26.)",
)
data_line = st.empty()  # the data the numbers come from: filled once the controls are read
verdict_box = st.container()  # the answer leads the page: filled once the numbers are computed

with page.user_errors():
    choices = budget_controls.read_controls()
    data_line.caption(budget_views.data_line(choices))
    grid = budget_compute.compute_grid(choices)
    answer = budget_compute.answer(choices, grid)
    budget_views.draw_verdict(verdict_box, choices, grid, answer)
    cell, chart = budget_views.draw_charts(choices, grid, answer)
    if cell is not None:
        with st.container(key="nkp_cell"):
            budget_cell.draw_cell(choices, grid, cell)
        page.land_on("nkp_cell", LANDED_ON_CELL)  # the link lands on the cell it shares
        budget_adaptive.draw_adaptive(choices, grid, cell)  # the same budget spread where the raters disagree
    if choices.real:
        # who rated (crossed resampling of items and raters) and ordered labels
        crossed_section(*choices.data, (choices.model_a, choices.model_b))
    budget_notes.draw_method(choices, grid)
    mins = budget_notes.draw_tables(choices, grid)
    budget_notes.draw_summary(choices, grid, answer, cell, mins, chart)
    budget_compute.prefetch_metrics(choices)  # the other metrics, in the background while the page is read

page.finish_page()
