"""Whole runs at once (numpy): the state after every case, for the CLI, the Compare page and the simulations.

The same formulas as :class:`nkcore.sequential.Monitor` (which updates one case at a time in plain floats), written
over arrays; the tests check that both give the same decision point, anytime p and band after every case. The case
order is the file's (the order cases first appear in the table) or a column's (time, index; ties keep file order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore import paired
from nkcore.common.checks import check_significance
from nkcore.common.rows import format_rows
from nkcore.errors import DataError
from nkcore.kinds import to_text
from nkcore.paired.cases import REPEAT_COLUMNS
from nkcore.sequential.bounded import eb_path
from nkcore.sequential.mixture import PRIOR, beta_mixture_bounds, log_e_value
from nkcore.sequential.monitor import DISCORDANCE_SHARE

__all__ = [
    "METHODS",
    "Look",
    "SequentialPath",
    "SequentialRun",
    "binary_path",
    "case_order",
    "order_columns",
    "scores_path",
    "sequential_compare",
]

METHODS = {
    "binary": "mixture SPRT on the discordant cases (Beta(4, 4) mixture), anytime-valid",
    "scores": "empirical-Bernstein confidence sequence on the per-case differences (Waudby-Smith & Ramdas 2023)",
}
_LOOKS = 40


@dataclass(frozen=True, slots=True, eq=False)
class SequentialPath:
    """The state after each of ``n`` cases (arrays of length n; entry i is after i + 1 cases): ``diff``, ``low``,
    ``high`` (the band on B minus A), ``anytime_p``; ``decided_at`` (cases, or None) and ``winner``."""

    kind: str
    diff: np.ndarray
    low: np.ndarray
    high: np.ndarray
    anytime_p: np.ndarray
    decided_at: int | None
    winner: str | None

    @property
    def n(self) -> int:
        """Number of cases."""
        return int(self.diff.shape[0])


def _nonempty(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The running intersection's ends; both at the midpoint where it is empty (the Monitor's rule)."""
    mid = (lo + hi) / 2.0
    empty = lo > hi
    return np.where(empty, mid, lo), np.where(empty, mid, hi)


def binary_path(a: np.ndarray, b: np.ndarray, significance: float = 0.05, prior: float = PRIOR) -> SequentialPath:
    """The mixture SPRT's state after each case of one 0/1 result per case (``a``, ``b``: 0/1 per case, in order).

    >>> p = binary_path(np.zeros(12), np.ones(12))
    >>> p.decided_at, p.winner, round(float(p.anytime_p[-1]), 4)
    (11, 'b', 0.027)
    """
    significance = check_significance(significance)
    a, b = np.asarray(a).astype(bool), np.asarray(b).astype(bool)
    n = np.arange(1, a.shape[0] + 1, dtype=float)
    m = np.cumsum(a != b).astype(float)
    k = np.cumsum(b & ~a).astype(float)
    log_e = np.where(m > 0, log_e_value(k, m, prior), -np.inf)
    top = np.maximum.accumulate(log_e) if len(log_e) else log_e
    p_any = np.minimum(1.0, np.exp(-top))
    hit = np.flatnonzero(log_e >= math.log(1.0 / significance))
    decided_at = int(hit[0]) + 1 if hit.size else None
    winner = None if not hit.size else ("b" if 2 * k[hit[0]] > m[hit[0]] else "a")
    tl, th = beta_mixture_bounds(k, m, significance, prior)
    dl, dh = beta_mixture_bounds(m, n, DISCORDANCE_SHARE * significance, 1.0)
    tl, th = _nonempty(np.maximum.accumulate(tl), np.minimum.accumulate(th))
    dl, dh = _nonempty(np.maximum.accumulate(dl), np.minimum.accumulate(dh))
    lo_t, hi_t = 2.0 * tl - 1.0, 2.0 * th - 1.0
    low = np.where(lo_t > 0, dl * lo_t, dh * lo_t)
    high = np.where(hi_t > 0, dh * hi_t, dl * hi_t)
    return SequentialPath("binary", (2 * k - m) / n, low, high, p_any, decided_at, winner)


