"""Case-level comparisons of several configs in order (Holm over the adjacent pairs) and the frame entry points.

The counterpart of :func:`nkcore.paired.compare_ordered` / :func:`nkcore.paired.analyse_paired` for results with
repeats or partial scores: each adjacent pair by :func:`nkcore.paired.compare_cases` (sign-flip p on the case
means, case-bootstrap interval), Holm's step-down adjustment over the adjacent pairs (Holm 1979), the same rule the
McNemar comparisons use. These are the functions the Compare page calls through its cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from nkcore.common.checks import check_significance
from nkcore.errors import DataError
from nkcore.paired.case_test import CaseComparison, CaseMean, case_mean, compare_cases
from nkcore.paired.cases import parse_cases
from nkcore.paired.compare import holm

__all__ = ["OrderedCaseComparison", "analyse_cases", "compare_frame_cases"]


@dataclass(frozen=True, slots=True)
class OrderedCaseComparison:
    """Configs in order compared case by case: adjacent comparisons, Holm-adjusted sign-flip p's (``p_holm``),
    each config's mean score with its case-bootstrap interval (``means``), the repeat column's name."""

    configs: tuple[str, ...]
    n_cases: int
    dropped_cases: int
    means: tuple[CaseMean, ...]
    comparisons: tuple[CaseComparison, ...]
    p_holm: tuple[float, ...]
    repeat_column: str | None
    significance: float
    confidence: float


def analyse_cases(
    frame: pd.DataFrame, configs: Sequence[str] | None = None, significance: float = 0.05, confidence: float = 0.95
) -> OrderedCaseComparison:
    """Parse results with repeats (:func:`nkcore.paired.parse_cases`) and compare adjacent configs case by case.

    >>> df = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "epoch": [1, 2] * 3,
    ...                    "A": [0, 0, 1, 0, 0, 0], "B": [1, 1, 1, 1, 1, 0], "C": [1, 1, 1, 1, 1, 1]})
    >>> o = analyse_cases(df)
    >>> [round(c.diff, 3) for c in o.comparisons], o.p_holm
    ([0.667, 0.167], (0.5, 1.0))
    """
    check_significance(significance)
    table = parse_cases(frame, None if configs is None else tuple(configs))
    order = table.configs
    if len(order) < 2:
        raise DataError(f"an ordered comparison needs at least two configs; got {len(order)}")
    comps = tuple(compare_cases(table, order[i], order[i + 1], confidence) for i in range(len(order) - 1))
    return OrderedCaseComparison(
        configs=order,
        n_cases=table.n_cases,
        dropped_cases=table.dropped_cases,
        means=tuple(case_mean(table, c, confidence) for c in order),
        comparisons=comps,
        p_holm=holm([c.p_value for c in comps]),
        repeat_column=table.repeat_column,
        significance=significance,
        confidence=confidence,
    )


def compare_frame_cases(frame: pd.DataFrame, a: str, b: str, confidence: float = 0.95) -> CaseComparison:
    """Parse results with repeats, keep configs ``a`` and ``b`` (their shared cases) and compare a -> b by case.

    >>> df = pd.DataFrame({"case": [1, 1, 2, 2], "repeat": [1, 2, 1, 2], "A": [1, 0, 1, 1], "B": [0.5, 1, 1, 1]})
    >>> c = compare_frame_cases(df, "A", "B"); c.diff, c.n_cases
    (0.125, 2)
    """
    table = parse_cases(frame, (a, b))
    return compare_cases(table, table.configs[0], table.configs[1], confidence)
