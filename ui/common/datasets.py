"""The dataset choosers: the built-in samples, stored uploads, and the dataset id carried in the link.

A page asks for a dataset of one kind with :func:`choose_dataset`; the choice is a sidebar selectbox whose value is
kept in the URL as ``?<kind>=<dataset id>`` (a sha256 hex id). A link's id is validated before any file access, and
a link that names no usable dataset is explained in words (with user text escaped by :func:`ui.common.text.md`).

Several app servers may share one store (``NKP_DATA_DIR=s3://...``): nothing here assumes that a dataset was
uploaded through this server. The list of datasets is read from the store on every run (one LIST; descriptions are
cached by ETag in :mod:`nkcore.store`), so an upload through another server is listed at once; a stored dataset's
table is read from the store once per server and then kept in this server's cache (``_load_stored``). A store that
does not answer is said on the page; the link keeps its dataset id (so reloading it once the store answers shows
the dataset), and a dataset already in this server's cache is still shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd
import streamlit as st

from nkcore import io as nkio
from nkcore import store
from nkcore.errors import DataError
from ui.common import exports
from ui.common.text import md, shorten

Kind = Literal["samples", "paired", "ratings", "predictions"]
KINDS: tuple[Kind, ...] = ("samples", "paired", "ratings", "predictions")

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = ROOT / "sample_data"

# The embedded default of each kind: file in sample_data/ and the name users see.
SAMPLES: dict[str, tuple[str, str]] = {
    "samples": ("worked_example_samples.csv", "Sample: worked example (200 cases)"),
    "paired": ("worked_example_paired.csv", "Sample: worked example (n = 1, 3, 5, 7)"),
    "ratings": ("ratings.csv", "Sample: 500 items x 40 ratings"),
    "predictions": ("predictions.csv", "Sample: 3 models on 500 items"),
}

KIND_LABELS: dict[str, str] = {
    "samples": "Raw samples (case, sample, answer, gold)",
    "paired": "Paired results (case, config, correct)",
    "ratings": "Ratings (item, rater, label)",
    "predictions": "Model predictions (item, model, label / probabilities)",
}


@dataclass(frozen=True, slots=True)
class Dataset:
    """A dataset chosen on a page: its id (sha256 hex), name, kind, fingerprint and frame (canonical columns)."""

    id: str
    name: str
    kind: str
    fingerprint: str
    frame: pd.DataFrame
    builtin: bool


@st.cache_resource(show_spinner=False, max_entries=64)
def _load_sample(kind: str) -> Dataset:
    filename, name = SAMPLES[kind]
    frame = nkio.read_table(SAMPLE_DIR / filename)
    fp = nkio.fingerprint(frame)
    return Dataset(id=fp, name=name, kind=kind, fingerprint=fp, frame=frame, builtin=True)


@st.cache_resource(show_spinner=False, max_entries=64)
def _load_stored(ds_id: str) -> Dataset:
    meta, frame = store.get(ds_id)
    return Dataset(id=meta.id, name=meta.name, kind=meta.kind, fingerprint=meta.id, frame=frame, builtin=False)


def load_dataset(kind: str, ds_id: str | None) -> Dataset:
    """The dataset ``ds_id`` of ``kind`` (the built-in sample when ``ds_id`` is None or the sample's id)."""
    sample = _load_sample(kind)
    if ds_id is None or ds_id == sample.id:
        return sample
    ds = _load_stored(store.validate_id(ds_id))
    if ds.kind != kind:
        raise DataError(f"dataset {ds_id[:12]}… holds {ds.kind}, not {kind}")
    return ds


MODEL_COLUMNS: dict[str, str] = {"paired": "config", "predictions": "model"}
"""The column that names the models (or configs) in a dataset of each kind."""


@st.cache_resource(show_spinner=False, max_entries=64)
def model_names(kind: str, ds_id: str | None, limit: int = 50) -> tuple[str, ...]:
    """The models (predictions) or configs (paired results) in a dataset, in order of first appearance, at most
    ``limit``; () for the other kinds. Cached per dataset id (a content hash)."""
    column = MODEL_COLUMNS.get(kind)
    frame = load_dataset(kind, ds_id).frame
    if column is None or column not in frame.columns:
        return ()
    return tuple(str(v) for v in pd.unique(frame[column].dropna())[:limit])


def dataset_options(kind: str) -> dict[str, str]:
    """id -> display name of every dataset of ``kind``: the sample first, then stored uploads (newest first)."""
    return _options(kind)[0]


def _options(kind: str) -> tuple[dict[str, str], str | None]:
    """:func:`dataset_options` and, when the store does not answer, why (then only the sample is offered)."""
    sample = _load_sample(kind)
    options = {sample.id: sample.name}
    try:
        metas = store.list_datasets(kind, strict=True)
    except store.StoreUnreachable as exc:
        return options, str(exc)
    for meta in metas:
        options.setdefault(meta.id, _full_label(meta.name, meta.n_rows, meta.id))
    return options, None


def _full_label(name: str, n_rows: int, ds_id: str) -> str:
    """A stored dataset as the chooser's help names it: name, rows and the start of its id."""
    return f"{name} ({n_rows:,} rows, {ds_id[:8]})"


def _label(ds: Dataset) -> str:
    return _full_label(ds.name, len(ds.frame), ds.id)


def short_label(full: str, ds_id: str, builtin: bool, twin: bool = False) -> str:
    """A dataset's name as the sidebar's chooser box shows it: what fits the box (:data:`SIDEBAR_CHARS`), cut at the
    end, never in the middle (the page's sidebar names it in full under the box, and the chooser's help too); when
    another stored dataset has the same name (``twin``), the start of the id follows it so the two read apart.

    >>> short_label("Sample: worked example (200 cases)", "ab" * 32, True)
    'Sample: worked example (200…'
    >>> short_label("label_counts.csv.gz [mnli_m] (1,599 rows, 0123abcd)", "0123abcd" * 8, False)
    'label_counts.csv.gz [mnli_m]'
    >>> short_label("label_counts.csv.gz [mnli_m] (1,599 rows, 0123abcd)", "0123abcd" * 8, False, twin=True)
    'label_counts.csv.g… · 0123ab'
    """
    if builtin:
        return shorten(full, SIDEBAR_CHARS)
    name = full.rsplit(" (", 1)[0] if full.endswith(f"{ds_id[:8]})") else full
    if not twin:
        return shorten(name, SIDEBAR_CHARS)
    return f"{shorten(name, SIDEBAR_CHARS - 9)} · {ds_id[:6]}"


SIDEBAR_CHARS = 28
"""Characters a sidebar selectbox shows uncut (about 220 px of 14 px text: "Sample: worked example (200 ca" was
cut at 30)."""


def _once_per_run(key: str) -> bool:
    """True the first time ``key`` is asked in this script run of this session (one store message per page)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    token = id(ctx.cursors) if ctx is not None else 0  # a new dict each run (ScriptRunContext.reset)
    slot = f"_nkp_once_{key}"
    if st.session_state.get(slot) == token:
        return False
    st.session_state[slot] = token
    return True


def _store_down(kind: str, raw: str | None, reason: str, options: dict[str, str]) -> str | None:
    """The store does not answer: say so (once per page), and for a link's dataset id say what is shown instead.
    Returns the link's id when this server still has that dataset in its cache (it is then offered and shown)."""
    if _once_per_run("store_down"):
        st.warning(
            "The dataset store does not answer, so stored datasets cannot be listed or read now; nothing in it is "
            f"lost, and they are back as soon as it answers. ({md(reason)})",
            icon=":material/cloud_off:",
        )
    if raw is None or raw in options:
        return raw
    what = KIND_LABELS[kind].split(" (")[0].lower()
    try:
        ds = _load_stored(store.validate_id(raw))  # in this server's cache: no need of the store
    except DataError:
        st.warning(
            f"The link's {what} dataset {md(raw[:12])}… cannot be read now (the dataset store does not answer). "
            f"Showing {md(options[next(iter(options))])} instead; the link keeps the dataset, so opening it again "
            "once the store answers shows it."
        )
        return None
    if ds.kind != kind:
        return None
    options[ds.id] = _label(ds)
    return ds.id


def _explain_bad_link(kind: str, raw: str, options: dict[str, str]) -> None:
    """Say plainly why a dataset id in the link cannot be used (validated before any file access)."""
    if raw in options:
        return
    fallback = md(options[next(iter(options))])
    what = KIND_LABELS[kind].split(" (")[0].lower()
    try:
        store.validate_id(raw)
    except DataError:
        st.warning(
            f"The link's {what} dataset id is not a valid id (ids are 64 lowercase hexadecimal characters); "
            f"showing {fallback} instead."
        )
        return
    other = next((m for m in store.list_datasets() if m.id == raw), None)
    if other is not None:
        held = KIND_LABELS.get(other.kind, other.kind).split(" (")[0].lower()
        st.warning(f"The link's {what} dataset {md(raw[:12])}… holds {held}, not {what}; showing {fallback} instead.")
        return
    when = store.deleted_at(raw)
    if when is not None:
        st.warning(
            f"The link asks for {what} dataset {md(raw[:12])}…, which was deleted from the dataset store on "
            f"{md(when.replace('T', ' at ').replace('+00:00', ' UTC'))}. Showing {fallback} instead; upload the "
            "file again on the Data page (the same file gets the same id, so the link works again)."
        )
        return
    st.warning(
        f"The link asks for {what} dataset {md(raw[:12])}…, which is not on this server (it may have been deleted or "
        f"uploaded elsewhere). Showing {fallback} instead; upload the file on the Data page."
    )


def _items(ds: Dataset) -> frozenset[str]:
    """The item ids of a ratings or predictions table (cached per dataset fingerprint)."""
    from nkcore.kinds.values import item_ids
    from ui.common import cache

    return cache.compute(item_ids, ds)


def stored_choice(kind: Kind) -> str | None:
    """The stored dataset of ``kind`` this view will open (the link's, else the session's last choice), or None when
    it opens the built-in sample: pages use it to open on the user's own data by default."""
    raw = st.query_params.get(kind)
    chosen = str(raw) if raw is not None else st.session_state.get(f"_nkp_chosen_{kind}")
    if chosen is None:
        return None
    try:
        return None if chosen == _load_sample(kind).id else store.validate_id(chosen)
    except DataError:
        return None


def match_partner(kind: Kind, partner: Dataset) -> str | None:
    """Before :func:`choose_dataset` of ``kind``: when the dataset it would open cannot go with ``partner`` (some of
    its items are not the partner's, as predictions left on the built-in sample beside uploaded ratings: "500 items
    in the predictions are not in the ratings"), choose the one of ``kind`` that fits (all its items are the
    partner's) and shares the most items, and return the sentence that says which (shown by the caller); None when
    nothing changed (a choice that fits is kept) or none fits (the caller then plans from a prior).
    """
    options, down = _options(kind)
    if down is not None:
        return None
    memory = f"_nkp_chosen_{kind}"
    sample_id = next(iter(options))
    raw = st.query_params.get(kind)
    current = str(raw) if raw is not None and raw in options else st.session_state.get(memory, sample_id)
    if current not in options:
        current = sample_id
    wanted = _items(partner)
    if not wanted:
        return None

    def fit(ds_id: str) -> tuple[bool, int]:
        """(every item of it is one of the partner's, items shared): predictions for unrated items are refused."""
        items = _items(load_dataset(kind, ds_id))
        return bool(items) and items <= wanted, len(items & wanted)

    try:
        if fit(current)[0]:
            return None
    except DataError:
        return None
    best: tuple[tuple[bool, int], str] | None = None
    for ds_id in options:
        if ds_id == current:
            continue
        try:
            score = fit(ds_id)
        except DataError:
            continue
        if score[0] and (best is None or score > best[0]):  # only one whose every item is rated can be resampled
            best = (score, ds_id)
    if best is None:
        return None
    (_, n), ds_id = best
    st.session_state[memory] = ds_id
    if ds_id == sample_id:
        st.query_params.pop(kind, None)
    else:
        st.query_params[kind] = ds_id
    what = KIND_LABELS[kind].split(" (")[0].lower()
    return (
        f"The {what} chosen before are not for the items of {md(partner.name)}, so {md(options[ds_id])} is used: the "
        f"{what} sharing the most items with it ({n:,}). Choose others in the sidebar."
    )


def choose_dataset(kind: Kind, label: str | None = None) -> Dataset:
    """A sidebar selectbox of the datasets of ``kind``; the choice is in the URL as ``?<kind>=<id>``.

    The choice is recorded for this run's downloads (:func:`ui.common.exports.note_dataset`): name, id, kind and models.

    The dataset id is kept in the URL by hand rather than with ``bind="query-params"``, because a bound selectbox
    stores its *displayed* label in the URL, and the link must carry the id. The URL wins when it names a dataset
    on this server; otherwise the page says why and falls back to the session's last choice or the sample. The
    choice is remembered across page switches for the session.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    options, down = _options(kind)
    sample_id = next(iter(options))
    widget_key = f"_nkp_ds_{kind}"
    memory = f"_nkp_chosen_{kind}"
    raw = st.query_params.get(kind)
    kept = None  # the link's dataset id, kept in the URL while the store does not answer
    if down is not None:
        cached = _store_down(kind, None if raw is None else str(raw), down, options)
        if raw is not None and cached is None:
            kept, raw = str(raw), None
    elif raw is not None and raw not in options:
        _explain_bad_link(kind, str(raw), options)
        del st.query_params[kind]
        raw = None
    ids = list(options)
    wanted = raw if raw is not None else st.session_state.get(memory, sample_id)
    if wanted not in options:
        wanted = sample_id
    st.session_state[widget_key] = wanted

    def _on_change() -> None:
        new = st.session_state[widget_key]
        if new == sample_id:
            st.query_params.pop(kind, None)
        else:
            st.query_params[kind] = new

    def _stem(i: object) -> str:
        return str(options.get(str(i), i)).rsplit(" (", 1)[0]

    names = [_stem(i) for i in ids]
    chosen = st.sidebar.selectbox(
        label or KIND_LABELS[kind],
        ids,
        format_func=lambda i: short_label(str(options.get(i, i)), str(i), i == sample_id, names.count(_stem(i)) > 1),
        key=widget_key,
        on_change=_on_change,
        help=f"Chosen: {md(options.get(wanted, wanted))}. Upload your own on the Data page. The choice is part of "
        "the link.",
    )
    if kept is None:
        st.session_state[memory] = chosen
    if chosen != sample_id:
        st.query_params[kind] = chosen
    elif kept is None:  # (while the store does not answer, the link keeps its dataset for a later visit)
        st.query_params.pop(kind, None)
    ds = load_dataset(kind, chosen)
    exports.note_dataset(ds.name, ds.id, ds.kind, model_names(kind, chosen), frame=ds.frame)
    return ds
