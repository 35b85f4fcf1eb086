"""Plain-language sentences for the (N, K) results: what the page and the CLI print next to the numbers.

Every sentence uses the glossary words: items (N), ratings per item (K), budget (N x K), prior (alpha), eps.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from nkcore.nk.best import BestK, MinimalBudget, best_k, extrapolated, minimal_budgets
from nkcore.nk.cell_words import cell_sentence
from nkcore.nk.metrics import METRICS, kl_artifact_nats
from nkcore.nk.number_words import (
    TIE_TOLERANCE,
    GapShares,
    agreement_z,
    fmt_alpha0,
    fmt_error,
    fmt_gap,
    fmt_int,
    fmt_p,
    gap_shares,
    is_exact_text,
    p_phrase,
    seed_summary,
    shares_sentence,
)
from nkcore.nk.pvalue import SIGNIFICANCE


@dataclass(frozen=True, slots=True)
class Claim:
    """One of the paper's headline claims checked on the current results: ``holds`` is None when undecidable."""

    claim: str
    holds: bool | None
    evidence: str


def cell_heading(cell: Any) -> str:
    """What a cell uses: 'Cell: budget 1,000: 111 items (N) x 9 ratings per item (K) = 999 ratings'.

    N = floor(budget / K), so N x K may fall short of the budget.

    >>> from types import SimpleNamespace as S
    >>> cell_heading(S(budget=1000, n=111, k=9))
    'Cell: budget 1,000: 111 items (N) x 9 ratings per item (K) = 999 ratings'
    """
    return (
        f"Cell: budget {fmt_int(cell.budget)}: {fmt_int(cell.n)} items (N) x {cell.k} "
        f"{'rating' if cell.k == 1 else 'ratings'} per item (K) "
        f"= {fmt_int(cell.n * cell.k)} ratings"
    )


def extrapolation_sentence(cell: Any) -> str:
    """Why an extrapolated cell (:func:`extrapolated`) is not a measurement of the data; '' for other cells.

    >>> from types import SimpleNamespace as S
    >>> extrapolation_sentence(S(budget=2500, n=2500, k=1, n_qualifying=500))[:78]
    'Extrapolation: this cell draws 2,500 items (N) from a pool of 500 items with a'
    """
    if not extrapolated(cell):
        return ""
    return (
        f"Extrapolation: this cell draws {fmt_int(cell.n)} items (N) from a pool of {fmt_int(cell.n_qualifying)} "
        f"items with at least {cell.k} ratings, with replacement, so items repeat about "
        f"{cell.n / cell.n_qualifying:.1f} times each. It says how an evaluation of this size would behave if new "
        "items were like these, not what the data measured; collect more items to measure it."
    )


def extrapolation_note(cells: Iterable[Any]) -> str:
    """One line for the grid: how many cells draw more items than the pool has (marked on the heatmap); ''
    when none.

    >>> from types import SimpleNamespace as S
    >>> extrapolation_note([S(n=2500, k=1, n_qualifying=500), S(n=250, k=2, n_qualifying=500)])[:60]
    '1 of 2 cells (marked x) draw more items (N) than the data ha'
    """
    cs = list(cells)
    ext = [c for c in cs if extrapolated(c)]
    if not ext:
        return ""
    pool = max(int(c.n_qualifying) for c in ext)
    return (
        f"{len(ext)} of {len(cs)} cells (marked x) draw more items (N) than the data has items with that many "
        f"ratings (at most {fmt_int(pool)}): items repeat, so those cells are extrapolation, not measurement."
    )


def metric_label(metric: str) -> str:
    """The display name of a metric."""
    return METRICS[metric].label if metric in METRICS else metric


