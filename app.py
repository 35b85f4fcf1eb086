"""NK Planner: home page. Start with ``make run`` (or ``streamlit run app.py``)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.common import datasets, evaluation, exports, page

page.setup_page(
    "NK Planner",
    "NK Planner helps ML teams decide **how to spend an evaluation budget and how to read the result**. "
    "It answers two questions with honest statistics, and every number comes with a sentence that says what it means.",
)

left, right = st.columns(2)
with left, st.container(border=True):
    st.subheader("1. How many items, how many ratings each?")
    st.markdown(
        "With a fixed budget of **N x K ratings**, should you label many **items (N)** once each, or fewer items with "
        "many **ratings per item (K)**? The Budget page simulates how reproducibly *model A beats model B* holds for "
        "each split, from priors fitted to real annotation data (the method of *Forest vs Tree*, AAAI-26), or by "
        "resampling your own multi-annotator data."
    )
    st.page_link("pages/2_Budget.py", label="Open Budget (N x K)", icon=page.PAGE_ICONS["pages/2_Budget.py"])
with right, st.container(border=True):
    st.subheader("2. Does the bigger setting really score higher?")
    st.markdown(
        "An accuracy curve such as 71%, 78%, 79%, 79% for 1, 3, 5, 7 **samples per request (n)** invites a trend "
        "reading. Compare reads it with paired tests on the same cases; Sampling explains why majority-vote curves "
        "flatten; Cost & latency puts money and tail latency on the same table; Planner says in advance what "
        "difference an evaluation can resolve."
    )
    st.page_link("pages/3_Compare.py", label="Open Compare", icon=page.PAGE_ICONS["pages/3_Compare.py"])

st.subheader("Pages")
cols = st.columns(3)
for i, (path, name, blurb) in enumerate(page.PAGES):
    with cols[i % 3], st.container(border=True):
        st.page_link(path, label=name, icon=page.PAGE_ICONS[path])
        st.caption(blurb)

st.subheader("Data in use")
st.markdown(
    "Compare, Sampling, Cost & latency, the Planner and Judges read **the evaluation in use** (one run: every config, "
    "repeat, score, answer, latency and cost it recorded; for Judges, judge scores with human labels on a subset); "
    "the Budget page reads **the ratings in use** (and predictions). "
    "The built-in examples are chosen until you upload your own on the Data page; the choice is in the sidebar, "
    "remembered as you move between pages, and part of every link."
)
ev = evaluation.choose_evaluation()
rows = [
    {
        "what": "Evaluation (Compare, Sampling, Cost & latency, Planner, Judges)",
        "dataset": ev.name,
        "configs": f"{len(ev.configs)} configs" if len(ev.configs) >= 2 else "one",
        "rows": len(ev.source.frame),
        "id": ev.source.id[:12],
    }
]
for kind in ("ratings", "predictions"):
    ds = datasets.choose_dataset(kind)
    rows.append(
        {"what": datasets.KIND_LABELS[kind], "dataset": ds.name, "configs": "", "rows": len(ds.frame), "id": ds.id[:12]}
    )
exports.table(pd.DataFrame(rows), "datasets_in_use", hide_index=True, width="stretch")
if not ev.builtin:
    page.open_links(page.EVALUATION_PAGES)  # on the evaluation named above
page.finish_page()
