"""Compare page section "As the cases came in": could the evaluation have stopped early, and when?

One function, :func:`render`, called by the McNemar view (``pages/3_Compare.py``) and the case-level view
(``ui/compare/cases.py``) with the pairs they compared. The section is an expander bound to the link; it computes
only while open. Numbers: :func:`nkcore.sequential.sequential_compare` through ``ui.common.cache.compute``; words:
:mod:`nkcore.sequential.sentences`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from nkcore import paired, sequential
from nkcore.common.formatting import format_p, points
from ui import charts
from ui.charts import sequential as charts_sequential
from ui.common import cache, datasets, exports
from ui.common.text import md

FILE_ORDER = "file order"
_POINTS = 400


Comparison = paired.PairedComparison | paired.CaseComparison
"""A compared pair: McNemar's test on a 2 x 2 table, or the case-level comparison."""


def _fixed(comp: Comparison) -> tuple[float, float, float, float]:
    """(p, diff, low, high) of a pair's fixed-n test: McNemar's exact p, or the case-level sign-flip p."""
    p = comp.p_value if isinstance(comp, paired.CaseComparison) else comp.p_exact
    return float(p), float(comp.diff), float(comp.diff_ci_low), float(comp.diff_ci_high)


def _chart_rows(path: sequential.SequentialPath) -> pd.DataFrame:
    n = path.n
    at = set(np.unique(np.linspace(0, n - 1, min(n, _POINTS)).round().astype(int)).tolist())
    if path.decided_at is not None:
        at.add(path.decided_at - 1)
    idx = np.array(sorted(at))
    return pd.DataFrame(
        {"n": idx + 1, "diff": path.diff[idx], "low": path.low[idx], "high": path.high[idx], "p": path.anytime_p[idx]}
    )


def render(ds: datasets.Dataset, comps: Sequence[Comparison], significance: float) -> None:
    """The section for the compared pairs ``comps`` (PairedComparison or CaseComparison) at level ``significance``."""
    box = st.expander(
        "As the cases came in: could we have stopped early?",
        icon=":material/timeline:",
        key="cmp_show_sequential",
        on_change="rerun",
    )
    with box:
        if box.open:
            _section(ds, comps, significance)


def _section(ds: datasets.Dataset, comps: Sequence[Comparison], significance: float) -> None:
    labels = [f"{c.config_a} → {c.config_b}" for c in comps]
    c1, c2 = st.columns(2)
    label = labels[0]
    if len(labels) > 1:
        label = c1.selectbox("Pair", labels, key="cmp_seq_pair", bind="query-params")
    comp = comps[labels.index(label)] if label in labels else comps[0]
    columns = sequential.order_columns(ds.frame)  # never a config's own results: the test would be invalid
    order_label = c2.selectbox(
        "Order the cases came in",
        [FILE_ORDER, *columns],
        key="cmp_seq_order",
        bind="query-params",
        help="file order: the order each case first appears in the file; or a column holding the time or index at "
        "which each case was run (a case's smallest value)",
    )
    order = None if order_label == FILE_ORDER else order_label
    run = cache.compute(
        sequential.sequential_compare, ds, a=comp.config_a, b=comp.config_b, significance=significance, order=order
    )
    p, diff, low, high = _fixed(comp)
    st.markdown(f"**{md(sequential.room_sentence(run, p, diff))}**")
    rows = _chart_rows(run.path)
    fixed = pd.DataFrame({"n": [run.n_cases], "diff": [diff], "low": [low], "high": [high]})
    charts.draw(cache.chart_spec(charts_sequential.running_chart, rows, run.decided_at, fixed))
    pct = f"{100 * (1 - significance):g}%"
    m1, m2, m3 = st.columns(3)
    m1.metric(
        "decided at case",
        f"{run.decided_at:,}" if run.decided_at is not None else "not yet",
        help="the first case at which the anytime-valid test was sure at this alpha; it never changes its mind after",
    )
    m2.metric(
        "anytime p",
        format_p(run.anytime_p)[2:].lstrip("= "),
        help="valid however often you looked and whenever you stopped (1 / the largest evidence so far)",
    )
    m3.metric(
        f"{pct} band at the end",
        f"{points(run.low)} to {points(run.high)}",
        help="the anytime-valid band on B minus A (percentage points) after the last case",
    )
    st.caption(
        f"The shaded band holds the true difference at every case at once ({pct} for the whole run, not just at the "
        f"end); the red bar at the right is the fixed-n {pct} interval on all {run.n_cases:,} cases, valid only "
        "because nobody stopped early. Method: " + run.method + "."
    )
    with st.expander("Why not stop at the first p < alpha?", icon=":material/help:"):
        st.markdown(md(sequential.SEQUENTIAL_HELP))
    exports.table(
        rows.rename(columns={"n": "cases seen", "diff": "difference", "low": "band from", "high": "band to",
                             "p": "anytime p"}),
        "sequential_running_state",
        hide_index=True,
        width="stretch",
        height=160,
    )  # fmt: skip
