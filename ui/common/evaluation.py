"""The evaluation in use: one choice in the sidebar, read by Compare, Sampling, Cost & latency and the Planner.

An evaluation (:mod:`nkcore.evaluation`) is a stored paired-results dataset (every config, repeat, score, answer,
latency and cost a run recorded), a stored raw-samples dataset (one config), or the built-in example. It is chosen
once, in the sidebar, and carried in the link as ``?eval=<dataset id>``; old links that name ``?paired=`` or
``?samples=`` open that dataset as the evaluation (the link is rewritten to ``?eval=``). Pages never pick their own
copy: Compare and the Planner read the paired view (:func:`paired_dataset`), Sampling and Cost & latency one
config's samples (:func:`samples_dataset`, with a config picker bound to the link, ``smp_config`` / ``lat_config``).
Every page says in its first line which data and which config it speaks of (:func:`say_what`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from nkcore import evaluation as nkeval
from nkcore import store
from nkcore.errors import DataError
from ui.common import cache, datasets, exports, page
from ui.common.datasets import Dataset
from ui.common.text import md

__all__ = [
    "EVAL_KEY",
    "Evaluation",
    "choose_evaluation",
    "config_picker",
    "configs_table",
    "in_use",
    "in_use_is_builtin",
    "one_config",
    "paired_dataset",
    "paired_in_use",
    "samples_dataset",
    "say_what",
    "use",
]

EVAL_KEY = "eval"
_LEGACY = ("paired", "samples")  # old link keys, read as the evaluation
_BUILTIN = "example"  # the built-in example's option (no dataset id)
_MEMORY = "_nkp_chosen_eval"
_WIDGET = "_nkp_ds_eval"
_CONFIG_MEMORY = "_nkp_chosen_config"
_IN_USE = "_nkp_eval_in_use"
_KINDS: dict[str, str] = {}  # stored id -> its kind (paired or samples), filled by each listing
BUILTIN_NAME = "the built-in example (worked example: 200 cases, n = 1, 3, 5, 7)"


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The evaluation in use: ``id`` ("" for the built-in example), ``name``, the stored ``source`` dataset
    (paired results or raw samples; the built-in example's paired results), its ``configs`` (() for raw samples:
    one config) and whether it is the ``builtin`` example."""

    id: str
    name: str
    source: Dataset
    configs: tuple[str, ...]
    builtin: bool


def _options() -> tuple[dict[str, str], str | None]:
    """option -> full display name: the built-in example first, then stored paired results and raw samples, newest
    first; and why the store does not answer (then only the example is offered)."""
    options = {_BUILTIN: "Built-in example"}
    try:
        metas = store.list_datasets(strict=True)
    except store.StoreUnreachable as exc:
        return options, str(exc)
    metas = [m for m in metas if m.kind in _LEGACY]
    names = Counter(m.name for m in metas)
    for m in metas:
        options.setdefault(m.id, datasets.short_label(m.name, m.id, False, twin=names[m.name] > 1))
        _KINDS[m.id] = m.kind
    return options, None


def _link_value() -> str | None:
    """The evaluation the link names: ``?eval=``, else an old link's ``?paired=`` / ``?samples=`` (moved to
    ``?eval=``)."""
    raw = st.query_params.get(EVAL_KEY)
    if raw is not None:
        return str(raw)
    for key in _LEGACY:
        old = st.query_params.get(key)
        if old is not None:
            st.query_params.pop(key, None)
            st.query_params[EVAL_KEY] = str(old)
            return str(old)
    return None


def _bad_link(raw: str, fallback: str) -> None:
    """Say plainly why the link's evaluation cannot be opened (the id is validated before any file access)."""
    try:
        store.validate_id(raw)
    except DataError:
        st.warning(
            "The link's evaluation id is not a valid id (ids are 64 lowercase hexadecimal characters); showing "
            f"{md(fallback)} instead."
        )
        return
    other = next((m for m in store.list_datasets() if m.id == raw), None)
    if other is not None:
        st.warning(
            f"The link names dataset {md(raw[:12])}…, which holds {md(other.kind)}, not an evaluation (paired results "
            f"or raw samples); showing {md(fallback)} instead."
        )
        return
    when = store.deleted_at(raw)
    gone = (
        f"was deleted from the dataset store on {md(when.replace('T', ' at ').replace('+00:00', ' UTC'))}"
        if when is not None
        else "is not on this server (it may have been deleted, or uploaded elsewhere)"
    )
    st.warning(
        f"The link asks for evaluation {md(raw[:12])}…, which {gone}. Showing {md(fallback)} instead; upload the "
        "file again on the Data page (the same file gets the same id, so the link works again)."
    )