def minimal_budget_sentence(mb: MinimalBudget) -> str:
    """'TV reaches p < 0.05 at 1,000 ratings with K = 120.' or 'never within the budgets tried'; an extrapolated
    answer (real data: more items than the pool holds) says so.

    >>> print(minimal_budget_sentence(MinimalBudget("acc", 10_000, 1, 0.002, 10_000, True, 500)))
    Accuracy (plurality vote) reaches p < 0.05 at a budget of 10,000 ratings with ratings per item (K) = 1 (p = 0.002), an extrapolation: that split needs 10,000 items and the data has 500 with 1 rating each, so each is drawn about 20 times; a projection beyond the data, not a measurement.
    """
    name = metric_label(mb.metric)
    if mb.budget is None:
        return f"{name} does not reach p < {SIGNIFICANCE} within the budgets tried."
    return (
        f"{name} reaches p < {SIGNIFICANCE} at a budget of {fmt_int(mb.budget)} ratings "
        f"with ratings per item (K) = {mb.k} ({p_phrase(mb.p)}){extrapolation_clause(mb)}."
    )


def extrapolation_clause(mb: MinimalBudget) -> str:
    """', an extrapolation: ...' for a minimal budget beyond the data's pool of items; '' otherwise."""
    if not mb.extrapolated or mb.n is None or not mb.pool or mb.k is None:
        return ""
    each = f"{mb.k} rating{'s' if mb.k != 1 else ''} each"
    return (
        f", an extrapolation: that split needs {fmt_int(mb.n)} items and the data has {fmt_int(mb.pool)} with {each}, "
        f"so each is drawn about {mb.n / mb.pool:.0f} times; a projection beyond the data, not a measurement"
    )


def best_k_sentence(bk: BestK, pool: int | None = None) -> str:
    """The best K at one budget, in words; with ``pool`` (items the data has with at least that K), says when the
    split needs more items than that (extrapolation)."""
    text = (
        f"At a budget of {fmt_int(bk.budget)}, the best split for {metric_label(bk.metric)} is "
        f"items (N) {fmt_int(bk.n)} x ratings per item (K) {bk.k} ({p_phrase(bk.p)})."
    )
    if pool is not None and bk.n > pool:
        text += (
            f" That split needs {fmt_int(bk.n)} items and the data has {fmt_int(pool)}: it is extrapolation "
            "(items drawn again and again), not a measurement."
        )
    return text


def headline_sentence(mins: Sequence[MinimalBudget], metrics: Sequence[str] = ("tv", "kl", "wins", "acc")) -> str:
    """The issue's one-liner: 'TV reaches p < 0.05 at 1,000 ratings with K = 120; Accuracy needs 2,500 with K = 1.'

    >>> headline_sentence([MinimalBudget("tv", 1000, 120, 0.01), MinimalBudget("acc", 2500, 1, 0.02)])
    'TV (total variation) reaches p < 0.05 at 1,000 ratings with ratings per item (K) = 120; Accuracy (plurality vote) needs 2,500 with K = 1.'
    """
    pick = [mb for mb in mins if mb.metric in metrics]
    reached = sorted((mb for mb in pick if mb.budget is not None), key=lambda mb: (mb.budget, mb.p))
    never = [mb for mb in pick if mb.budget is None]
    parts = []
    for i, mb in enumerate(reached):
        verb = f"reaches p < {SIGNIFICANCE} at" if i == 0 else "needs"
        unit, k_name = (" ratings", "ratings per item (K)") if i == 0 else ("", "K")
        parts.append(f"{metric_label(mb.metric)} {verb} {fmt_int(mb.budget)}{unit} with {k_name} = {mb.k}")  # type: ignore[arg-type]
    if never:
        names = ", ".join(metric_label(mb.metric) for mb in never)
        parts.append(f"{names} never within the budgets tried")
    return "; ".join(parts) + "." if parts else ""


def kl_artifact_sentence() -> str:
    """Why the paper's KL jumps at small K (spec "Metrics": 1e-12 added to every count)."""
    return (
        "The paper's KL adds 1e-12 to every count, so an item where the raters used a label that the model's K "
        f"responses never used costs about ln(1e12) = {kl_artifact_nats():.2f} nats (times the raters' share of "
        "that label). At small K this happens often, so KL is dominated by these jumps; the smoothed KL (add 1/2 to "
        "every count) does not have them."
    )


