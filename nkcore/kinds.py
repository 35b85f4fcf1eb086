"""The four kinds of data NK Planner reads, their canonical columns, and guessing which file column plays which role.

| kind          | canonical columns                                                                 |
|---------------|-----------------------------------------------------------------------------------|
| ``samples``   | case, sample, answer, gold and/or correct, optional latency_s (one row per sample) |
| ``paired``    | long: case, config, correct; or wide: case + one 0/1 column per config             |
| ``ratings``   | item, rater, label (one row per rating)                                            |
| ``predictions`` | item, model, pred_label and/or one p_<label> probability column per label        |

``detect_kind`` matches column names against synonyms (``item_id``, ``annotator_id``, ``worker``, ``question_id``,
``model_name``, ``prediction``, ``is_correct``...) and checks the content (0/1 columns, probabilities);
``apply_mapping`` renames the chosen columns to the canonical names, drops the others and normalises values
(ids and labels become text, ``correct`` becomes 0/1, ``latency_s`` and ``p_*`` become numbers), naming the rows
or columns of any problem in a :class:`nkcore.errors.DataError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from nkcore.errors import DataError

__all__ = [
    "KINDS",
    "MAX_ANSWER_CHARS",
    "MAX_LABEL_CHARS",
    "ROLE_WORDS",
    "KindGuess",
    "apply_mapping",
    "detect_kind",
    "format_rows",
    "kind_columns",
    "natural_order",
    "probability_role",
    "show_value",
    "to_text",
]

KINDS: tuple[str, ...] = ("samples", "paired", "ratings", "predictions")

# Plain-language meaning of each canonical column (used in messages and in the UI's mapping editor).
ROLE_WORDS: dict[str, str] = {
    "case": "case (one evaluation prompt)",
    "sample": "sample (which draw of the model for the case)",
    "answer": "answer (the model's answer in that sample)",
    "gold": "gold (the correct answer)",
    "correct": "correct (1 if right, 0 if wrong)",
    "latency_s": "latency_s (seconds for that call)",
    "config": "config (the system setting being compared)",
    "item": "item (the thing being rated)",
    "rater": "rater (who gave the rating)",
    "label": "label (the rating given)",
    "model": "model (which model predicted)",
    "pred_label": "pred_label (the model's predicted label)",
}

_SYNONYMS: dict[str, tuple[str, ...]] = {
    "item": (
        "item",
        "item_id",
        "itemid",
        "unit",
        "unit_id",
        "text_id",
        "comment_id",
        "message_id",
        "tweet_id",
        "post_id",
        "doc_id",
        "document_id",
        "example_id",
        "instance_id",
        "question_id",
        "prompt_id",
        "conversation_id",
        "image_id",
        "sentence_id",
        "uid",
        "id",
    ),
    "rater": (
        "rater",
        "rater_id",
        "annotator",
        "annotator_id",
        "worker",
        "worker_id",
        "workerid",
        "judge",
        "judge_id",
        "labeler",
        "labeler_id",
        "labeller",
        "labeller_id",
        "coder",
        "coder_id",
        "annotator_name",
        "participant",
        "participant_id",
        "respondent",
        "respondent_id",
        "user",
        "user_id",
    ),
    "label": (
        "label",
        "rating",
        "annotation",
        "response",
        "judgment",
        "judgement",
        "class",
        "category",
        "label_id",
        "choice",
        "vote",
        "value",
        "score",
        "answer",
    ),
    "model": ("model", "model_name", "model_id", "system", "system_name", "classifier", "model_run", "predictor"),
    "pred_label": (
        "pred_label",
        "predicted_label",
        "prediction",
        "pred",
        "predicted",
        "predicted_class",
        "pred_class",
        "prediction_label",
        "y_pred",
        "model_label",
        "output",
        "hard_label",
    ),
    "case": (
        "case",
        "case_id",
        "question_id",
        "prompt_id",
        "problem_id",
        "task_id",
        "example_id",
        "test_id",
        "qid",
        "question",
        "prompt",
        "problem",
        "item_id",
        "item",
        "instance_id",
        "uid",
        "id",
        "idx",
    ),
    "sample": (
        "sample",
        "sample_id",
        "sample_index",
        "sample_idx",
        "sample_no",
        "draw",
        "draw_id",
        "attempt",
        "trial",
        "generation",
        "generation_id",
        "completion_id",
        "seed",
        "run",
        "run_id",
        "rep",
        "repeat",
        "replicate",
    ),
    "answer": (
        "answer",
        "model_answer",
        "extracted_answer",
        "parsed_answer",
        "predicted_answer",
        "final_answer",
        "generated_answer",
        "response",
        "output",
        "prediction",
        "pred",
        "completion",
        "result",
    ),
    "gold": (
        "gold",
        "gold_answer",
        "gold_label",
        "target",
        "reference",
        "reference_answer",
        "ground_truth",
        "groundtruth",
        "expected",
        "expected_answer",
        "correct_answer",
        "true_answer",
        "truth",
        "solution",
        "answer_key",
        "y_true",
    ),
    "correct": (
        "correct",
        "is_correct",
        "iscorrect",
        "correctness",
        "passed",
        "pass",
        "success",
        "solved",
        "is_right",
        "right",
        "exact_match",
        "em",
        "match",
        "hit",
        "accuracy",
        "acc",
        "score",
    ),
    "latency_s": (
        "latency_s",
        "latency",
        "latency_sec",
        "latency_seconds",
        "duration_s",
        "duration",
        "elapsed_s",
        "elapsed",
        "time_s",
        "seconds",
        "response_time",
        "response_time_s",
        "wall_time",
    ),
    "config": (
        "config",
        "configuration",
        "config_name",
        "condition",
        "variant",
        "setting",
        "arm",
        "method",
        "treatment",
        "setup",
        "system",
        "model",
        "model_name",
    ),
}

_PROB_PREFIXES = ("p_", "prob_", "proba_", "probability_", "prob_of_")

# Roles per kind: (required, optional). "pred_label"/"p_*" and "gold"/"correct" are "at least one of".
_ROLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "samples": (("case", "sample", "answer"), ("gold", "correct", "latency_s")),
    "paired": (("case", "config", "correct"), ()),
    "ratings": (("item", "rater", "label"), ()),
    "predictions": (("item", "model"), ("pred_label",)),
}
_ID_ROLES = {"case", "item", "rater", "model", "config"}
_TEXT_ROLES = {"answer", "gold", "label", "pred_label"}
# Longest id or label, and longest answer / gold answer (model answers can be long; ids never are). A longer value
# is almost always a wrong column or an unclosed quote that swallowed the rest of the file.
MAX_LABEL_CHARS = 1_000
MAX_ANSWER_CHARS = 100_000
_TRUE = {"1", "1.0", "true", "t", "yes", "y", "correct", "right"}
_FALSE = {"0", "0.0", "false", "f", "no", "n", "wrong", "incorrect"}


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


def _norm(name: object) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


def format_rows(positions: np.ndarray | list[int], limit: int = 8) -> str:
    """Human row numbers for 0-based positions: data row 1 is the first row under the header.

    >>> format_rows([0, 4, 5])
    'data rows 1, 5, 6'
    """
    pos = [int(p) + 1 for p in list(positions)[:limit]]
    n = len(positions)
    more = f" and {n - limit} more" if n > limit else ""
    return f"data row{'s' if n > 1 else ''} {', '.join(map(str, pos))}{more}"


def show_value(value: object, limit: int = 60) -> str:
    """``repr`` of a value for a message, cut to about ``limit`` characters (a cell can be megabytes long).

    >>> show_value("x" * 100, limit=10)
    "'xxxxxxxxx… (100 characters)"
    >>> show_value(np.int64(3))
    '3'
    """
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value):,} characters)" if isinstance(value, str) else ""
    return f"{text[:limit]}…{size}"


def to_text(series: pd.Series) -> pd.Series:
    """Render a column as stripped text, keeping missing values missing; integral floats lose ".0".

    Floats appear when a numeric id column has a missing cell (``1.0`` would otherwise not equal ``1``).

    >>> to_text(pd.Series([1.0, None, 2.5])).tolist()
    ['1', nan, '2.5']
    """
    if pd.api.types.is_bool_dtype(series.dtype) and not series.isna().any():
        return series.map({True: "true", False: "false"}).astype("str")
    if pd.api.types.is_float_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        out = np.empty(len(values), dtype=object)
        finite = np.isfinite(values)
        integral = finite & (values == np.round(values)) & (np.abs(values) < 2**53)
        out[integral] = values[integral].astype(np.int64).astype(str)
        rest = finite & ~integral
        out[rest] = [repr(float(v)) for v in values[rest]]
        out[~finite & ~np.isnan(values)] = [str(v) for v in values[~finite & ~np.isnan(values)]]
        out[np.isnan(values)] = None
        return pd.Series(out, index=series.index, dtype="str")
    if pd.api.types.is_integer_dtype(series.dtype):
        return series.astype("str")
    if pd.api.types.is_string_dtype(series.dtype) and series.dtype != object:
        return series.str.strip()
    out = series.map(lambda v: v if v is None or (isinstance(v, float) and v != v) else str(v), na_action="ignore")
    return out.astype("str").str.strip()


def natural_order(values: list[str] | tuple[str, ...]) -> list[str]:
    """Sort labels naturally: all-numeric labels by value, others by text with digit runs compared as numbers.

    >>> natural_order(["10", "2", "-1"])
    ['-1', '2', '10']
    >>> natural_order(["item10", "item9", "b"])
    ['b', 'item9', 'item10']
    """
    vals = list(values)
    try:
        nums = [float(v) for v in vals]
    except (TypeError, ValueError):
        nums = None
    if nums is not None and all(np.isfinite(nums)):
        return [v for _, v in sorted(zip(nums, vals, strict=True))]

    def key(v: str) -> tuple:
        parts = re.split(r"(\d+)", v.lower())
        return (tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p != ""), v)

    return sorted(vals, key=key)


def kind_columns(kind: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) canonical columns of ``kind`` (see the module table for "at least one of" rules)."""
    if kind not in _ROLES:
        raise DataError(f"unknown data kind {kind!r}; choose one of {', '.join(KINDS)}")
    return _ROLES[kind]


