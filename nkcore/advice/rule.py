"""What to ship under a latency budget, paying only for accuracy gains the paired test on the same cases supports.

Every row of a cost table (:class:`nkcore.cost.CostTable`) is scored on the same cases, so two rows are compared
paired (:func:`nkcore.advice.gap.paired_gap`). A row's per-case credit is the expected vote credit of a request
drawing its samples at random, a fraction in [0, 1]: then the test is the exact sign-flip test on the per-case
differences and the interval the case bootstrap (:mod:`nkcore.paired.case_test`); when every credit is 0 or 1, only
the discordant cases (one row right, the other wrong) say which is better (McNemar's exact test,
:func:`nkcore.paired.mcnemar`) and the interval is the exact paired bootstrap
(:func:`nkcore.paired.exact_paired_bootstrap`). The sentences name the test used. The rule:

1. the rows whose latency percentile fits the budget are the candidates; the *best* is the most accurate of them
   (the fewest calls among equals, then a flat row before the adaptive rule);
2. the recommendation is the cheapest candidate (fewest calls, strictly fewer than the best's) that is not
   resolvably worse than the best: the paired test's p, adjusted by Holm's method over the comparisons of every cheaper
   candidate with the best (the product's one rule for a family of comparisons, the Compare page's too; the family
   is named in the sentence), >= alpha, or no less accurate; else the best itself. A dearer row is recommended only
   when every cheaper row is resolvably worse than the best, so money is spent only on a gain the data can tell
   from noise.

Money is named only when the table has a price per call (and a monthly figure only with requests per month);
without a price the extra cost is said in calls per request.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``), sections "Two intervals, and only one of them is the right instrument"
and the latency-bound recommendation (flat n = 3): on its worked example n = 3 to n = 5 is 5 vs 7 discordant cases,
p = 0.77, +1.0 points (-2.5 to +4.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from nkcore.advice.gap import MCNEMAR, Gap, RowInterval, paired_gap, row_intervals
from nkcore.advice.texts import PERCENTILES
from nkcore.common.checks import check_significance
from nkcore.common.formatting import format_p, percent, points
from nkcore.errors import DataError
from nkcore.paired.compare import holm

if TYPE_CHECKING:
    from nkcore.cost import CostRow, CostTable

__all__ = ["Advice", "advise", "dearest_sentence"]


@dataclass(frozen=True, slots=True)
class Advice:
    """What to ship under a latency budget and why (see the module docstring for the rule).

    ``pick``: the recommended row's label (None when no row fits); ``best``: the most accurate row within the budget;
    ``gap``: ``pick`` against ``best`` (None when they are the same row); ``worse``: the cheaper rows that are
    resolvably worse than ``best``; ``over_budget``: the most accurate row the budget rules out, if it beats
    ``pick``, with its gap; ``intervals``: every row's accuracy interval. ``headline`` is what to ship (one
    sentence), ``reasons`` why (the rest, '' when there is nothing to add); ``sentence`` is both.
    """

    pick: str | None
    best: str | None
    percentile: str
    budget_s: float
    alpha: float
    gap: Gap | None
    worse: tuple[Gap, ...]
    over_budget: Gap | None
    intervals: tuple[RowInterval, ...]
    headline: str
    reasons: str

    @property
    def sentence(self) -> str:
        """The whole advice: the headline, then the reasons."""
        return f"{self.headline} {self.reasons}".strip()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (plain floats, strings and None)."""

        def gap(g: Gap | None) -> dict[str, Any] | None:
            if g is None:
                return None
            return {
                "cheaper": g.cheaper,
                "dearer": g.dearer,
                "cheaper_only": g.cheaper_only,
                "dearer_only": g.dearer_only,
                "diff": g.diff,
                "ci_low": g.low,
                "ci_high": g.high,
                "p_exact": g.p,
                "p_holm": g.p if g.p_holm is None else g.p_holm,
                "family": g.family,
                "resolved": g.resolved,
                "test": g.test,
                "p_method": g.p_method,
            }

        return {
            "pick": self.pick,
            "best": self.best,
            "percentile": self.percentile,
            "budget_s": self.budget_s,
            "alpha": self.alpha,
            "versus_best": gap(self.gap),
            "resolvably_worse": [gap(g) for g in self.worse],
            "over_budget": gap(self.over_budget),
            "sentence": self.sentence,
        }


def _what(row: CostRow) -> str:
    return f"the adaptive rule {row.label}" if row.adaptive else f"flat samples per request {row.label}"


def _money(x: float) -> str:
    return f"${x:,.2f}" if abs(x) < 100 else f"${x:,.0f}"


