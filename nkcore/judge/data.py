"""A judge table: one row per (case[, config]), one or several judges' scores, the human score where a human gave one.

Scales: a judge's score stays on its own scale (a 1-5 judge against 1-5 humans, a 0/1 verdict against a human
0/1; PPI corrects the level, and its power tuning the spread). Numbers are read as numbers; true/false words as
1/0 (``nkcore.common.truth``); pairwise verdicts (``scale="pairwise"``, or found when a column holds "tie", "A" or
"B") as the score of response 1: 1 -> 1, 2 -> 0, 0 / tie -> 0.5 (also A -> 1, B -> 0). The human score is empty
(NaN) where no human labelled the case; or the human labels come in a second file joined on the case
(:func:`join_human`). Every judge must score every case; ``fill_missing_judge`` fills a missing
score with the judge's mean on the config's other cases (a prediction that uses no human label, so PPI stays valid).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from nkcore.common.rows import format_rows
from nkcore.common.truth import parse_truth
from nkcore.errors import DataError
from nkcore.io import read_table

__all__ = [
    "PAIRWISE_SCORES",
    "SCALES",
    "JudgeTable",
    "join_human",
    "judge_table",
    "pairwise_scores",
    "read_judge_table",
]

SCALES: tuple[str, ...] = ("auto", "numeric", "pairwise")
"""How score columns are read (``--scale``)."""
PAIRWISE_SCORES: dict[str, float] = {
    "1": 1.0,
    "1.0": 1.0,
    "2": 0.0,
    "2.0": 0.0,
    "0": 0.5,
    "0.0": 0.5,
    "tie": 0.5,
    "a": 1.0,
    "b": 0.0,
}
"""A pairwise verdict (which response is better) as the score of response 1."""
_PAIRWISE_HINTS = frozenset({"tie", "a", "b"})


@dataclass(frozen=True, slots=True, eq=False)
class JudgeTable:
    """A judge table, checked. ``frame``: columns ``case`` and ``config`` (text), ``human`` (float, NaN where
    unlabelled) and one float column per judge (named as in ``judges``), one row per (case, config).

    ``configs`` in the file's order; ``scale`` "numeric" or "pairwise"; ``paired`` True when a case column was
    given (configs then share cases, and differences between configs are taken case by case); ``filled`` the judge
    scores filled in per judge; ``notes`` what was done while reading.
    """

    frame: pd.DataFrame
    judges: tuple[str, ...]
    configs: tuple[str, ...]
    scale: str
    paired: bool
    filled: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()
    rows_of: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def n_human(self) -> int:
        """Rows with a human score."""
        return int(self.frame["human"].notna().sum())

    def config_frame(self, config: str) -> pd.DataFrame:
        """The rows of one config (through ``rows_of``, each config's row positions, when the table has it)."""
        if config in self.rows_of:
            return self.frame.iloc[self.rows_of[config]]
        return self.frame[self.frame["config"] == config]


def pairwise_scores(series: pd.Series, column: str) -> np.ndarray:
    """Pairwise verdicts as response 1's score (:data:`PAIRWISE_SCORES`); NaN where empty; DataError naming rows.

    >>> pairwise_scores(pd.Series([1, 2, 0, "Tie", None]), "v").tolist()
    [1.0, 0.0, 0.5, 0.5, nan]
    """
    text = series.astype("string").str.strip().str.lower()
    missing = (text.isna() | (text == "")).to_numpy(dtype=bool, na_value=True)
    mapped = text.map(PAIRWISE_SCORES).astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    bad = ~missing & np.isnan(mapped)
    if bad.any():
        pos = np.flatnonzero(bad)
        shown = ", ".join(repr(str(series.iloc[i])) for i in pos[:3])
        raise DataError(
            f"column {column!r} holds values that are not pairwise verdicts on {format_rows(pos)} ({shown}): "
            "use 1 (response 1 better), 2 (response 2 better) or 0 / tie"
        )
    return mapped


def _numeric(series: pd.Series, column: str) -> np.ndarray:
    if pd.api.types.is_bool_dtype(series.dtype):
        return parse_truth(series).values
    num = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    text = series.astype("string").str.strip()
    missing = (text.isna() | (text == "")).to_numpy(dtype=bool, na_value=True)
    bad = ~missing & np.isnan(num)
    if bad.any():
        truth = parse_truth(series)
        if not truth.bad.any():
            return truth.values
        pos = np.flatnonzero(bad)
        shown = ", ".join(repr(str(series.iloc[i])) for i in pos[:3])
        raise DataError(
            f"column {column!r} holds values that are not numbers on {format_rows(pos)} ({shown}): give scores as "
            "numbers (or 0/1, true/false; pairwise verdicts 1 / 2 / tie with --scale pairwise)"
        )
    if np.isinf(num).any():
        raise DataError(f"column {column!r} holds an infinite value on {format_rows(np.flatnonzero(np.isinf(num)))}")
    return num


def _looks_pairwise(series: pd.Series) -> bool:
    if pd.api.types.is_numeric_dtype(series.dtype):
        return False
    text = series.dropna().astype("string").str.strip().str.lower()
    text = text[text != ""]
    return bool(len(text) and text.isin(_PAIRWISE_HINTS).any() and text.isin(PAIRWISE_SCORES).all())


def _scores(series: pd.Series, column: str, scale: str) -> np.ndarray:
    return pairwise_scores(series, column) if scale == "pairwise" else _numeric(series, column)


def _column(frame: pd.DataFrame, name: str, flag: str) -> pd.Series:
    if name not in frame.columns:
        have = ", ".join(map(str, list(frame.columns)[:12]))
        raise DataError(f"{flag}: no column {name!r} in the file; it has {have}")
    return frame[name]


def _ids(series: pd.Series, what: str) -> pd.Series:
    missing = series.isna().to_numpy()
    if missing.any():
        raise DataError(f"the {what} column is empty on {format_rows(np.flatnonzero(missing))}: every row needs one")
    out = series.astype("string").str.strip()
    whole = pd.to_numeric(series, errors="coerce")
    if pd.api.types.is_float_dtype(series.dtype) and bool((whole == whole.round()).all()):
        out = whole.astype("Int64").astype("string")
    return out.astype(str)


def judge_table(
    frame: pd.DataFrame,
    judge_columns: Sequence[str],
    human_column: str,
    config_column: str | None = None,
    case_column: str | None = None,
    scale: str = "auto",
    fill_missing_judge: bool = False,
) -> JudgeTable:
    """Check and normalise a judge table (module docstring): scores as floats on their scales, ids as text.

    DataError for a missing column, a non-numeric score, a repeated (case, config), a missing judge score (unless
    ``fill_missing_judge``), or a config with fewer than 2 human labels.

    >>> t = judge_table(pd.DataFrame({"j": [4, 2, 5, 3], "h": [5, None, 4, None]}), ["j"], "h")
    >>> t.n_human, t.configs, t.frame["human"].tolist()
    (2, ('all',), [5.0, nan, 4.0, nan])
    """
    if scale not in SCALES:
        raise DataError(f"--scale must be one of {', '.join(SCALES)}; got {scale!r}")
    judges = list(dict.fromkeys(judge_columns))
    if not judges:
        raise DataError("give at least one judge column (--judge-column)")
    if human_column in judges:
        raise DataError(f"the human column {human_column!r} is also given as a judge column")
    if len(frame) == 0:
        raise DataError("the file has no rows")
    raw = {j: _column(frame, j, "--judge-column") for j in judges}
    human_raw = _column(frame, human_column, "--human-column")
    if scale == "auto":
        scale = "pairwise" if any(_looks_pairwise(s) for s in [*raw.values(), human_raw]) else "numeric"
    n = len(frame)
    configs = _ids(_column(frame, config_column, "--config-column"), "config") if config_column else None
    cases = _ids(_column(frame, case_column, "--case-column"), "case") if case_column else None
    out = pd.DataFrame(
        {
            "case": cases.to_numpy() if cases is not None else np.arange(n).astype(str),
            "config": configs.to_numpy() if configs is not None else np.full(n, "all", dtype=object),
            "human": _scores(human_raw, human_column, scale),
        }
    )
    dup = out.duplicated(["case", "config"], keep=False).to_numpy()
    if dup.any():
        raise DataError(
            f"the same case appears twice for one config on {format_rows(np.flatnonzero(dup))}: keep one row per "
            "case and config (average repeats first)"
        )
    notes: list[str] = []
    filled: list[int] = []
    for j in judges:
        vals = _scores(raw[j], j, scale)
        miss = np.isnan(vals)
        if miss.any() and not fill_missing_judge:
            raise DataError(
                f"judge column {j!r} is empty on {format_rows(np.flatnonzero(miss))}: the judge must score every case "
                "(score them, drop those rows, or use --fill-missing-judge)"
            )
        if miss.any():
            means = pd.Series(vals).groupby(out["config"].to_numpy()).transform("mean").to_numpy(dtype=float)
            if np.isnan(means[miss]).any():
                raise DataError(f"judge column {j!r} scores no case of some config: nothing to fill its scores with")
            vals = np.where(miss, means, vals)
            notes.append(
                f"{int(miss.sum())} missing score(s) of judge {j!r} filled with the judge's mean on the config"
            )
        filled.append(int(miss.sum()))
        out[j] = vals
    order = tuple(pd.unique(out["config"]))
    _check_labels(out, order)
    rows_of = {str(k): np.asarray(v) for k, v in out.groupby("config", sort=False).indices.items()}
    return JudgeTable(
        out,
        tuple(judges),
        tuple(str(c) for c in order),
        scale,
        case_column is not None,
        tuple(filled),
        tuple(notes),
        rows_of,
    )


def _check_labels(out: pd.DataFrame, configs: Sequence[object]) -> None:
    labelled = out["human"].notna()
    if not labelled.any():
        raise DataError(
            "the human column is empty on every row: PPI needs human labels on a random sample of the cases "
            "(at least 2 per config)"
        )
    counts = labelled.groupby(out["config"]).sum()
    few = [str(c) for c in configs if int(counts.get(c, 0)) < 2]
    if few:
        shown = ", ".join(repr(c) for c in few[:5]) + (f" and {len(few) - 5} more" if len(few) > 5 else "")
        raise DataError(
            f"config {shown} has fewer than 2 human labels: label at least 2 random cases of every config by hand"
        )


def join_human(
    frame: pd.DataFrame,
    humans: pd.DataFrame,
    human_column: str,
    case_column: str | None,
    config_column: str | None = None,
) -> pd.DataFrame:
    """The judge file with the human scores of a second file joined on the case (and the config, when the second
    file has the config column): a left join, so cases without a human row stay unlabelled. DataError when the
    case column is not given, a key column is missing, the judge file already has the human column, or the
    second file repeats a key.

    >>> f = pd.DataFrame({"case": [1, 2, 3], "judge": [4, 2, 5]})
    >>> join_human(f, pd.DataFrame({"case": [3, 1], "human": [5, 3]}), "human", "case")["human"].tolist()
    [3.0, nan, 5.0]
    """
    if case_column is None:
        raise DataError("a second file of human labels is joined on the case: give --case-column")
    if human_column in frame.columns:
        raise DataError(f"the judge file already has a column {human_column!r}: give the human labels in one place")
    keys = [case_column] + ([config_column] if config_column and config_column in humans.columns else [])
    for k in [*keys, human_column]:
        _column(humans, k, "the human-labels file")
    _column(frame, case_column, "--case-column")
    right = humans[[*keys, human_column]].copy()
    left_keys = pd.DataFrame({k: _ids(frame[k], k) for k in keys})
    right_keys = pd.DataFrame({k: _ids(right[k], k) for k in keys})
    dup = right_keys.duplicated(keep=False).to_numpy()
    if dup.any():
        raise DataError(
            f"the human-labels file repeats a case on {format_rows(np.flatnonzero(dup))}: keep one label per case "
            "(average several raters first)"
        )
    right_keys[human_column] = right[human_column].to_numpy()
    joined = left_keys.merge(right_keys, on=keys, how="left")
    out = frame.copy()
    out[human_column] = joined[human_column].to_numpy()
    return out


def read_judge_table(
    path: str | Path,
    judge_columns: Sequence[str],
    human_column: str,
    config_column: str | None = None,
    case_column: str | None = None,
    scale: str = "auto",
    fill_missing_judge: bool = False,
    human_path: str | Path | None = None,
) -> JudgeTable:
    """A judge file (CSV / TSV / Parquet / JSONL, through :func:`nkcore.io.read_table` and its limits) read and
    checked by :func:`judge_table`; ``human_path``: the human labels in a second file (:func:`join_human`)."""
    frame = read_table(Path(path))
    if human_path is not None:
        frame = join_human(frame, read_table(Path(human_path)), human_column, case_column, config_column)
    return judge_table(frame, judge_columns, human_column, config_column, case_column, scale, fill_missing_judge)