# ---------------------------------------------------------------------------------------------------------
# Detection


def _name_score(role: str, col: str) -> float:
    n = _norm(col)
    if n == role:
        return 1.0
    syn = _SYNONYMS.get(role, ())
    if n in syn:
        return 0.95 - 0.01 * min(syn.index(n), 20)
    tokens = set(n.split("_"))
    if any(s in tokens for s in syn[:3] if "_" not in s):
        return 0.5
    return 0.0


def _is_binary(col: pd.Series) -> bool:
    values = col.dropna()
    if len(values) == 0:
        return False
    if pd.api.types.is_bool_dtype(values.dtype):
        return True
    try:
        uniq = values.unique()
    except TypeError:  # unhashable cells (lists / dicts from JSON)
        return False
    if len(uniq) > 2:
        return False
    if pd.api.types.is_numeric_dtype(values.dtype):
        return set(np.asarray(uniq, dtype=float).tolist()) <= {0.0, 1.0}
    return {str(u).strip().lower() for u in uniq} <= _TRUE | _FALSE


def _is_probability(col: pd.Series) -> bool:
    if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
        return False
    v = col.to_numpy(dtype=np.float64, na_value=np.nan)
    v = v[~np.isnan(v)]
    return len(v) > 0 and bool(np.all((v >= 0) & (v <= 1)))