def scores_path(d: np.ndarray, significance: float = 0.05) -> SequentialPath:
    """The empirical-Bernstein sequence's state after each case from the per-case differences ``d`` in [-1, 1].

    >>> p = scores_path(np.full(80, 1 / 3))
    >>> p.decided_at, p.winner, round(float(p.low[-1]), 3), round(float(p.high[-1]), 3)
    (45, 'b', 0.148, 0.518)
    """
    significance = check_significance(significance)
    d = np.asarray(d, dtype=float)
    if d.size and (not np.all(np.isfinite(d)) or d.min() < -1.0 or d.max() > 1.0):
        raise DataError("per-case differences must lie between -1 and 1")
    eb = eb_path((d + 1.0) / 2.0, significance)
    top = np.maximum(eb.log_m_plus, eb.log_m_minus)
    best = np.maximum.accumulate(top) if len(top) else top
    p_any = np.minimum(1.0, 2.0 * np.exp(-best))
    hit = np.flatnonzero(top >= math.log(2.0 / significance))
    decided_at = int(hit[0]) + 1 if hit.size else None
    winner = None if not hit.size else ("b" if eb.log_m_plus[hit[0]] > eb.log_m_minus[hit[0]] else "a")
    lo = np.maximum(0.0, np.maximum.accumulate(eb.center - eb.half)) if len(d) else d
    hi = np.minimum(1.0, np.minimum.accumulate(eb.center + eb.half)) if len(d) else d
    lo, hi = _nonempty(lo, hi)
    n = np.arange(1, d.shape[0] + 1, dtype=float)
    return SequentialPath("scores", np.cumsum(d) / n, 2.0 * lo - 1.0, 2.0 * hi - 1.0, p_any, decided_at, winner)


@dataclass(frozen=True, slots=True)
class Look:
    """The state after ``n`` cases (one point of the short list for plotting)."""

    n: int
    diff: float
    low: float
    high: float
    anytime_p: float
    decided: bool


@dataclass(frozen=True, slots=True, eq=False)
class SequentialRun:
    """The anytime-valid comparison of config_a -> config_b on a dataset's cases in order: the decision point and the
    state at the end (``low`` / ``high``: the band on B minus A), a short list of ``looks`` and the whole ``path``."""

    kind: str
    method: str
    config_a: str
    config_b: str
    significance: float
    order: str | None
    n_cases: int
    decided_at: int | None
    winner: str | None
    anytime_p: float
    low: float
    high: float
    diff: float
    looks: tuple[Look, ...]
    path: SequentialPath

    @property
    def winner_config(self) -> str | None:
        """The winning config's name, or None."""
        return {"a": self.config_a, "b": self.config_b}.get(self.winner or "")


def _find_column(frame: pd.DataFrame, name: str) -> str:
    for c in frame.columns:
        if str(c).strip().lower() == name.strip().lower():
            return str(c) if not isinstance(c, str) else c
    raise DataError(
        f"--order {name!r}: no such column; the columns are {', '.join(repr(str(c)) for c in frame.columns)}"
    )


def order_columns(frame: pd.DataFrame) -> list[str]:
    """The columns that may order the cases: every column of a long table but the case, config, score and repeat
    columns. A wide table has none (each other column is a config's results). Ordering by a config's own results
    would put its wins first and make the anytime-valid test declare a winner where there is no difference.

    >>> order_columns(pd.DataFrame({"case": [1], "config": ["A"], "correct": [1], "epoch": [1], "time": [3]}))
    ['time']
    >>> order_columns(pd.DataFrame({"case": [1], "A": [1], "B": [0]}))
    []
    """
    names = {str(c).strip().lower(): str(c) for c in frame.columns}
    if "config" not in names:
        return []
    banned = {"case", "config", "correct", "score", *REPEAT_COLUMNS}
    return [str(c) for c in frame.columns if str(c).strip().lower() not in banned]


