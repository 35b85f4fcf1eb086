"""Several judges as raters: each against the humans, each pair's agreement and error correlation, the effective
number of independent judges, and Dawid-Skene over the judges (``nkcore.judge.raters``)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from nkcore.common.formatting import percent
from nkcore.judge import JudgeReport
from ui.common import exports
from ui.common.text import md

__all__ = ["draw_panel", "judge_rows", "pair_rows"]


def judge_rows(report: JudgeReport) -> pd.DataFrame:
    """One row per judge against the humans."""
    assert report.panel is not None
    return pd.DataFrame(
        [
            {
                "judge": s.judge,
                "correlation with humans": s.correlation,
                "bias (judge - human)": s.bias,
                "mean absolute error": s.mae,
                "exact agreement": s.agreement,
                "labels it is worth": s.effective_human_labels,
                "human labels": s.n_human,
            }
            for s in report.panel.judges
        ]
    )


def pair_rows(report: JudgeReport) -> pd.DataFrame:
    """One row per pair of judges."""
    assert report.panel is not None
    return pd.DataFrame(
        [
            {
                "judges": f"{p.judge_a} & {p.judge_b}",
                "score correlation": p.correlation,
                "exact agreement": p.agreement,
                "error correlation": p.error_correlation,
            }
            for p in report.panel.pairs
        ]
    )


def draw_panel(report: JudgeReport) -> None:
    """The judges side by side, or one sentence when there is one judge column."""
    st.subheader("Several judges: is a second one worth buying?", anchor="judges")
    panel = report.panel
    if panel is None:
        st.caption(
            "One judge column is chosen. With two or more (under Columns, above) this section compares them with the "
            "humans and with each other."
        )
        return
    c1, c2, c3 = st.columns(3)
    c1.metric(
        "Independent judges",
        "n/a" if math.isnan(panel.effective_judges) else f"{panel.effective_judges:.2f}",
        delta=f"of {len(panel.judges)} judges",
        delta_color="off",
        help="K / (1 + (K - 1) r), r the mean correlation of the judges' errors (judge minus human): judges that err "
        "together count as one.",
    )
    best = next(s for s in panel.judges if s.judge == panel.best_judge)
    c2.metric(
        "Best judge alone",
        f"{best.effective_human_labels:,.0f} labels",
        delta=md(panel.best_judge),
        delta_color="off",
        help="What the human labels are worth with the best judge alone (the judge whose corrected intervals are "
        "narrowest), named under the number.",
    )
    c3.metric(
        "The judges together",
        f"{panel.combined_effective_human_labels:,.0f} labels",
        delta=f"{panel.combined_effective_human_labels - best.effective_human_labels:+,.0f} vs the best judge",
        delta_color="off",
        help="What the human labels are worth when the judges' standardised mean is the judge: more than the best "
        "judge's means buying the others adds something.",
    )
    fmt = {
        c: st.column_config.NumberColumn(format="%.3f")
        for c in ("correlation with humans", "bias (judge - human)", "mean absolute error")
    }
    fmt["exact agreement"] = st.column_config.NumberColumn(format="percent")
    fmt["labels it is worth"] = st.column_config.NumberColumn(format="%.0f")
    exports.table(judge_rows(report), "judge_panel", hide_index=True, width="stretch", column_config=fmt)
    pfmt = {c: st.column_config.NumberColumn(format="%.3f") for c in ("score correlation", "error correlation")}
    pfmt["exact agreement"] = st.column_config.NumberColumn(format="percent")
    exports.table(pair_rows(report), "judge_pairs_of_judges", hide_index=True, width="stretch", column_config=pfmt)
    ds = panel.dawid_skene
    text = (
        "**Correlation with humans**: Pearson's, on the labelled cases. **Exact agreement**: the share of cases with "
        "the same score (discrete scales only). **Error correlation**: how much two judges' mistakes (judge minus "
        "human) go together; near 1, the second judge repeats the first's mistakes."
    )
    if ds is not None:
        text += (
            f" **Dawid-Skene** over the judges (each judge's confusion estimated without the humans): its labels "
            f"agree with the humans on {percent(ds.accuracy, 0)} of the {ds.n_human:,} labelled cases, the judges' "
            f"plurality on {percent(ds.plurality_accuracy, 0)}, the best single judge ({md(ds.best_judge)}) on "
            f"{percent(ds.best_judge_accuracy, 0)}."
        )
    st.caption(text)
    for note in panel.notes:
        st.caption(md(note))
