"""The adaptive policies and raters who are not alike, in words a product manager reads (page and CLI).

The numbers come from ``nkcore.nk.adaptive`` (policies on a prior), ``nkcore.nk.adaptive_resample`` (real data) and
``nkcore.ratings.quality`` (rater quality); these functions only say them. Reference: "Forest vs Tree"
(AAAI-26), "Limitations": "if certain samples exhibit greater annotator disagreement, it may be appropriate to
allocate more annotators to those samples"; "annotator quality is assumed to be uniform".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from nkcore.common.formatting import plural
from nkcore.nk.best import MinimalBudget, minimal_budgets
from nkcore.nk.cell_words import repeatable_clause
from nkcore.nk.pvalue import SIGNIFICANCE
from nkcore.nk.sentences import fmt_int, metric_label

__all__ = [
    "adaptive_cell_sentence",
    "minimal_budget_shift_sentence",
    "policy_comparison_sentence",
    "policy_spend_sentence",
    "population_shift_sentence",
    "rater_weighting_sentence",
    "recommendation_sentence",
]


def policy_spend_sentence(cell: Any) -> str:
    """How a cell's policy spent its ratings, e.g. 'every item got 5 ratings first, then 2,500 more went to the 20%
    most contested items (up to 30 each)'.

    >>> from types import SimpleNamespace as S
    >>> policy_spend_sentence(S(policy="margin", budget=1000, k=10, n=100, first_stage_k=5,
    ...                         mean_ratings_per_item=10.0, max_ratings_per_item=30))
    'every item got 5 ratings first, then the other 500 went to the most contested items (up to 30 ratings on one item)'
    >>> policy_spend_sentence(S(policy="fixed", budget=1000, k=10, n=100, first_stage_k=10,
    ...                         mean_ratings_per_item=10.0, max_ratings_per_item=10))
    'every item got 10 ratings'
    """
    c = cell
    if c.policy == "fixed":
        return f"every item got {c.k} ratings"
    rest = int(c.n) * (int(c.k) - int(c.first_stage_k))
    spent = float(c.mean_ratings_per_item) * int(c.n)
    head = f"every item got {c.first_stage_k} ratings first, then "
    if c.policy == "margin":
        return head + (
            f"the other {fmt_int(rest)} went to the most contested items (up to {c.max_ratings_per_item} ratings on one item)"
        )
    unspent = int(c.n) * int(c.k) - spent
    tail = f"; {fmt_int(round(unspent))} ratings of the budget were not needed" if unspent >= 0.5 else ""
    return head + (
        f"one more at a time to the items whose plurality was not yet clear (on average {c.mean_ratings_per_item:.1f} "
        f"ratings per item, at most {c.max_ratings_per_item}){tail}"
    )


def adaptive_cell_sentence(cell: Any) -> str:
    """One adaptive cell in words: the split, how the policy spent it, the verdict (the wording of ``cell_sentence``).

    >>> from types import SimpleNamespace as S
    >>> adaptive_cell_sentence(S(policy="margin", budget=1000, k=10, n=100, first_stage_k=5, metric="acc",
    ...     mean_ratings_per_item=10.0, max_ratings_per_item=30, p=0.01, delta=0.05, reproducibility=0.97))[:75]
    'With a budget of 1,000 ratings on items (N) 100 (on average 10 ratings per '
    """
    c = cell
    return (
        f"With a budget of {fmt_int(c.budget)} ratings on items (N) {fmt_int(c.n)} (on average {c.k} ratings per "
        f"item), {policy_spend_sentence(c)}. On {metric_label(c.metric)} "
        f"{repeatable_clause('A', 'B', float(c.reproducibility), float(c.p))}; the average gap is {c.delta:.3g}."
    )


def _min(cells: Iterable[Any], metric: str) -> MinimalBudget:
    return minimal_budgets(list(cells), [metric])[0]


def policy_comparison_sentence(adaptive: Sequence[Any], fixed: Sequence[Any], metric: str) -> str:
    """The minimal budget of the best adaptive cells against fixed K, in words.

    >>> from types import SimpleNamespace as S
    >>> fx = [S(budget=b, k=10, n=b // 10, metric="acc", p=p, delta=0.1, ci_width=0.1) for b, p in ((600, 0.2), (1000, 0.01))]
    >>> ad = [S(budget=b, k=10, n=b // 10, metric="acc", p=p, delta=0.1, ci_width=0.1, policy="margin",
    ...         first_stage_k=5, contested=0.2) for b, p in ((600, 0.03), (1000, 0.001))]
    >>> policy_comparison_sentence(ad, fx, "acc")
    "Sending the ratings after the first 5 per item to the most contested items makes 'A beats B' on Accuracy (plurality vote) reproducible (p < 0.05) at 600 ratings instead of 1,000 with the same number of ratings on every item."
    """
    a, f = _min(adaptive, metric), _min(fixed, metric)
    name = metric_label(metric)
    best = next((c for c in adaptive if c.metric == metric and c.budget == a.budget and c.k == a.k), None)
    how = "Spreading the ratings by the policy"
    if best is not None and best.policy == "margin":
        how = f"Sending the ratings after the first {best.first_stage_k} per item to the most contested items"
    elif best is not None and best.policy == "sequential":
        how = "Rating one item at a time until its plurality is clear"
    goal = f"'A beats B' on {name} reproducible (p < {SIGNIFICANCE})"
    if a.budget is None and f.budget is None:
        return f"Neither the adaptive policy nor the same number of ratings on every item makes {goal} within the budgets tried."
    if a.budget is None:
        return f"{how} does not make {goal} within the budgets tried; the same number of ratings on every item does at {fmt_int(f.budget or 0)}."
    if f.budget is None:
        return f"{how} makes {goal} at {fmt_int(a.budget)} ratings; the same number of ratings on every item does not within the budgets tried."
    if a.budget < f.budget:
        return f"{how} makes {goal} at {fmt_int(a.budget)} ratings instead of {fmt_int(f.budget)} with the same number of ratings on every item."
    if a.budget == f.budget:
        return f"{how} makes {goal} at the same budget as the same number of ratings on every item: {fmt_int(a.budget)} ratings."
    return f"{how} needs {fmt_int(a.budget)} ratings to make {goal}; the same number of ratings on every item needs only {fmt_int(f.budget)}."


def minimal_budget_shift_sentence(label: str, before: MinimalBudget, after: MinimalBudget) -> str:
    """How a change (``label``, e.g. 'weighting the poor raters down') moves the minimal budget and its best K.

    >>> mb = MinimalBudget
    >>> minimal_budget_shift_sentence("weighting them down", mb("tv", 1000, 20, 0.01), mb("tv", 500, 10, 0.02))
    'For TV (total variation), weighting them down changes the minimal budget from 1,000 ratings (K = 20) to 500 ratings (K = 10).'
    >>> minimal_budget_shift_sentence("weighting them down", mb("acc", None, None, None), mb("acc", None, None, None))
    'For Accuracy (plurality vote), weighting them down or not: neither reaches p < 0.05 within the budgets tried.'
    """
    name = metric_label(before.metric)

    def say(mb: MinimalBudget) -> str:
        return "beyond the budgets tried" if mb.budget is None else f"{fmt_int(mb.budget)} ratings (K = {mb.k})"

    if before.budget is None and after.budget is None:
        return f"For {name}, {label} or not: neither reaches p < {SIGNIFICANCE} within the budgets tried."
    if (before.budget, before.k) == (after.budget, after.k):
        return f"For {name}, {label} leaves the minimal budget at {say(before)}."
    return f"For {name}, {label} changes the minimal budget from {say(before)} to {say(after)}."


def rater_weighting_sentence(n_poor: int, n_raters: int, share_items: float) -> str:
    """'three raters of eleven disagree with the others on most items' in numbers.

    >>> rater_weighting_sentence(3, 11, 0.62)
    '3 raters of 11 disagree with the others on most of the items they rated (62% on average).'
    >>> rater_weighting_sentence(0, 11, 0.0)
    'No rater of 11 disagrees with the others on most of the items they rated.'
    """
    if n_poor == 0:
        return f"No rater of {n_raters:,} disagrees with the others on most of the items they rated."
    return (
        f"{n_poor:,} rater{'s' if n_poor != 1 else ''} of {n_raters:,} disagree{'s' if n_poor == 1 else ''} with the "
        f"others on most of the items they rated ({share_items:.0%} on average)."
    )


def population_shift_sentence(shift: Any) -> str:
    """A fitted rater population's effect on the minimal budget (``nkcore.nk.adaptive.PopulationShift``), in words:
    raters alike, the population counted like the others, then weighting the poorer raters down.

    >>> from types import SimpleNamespace as S
    >>> mb = MinimalBudget
    >>> population_shift_sentence(S(metric="tv", alike=mb("tv", 500, 20, 0.01), unweighted=mb("tv", 2500, 10, 0.02),
    ...                             weighted=mb("tv", 1000, 20, 0.03)))
    'With raters alike (the paper), TV (total variation) first reaches p < 0.05 at 500 ratings (K = 20); with these raters, counted like the others, it first reaches p < 0.05 at 2,500 ratings (K = 10). For TV (total variation), weighting the poorer raters down changes the minimal budget from 2,500 ratings (K = 10) to 1,000 ratings (K = 20).'
    """

    def say(mb: MinimalBudget) -> str:
        if mb.budget is None:
            return f"does not reach p < {SIGNIFICANCE} within the budgets tried"
        return f"first reaches p < {SIGNIFICANCE} at {fmt_int(mb.budget)} ratings (K = {mb.k})"

    name = metric_label(shift.metric)
    head = (
        f"With raters alike (the paper), {name} {say(shift.alike)}; with these raters, counted like the others, it "
        f"{say(shift.unweighted)}."
    )
    return (
        head + " " + minimal_budget_shift_sentence("weighting the poorer raters down", shift.unweighted, shift.weighted)
    )


def recommendation_sentence(rec: Any) -> str:
    """The Budget page's recommendation at one budget (``policies.Recommendation``): the best fixed K, K = 1
    included, against the best adaptive policy, adaptive only when it wins by more than the Monte Carlo error.

    >>> from types import SimpleNamespace as S
    >>> fx, ad = S(k=1, reproducibility=0.74), S(k=5, reproducibility=0.6, policy="sequential")
    >>> recommendation_sentence(S(budget=250, fixed=fx, adaptive=ad, gain=-0.14, gain_se=0.03, adaptive_wins=False,
    ...     metric="acc"))[:96]
    'At 250 ratings, spend them as 1 rating on every item: the same winner in 74% of the evaluations;'
    """
    fx, ad = rec.fixed, rec.adaptive
    head = (
        f"At {fmt_int(rec.budget)} ratings, spend them as {plural(fx.k, 'rating')} on every item: the same winner in "
        f"{fx.reproducibility:.0%} of the evaluations"
    )
    if ad is None:
        return head + " (no adaptive policy fits this budget)."
    what = f"{ad.policy} with {ad.k} ratings per item on average"
    if rec.adaptive_wins:
        return (
            f"At {fmt_int(rec.budget)} ratings, spend them adaptively ({what}): the same winner in "
            f"{ad.reproducibility:.0%} of the evaluations against {fx.reproducibility:.0%} with the best fixed K "
            f"({fx.k}), a gain of {rec.gain:+.2f} +- {rec.gain_se:.2f} (Monte Carlo error), more than twice its error."
        )
    return (
        f"{head}; the best adaptive policy ({what}) gets {ad.reproducibility:.0%}, "
        f"{rec.gain:+.2f} +- {rec.gain_se:.2f} (Monte Carlo error): not better by more than twice its error."
    )
