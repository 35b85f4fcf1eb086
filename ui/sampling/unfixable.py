"""Sampling's errors more samples cannot fix: the cases the vote still gets wrong from the n the reader chooses
(a fragment: the choice reruns it only; the table is built only while its expander is open)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore import voting
from ui.common import cache, datasets, exports, page
from ui.common.text import md

__all__ = ["unfixable_section"]


@st.fragment
def unfixable_section(ds: datasets.Dataset, a: voting.VoteAnalysis, tie: str) -> None:
    """The errors more samples cannot fix, from the n the reader chooses."""
    with page.user_errors():
        _unfixable(ds, a, tie)


def _unfixable(ds: datasets.Dataset, a: voting.VoteAnalysis, tie: str) -> None:
    st.subheader("Errors more samples cannot fix")
    from_n = st.number_input(
        "Start from the cases the vote gets wrong at samples per request n =",
        min_value=1,
        max_value=a.max_n,
        value=min(3, a.max_n),
        step=1,
        key="smp_from",
        bind="query-params",
    )
    # the opening n is the analysis's own (computed with the curve); another n is computed when chosen
    u = (
        a.unfixable
        if int(from_n) == a.unfixable.from_n
        else cache.compute(voting.unfixable_from_frame, ds, from_n=int(from_n), tie=tie)
    )
    st.markdown(md(voting.unfixable_sentence(u)))
    if u.cases:  # the table (and its CSV) is built only while the expander is open
        more = st.expander(
            f"The {len(u.cases)} cases still wrong with every sample", key="smp_show_unfixable", on_change="rerun"
        )
        if more.open:
            cases = pd.DataFrame(
                [{"case": c.case, "gold answer": c.gold, "most common answer": c.top_answer,
                  "votes for it": c.top_count, "votes for gold": c.gold_count, "samples": c.n_samples,
                  "all samples agree": c.unanimous, "all answers (count)": c.answers} for c in u.cases]
            )  # fmt: skip
            with more:
                height = min(400, 38 + 35 * len(cases))
                exports.table(cases, "unfixable_cases", hide_index=True, width="stretch", height=height)
