"""Plain-language sentences for the (N, K) results: what the page and the CLI print next to the numbers.

Every sentence uses the glossary words: items (N), ratings per item (K), budget (N x K), prior (alpha), eps.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nkcore.nk.grid import BestK, MinimalBudget, best_k, extrapolated, minimal_budgets
from nkcore.nk.metrics import METRICS, kl_artifact_nats
from nkcore.nk.pvalue import SIGNIFICANCE


@dataclass(frozen=True, slots=True)
class Claim:
    """One of the paper's headline claims checked on the current results: ``holds`` is None when undecidable."""

    claim: str
    holds: bool | None
    evidence: str


TIE_TOLERANCE = 1e-12
"""Gaps within this of zero are ties: the float noise of a difference of equal means is far below it."""


@dataclass(frozen=True, slots=True)
class GapShares:
    """How a cell's alternative gaps split: ``ahead`` (gap > 0: A strictly ahead), ``behind`` (gap < 0) and
    ``tied`` (|gap| <= :data:`TIE_TOLERANCE`), summing to 1; ``all_tied``: every alternative and null gap is a tie
    (the two models agree on every item drawn: nothing to detect)."""

    ahead: float
    behind: float
    tied: float
    all_tied: bool


def gap_shares(alt: object, null: object | None = None) -> GapShares:
    """Shares of alternative gaps with A strictly ahead, strictly behind and tied.

    ahead = #{gap > tol} / R, behind = #{gap < -tol} / R, tied = #{|gap| <= tol} / R, tol = 1e-12.

    >>> gap_shares([0.1, -0.2, 0.0, 0.3])
    GapShares(ahead=0.5, behind=0.25, tied=0.25, all_tied=False)
    >>> gap_shares([0.0, 1e-17], [0.0, -1e-18]).all_tied
    True
    """
    a = np.asarray(alt, dtype=float).ravel()
    if a.size == 0:
        return GapShares(math.nan, math.nan, math.nan, False)
    everything = a if null is None else np.concatenate([a, np.asarray(null, dtype=float).ravel()])
    return GapShares(
        float(np.mean(a > TIE_TOLERANCE)),
        float(np.mean(a < -TIE_TOLERANCE)),
        float(np.mean(np.abs(a) <= TIE_TOLERANCE)),
        bool(np.all(np.abs(everything) <= TIE_TOLERANCE)),
    )


def fmt_gap(x: float) -> str:
    """A gap or interval width for reading: three significant digits, and 0 for float noise (|x| <= 1e-12).

    >>> fmt_gap(0.07412), fmt_gap(1e-17), fmt_gap(-3.3e-16)
    ('0.0741', '0', '0')
    """
    if not math.isfinite(x):
        return "n/a"
    return "0" if abs(x) <= TIE_TOLERANCE else f"{x:.3g}"


def shares_sentence(shares: GapShares, model_a: str = "A", model_b: str = "B") -> str:
    """Where the resampled evaluations put A: strictly ahead, strictly behind, tied; or that there is nothing to
    detect when the two models agree on every item drawn.

    >>> shares_sentence(GapShares(0.0, 0.0, 1.0, True), "m1", "m2")
    'These two models agree on every item: nothing to detect (every resampled gap is 0).'
    >>> shares_sentence(GapShares(0.6, 0.3, 0.1, False))
    'A is strictly ahead in 60% of the evaluations, B in 30%, and they tie in 10%.'
    """
    if shares.all_tied:
        return "These two models agree on every item: nothing to detect (every resampled gap is 0)."
    return (
        f"{model_a} is strictly ahead in {shares.ahead:.0%} of the evaluations, {model_b} in {shares.behind:.0%}, "
        f"and they tie in {shares.tied:.0%}."
    )


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


def p_phrase(p: float | None) -> str:
    """'p = 0.031' or 'p < 0.001' (never 'p = < 0.001').

    >>> p_phrase(0.0312), p_phrase(0.0)
    ('p = 0.031', 'p < 0.001')
    """
    text = fmt_p(p)  # type: ignore[arg-type]
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def metric_label(metric: str) -> str:
    """The display name of a metric."""
    return METRICS[metric].label if metric in METRICS else metric


