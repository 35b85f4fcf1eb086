"""The Data page's upload flows: subsets of a file, an item key from several columns, label counts, duplicates.

The rules live in :mod:`nkcore.kinds` (subsets, item keys, duplicates, label counts; the CLI uses the same ones
and they are re-exported here); the ``*_chooser`` functions are the widgets that let the user apply them. Text from
the file (column names, values) is escaped with :func:`ui.common.text.md`.

- A file that holds several datasets or splits (a column named ``dataset``, ``split``, ``task`` or ``subset`` with
  2 to :data:`MAX_SUBSETS` values) can be cut to one value, or stored as one dataset per value. The value chosen by
  default is the one sharing the most items with a stored dataset of another kind (label counts open on the subset
  the stored predictions cover), and a caption says why (:func:`matching_subset`).
- An item key can be built from several columns (LeWiDi's ``dataset`` + ``item_id``): their text joined by " / ".
- A label-count file (an item column plus ``count_<label>`` columns: ChaosNLI, CIFAR-10H) is kept as counts:
  ``item`` + one ``count_<label>`` column per label (:func:`nkcore.kinds.detect_kind`, layout ``counts``).
- Repeated (item, rater) rows are counted, three are shown, and the likely causes are named; the user keeps the
  first, keeps the last, or refuses the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from nkcore import store
from nkcore.common.formatting import plural
from nkcore.datafiles.choose import preferred_guess
from nkcore.errors import DataError
from nkcore.kinds import (
    KEY_COLUMN,
    MAX_SUBSETS,
    ROLE_WORDS,
    SUBSET_NAMES,
    Duplicates,
    detect_kind,
    drop_duplicates,
    duplicates,
    kind_columns,
    probability_role,
    subset_columns,
    subset_rows,
    subset_values,
    to_text,
    with_key,
)
from ui.common import datasets, exports
from ui.common.text import md

__all__ = [
    "KEY_COLUMN",
    "MAX_SUBSETS",
    "SUBSET_NAMES",
    "Duplicates",
    "SubsetChoice",
    "SubsetMatch",
    "drop_duplicates",
    "duplicates",
    "duplicates_chooser",
    "item_key_chooser",
    "mapping_editor",
    "matching_subset",
    "stored_items",
    "subset_chooser",
    "subset_columns",
    "subset_rows",
    "subset_values",
    "with_key",
]

NONE = "(not in the file)"
KEEP_ONE, STORE_EACH, ALL_ROWS = "keep one", "store each", "all rows"
DUP_CHOICES = ("refuse", "first", "last")


@dataclass(frozen=True, slots=True)
class SubsetChoice:
    """What the subset chooser decided: ``column`` (or None), ``mode`` (keep one / store each / all rows), and the
    (value, rows) parts to store: one part, or one per value."""

    column: str | None
    mode: str
    parts: tuple[tuple[str, pd.DataFrame], ...]


@dataclass(frozen=True, slots=True)
class SubsetMatch:
    """The subset chosen by default: its ``value``, the stored dataset it shares the most items with (``name``,
    ``kind``, ``shared`` items; empty and 0 when none shares any) and ``why`` in words."""

    value: str
    name: str
    kind: str
    shared: int
    why: str


ITEM_COLUMNS = {"ratings": "item", "predictions": "item", "paired": "case", "samples": "case"}
"""The column holding the item (or case) ids in a stored dataset of each kind."""


def stored_items(kinds: tuple[str, ...]) -> list[tuple[str, str, frozenset[str]]]:
    """(name, kind, item ids as text) of every stored dataset of ``kinds``, newest first; a dataset that cannot be
    read is left out (the Data page's stored list says what is wrong with it)."""
    out = []
    for meta in store.list_datasets():
        if meta.kind not in kinds:
            continue
        try:
            frame = datasets.load_dataset(meta.kind, meta.id).frame
        except DataError:
            continue
        column = ITEM_COLUMNS[meta.kind]
        if column in frame.columns:
            out.append((meta.name, meta.kind, frozenset(to_text(frame[column]).dropna().tolist())))
    return out


def matching_subset(
    frame: pd.DataFrame, column: str, values: list[str], stored: list[tuple[str, str, frozenset[str]]]
) -> SubsetMatch:
    """The subset of ``frame`` (the rows whose ``column`` is one of ``values``) sharing the most item ids with one
    of the ``stored`` datasets (:func:`stored_items`), the first value when none shares any; the sentence says why.

    The item column is the one :func:`nkcore.kinds.detect_kind` finds (item, or case for paired results).

    >>> f = pd.DataFrame({"subset": ["a", "a", "b", "b"], "uid": ["1", "2", "3", "4"], "count_x": [1, 2, 3, 4]})
    >>> m = matching_subset(f, "subset", ["a", "b"], [("preds.csv", "predictions", frozenset({"3", "4", "9"}))])
    >>> m.value, m.shared
    ('b', 2)
    >>> matching_subset(f, "subset", ["a", "b"], []).value
    'a'
    """
    first = values[0]
    guess = detect_kind(frame)
    item = guess.mapping.get("item") or guess.mapping.get("case")
    if item is None or item not in frame.columns or not stored:
        why = (
            "Nothing of another kind is stored yet to match the subsets against"
            if not stored
            else "No item column found in this file to match the stored datasets against"
        )
        return SubsetMatch(first, "", "", 0, f"{why}: the first, {first}, is chosen.")
    text = to_text(frame[item])
    by_value = to_text(frame[column])
    best = SubsetMatch(first, "", "", 0, "")
    for value in values:
        ids = set(text[(by_value == value).to_numpy()].dropna().tolist())
        for name, kind, stored_ids in stored:
            n = len(ids & stored_ids)
            if n > best.shared:
                best = SubsetMatch(value, name, kind, n, "")
    if best.shared == 0:
        return SubsetMatch(
            first,
            "",
            "",
            0,
            f"None of the stored datasets shares items with these subsets: the first, {first}, is chosen.",
        )
    why = f"Chosen because it shares the most items ({best.shared:,}) with the stored {best.kind} {best.name}."
    return SubsetMatch(best.value, best.name, best.kind, best.shared, why)


def _matching_subset(frame: pd.DataFrame, column: str, values: list[str], token: str) -> SubsetMatch:
    """:func:`matching_subset` against the stored datasets of the other kinds (ratings are matched with predictions
    and paired results, and so on), once per upload, column and list of stored datasets."""
    kind = detect_kind(frame).kind
    others = tuple(k for k in ITEM_COLUMNS if k != kind)
    ids = tuple(m.id for m in store.list_datasets() if m.kind in others)
    slot = f"_dat_submatch_{token}"
    memo = st.session_state.get(slot)
    if memo is None or memo[0] != (column, ids):
        memo = ((column, ids), matching_subset(frame, column, values, stored_items(others) if ids else []))
        st.session_state[slot] = memo
    match: SubsetMatch = memo[1]
    return match


def subset_chooser(frame: pd.DataFrame, token: str) -> SubsetChoice:
    """Offer to keep one dataset/split of the file, store each as its own dataset, or keep all rows."""
    columns = subset_columns(frame)
    if not columns:
        return SubsetChoice(None, ALL_ROWS, (("", frame),))
    with st.container(border=True):
        st.markdown(
            "**This file holds several datasets or splits.** Keep one of them, store each as its own dataset, or "
            "keep all rows (then build the item key from several columns below if item ids repeat across them)."
        )
        left, mid, right = st.columns([1, 1, 2])
        column = left.selectbox("Column naming them", columns, key=f"_dat_subcol_{token}")
        values = subset_values(frame, column)
        mode = mid.radio(
            "Use",
            [KEEP_ONE, STORE_EACH, ALL_ROWS],
            format_func={
                KEEP_ONE: "one of them",
                STORE_EACH: f"each as its own dataset ({len(values)})",
                ALL_ROWS: "all rows as one dataset",
            }.get,
            key=f"_dat_submode_{token}",
        )
        if mode == KEEP_ONE:
            match = _matching_subset(frame, column, values, token)
            value = right.selectbox(
                f"Keep the rows whose {column} is",
                values,
                index=values.index(match.value),
                format_func=lambda v: f"{v} ({int((to_text(frame[column]) == v).sum()):,} rows)",
                key=f"_dat_subval_{token}",
            )
            if value == match.value:
                right.caption(md(match.why))
            return SubsetChoice(column, mode, ((value, subset_rows(frame, column, value)),))
        if mode == STORE_EACH:
            right.caption(md(f"{plural(len(values), 'dataset')} will be stored: {', '.join(values[:12])}"))
            return SubsetChoice(column, mode, tuple((v, subset_rows(frame, column, v)) for v in values))
    return SubsetChoice(column, ALL_ROWS, (("", frame),))


def item_key_chooser(frame: pd.DataFrame, token: str) -> pd.DataFrame:
    """Offer an item key built from several columns; the frame gains :data:`KEY_COLUMN` when two are chosen."""
    picked = st.multiselect(
        "Build the item key from several columns (optional: when item ids repeat across datasets or splits)",
        [str(c) for c in frame.columns if str(c) != KEY_COLUMN],
        key=f"_dat_key_{token}",
        help=f"The chosen columns' values joined by ' / ' become a new column {KEY_COLUMN}, chosen as the item.",
    )
    if len(picked) < 2:
        if picked:
            st.caption("Choose at least two columns to build a key.")
        return frame
    return with_key(frame, picked)


def duplicates_chooser(table: pd.DataFrame, token: str) -> pd.DataFrame | None:
    """Explain repeated (item, rater) rows and let the user keep the first, keep the last, or refuse the file.

    Returns the table to use (unchanged when there are no repeats), or None when the user refuses it.
    """
    dup = duplicates(table)
    if dup is None:
        return table
    st.warning(
        f"{plural(dup.n_rows, 'row')} repeat an (item, rater) pair already in the file ({plural(dup.n_pairs, 'pair')} "
        "repeated); the first three rows involved are below. Likely causes: several datasets or splits in one file "
        "(keep one of them, or build the item key from several columns, above); a rater who submitted twice (keep "
        "the first or the last rating); or a multi-select question, one row per ticked option (then the rows are "
        "not one label per rating, and the file should be refused or split into one yes/no question per option).",
        icon=":material/content_copy:",
    )
    exports.table(dup.examples, f"duplicates_{token}", download=False, hide_index=True)
    choice = st.radio(
        "Repeated (item, rater) rows",
        DUP_CHOICES,
        format_func={
            "refuse": "refuse the file",
            "first": "keep the first row of each pair",
            "last": "keep the last row of each pair",
        }.get,
        horizontal=True,
        key=f"_dat_dups_{token}",
    )
    if choice == "refuse":
        return None
    return drop_duplicates(table, choice)


def mapping_editor(frame: pd.DataFrame, kind: str, token: str) -> dict[str, str]:
    """Selectboxes pre-filled with the detected column of each role; the user corrects them.

    An item key built from several columns (:data:`KEY_COLUMN`) is the item's default; for predictions the model
    column is the one that makes (item, model) unique (ChaosNLI's ``model_run``); the guess is
    :func:`nkcore.datafiles.choose.preferred_guess` (the command line detects with the same ``detect_kind``).
    """
    guess = preferred_guess(frame, kind)
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