def choose_evaluation() -> Evaluation:
    """The sidebar's "Evaluation in use" chooser (full names; the start of the id where two names are equal),
    bound to the link as ``?eval=``. A link naming no usable evaluation says why and opens the session's last
    choice or the example; a store that does not answer is said once and the example is offered."""
    options, down = _options()
    raw = _link_value()
    if down is not None:
        st.warning(
            "The dataset store does not answer, so stored evaluations cannot be listed or read now; nothing in it is "
            f"lost. Showing the built-in example. ({md(down)})",
            icon=":material/cloud_off:",
        )
    elif raw is not None and raw not in options:
        _bad_link(raw, options[_BUILTIN])
        st.query_params.pop(EVAL_KEY, None)
        raw = None
    wanted = raw if raw is not None else st.session_state.get(_MEMORY, _BUILTIN)
    if wanted not in options:
        wanted = _BUILTIN
    st.session_state[_WIDGET] = wanted

    def _on_change() -> None:
        new = st.session_state[_WIDGET]
        if new == _BUILTIN:
            st.query_params.pop(EVAL_KEY, None)
        else:
            st.query_params[EVAL_KEY] = new

    chosen = str(
        st.sidebar.selectbox(
            "Evaluation in use",
            list(options),
            format_func=lambda i: options.get(str(i), str(i)),
            key=_WIDGET,
            on_change=_on_change,
            help="The run every page reads (Compare, Sampling, Cost & latency, Planner). Upload your own on the Data "
            "page; the choice is part of the link.",
        )
    )
    if down is None:
        st.session_state[_MEMORY] = chosen
        if chosen == _BUILTIN:
            st.query_params.pop(EVAL_KEY, None)
        else:
            st.query_params[EVAL_KEY] = chosen
    try:
        ev = _load(chosen)
    except DataError as exc:  # listed, but its table cannot be read now (a store past its deadline): say so
        st.warning(f"The evaluation chosen cannot be read now: {md(exc)} Showing the built-in example instead; the link "
                   "keeps the evaluation, so opening it again later shows it.", icon=":material/cloud_off:")  # fmt: skip
        ev = _load(_BUILTIN)
    st.session_state[_IN_USE] = ev
    # the box shows what fits its width (cut at the end, the id after a name two datasets share): the whole name
    # is said under it
    configs = f"{len(ev.configs)} configs" if len(ev.configs) >= 2 else "one config"
    st.sidebar.caption(f"{md(ev.name)} · {configs}" + ("" if ev.builtin else f" · `{ev.id[:8]}`"))
    return ev


def use(ds_id: str) -> None:
    """Make the stored dataset ``ds_id`` the evaluation in use (the link and this session's memory): what the Data
    page does the moment an evaluation is stored."""
    st.query_params[EVAL_KEY] = ds_id
    st.session_state[_MEMORY] = ds_id
    for key in _LEGACY:
        st.query_params.pop(key, None)


def in_use() -> Evaluation:
    """The evaluation chosen in this page run (:func:`choose_evaluation` draws the chooser when it has not run)."""
    ev = st.session_state.get(_IN_USE)
    return ev if isinstance(ev, Evaluation) else choose_evaluation()


def in_use_is_builtin() -> bool:
    """Whether the evaluation in use is the built-in example."""
    return in_use().builtin


def paired_in_use() -> Dataset:
    """The paired results of the evaluation in use; a DataError (said on the page) for the samples of one config."""
    ev = in_use()
    ds = paired_dataset(ev)
    if ds is None:
        raise DataError(
            f"{ev.name} holds the samples of one config; this section reads two or more configs run on the same "
            "cases. Choose another evaluation in the sidebar, or upload the runs of the configs on the Data page."
        )
    return ds


def _load(option: str) -> Evaluation:
    if option == _BUILTIN:
        ds = datasets.load_dataset("paired", None)
        return Evaluation("", BUILTIN_NAME, ds, (), True)
    kind = _KINDS.get(option, "paired")  # as the listing of this run said (a stored id's kind never changes)
    ds = datasets.load_dataset(kind, option)
    configs = cache.compute(nkeval.config_names, ds) if kind == "paired" else ()
    return Evaluation(ds.id, ds.name, ds, configs, False)


def paired_dataset(ev: Evaluation) -> Dataset | None:
    """The paired results Compare and the Planner read: the evaluation itself when it holds two or more configs
    (the built-in example's paired results), None for raw samples of one config (the caller says so)."""
    if ev.source.kind != "paired":
        return None
    configs = ev.configs or cache.compute(nkeval.config_names, ev.source)  # the built-in example's too
    exports.note_dataset(ev.source.name, ev.source.id, "paired", configs, frame=ev.source.frame)
    return ev.source


def _view_id(ev: Evaluation, config: str) -> str:
    return hashlib.sha256(f"{ev.source.fingerprint}\x00samples\x00{config}".encode()).hexdigest()


