"""Paired per-case results as a table: parsing the long and wide layouts, pairing the cases, 2x2 counts.

Two or more configs run on the same cases give one 0/1 result per (case, config). A long table has one row per
case and config (``case, config, correct``); a wide table has a ``case`` column and one 0/1 column per config.
Pairing keeps only the cases every chosen config has a result for. 0/1 values are read with the product's one
true/false vocabulary (:mod:`nkcore.common.truth`); row numbers in messages are data rows counted from 1
(:mod:`nkcore.common.rows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.rows import format_rows
from nkcore.common.truth import parse_truth
from nkcore.errors import DataError
from nkcore.kinds import show_value, to_text

__all__ = ["PairedTable", "chosen_configs", "paired_table_from_counts", "parse_paired"]

_MAX_LISTED = 5  # rows named in one message (each with its case, config and value)


@dataclass(frozen=True, slots=True, eq=False)
class PairedTable:
    """Per-case 0/1 results of several configs on the same (paired) cases.

    ``correct[i, j]`` is True when config ``configs[j]`` got case ``cases[i]`` right. Only cases present
    for every config are kept; ``cases_per_config`` counts each config's cases before pairing and
    ``dropped_cases`` how many cases were dropped because some config lacked them.
    """

    layout: str  # "long" or "wide"
    configs: tuple[str, ...]
    cases: np.ndarray  # case ids as str, shape (n_cases,)
    correct: np.ndarray  # bool, shape (n_cases, n_configs)
    cases_per_config: tuple[int, ...]
    dropped_cases: int

    @property
    def n_cases(self) -> int:
        """Number of paired cases (present for every config)."""
        return int(self.correct.shape[0])

    def index_of(self, config: str) -> int:
        """The column of ``config``; DataError naming the configs present when it is not one of them.

        >>> paired_table_from_counts("A", "B", 1, 0, 0, 1).index_of("B")
        1
        """
        try:
            return list(self.configs).index(str(config))
        except ValueError:
            raise DataError(
                f"unknown config {config!r}; the configs present are {', '.join(repr(c) for c in self.configs)}"
            ) from None

    def column(self, config: str) -> np.ndarray:
        """The bool correctness vector of one config over the paired cases."""
        return self.correct[:, self.index_of(config)]


def _find_column(columns: Sequence[str], name: str) -> str | None:
    for c in columns:
        if str(c).strip().lower() == name:
            return c
    return None


def _case_ids(series: pd.Series) -> np.ndarray:
    """Case ids as text by the product's rule for ids (:func:`nkcore.kinds.to_text`): a whole float (3.0) reads as
    "3" so it matches the id read as an integer, exactly when it is below 2**53 in size; larger or infinite floats
    keep their float text ("1e+19"), never a wrapped int64."""
    missing = series.isna().to_numpy()
    if missing.any():
        raise DataError(f"missing case id in the 'case' column at {format_rows(np.flatnonzero(missing), _MAX_LISTED)}")
    return to_text(series).to_numpy(dtype=object)


def chosen_configs(present: Sequence[str], configs: Sequence[str] | None) -> list[str]:
    """The configs to compare, in the order asked (all present ones when ``configs`` is None); DataError naming the
    configs present for an unknown one, or one chosen twice.

    >>> chosen_configs(["A", "B", "C"], ["C", "A"]), chosen_configs(["A", "B"], None)
    (['C', 'A'], ['A', 'B'])
    """
    if configs is None:
        return [str(c) for c in present]
    chosen = [str(c) for c in configs]
    unknown = [c for c in chosen if c not in present]
    if unknown:
        raise DataError(
            f"unknown config {', '.join(repr(c) for c in unknown)}; the configs present are "
            f"{', '.join(repr(c) for c in present)}"
        )
    if len(set(chosen)) != len(chosen):
        raise DataError(f"a config is chosen twice: {', '.join(repr(c) for c in chosen)}")
    return chosen


def parse_paired(frame: pd.DataFrame, configs: Sequence[str] | None = None) -> PairedTable:
    """Parse paired per-case results (long or wide, auto-detected) into a :class:`PairedTable`.

    Long: columns ``case, config, correct`` (one row per case and config; extra columns are ignored).
    Wide: a ``case`` column and one 0/1 column per config (an empty cell means "this config has no result
    for this case"). Column names are matched case-insensitively. ``correct`` values may be 0/1, booleans
    or the words of :mod:`nkcore.common.truth` (true/false, yes/no, correct/wrong...). Only cases present for
    every selected config are kept (pairing); the count of dropped cases is reported. ``configs`` restricts (and
    orders) the configs used; by default all configs in order of first appearance (long) or column order (wide).

    Raises DataError for: an empty table, no ``case`` column, values other than 0/1 (naming the data rows),
    duplicate (case, config) rows, an unknown config in ``configs`` (listing those present), fewer than
    two configs, or no case shared by all configs.

    Example (long):

    >>> df = pd.DataFrame({"case": [1, 1, 2, 2], "config": ["A", "B", "A", "B"], "correct": [1, 1, 0, 1]})
    >>> t = parse_paired(df)
    >>> t.configs, t.n_cases, t.correct.sum(axis=0).tolist()
    (('A', 'B'), 2, [1, 2])
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError("paired results must be a table (a pandas DataFrame)")
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise DataError(
            "the paired-results table is empty: it needs a 'case' column and results for two or more configs"
        )
    columns = list(frame.columns)
    case_col = _find_column(columns, "case")
    if case_col is None:
        raise DataError(
            "no 'case' column: paired results need 'case, config, correct' (long) or 'case' plus one 0/1 column per "
            f"config (wide); found columns {', '.join(repr(str(c)) for c in columns)}"
        )
    config_col = _find_column(columns, "config")
    correct_col = _find_column(columns, "correct")
    if config_col is not None and correct_col is not None:
        wide, layout = _long_to_wide(frame, case_col, config_col, correct_col), "long"
    elif config_col is not None or correct_col is not None:
        have, lack = ("config", "correct") if config_col is not None else ("correct", "config")
        raise DataError(
            f"the table has a '{have}' column but no '{lack}' column: the long layout needs 'case, config, correct'"
        )
    else:
        wide, layout = _parse_wide(frame, case_col), "wide"

    present = list(wide.columns)
    if configs is not None:
        wide = wide[chosen_configs(present, configs)]
    if wide.shape[1] < 2:
        only = f"only {', '.join(repr(c) for c in wide.columns)}" if wide.shape[1] else "none"
        raise DataError(f"a paired comparison needs at least two configs; found {only}")
    values = wide.to_numpy(dtype=float)
    have = ~np.isnan(values)
    per_config = tuple(int(x) for x in have.sum(axis=0))
    any_result = have.any(axis=1)
    complete = have.all(axis=1)
    if not complete.any():
        raise DataError(
            "no case has results for every config, so nothing can be paired (cases per config: "
            + ", ".join(f"{show_value(str(c))}: {k}" for c, k in zip(wide.columns, per_config, strict=True))
            + ")"
        )
    return PairedTable(
        layout=layout,
        configs=tuple(str(c) for c in wide.columns),
        cases=wide.index.to_numpy(dtype=object)[complete],
        correct=values[complete] == 1.0,
        cases_per_config=per_config,
        dropped_cases=int(any_result.sum() - complete.sum()),
    )


def _long_to_wide(frame: pd.DataFrame, case_col: str, config_col: str, correct_col: str) -> pd.DataFrame:
    """Long rows -> a case x config frame of 1.0/0.0/NaN, with precise errors."""
    cases = _case_ids(frame[case_col])
    cfg_series = frame[config_col]
    if cfg_series.isna().any():
        rows = np.flatnonzero(cfg_series.isna().to_numpy())
        raise DataError(f"missing config name in the 'config' column at {format_rows(rows, _MAX_LISTED)}")
    cfgs = cfg_series.astype("string").str.strip().to_numpy(dtype=object)
    truth = parse_truth(frame[correct_col])
    if truth.bad.any() or truth.missing.any():
        rows = np.flatnonzero(truth.bad | truth.missing)
        raw = frame[correct_col].to_numpy(dtype=object)
        extra = [f"case {cases[r]!r}, config {cfgs[r]!r}: {raw[r]!r}" for r in rows[:_MAX_LISTED]]
        raise DataError(
            f"'correct' must be 0 or 1; {len(rows)} row(s) are not: {format_rows(rows, _MAX_LISTED, extra)}"
        )
    keys = pd.DataFrame({"case": cases, "config": cfgs})
    dup = keys.duplicated(keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup)
        first = keys.iloc[rows[0]]
        raise DataError(
            f"duplicate (case, config) rows: {len(rows)} rows repeat a (case, config) pair, e.g. case "
            f"{first['case']!r} with config {first['config']!r}; {format_rows(rows, _MAX_LISTED)}. "
            "Keep one row per case and config."
        )
    case_codes, case_order = pd.factorize(keys["case"])
    cfg_codes, cfg_order = pd.factorize(keys["config"])
    grid = np.full((len(case_order), len(cfg_order)), np.nan)
    grid[case_codes, cfg_codes] = truth.values
    return pd.DataFrame(grid, index=pd.Index(np.asarray(case_order, dtype=object)), columns=list(cfg_order))


def _parse_wide(frame: pd.DataFrame, case_col: str) -> pd.DataFrame:
    """Wide: 'case' + one 0/1 column per config -> case x config frame of 1.0/0.0/NaN."""
    cases = _case_ids(frame[case_col])
    dup = pd.Series(cases).duplicated(keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup)
        raise DataError(
            f"duplicate case ids in the wide table: case {cases[rows[0]]!r} and others at "
            f"{format_rows(rows, _MAX_LISTED)}; keep one row per case"
        )
    out = {}
    for col in frame.columns:
        if col == case_col:
            continue
        truth = parse_truth(frame[col])  # an empty cell: no result for this case
        if truth.bad.any():
            rows = np.flatnonzero(truth.bad)
            raw = frame[col].to_numpy(dtype=object)
            extra = [f"case {cases[r]!r}: {raw[r]!r}" for r in rows[:_MAX_LISTED]]
            raise DataError(
                f"config column {str(col)!r} must hold 0 or 1 (or be empty); {len(rows)} row(s) do not: "
                f"{format_rows(rows, _MAX_LISTED, extra)}"
            )
        out[str(col).strip()] = truth.values
    if len(out) != len([c for c in frame.columns if c != case_col]):
        raise DataError("two config columns have the same name after trimming spaces")
    return pd.DataFrame(out, index=pd.Index(cases, dtype=object))


def paired_table_from_counts(
    config_a: str, config_b: str, both_correct: int, a_only: int, b_only: int, both_wrong: int
) -> PairedTable:
    """A two-config :class:`PairedTable` from the 2x2 counts (cases numbered c1, c2, ...).

    The rows are the four outcome types repeated by their counts: (right, right) ``both_correct`` times, then
    (right, wrong) ``a_only``, (wrong, right) ``b_only`` and (wrong, wrong) ``both_wrong`` times. At most the
    request limit of cases (:mod:`nkcore.common.limits`, "cases").

    Example: the chapter's n=3 -> n=5 comparison (151 both right, 5 only n=3, 7 only n=5, 37 both wrong).

    >>> t = paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37)
    >>> t.n_cases, t.correct.sum(axis=0).tolist()
    (200, [156, 158])
    """
    counts = [both_correct, a_only, b_only, both_wrong]
    if any(int(c) != c or c < 0 for c in counts):
        raise DataError(f"2x2 counts must be non-negative whole numbers; got {counts}")
    limits.check("cases", sum(int(c) for c in counts), "the 2x2 table")
    pattern = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=bool)
    correct = np.repeat(pattern, [int(c) for c in counts], axis=0)
    if correct.shape[0] == 0:
        raise DataError("the 2x2 counts add up to zero cases")
    cases = np.array([f"c{i + 1}" for i in range(correct.shape[0])], dtype=object)
    n = correct.shape[0]
    return PairedTable("wide", (str(config_a), str(config_b)), cases, correct, (n, n), 0)
