"""Compare's accuracy section: each config's accuracy with the interval chosen, its chart (drawn only while open),
the discordance tables and the one-page summary (a fragment: the interval choice reruns this section alone)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import altair as alt
import pandas as pd
import streamlit as st

from nkcore import paired
from nkcore.common.formatting import points
from nkcore.paired import sentences as words
from ui import charts
from ui.charts import paired as charts_paired
from ui.common import cache, datasets, exports, page
from ui.common.text import md
from ui.compare.controls import ADJACENT

__all__ = ["INTERVALS", "PairedView", "accuracy_section"]

# Bound widgets keep their displayed option in the link, so the options are the words themselves.
INTERVALS = {"Wilson": "wilson", "Clopper-Pearson (exact)": "clopper-pearson"}


@dataclass(frozen=True, slots=True)
class PairedView:
    """What the accuracy section takes from the full run: the paired results, which do not depend on its interval."""

    ds: datasets.Dataset
    mode: str
    compared: tuple[str, ...]
    comps: tuple[paired.PairedComparison, ...]
    verdicts: tuple[str, ...]
    significance: float
    n_cases: int
    dropped: int
    chance_note: tuple[str, float] | None  # the 1/k! note and its chance, when the accuracies are monotone
    diff_chart: Callable[[], alt.LayerChart]  # builds the chart of paired differences (for the summary's image)


@st.fragment
def accuracy_section(view: PairedView) -> None:
    """The accuracy of each config, its interval choice, the discordance tables and the summary download.

    A fragment: the interval choice changes only what is drawn here, so it reruns this section alone. The paired
    numbers (from the full run, in ``view``) do not depend on it; the accuracies are recomputed (cached) with it.
    """
    with page.user_errors():
        _accuracy_section(view)


def _accuracy_section(view: PairedView) -> None:
    ds, mode, compared, comps, significance = view.ds, view.mode, view.compared, view.comps, view.significance
    confidence = 1.0 - significance
    pct = f"{100 * confidence:g}%"
    st.subheader("Accuracy of each config")
    ci_label = st.radio(
        "Interval for each config's accuracy",
        list(INTERVALS),
        horizontal=True,
        key="cmp_ci",
        bind="query-params",
        help=words.INTERVAL_HELP,
    )
    ci_method = INTERVALS[ci_label]
    if mode == ADJACENT:
        result = cache.compute(
            paired.analyse_paired,
            ds,
            configs=compared,
            significance=significance,
            confidence=confidence,
            ci_method=ci_method,
        )
        accs, pairs = result.accuracies, result.comparisons
    else:
        one = cache.compute(
            paired.compare_frame_pair,
            ds,
            a=comps[0].config_a,
            b=comps[0].config_b,
            confidence=confidence,
            ci_method=ci_method,
        )
        accs, pairs = (one.a, one.b), (one,)
    acc_df = pd.DataFrame(
        [{"config": x.config, "correct": x.correct, "cases": x.n, "accuracy": x.accuracy, "ci_low": x.ci_low,
          "ci_high": x.ci_high} for x in accs]
    )  # fmt: skip
    st.markdown("\n".join(f"- {md(paired.accuracy_sentence(x, confidence))}" for x in accs))
    with st.expander("Why not compare these intervals?", icon=":material/help:"):
        st.markdown(words.MARGINAL_NOTE)

    # The page leads with one chart, the paired differences; this one is drawn only while open (its state is a
    # widget): a second chart redrawn on every change slowed every change in the browser (docs/benchmarks.md).
    acc_box = st.expander(
        "Chart: accuracy of each config with its interval",
        icon=":material/bar_chart:",
        key="cmp_show_accuracy_chart",
        on_change="rerun",
    )
    with acc_box:
        if acc_box.open:
            charts.draw(cache.chart_spec(charts_paired.accuracy_chart, acc_df, pct))

    # Drawn only while open (its state is a widget): a closed expander costs a run nothing.
    more = st.expander(
        "Discordance table of each pair: where the evidence is",
        icon=":material/table:",
        key="cmp_show_discordance",
        on_change="rerun",
    )
    with more:
        if more.open:
            _discordance_tables(pairs)

    numbers = [("paired cases", f"{view.n_cases:,}", f"{view.dropped:,} cases dropped to pair the configs")]
    numbers += [(x.config, f"{100 * x.accuracy:.1f}%", paired.accuracy_sentence(x, confidence)) for x in accs]
    numbers += [
        (f"{c.config_a} → {c.config_b}", f"{points(c.diff)} points", v)
        for c, v in zip(comps, view.verdicts, strict=True)
    ]
    if view.chance_note is not None:
        note, chance = view.chance_note
        numbers.append(("ordering by luck", f"1 in {round(1 / chance):,}", note))
    exports.summary_download(
        "Compare",
        {"dataset": ds.name, "compare": mode, "alpha": significance, "interval": ci_label},
        numbers,
        [view.diff_chart, lambda: charts_paired.accuracy_chart(acc_df, pct)],
    )


def _discordance_tables(pairs: Sequence[paired.PairedComparison]) -> None:
    """One tab per pair: its 2 x 2 table of right and wrong, and why its marginal intervals mislead."""
    tabs = st.tabs([md(f"{c.config_a} → {c.config_b}") for c in pairs])
    for i, (tab, c) in enumerate(zip(tabs, pairs, strict=True)):
        with tab:
            two_by_two = pd.DataFrame(
                {f"{c.config_b} right": [c.both_correct, c.b_only], f"{c.config_b} wrong": [c.a_only, c.both_wrong]},
                index=pd.Index([f"{c.config_a} right", f"{c.config_a} wrong"], name=f"{c.config_a} \\ {c.config_b}"),
            ).reset_index()  # fmt: skip
            exports.table(
                two_by_two, f"discordance_{i + 1}_{c.config_a}_{c.config_b}", hide_index=True, width="content"
            )
            st.markdown(md(paired.marginal_sentence(c)))
