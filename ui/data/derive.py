"""The Data page's derived datasets and evaluation-harness uploads; storing, renaming and deleting datasets.

- :func:`best_ratings`: the stored ratings dataset that shares the most items with a predictions table (the one
  predictions are checked against by default; the built-in sample is never guessed);
- :func:`derive_panel`: predictions of several models + gold (the plurality of a stored ratings dataset, or a gold
  column of the file) -> paired results; several runs of one model -> raw samples (:mod:`nkcore.derive`), stored
  like an upload with the ids it was derived from;
- :func:`harness_section`: lm-evaluation-harness / inspect_ai / promptfoo files uploaded together
  (:func:`nkcore.harness.read_harness`) -> one paired dataset, and raw samples when a case has several.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from nkcore import store
from nkcore import summary as nksummary
from nkcore.derive import Derived, derive_paired, derive_samples, model_name_column
from nkcore.errors import DataError
from nkcore.harness import TOOL_NAMES, read_harness
from nkcore.io import fingerprint
from nkcore.kinds import apply_mapping, detect_kind, natural_order, to_text
from nkcore.summary import ratings_of_table
from ui.common import datasets, evaluation, exports, page
from ui.common.text import md, shorten_middle

__all__ = [
    "KIND_WORDS",
    "Upload",
    "best_ratings",
    "delete",
    "derive_panel",
    "harness_section",
    "part_name",
    "rename",
    "save",
    "shared_items",
    "store_parts",
]

KIND_WORDS = {"ratings": "Ratings", "predictions": "Predictions", "paired": "Paired results", "samples": "Raw samples"}
FLASH = "_dat_flash"
USED_BY: dict[str, tuple[str, ...]] = {
    "paired": page.EVALUATION_PAGES,
    "samples": ("pages/4_Sampling.py", "pages/5_Cost_and_latency.py"),
    "ratings": ("pages/2_Budget.py",),
    "predictions": ("pages/2_Budget.py",),
}
"""The pages that read a stored dataset of each kind (the flash after storing links to each)."""
HARNESS_TYPES = ["json", "jsonl", "eval", "gz"]


def save(
    table: pd.DataFrame,
    kind: str,
    name: str,
    mapping: dict[str, str] | None = None,
    derived_from: Sequence[str] = (),
    choose: bool = True,
) -> str | None:
    """Store ``table`` (recording ``derived_from``), choose it in the link when ``choose``; a DataError or a full
    data folder is a flash message. Returns the id, or None when nothing was stored."""
    try:
        meta = store.put(table, kind, name, mapping, derived_from=tuple(derived_from))
    except (DataError, OSError) as exc:
        st.session_state[FLASH] = ("error", f"Could not store the dataset: {md(exc)}")
        return None
    if choose:
        if kind in ("paired", "samples"):  # an evaluation: the one every page reads
            evaluation.use(meta.id)
        else:
            st.query_params[kind] = meta.id
        st.session_state["dat_view"] = kind
    return meta.id


def stored_message(ids: Sequence[str], kind: str, names: Sequence[str], extra: str = "") -> None:
    """The flash message after storing one or more datasets."""
    listed = ", ".join(f"**{md(n)}** (`{i[:12]}`)" for n, i in zip(names, ids, strict=True))
    word = KIND_WORDS[kind].lower()
    chosen = "It is now chosen in the sidebar of every page, and the link to this view carries it."
    if len(ids) > 1:
        chosen = "The last one is chosen in the sidebar; every page can choose the others."
    pages = USED_BY.get(kind, ())
    st.session_state[FLASH] = ("success", f"Stored {listed} as {word} data. {chosen}{extra}", pages)


def shared_items(predicted: set[str], ratings: pd.DataFrame) -> int:
    """How many of the ``predicted`` item ids the ratings table has (as text, the parsers' rule)."""
    return len(predicted & set(to_text(ratings["item"]).dropna().tolist()))


def best_ratings(predicted: set[str]) -> tuple[str, str, int] | None:
    """(id, name, shared items) of the stored ratings dataset sharing the most items with ``predicted``; None when
    no stored ratings dataset shares any (then the predictions are stored without a check)."""
    best: tuple[str, str, int] | None = None
    for meta in store.list_datasets("ratings"):
        try:
            frame = datasets.load_dataset("ratings", meta.id).frame
        except DataError:
            continue
        n = shared_items(predicted, frame)
        if n > 0 and (best is None or n > best[2]):
            best = (meta.id, meta.name, n)
    return best


def _derived_note(d: Derived) -> str:
    dropped = "; ".join(f"{n:,} items {why}" for why, n in d.dropped)
    what = "configs" if d.kind == "paired" else "samples per case"
    text = f" {d.items_kept:,} cases, {len(d.configs)} {what} ({', '.join(d.configs[:6])}"
    text += " ..." if len(d.configs) > 6 else ""
    text += ")." + (f" Left out: {dropped}." if dropped else "")
    return md(text)


@dataclass(frozen=True, slots=True)
class Upload:
    """Predictions being uploaded, not stored yet: the canonical ``table`` (its fingerprint is the id a derived
    dataset's ``derived_from`` names), the column ``mapping`` and the ``name`` to store them under."""

    table: pd.DataFrame
    mapping: dict[str, str]
    name: str


def _do_derive(
    frame: pd.DataFrame,
    args: dict[str, object],
    name: str,
    sources: tuple[str, ...],
    upload: Upload | None = None,
) -> None:
    """The button's callback: derive, store with ``derived_from``, choose the result; errors become the flash.

    ``upload``: the predictions being uploaded (not stored yet), stored first as a predictions dataset of their own
    and chosen, so that the derived dataset's ``derived_from`` names a stored dataset and the Budget page can use
    the predictions; both are named in the flash message."""
    try:
        ratings_id = args.pop("ratings_id", None)
        ratings = None
        if isinstance(ratings_id, str):
            ratings = ratings_of_table(datasets.load_dataset("ratings", ratings_id).frame)
            sources = (*sources, ratings_id)
        what = args.pop("what")
        if what == "paired":
            d = derive_paired(frame, ratings=ratings, source_ids=sources, **args)  # type: ignore[arg-type]
        else:
            d = derive_samples(frame, ratings=ratings, source_ids=sources, **args)  # type: ignore[arg-type]
    except DataError as exc:
        st.session_state[FLASH] = ("error", f"Could not derive the dataset: {md(exc)}")
        return
    derived_from, also = d.source_ids, ""
    if upload is not None:
        try:
            nksummary.validate_and_summarize(upload.table, "predictions")
        except DataError as exc:
            st.session_state[FLASH] = ("error", f"Nothing was stored: {md(exc)}")
            return
        pid = save(upload.table, "predictions", upload.name, upload.mapping)
        if pid is None:
            return
        derived_from = tuple(pid if i == sources[0] else i for i in d.source_ids)  # the id as stored
        also = (
            f" The predictions it was derived from are stored too, as **{md(upload.name)}** (`{pid[:12]}`), and "
            "chosen as the predictions dataset (the Budget page resamples them against the ratings)."
        )
    ds_id = save(d.frame, d.kind, name, {}, derived_from=derived_from)
    if ds_id is not None:
        stored_message([ds_id], d.kind, [name], _derived_note(d) + also)


def derive_panel(
    frame: pd.DataFrame, source_id: str, source_name: str, token: str, upload: Upload | None = None
) -> None:
    """Derive paired results (several models + gold) or raw samples (runs of one model) from a predictions table.

    ``upload``: the predictions come from an upload not stored yet; deriving stores them too (:func:`_do_derive`),
    under ``source_id`` (their fingerprint), so the derived dataset is linked to a stored predictions dataset."""
    guess = detect_kind(frame, "predictions")
    ratings_opts = {m.id: m.name for m in store.list_datasets("ratings")}
    columns = [str(c) for c in frame.columns]
    st.markdown(
        "**Derive a dataset from these predictions.** Paired results: each model run right or wrong on each item "
        "against the gold label, for Compare and the Planner. Raw samples: the runs of one model as the samples "
        "of each case, for Sampling and Cost & latency."
    )
    c1, c2, c3 = st.columns(3)
    what = c1.radio(
        "Derive",
        ["paired", "samples"],
        format_func={"paired": "paired results (models)", "samples": "raw samples (runs of one model)"}.get,
        key=f"_dat_der_what_{token}",
    )
    gold_from = c2.radio(
        "Gold label",
        ["ratings", "column"],
        format_func={"ratings": "plurality of stored ratings", "column": "a column of the file"}.get,
        key=f"_dat_der_gold_{token}",
    )
    args: dict[str, object] = {"what": what}
    gold_name = ""
    if gold_from == "ratings":
        if not ratings_opts:
            c3.info("No ratings are stored yet: upload the ratings (or label counts) first, or use a gold column.")
            return
        items = set(to_text(frame[guess.mapping["item"]]).dropna()) if "item" in guess.mapping else set()
        best = best_ratings(items)
        ids = list(ratings_opts)
        rid = c3.selectbox(
            "Ratings",
            ids,
            index=ids.index(best[0]) if best else 0,
            format_func=lambda i: shorten_middle(ratings_opts[i], 14),  # a third of the page at 1024 px
            key=f"_dat_der_r_{token}",
            help="the stored ratings whose plurality is the gold; the one sharing the most items comes first",
        )
        args["ratings_id"] = rid
        gold_name = ratings_opts[rid]
    else:
        default = next((c for c in columns if "gold" in c.lower()), columns[0])
        args["gold_column"] = c3.selectbox(
            "Gold column", columns, index=columns.index(default), key=f"_dat_der_gc_{token}"
        )
        gold_name = str(args["gold_column"])
    if what == "samples":
        model_col = model_name_column(frame, guess.mapping.get("model"))
        if model_col is not None:
            models = natural_order([str(v) for v in to_text(frame[model_col]).dropna().unique()])
            args["model"] = st.selectbox(
                f"Model whose runs are the samples (column {model_col})", models, key=f"_dat_der_m_{token}"
            )
    label = f"{source_name} vs {gold_name}" if what == "paired" else f"{source_name}: runs of {args.get('model', '')}"
    name = f"{label} (derived {KIND_WORDS[str(what)].lower()})"
    st.button(
        f"Derive and store {KIND_WORDS[str(what)].lower()}",
        key=f"dat_derive_{token}",
        on_click=_do_derive,
        args=(frame, args, name, (source_id,), upload),
        icon=":material/call_split:",
        help=(
            "The predictions are stored too (as a predictions dataset, linked to the derived one), so every page can "
            "use them."
            if upload is not None
            else None
        ),
    )


def _store_harness(table: pd.DataFrame, kind: str, name: str) -> None:
    """Store the evaluation (every config, repeat, score, answer, latency and cost: kind ``paired``) or, for one
    config with several samples per case, its raw samples; chosen as the evaluation in use on every page."""
    ds_id = save(table, kind, name)
    if ds_id is not None:
        stored_message([ds_id], kind, [name])


def harness_section(max_mb: int) -> None:
    """Evaluation-harness outputs (several files together = one paired dataset) -> stored paired results/samples."""
    st.subheader("Evaluation-harness outputs")
    st.markdown(
        "lm-evaluation-harness `samples_<task>_<date>.jsonl` (`--log_samples`), inspect_ai logs (`.eval`, `.json`) "
        "or promptfoo `results.json`, optionally gzipped (`.jsonl.gz`, `.json.gz`): one file per model or run, "
        "uploaded together, become one paired dataset (case, config, correct); cases with several samples (epochs, "
        "repeats) also give raw samples."
    )
    ups = st.file_uploader(
        "Harness files", type=HARNESS_TYPES, accept_multiple_files=True, key="dat_harness", max_upload_size=max_mb
    )
    if not ups:
        return
    try:
        files = [(u.name, u.getvalue()) for u in ups]
        res = read_harness(files)
        if len(res.configs) >= 2 and res.evaluation is not None:  # the whole run: every config, repeat and column
            table = apply_mapping(res.evaluation, "paired", {c: c for c in res.evaluation.columns})
            kind = "paired"
        else:  # one config: its raw samples, when a case has several (else nothing to pair or vote on)
            view = res.samples_view()
            if view.frame is None:
                st.error(md("; ".join([*res.notes, view.reason])), icon=":material/error:")
                return
            roles = {c: c for c in ("case", "sample", "answer", "gold", "correct", "latency_s") if c in view.frame}
            table = apply_mapping(view.frame, "samples", roles)
            kind = "samples"
    except DataError as exc:
        st.error(md(exc), icon=":material/error:")
        return
    st.success(
        md(
            f"{TOOL_NAMES[res.tool]} files: {len(res.configs)} config{'s' if len(res.configs) != 1 else ''} "
            f"({', '.join(res.configs[:8])}{' ...' if len(res.configs) > 8 else ''}), {len(table):,} rows, stored "
            "whole: every config, repeat, score"
            + "".join(f", {w}" for c, w in _RECORDED if c in table.columns)
            + "."
        ),
        icon=":material/check_circle:",
    )
    for note in res.notes:
        st.caption(md(note))
    exports.table(table.head(10), "harness_preview", download=False, hide_index=True)
    stem = f"{', '.join(res.configs[:4])}{' ...' if len(res.configs) > 4 else ''} ({TOOL_NAMES[res.tool]})"
    st.button(
        "Store this evaluation",
        type="primary",
        key="dat_harness_save",
        on_click=_store_harness,
        args=(table, kind, stem),
        help=f"Stored as {fingerprint(table)[:12]}… on this server and chosen as the evaluation in use on every page "
        "(Compare, Sampling, Cost & latency, Planner).",
    )


_RECORDED = (("answer", "answers"), ("gold", "gold answers"), ("latency_s", "latencies"), ("cost", "costs"))


def part_name(name: str, value: str) -> str:
    """The stored name of one part of an upload: the file's name, with the subset's value when it was cut to one.

    >>> part_name("label_counts.csv.gz", "mnli_m"), part_name("preds.csv", "")
    ('label_counts.csv.gz [mnli_m]', 'preds.csv')
    """
    return f"{name} [{value}]" if value else name


def store_parts(parts: list[tuple[str, pd.DataFrame]], kind: str, name: str, mapping: dict[str, str]) -> None:
    """Validate every part (one per kept dataset/split) with the analysis parser, then store each."""
    try:
        for _, table in parts:
            nksummary.validate_and_summarize(table, kind)
    except DataError as exc:
        st.session_state[FLASH] = ("error", f"Nothing was stored: {md(exc)}")
        return
    names = [part_name(name, value) for value, _ in parts]
    ids = []
    for (_, table), stored_name in zip(parts, names, strict=True):
        ds_id = save(table, kind, stored_name, mapping)
        if ds_id is None:
            return
        ids.append(ds_id)
    stored_message(ids, kind, names)


def rename(ds_id: str, name: str) -> None:
    """Rename a stored dataset (display name only; the id and links stay); the outcome is the flash message."""
    try:
        meta = store.rename(ds_id, name)
    except DataError as exc:
        st.session_state[FLASH] = ("error", md(exc))
        return
    st.cache_resource.clear()  # the loaded dataset carries its name
    st.session_state[FLASH] = ("success", f"Renamed dataset `{ds_id[:12]}` to **{md(meta.name)}**.")


def delete(ds_id: str, kind: str) -> None:
    """Delete a stored dataset for everyone (the page offers it only when the server allows it)."""
    if not store.delete_allowed():
        st.session_state[FLASH] = ("error", "Deleting is off on this server (NKP_ALLOW_DELETE is not 1).")
        return
    try:
        store.delete(ds_id)
    except DataError as exc:
        st.session_state[FLASH] = ("error", md(exc))
        return
    if st.query_params.get(kind) == ds_id:
        del st.query_params[kind]
    shared = " (every server that shares this store)" if store.is_shared() else ""
    st.session_state[FLASH] = ("success", f"Deleted dataset `{ds_id[:12]}` from the dataset store{shared}.")
