"""The paired gap between two rows of a cost table on the same cases: McNemar's exact p on the discordant cases and
the exact paired bootstrap interval of the difference; each row's accuracy with its Wilson interval.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``), section "Two intervals, and only one of them is the right instrument".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nkcore.common.checks import check_confidence, check_significance
from nkcore.common.formatting import format_p, points
from nkcore.errors import DataError
from nkcore.paired.bootstrap import exact_paired_bootstrap
from nkcore.paired.mcnemar import mcnemar

if TYPE_CHECKING:
    from nkcore.cost import CostTable

__all__ = ["Gap", "RowInterval", "paired_gap", "row_intervals"]


@dataclass(frozen=True, slots=True)
class RowInterval:
    """One row's accuracy with its Wilson interval over the table's cases."""

    label: str
    accuracy: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Gap:
    """The paired difference accuracy(dearer) - accuracy(cheaper) on the same cases.

    ``cheaper_only`` / ``dearer_only``: the discordant cases only that row gets right; ``low``/``high``: the exact
    paired bootstrap interval of ``diff`` at ``confidence``; ``p``: McNemar's exact two-sided p; ``p_holm``: that p
    adjusted by Holm's method over the ``family`` comparisons the decision makes (the product's one rule for a family
    of comparisons, as on the Compare page); ``resolved``: the dearer row is more accurate and the adjusted p is
    below alpha.
    """

    cheaper: str
    dearer: str
    cheaper_only: int
    dearer_only: int
    n_cases: int
    diff: float
    low: float
    high: float
    p: float
    confidence: float
    resolved: bool
    p_holm: float | None = None
    family: int = 1

    def words(self) -> str:
        """'+1.0 points (-2.5 to +4.5), p = 0.77' (the interval's level in the caller's sentence)."""
        return f"{points(self.diff)} points ({points(self.low)} to {points(self.high)}), {format_p(self.p)}"


def _binary(credit: np.ndarray) -> np.ndarray:
    if credit.size and not np.all((credit == 0) | (credit == 1)):
        raise DataError(
            "the paired test needs each case right or wrong (0/1 credit); the tie rule 'split' gives fractions: "
            "use the tie rule 'first' or 'wrong'"
        )
    return credit.astype(bool)


def paired_gap(
    cheaper: np.ndarray,
    dearer: np.ndarray,
    cheaper_label: str = "A",
    dearer_label: str = "B",
    significance: float = 0.05,
    confidence: float = 0.95,
) -> Gap:
    """The paired difference of two 0/1 per-case results on the same cases: McNemar exact p and the exact paired
    bootstrap interval of accuracy(dearer) - accuracy(cheaper).

    diff = (dearer_only - cheaper_only) / n; p = min(1, 2 P(X <= min(c, d))), X ~ Binomial(c + d, 1/2).
    Reference: the chapter's section "Two intervals" (n=3 -> n=5: 5 vs 7 discordant, p = 0.77).

    >>> a = np.array([1] * 151 + [1] * 5 + [0] * 7 + [0] * 37); b = np.array([1] * 151 + [0] * 5 + [1] * 7 + [0] * 37)
    >>> paired_gap(a, b, "n=3", "n=5").words()
    '+1.0 points (-2.5 to +4.5), p = 0.77'
    """
    check_significance(significance)
    check_confidence(confidence)
    a = _binary(np.asarray(cheaper, dtype=float).ravel())
    b = _binary(np.asarray(dearer, dtype=float).ravel())
    if a.size != b.size or a.size == 0:
        raise DataError(f"the two settings need the same, non-zero number of cases; got {a.size} and {b.size}")
    a_only = int((a & ~b).sum())
    b_only = int((b & ~a).sum())
    n = int(a.size)
    boot = exact_paired_bootstrap(a_only, b_only, n, confidence)
    p = mcnemar(a_only, b_only).p_exact
    diff = (b_only - a_only) / n
    return Gap(cheaper_label, dearer_label, a_only, b_only, n, diff, boot.low, boot.high, p, confidence,
               diff > 0 and p < significance)  # fmt: skip


def row_intervals(table: CostTable) -> tuple[RowInterval, ...]:
    """Each row's accuracy with its 95% Wilson interval (the table's ``accuracy_low`` / ``accuracy_high``).

    >>> from nkcore.common.intervals import wilson
    >>> [round(x, 4) for x in wilson(156, 200)]
    [0.7176, 0.8318]
    """
    return tuple(RowInterval(r.label, r.accuracy, r.accuracy_low, r.accuracy_high) for r in table.rows)