def kl_artifact_short() -> str:
    """One line for tables that list the paper's KL."""
    return (
        f"KL divergence (paper's version, 1e-12 added to counts) counts about {kl_artifact_nats():.2f} nats for every "
        "label the raters used and the model's K responses never did, so at small K it mostly counts such misses."
    )


def kl_jump_sentence(n: int) -> str:
    """What the steps in a KL gap histogram are: one item's artifact spread over N items.

    >>> kl_jump_sentence(100)[:40]
    'The KL gaps cluster in steps of about 0.'
    """
    step = kl_artifact_nats() / max(int(n), 1)
    return (
        f"The KL gaps cluster in steps of about {step:.3g} nats: one item more or less where a model missed a "
        f"label the raters used ({kl_artifact_nats():.2f} nats / items (N) {int(n):,})."
    )


def precision_sentence(rounds: int) -> str:
    """How much a p-value near 0.05 moves from seed to seed with this many rounds (a rule of thumb).

    The seed-to-seed SD of p is about 0.66 sqrt(p (1 - p) / R) (fitted on the Toxicity prior: docs/benchmarks.md);
    twice that at p = 0.05 is the range quoted.

    >>> precision_sentence(200)[:60]
    'With 200 + 200 rounds per cell, a p-value near 0.05 moves by'
    """
    spread = 2 * 0.66 * math.sqrt(0.05 * 0.95 / max(int(rounds), 1))
    advice = " Choose full precision before quoting a number." if rounds < 1000 else ""
    return (
        f"With {int(rounds):,} + {int(rounds):,} rounds per cell, a p-value near 0.05 moves by about "
        f"+/-{spread:.2f} from one seed to another.{advice}"
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
            ev = "; ".join(minimal_budget_sentence(mb).rstrip(".") for mb in ok) + " (but only with K <= 10)."
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
        f"On the full data {better} beats {worse} on {metric_label(c.metric)}. Buying items (N) {c.n:,} x ratings "
        f"per item (K) {c.k} (budget {fmt_int(c.budget)}), {c.reproducibility:.0%} of resampled evaluations "
        f"reach the same conclusion{sig_txt}."
    )


def fit_source_sentence(fitted: Any, comparisons: Sequence[Any], dataset: str) -> str:
    """Where a fitted prior comes from, how well it fits, and why a paper preset of the same kind of data differs.

    ``fitted``: a :class:`nkcore.nk.frames.FittedPrior`; ``comparisons``: its
    :class:`nkcore.nk.frames.PresetComparison` rows. The fit is maximum likelihood (Dirichlet-multinomial) on
    these ratings; the presets are the authors' MAP fits to their copy of the data, whose fitting data and code
    are not public, so the two can disagree (the paper's Jobs Q1: alpha0 about 1,470; ML on the public Jobs Q1
    ratings: about 4.5). alpha0 = sum(alpha): large = items alike, small = items differ.
    """
    f = fitted.fit
    text = (
        f"alpha fitted here by maximum likelihood (Dirichlet-multinomial) to the {fmt_int(fitted.n_items)} items of "
        f"{dataset}: alpha0 = {fmt_alpha0(f.alpha0)} (small: items differ a lot; large: items alike). Fit quality: "
        f"log-likelihood {f.log_likelihood / max(1, fitted.n_items):,.3g} nats per item; the fitted label shares are "
        f"{f.mab:.3f} from the data's on average (MAB){'; see the warnings below' if f.warnings else ''}."
    )
    for c in comparisons:
        text += (
            f" The paper's preset {c.name} ({c.source}) has alpha0 = {fmt_alpha0(c.alpha0)}: the authors fitted it (MAP) to "
            "their own copy of the data, and their fitting data and code are not public, so it need not match a fit "
            f"to these ratings. On these ratings it scores {c.per_item:,.3g} nats per item below the fit "
            f"(MAB {c.mab:.3f}; its values matched to labels by how common they are)."
        )
    return text


