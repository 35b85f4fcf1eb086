"""The plain-language sentences beside the paired numbers (the Compare page and ``nkcore compare``).

The exact McNemar p decides a comparison and the paired bootstrap interval qualifies it; the marginal intervals
are the wrong instrument for a difference; a rising sequence of k measurements is what luck gives 1 time in k!.
Numbers are formatted by :mod:`nkcore.common.formatting` (points, p-values, counts). Source: the chapter "The
accuracy curve flattens sooner than the sample count suggests" (``shared/seeds/002``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from nkcore.common.checks import check_significance
from nkcore.common.formatting import format_p, plural, points
from nkcore.paired.accuracy import ConfigAccuracy
from nkcore.paired.compare import OrderedComparison, PairedComparison
from nkcore.resolution import critical_count

__all__ = [
    "ALPHA_HELP",
    "DIFFERENCE_CHART_EXPLAINS",
    "INTERVAL_HELP",
    "MARGINAL_NOTE",
    "TEST_HELP",
    "accuracy_sentence",
    "cases_note",
    "chart_note",
    "disagreement_sentence",
    "headline_sentence",
    "marginal_sentence",
    "ordering_sentence",
    "tests_method_note",
    "verdict_note",
    "verdict_sentence",
]

ALPHA_HELP = (
    "alpha, the significance level: a difference counts when McNemar's exact p < alpha, and every interval is at "
    "1 - alpha (95% for alpha = 0.05). A smaller alpha gives fewer false wins and more 'cannot tell'."
)
INTERVAL_HELP = (
    "Wilson: the score interval (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), close to its nominal "
    "coverage; next to 0 or 100% (4 or fewer cases right, or wrong) its end there is replaced by Clopper-Pearson's, "
    "and under 40 cases Clopper-Pearson is used, where Wilson alone covers as little as 85-91% at 95%. "
    "Clopper-Pearson (exact): Beta quantiles of the binomial, never below the nominal coverage, a little wider. "
    "Either is for one config's accuracy; differences use the paired intervals above."
)
#: What each column of the tests table is, with its formula (the column headers' tooltips on the Compare page).
TEST_HELP = {
    "only A right": "discordant cases that config A gets right and config B wrong (b in McNemar's table)",
    "only B right": "discordant cases that config B gets right and config A wrong (c in McNemar's table)",
    "difference (points)": "accuracy of B minus accuracy of A = (only B right - only A right) / cases, in points",
    "exact p": "McNemar's exact test (it decides the verdict): two-sided binomial tail, "
    "p = min(1, 2 · P(X <= min(b, c))), X ~ Binomial(b + c, 1/2)",
    "mid-p": "McNemar's mid-p: the exact p minus the probability of the observed split, P(X = min(b, c)); less "
    "conservative than the exact p",
    "chi-square p": "McNemar's chi-square test with Edwards' continuity correction: (|b - c| - 1)² / (b + c) against "
    "chi-square with 1 degree of freedom (R's mcnemar.test; 1 when b = c)",
    "Holm p": "the exact p adjusted by Holm's step-down method for testing all adjacent pairs at once: sorted "
    "p-values times (pairs - rank + 1), made non-decreasing; keeps the chance of any false win below alpha",
}
MARGINAL_NOTE = (
    "These marginal intervals answer *what is this config's accuracy*. They are the wrong instrument for "
    "comparing configs: cases that are easy (or hard) for every config move all accuracies together and "
    "cancel in a difference, yet each marginal interval is charged for them. The paired interval at the top "
    "is the one to read."
)
#: The marks of the paired-differences chart, one line (under the title of its PNG and SVG).
DIFFERENCE_CHART_EXPLAINS = (
    "Blue: paired interval of winner minus loser (exact bootstrap); grey: the interval if the configs were "
    "independent; dashed line: no difference."
)


def accuracy_sentence(acc: ConfigAccuracy, confidence: float = 0.95) -> str:
    """One config's accuracy in words: "n=5: 158 of 200 correct = 79.0% (95% Wilson interval 72.8% to 84.1%)".

    >>> from nkcore.paired import config_accuracy, paired_table_from_counts
    >>> accuracy_sentence(config_accuracy(paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37))[1])
    'n=5: 158 of 200 correct = 79.0% (95% Wilson interval 72.8% to 84.1%)'
    """
    method = acc.method_name
    return (
        f"{acc.config}: {acc.correct:,} of {acc.n:,} correct = {100 * acc.accuracy:.1f}% "
        f"({round(100 * confidence):g}% {method} interval {100 * acc.ci_low:.1f}% to {100 * acc.ci_high:.1f}%)"
    )


def verdict_sentence(
    comparison: PairedComparison,
    significance: float = 0.05,
    p_adjusted: float | None = None,
    comparisons: int | None = None,
) -> str:
    """One plain sentence on a paired comparison A -> B; the exact McNemar p decides, the interval qualifies.

    - p_exact < alpha: "<winner> beats <loser>: +x points (95% interval lo to hi), p = ...". When ``p_adjusted``
      (Holm's, over ``comparisons`` adjacent pairs) is not below alpha, it goes on: "; but that p is for this pair
      on its own: with Holm's adjustment for the 3 adjacent comparisons p = 0.10, not below alpha = 0.05, so treat
      the win as tentative".
    - otherwise: "cannot tell <higher> from <lower>: +x points (95% interval lo to hi, p = ...) is smaller than the smallest
      difference <n> cases can resolve (with m discordant cases a difference needs k of them one way, a net of ... points)", k from
      :func:`nkcore.resolution.critical_count`; with no discordant case, or too few for any split to reach
      p < alpha, it says so.
    - the percentile bootstrap and the exact test can disagree at the margin (e.g. 4 vs 0 of 200: p = 0.125 but
      the interval is +0.5 to +4.0 points, because with few discordant cases the bootstrap distribution is too
      narrow); the sentence then names the disagreement and which one decides.

    >>> from nkcore.paired import compare_pair, paired_table_from_counts
    >>> c = compare_pair(paired_table_from_counts("n=1", "n=3", 130, 12, 26, 32), "n=1", "n=3")
    >>> verdict_sentence(c)
    'n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034'
    >>> print(verdict_sentence(c, p_adjusted=0.1008, comparisons=3)[68:])
    but that p is for this pair on its own: with Holm's adjustment for the 3 adjacent comparisons p = 0.10, not below alpha = 0.05, so treat the win as tentative
    """
    check_significance(significance)
    c = comparison
    pct = f"{round(100 * c.confidence):g}%"
    m = c.discordant
    if m == 0:
        return (
            f"cannot tell {c.config_b} from {c.config_a}: they agree on all {plural(c.n_cases, 'case')} (no discordant "
            "case), so these data say nothing about which is better"
        )
    if c.p_exact < significance:
        if c.diff >= 0:
            winner, loser, d, lo, hi = c.config_b, c.config_a, c.diff, c.diff_ci_low, c.diff_ci_high
        else:
            winner, loser, d, lo, hi = c.config_a, c.config_b, -c.diff, -c.diff_ci_high, -c.diff_ci_low
        text = (
            f"{winner} beats {loser}: {points(d)} points ({pct} interval {points(lo)} to {points(hi)}), "
            f"{format_p(c.p_exact)}"
        )
        if p_adjusted is not None and p_adjusted >= significance:
            family = f"the {comparisons} adjacent comparisons" if comparisons else "the other comparisons"
            text += (
                f"; but that p is for this pair on its own: with Holm's adjustment for {family} "
                f"{format_p(p_adjusted)}, not below alpha = {significance:g}, so treat the win as tentative"
            )
        if lo <= 0:
            text += "; the bootstrap interval reaches zero, so the evidence is borderline"
        return text
    k = critical_count(m, significance)
    # the higher-scoring config first, so the difference reads as the chart draws it (higher minus lower)
    hi_c, lo_c, d, lo, hi = (
        (c.config_b, c.config_a, c.diff, c.diff_ci_low, c.diff_ci_high)
        if c.diff >= 0
        else (c.config_a, c.config_b, -c.diff, -c.diff_ci_high, -c.diff_ci_low)
    )
    head = f"cannot tell {hi_c} from {lo_c}: {points(d)} points ({pct} interval {points(lo)} to {points(hi)}, {format_p(c.p_exact)})"
    if k is None:
        text = (
            f"{head}; with only {plural(m, 'discordant case')} among {plural(c.n_cases, 'case')} no split of them "
            f"can reach p < {significance:g}"
        )
    else:
        net = 2 * k - m
        text = (
            f"{head} is smaller than the smallest difference {plural(c.n_cases, 'case')} can resolve (with {m:,} "
            "discordant cases a difference "
            f"needs {k:,} of them one way, a net of {plural(net, 'case')} = {points(net / c.n_cases, sign=False)} "
            "points)"
        )
    if c.diff_ci_low > 0 or c.diff_ci_high < 0:
        text += (
            "; the bootstrap interval misses zero, but with so few discordant cases it runs too narrow, and the exact "
            "test decides"
        )
    return text


def marginal_sentence(comparison: PairedComparison) -> str:
    """Why the marginal intervals are the wrong instrument for this comparison, with its numbers.

    Treating the two accuracies as independent gives the difference the interval diff +- z sqrt(pa(1-pa)/n +
    pb(1-pb)/n); the cases both configs get right (or wrong) cancel in a paired difference, so the paired interval
    is narrower. Source: the chapter's section "Two intervals".

    >>> from nkcore.paired import compare_pair, paired_table_from_counts
    >>> c = compare_pair(paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37), "n=3", "n=5")
    >>> marginal_sentence(c)[:60]
    'Marginal intervals: n=3 78.0% (71.8% to 83.2%) and n=5 79.0%'
    """
    c = comparison
    same = c.both_correct + c.both_wrong

    def one(x: ConfigAccuracy) -> str:
        return f"{x.config} {100 * x.accuracy:.1f}% ({100 * x.ci_low:.1f}% to {100 * x.ci_high:.1f}%)"

    return (
        f"Marginal intervals: {one(c.a)} and {one(c.b)}. Treating them as independent gives the difference an "
        f"interval of {points(c.unpaired_ci_low)} to {points(c.unpaired_ci_high)} points; the paired interval is "
        f"{points(c.diff_ci_low)} to {points(c.diff_ci_high)}, because {same:,} of the {c.n_cases:,} cases came out the "
        "same for both configs and cancel in the difference. Only the "
        f"{c.discordant} discordant cases ({c.b_only} only {c.config_b} gets right, {c.a_only} only {c.config_a}) "
        "carry information."
    )


def _direction(values: Sequence[float]) -> str | None:
    """'rising' (non-decreasing), 'falling' (non-increasing) or None (neither) for values in the listed order."""
    pairs = list(itertools.pairwise(values))
    if all(b >= a for a, b in pairs):
        return "rising"
    if all(b <= a for a, b in pairs):
        return "falling"
    return None


def ordering_sentence(ordered: OrderedComparison) -> str:
    """The 1/k! note for ordered configs in plain words (the chapter's "one time in six"); '' when the accuracies
    are not monotone in the listed order (then there is no trend to warn about).

    The note is about the configs the data cannot tell apart (``tied_run``) when there are some, else all of them;
    it is given only when their accuracies (correct counts, in the listed order) all rise or all fall.

    >>> from nkcore.paired import compare_ordered, paired_table_from_counts
    >>> t = paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37)
    >>> ordering_sentence(compare_ordered(t))[:54]
    'n=3 and n=5 cannot be told apart (every adjacent compa'
    >>> ordering_sentence(compare_ordered(paired_table_from_counts("a", "b", 151, 7, 5, 37)))[-87:]
    'order by luck 1 time in 2, so a falling sequence among them is not evidence of a trend.'
    """
    o = ordered
    k = len(o.configs)
    correct = {a.config: float(a.correct) for a in o.accuracies}
    if o.tied_run:
        run = o.tied_run
        way = _direction([correct[c] for c in run])
        if way is None:
            return ""
        names = ", ".join(run[:-1]) + f" and {run[-1]}"
        r = len(run)
        order = "non-decreasing" if way == "rising" else "non-increasing"
        text = (
            f"{names} cannot be told apart (every adjacent comparison has p >= {o.significance:g}). {r} measurements "
            f"with no real difference come out in {order} order by luck 1 time in {math.factorial(r):,}, so "
            f"a {way} sequence among them is not evidence of a trend."
        )
        if r < k and _direction([correct[c] for c in o.configs]) is not None:
            text += f" For all {k} configs the chance is 1 in {math.factorial(k):,}."
        return text
    way = _direction([correct[c] for c in o.configs])
    if way is None:
        return ""
    order = "non-decreasing" if way == "rising" else "non-increasing"
    return (
        f"Every adjacent comparison reaches p < {o.significance:g}. For reference, {k} measurements with no real difference "
        f"come out in {order} order by luck 1 time in {math.factorial(k):,}."
    )


def headline_sentence(
    comparisons: Sequence[PairedComparison], p_holm: Sequence[float | None], significance: float, n_cases: int
) -> str:
    """The Compare page's verdict in one sentence: which configs beat which (firmly, or only tentatively when
    Holm's adjusted p is not below alpha) and which pairs these cases cannot tell apart.

    A win is McNemar's exact p < alpha, as in :func:`verdict_sentence` (one pair: that sentence itself). Holm's
    step-down adjustment (Holm 1979) is over the ``len(comparisons)`` adjacent pairs.

    >>> from nkcore.paired import compare_pair, paired_table_from_counts
    >>> c = compare_pair(paired_table_from_counts("n=1", "n=3", 130, 12, 26, 32), "n=1", "n=3")
    >>> d = compare_pair(paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37), "n=3", "n=5")
    >>> from nkcore.paired import holm
    >>> print(headline_sentence([c, d], holm([c.p_exact, d.p_exact]), 0.05, 200))
    On these 200 paired cases, n=3 beats n=1 by +7.0 points, but only tentatively (with Holm's adjustment for 2 pairs p = 0.067); they cannot tell n=5 from n=3.
    """
    check_significance(significance)
    if len(comparisons) == 1:
        return verdict_sentence(comparisons[0], significance)
    wins, ties = [], []
    for c, p_adj in zip(comparisons, p_holm, strict=True):
        if c.discordant and c.p_exact < significance:
            winner, loser, d = (c.config_b, c.config_a, c.diff) if c.diff >= 0 else (c.config_a, c.config_b, -c.diff)
            text = f"{winner} beats {loser} by {points(d)} points"
            if p_adj is not None and p_adj >= significance:
                text += (
                    f", but only tentatively (with Holm's adjustment for {len(comparisons)} pairs {format_p(p_adj)})"
                )
            else:
                text += f" ({format_p(c.p_exact)})"
            wins.append(text)
        else:
            ties.append(f"{c.config_b} from {c.config_a}")
    cases = plural(n_cases, "paired case")
    if ties:
        listed = ties[0] if len(ties) == 1 else ", ".join(ties[:-1]) + f" or {ties[-1]}"
        if not wins:
            return f"These {cases} cannot tell {listed}."
        wins.append(f"they cannot tell {listed}")
    return f"On these {cases}, " + "; ".join(wins) + "."


def verdict_note(significance: float, several: bool) -> str:
    """How the verdict is reached (McNemar's exact p against alpha; Holm's adjustment when ``several`` pairs)."""
    text = (
        f"**The verdict** rests on McNemar's exact test: a difference counts when its p is below alpha = {significance:g}. "
        "Only the discordant cases, where one config is right and the other wrong, carry evidence about which config "
        "is better; cases both get right (or both wrong) cancel out."
    )
    if several:
        text += (
            " With several adjacent pairs, Holm's adjustment keeps the chance of any false 'beats' among them below "
            "alpha; a win that does not survive it is called tentative."
        )
    return text


def chart_note(confidence: float) -> str:
    """How to read the paired-differences chart at interval level ``confidence`` (blue paired, grey marginal)."""
    return (
        f"**The chart.** Blue: the {round(100 * confidence):g}% interval of the difference in accuracy, in "
        "percentage points, from resampling cases, the same resampled cases for both configs, computed exactly from "
        "the distribution of the resampled discordant counts (no Monte Carlo noise). Grey: what the two marginal "
        "intervals imply if the configs had been measured on different cases; it is wider because it is charged for "
        "cases that are easy or hard for every config. An interval that crosses the dashed zero line cannot tell the "
        "configs apart. Each pair is drawn as the verdict reads it, winner minus loser (the config with the higher "
        "accuracy minus the other; its label reads loser → winner), so a win is always to the right of zero; the "
        "tests table below keeps B − A."
    )


def tests_method_note(confidence: float, holm: bool) -> str:
    """The method behind the tests table: exact p, mid-p, chi-square p (Edwards), Holm p when ``holm``."""
    text = (
        "McNemar's test asks: if the two configs were equally good, each discordant case would be a fair coin flip "
        "between them. **exact p** is the two-sided binomial probability of a split at least this uneven (it decides "
        "the verdict); **mid-p** is the less conservative exact variant; **chi-square p** is the large-sample version "
        "with Edwards' continuity correction, applied only when the two discordant counts differ (as R's "
        "mcnemar.test; a balanced table gives p = 1)."
    )
    if holm:
        text += (
            " **Holm p** adjusts the exact p for testing several adjacent pairs at once, so that the chance of any "
            "false 'beats' among them stays below alpha."
        )
    return text + (
        f" The interval (from, to) is the {round(100 * confidence):g}% paired bootstrap interval of B minus A, in "
        "percentage points. Hover a column's header for its formula."
    )


def cases_note(n_cases: int, dropped: int) -> str:
    """Which cases the numbers use: those every compared config was run on, and how many were left out.

    >>> cases_note(200, 0), cases_note(1000, 1)
    ('Every number uses the 200 cases that all compared configs were run on.', 'Every number uses the 1,000 cases that all compared configs were run on; 1 case lacked a result for some config and was left out.')
    """
    text = f"Every number uses the {plural(n_cases, 'case')} that all compared configs were run on"
    if not dropped:
        return text + "."
    verb = "was" if dropped == 1 else "were"
    return text + f"; {plural(dropped, 'case')} lacked a result for some config and {verb} left out."


def disagreement_sentence(config_a: str, config_b: str, a_only: int, b_only: int, n_cases: int) -> str:
    """The cases two configs disagree on, in words: how many, on which side, and that they are McNemar's b and c.

    >>> print(disagreement_sentence("n=1", "n=3", 12, 26, 200))
    n=1 and n=3 disagree on 38 of the 200 paired cases: only n=1 is right on 12, only n=3 on 26. These discordant cases are all the evidence McNemar's test weighs (its b = 12 and c = 26); the other 162 cases, right for both or wrong for both, cancel out.
    """
    m = a_only + b_only
    if m == 0:
        return f"{config_a} and {config_b} agree on all {plural(n_cases, 'paired case')}: no case to show."
    return (
        f"{config_a} and {config_b} disagree on {m:,} of the {plural(n_cases, 'paired case')}: only {config_a} is "
        f"right on {a_only:,}, only {config_b} on {b_only:,}. These discordant cases are all the evidence McNemar's "
        f"test weighs (its b = {a_only:,} and c = {b_only:,}); the other {plural(n_cases - m, 'case')}, right for "
        "both or wrong for both, cancel out."
    )