def _price_words(table: CostTable, row: CostRow) -> str:
    """', $18.60 per 1,000 requests ($7,440 a month)': what the table can say about a row's money ('' without a
    price; no monthly figure without requests per month)."""
    if not table.price_per_call > 0:
        return ""
    month = f" ({_money(row.monthly_cost)} a month)" if table.requests_per_month > 0 else ""
    return f", {_money(row.cost_per_1k)} per 1,000 requests{month}"


def _extra_words(table: CostTable, pick: CostRow, best: CostRow) -> str:
    """'$7,440 a month more for n=5' (or per 1,000 requests, or in calls per request without a price)."""
    if table.price_per_call > 0 and table.requests_per_month > 0:
        return f"{_money(best.monthly_cost - pick.monthly_cost)} a month more for {best.label}"
    if table.price_per_call > 0:
        return f"{_money(best.cost_per_1k - pick.cost_per_1k)} per 1,000 requests more for {best.label}"
    return f"{best.calls - pick.calls:.2f} more calls per request for {best.label}"


def _holm_words(g: Gap, best: str) -> str:
    """How the family rule read this gap's p: adjusted over the cheaper settings compared with the best, or the one
    comparison the decision makes."""
    if g.family <= 1 or g.p_holm is None:
        return ", the one comparison this decision makes, so no adjustment"
    return f", {format_p(g.p_holm)} after Holm's adjustment for the {g.family} cheaper settings compared with {best}"


def _p_words(g: Gap) -> str:
    """'McNemar exact p = 0.77' or 'sign-flip p = 0.25' (with the Monte Carlo error or the normal form's bound when
    the sign-flip p is not exact): the p and the test it comes from."""
    if g.test == MCNEMAR:
        return f"McNemar exact {format_p(g.p)}"
    how = {"monte-carlo": f" (Monte Carlo, standard error {g.p_error:.3f})", "normal": " (normal approximation)"}
    return f"sign-flip {format_p(g.p)}{how.get(g.p_method, '')}"


def _test_words(g: Gap) -> str:
    """The test of one gap in words, with the cases it rests on."""
    if g.test == MCNEMAR:
        return f"McNemar exact {format_p(g.p)} on the {g.differing} cases where they disagree"
    return (
        f"{_p_words(g)}, the sign-flip test on the per-case differences of expected credit, over the {g.differing} "
        "cases where the two differ"
    )


