"""Compare: does config B really score higher than config A on the same cases? (paired tests, exact bootstrap).

The verdict and the chart of paired differences lead; controls, the tests of each pair, each config's accuracy and
the discordance tables follow, method notes in expanders. The words come from ``nkcore.paired.sentences``; every
number from ``ui.common.cache.compute``. The accuracy section (the only part the interval choice changes) is a
fragment; its chart is drawn only while its expander is open.

A thin page: results with repeats or partial scores (ui.compare.cases), else the paired view (ui.compare.pairs,
with ui.compare.controls and ui.compare.sequential) and the accuracy section (ui.compare.accuracy)."""

from __future__ import annotations

import streamlit as st

from nkcore import paired
from ui.common import cache, datasets, page
from ui.compare import accuracy, cases, pairs

page.setup_page("Compare", "Does config B really score higher than config A when both are run on the same cases?")
ds = datasets.choose_dataset("paired")
if cache.compute(paired.has_repeats, ds):  # repeats (epochs) or partial scores: the case is the unit
    with page.user_errors():
        cases.render(ds, cache.compute(paired.parse_cases, ds))
    page.finish_page()
    st.stop()

with page.user_errors():
    view = pairs.draw_pairs(ds)
accuracy.accuracy_section(view)
page.finish_page()
