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

from nkcore.common.checks import check_alpha
from nkcore.common.formatting import format_p, plural, points
from nkcore.paired.accuracy import ConfigAccuracy
from nkcore.paired.compare import OrderedComparison, PairedComparison
from nkcore.resolution import critical_count

__all__ = ["accuracy_sentence", "marginal_sentence", "ordering_sentence", "verdict_sentence"]


def accuracy_sentence(acc: ConfigAccuracy, level: float = 0.95) -> str:
    """One config's accuracy in words: "n=5: 158 of 200 correct = 79.0% (95% Wilson interval 72.8% to 84.1%)".

    >>> from nkcore.paired import config_accuracy, paired_table_from_counts
    >>> accuracy_sentence(config_accuracy(paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37))[1])
    'n=5: 158 of 200 correct = 79.0% (95% Wilson interval 72.8% to 84.1%)'
    """
    method = "Wilson" if acc.method == "wilson" else "Clopper-Pearson"
    return (
        f"{acc.config}: {acc.correct:,} of {acc.n:,} correct = {100 * acc.accuracy:.1f}% "
        f"({round(100 * level):g}% {method} interval {100 * acc.ci_low:.1f}% to {100 * acc.ci_high:.1f}%)"
    )


def verdict_sentence(
    comparison: PairedComparison,
    alpha: float = 0.05,
    p_adjusted: float | None = None,
    comparisons: int | None = None,
) -> str:
    """One plain sentence on a paired comparison A -> B; the exact McNemar p decides, the interval qualifies.

    - p_exact < alpha: "<winner> beats <loser>: +x points (95% interval lo to hi), p = ...". When ``p_adjusted``
      (Holm's, over ``comparisons`` adjacent pairs) is not below alpha, it goes on: "; but that p is for this pair
      on its own: with Holm's adjustment for the 3 adjacent comparisons p = 0.10, not below alpha = 0.05, so treat
      the win as tentative".
    - otherwise: "cannot tell <B> from <A>: +x points (95% interval lo to hi, p = ...) is inside what <n> cases can
      resolve (with m discordant cases a difference needs k of them one way, a net of ... points)", k from
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
    check_alpha(alpha)
    c = comparison
    pct = f"{round(100 * c.level):g}%"
    m = c.discordant
    if m == 0:
        return (
            f"cannot tell {c.config_b} from {c.config_a}: they agree on all {plural(c.n_cases, 'case')} (no discordant "
            "case), so these data say nothing about which is better"
        )
    if c.p_exact < alpha:
        if c.diff >= 0:
            winner, loser, d, lo, hi = c.config_b, c.config_a, c.diff, c.diff_ci_low, c.diff_ci_high
        else:
            winner, loser, d, lo, hi = c.config_a, c.config_b, -c.diff, -c.diff_ci_high, -c.diff_ci_low
        text = (
            f"{winner} beats {loser}: {points(d)} points ({pct} interval {points(lo)} to {points(hi)}), "
            f"{format_p(c.p_exact)}"
        )
        if p_adjusted is not None and p_adjusted >= alpha:
            family = f"the {comparisons} adjacent comparisons" if comparisons else "the other comparisons"
            text += (
                f"; but that p is for this pair on its own: with Holm's adjustment for {family} "
                f"{format_p(p_adjusted)}, not below alpha = {alpha:g}, so treat the win as tentative"
            )
        if lo <= 0:
            text += "; the bootstrap interval reaches zero, so the evidence is borderline"
        return text
    k = critical_count(m, alpha)
    head = (
        f"cannot tell {c.config_b} from {c.config_a}: {points(c.diff)} points "
        f"({pct} interval {points(c.diff_ci_low)} to {points(c.diff_ci_high)}, {format_p(c.p_exact)})"
    )
    if k is None:
        text = (
            f"{head}; with only {plural(m, 'discordant case')} among {plural(c.n_cases, 'case')} no split of them "
            f"can reach p < {alpha:g}"
        )
    else:
        net = 2 * k - m
        text = (
            f"{head} is inside what {plural(c.n_cases, 'case')} can resolve (with {m:,} discordant cases a difference "
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
        f"{points(c.diff_ci_low)} to {points(c.diff_ci_high)}, because {same} of the {c.n_cases} cases came out the "
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
            f"{names} cannot be told apart (every adjacent comparison has p >= {o.alpha:g}). {r} measurements "
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
        f"Every adjacent comparison reaches p < {o.alpha:g}. For reference, {k} measurements with no real difference "
        f"come out in {order} order by luck 1 time in {math.factorial(k):,}."
    )
