"""Is a table judge scores with human labels on a subset (issue 55), and which column is which?

A judge table has one row per (case[, config]), one or several judge score columns scoring every row, and a human
score column that is empty where no human labelled the case. :func:`detect_judge` guesses the columns by name and
content: the human column is named like a human label (``human``, ``human_score``, ``gold_label``...) and is empty on
some rows but not all; judge columns are the other score columns (numbers, true/false, or pairwise verdicts) that are
not ids, named like a judge first; the config and case columns by the synonyms of :mod:`nkcore.kinds.columns`.
:func:`guess_scale` tells pairwise verdicts (1 / 2 / tie) from numbers; :func:`cases_shared` whether configs were run
on the same cases (then the case column pairs them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from nkcore.kinds.columns import SYNONYMS, normal_name

__all__ = ["HUMAN_NAMES", "RESERVED", "JudgeGuess", "cases_shared", "detect_judge", "guess_scale", "score_columns"]

HUMAN_NAMES: tuple[str, ...] = (
    "human",
    "human_score",
    "human_label",
    "human_rating",
    "human_mean",
    "human_majority",
    "human_judgment",
    "human_judgement",
    "human_preference",
    "gold_label",
    "gold",
    "gold_score",
    "annotator_score",
    "label",
    "rating",
)
"""Normalised column names read as the human score, most likely first (a name starting with ``human`` also counts)."""
RESERVED: frozenset[str] = frozenset(
    {"case", "config", "correct", "repeat", "epoch", "answer", "gold", "latency_s", "cost", "sample"}
)
"""The columns of an evaluation (:data:`nkcore.evaluation.EVAL_COLUMNS`), never a judge's score."""
_PAIRWISE_TEXT = frozenset({"tie", "a", "b", "1", "2", "0"})
_ID_WORDS = ("id", "idx", "index", "case", "item", "uid", "prompt_index")


@dataclass(frozen=True, slots=True)
class JudgeGuess:
    """Which column is which in a judge table: ``human`` (the human score), ``judges`` (score columns, the one to
    correct first), ``config`` and ``case`` (None when absent), ``scale`` ("numeric" or "pairwise"), ``reason``."""

    human: str
    judges: tuple[str, ...]
    config: str | None
    case: str | None
    scale: str
    reason: str


def _is_score(col: pd.Series) -> bool:
    """Every present value a number, a true/false word or a pairwise verdict word; at least one present."""
    values = col.dropna()
    if len(values) == 0:
        return False
    if pd.api.types.is_bool_dtype(values.dtype) or pd.api.types.is_numeric_dtype(values.dtype):
        return True
    try:
        uniq = pd.Series(values.unique()).astype(str).str.strip().str.lower()
    except TypeError:
        return False
    if len(uniq) > 200:
        return bool(pd.to_numeric(values.astype(str), errors="coerce").notna().all())
    nums = pd.to_numeric(uniq, errors="coerce")
    return bool((nums.notna() | uniq.isin(_PAIRWISE_TEXT | {"true", "false", "yes", "no"})).all())


def _looks_id(name: str, col: pd.Series) -> bool:
    n = normal_name(name)
    if n in _ID_WORDS or n.endswith("_id") or n.endswith("_idx") or n.endswith("_index"):
        return True
    return bool(pd.api.types.is_integer_dtype(col.dtype) and col.nunique() == len(col) and len(col) > 20)


def score_columns(frame: pd.DataFrame, exclude: Sequence[str] = ()) -> list[str]:
    """The columns that could be a judge's score: scores (numbers, true/false, verdicts), not ids, not an
    evaluation's own columns (:data:`RESERVED`), not in ``exclude``; named like a judge first.

    >>> score_columns(pd.DataFrame({"case": [1, 2], "gpt4_judge": [3, 4], "human": [5, None], "note": ["x", "y"]}),
    ...               ["human"])
    ['gpt4_judge']
    """
    out = [
        str(c)
        for c in frame.columns
        if str(c) not in exclude
        and normal_name(c) not in RESERVED
        and not _looks_id(str(c), frame[c])
        and _is_score(frame[c])
    ]
    return sorted(out, key=lambda c: (0 if "judge" in normal_name(c) else 1, out.index(c)))


