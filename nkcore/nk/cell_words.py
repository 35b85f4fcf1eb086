"""The words beside one (N, K) cell's numbers: what its p, mean gap and CI-width say about these two models, this
metric and this budget, with units, and which way the p points.

The paper's p (:func:`nkcore.nk.pvalue.p_value`) compares the alternative gaps with the null gaps after turning
both so that the alternative's median is the larger: it is evidence for whichever model the resampled (or
simulated) evaluations put ahead, which on real data can be the other model than the full data's winner. A gap is
in the metric's own unit: points for shares (Accuracy, Wins, F1: 0.0405 = 4.05 points), a 0-1 distance for TV and
Jensen-Shannon, nats for the KL family and cross-entropy (:attr:`nkcore.nk.metrics.MetricInfo.unit`).
"""

from __future__ import annotations

import math
from typing import Any

from nkcore.nk.metrics import METRICS
from nkcore.nk.pvalue import SIGNIFICANCE

__all__ = ["gap_text", "numbers_sentence", "p_side", "resample_p_phrase"]


def gap_text(metric: str, x: float) -> str:
    """A score gap (or a width) in the metric's unit.

    >>> gap_text("acc", 0.0405), gap_text("kl", 0.25)
    ('4.05 points', '0.25 nats')
    >>> gap_text("tv", 0.0405)
    "0.0405 on TV's 0-1 scale (0 = the same label shares, 1 = none in common)"
    """
    if not math.isfinite(x):
        return "n/a"
    info = METRICS.get(metric)
    unit = info.unit if info is not None else "scale"
    if unit == "points":
        return f"{100 * x:.3g} points"
    if unit == "nats":
        return f"{x:.3g} nats"
    words = info.scale_words if info is not None else ""
    return f"{x:.3g} {words or 'on its 0-1 scale'}"


def p_side(cell: Any) -> int:
    """Which model the cell's p is evidence for: +1 model A (the alternative gaps lean A's way), -1 model B, 0 none.

    >>> from types import SimpleNamespace as S
    >>> p_side(S(mean_gap=-0.03)), p_side(S(mean_gap=0.02)), p_side(S(mean_gap=0.0))
    (-1, 1, 0)
    """
    g = float(getattr(cell, "mean_gap", math.nan))
    if not math.isfinite(g) or abs(g) <= 1e-12:
        return 0
    return 1 if g > 0 else -1


def resample_p_phrase(cell: Any, model_a: str, model_b: str) -> str:
    """The p of a real-data cell with the model it supports: 'p < 0.001, for count_nb ahead (the resampled
    evaluations favour count_nb, unlike the full data)'.

    >>> from types import SimpleNamespace as S
    >>> resample_p_phrase(S(p=1e-11, mean_gap=-0.03, direction=1), "lr", "nb")
    'p < 0.001, evidence for nb ahead at this budget (the resampled evaluations favour nb, unlike the full data)'
    >>> resample_p_phrase(S(p=0.02, mean_gap=0.03, direction=1), "lr", "nb")
    'p = 0.020, evidence for lr ahead, as on the full data'
    """
    p = float(cell.p)
    text = "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"
    side = p_side(cell)
    if side == 0:
        return f"{text} (the resampled evaluations lean neither way)"
    who = model_a if side > 0 else model_b
    if int(getattr(cell, "direction", 0)) == side:
        return f"{text}, evidence for {who} ahead, as on the full data"
    return (
        f"{text}, evidence for {who} ahead at this budget (the resampled evaluations favour {who}, unlike the full "
        "data)"
    )


def numbers_sentence(cell: Any, model_a: str = "model A", model_b: str = "model B") -> str:
    """The cell's p, mean gap and CI-width for a product manager: about these two models, this metric, this budget.

    >>> from types import SimpleNamespace as S
    >>> print(numbers_sentence(S(metric="acc", budget=1000, n=111, k=9, p=0.079, delta=0.0405, ci_width=0.079,
    ...                          mean_gap=0.0405, reproducibility=0.98)))
    At 1,000 ratings (111 items x 9 ratings each), Accuracy (plurality vote) puts model A ahead of model B in 98% of repeated evaluations, by 4.05 points on average (the mean gap); the middle 95% of those gaps spans 7.9 points (the CI-width). p-value 0.079: two equally good models would show a gap at least as large as one of these in 7.9% of pairings (the paper's rule), above the paper's 5% bar, so "model A beats model B" is not reliably repeatable at this budget.
    """
    c = cell
    metric = METRICS[c.metric].label if c.metric in METRICS else str(c.metric)
    side = p_side(c)
    ahead, behind = (model_a, model_b) if side >= 0 else (model_b, model_a)
    share = c.reproducibility if side >= 0 else 1.0 - c.reproducibility
    ratings = f"{int(c.budget):,} ratings ({int(c.n):,} items x {int(c.k)} rating{'s' if int(c.k) != 1 else ''} each)"
    head = (
        f"At {ratings}, {metric} puts {ahead} ahead of {behind} in {share:.0%} of repeated evaluations, by "
        f"{gap_text(c.metric, c.delta)} on average (the mean gap); the middle 95% of those gaps spans "
        f"{gap_text(c.metric, c.ci_width)} (the CI-width)."
    )
    p = float(c.p)
    p_txt = "below 0.001" if p < 0.001 else f"{p:.3g}"
    chance = "less than 0.1%" if p < 0.001 else f"{p:.1%}"
    verdict = (
        f'below the paper\'s {SIGNIFICANCE:.0%} bar, so "{ahead} beats {behind}" is reasonably repeatable at this '
        "budget"
        if p < SIGNIFICANCE
        else f'above the paper\'s {SIGNIFICANCE:.0%} bar, so "{ahead} beats {behind}" is not reliably repeatable at '
        "this budget"
    )
    return (
        f"{head} p-value {p_txt}: two equally good models would show a gap at least as large as one of these in "
        f"{chance} of pairings (the paper's rule), {verdict}."
    )