def config_picker(ev: Evaluation, key: str) -> str | None:
    """One config of a multi-config evaluation, chosen in a selectbox bound to the link (``key``: ``smp_config`` or
    ``lat_config``); the last choice is remembered across pages. None for one-config evaluations."""
    if len(ev.configs) < 2:
        return None
    options = list(ev.configs)
    if st.session_state.get(key) not in options:
        st.session_state.pop(key, None)
        last = st.session_state.get(_CONFIG_MEMORY)
        if last in options and key not in st.query_params:
            st.session_state[key] = last
    common: dict[str, Any] = {
        "label": f"Config ({len(options)} in this evaluation)",
        "options": options,
        "help": "This page speaks of one config at a time; the table of all configs is at the end of the page.",
    }
    # one literal key per page (the link table, ui.common.links, is checked against the keys written here)
    if key == "smp_config":
        config = str(st.selectbox(**common, key="smp_config", bind="query-params"))
    else:
        config = str(st.selectbox(**common, key="lat_config", bind="query-params"))
    st.session_state[_CONFIG_MEMORY] = config
    return config


def samples_dataset(ev: Evaluation, config: str | None) -> tuple[Dataset | None, nkeval.SamplesView | None]:
    """One config's raw samples as a dataset Sampling and Cost & latency read (fingerprint: the evaluation's and
    the config's), and the view with its reason and notes; (None, view) when that config cannot be voted on.
    The built-in example and stored raw samples are returned as they are."""
    if ev.builtin:
        ds = datasets.load_dataset("samples", None)
    elif ev.source.kind == "samples":
        ds = ev.source
    else:
        first = ev.configs[0] if ev.configs else None
        view = cache.compute(nkeval.samples_view, ev.source, config=config or first)
        if view.frame is None:
            return None, view
        vid = _view_id(ev, view.config)
        name = f"{ev.name}: {view.config}"
        ds = Dataset(id=ev.id, name=name, kind="samples", fingerprint=vid, frame=view.frame, builtin=False)
        exports.note_dataset(name, ev.id, "samples", (view.config,), frame=view.frame)
        return ds, view
    exports.note_dataset(ds.name, ds.id, "samples", (), frame=ds.frame)
    return ds, None


def one_config(
    key: str, when_stopped: Callable[[Evaluation], object] | None = None
) -> tuple[Evaluation, str | None, Dataset]:
    """The top of Sampling (``key`` ``smp_config``) and Cost & latency (``lat_config``): the evaluation in use, the
    page's first line, the config picker, and one config's samples with the notes on how they were read. When that
    config cannot be voted on, the reason, ``when_stopped(ev)`` (what the page can still show across configs: Cost's
    frontier) and every config side by side are shown, and the page stops there."""
    ev = choose_evaluation()
    first_line = st.container()
    config = config_picker(ev, key)
    with first_line:
        say_what(ev, config)
    ds, view = samples_dataset(ev, config)
    if ds is None:
        st.info(md(view.reason if view is not None else ""), icon=":material/info:")
        if when_stopped is not None:
            when_stopped(ev)
        configs_table(ev, config)
        page.finish_page()
        st.stop()
    for note in view.notes if view is not None else ():
        st.caption(md(note))
    return ev, config, ds


def configs_table(ev: Evaluation, current: str | None = None) -> None:
    """Every config of a multi-config evaluation side by side (:func:`nkcore.evaluation.config_table`): cases,
    samples per case, single-call accuracy (the one definition every page uses), the run's price per call and
    median latency; ``current`` is marked. Nothing for one-config evaluations."""
    if len(ev.configs) < 2:
        return
    table = cache.compute(nkeval.config_table, ev.source)
    shown = pd.DataFrame(
        {
            "config": [("▶ " if c == current else "") + c for c in table["config"]],
            "cases": table["cases"],
            "samples per case": [
                f"{a}" if a == b else f"{a}-{b}"
                for a, b in zip(table["samples_min"], table["samples_max"], strict=True)
            ],
            "single-call accuracy": [f"{v:.1%}" for v in table["single_call_accuracy"]],
            "price per call ($)": ["not recorded" if pd.isna(v) else f"{v:.4g}" for v in table["price_per_call"]],
            "median latency (s)": ["not recorded" if pd.isna(v) else f"{v:.2f}" for v in table["median_latency_s"]],
        }
    )
    with st.expander(f"All {len(ev.configs)} configs of this evaluation side by side", icon=":material/table_rows:"):
        st.caption(
            "Single-call accuracy: the mean over cases of each case's share of right samples (the vote curve at "
            "n = 1, and the accuracy Compare tests). Price and latency as the run recorded them."
        )
        exports.table(shown, "configs", hide_index=True, width="stretch")


def say_what(ev: Evaluation, config: str | None = None) -> None:
    """The page's first line: the data it speaks of ("the built-in example" when it is) and the config(s)."""
    if ev.builtin:
        data = f"**Data:** {BUILTIN_NAME}. Upload your own run on the Data page and it is used here."
    else:
        data = f"**Data:** {md(ev.name)} (`{ev.id[:8]}`)"
    if config is not None:
        data += f" · **config:** {md(config)} ({ev.configs.index(config) + 1} of {len(ev.configs)})"
    elif len(ev.configs) >= 2:
        shown = ", ".join(md(c) for c in ev.configs[:6]) + (" …" if len(ev.configs) > 6 else "")
        data += f" · **{len(ev.configs)} configs:** {shown}"
    st.caption(data)
