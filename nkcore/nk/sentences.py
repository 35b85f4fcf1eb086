"""Plain-language sentences for the (N, K) results: what the page and the CLI print next to the numbers.

Every sentence uses the glossary words: items (N), ratings per item (K), budget (N x K), prior (alpha), eps.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from nkcore.nk.grid import BestK, MinimalBudget, best_k, minimal_budgets
from nkcore.nk.metrics import METRICS, kl_artifact_nats
from nkcore.nk.pvalue import SIGNIFICANCE


@dataclass(frozen=True, slots=True)
class Claim:
    """One of the paper's headline claims checked on the current results: ``holds`` is None when undecidable."""

    claim: str
    holds: bool | None
    evidence: str


def fmt_int(x: int) -> str:
    """Thousands with commas: 2500 -> '2,500'."""
    return f"{int(x):,}"


def fmt_p(p: float) -> str:
    """A p-value for reading: '< 0.001', or three decimals.

    >>> fmt_p(0.0004), fmt_p(0.0312)
    ('< 0.001', '0.031')
    """
    if p is None or not math.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def metric_label(metric: str) -> str:
    """The display name of a metric."""
    return METRICS[metric].label if metric in METRICS else metric


def cell_sentence(cell: Any) -> str:
    """What one simulated cell says, in words (fields of ``CellResult``).

    >>> from types import SimpleNamespace as S
    >>> cell_sentence(S(budget=1000, k=120, n=8, metric="tv", p=0.019, delta=0.074, reproducibility=0.97))[:60]
    'With a budget of 1,000 ratings = items (N) 8 x ratings per i'
    """
    c = cell
    verdict = (
        f"reasonably repeatable (p = {fmt_p(c.p)} < {SIGNIFICANCE})"
        if c.p < SIGNIFICANCE
        else f"not reliably repeatable (p = {fmt_p(c.p)}, needs < {SIGNIFICANCE})"
    )
    return (
        f"With a budget of {fmt_int(c.budget)} ratings = items (N) {c.n} x ratings per item (K) {c.k}, "
        f"{metric_label(c.metric)} tells the better model A from B in a way that is {verdict}. "
        f"A comes out ahead in {c.reproducibility:.0%} of repeated evaluations; "
        f"the average gap is {c.delta:.3g}."
    )


def minimal_budget_sentence(mb: MinimalBudget) -> str:
    """'TV reaches p < 0.05 at 1,000 ratings with K = 120.' or 'never within the budgets tried'."""
    name = metric_label(mb.metric)
    if mb.budget is None:
        return f"{name} does not reach p < {SIGNIFICANCE} within the budgets tried."
    return (
        f"{name} reaches p < {SIGNIFICANCE} at a budget of {fmt_int(mb.budget)} ratings "
        f"with ratings per item (K) = {mb.k} (p = {fmt_p(mb.p)})."
    )


def best_k_sentence(bk: BestK) -> str:
    """The best K at one budget, in words."""
    return (
        f"At a budget of {fmt_int(bk.budget)}, the best split for {metric_label(bk.metric)} is "
        f"items (N) {bk.n} x ratings per item (K) {bk.k} (p = {fmt_p(bk.p)})."
    )


def kl_artifact_sentence() -> str:
    """Why the paper's KL jumps at small K."""
    return (
        f"The paper's KL adds 1e-12 to every count, so an item where the raters used a label that the model's K "
        f"responses never used costs about ln(1e12) = {kl_artifact_nats():.2f} nats. At small K this happens often, "
        "so KL is dominated by these jumps; the smoothed KL (add 1/2 to every count) does not have them."
    )


def claims_check(cells: Iterable, metrics: Sequence[str] = ("acc", "tv", "wins", "kl")) -> list[Claim]:
    """Check the paper's headline claims on the current grid of results, in plain words.

    1. Some metric reaches p < 0.05 within a budget of 1,000, with its best K above 10.
    2. Accuracy (majority vote) prefers K = 1 or very small K (at most 3).
    3. Distribution metrics (TV, KL) prefer large K (above 10).
    """
    cells = [c for c in cells if c.metric in metrics]
    out: list[Claim] = []
    small = [c for c in cells if c.budget <= 1000]
    if not small:
        out.append(
            Claim(
                "Some metric reaches p < 0.05 within a budget of 1,000, with K > 10.",
                None,
                "no budget <= 1,000 computed",
            )
        )
    else:
        hits = [mb for mb in minimal_budgets(small, [m for m in metrics if any(c.metric == m for c in small)])]
        ok = [mb for mb in hits if mb.budget is not None]
        big_k = [mb for mb in ok if mb.k is not None and mb.k > 10]
        if big_k:
            best = min(big_k, key=lambda mb: (mb.budget, mb.p))
            ev = minimal_budget_sentence(best)
        elif ok:
            ev = "; ".join(minimal_budget_sentence(mb) for mb in ok) + " (but only with K <= 10)"
        else:
            ev = "no metric reaches p < 0.05 at a budget of 1,000 or less"
        out.append(Claim("Some metric reaches p < 0.05 within a budget of 1,000, with K > 10.", bool(big_k), ev))
    for metric, want_small, words in (
        ("acc", True, "Accuracy (majority vote) prefers K = 1 or very small K."),
        ("tv", False, "TV prefers large K (more ratings per item, fewer items)."),
        ("kl", False, "KL prefers large K (more ratings per item, fewer items)."),
    ):
        if metric not in metrics:
            continue
        bks = best_k(cells, metric)
        if not bks:
            continue
        top = max(bks, key=lambda b: b.budget)  # the largest budget: best K is most clearly resolved there
        holds = top.k <= 3 if want_small else top.k > 10
        out.append(Claim(words, holds, best_k_sentence(top)))
    return out


def resample_sentence(cell: Any, model_a: str, model_b: str) -> str:
    """What one real-data cell says: how often resampled evaluations agree with the full data."""
    c = cell
    if c.direction == 0:
        return f"On the full data {metric_label(c.metric)} shows no difference between {model_a} and {model_b}."
    better, worse = (model_a, model_b) if c.direction > 0 else (model_b, model_a)
    sig = c.significant_share
    sig_txt = (
        "" if sig is None or not math.isfinite(sig) else f" and a paired test at 0.05 confirms it in {sig:.0%} of them"
    )
    return (
        f"On the full data {better} beats {worse} on {metric_label(c.metric)}. Buying items (N) {c.n} x ratings "
        f"per item (K) {c.k} (budget {fmt_int(c.budget)}), {c.reproducibility:.0%} of resampled evaluations "
        f"reach the same conclusion{sig_txt}."
    )