def cell_sentence(cell: Any) -> str:
    """What one simulated cell says, in words (fields of ``CellResult``).

    >>> from types import SimpleNamespace as S
    >>> cell_sentence(S(budget=1000, k=100, n=10, metric="tv", p=0.019, delta=0.074, reproducibility=0.97))[:60]
    'With a budget of 1,000 ratings = items (N) 10 x ratings per '
    >>> cell_sentence(S(budget=1000, k=120, n=8, metric="tv", p=0.019, delta=0.074, reproducibility=0.97))[:84]
    'With a budget of 1,000 ratings, items (N) 8 x ratings per item (K) 120 = 960 ratings'
    """
    c = cell
    used = int(c.n) * int(c.k)
    items = f"items (N) {fmt_int(c.n)} x ratings per item (K) {c.k}"
    split = f" = {items}" if used == int(c.budget) else f", {items} = {fmt_int(used)} ratings"
    verdict = (
        f"reasonably repeatable ({p_phrase(c.p)}, below {SIGNIFICANCE})"
        if c.p < SIGNIFICANCE
        else f"not reliably repeatable ({p_phrase(c.p)}; needs < {SIGNIFICANCE})"
    )
    return (
        f"With a budget of {fmt_int(c.budget)} ratings{split}, "
        f"{metric_label(c.metric)} tells the better model A from B in a way that is {verdict}. "
        f"A comes out ahead in {c.reproducibility:.0%} of repeated evaluations; "
        f"the average gap is {c.delta:.3g}."
    )


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
    """How much a p-value near 0.05 moves from seed to seed with this many rounds (measured rule of thumb).

    Measured on the Toxicity prior: the seed-to-seed SD of p is about 0.66 sqrt(p (1 - p) / R) (0.012 at
    p = 0.08, R = 200; 0.0056 at R = 1000); twice that at p = 0.05 is the range quoted.

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


def fmt_alpha0(x: float) -> str:
    """alpha0 for reading: three significant digits, whole numbers with commas from 1,000 on (never 1.47e+03).

    >>> fmt_alpha0(4.4932), fmt_alpha0(1469.88), fmt_alpha0(0.0512)
    ('4.49', '1,470', '0.0512')
    """
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


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


def fmt_error(value: float, error: float | None, fmt: Any) -> str:
    """A number with its accuracy in words: '0.031 (+/- 0.002)' (one standard error), '0.031 (exact)' when the
    error is 0, '0.0405 (exact to these digits)' when it is below half a unit of the last digit shown, and the
    number alone when its error is unknown (NaN).

    >>> fmt_error(0.0312, 0.0021, lambda x: f"{x:.3f}"), fmt_error(0.0312, 0.0, lambda x: f"{x:.3f}")
    ('0.031 (+/- 0.002)', '0.031 (exact)')
    >>> fmt_error(0.0405, 1e-6, lambda x: f"{x:.4f}"), fmt_error(0.5, math.nan, lambda x: f"{x:.1f}")
    ('0.0405 (exact to these digits)', '0.5')
    """
    text = str(fmt(value))
    if error is None or not math.isfinite(error) or not math.isfinite(value):
        return text
    if error == 0:
        return f"{text} (exact)"
    if "e" in text:
        unit = abs(value) * 1e-2
    else:
        decimals = text.split(".", 1)[1] if "." in text else ""
        unit = 10.0 ** -len(decimals)
    if error < unit / 2:
        return f"{text} (exact to these digits)"
    return f"{text} (+/- {error:.1g})"


def is_exact_text(text: str) -> bool:
    """Whether ``fmt_error`` said the number is exact (to its digits)."""
    return text.endswith("(exact)") or text.endswith("(exact to these digits)")


def seed_summary(values: Sequence[float]) -> tuple[float, float]:
    """(mean, standard error of the mean) over seeds: sd / sqrt(seeds), a simulation's Monte Carlo error.

    >>> seed_summary([1.0, 3.0])
    (2.0, 1.0)
    """
    arr = np.asarray(values, dtype=float)
    if arr.size < 2:
        return float(arr.mean()), math.nan
    return float(arr.mean()), float(arr.std(ddof=1) / math.sqrt(arr.size))


def agreement_z(engine_value: float, engine_error: float, sims: Sequence[float]) -> tuple[float, float, float]:
    """(mean, standard error, z) of a simulated number against the engine's:
    z = (mean(sims) - engine) / sqrt(se^2 + engine_error^2), 0 when they agree to 1e-12.

    >>> [round(x, 6) for x in agreement_z(0.5, 0.0, [0.4, 0.6])], round(agreement_z(0.3, 0.0, [0.4, 0.6])[2], 6)
    ([0.5, 0.1, 0.0], 2.0)
    """
    mean, se = seed_summary(sims)
    spread = math.sqrt(
        (se if math.isfinite(se) else 0.0) ** 2 + (engine_error if math.isfinite(engine_error) else 0.0) ** 2
    )
    diff = mean - engine_value
    z = 0.0 if abs(diff) <= 1e-12 else (diff / spread if spread > 0 else math.inf)
    return mean, se, z


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
