"""Compare: does config B really score higher than config A on the same cases? (paired tests, exact bootstrap).

The verdict and the chart of paired differences lead; controls, the tests of each pair, each config's accuracy and
the discordance tables follow, method notes in expanders. The words come from ``nkcore.paired.sentences``; every
number from ``ui.common.cache.compute``. The accuracy section (the only part the interval choice changes) is a
fragment; its chart is drawn only while its expander is open.

A thin page: results with repeats or partial scores (ui.compare.cases), else the paired view (ui.compare.pairs,
with ui.compare.controls and ui.compare.sequential) and the accuracy section (ui.compare.accuracy)."""

from __future__ import annotations

import streamlit as st

from nkcore import evaluation as nkeval
from nkcore import paired
from ui.common import cache, evaluation, page
from ui.common.text import md
from ui.compare import accuracy, cases, pairs, ship

page.setup_page("Compare", "Does config B really score higher than config A when both are run on the same cases?")
ev = evaluation.choose_evaluation()
evaluation.say_what(ev)
ds = evaluation.paired_dataset(ev)
if ds is None:  # raw samples of one config: nothing to pair
    st.info(
        md(
            f"{ev.name} holds the samples of one config, and Compare needs two or more configs run on the same "
            "cases. Sampling shows what more samples per request buy for this config; upload the runs of the "
            "configs to compare (harness files, or a table with case, config and correct) on the Data page."
        ),
        icon=":material/info:",
    )
    st.page_link("pages/4_Sampling.py", label="Open Sampling", icon=page.PAGE_ICONS["pages/4_Sampling.py"])
    page.finish_page()
    st.stop()
with page.user_errors():  # three or more configs: the page opens on which one ships, the pairwise tests follow
    if ship.ship_section(ds, tuple(cache.compute(nkeval.config_names, ds))):
        st.subheader("The pairwise tests", anchor="pairwise-tests")
if cache.compute(paired.has_repeats, ds):  # repeats (epochs) or partial scores: the case is the unit
    with page.user_errors():
        cases.render(ds, cache.compute(paired.parse_cases, ds))
    page.finish_page()
    st.stop()

with page.user_errors():
    view = pairs.draw_pairs(ds)
accuracy.accuracy_section(view)
page.finish_page()