def _is_numeric_nonneg(col: pd.Series) -> bool:
    if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
        return False
    v = col.to_numpy(dtype=np.float64, na_value=np.nan)
    v = v[~np.isnan(v)]
    return len(v) > 0 and bool(np.all(v >= 0))


def probability_role(column: str) -> str:
    """The canonical ``p_<label>`` name of a probability column (``prob_x``, ``proba_x``, ``P_x`` -> ``p_x``).

    A column without a known prefix keeps its whole name as the label.

    >>> probability_role("prob_unsafe"), probability_role("p_0"), probability_role("toxic")
    ('p_unsafe', 'p_0', 'p_toxic')
    """
    low = str(column).lower()
    for prefix in _PROB_PREFIXES:
        if low.startswith(prefix) and len(low) > len(prefix):
            return f"p_{str(column)[len(prefix) :]}"
    return f"p_{column}"


def _prob_columns(frame: pd.DataFrame, used: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for col in frame.columns:
        if col in used:
            continue
        low = str(col).lower()
        if any(low.startswith(p) and len(low) > len(p) for p in _PROB_PREFIXES) and _is_probability(frame[col]):
            out[probability_role(str(col))] = str(col)
    return out


def _assign(frame: pd.DataFrame, roles: tuple[str, ...], used: set[str]) -> dict[str, tuple[str, float]]:
    """Greedy best-first assignment of columns to roles (each column at most once)."""
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
        if role == "correct" and not _is_binary(frame[col]):
            continue
        if role == "latency_s" and not _is_numeric_nonneg(frame[col]):
            continue
        out[role] = (col, s)
        taken.add(col)
    return out


def _guess(frame: pd.DataFrame, kind: str) -> KindGuess:
    required, optional = _ROLES[kind]
    got = _assign(frame, required + optional, set())
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
    if kind == "paired" and missing:
        case = got.get("case")
        others = [str(c) for c in frame.columns if case is None or str(c) != case[0]]
        binary = [c for c in others if _is_binary(frame[c])]
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


_KIND_NEEDS = (
    "Ratings need item, rater, label; predictions item, model and pred_label or p_<label> columns; paired results "
    "case, config, correct (or case plus one 0/1 column per config); raw samples case, sample, answer and gold or "
    "correct"
)


def detect_kind(frame: pd.DataFrame, kind: str | None = None) -> KindGuess:
    """Guess the data kind of ``frame`` and its column mapping (never raises for a table with columns).

    Each kind's roles are matched to columns by name (canonical name 1.0, a listed synonym about 0.9, a name
    containing a main synonym 0.5), greedily best-first, each column used once, with content checks (``correct`` must
    be 0/1, ``latency_s`` non-negative numbers, ``p_*`` numbers in [0, 1]). A kind with every required role found
    scores mean(match scores) x (0.85 + 0.15 x share of the file's columns used); a kind with a missing role scores
    at most 0.3. The best kind wins; with ``kind`` given only that kind is considered. When no column name matches
    any role of any kind, ``reason`` says what each kind needs.

    >>> g = detect_kind(pd.DataFrame({"item_id": [1], "annotator_id": ["a"], "label": ["x"]}))
    >>> g.kind, g.mapping
    ('ratings', {'item': 'item_id', 'rater': 'annotator_id', 'label': 'label'})
    """
    if kind is not None:
        kind_columns(kind)
        return _guess(frame, kind)
    guesses = [_guess(frame, k) for k in KINDS]
    best = max(guesses, key=lambda g: (not g.missing, g.confidence, -KINDS.index(g.kind)))
    if best.missing and best.confidence == 0:
        shown = ", ".join(str(c) for c in list(frame.columns)[:12]) + (" ..." if frame.shape[1] > 12 else "")
        best = replace(
            best, reason=f"none of the columns ({shown}) is named like a column NK Planner knows. {_KIND_NEEDS}"
        )
    return best


# ---------------------------------------------------------------------------------------------------------
# Applying a mapping


def _describe(role: str) -> str:
    if role.startswith("p_"):
        return f"{role} (probability of label {role[2:]!r})"
    return ROLE_WORDS.get(role, role)


def _show(values: pd.Series, positions: np.ndarray, limit: int = 3) -> str:
    return ", ".join(show_value(values.iloc[int(i)]) for i in positions[:limit])


def _hold(positions: np.ndarray) -> str:
    return "holds" if len(positions) == 1 else "hold"


def _binary(series: pd.Series, what: str, allow_missing: bool = False) -> pd.Series:
    """0/1 integers; with ``allow_missing`` empty cells stay missing (float NaN) instead of being refused."""
    if allow_missing and series.isna().any():
        present = series.notna().to_numpy()
        out = np.full(len(series), np.nan)
        out[present] = _binary(series[present], what).to_numpy()
        return pd.Series(out, index=series.index)
    if pd.api.types.is_bool_dtype(series.dtype) and not series.isna().any():
        return series.astype(np.int64)
    if pd.api.types.is_numeric_dtype(series.dtype):
        v = series.to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.flatnonzero(~np.isin(v, (0.0, 1.0)))
        if len(bad):
            raise DataError(f"column {what} must be 0 or 1, but {format_rows(bad)} {_hold(bad)} {_show(series, bad)}")
        return pd.Series(v.astype(np.int64), index=series.index)
    text = to_text(series).str.lower()
    ok_true = text.isin(_TRUE).to_numpy()
    ok_false = text.isin(_FALSE).to_numpy()
    bad = np.flatnonzero(~(ok_true | ok_false))
    if len(bad):
        raise DataError(
            f"column {what} must be 0/1 (or true/false), but {format_rows(bad)} {_hold(bad)} {_show(series, bad)}"
        )
    return pd.Series(ok_true.astype(np.int64), index=series.index)


def _numeric(series: pd.Series, what: str) -> pd.Series:
    values = pd.to_numeric(series, errors="coerce")
    bad = np.flatnonzero(values.isna().to_numpy() & series.notna().to_numpy())
    if len(bad):
        raise DataError(f"column {what} must hold numbers, but {format_rows(bad)} {_hold(bad)} {_show(series, bad)}")
    return values.astype(np.float64)


def _bounded_text(series: pd.Series, what: str, limit: int) -> pd.Series:
    """:func:`to_text`, refusing values longer than ``limit`` characters (naming the data rows)."""
    text = to_text(series)
    lengths = text.str.len().to_numpy(dtype=np.float64, na_value=0.0)
    bad = np.flatnonzero(lengths > limit)
    if len(bad):
        raise DataError(
            f"column {what} holds a value of {int(lengths[bad[0]]):,} characters in {format_rows(bad)}; values of "
            f"this column can be at most {limit:,} characters. Is the right column chosen, or is a closing quote "
            "missing in the file?"
        )
    return text


def _valid_role(kind: str, role: str) -> bool:
    required, optional = _ROLES[kind]
    if role in required or role in optional:
        return True
    if kind == "predictions" and role.startswith("p_") and len(role) > 2:
        return True
    return kind == "paired"  # wide layout: any config name


def apply_mapping(frame: pd.DataFrame, kind: str, mapping: Mapping[str, str]) -> pd.DataFrame:
    """Rename the mapped columns to their canonical names, keep only those, and normalise their values.

    Checks: ``kind`` is known; every mapped column exists and is used once; the required roles are present
    (samples: case, sample, answer and gold and/or correct; paired: case + config + correct (long) or case + >= 2
    config columns (wide); ratings: item, rater, label; predictions: item, model and pred_label and/or p_<label>).
    Values: ids and labels become text (missing stays missing), ``correct`` and wide config columns 0/1 integers
    (an empty cell of a wide config column means "no result for this case" and stays missing),
    ``latency_s`` and ``p_*`` floats; a ``sample`` column of whole numbers stays integer. Rows keep their order.

    >>> df = pd.DataFrame({"q": [1, 1], "cfg": ["a", "b"], "ok": ["true", "no"]})
    >>> apply_mapping(df, "paired", {"case": "q", "config": "cfg", "correct": "ok"})["correct"].tolist()
    [1, 0]
    """
    required, _optional = kind_columns(kind)
    columns = [str(c) for c in frame.columns]
    listed = ", ".join(columns[:20]) + (" ..." if len(columns) > 20 else "")
    mapping = {str(k): str(v) for k, v in mapping.items() if v is not None and str(v) != ""}
    for role, col in mapping.items():
        if not _valid_role(kind, role):
            raise DataError(f"{role!r} is not a column of {kind} data; the {kind} columns are {', '.join(required)}")
        if col not in columns:
            raise DataError(
                f"column {col!r} (chosen for {_describe(role)}) is not in the file; its columns are: {listed}"
            )
    by_col: dict[str, list[str]] = {}
    for role, col in mapping.items():
        by_col.setdefault(col, []).append(role)
    dupes = {c: r for c, r in by_col.items() if len(r) > 1}
    if dupes:
        col, roles = next(iter(dupes.items()))
        raise DataError(
            f"column {col!r} is chosen for more than one role ({', '.join(roles)}); pick one column per role"
        )
    wide = kind == "paired" and "config" not in mapping and "correct" not in mapping
    need = ("case",) if wide else required
    missing = [r for r in need if r not in mapping]
    if missing:
        words = "; ".join(_describe(r) for r in missing)
        raise DataError(f"missing column for {words}. The file's columns are: {listed}")
    if kind == "samples" and "gold" not in mapping and "correct" not in mapping:
        raise DataError(
            f"samples data needs a gold (correct answer) or a correct (0/1) column; the file's columns are: {listed}"
        )
    if kind == "predictions" and "pred_label" not in mapping and not any(r.startswith("p_") for r in mapping):
        raise DataError(
            "predictions need a pred_label column and/or one probability column per label (p_<label>); "
            f"the file's columns are: {listed}"
        )
    configs = [r for r in mapping if r != "case"] if wide else []
    if wide and len(configs) < 2:
        raise DataError(
            "paired data needs either config and correct columns (long layout) or at least two 0/1 columns, one per "
            f"config (wide layout); the file's columns are: {listed}"
        )
    out = {}
    for role, col in mapping.items():
        series = frame[col].reset_index(drop=True)
        what = f"{col!r} ({_describe(role)})"
        if role in _ID_ROLES or role in _TEXT_ROLES:
            out[role] = _bounded_text(series, what, MAX_ANSWER_CHARS if role in ("answer", "gold") else MAX_LABEL_CHARS)
        elif role == "correct" or (wide and role != "case"):
            out[role] = _binary(series, what, allow_missing=wide)
        elif role == "latency_s" or role.startswith("p_"):
            values = _numeric(series, what)
            if role == "latency_s" and (values < 0).any():
                bad = np.flatnonzero((values < 0).to_numpy())
                raise DataError(f"column {what} must not be negative; negative values at {format_rows(bad)}")
            out[role] = values
        elif role == "sample":
            if pd.api.types.is_integer_dtype(series.dtype) and not series.isna().any():
                out[role] = series.astype(np.int64)
            else:
                out[role] = to_text(series)
        else:
            out[role] = series
    order = [r for r in (*required, *_ROLES[kind][1]) if r in out]
    order += [r for r in out if r not in order]
    return pd.DataFrame({r: out[r] for r in order})
