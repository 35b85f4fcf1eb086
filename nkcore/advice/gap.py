"""The paired gap between two rows of a cost table on the same cases, and each row's accuracy with its Wilson interval.

The test follows the per-case credit: when every credit is 0 or 1, McNemar's exact p on the discordant cases and the
exact paired bootstrap interval; when some are fractions (the expected credit of a request drawing its samples at
random), the case-level test for scores in [0, 1] (:mod:`nkcore.paired.case_test`): the exact sign-flip test on
the per-case differences and the case-bootstrap interval (Monte Carlo / rounded where the differences lie on no
small lattice; the method is carried in :class:`Gap`). With 0/1 credit the two are the same test, bit for bit.

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
from nkcore.paired.case_test import case_bootstrap, sign_flip_test
from nkcore.paired.mcnemar import mcnemar

if TYPE_CHECKING:
    from nkcore.cost import CostTable

__all__ = ["MCNEMAR", "SIGN_FLIP", "Gap", "RowInterval", "paired_gap", "row_intervals"]

MCNEMAR = "mcnemar"
"""``Gap.test`` when every credit is 0/1: McNemar's exact test and the exact paired bootstrap."""
SIGN_FLIP = "sign-flip"
"""``Gap.test`` when some credit is a fraction: the sign-flip test on the per-case differences, case bootstrap."""


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

    ``cheaper_only`` / ``dearer_only``: the cases where that row's credit is the higher (with 0/1 credit: the
    discordant cases only that row gets right); ``low``/``high``: the paired bootstrap interval of ``diff`` at
    ``confidence``; ``p``: the two-sided p of ``test`` (:data:`MCNEMAR`: McNemar's exact test; :data:`SIGN_FLIP`:
    the sign-flip test on the per-case differences, ``p_method`` "exact", "monte-carlo" or "normal" with its error
    ``p_error``); ``p_holm``: that p
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
    test: str = MCNEMAR
    p_method: str = "exact"
    p_error: float = 0.0

    @property
    def differing(self) -> int:
        """Cases whose credit differs between the two rows (the discordant cases with 0/1 credit)."""
        return self.cheaper_only + self.dearer_only

    def words(self) -> str:
        """'+1.0 points (-2.5 to +4.5), p = 0.77' (the interval's level in the caller's sentence)."""
        return f"{points(self.diff)} points ({points(self.low)} to {points(self.high)}), {format_p(self.p)}"


def _binary(credit: np.ndarray) -> bool:
    return bool(np.all((credit == 0) | (credit == 1)))


def paired_gap(
    cheaper: np.ndarray,
    dearer: np.ndarray,
    cheaper_label: str = "A",
    dearer_label: str = "B",
    significance: float = 0.05,
    confidence: float = 0.95,
) -> Gap:
    """The paired difference of two per-case credits on the same cases, accuracy(dearer) - accuracy(cheaper), with
    its test and interval.

    0/1 credit: diff = (dearer_only - cheaper_only) / n; McNemar's p = min(1, 2 P(X <= min(c, d))),
    X ~ Binomial(c + d, 1/2); the exact paired bootstrap interval. Credit in [0, 1]: d_i = dearer_i - cheaper_i,
    diff = mean(d); p = P(|sum s_i d_i| >= |sum d_i|) over fair signs s_i (the sign-flip test,
    :func:`nkcore.paired.case_test.sign_flip_test`); the case-bootstrap interval of mean(d)
    (:func:`nkcore.paired.case_test.case_bootstrap`). Reference: the chapter's section "Two intervals" (n=3 -> n=5:
    5 vs 7 discordant, p = 0.77); Fisher 1935 for the sign-flip test.

    >>> a = np.array([1] * 151 + [1] * 5 + [0] * 7 + [0] * 37); b = np.array([1] * 151 + [0] * 5 + [1] * 7 + [0] * 37)
    >>> paired_gap(a, b, "n=3", "n=5").words()
    '+1.0 points (-2.5 to +4.5), p = 0.77'
    >>> g = paired_gap(np.array([0.5, 0.0, 1.0, 0.25]), np.array([1.0, 0.5, 1.0, 0.75])); g.test, g.p, g.differing
    ('sign-flip', 0.25, 3)
    """
    check_significance(significance)
    check_confidence(confidence)
    a = np.asarray(cheaper, dtype=float).ravel()
    b = np.asarray(dearer, dtype=float).ravel()
    if a.size != b.size or a.size == 0:
        raise DataError(f"the two settings need the same, non-zero number of cases; got {a.size} and {b.size}")
    if (
        not (np.all(np.isfinite(a)) and np.all(np.isfinite(b)))
        or min(a.min(), b.min()) < 0
        or max(a.max(), b.max()) > 1
    ):
        raise DataError("the paired test needs each case's credit between 0 and 1")
    n = int(a.size)
    if _binary(a) and _binary(b):
        ab, bb = a.astype(bool), b.astype(bool)
        a_only, b_only = int((ab & ~bb).sum()), int((bb & ~ab).sum())
        boot = exact_paired_bootstrap(a_only, b_only, n, confidence)
        p = mcnemar(a_only, b_only).p_exact
        diff = (b_only - a_only) / n
        return Gap(cheaper_label, dearer_label, a_only, b_only, n, diff, boot.low, boot.high, p, confidence,
                   diff > 0 and p < significance)  # fmt: skip
    d = b - a
    p, method, error = sign_flip_test(d)
    low, high, _, _ = case_bootstrap(d, confidence)
    diff = float(d.mean())
    a_only, b_only = int(np.count_nonzero(d < -1e-12)), int(np.count_nonzero(d > 1e-12))
    return Gap(cheaper_label, dearer_label, a_only, b_only, n, diff, low, high, p, confidence,
               diff > 0 and p < significance, test=SIGN_FLIP, p_method=method, p_error=error)  # fmt: skip


def row_intervals(table: CostTable) -> tuple[RowInterval, ...]:
    """Each row's accuracy with its 95% Wilson interval (the table's ``accuracy_low`` / ``accuracy_high``).

    >>> from nkcore.common.intervals import wilson
    >>> [round(x, 4) for x in wilson(156, 200)]
    [0.7176, 0.8318]
    """
    return tuple(RowInterval(r.label, r.accuracy, r.accuracy_low, r.accuracy_high) for r in table.rows)
