"""Guessing which of the four data kinds a table holds, and which of its columns plays each canonical role.

Names first: a role matches a column named like it (:data:`nkcore.kinds.columns.SYNONYMS`); content second:
``correct`` and wide paired config columns must hold 0/1 in the one true/false vocabulary
(:mod:`nkcore.common.truth`), ``latency_s`` non-negative numbers, ``p_*`` numbers (the parser then checks each is
in [0, 1] and names the rows that are not).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from nkcore.common.truth import FALSE_WORDS, TRUE_WORDS, is_truth_column
from nkcore.kinds.columns import (
    COUNT_PREFIX,
    KINDS,
    PROB_PREFIXES,
    ROLES,
    RUN_NAMES,
    SYNONYMS,
    kind_columns,
    normal_name,
    probability_role,
)
from nkcore.kinds.count_layout import count_columns
from nkcore.kinds.runs import run_column

__all__ = ["KindGuess", "detect_counts", "detect_kind", "looks_binary"]

# More distinct values than the vocabulary has words cannot be a 0/1 column (a cheap early exit on big columns).
_MAX_TRUTH_VALUES = len(TRUE_WORDS | FALSE_WORDS)

_KIND_NEEDS = (
    "Ratings need item, rater, label; predictions item, model and pred_label or p_<label> columns; paired results "
    "case, config, correct (or case plus one 0/1 column per config); raw samples case, sample, answer and gold or "
    "correct"
)


# Column names of people's attributes: a table of these (and an id) describes raters, it holds no ratings.
_ATTRIBUTES = frozenset(
    {
        "age",
        "gender",
        "sex",
        "race",
        "ethnicity",
        "ethnicity_simplified",
        "education",
        "occupation",
        "nationality",
        "country",
        "country_of_birth",
        "country_of_residence",
        "student_status",
        "employment_status",
        "income",
        "religion",
        "political_affiliation",
        "first_language",
        "native_language",
    }
)


# Column names of an item's content: a table of an id and these describes items, it holds no ratings.
_CONTENT = frozenset(
    {"text", "premise", "hypothesis", "sentence", "tweet", "comment", "post", "reply", "context", "title", "body"}
)
_ASIDE = ("split", "subset", "dataset", "lang", "language", "source")


def _described(frame: pd.DataFrame, attributes: list[str]) -> str | None:
    """What a table no kind fits describes, when its columns say so: raters' attributes, or items' text."""
    if len(attributes) >= 2:
        return (
            f"this looks like a table of raters' attributes ({', '.join(attributes[:6])}), one row per rater, not "
            "ratings: NK Planner does not use rater attributes. Upload the ratings file instead (one row per rating, "
            "or one record per item with its raters' labels)"
        )
    names = [normal_name(c) for c in frame.columns]
    content = [str(c) for c, n in zip(frame.columns, names, strict=True) if n in _CONTENT]
    others = [n for n in names if n not in _CONTENT and not n.startswith(_ASIDE)]
    if content and len(others) <= 1 and all(n in SYNONYMS["item"] or n.endswith("_id") for n in others):
        return (
            f"this looks like a table of items and their content ({', '.join(content[:4])}), not ratings or "
            "predictions: NK Planner does not need the items' text. Upload the ratings or predictions file of these "
            "items instead"
        )
    return None


@dataclass(frozen=True, slots=True)
class KindGuess:
    """The guessed kind of a table and which of its columns plays each canonical role.

    ``mapping`` maps canonical name -> the file's column (for ``predictions`` also ``p_<label>`` -> column; for
    wide ``paired`` files each config's name -> its 0/1 column, and no ``config``/``correct``). ``confidence`` is in
    [0, 1] (1: every column has its canonical name and the content checks pass). ``missing`` lists required roles
    no column was found for (then the guess is not usable as is). ``layout`` is "wide" or "long" for paired data.
    """

    kind: str
    mapping: dict[str, str]
    confidence: float
    reason: str
    missing: tuple[str, ...] = ()
    layout: str = "long"


def _is_score(col: pd.Series) -> bool:
    """Every present value a number in [0, 1] (a score with partial credit), at least one present."""
    values = pd.to_numeric(col.dropna(), errors="coerce")
    return len(values) > 0 and bool(values.notna().all()) and bool(((values >= 0) & (values <= 1)).all())


def looks_binary(col: pd.Series) -> bool:
    """Whether every present value of ``col`` is a right/wrong word or 0/1 (:func:`nkcore.common.truth.parse_truth`).

    Only the distinct values are read, so a long column costs one ``unique``; cells that cannot be compared
    (lists or dicts from JSON) make it not binary.

    >>> looks_binary(pd.Series(["yes", "no", None])), looks_binary(pd.Series([0.5, 1.0])), looks_binary(pd.Series([]))
    (True, False, False)
    """
    values = col.dropna()
    if len(values) == 0:
        return False
    try:
        uniq = values.unique()
    except TypeError:  # unhashable cells
        return False
    if len(uniq) > _MAX_TRUTH_VALUES:
        return False
    return is_truth_column(pd.Series(uniq))


def _name_score(role: str, col: str) -> float:
    n = normal_name(col)
    if n == role:
        return 1.0
    syn = SYNONYMS.get(role, ())
    if n in syn:
        return 0.95 - 0.01 * min(syn.index(n), 20)
    tokens = set(n.split("_"))
    if any(s in tokens for s in syn[:3] if "_" not in s):
        return 0.5
    return 0.0


def _numbers(col: pd.Series) -> np.ndarray | None:
    """The present values of a numeric (not boolean) column as floats; None for other columns."""
    if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
        return None
    v = col.to_numpy(dtype=np.float64, na_value=np.nan)
    return v[~np.isnan(v)]


def _is_numeric_nonneg(col: pd.Series) -> bool:
    v = _numbers(col)
    return v is not None and len(v) > 0 and bool(np.all(v >= 0))


def _prob_columns(frame: pd.DataFrame, used: set[str]) -> dict[str, str]:
    """The probability columns: named with a probability prefix and holding numbers. A value outside [0, 1] does not
    hide the column (it was then reported as missing): the parser names the rows that are not probabilities."""
    out: dict[str, str] = {}
    for col in frame.columns:
        if col in used:
            continue
        low = str(col).lower()
        v = _numbers(frame[col])
        if any(low.startswith(p) and len(low) > len(p) for p in PROB_PREFIXES) and v is not None and len(v) > 0:
            out[probability_role(str(col))] = str(col)
    return out


def _assign(
    frame: pd.DataFrame, roles: tuple[str, ...], used: set[str], scores: bool = False
) -> dict[str, tuple[str, float]]:
    """Greedy best-first assignment of columns to roles (each column at most once); ``scores``: a ``correct``
    column may hold scores in [0, 1] (paired results: partial credit)."""
    pairs = []
    for role in roles:
        for col in frame.columns:
            s = _name_score(role, str(col))
            if s > 0 and str(col) not in used:
                pairs.append((s, -roles.index(role), role, str(col)))
    pairs.sort(reverse=True)
    out: dict[str, tuple[str, float]] = {}
    taken = set(used)
    for s, _, role, col in pairs:
        if role in out or col in taken:
            continue
        if role == "correct" and not (looks_binary(frame[col]) or (scores and _is_score(frame[col]))):
            continue
        if role == "latency_s" and not _is_numeric_nonneg(frame[col]):
            continue
        out[role] = (col, s)
        taken.add(col)
    return out


def _run_model_column(frame: pd.DataFrame, mapping: dict[str, str]) -> str | None:
    """A column named like a model run that makes (item, model) unique, when the detected model column does not."""
    item, model = mapping["item"], mapping["model"]
    if not frame[[item, model]].astype(str).duplicated().any():
        return None
    from nkcore.errors import DataError

    others = [c for r, c in mapping.items() if r not in ("item", "model")]
    try:
        run = run_column(frame, item, others)
    except DataError:
        return None
    named = normal_name(run) in RUN_NAMES or normal_name(run) in SYNONYMS["model"]
    return run if run in frame.columns and named else None


def detect_counts(frame: pd.DataFrame) -> KindGuess | None:
    """The ratings guess of a label-count table (layout ``"counts"``: item + one ``count_<label>`` column per label,
    found by :func:`nkcore.ratings.count_columns`; a count column empty in every row, another subset's label, is
    left out), or None when the table has no ``count_<label>`` columns.

    >>> g = detect_counts(pd.DataFrame({"uid": ["a", "b"], "count_x": [2, 0], "count_y": [1, 3]}))
    >>> g.kind, g.layout, g.mapping
    ('ratings', 'counts', {'item': 'uid', 'count_x': 'count_x', 'count_y': 'count_y'})
    """

    found = count_columns(frame)
    if found is None or not any(c.lower().startswith(COUNT_PREFIX) for c in found.labels.values()):
        return None
    labels = {label: col for label, col in found.labels.items() if not frame[col].isna().all()}
    mapping = {"item": found.item, **{f"{COUNT_PREFIX}{label}": col for label, col in labels.items()}}
    shown = ", ".join(list(labels.values())[:6]) + (" ..." if len(labels) > 6 else "")
    reason = f"ratings as label counts: item <- {found.item}, one count column per label ({shown})"
    return KindGuess("ratings", mapping, 1.0, reason, (), "counts")


def _guess(frame: pd.DataFrame, kind: str) -> KindGuess:
    required, optional = ROLES[kind]
    got = _assign(frame, required + optional, set(), scores=kind == "paired")
    mapping = {role: got[role][0] for role in required + optional if role in got}
    scores = [s for _, s in got.values()]
    missing = [r for r in required if r not in got]
    layout = "long"
    notes: list[str] = []
    if kind == "samples" and "gold" not in got and "correct" not in got:
        missing.append("gold or correct")
    if kind == "predictions":
        probs = _prob_columns(frame, set(mapping.values()))
        mapping.update(probs)
        if probs:
            scores.append(1.0)
            notes.append(f"{len(probs)} probability columns ({', '.join(list(probs.values())[:6])})")
        if "pred_label" not in got and not probs:
            missing.append("pred_label or p_<label> columns")
        if "item" in mapping and "model" in mapping:
            run = _run_model_column(frame, mapping)
            if run is not None:
                mapping["model"] = run
                notes.append(f"model <- {run}, the column that makes (item, model) unique")
    if kind == "paired" and missing:
        case = got.get("case")
        others = [str(c) for c in frame.columns if case is None or str(c) != case[0]]
        binary = [c for c in others if looks_binary(frame[c])]
        if case is not None and len(binary) >= 2:
            layout = "wide"
            mapping = {"case": case[0], **{c: c for c in binary}}
            share = len(binary) / max(len(others), 1)
            scores = [case[1], 0.5 + 0.3 * share]
            missing = []
            notes.append(f"wide layout: one 0/1 column per config ({', '.join(binary[:6])})")
    if missing:
        confidence = 0.3 * (len(required) - len([m for m in missing if m in required])) / max(len(required), 1)
        reason = f"looks partly like {kind} data, but no column for: {', '.join(missing)}"
    else:
        coverage = len(set(mapping.values())) / max(frame.shape[1], 1)
        confidence = float(np.mean(scores)) * (0.85 + 0.15 * coverage)
        pairs = ", ".join(f"{role} <- {col}" for role, col in mapping.items() if not role.startswith("p_"))
        reason = f"{kind} data: {pairs}" + (f"; {'; '.join(notes)}" if notes else "")
    return KindGuess(kind, mapping, round(min(confidence, 1.0), 3), reason, tuple(missing), layout)


def detect_kind(frame: pd.DataFrame, kind: str | None = None) -> KindGuess:
    """Guess the data kind of ``frame`` and its column mapping (never raises for a table with columns).

    Each kind's roles are matched to columns by name (canonical name 1.0, a listed synonym about 0.9, a name
    containing a main synonym 0.5), greedily best-first, each column used once, with content checks (``correct`` must
    be 0/1, ``latency_s`` non-negative numbers, ``p_*`` numbers). A kind with every required role found
    scores mean(match scores) x (0.85 + 0.15 x share of the file's columns used); a kind with a missing role scores
    at most 0.3. The best kind wins; with ``kind`` given only that kind is considered. A table no kind fits whose
    columns name people's attributes (age, gender, ...) is a table of raters, one of an id and text columns (text,
    premise...) a table of items: ``reason`` says so (confidence 0). When no kind fits completely
    and the table is label counts (item + ``count_<label>`` columns, :func:`detect_counts`), the guess is ratings
    with layout ``"counts"`` (also with ``kind="ratings"``). When no column name matches any role of any kind,
    ``reason`` says what each kind needs.

    >>> g = detect_kind(pd.DataFrame({"item_id": [1], "annotator_id": ["a"], "label": ["x"]}))
    >>> g.kind, g.mapping
    ('ratings', {'item': 'item_id', 'rater': 'annotator_id', 'label': 'label'})
    >>> detect_kind(pd.DataFrame({"uid": ["a", "b"], "count_x": [2, 0], "count_y": [1, 3]})).layout
    'counts'
    """
    if kind is not None:
        kind_columns(kind)
        guess = _guess(frame, kind)
        if kind == "ratings" and guess.missing:
            return detect_counts(frame) or guess
        return guess
    guesses = [_guess(frame, k) for k in KINDS]
    best = max(guesses, key=lambda g: (not g.missing, g.confidence, -KINDS.index(g.kind)))
    if best.missing:
        counts = detect_counts(frame)
        if counts is not None:
            return counts
    attributes = [str(c) for c in frame.columns if normal_name(c) in _ATTRIBUTES]
    rated = "item" in next(g for g in guesses if g.kind == "ratings").mapping
    described = _described(frame, [] if rated else attributes)
    if best.missing and described is not None:
        return replace(best, confidence=0.0, reason=described)
    if best.missing and best.confidence == 0:
        shown = ", ".join(str(c) for c in list(frame.columns)[:12]) + (" ..." if frame.shape[1] > 12 else "")
        best = replace(
            best, reason=f"none of the columns ({shown}) is named like a column NK Planner knows. {_KIND_NEEDS}"
        )
    return best
