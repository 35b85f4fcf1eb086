"""The Sampling page's pass@k section: at least one right, majority right, all right against k, and flaky cases.

``passk_section(ds)`` draws a one-sentence verdict, one chart of pass@k, majority@k and pass^k against samples per
case (k) with their 95% bands (score intervals over cases), and the flaky cases (most evenly split first) with a
CSV download.
Numbers come from ``nkcore.voting`` through ``ui.common.cache.compute``; user text (case ids, answers) reaches the page
only in tables and charts, which do not parse Markdown.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore import voting
from nkcore.common.formatting import percent, plural
from nkcore.errors import DataError
from nkcore.voting.rules import TieRule
from ui.charts import draw
from ui.charts.passk import MAJORITY_AT_K, PASS_AT_K, PASS_HAT_K, passk_chart
from ui.common import cache, exports
from ui.common.datasets import Dataset
from ui.common.text import md

__all__ = ["FLAKY_SHOWN", "curves_frame", "flaky_frame", "passk_section"]

FLAKY_SHOWN = 20  # flaky cases listed on the page; the download has all of them


def curves_frame(curves: voting.PassKCurves) -> pd.DataFrame:
    """The three readings long (k, series, value, ci_low, ci_high, n_cases), for the chart and its download."""
    rows = []
    for name, values in (
        (PASS_AT_K, curves.pass_at_k),
        (MAJORITY_AT_K, curves.majority_at_k),
        (PASS_HAT_K, curves.pass_hat_k),
    ):
        rows += [
            {"k": v.k, "series": name, "value": v.value, "ci_low": v.ci_low, "ci_high": v.ci_high, "n_cases": v.n_cases}
            for v in values
        ]
    return pd.DataFrame(rows, columns=["k", "series", "value", "ci_low", "ci_high", "n_cases"])


def _answers(case: voting.FlakyCase) -> str:
    return ", ".join(f"{a.answer} ×{a.count}" + (" (gold)" if a.right else "") for a in case.answers)


def flaky_frame(flaky: voting.FlakyCases) -> pd.DataFrame:
    """One row per flaky case, most evenly split first: case, gold answer, right samples, share right, answers."""
    rows = [
        {
            "case": c.case,
            "gold answer": c.gold,
            "right samples": f"{c.n_right} of {c.n_samples}",
            "share right": 100.0 * c.share_right,
            **({"answers (count)": _answers(c)} if flaky.has_answers else {}),
        }
        for c in flaky.cases
    ]
    cols = ["case", "gold answer", "right samples", "share right"] + (["answers (count)"] if flaky.has_answers else [])
    frame = pd.DataFrame(rows, columns=cols)
    if not flaky.has_answers:
        frame = frame.drop(columns="gold answer")
    return frame


def _how_to_read() -> None:
    st.markdown(
        "For each case, over every way of picking k of its samples: **pass@k** counts a pick with at least one right "
        "answer (enough when someone checks the answers and keeps a right one), **majority of k** a pick whose "
        "majority vote is right, **all k right** (pass^k) a pick with no wrong answer (what a user who asks k times "
        "sees). Bands: 95% intervals over cases (exact Clopper-Pearson-type intervals, never a single point even when every case passes)."
    )


def passk_section(
    ds: Dataset,
    tie: TieRule = "first",
    curves: voting.PassKCurves | None = None,
    flaky: voting.FlakyCases | None = None,
) -> None:
    """Draw the pass@k section for the samples dataset ``ds`` (majority vote with tie rule ``tie``): from ``curves``
    and ``flaky`` when the page computed them already (the Sampling page's one cached computation), else computed.

    A ``DataError`` from the computation is shown as a plain message and ends the section, not the page.
    """
    st.subheader("Pass@k and flaky cases")
    try:
        if curves is None:
            curves = cache.compute(voting.passk_from_frame, ds, tie=tie, n_boot=2000, seed=0)
        if flaky is None:
            flaky = cache.compute(voting.flaky_from_frame, ds)
    except DataError as exc:
        st.error(md(str(exc)))  # messages quote uploaded text: shown literally
        return
    st.markdown(f"**{md(voting.passk_sentence(curves, flaky.flaky_share))}**")
    st.caption(
        "At least one right, a majority right, or all right: how the score of k samples per case depends on what "
        "counts as a success."
        + (
            ""
            if curves.min_n == curves.max_n
            else f" Cases have {curves.min_n} to {curves.max_n} samples: at each k, the cases with at least k count."
        )
    )
    with st.expander("How to read this chart", icon=":material/help:"):
        _how_to_read()
    table = curves_frame(curves)
    draw(cache.chart_spec(passk_chart, table))  # cached on the table's content; the chart is built for an export only
    exports.download_table_and_chart(
        table, "passk_curves", lambda: passk_chart(table), "passk_curves", table_label="Chart data (CSV)"
    )

    st.markdown(md(voting.flaky_sentence(flaky)))
    if flaky.flaky:
        shown = min(FLAKY_SHOWN, flaky.flaky)
        listed = (
            f"The {plural(shown, 'flaky case')}"
            if shown == flaky.flaky
            else f"The {shown} of {flaky.flaky:,} flaky cases"
        )
        st.caption(
            f"{listed} that split most evenly between right and wrong, with every answer given; "
            f"{percent(flaky.all_right / flaky.n_cases)} of cases are always right and "
            f"{percent(flaky.all_wrong / flaky.n_cases)} always wrong."
        )
        frame = flaky_frame(flaky)
        exports.table(
            frame.head(FLAKY_SHOWN),
            "flaky_cases_top",
            download=False,
            hide_index=True,
            width="stretch",
            column_config={"share right": st.column_config.NumberColumn(format="%.0f%%")},
        )
        exports.download_table(frame, "flaky_cases", label=f"Download all {plural(flaky.flaky, 'flaky case')} (CSV)")
