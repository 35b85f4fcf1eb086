"""Data: upload, check and store datasets; see what is in the dataset each page uses; delete stored datasets."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

import pandas as pd
import streamlit as st

from nkcore import store
from nkcore import summary as nksummary
from nkcore.common import limits
from nkcore.datafiles.canonical import binned_labels, canonical_table, counts_table
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import detect_kind, flatten_nested, kind_columns
from ui.charts import data as charts_data
from ui.charts import draw
from ui.common import cache, datasets, exports, page
from ui.common.text import md, shorten_middle
from ui.data import derive as data_derive
from ui.data import flows as data_flows
from ui.data import ratings as data_ratings

T = TypeVar("T")

MAX_MB = max(1, limits.get("file_bytes") // 2**20)  # the server's file-size limit (NKP_MAX_FILE_BYTES), in MB
VIEW_KINDS = ("ratings", "predictions", "paired", "samples")
KIND_WORDS = data_derive.KIND_WORDS

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


def show_numbers(numbers: tuple[nksummary.SummaryNumber, ...], per_row: int = 2) -> None:
    """Each key number with its plain-language sentence underneath, two to a row (a long label such as "ratings per
    item (K), min / median / max" fits a 1024 px window)."""
    for start in range(0, len(numbers), per_row):
        cols = st.columns(per_row)
        for col, number in zip(cols, numbers[start : start + per_row], strict=False):
            with col:
                st.metric(md(number.label), md(number.display))
                st.caption(md(number.sentence))


def _memo(
    key: tuple[Any, ...], compute: Callable[[], T]
) -> T:  # the last read / check per session: other widgets stay instant
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
    return cast(T, memo[1])


def _read_upload(data: bytes, name: str) -> tuple[pd.DataFrame, str]:
    """The uploaded file as a table, ratings nested per item made flat (and the sentence saying so, else "")."""
    frame = read_table(data, name)
    flat = flatten_nested(frame, name)
    return (frame, "") if flat is None else (flat.frame, flat.reason)


def _check_target(table: pd.DataFrame, token: str) -> tuple[str | None, str]:
    """The stored ratings to check predictions against: the one sharing the most items (the user may change it)."""
    predicted = set(table["item"].dropna().astype(str))
    best = data_derive.best_ratings(predicted)
    options = {"": "(do not check against ratings)"} | {m.id: m.name for m in store.list_datasets("ratings")}
    ids = list(options)
    chosen = st.selectbox(
        "Check the predictions against these stored ratings (same items and labels)",
        ids,
        index=ids.index(best[0]) if best else 0,
        format_func=lambda i: shorten_middle(options[i], 36),
        key=f"_dat_against_{token}",
    )
    if not chosen:
        st.caption("No stored ratings share items with these predictions: they are checked on their own.")
        return None, ""
    return chosen, options[chosen]


def upload_section() -> None:
    st.header("Upload a file")
    flash = st.session_state.pop("_dat_flash", None)
    if flash:
        (st.success if flash[0] == "success" else st.error)(flash[1])
    st.markdown(
        f"CSV, TSV, Parquet, JSON or JSONL, optionally gzipped (`.gz`), up to {MAX_MB} MB. NK Planner guesses what "
        "the file holds and which column is which; check the guess, correct it if needed, then store the dataset. "
        "Label counts (an item column plus one `count_<label>` column per label) are kept as counts; a record per "
        "item holding its raters' labels or label counts (LeWiDi's and ChaosNLI's own files) is read as ratings. "
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
        raw, flattened = _memo(("read", up.file_id), lambda: _read_upload(up.getvalue(), up.name))
        if flattened:
            st.caption(md(f"Read as: {flattened}."))
        choice = data_flows.subset_chooser(raw, token)
        first = data_flows.item_key_chooser(choice.parts[0][1], token)
        key_cols = list(st.session_state.get(f"_dat_key_{token}") or [])
        rest = [(v, data_flows.with_key(p, key_cols) if len(key_cols) >= 2 else p) for v, p in choice.parts[1:]]
        parts = [(choice.parts[0][0], first), *rest]
        frame = parts[0][1]
        detected = detect_kind(frame)
        map_token = token + ("k" if data_flows.KEY_COLUMN in frame.columns else "")  # a new key: new defaults
        counts = counts_table(frame, detected)
        guess_word = (
            "Ratings (label counts)"
            if counts
            else "no kind recognised, choose one"
            if detected.confidence == 0
            else KIND_WORDS[detected.kind]
        )
        kind_choice = st.selectbox(
            "What does the file hold?",
            ["auto", *VIEW_KINDS],
            format_func=lambda k: f"Detected: {guess_word}" if k == "auto" else KIND_WORDS[k],
            key=f"_dat_kind_{token}",
        )
        kind = ("ratings" if counts else detected.kind) if kind_choice == "auto" else kind_choice
        as_counts = counts is not None and kind == "ratings"
        mapping: dict[str, str]
        if as_counts:
            assert counts is not None
            mapping = counts[1]
            st.caption(md(f"Why: {detected.reason}."))
        elif kind_choice == "auto" and detected.confidence == 0:
            st.warning(f"NK Planner cannot tell what this file holds: {md(detected.reason)}. Choose the kind above.")
            mapping = data_flows.mapping_editor(frame, kind, map_token)
            if any(role not in mapping for role in kind_columns(kind)[0]):
                return  # said above; the columns chosen so far are no dataset yet
        else:
            st.caption(f"Why: {md(detect_kind(frame, kind).reason)}.")
            mapping = data_flows.mapping_editor(frame, kind, map_token)
        table = canonical_table(frame, kind, mapping, as_counts)
        dups, bins = "", 0
        if kind == "ratings" and not as_counts:
            kept = data_flows.duplicates_chooser(table, token)
            if kept is None:
                st.error("The file is refused: repeated (item, rater) rows. Choose how to keep them above.")
                return
            dups = str(st.session_state.get(f"_dat_dups_{token}", ""))
            table = kept
            bins = data_ratings.upload_bins_chooser(table, token)
            table = binned_labels(table, bins) if bins else table
        ratings_id, ratings_name = (None, "")
        if kind == "predictions":
            ratings_id, ratings_name = _check_target(table, token)
        st.markdown(f"**Preview** (first 10 of {len(table):,} rows, with NK Planner's column names)")
        exports.table(table.head(10), "upload_preview", download=False, hide_index=True)
        key = ("check", up.file_id, kind, tuple(sorted(mapping.items())), ratings_id, choice.mode, parts[0][0], dups)
        ratings_frame = datasets.load_dataset("ratings", ratings_id).frame if ratings_id else None

        def _check() -> tuple[nksummary.Summary, str, str]:
            """The summary, the id, and why the check against the stored ratings failed ("" when it passed)."""
            try:
                return nksummary.validate_and_summarize(table, kind, ratings_frame), fingerprint(table), ""
            except DataError as exc:
                if not ratings_id:
                    raise
                return nksummary.validate_and_summarize(table, kind), fingerprint(table), str(exc)

        summary, ds_id, misfit = _memo(key, _check)
        if ratings_id and misfit:
            st.warning(
                md(f"Checked against the stored ratings {ratings_name}: {misfit}. The predictions are valid on their "
                   "own and can be stored; derived datasets keep only the rated items."),
                icon=":material/rule:",
            )  # fmt: skip
        elif ratings_id:
            st.caption(md(f"Checked against the stored ratings {ratings_name}."))
        stored = ds_id in {m.id for m in store.list_datasets()}
        if stored and st.query_params.get(kind) == ds_id and len(parts) == 1:
            st.success(f"This file is stored and chosen as the {kind} dataset: its numbers are below.")
        else:
            st.success(f"The file is a valid {KIND_WORDS[kind].lower()} dataset.", icon=":material/check_circle:")
            show_numbers(summary.numbers)
            all_parts = [
                (v, table if i == 0 else canonical_table(p, kind, mapping, as_counts, dups, bins))
                for i, (v, p) in enumerate(parts)
            ]
            st.button(
                (
                    f"Store {len(parts)} datasets, one per {choice.column}"
                    if len(parts) > 1
                    else "Use this stored dataset"
                    if stored
                    else "Store and use this dataset"
                ),
                type="primary",
                key="dat_save",
                on_click=data_derive.store_parts,
                args=(all_parts, kind, up.name, mapping),
                help="Stored under its content hash on this server; every page can then choose it, and links carry it.",
            )
        if kind == "predictions":
            with st.container(border=True):
                data_derive.derive_panel(
                    frame,
                    ds_id,
                    up.name,
                    token,
                    None if stored else data_derive.Upload(table, mapping, data_derive.part_name(up.name, parts[0][0])),
                )


def view_section() -> tuple[str, datasets.Dataset, nksummary.Summary | None, list[Any]]:
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
    ds = datasets.choose_dataset(cast(datasets.Kind, kind))
    st.markdown(f"**{md(ds.name)}**: {len(ds.frame):,} rows, id `{ds.id[:12]}`")
    charts: list[Any] = []
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
            results = cache.compute(nksummary.summarize, ds, kind="paired")
            assert isinstance(results, nksummary.PairedSummary)
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
    return kind, ds, summary, charts


def stored_section() -> None:
    st.header("Datasets stored on this server")
    try:
        metas = store.list_datasets(strict=True)
    except store.StoreUnreachable as exc:  # an object store that does not answer: say so, not "nothing uploaded"
        st.warning(md(str(exc)), icon=":material/cloud_off:")
        return
    if not metas:
        st.markdown("Nothing uploaded yet: every page uses the built-in samples.")
        return
    table = pd.DataFrame(
        [{"name": m.name, "kind": m.kind, "rows": m.n_rows, "id": m.id[:12], "stored (UTC)": m.created} for m in metas]
    )
    exports.table(table, "stored_datasets", download=False, hide_index=True)
    by_id = {m.id: m for m in metas}
    left, right = st.columns([3, 1])
    chosen = left.selectbox(
        "Rename a dataset (its id, and so every link to it, stays the same)",
        list(by_id),
        format_func=lambda i: f"{shorten_middle(by_id[i].name, 22)} ({by_id[i].kind}, {i[:8]})",
        key="_dat_rename_choice",
        help="each dataset by its name (cut in the middle when long), its kind and the start of its id",
    )
    new_name = right.text_input("New name", key="_dat_rename_name", max_chars=200)
    right.button(
        "Rename", key="dat_rename", disabled=not new_name.strip(), on_click=data_derive.rename, args=(chosen, new_name)
    )
    if not store.delete_allowed():
        st.caption(
            "Deleting is off on this server: a deleted dataset breaks every teammate's link that carries it. The "
            "server's operator can turn it on with NKP_ALLOW_DELETE=1."
        )
        return
    left, right = st.columns([3, 1])
    target = left.selectbox(
        "Delete a dataset",
        list(by_id),
        format_func=lambda i: f"{shorten_middle(by_id[i].name, 22)} ({by_id[i].kind}, {i[:8]})",
        key="_dat_delete_choice",
    )
    sure = right.checkbox("Yes, delete it for everyone", key="_dat_delete_sure")
    right.button(
        "Delete",
        key="dat_delete",
        disabled=not sure,
        on_click=data_derive.delete,
        args=(target, by_id[target].kind),
        icon=":material/delete:",
    )


def derive_section() -> None:
    st.header("Derive from stored predictions")
    metas = store.list_datasets("predictions")
    if not metas:
        st.markdown("No predictions are stored yet: upload a predictions file above (it can be derived from there).")
        return
    by_id = {m.id: m for m in metas}
    pid = st.selectbox(
        "Predictions", list(by_id), format_func=lambda i: shorten_middle(by_id[i].name, 36), key="_dat_der_src"
    )
    with shown_errors(), st.container(border=True):
        data_derive.derive_panel(datasets.load_dataset("predictions", pid).frame, pid, by_id[pid].name, "stored")


upload_section()
data_derive.harness_section(MAX_MB)
derive_section()
view_kind, view_ds, view_summary, view_charts = view_section()
stored_section()
if view_summary is not None:
    params: dict[str, Any] = {"kind of data": KIND_WORDS[view_kind], "dataset": view_ds.name, "dataset id": view_ds.id}
    if isinstance(view_summary, nksummary.RatingsSummary):
        params["keep items with at least K ratings per item (K)"] = view_summary.min_k
        if "dat_bins" in st.session_state:
            params["bins for the wide scale"] = st.session_state["dat_bins"]
    exports.summary_download(
        f"Data: {view_ds.name}", params, [(n.label, n.display, n.sentence) for n in view_summary.numbers], view_charts
    )
page.finish_page()
