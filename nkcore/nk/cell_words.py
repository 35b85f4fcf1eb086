"""The words beside one (N, K) cell's numbers: what its p, mean gap and CI-width say about these two models, this
metric and this budget, with units, and which way the p points.

The paper's p (:func:`nkcore.nk.pvalue.p_value`) compares the alternative gaps with the null gaps after turning
both so that the alternative's median is the larger: it points to whichever model the resampled (or simulated)
evaluations put ahead, which on real data can be the other model than the full data's winner; it is called evidence
for that model only when the test rejects (p < significance). How often a model came out ahead and what the test
says are one sentence (:func:`repeatable_clause`): A can be ahead in 98% of evaluations while two equally good
models would show gaps as large in 8% of pairings (p = 0.079), and the words must not read as a contradiction. A gap is
in the metric's own unit: points for shares (Accuracy, Wins, F1: 0.0405 = 4.05 points), a 0-1 distance for TV and
Jensen-Shannon, nats for the KL family and cross-entropy (:attr:`nkcore.nk.metrics.MetricInfo.unit`).
"""

from __future__ import annotations

import math
from typing import Any

from nkcore.nk.metrics import METRICS
from nkcore.nk.number_words import fmt_int, p_phrase
from nkcore.nk.pvalue import SIGNIFICANCE

__all__ = ["cell_sentence", "gap_text", "numbers_sentence", "p_side", "repeatable_clause", "resample_p_phrase"]


def _test_p(p: float, significance: float = SIGNIFICANCE) -> str:
    """The p against the test's bar: 'p = 0.079 ≥ 0.05', 'p = 0.019 < 0.05', 'p < 0.001'.

    >>> _test_p(0.079), _test_p(0.019), _test_p(1e-9), _test_p(0.05)
    ('p = 0.079 ≥ 0.05', 'p = 0.019 < 0.05', 'p < 0.001', 'p = 0.050 ≥ 0.05')
    """
    text = p_phrase(p)
    if text.startswith("p <") and p < significance:
        return text
    return f"{text} {'<' if p < significance else '≥'} {significance:g}"


def repeatable_clause(ahead: str, behind: str, share: float, p: float, significance: float = SIGNIFICANCE) -> str:
    """How often ``ahead`` came out ahead and what the paper's test says about it, reconciled in one clause: a high
    share with p >= significance is 'ahead in most evaluations, but not repeatable at this budget'.

    >>> repeatable_clause("A", "B", 0.98, 0.079)
    "A was ahead of B in 98% of repeated evaluations, but the paper's test cannot call it repeatable at this budget (p = 0.079 ≥ 0.05)"
    >>> repeatable_clause("A", "B", 0.97, 0.019)
    "A was ahead of B in 97% of repeated evaluations, and the paper's test calls it reasonably repeatable at this budget (p = 0.019 < 0.05)"
    """
    head = f"{ahead} was ahead of {behind} in {share:.0%} of repeated evaluations"
    if p < significance:
        return (
            f"{head}, and the paper's test calls it reasonably repeatable at this budget ({_test_p(p, significance)})"
        )
    return f"{head}, but the paper's test cannot call it repeatable at this budget ({_test_p(p, significance)})"


def cell_sentence(cell: Any) -> str:
    """What one simulated cell says, in words (fields of ``CellResult``): the split, then how often A came out ahead
    and the paper's verdict in one clause (:func:`repeatable_clause`), then the average gap.

    >>> from types import SimpleNamespace as S
    >>> cell_sentence(S(budget=1000, k=100, n=10, metric="tv", p=0.019, delta=0.074, reproducibility=0.97))[:60]
    'With a budget of 1,000 ratings = items (N) 10 x ratings per '
    >>> cell_sentence(S(budget=1000, k=120, n=8, metric="tv", p=0.019, delta=0.074, reproducibility=0.97))[:84]
    'With a budget of 1,000 ratings, items (N) 8 x ratings per item (K) 120 = 960 ratings'
    >>> print(cell_sentence(S(budget=1000, k=9, n=111, metric="acc", p=0.079, delta=0.0405, reproducibility=0.98)))
    With a budget of 1,000 ratings, items (N) 111 x ratings per item (K) 9 = 999 ratings, on Accuracy (plurality vote) A was ahead of B in 98% of repeated evaluations, but the paper's test cannot call it repeatable at this budget (p = 0.079 ≥ 0.05); the average gap is 0.0405.
    """
    c = cell
    used = int(c.n) * int(c.k)
    items = f"items (N) {fmt_int(c.n)} x ratings per item (K) {c.k}"
    split = f" = {items}" if used == int(c.budget) else f", {items} = {fmt_int(used)} ratings"
    label = METRICS[c.metric].label if c.metric in METRICS else str(c.metric)
    return (
        f"With a budget of {fmt_int(c.budget)} ratings{split}, on {label} "
        f"{repeatable_clause('A', 'B', float(c.reproducibility), float(c.p))}; the average gap is {c.delta:.3g}."
    )


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


def resample_p_phrase(cell: Any, model_a: str, model_b: str, significance: float = SIGNIFICANCE) -> str:
    """The p of a real-data cell with the model it points to: evidence for that model only when the test rejects
    (p < ``significance``); otherwise the p says the resampled evaluations' lean is not repeatable at this budget.

    >>> from types import SimpleNamespace as S
    >>> resample_p_phrase(S(p=1e-11, mean_gap=-0.03, direction=1), "lr", "nb")
    'p < 0.001, evidence for nb ahead at this budget (the resampled evaluations favour nb, unlike the full data)'
    >>> resample_p_phrase(S(p=0.02, mean_gap=0.03, direction=1), "lr", "nb")
    'p = 0.020, evidence for lr ahead, as on the full data'
    >>> resample_p_phrase(S(p=0.39, mean_gap=0.03, direction=1), "lr", "nb")
    "p = 0.39 ≥ 0.05: the resampled evaluations lean towards lr (as on the full data), but the paper's test cannot call that repeatable at this budget"
    """
    p = float(cell.p)
    text = "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"
    side = p_side(cell)
    if side == 0:
        return f"{text} (the resampled evaluations lean neither way)"
    who = model_a if side > 0 else model_b
    same = int(getattr(cell, "direction", 0)) == side
    if not p < significance:
        return (
            f"{text} ≥ {significance:g}: the resampled evaluations lean towards {who} ({'as on' if same else 'unlike'} "
            "the full data), but the paper's test cannot call that repeatable at this budget"
        )
    if same:
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
    At 1,000 ratings (111 items x 9 ratings each), Accuracy (plurality vote) puts model A ahead of model B in 98% of repeated evaluations, by 4.05 points on average (the mean gap); the middle 95% of those gaps spans 7.9 points (the CI-width). p-value 0.079: two equally good models would show a gap at least as large as one of these in 7.9% of pairings (the paper's rule), above the paper's 5% bar, so although model A was ahead in 98% of the repeated evaluations, "model A beats model B" is not reliably repeatable at this budget.
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
        else f"above the paper's {SIGNIFICANCE:.0%} bar, so although {ahead} was ahead in {share:.0%} of the repeated evaluations, "
        f'"{ahead} beats {behind}" is not reliably repeatable at this budget'
    )
    return (
        f"{head} p-value {p_txt}: two equally good models would show a gap at least as large as one of these in "
        f"{chance} of pairings (the paper's rule), {verdict}."
    )
