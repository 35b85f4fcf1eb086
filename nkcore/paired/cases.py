"""Paired results with repeats: the case is the unit (one mean score per case and config over its repeats).

An evaluation often runs each case several times (inspect_ai epochs, promptfoo ``repeat``, lm-eval ``repeats``,
several raw samples) and may score in [0, 1] (partial credit, numeric scorers). The repeats of a case are
correlated (the same question is hard for every repeat), so they are neither thrown away (first repeat only) nor
counted as independent cases: per case and config, the mean score over the repeats; per case, the difference of
two configs' means; a test and interval at case level (:mod:`nkcore.paired.case_test`). Reference: Miller 2024,
"Adding Error Bars to Evals" (arXiv:2411.00640), sections 2-3 (clustered and resampled questions).

Layouts read: long, ``case, config, correct`` (or ``score``) with an optional repeat column (``repeat``; also
read as such: ``epoch``, ``sample``); wide, ``case`` (+ optional repeat column) and one column per config.
Values: 0/1 and the true/false words of :mod:`nkcore.common.truth`, or a score in [0, 1]. Pairing keeps the cases
every chosen config has at least one result for; repeats may differ per case and config (each case's mean uses
its own). One 0/1 repeat per case is today's :class:`nkcore.paired.PairedTable` (:meth:`CaseTable.to_paired`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common.rows import format_rows
from nkcore.common.truth import parse_truth
from nkcore.errors import DataError
from nkcore.kinds import show_value, to_text
from nkcore.kinds.columns import REPEAT_COLUMNS, SCORE_COLUMNS
from nkcore.paired.table import PairedTable, chosen_configs, parse_paired

__all__ = ["REPEAT_COLUMNS", "SCORE_COLUMNS", "CaseTable", "case_table_from_paired", "has_repeats", "parse_cases"]

_MAX_LISTED = 5


@dataclass(frozen=True, slots=True, eq=False)
class CaseTable:
    """Per-case results of several configs on the same cases, with every repeat kept as evidence.

    ``sums[i, j]`` is the sum of config ``configs[j]``'s scores over its ``repeats[i, j]`` repeats of case
    ``cases[i]``, ``sq_sums`` the sum of their squares (for within-case variances); ``binary`` is True when every
    score is 0 or 1. ``cases_per_config`` counts each config's cases before pairing, ``dropped_cases`` the cases
    left out because some config lacks them, ``repeat_column`` the column read as the repeat (None: one row per
    case and config).
    """

    layout: str
    configs: tuple[str, ...]
    cases: np.ndarray
    sums: np.ndarray
    sq_sums: np.ndarray
    repeats: np.ndarray
    binary: bool
    cases_per_config: tuple[int, ...]
    dropped_cases: int
    repeat_column: str | None = None

    @property
    def n_cases(self) -> int:
        """Number of paired cases."""
        return int(self.sums.shape[0])

    @property
    def means(self) -> np.ndarray:
        """Per-case mean score of each config over its repeats, shape (n_cases, n_configs)."""
        return self.sums / self.repeats

    @property
    def single(self) -> bool:
        """True for one 0/1 result per case and config: the McNemar setting (:meth:`to_paired`)."""
        return self.binary and int(self.repeats.max()) == 1

    def index_of(self, config: str) -> int:
        """The column of ``config``; DataError naming the configs present when it is not one of them.

        >>> parse_cases(pd.DataFrame({"case": [1, 2], "A": [1, 0], "B": [1, 1]})).index_of("B")
        1
        """
        try:
            return list(self.configs).index(str(config))
        except ValueError:
            raise DataError(
                f"unknown config {config!r}; the configs present are {', '.join(repr(c) for c in self.configs)}"
            ) from None

    def repeat_range(self, config: str) -> tuple[int, int]:
        """(fewest, most) repeats of one config over the paired cases."""
        r = self.repeats[:, self.index_of(config)]
        return int(r.min()), int(r.max())

    def to_paired(self) -> PairedTable:
        """The McNemar table of a one-0/1-repeat table; DataError when the table has repeats or partial scores."""
        if not self.single:
            raise DataError(
                "these results have repeats or scores between 0 and 1: they are compared case by case (the mean of "
                "each case's repeats), not with McNemar's 2x2 table"
            )
        return PairedTable(
            self.layout, self.configs, self.cases, self.sums == 1.0, self.cases_per_config, self.dropped_cases
        )


def case_table_from_paired(table: PairedTable) -> CaseTable:
    """A :class:`CaseTable` of one 0/1 repeat per case from a :class:`PairedTable` (same cases, order, counts)."""
    scores = table.correct.astype(float)
    return CaseTable(
        table.layout,
        table.configs,
        table.cases,
        scores,
        scores.copy(),
        np.ones(scores.shape, dtype=np.int64),
        True,
        table.cases_per_config,
        table.dropped_cases,
    )


def _find(columns: Sequence[object], names: Sequence[str]) -> str | None:
    for name in names:
        for c in columns:
            if isinstance(c, str) and c.strip().lower() == name:
                return c
    return None


def _partial(series: pd.Series) -> bool:
    """True when a score column holds a value that is not 0/1 and every such value is a number in [0, 1]."""
    truth = parse_truth(series)
    if not truth.bad.any():
        return False
    numbers = pd.to_numeric(series[truth.bad], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    return bool(np.all(np.isfinite(numbers) & (numbers >= 0.0) & (numbers <= 1.0)))


def has_repeats(frame: pd.DataFrame) -> bool:
    """True when a paired frame needs the case-level reading: a repeat column, or scores between 0 and 1.

    Everything else (one 0/1 result per case and config, and every malformed table) is read by
    :func:`nkcore.paired.parse_paired`, with its messages.

    >>> has_repeats(pd.DataFrame({"case": [1, 1], "config": ["A", "B"], "correct": [1, 0]}))
    False
    >>> has_repeats(pd.DataFrame({"case": [1, 1], "config": ["A", "B"], "correct": [1, 0], "epoch": [1, 1]}))
    True
    >>> has_repeats(pd.DataFrame({"case": [1, 1], "config": ["A", "B"], "score": [0.5, 1.0]}))
    True
    """
    columns = list(frame.columns)
    if _find(columns, ("case",)) is None:
        return False
    if _find(columns, REPEAT_COLUMNS) is not None:
        return True
    if _find(columns, ("config",)) is not None:
        correct_col = _find(columns, ("correct",))
        if correct_col is not None:
            return _partial(frame[correct_col])
        return _find(columns, ("score",)) is not None
    case_col = _find(columns, ("case",))
    return any(_partial(frame[c]) for c in columns if c != case_col)


def _scores(series: pd.Series, where: str, cases: np.ndarray, configs: np.ndarray | None) -> np.ndarray:
    """0/1 words or numbers in [0, 1] as floats (NaN where missing); DataError naming the bad rows."""
    truth = parse_truth(series)
    values = truth.values.copy()
    bad = truth.bad
    if bad.any():
        numbers = pd.to_numeric(series.where(bad), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        ok = bad & np.isfinite(numbers) & (numbers >= 0.0) & (numbers <= 1.0)
        values[ok] = numbers[ok]
        bad = bad & ~ok
    if bad.any():
        rows = np.flatnonzero(bad)
        raw = series.to_numpy(dtype=object)
        extra = [
            f"case {cases[r]!r}" + (f", config {configs[r]!r}" if configs is not None else "") + f": {raw[r]!r}"
            for r in rows[:_MAX_LISTED]
        ]
        raise DataError(
            f"{where} must be 0/1 (or true/false) or a score between 0 and 1; {len(rows)} row(s) are not: "
            f"{format_rows(rows, _MAX_LISTED, extra)}"
        )
    return values


def _repeat_numbers(series: pd.Series, name: str) -> np.ndarray:
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(numbers) | (numbers != np.round(numbers))
    if bad.any():
        rows = np.flatnonzero(bad)
        raise DataError(
            f"the repeat column {name!r} must hold whole numbers (1, 2, 3...); {len(rows)} row(s) do not: "
            f"{format_rows(rows, _MAX_LISTED)}"
        )
    return numbers.astype(np.int64)


def _case_ids(series: pd.Series) -> np.ndarray:
    missing = series.isna().to_numpy()
    if missing.any():
        raise DataError(f"missing case id in the 'case' column at {format_rows(np.flatnonzero(missing), _MAX_LISTED)}")
    return to_text(series).to_numpy(dtype=object)


def _long_rows(frame: pd.DataFrame, case_col: str, repeat_col: str | None) -> pd.DataFrame:
    """Long rows (case, config, repeat, score) of a long or wide frame."""
    cases = _case_ids(frame[case_col])
    columns = list(frame.columns)
    config_col = _find(columns, ("config",))
    repeat = _repeat_numbers(frame[repeat_col], repeat_col) if repeat_col is not None else np.ones(len(frame), int)
    if config_col is not None:
        score_col = _find(columns, SCORE_COLUMNS)
        if score_col is None:
            raise DataError(
                "the table has a 'config' column but no 'correct' (or 'score') column: the long layout needs "
                "'case, config, correct'"
            )
        cfg = frame[config_col]
        if cfg.isna().any():
            rows = np.flatnonzero(cfg.isna().to_numpy())
            raise DataError(f"missing config name in the 'config' column at {format_rows(rows, _MAX_LISTED)}")
        configs = cfg.astype("string").str.strip().to_numpy(dtype=object)
        values = _scores(frame[score_col], f"'{score_col}'", cases, configs)
        missing = np.isnan(values)
        if missing.any():
            rows = np.flatnonzero(missing)
            raise DataError(f"'{score_col}' is empty at {format_rows(rows, _MAX_LISTED)}: give every row a score")
        return pd.DataFrame({"case": cases, "config": configs, "repeat": repeat, "score": values})
    parts = []
    for col in columns:
        if col in (case_col, repeat_col):
            continue
        values = _scores(frame[col], f"config column {str(col)!r}", cases, None)
        keep = ~np.isnan(values)  # an empty cell: no result for this case
        name = str(col).strip()
        parts.append(pd.DataFrame({"case": cases[keep], "config": name, "repeat": repeat[keep], "score": values[keep]}))
    names = [str(c).strip() for c in columns if c not in (case_col, repeat_col)]
    if len(set(names)) != len(names):
        raise DataError("two config columns have the same name after trimming spaces")
    if not parts:
        raise DataError("a paired comparison needs at least two configs; found none")
    return pd.concat(parts, ignore_index=True)


def parse_cases(frame: pd.DataFrame, configs: Sequence[str] | None = None) -> CaseTable:
    """Parse paired results with repeats and scores in [0, 1] into a :class:`CaseTable` (the case is the unit).

    Per (case, config): the number of repeats R, the sum and the sum of squares of its scores; the case's mean is
    sum / R. Without a repeat column and with 0/1 values this is :func:`nkcore.paired.parse_paired` exactly (same
    cases, order, messages). With a repeat column a (case, config, repeat) may appear once; repeats may differ per
    case and config. ``configs`` restricts and orders the configs (default: all, in order of first appearance).

    >>> df = pd.DataFrame({"case": [1, 1, 1, 1, 2, 2, 2, 2], "config": ["A", "A", "B", "B"] * 2,
    ...                    "epoch": [1, 2, 1, 2] * 2, "correct": [1, 0, 1, 1, 0, 0, 1, 0]})
    >>> t = parse_cases(df)
    >>> t.configs, t.n_cases, t.means.tolist(), t.repeats.max()
    (('A', 'B'), 2, [[0.5, 1.0], [0.0, 0.5]], np.int64(2))
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError("paired results must be a table (a pandas DataFrame)")
    if frame.shape[0] == 0 or frame.shape[1] == 0 or not has_repeats(frame):
        return case_table_from_paired(parse_paired(frame, configs))
    columns = list(frame.columns)
    case_col = _find(columns, ("case",))
    if case_col is None:
        raise DataError(
            "no 'case' column: paired results need 'case, config, correct' (long) or 'case' plus one column per "
            f"config (wide); found columns {', '.join(repr(str(c)) for c in columns)}"
        )
    repeat_col = _find(columns, REPEAT_COLUMNS)
    layout = "long" if _find(columns, ("config",)) is not None else "wide"
    rows = _long_rows(frame, case_col, repeat_col)
    dup = rows.duplicated(["case", "config", "repeat"], keep=False).to_numpy()
    if dup.any():
        at = np.flatnonzero(dup)
        first = rows.iloc[at[0]]
        what = "(case, config, repeat)" if repeat_col is not None else "(case, config)"
        raise DataError(
            f"duplicate {what} rows: {len(at)} rows repeat one, e.g. case {first['case']!r} with config "
            f"{first['config']!r}" + (f", repeat {int(first['repeat'])}" if repeat_col is not None else "") + "; "
            f"{format_rows(at, _MAX_LISTED)}. Number the repeats in a 'repeat' column, once each."
        )
    case_codes, case_order = pd.factorize(rows["case"])
    cfg_codes, cfg_order = pd.factorize(rows["config"])
    present = [str(c) for c in cfg_order]
    chosen = chosen_configs(present, configs)
    if len(chosen) < 2:
        only = f"only {', '.join(repr(c) for c in chosen)}" if chosen else "none"
        raise DataError(f"a paired comparison needs at least two configs; found {only}")
    shape = (len(case_order), len(present))
    score = rows["score"].to_numpy(dtype=float)
    sums, sq, reps = np.zeros(shape), np.zeros(shape), np.zeros(shape, dtype=np.int64)
    np.add.at(sums, (case_codes, cfg_codes), score)
    np.add.at(sq, (case_codes, cfg_codes), score * score)
    np.add.at(reps, (case_codes, cfg_codes), 1)
    cols = [present.index(c) for c in chosen]
    sums, sq, reps = sums[:, cols], sq[:, cols], reps[:, cols]
    have = reps > 0
    per_config = tuple(int(x) for x in have.sum(axis=0))
    complete = have.all(axis=1)
    if not complete.any():
        raise DataError(
            "no case has results for every config, so nothing can be paired (cases per config: "
            + ", ".join(f"{show_value(c)}: {k}" for c, k in zip(chosen, per_config, strict=True))
            + ")"
        )
    used = rows["config"].isin(chosen).to_numpy() & rows["case"].isin(case_order[complete]).to_numpy()
    binary = bool(np.all((score[used] == 0.0) | (score[used] == 1.0)))  # the compared configs' paired cases
    return CaseTable(
        layout=layout,
        configs=tuple(chosen),
        cases=np.asarray(case_order, dtype=object)[complete],
        sums=sums[complete],
        sq_sums=sq[complete],
        repeats=reps[complete],
        binary=binary,
        cases_per_config=per_config,
        dropped_cases=int(have.any(axis=1).sum() - complete.sum()),
        repeat_column=repeat_col,
    )
