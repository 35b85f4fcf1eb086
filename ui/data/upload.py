"""The Data page's upload: read a file, cut a subset, build an item key, choose the kind and the columns (the guess
is :func:`nkcore.datafiles.choose.preferred_guess`, as on the command line), refuse or keep repeated rows, bin a
wide scale, check the table and store it (one dataset, or one per subset)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore import store
from nkcore import summary as nksummary
from nkcore.datafiles.canonical import binned_labels, canonical_table, counts_table
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import detect_kind, flatten_nested, kind_columns
from nkcore.kinds.judge import detect_judge
from ui.common import datasets, exports, page
from ui.common.text import md, shorten_middle
from ui.data import derive as data_derive
from ui.data import flows as data_flows
from ui.data import judge as data_judge
from ui.data import ratings as data_ratings
from ui.data.show import KIND_WORDS, MAX_MB, VIEW_KINDS, memo, show_numbers, shown_errors

__all__ = ["upload_section"]


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
    """Upload a file, check the guess of its kind and columns, and store it (the page's first section)."""
    st.header("Upload a file")
    flash = st.session_state.pop("_dat_flash", None)
    if flash:
        (st.success if flash[0] == "success" else st.error)(flash[1])
        if flash[0] == "success" and len(flash) > 2 and flash[2]:  # the pages that use what was stored, one click
            page.open_links(flash[2])
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
        raw, flattened = memo(("read", up.file_id), lambda: _read_upload(up.getvalue(), up.name))
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
        judged = detect_judge(frame)  # judge scores beside human labels on a subset (issue 55)
        guess_word = (
            data_judge.JUDGE_WORDS
            if judged is not None
            else "Ratings (label counts)"
            if counts
            else "no kind recognised, choose one"
            if detected.confidence == 0
            else KIND_WORDS[detected.kind]
        )
        kind_choice = st.selectbox(
            "What does the file hold?",
            ["auto", *VIEW_KINDS, data_judge.JUDGE_KIND],
            format_func=lambda k: (
                f"Detected: {guess_word}"
                if k == "auto"
                else data_judge.JUDGE_WORDS
                if k == data_judge.JUDGE_KIND
                else KIND_WORDS[k]
            ),
            key=f"_dat_kind_{token}",
        )
        if kind_choice == data_judge.JUDGE_KIND or (kind_choice == "auto" and judged is not None):
            data_judge.judge_upload(frame, up.name, token, judged)
            return
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

        summary, ds_id, misfit = memo(key, _check)
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
