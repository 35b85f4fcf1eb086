"""The Data page's view of the dataset of each kind chosen in the sidebar: its key numbers, charts, rows, and the
one-page summary of the view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import altair as alt
import streamlit as st

from nkcore import summary as nksummary
from nkcore.errors import DataError
from ui.charts import data as charts_data
from ui.charts import draw
from ui.common import cache, datasets, evaluation, exports
from ui.common.text import md
from ui.data import judge as data_judge
from ui.data import ratings as data_ratings
from ui.data.show import KIND_WORDS, VIEW_KINDS, show_numbers, shown_errors

__all__ = ["DataView", "summary_download", "view_section"]


@dataclass(frozen=True, slots=True)
class DataView:
    """What the view section showed: the kind, the dataset, its summary (None after an error) and its charts."""

    kind: str
    ds: datasets.Dataset
    summary: nksummary.Summary | None
    charts: list[alt.TopLevelMixin]


def view_section() -> DataView:
    """The numbers, charts and rows of the dataset of the chosen kind (the radio is bound to the link)."""
    st.header("What is in a dataset")
    st.markdown(
        "The numbers below describe the dataset of this kind chosen in the sidebar: the built-in sample, or one "
        "you stored. The other pages use the same choice."
    )
    if st.query_params.get("dat_view") in VIEW_KINDS:  # a hand-made link may use the key (?dat_view=paired), the
        st.session_state["dat_view"] = st.query_params["dat_view"]  # bound radio writes its label ("Paired results")
    kind = st.radio(
        "Kind of data", VIEW_KINDS, format_func=KIND_WORDS.get, horizontal=True, key="dat_view", bind="query-params"
    )
    ev = evaluation.choose_evaluation()  # the evaluation in use: paired results and raw samples are its views
    if kind in ("paired", "samples"):
        if ev.builtin:
            ds = datasets.load_dataset(kind, None)
            exports.note_dataset(ds.name, ds.id, ds.kind, datasets.model_names(kind, None), frame=ds.frame)
        else:
            ds = ev.source
            if ds.kind != kind:
                st.caption(
                    f"The evaluation in use ({md(ev.name)}) is stored as {KIND_WORDS[ds.kind].lower()}: shown as such."
                )
                kind = ds.kind
            exports.note_dataset(ds.name, ds.id, ds.kind, ev.configs, frame=ds.frame)
    else:
        ds = datasets.choose_dataset(cast(datasets.Kind, kind))
    st.markdown(f"**{md(ds.name)}**: {len(ds.frame):,} rows, id `{ds.id[:12]}`")
    charts: list[alt.TopLevelMixin] = []
    summary: nksummary.Summary | None = None
    with shown_errors():
        if kind == "ratings":
            summary, charts = data_ratings.ratings_summary(ds)
            show_numbers(summary.numbers)
        elif kind == "predictions":
            ratings = datasets.choose_dataset("ratings")
            try:
                predicted: nksummary.Summary = cache.compute(nksummary.summarize_predictions, ds, ratings)
            except DataError as exc:
                st.warning(
                    f"These predictions do not fit the ratings chosen in the sidebar ({md(ratings.name)}): {md(exc)}"
                )
                predicted = cache.compute(nksummary.summarize, ds, kind="predictions")
            assert isinstance(predicted, nksummary.PredictionsSummary)
            summary = predicted
            show_numbers(predicted.numbers)
            charts = [charts_data.label_bars(predicted.labels, "How often each label was predicted", "predictions")]
        elif kind == "paired":
            judged = not ds.builtin and data_judge.is_judge_table(ds)
            try:
                results = cache.compute(nksummary.summarize, ds, kind="paired")
            except DataError as exc:
                if not judged:
                    raise
                data_judge.judge_note(str(exc))  # configs on cases of their own: the Judges page reads it
            else:
                assert isinstance(results, nksummary.PairedSummary)
                if judged:
                    data_judge.judge_note(None)
                summary = results
                show_numbers(results.numbers)
                charts = [charts_data.config_accuracy_bars(results.configs)]
        else:
            summary = cache.compute(nksummary.summarize, ds, kind="samples")
            show_numbers(summary.numbers)
            if "latency_s" in ds.frame.columns and len(ds.frame) <= 200_000:
                charts = [charts_data.latency_histogram(ds.frame["latency_s"])]
        cols = st.columns(len(charts)) if charts else []
        for col, chart, name in zip(cols, charts, ("chart_1", "chart_2"), strict=False):
            with col:
                draw(chart)
                exports.download_chart(chart, f"{kind}_{name}")
        if isinstance(summary, nksummary.RatingsSummary):
            charts += data_ratings.ratings_details(ds, summary.min_k)
        with st.expander(f"The data ({min(len(ds.frame), 200):,} of {len(ds.frame):,} rows shown)"):
            exports.table(ds.frame.head(200), "preview", download=False, hide_index=True)
            # the whole dataset; text a spreadsheet would run as a formula (=cmd|..., @SUM) gets a leading '
            exports.download_table(ds.frame, f"{kind}_{ds.id[:12]}")
    return DataView(kind, ds, summary, charts)


def summary_download(view: DataView) -> None:
    """The one-page summary of the view (nothing after an error in it)."""
    if view.summary is None:
        return
    params: dict[str, object] = {
        "kind of data": KIND_WORDS[view.kind],
        "dataset": view.ds.name,
        "dataset id": view.ds.id,
    }
    if isinstance(view.summary, nksummary.RatingsSummary):
        params["keep items with at least K ratings per item (K)"] = view.summary.min_k
        if "dat_bins" in st.session_state:
            params["bins for the wide scale"] = st.session_state["dat_bins"]
    exports.summary_download(
        f"Data: {view.ds.name}", params, [(n.label, n.display, n.sentence) for n in view.summary.numbers], view.charts
    )
