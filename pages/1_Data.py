"""Data: upload, check and store datasets; see what is in the dataset each page uses; delete stored datasets."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pandas as pd
import streamlit as st

from nkcore import store
from nkcore import summary as nksummary
from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import ROLE_WORDS, apply_mapping, detect_kind, kind_columns, probability_role
from ui import cache, charts_data, datasets, exports, page
from ui.text import md

MAX_MB = max(1, limits.get("file_bytes") // 2**20)  # the server's file-size limit (NKP_MAX_FILE_BYTES), in MB
NONE = "(not in the file)"
VIEW_KINDS = ("ratings", "predictions", "paired", "samples")
KIND_WORDS = {"ratings": "Ratings", "predictions": "Predictions", "paired": "Paired results", "samples": "Raw samples"}

page.setup_page(
    "Data",
    "Upload your own ratings, model predictions, paired results or raw samples, check what is in them, and make them "
    "available to every page. Uploads are stored on this server under their content hash, so a link to them keeps "
    "working.",
)


@contextlib.contextmanager
def shown_errors() -> Iterator[None]:
    """Show a DataError as a plain message and carry on with the rest of the page (nothing else is lost)."""
    try:
        yield
    except DataError as exc:
        st.error(md(exc), icon=":material/error:")


def show_numbers(numbers: tuple[nksummary.SummaryNumber, ...], per_row: int = 3) -> None:
    """Each key number with its plain-language sentence underneath."""
    for start in range(0, len(numbers), per_row):
        cols = st.columns(per_row)
        for col, number in zip(cols, numbers[start : start + per_row], strict=False):
            with col:
                st.metric(md(number.label), md(number.display))
                st.caption(md(number.sentence))


def _memo(key: tuple, compute):  # the last read / check per session, so other widgets stay instant
    slot = f"_dat_memo_{key[0]}"
    memo = st.session_state.get(slot)
    if memo is None or memo[0] != key:
        try:
            memo = (key, compute(), None)
        except DataError as exc:
            memo = (key, None, str(exc))
        st.session_state[slot] = memo
    if memo[2] is not None:
        raise DataError(memo[2])
    return memo[1]


def _save(table: pd.DataFrame, kind: str, name: str, mapping: dict[str, str]) -> None:
    try:
        meta = store.put(table, kind, name, mapping)
    except (DataError, OSError) as exc:
        st.session_state["_dat_flash"] = ("error", f"Could not store the dataset: {md(exc)}")
        return
    st.query_params[kind] = meta.id
    st.session_state["dat_view"] = kind
    st.session_state["_dat_flash"] = (
        "success",
        f"Stored **{md(meta.name)}** ({meta.n_rows:,} rows) as {KIND_WORDS[kind].lower()} dataset `{meta.id[:12]}`. "
        "It is now chosen in the sidebar of every page, and the link to this view carries it.",
    )


def _delete(ds_id: str, kind: str) -> None:
    try:
        store.delete(ds_id)
    except DataError as exc:
        st.session_state["_dat_flash"] = ("error", md(exc))
        return
    if st.query_params.get(kind) == ds_id:
        del st.query_params[kind]
    st.session_state["_dat_flash"] = ("success", f"Deleted dataset `{ds_id[:12]}` from this server.")


def mapping_editor(frame: pd.DataFrame, kind: str, token: str) -> dict[str, str]:
    """Selectboxes pre-filled with the detected column of each role; the user corrects them."""
    guess = detect_kind(frame, kind)
    columns = [str(c) for c in frame.columns]
    required, optional = kind_columns(kind)
    roles = [*required, *optional]
    wide = False
    if kind == "paired":
        wide = (
            st.radio(
                "Layout of the paired results",
                ["long", "wide"],
                index=1 if guess.layout == "wide" else 0,
                format_func=lambda v: {
                    "long": "long: one row per case and config (case, config, correct)",
                    "wide": "wide: one row per case, one 0/1 column per config",
                }[v],
                key=f"_dat_layout_{token}",
            )
            == "wide"
        )
        roles = ["case"] if wide else roles
    mapping: dict[str, str] = {}
    cols = st.columns(min(len(roles), 3))
    for i, role in enumerate(roles):
        options = [NONE, *columns]
        default = guess.mapping.get(role)
        label = ROLE_WORDS[role] + (" (optional)" if role in optional else "")
        choice = cols[i % len(cols)].selectbox(
            label,
            options,
            index=options.index(default) if default in options else 0,
            key=f"_dat_map_{token}_{kind}_{role}",
        )
        if choice != NONE:
            mapping[role] = choice
    if kind == "predictions":
        probs = st.multiselect(
            "Probability columns, one per label (p_<label>); leave empty if the file has only hard labels",
            columns,
            default=[c for r, c in guess.mapping.items() if r.startswith("p_")],
            key=f"_dat_probs_{token}",
        )
        mapping.update({probability_role(c): c for c in probs})
    if wide:
        configs = st.multiselect(
            "Config columns (each holds 0/1 per case; an empty cell means no result)",
            [c for c in columns if c != mapping.get("case")],
            default=[c for r, c in guess.mapping.items() if r != "case"] if guess.layout == "wide" else [],
            key=f"_dat_cfgs_{token}",
        )
        mapping.update({c: c for c in configs})
    return mapping


def upload_section() -> None:
    st.header("Upload a file")
    flash = st.session_state.pop("_dat_flash", None)
    if flash:
        (st.success if flash[0] == "success" else st.error)(flash[1])
    st.markdown(
        f"CSV, TSV, Parquet or JSONL, optionally gzipped (`.gz`), up to {MAX_MB} MB. NK Planner guesses what the "
        "file holds and which column is which; check the guess, correct it if needed, then store the dataset. "
        "A file that cannot be used is explained below and changes nothing that is already loaded."
    )
    up = st.file_uploader(
        "Data file",
        type=["csv", "tsv", "tab", "txt", "parquet", "pq", "jsonl", "ndjson", "json", "gz"],
        key="dat_upload",
        max_upload_size=MAX_MB,
    )
    if up is None:
        return
    token = up.file_id.replace("-", "")[:16]
    with st.container(border=True), shown_errors():  # the message stays in the upload's box
        frame = _memo(("read", up.file_id), lambda: read_table(up.getvalue(), up.name))
        detected = detect_kind(frame)
        choice = st.selectbox(
            "What does the file hold?",
            ["auto", *VIEW_KINDS],
            format_func=lambda k: f"Detected: {KIND_WORDS[detected.kind]}" if k == "auto" else KIND_WORDS[k],
            key=f"_dat_kind_{token}",
        )
        kind = detected.kind if choice == "auto" else choice
        if choice == "auto" and detected.confidence == 0:
            st.warning(f"NK Planner cannot tell what this file holds: {md(detected.reason)}. Choose the kind above.")
        else:
            st.caption(f"Why: {md(detect_kind(frame, kind).reason)}.")
        mapping = mapping_editor(frame, kind, token)
        ratings_id = None
        if kind == "predictions":
            options = datasets.dataset_options("ratings")
            current = st.query_params.get("ratings")
            ratings_id = st.selectbox(
                "Check the predictions against these ratings (same items and labels)",
                list(options),
                index=list(options).index(current) if current in options else 0,
                format_func=lambda i: options[i],
                key=f"_dat_against_{token}",
            )
        table = apply_mapping(frame, kind, mapping)
        st.markdown(f"**Preview** (first 10 of {len(table):,} rows, with NK Planner's column names)")
        exports.table(table.head(10), "upload_preview", download=False, hide_index=True)
        key = ("check", up.file_id, kind, tuple(sorted(mapping.items())), ratings_id)
        ratings_frame = datasets.load_dataset("ratings", ratings_id).frame if ratings_id else None
        result = _memo(key, lambda: (nksummary.validate_and_summarize(table, kind, ratings_frame), fingerprint(table)))
        summary, ds_id = result
        stored = ds_id in {m.id for m in store.list_datasets()}
        if stored and st.query_params.get(kind) == ds_id:
            st.success(f"This file is stored and chosen as the {kind} dataset: its numbers are below.")
            return
        st.success(f"The file is a valid {KIND_WORDS[kind].lower()} dataset.", icon=":material/check_circle:")
        show_numbers(summary.numbers)
        st.button(
            "Use this stored dataset" if stored else "Store and use this dataset",
            type="primary",
            key="dat_save",
            on_click=_save,
            args=(table, kind, up.name, mapping),
            help="Stored under its content hash on this server; every page can then choose it, and links carry it.",
        )


def view_section() -> tuple[str, datasets.Dataset, object, list]:
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
    ds = datasets.choose_dataset(kind)
    st.markdown(f"**{md(ds.name)}**: {len(ds.frame):,} rows, id `{ds.id[:12]}`")
    charts: list = []
    summary = None
    with shown_errors():
        if kind == "ratings":
            full = cache.compute(nksummary.summarize, ds, kind="ratings")
            min_k = 1
            if full.k_max > full.k_min:  # a slider only when items differ in ratings per item (K)
                min_k = st.slider(
                    "Keep only items with at least this many ratings per item (K)",
                    1,
                    full.k_max,
                    1,
                    key="dat_min_k",
                    bind="query-params",
                    help="Items with fewer ratings are left out of every number and chart below.",
                )
            summary = full if min_k == 1 else cache.compute(nksummary.summarize, ds, kind="ratings", min_k=min_k)
            show_numbers(summary.numbers)
            charts = [
                charts_data.label_bars(summary.labels, "How often each label was given"),
                charts_data.k_histogram(full.k_hist, min_k),
            ]
        elif kind == "predictions":
            ratings = datasets.choose_dataset("ratings")
            try:
                summary = cache.compute(nksummary.summarize_predictions, ds, ratings)
            except DataError as exc:
                st.warning(
                    f"These predictions do not fit the ratings chosen in the sidebar ({md(ratings.name)}): {md(exc)}"
                )
                summary = cache.compute(nksummary.summarize, ds, kind="predictions")
            show_numbers(summary.numbers)
            charts = [charts_data.label_bars(summary.labels, "How often each label was predicted", "predictions")]
        elif kind == "paired":
            summary = cache.compute(nksummary.summarize, ds, kind="paired")
            show_numbers(summary.numbers)
            charts = [charts_data.config_accuracy_bars(summary.configs)]
        else:
            summary = cache.compute(nksummary.summarize, ds, kind="samples")
            show_numbers(summary.numbers)
            if "latency_s" in ds.frame.columns and len(ds.frame) <= 200_000:
                charts = [charts_data.latency_histogram(ds.frame["latency_s"])]
        cols = st.columns(len(charts)) if charts else []
        for col, chart, name in zip(cols, charts, ("chart_1", "chart_2"), strict=False):
            with col:
                st.altair_chart(chart, width="stretch")
                exports.download_chart(chart, f"{kind}_{name}")
        with st.expander(f"The data ({min(len(ds.frame), 200):,} of {len(ds.frame):,} rows shown)"):
            exports.table(ds.frame.head(200), "preview", download=False, hide_index=True)
            # the whole dataset; text a spreadsheet would run as a formula (=cmd|..., @SUM) gets a leading '
            exports.download_table(ds.frame, f"{kind}_{ds.id[:12]}")
    return kind, ds, summary, charts


def stored_section() -> None:
    st.header("Datasets stored on this server")
    metas = store.list_datasets()
    if not metas:
        st.markdown("Nothing uploaded yet: every page uses the built-in samples.")
        return
    table = pd.DataFrame(
        [{"name": m.name, "kind": m.kind, "rows": m.n_rows, "id": m.id[:12], "stored (UTC)": m.created} for m in metas]
    )
    exports.table(table, "stored_datasets", download=False, hide_index=True)
    by_id = {m.id: m for m in metas}
    left, right = st.columns([3, 1])
    target = left.selectbox(
        "Delete a dataset",
        list(by_id),
        format_func=lambda i: f"{by_id[i].name} ({by_id[i].kind}, {i[:12]})",
        key="_dat_delete_choice",
    )
    sure = right.checkbox("Yes, delete it for everyone", key="_dat_delete_sure")
    right.button(
        "Delete",
        key="dat_delete",
        disabled=not sure,
        on_click=_delete,
        args=(target, by_id[target].kind),
        icon=":material/delete:",
    )


upload_section()
view_kind, view_ds, view_summary, view_charts = view_section()
stored_section()
if view_summary is not None:
    params = {"kind of data": KIND_WORDS[view_kind], "dataset": view_ds.name, "dataset id": view_ds.id}
    if view_kind == "ratings":
        params["keep items with at least K ratings per item (K)"] = view_summary.min_k
    exports.summary_download(
        f"Data: {view_ds.name}", params, [(n.label, n.display, n.sentence) for n in view_summary.numbers], view_charts
    )
page.finish_page()