def advise(
    table: CostTable,
    latency_budget_s: float,
    percentile: str = "p95",
    significance: float = 0.05,
    confidence: float = 0.95,
) -> Advice:
    """What to ship under a ``percentile`` latency budget: the cheapest row within the budget that is not resolvably
    worse than the most accurate one there (the paired test's Holm-adjusted p >= alpha on the same cases), with the
    paired interval.

    Rule and reference: the module docstring. Raises DataError for an unknown percentile or a budget <= 0.
    On the chapter's worked example with a p95 budget of 8 s the most accurate rows within the budget are n=5
    (77.4%) and the adaptive rule 3+2 (75.5%), and every cheaper row is resolvably worse than n=5 (sign-flip test on
    the per-case expected credit), so n=5 is the answer.
    """
    if percentile not in PERCENTILES:
        raise DataError(f"percentile must be p50, p95 or p99, got {percentile!r}")
    if not latency_budget_s > 0 or not math.isfinite(latency_budget_s):
        raise DataError(f"the latency budget must be a positive number of seconds, got {latency_budget_s}")
    check_significance(significance)
    rows = list(table.rows)
    if table.credit.shape != (table.n_cases, len(rows)):
        raise DataError("this cost table carries no per-case credit; build it with nkcore.cost.build_table")
    col = {r.label: table.credit[:, i] for i, r in enumerate(rows)}
    intervals = row_intervals(table)
    lat = {r.label: float(getattr(r, percentile)) for r in rows}
    fits = [r for r in rows if lat[r.label] <= latency_budget_s]
    where = f"a {percentile} latency budget of {latency_budget_s:.1f} s"
    if not fits:
        fastest = min(rows, key=lambda r: lat[r.label])
        head = (
            f"No configuration meets {where}; the fastest, {fastest.label}, has {percentile} "
            f"{lat[fastest.label]:.1f} s."
        )
        why = "Raise the budget or find a faster model."
        return Advice(None, None, percentile, latency_budget_s, significance, None, (), None, intervals, head, why)

    def gap(cheap: CostRow, dear: CostRow) -> Gap:
        return paired_gap(col[cheap.label], col[dear.label], cheap.label, dear.label, significance, confidence)

    best = max(fits, key=lambda r: (r.accuracy, -r.calls, not r.adaptive))
    # the family: every strictly cheaper candidate (only those can save money) against the best, Holm-adjusted
    cheaper = [r for r in sorted(fits, key=lambda r: (r.calls, r.adaptive, r.label)) if r.calls < best.calls]
    raw = [gap(r, best) for r in cheaper]
    adjusted = holm([g.p for g in raw]) if raw else ()
    family = [
        replace(g, p_holm=a, family=len(raw), resolved=g.diff > 0 and a < significance)
        for g, a in zip(raw, adjusted, strict=True)
    ]
    worse: list[Gap] = []
    pick, versus = best, None
    for r, g in zip(cheaper, family, strict=True):
        if g.resolved:
            worse.append(g)
        else:
            pick, versus = r, g
            break
    outside = [r for r in rows if r not in fits and r.accuracy > pick.accuracy]
    over = gap(pick, max(outside, key=lambda r: (r.accuracy, -r.calls))) if outside else None
    ival = next(i for i in intervals if i.label == pick.label)
    lvl = f"{confidence:.0%}"
    head = (
        f"Under {where}, ship {_what(pick)}: {percent(pick.accuracy)} accuracy (95% interval "
        f"{percent(ival.low)} to {percent(ival.high)}), {pick.calls:.2f} calls per request, {percentile} "
        f"{lat[pick.label]:.1f} s{_price_words(table, pick)}."
    )
    text = ""
    if versus is not None:
        few = "discordant cases" if versus.test == MCNEMAR else "cases that differ"
        narrow = (
            f"; the bootstrap interval misses zero, but with so few {few} it runs too narrow, and the "
            f"{'exact ' if versus.p_method == 'exact' else ''}test decides"
            if versus.low > 0 or versus.high < 0
            else ""
        )
        text += (
            f" It is the cheapest setting within the budget that the paired test cannot tell from the most accurate "
            f"one, {best.label}: {best.label} scores {points(versus.diff)} points ({lvl} paired bootstrap interval "
            f"{points(versus.low)} to {points(versus.high)} on the same {table.n_cases:,} cases; "
            f"{_test_words(versus)}{_holm_words(versus, best.label)}{narrow}). {_extra_words(table, pick, best)} "
            "would pay for a gain the data cannot tell from noise."
        )
    if worse:
        named = "; ".join(
            f"{g.cheaper} by {points(g.diff, sign=False)} points, {_p_words(g)}{_holm_words(g, best.label)}"
            for g in worse
        )
        text += f" Cheaper settings are resolvably worse than {best.label} ({named})."
    if over is not None:
        text += (
            f" {over.dearer} scores {points(over.diff)} points against "
            f"{pick.label} ({points(over.low)} to {points(over.high)}, {_p_words(over)}) but its {percentile} is "
            f"{lat[over.dearer]:.1f} s, over the budget."
        )
    dearer = [r for r in fits if r.calls > pick.calls and r is not best and r.accuracy <= pick.accuracy]
    if dearer:
        text += (
            f" Spending more ({', '.join(r.label for r in dearer)}) buys no accuracy on these {table.n_cases:,} cases."
        )
    return Advice(
        pick.label,
        best.label,
        percentile,
        latency_budget_s,
        significance,
        versus,
        tuple(worse),
        over,
        intervals,
        head,
        text.strip(),
    )


def dearest_sentence(table: CostTable, advice: Advice) -> str:
    """What running the dearest flat row instead of the recommended one would cost a month, and the accuracy it
    buys on these cases (the paired gap of :func:`paired_gap`: interval and the p of its test); '' when nothing is
    recommended or the recommendation is the dearest row.

    Monthly cost difference = (calls of the dearest - calls of the pick) x price per call x requests per month.
    """
    if advice.pick is None:
        return ""
    rows = list(table.rows)
    pick = table.row(advice.pick)
    dearest = max((r for r in rows if not r.adaptive), key=lambda r: r.calls)
    if dearest.calls <= pick.calls:
        return ""
    i, j = rows.index(pick), rows.index(dearest)
    gap = paired_gap(table.credit[:, i], table.credit[:, j], pick.label, dearest.label, advice.alpha)
    diff = (dearest.calls - pick.calls) * table.price_per_call * table.requests_per_month
    return (
        f"Running {dearest.label} instead of the recommended {pick.label} would cost ${diff:,.0f} a month more at "
        f"{table.requests_per_month:,.0f} requests a month, for {points(gap.diff)} points of accuracy on these cases "
        f"(95% paired interval {points(gap.low)} to {points(gap.high)}, {_p_words(gap)})."
    )
