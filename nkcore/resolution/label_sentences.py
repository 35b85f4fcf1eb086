"""The sentences on gold-label error: the floor it puts under every difference, a target against that floor, and
the error rate estimated from a double-labelled sample (:mod:`nkcore.resolution.label_error`)."""

from __future__ import annotations

from nkcore.resolution.label_error import LabelErrorEstimate, LabelErrorFloor
from nkcore.resolution.wording import short_points

__all__ = ["LABEL_FLOOR_INTRO", "label_error_sentence", "label_estimate_sentence", "target_vs_floor_sentence"]

LABEL_FLOOR_INTRO = (
    "A second ceiling sits under the statistical one and does not move however many cases you add: wrong gold labels."
)


def label_error_sentence(floor: LabelErrorFloor) -> str:
    """Plain words for :func:`~nkcore.resolution.label_error.label_error_floor`.

    >>> from nkcore.resolution.label_error import label_error_floor
    >>> label_error_sentence(label_error_floor(0.03))[:63]
    'If 3.0% of the gold labels are wrong, a perfect system scores 9'
    """
    e = floor.error_rate
    return (
        f"If {100 * e:.1f}% of the gold labels are wrong, a perfect system scores "
        f"{100 * floor.best_measurable_accuracy:.1f}%, and two configs that differ by less than about "
        f"{short_points(floor.noise_floor_diff)} points are competing inside the noise of the ground truth: more cases buy "
        "precision around a number the labels already displace."
    )


def target_vs_floor_sentence(target_diff: float, floor: LabelErrorFloor) -> str:
    """Whether a target difference sits above the label-error floor (the chapter: more cases cannot fix labels).

    >>> from nkcore.resolution.label_error import label_error_floor
    >>> target_vs_floor_sentence(0.01, label_error_floor(0.03))[:60]
    'The target of 1.0 points is below the label-error floor of 3'
    """
    t, e = short_points(target_diff), short_points(floor.noise_floor_diff)
    if target_diff < floor.noise_floor_diff:
        return (
            f"The target of {t} points is below the label-error floor of {e} points: more cases will not settle it; "
            "double-label a sample and fix the labels first."
        )
    return f"The target of {t} points is above the label-error floor of {e} points, so more cases can settle it."


def label_estimate_sentence(est: LabelErrorEstimate) -> str:
    """Plain words for :func:`~nkcore.resolution.label_error.estimate_label_error`, stating the model.

    >>> from nkcore.resolution.label_error import estimate_label_error
    >>> label_estimate_sentence(estimate_label_error(1000, 58))[:58]
    '58 disagreements in 1,000 double-labelled items (5.8%) mea'
    """
    model = (
        "two independent labellings, each wrong with the same probability, disagree exactly when one of them is "
        "wrong (binary labels)"
        if est.model == "binary"
        else "two labellings disagree whenever at least one is wrong (wrong labels never agree)"
    )
    return (
        f"{est.disagreements:,} disagreements in {est.items:,} double-labelled items "
        f"({100 * est.disagreement_rate:.1f}%) mean a label error rate of about {100 * est.error_rate:.1f}% "
        f"({100 * est.confidence:.0f}% interval {100 * est.ci_low:.1f}% to {100 * est.ci_high:.1f}%), assuming {model}."
    )