def _human(frame: pd.DataFrame) -> str | None:
    best: tuple[int, str] | None = None
    for c in frame.columns:
        n = normal_name(c)
        rank = HUMAN_NAMES.index(n) if n in HUMAN_NAMES else len(HUMAN_NAMES) if n.startswith("human") else None
        if rank is None or not _is_score(frame[c]):
            continue
        empty = int(frame[c].isna().sum() + (frame[c].astype(str).str.strip() == "").sum())
        if 0 < empty < len(frame) and (best is None or rank < best[0]):
            best = (rank, str(c))
    return None if best is None else best[1]


def _named(frame: pd.DataFrame, role: str, exclude: Sequence[str]) -> str | None:
    syn = SYNONYMS.get(role, ())
    ranked = [(syn.index(normal_name(c)), str(c)) for c in frame.columns if normal_name(c) in syn]
    ranked = [r for r in ranked if r[1] not in exclude]
    return min(ranked)[1] if ranked else None


def guess_scale(frame: pd.DataFrame, columns: Sequence[str]) -> str:
    """ "pairwise" when every value of ``columns`` is a pairwise verdict (1 / 2 / 0 or tie / A / B) and some value
    is 2, "B" or "tie"; else "numeric".

    >>> guess_scale(pd.DataFrame({"j": [1, 2, 2], "h": [1, None, 2]}), ["j", "h"])
    'pairwise'
    >>> guess_scale(pd.DataFrame({"j": [1, 5, 3]}), ["j"])
    'numeric'
    """
    seen: set[str] = set()
    for c in columns:
        values = frame[c].dropna()
        if pd.api.types.is_float_dtype(values.dtype):
            if not (values == values.round()).all():
                return "numeric"
            values = values.astype("int64")
        text = values.astype(str).str.strip().str.lower()
        seen |= set(text.unique()) - {""}
    return "pairwise" if seen and seen <= _PAIRWISE_TEXT and seen & {"2", "b", "tie"} else "numeric"


def cases_shared(frame: pd.DataFrame, case: str | None, config: str | None) -> bool:
    """Whether some case appears under two or more configs (configs run on the same cases: differences between
    configs are then taken case by case).

    >>> cases_shared(pd.DataFrame({"c": [1, 1], "k": ["a", "b"]}), "c", "k")
    True
    >>> cases_shared(pd.DataFrame({"c": [1, 2], "k": ["a", "b"]}), "c", "k")
    False
    """
    if case is None or config is None:
        return case is not None
    pairs = frame[[case, config]].dropna().astype(str).drop_duplicates()
    return bool(pairs[case].duplicated().any())


def detect_judge(frame: pd.DataFrame) -> JudgeGuess | None:
    """The judge table's columns (module docstring), or None when the table has no human column empty on some rows
    or no judge score column besides it.

    >>> g = detect_judge(pd.DataFrame({"case": [1, 2, 1, 2], "config": ["a", "a", "b", "b"],
    ...                                "judge": [4, 3, 5, 2], "human": [5, None, None, 2]}))
    >>> g.human, g.judges, g.config, g.case, g.scale
    ('human', ('judge',), 'config', 'case', 'numeric')
    """
    human = _human(frame)
    if human is None:
        return None
    others = [str(c) for c in frame.columns if normal_name(c).startswith("human") or str(c) == human]
    config = _named(frame, "config", [human]) or _named(frame, "model", [human])
    case = _named(frame, "case", [human, *([config] if config else [])])
    judges = score_columns(frame, [*others, *(c for c in (config, case) if c)])
    if not judges:
        return None
    if case is not None and config is not None and not cases_shared(frame, case, config):
        case = None  # each case belongs to one config: nothing to pair
    scale = guess_scale(frame, [*judges, human])
    shown = ", ".join(judges[:4]) + (" ..." if len(judges) > 4 else "")
    labelled = int(frame[human].notna().sum())
    reason = (
        f"judge scores with human labels on a subset: human <- {human} ({labelled:,} of {len(frame):,} rows "
        f"labelled), judge <- {shown}"
        + (f", config <- {config}" if config else "")
        + (f", case <- {case}" if case else "")
    )
    return JudgeGuess(human, tuple(judges), config, case, scale, reason)