def no_shared_predictions_sentence(dataset: str) -> str:
    """Why the Budget page opened on a prior fitted to the ratings rather than resampling them with predictions.

    >>> no_shared_predictions_sentence("snli")[:99]
    'No stored predictions are for the items of snli, so the numbers come from a prior fitted to the rat'
    """
    return (
        f"No stored predictions are for the items of {dataset}, so the numbers come from a prior fitted to the "
        "ratings; upload the models' predictions for these items on the Data page to resample them instead."
    )


def fit_warnings_short(warnings: Sequence[str], resample: bool) -> str:
    """A fitted prior's warnings (``DirichletFit.warnings``) in one line for the headline: each cut to its claim
    (before its first colon or bracket); '' when there are none. ``resample``: predictions for these items are
    stored, so resampling the real data is the way out.

    >>> fit_warnings_short(["the items look alike: the data show no clear spread", "the fitted label shares are "
    ...                     "off by 0.061 on average (MAB > 0.05)"], False)
    'Fit warning: the numbers may not describe this data (the items look alike; the fitted label shares are off by 0.061 on average).'
    """
    if not warnings:
        return ""
    short = "; ".join(w.split(":", 1)[0].split(" (", 1)[0].strip() for w in warnings)
    tail = " Try 'Resample ratings + predictions'." if resample else ""
    return f"Fit warning: the numbers may not describe this data ({short}).{tail}"


def claims_basis_sentence(prior_name: str, alpha0: float, fitted: bool) -> str:
    """Which prior the paper's claims are checked on: the verdicts depend on alpha0, so a fitted prior and a preset
    of the same data can reach different ones.

    >>> claims_basis_sentence("fitted to jobs", 4.5, True)[:62]
    'Checked on grids simulated from the prior fitted to jobs (alph'
    """
    what = "the prior" if fitted else "the preset prior"
    text = f"Checked on grids simulated from {what} {prior_name} (alpha0 = {fmt_alpha0(alpha0)})."
    if fitted:
        text += (
            " The verdicts depend on alpha0 (how much items differ), so a paper preset for the same data can give "
            "other verdicts; the fit above says how far apart the two are."
        )
    return text


def verdict_sentence(mb: MinimalBudget, label: str, searched: str, on_grid: bool, all_tied: bool) -> str:
    """The page's answer: the smallest budget reaching p < 0.05 for ``label`` and its split N x K, or that none
    within ``searched`` does, or that the two models agree on every item.

    >>> verdict_sentence(MinimalBudget("tv", 1000, 10, 0.01), "TV", "any budget", False, False)
    'Smallest budget that reaches p < 0.05 for TV: 1,000 ratings (100 items x 10 ratings per item).'
    """
    if all_tied:
        return "These two models agree on every item: nothing to detect."
    if mb.budget is not None and mb.k is not None:
        per = "rating per item" if mb.k == 1 else "ratings per item"
        tried = " tried" if on_grid else ""
        return (
            f"Smallest budget{tried} that reaches p < {SIGNIFICANCE} for {label}: {mb.budget:,} ratings "
            f"({mb.budget // mb.k:,} items x {mb.k} {per}){extrapolation_clause(mb)}."
        )
    return f"{label} does not reach p < {SIGNIFICANCE} within {searched}: a larger budget is needed."


__all__ = [
    "TIE_TOLERANCE",
    "Claim",
    "GapShares",
    "agreement_z",
    "best_k_sentence",
    "cell_heading",
    "cell_sentence",
    "claims_basis_sentence",
    "claims_check",
    "extrapolation_clause",
    "extrapolation_note",
    "extrapolation_sentence",
    "fit_source_sentence",
    "fit_warnings_short",
    "fmt_alpha0",
    "fmt_error",
    "fmt_gap",
    "fmt_int",
    "fmt_p",
    "gap_shares",
    "headline_sentence",
    "is_exact_text",
    "kl_artifact_sentence",
    "kl_artifact_short",
    "kl_jump_sentence",
    "metric_label",
    "minimal_budget_sentence",
    "no_shared_predictions_sentence",
    "p_phrase",
    "precision_sentence",
    "resample_sentence",
    "seed_summary",
    "shares_sentence",
    "verdict_sentence",
]
