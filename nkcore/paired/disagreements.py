"""The cases behind a verdict: the cases two configs disagree on, with each config's answers and the gold.

Per paired case i and config X, the mean score over its R_X(i) repeats, s_X(i) = (1 / R_X(i)) sum_r c_X(i, r)
(one repeat, 0/1: the result itself), and the per-case difference d(i) = s_B(i) - s_A(i). The configs disagree on
case i when d(i) != 0. With one 0/1 result per case and config these are McNemar's discordant cases: the count of
d(i) = -1 is b (only A right), of d(i) = +1 is c (only B right), and mean(d) is the difference in accuracy the
verdict quotes. With repeats or scores in [0, 1] they are the cases the sign-flip test on the case means counts
(A higher, B higher). Cases, pairing and scores are read as :func:`nkcore.paired.parse_cases` reads them (the
Compare page's numbers), so the rows are the cases behind the page's counts. Reference: McNemar (1947); Miller
2024, "Adding Error Bars to Evals" (arXiv:2411.00640), section 3 (the case as the unit).

The side by side of promptfoo's viewer: for each case the answers of both configs, one per repeat in repeat order
("x, x, y"), and the gold, where the run recorded them (a long table's ``answer`` and ``gold`` columns).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.kinds import to_text
from nkcore.paired.cases import REPEAT_COLUMNS, parse_cases

__all__ = ["DISAGREEMENT_COLUMNS", "Side", "disagreements", "select_disagreements"]

DISAGREEMENT_COLUMNS: tuple[str, ...] = ("case", "score A", "score B", "difference", "answers A", "answers B", "gold")
"""The columns of :func:`disagreements`: case id, each config's case mean, B minus A, each config's answers (one
per repeat, ", "-separated) and the gold (None where the run recorded none)."""

Side = Literal["all", "a", "b"]
"""Which disagreements :func:`select_disagreements` keeps: all, those A wins (difference < 0), those B wins (> 0)."""

ANSWER_SEPARATOR = ", "


def _column(columns: Sequence[object], names: Sequence[str]) -> object | None:
    """The first column whose name, trimmed and lower-cased, is one of ``names`` (in the order of ``names``)."""
    for name in names:
        for c in columns:
            if isinstance(c, str) and c.strip().lower() == name:
                return c
    return None


def _joined(values: pd.Series) -> str | None:
    """Answers in their order as one text ("x, x, y"; a missing answer is "–"); None when every one is missing."""
    if values.isna().all():
        return None
    return ANSWER_SEPARATOR.join("–" if pd.isna(v) else str(v) for v in values)


def _distinct(values: pd.Series) -> str | None:
    """The distinct recorded values (golds of a case) in their order, ", "-joined; None when none is recorded."""
    seen = [str(v) for v in pd.unique(values.dropna())]
    return ANSWER_SEPARATOR.join(seen) if seen else None


def _texts(
    frame: pd.DataFrame, cases: np.ndarray, config_a: str, config_b: str
) -> tuple[list[str | None], list[str | None], list[str | None]]:
    """Per case of ``cases``: A's answers, B's answers (in repeat order) and the gold, from a long table's ``answer``
    and ``gold`` columns (all None when the table has none of them, or is wide)."""
    none: list[str | None] = [None] * len(cases)
    columns = list(frame.columns)
    case_col, config_col = _column(columns, ("case",)), _column(columns, ("config",))
    answer_col, gold_col = _column(columns, ("answer",)), _column(columns, ("gold",))
    if case_col is None or config_col is None or (answer_col is None and gold_col is None):
        return none, list(none), list(none)
    repeat_col = _column(columns, REPEAT_COLUMNS)
    rows = pd.DataFrame(
        {
            "case": to_text(frame[case_col]).to_numpy(dtype=object),
            "config": frame[config_col].astype("string").str.strip().to_numpy(dtype=object),
            "repeat": (
                pd.to_numeric(frame[repeat_col], errors="coerce").to_numpy(dtype=float)
                if repeat_col is not None
                else np.zeros(len(frame))
            ),
            "answer": frame[answer_col].to_numpy(dtype=object) if answer_col is not None else None,
            "gold": frame[gold_col].to_numpy(dtype=object) if gold_col is not None else None,
        }
    )
    rows = rows[rows["case"].isin(set(cases))].sort_values(["case", "repeat"], kind="stable")
    answers: dict[str, dict[object, str | None]] = {}
    for config in (config_a, config_b):
        mine = rows[rows["config"] == config]
        answers[config] = mine.groupby("case", sort=False)["answer"].agg(_joined).to_dict() if answer_col else {}
    gold = rows.groupby("case", sort=False)["gold"].agg(_distinct).to_dict() if gold_col is not None else {}
    return (
        [answers[config_a].get(c) for c in cases],
        [answers[config_b].get(c) for c in cases],
        [gold.get(c) for c in cases],
    )


def disagreements(
    frame: pd.DataFrame, config_a: str, config_b: str, configs: Sequence[str] | None = None
) -> pd.DataFrame:
    """The cases configs ``config_a`` (A) and ``config_b`` (B) disagree on, largest disagreement first.

    ``frame``: paired results as :func:`nkcore.paired.parse_cases` reads them (long or wide, with or without a
    repeat column, 0/1 or scores in [0, 1]); the cases are paired over ``configs`` (default: A and B), so that with
    the configs a page compared the rows are that page's paired cases. Per case i: s_A(i), s_B(i) the mean scores over
    the repeats and d(i) = s_B(i) - s_A(i); the rows are the cases with d(i) != 0, sorted by |d(i)| descending (ties
    in the order the cases first appear). Columns: :data:`DISAGREEMENT_COLUMNS`. With one 0/1 result per case and
    config the rows are McNemar's discordant cases: (difference < 0).sum() is b (only A right) and
    (difference > 0).sum() is c (only B right).

    >>> df = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "config": ["A", "B"] * 3, "correct": [1, 0, 1, 1, 0, 1],
    ...                    "answer": ["4", "5", "7", "7", "x", "9"], "gold": ["4", "4", "7", "7", "9", "9"]})
    >>> disagreements(df, "A", "B").to_dict("list")  # doctest: +NORMALIZE_WHITESPACE
    {'case': ['1', '3'], 'score A': [1.0, 0.0], 'score B': [0.0, 1.0], 'difference': [-1.0, 1.0],
     'answers A': ['4', 'x'], 'answers B': ['5', '9'], 'gold': ['4', '9']}
    """
    config_a, config_b = str(config_a), str(config_b)
    if config_a == config_b:
        raise DataError(f"choose two different configs to compare; both are {config_a!r}")
    chosen = [config_a, config_b] if configs is None else [str(c) for c in configs]
    missing = [c for c in (config_a, config_b) if c not in chosen]
    if missing:
        raise DataError(f"config {missing[0]!r} is not among the compared configs ({', '.join(chosen)})")
    table = parse_cases(frame, chosen)
    means = table.means
    score_a, score_b = means[:, table.index_of(config_a)], means[:, table.index_of(config_b)]
    diff = score_b - score_a
    keep = np.flatnonzero(diff != 0.0)
    keep = keep[np.argsort(-np.abs(diff[keep]), kind="stable")]
    cases = np.asarray(table.cases, dtype=object)[keep]
    answers_a, answers_b, gold = _texts(frame, cases, config_a, config_b)
    return pd.DataFrame(
        {
            "case": pd.Series(cases, dtype=object),
            "score A": score_a[keep],
            "score B": score_b[keep],
            "difference": diff[keep],
            "answers A": pd.Series(answers_a, dtype=object),
            "answers B": pd.Series(answers_b, dtype=object),
            "gold": pd.Series(gold, dtype=object),
        },
        columns=list(DISAGREEMENT_COLUMNS),
    )


def select_disagreements(table: pd.DataFrame, side: Side = "all", case_text: str = "") -> pd.DataFrame:
    """The rows of a :func:`disagreements` table on one ``side`` ("a": A scores higher, difference < 0; "b": B
    higher, > 0; "all") whose case id contains ``case_text`` (case-insensitive, spaces around it ignored).

    >>> t = pd.DataFrame({"case": ["q1", "q12", "q2"], "difference": [-1.0, 1.0, 0.5]})
    >>> select_disagreements(t, "b", "Q1")["case"].tolist()
    ['q12']
    """
    if side not in ("all", "a", "b"):
        raise DataError(f"side must be 'all', 'a' or 'b'; got {side!r}")
    keep = np.ones(len(table), dtype=bool)
    if side == "a":
        keep &= (table["difference"] < 0).to_numpy()
    elif side == "b":
        keep &= (table["difference"] > 0).to_numpy()
    text = case_text.strip().lower()
    if text:
        keep &= table["case"].astype(str).str.lower().str.contains(text, regex=False).to_numpy()
    return table[keep].reset_index(drop=True)
