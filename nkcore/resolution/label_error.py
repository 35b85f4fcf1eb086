"""Gold-label error: the ceiling it puts on measured accuracy, and its estimate from a double-labelled sample.

Source: the chapter "The accuracy curve flattens sooner than the sample count suggests" (``shared/seeds/002``),
last section: if 3% of the labels are wrong, a perfect system scores 97%, and more cases cannot fix that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nkcore.common import limits
from nkcore.common.checks import check_confidence
from nkcore.common.intervals import clopper_pearson
from nkcore.errors import DataError

__all__ = [
    "LABEL_ERROR_MODELS",
    "LabelErrorEstimate",
    "LabelErrorFloor",
    "estimate_label_error",
    "invert_disagreement",
    "label_error_floor",
]

LABEL_ERROR_MODELS = ("binary", "distinct")


@dataclass(frozen=True, slots=True)
class LabelErrorFloor:
    """What a gold-label error rate ``error_rate`` (e) does to an evaluation.

    Model: each gold label is wrong with probability e, independently of the case, and a system's answer never
    matches a wrong label. Then a perfect system scores ``best_measurable_accuracy`` = 1 - e, every measured
    accuracy is the true one times (1 - e), and where the label errors fall can move a comparison by up to about
    e: differences smaller than ``noise_floor_diff`` = e sit inside the noise of the ground truth.
    """

    error_rate: float
    best_measurable_accuracy: float
    noise_floor_diff: float


@dataclass(frozen=True, slots=True)
class LabelErrorEstimate:
    """Label error rate estimated from a double-labelled sample of ``items`` with ``disagreements``.

    ``model`` "binary": two independent labellings each wrong with probability e, binary labels, so they
    disagree exactly when one of them is wrong: P(disagree) = 2e(1 - e). ``model`` "distinct": wrong labels never
    agree with each other: P(disagree) = 1 - (1 - e)^2. ``ci_*`` maps the Clopper-Pearson interval of the
    disagreement rate through the inverse.
    """

    items: int
    disagreements: int
    model: str
    disagreement_rate: float
    error_rate: float
    ci_low: float
    ci_high: float
    confidence: float


def label_error_floor(error_rate: float) -> LabelErrorFloor:
    """The ceiling a gold-label error rate e puts on measured accuracy, and the noise floor of differences.

    Model (see :class:`LabelErrorFloor`): measured accuracy = true accuracy x (1 - e), so a perfect system scores
    1 - e; differences below about e sit inside the noise of the ground truth. Source: the chapter, last section
    ("if 3% of the labels are wrong, a perfect system scores 97%").

    >>> label_error_floor(0.03).best_measurable_accuracy
    0.97
    """
    real = isinstance(error_rate, (int, float, np.integer, np.floating)) and not isinstance(error_rate, bool)
    if not (real and 0.0 <= error_rate < 1.0):
        raise DataError(
            f"the label error rate is a fraction from 0 up to (not including) 1, e.g. 0.03; got {error_rate}"
        )
    e = float(error_rate)
    return LabelErrorFloor(e, 1.0 - e, e)


def invert_disagreement(q: float, model: str) -> float:
    """The label error rate e whose disagreement rate is q under ``model`` (q clipped to [0, 1]).

    "binary": q = 2e(1 - e), e = (1 - sqrt(1 - 2q))/2, capped at e = 1/2; "distinct": q = 1 - (1 - e)^2,
    e = 1 - sqrt(1 - q).

    >>> invert_disagreement(0.42, "binary"), round(invert_disagreement(0.19, "distinct"), 12)
    (0.3, 0.1)
    """
    q = min(max(q, 0.0), 1.0)
    if model == "binary":
        return 0.5 * (1.0 - math.sqrt(max(0.0, 1.0 - 2.0 * q)))  # q = 2e(1 - e); capped at e = 1/2
    return 1.0 - math.sqrt(1.0 - q)  # q = 1 - (1 - e)^2


def _whole(x: object) -> bool:
    if not isinstance(x, (int, float, np.integer, np.floating)) or isinstance(x, (bool, np.bool_)):
        return False
    return math.isfinite(x) and int(x) == x


def estimate_label_error(
    items: int, disagreements: int, model: str = "binary", confidence: float = 0.95
) -> LabelErrorEstimate:
    """Estimate the label error rate e from ``items`` double-labelled items with ``disagreements``.

    Model "binary" (default): two independent labellings, each wrong with probability e, binary labels, so they
    disagree exactly when one is wrong: q = P(disagree) = 2e(1 - e), e = (1 - sqrt(1 - 2q))/2 (q > 1/2 is read
    as e = 1/2: labels no better than a coin). Model "distinct": wrong labels never agree, q = 1 - (1 - e)^2,
    e = 1 - sqrt(1 - q). The interval maps the Clopper-Pearson interval of q (Clopper & Pearson 1934) through
    the same increasing function. Source: the chapter, last section ("double-label a sample"). At most the "items"
    limit of :mod:`nkcore.common.limits` (2,000,000; server setting NKP_MAX_ITEMS).

    >>> r = estimate_label_error(1000, 58)
    >>> round(r.error_rate, 4), round(r.ci_low, 3), round(r.ci_high, 3)
    (0.0299, 0.023, 0.039)
    """
    if not _whole(items) or items < 1:
        raise DataError(f"the number of double-labelled items must be a whole number of at least 1; got {items}")
    limits.check("items", items, "the double-labelled sample")
    if not _whole(disagreements) or not (0 <= disagreements <= items):
        raise DataError(f"disagreements must be a whole number from 0 to {items}; got {disagreements}")
    if model not in LABEL_ERROR_MODELS:
        raise DataError(f"unknown label-error model {model!r}; use 'binary' or 'distinct'")
    check_confidence(confidence)
    m, d = int(items), int(disagreements)
    q_lo, q_hi = clopper_pearson(d, m, confidence)
    q = d / m
    return LabelErrorEstimate(
        items=m,
        disagreements=d,
        model=model,
        disagreement_rate=q,
        error_rate=invert_disagreement(q, model),
        ci_low=invert_disagreement(q_lo, model),
        ci_high=invert_disagreement(q_hi, model),
        confidence=confidence,
    )
