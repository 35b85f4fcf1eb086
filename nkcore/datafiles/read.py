"""A data file read as every subcommand reads it: kind and columns detected, ``--map`` roles forced, nested ratings
made flat, ``--subset`` / ``--item-key`` applied, repeated (item, rater) / (item, model) rows refused with their
cause or kept once (``--keep``).

``read_ratings`` / ``read_ratings_counts`` / ``read_ratings_table`` read ratings (one row per rating, label counts,
or ratings nested per item); ``read_predictions_table`` reads predictions beside them. The helpers without a
leading underscore (``read_file``, ``usable_guess``, ``counts_ratings``, ``unique_pairs``) serve
:mod:`nkcore.datafiles.inspect` too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from nkcore.datafiles.choose import detected_kind
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import (
    KEY_COLUMN,
    ROLE_WORDS,
    KindGuess,
    apply_mapping,
    detect_kind,
    drop_duplicates,
    duplicates,
    duplicates_advice,
    flatten_nested,
    key_columns,
    parse_item_key,
    parse_subset,
    show_names,
    subset_rows,
    with_key,
)
from nkcore.kinds.columns import COUNT_PREFIX
from nkcore.kinds.mapping import no_rater_advice
from nkcore.ratings import Ratings, ratings_from_counts, ratings_from_frame

__all__ = [
    "ReadFile",
    "counts_ratings",
    "read_file",
    "read_predictions_table",
    "read_ratings",
    "read_ratings_counts",
    "read_ratings_table",
    "unique_pairs",
    "usable_guess",
]


def _few_values(col: pd.Series) -> bool:
    """A column that could hold labels: 2 to 20 distinct values."""
    try:
        return 2 <= col.nunique() <= 20
    except TypeError:  # unhashable cells
        return False


def usable_guess(frame: pd.DataFrame, guess: KindGuess, forced: dict[str, str], kind_given: bool) -> KindGuess:
    """The guess with the roles forced by --map, or a refusal naming what is missing and what to pass."""
    columns = [str(c) for c in frame.columns]
    for role, column in forced.items():
        if column not in columns:
            raise DataError(
                f"--map {role + '=' + column!r}: the file has no column {column!r}; its columns are "
                f"{', '.join(columns[:20])}{' ...' if len(columns) > 20 else ''}"
            )
    mapping = {**guess.mapping, **forced}
    missing = [m for m in guess.missing if not set(m.replace("p_<label> columns", "p_").split(" or ")) & set(mapping)]
    if missing and not forced and not kind_given and guess.confidence == 0:
        raise DataError(f"cannot tell what this file holds: {guess.reason}. Pass --kind and --map ROLE=COLUMN")
    advice = no_rater_advice(frame, mapping) if guess.kind == "ratings" and missing == ["rater"] else None
    if advice is not None:
        raise DataError(advice)
    if missing:
        words = "; ".join(ROLE_WORDS.get(m, m) for m in missing)
        hint = ""
        if "label" in missing:
            few = [c for c in columns if c not in mapping.values() and _few_values(frame[c])]
            hint = (
                f" (e.g. --map label={few[0]}; columns with few distinct values: {show_names(few[:6])})" if few else ""
            )
        raise DataError(
            f"cannot use this file as {guess.kind} data: no column found for {words}. Columns: "
            f"{show_names(columns)}. Pass --map ROLE=COLUMN{hint}, or --kind"
        )
    return KindGuess(guess.kind, mapping, guess.confidence, guess.reason, (), guess.layout)


@dataclass(frozen=True, slots=True)
class ReadFile:
    """A file read for ``data``: ``frame`` the table to detect (flattened, one subset, with the item key), ``whole``
    the table before the subset was cut (its subset columns name the likely cause of repeated rows), ``forced``
    roles the flags fix (the item key), ``note`` what was done to the file ("" when nothing)."""

    frame: pd.DataFrame
    whole: pd.DataFrame
    forced: dict[str, str]
    note: str


def read_file(path: Path, subset: str | None, item_key: str | None, flatten: bool = True) -> ReadFile:
    """Read a file; ratings nested per item made flat (:func:`nkcore.kinds.flatten_nested`); ``--subset`` and
    ``--item-key`` applied (:mod:`nkcore.kinds.subsets`)."""
    frame = read_table(path)
    notes: list[str] = []
    flat = flatten_nested(frame, path.name) if flatten else None
    if flat is not None:
        frame = flat.frame
        notes.append(flat.reason)
    whole = frame
    if subset is not None:
        column, value = parse_subset(subset, frame)
        frame = subset_rows(frame, column, value)
        notes.append(f"subset {column} = {value} ({len(frame):,} of {len(whole):,} rows)")
    forced: dict[str, str] = {}
    if item_key is not None:
        columns = parse_item_key(item_key)
        frame = with_key(frame, columns)
        forced["item"] = KEY_COLUMN
        notes.append(f"item <- {KEY_COLUMN} ({' / '.join(columns)})")
    return ReadFile(frame, whole, forced, "; ".join(notes))


def counts_ratings(frame: pd.DataFrame, guess: KindGuess, forced: dict[str, str]) -> Ratings:
    """The ratings of a label-count table detected as such (layout ``counts``)."""
    labels = {role[len(COUNT_PREFIX) :]: col for role, col in guess.mapping.items() if role.startswith(COUNT_PREFIX)}
    return ratings_from_counts(frame, forced.get("item", guess.mapping["item"]), labels)


def unique_pairs(table: pd.DataFrame, kind: str, got: ReadFile, item: str | None, keep: str | None) -> pd.DataFrame:
    """The table with repeated (item, rater) / (item, model) rows kept once (``--keep``), or a refusal that says
    how many, the likely cause and the flag to pass."""
    columns = key_columns(kind)
    dup = duplicates(table, columns) if columns else None
    if dup is None or columns is None:
        return table
    if keep is None:
        keyed = item == KEY_COLUMN
        raise DataError(duplicates_advice(dup, got.whole, None if keyed else item, kind, keyed))
    return drop_duplicates(table, keep, columns)


def read_ratings(
    path: Path, subset: str | None = None, item_key: str | None = None, keep: str | None = None
) -> tuple[Ratings, str]:
    """A ratings file (one row per rating, label counts, or ratings nested per item) as :class:`Ratings`, and the
    file's fingerprint; ``subset`` (``COLUMN=VALUE`` or ``VALUE``), ``item_key`` (``COL1,COL2``) and ``keep``
    (``first`` / ``last`` of repeated (item, rater) rows) as in ``data FILE``."""
    got = read_file(path, subset, item_key)
    guess = detected_kind(got.frame, "ratings", got.forced)
    if guess.layout == "counts":
        return counts_ratings(got.frame, guess, got.forced), fingerprint(got.frame)
    guess = usable_guess(got.frame, guess, got.forced, True)
    table = apply_mapping(got.frame, "ratings", guess.mapping)
    table = unique_pairs(table, "ratings", got, guess.mapping.get("item"), keep)
    return ratings_from_frame(table), fingerprint(got.frame)


def read_ratings_counts(
    path: Path, subset: str | None = None, item_key: str | None = None, keep: str | None = None
) -> pd.DataFrame:
    """:func:`read_ratings` as a label-count table: ``item`` + one ``count_<label>`` column per label."""
    return _counts_frame(read_ratings(path, subset, item_key, keep)[0])


def _counts_frame(r: Ratings) -> pd.DataFrame:
    """Ratings as a label-count table: ``item`` + one ``count_<label>`` column per label."""
    return pd.DataFrame(
        {"item": list(r.items), **{f"{COUNT_PREFIX}{lab}": r.counts[:, j] for j, lab in enumerate(r.labels)}}
    )


def read_ratings_table(
    path: Path, subset: str | None = None, item_key: str | None = None, keep: str | None = None
) -> pd.DataFrame:
    """A ratings file as ``data FILE`` reads it, kept one row per rating (``item``, ``rater`` when the file names
    raters, ``label``), so rater identity survives; a label-count file comes back as :func:`read_ratings_counts`."""
    got = read_file(path, subset, item_key)
    guess = detected_kind(got.frame, "ratings", got.forced)
    if guess.layout == "counts":  # the file already read: not read again through read_ratings_counts
        return _counts_frame(counts_ratings(got.frame, guess, got.forced))
    guess = usable_guess(got.frame, guess, got.forced, True)
    table = apply_mapping(got.frame, "ratings", guess.mapping)
    return unique_pairs(table, "ratings", got, guess.mapping.get("item"), keep)


def read_predictions_table(
    path: Path, subset: str | None = None, item_key: str | None = None, keep: str | None = None
) -> pd.DataFrame:
    """A predictions file mapped to item, model, pred_label / p_<label>, as ``data FILE`` reads it, for use beside a
    ratings file: ``subset`` (``COLUMN=VALUE``) applies when the file has that column (else every row is kept and
    the predictions are matched to the rated items), ``item_key`` names items by several columns, ``keep`` keeps
    the first or last of repeated (item, model) rows (else they are refused with their count and cause)."""
    whole = frame = read_table(path)
    if subset is not None:
        chosen: tuple[str, str] | None
        try:
            chosen = parse_subset(subset, frame)
        except DataError:  # no such subset column in the predictions: they are matched to the ratings' items
            chosen = None
        if chosen is not None:
            frame = subset_rows(frame, *chosen)
    forced: dict[str, str] = {}
    if item_key is not None:
        frame = with_key(frame, parse_item_key(item_key))
        forced["item"] = KEY_COLUMN
    guess = detect_kind(frame, "predictions")
    mapping = {**guess.mapping, **forced}
    if guess.missing and not (set(guess.missing) <= set(forced)):
        raise DataError(f"{path.name}: not a predictions table ({guess.reason})")
    table = apply_mapping(frame, "predictions", mapping)
    columns = key_columns("predictions")
    dup = duplicates(table, columns) if columns else None
    if dup is not None and columns is not None:
        if keep is None:
            item = None if forced else guess.mapping.get("item")
            keyed = forced.get("item") == KEY_COLUMN
            raise DataError(f"{path.name}: " + duplicates_advice(dup, whole, item, "predictions", keyed))
        table = drop_duplicates(table, keep, columns)
    return table