def case_order(frame: pd.DataFrame, cases: np.ndarray, column: str) -> np.ndarray:
    """The permutation putting ``cases`` (ids as the paired parsers read them) in the order of ``column``.

    A case's key is the smallest value of ``column`` over its rows (its first time or index); numbers sort as
    numbers, times (anything ``pandas.to_datetime`` reads in every row) as times, else as text; ties keep the
    order of ``cases``.

    >>> f = pd.DataFrame({"case": [1, 1, 2, 2], "config": ["A", "B"] * 2, "correct": [1, 0, 1, 1], "t": [5, 6, 2, 3]})
    >>> case_order(f, np.array(["1", "2"], dtype=object), "t").tolist()
    [1, 0]
    """
    col = _find_column(frame, column)
    case_col = _find_column(frame, "case")
    if str(col) not in order_columns(frame):
        raise DataError(
            f"--order {column!r} cannot order the cases: it is a config's result, a score, the case or the repeat "
            "column; the order must come from outside the results (a time or an index column), or the test is no "
            f"longer valid. Columns that can: {', '.join(repr(c) for c in order_columns(frame)) or 'none'}"
        )
    raw = frame[col]
    missing = raw.isna().to_numpy()
    if missing.any():
        raise DataError(
            f"--order {column!r} is empty at {format_rows(np.flatnonzero(missing), 5)}: every row needs one"
        )
    key: pd.Series
    numbers = pd.to_numeric(raw, errors="coerce")
    if bool(numbers.notna().all()):
        key = numbers.astype(float)
    else:
        times = pd.to_datetime(raw.astype(str), errors="coerce", utc=True, format="mixed")
        key = times if bool(times.notna().all()) else raw.astype(str)
    ids = to_text(frame[case_col]).to_numpy(dtype=object)
    first = pd.Series(key.to_numpy(), index=pd.Index(ids)).groupby(level=0, sort=False).min()
    values = first.reindex(pd.Index(cases, dtype=object)).to_numpy()
    return np.asarray(pd.Series(values).sort_values(kind="stable").index.to_numpy(), dtype=np.int64)


def _looks(path: SequentialPath) -> tuple[Look, ...]:
    n = path.n
    if n == 0:
        return ()
    at = set(np.unique(np.linspace(1, n, min(n, _LOOKS)).round().astype(int)).tolist())
    if path.decided_at is not None:
        at.add(path.decided_at)
    return tuple(
        Look(
            int(i),
            float(path.diff[i - 1]),
            float(path.low[i - 1]),
            float(path.high[i - 1]),
            float(path.anytime_p[i - 1]),
            path.decided_at is not None and i >= path.decided_at,
        )
        for i in sorted(at)
    )


def sequential_compare(
    frame: pd.DataFrame, a: str, b: str, significance: float = 0.05, order: str | None = None
) -> SequentialRun:
    """The anytime-valid comparison of config ``a`` -> ``b`` on a paired-results frame, cases in file order (the
    order each case first appears) or by the column ``order``.

    One 0/1 result per case: :func:`binary_path` (the mixture SPRT); repeats or scores in [0, 1]
    (:func:`nkcore.paired.has_repeats`): :func:`scores_path` on the per-case differences of means.

    >>> f = pd.DataFrame({"case": range(12), "A": [0] * 12, "B": [1] * 12})
    >>> r = sequential_compare(f, "A", "B")
    >>> r.decided_at, r.winner_config, r.n_cases
    (11, 'B', 12)
    """
    significance = check_significance(significance)
    if paired.has_repeats(frame):
        ct = paired.parse_cases(frame, (a, b))
        cases, d = ct.cases, ct.means[:, 1] - ct.means[:, 0]
        perm = case_order(frame, cases, order) if order is not None else np.arange(len(cases))
        path = scores_path(d[perm], significance)
    else:
        pt = paired.parse_paired(frame, (a, b))
        perm = case_order(frame, pt.cases, order) if order is not None else np.arange(pt.n_cases)
        path = binary_path(pt.correct[perm, 0], pt.correct[perm, 1], significance)
    last = path.n - 1
    return SequentialRun(
        kind=path.kind,
        method=METHODS[path.kind],
        config_a=str(a),
        config_b=str(b),
        significance=significance,
        order=order,
        n_cases=path.n,
        decided_at=path.decided_at,
        winner=path.winner,
        anytime_p=float(path.anytime_p[last]),
        low=float(path.low[last]),
        high=float(path.high[last]),
        diff=float(path.diff[last]),
        looks=_looks(path),
        path=path,
    )
