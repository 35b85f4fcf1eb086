"""Plain-language sentences beside the vote analysis' numbers: what the Sampling page and the CLI print.

Every sentence uses the glossary words: samples per request (n), case, rho, effective samples (N_eff). Numbers are
formatted by :mod:`nkcore.common.formatting` (points without a sign on zero, percent with one decimal).
The sentences on rho and N_eff (and the models' predictions) are in :mod:`nkcore.voting.rho_sentences`; their names
are importable from here too.
"""

from __future__ import annotations

import math

from nkcore.common.formatting import percent, plural, points, points_between
from nkcore.voting.adaptive import AdaptiveResult
from nkcore.voting.curve import CurvePoint, VoteCurve
from nkcore.voting.frames import VoteAnalysis
from nkcore.voting.rho_sentences import (
    model_gap_sentence,
    n_eff_sentence,
    next_step_sentence,
    rho_sentence,
    what_if_sentence,
)
from nkcore.voting.unfixable import UnfixableErrors

__all__ = [
    "ADAPTIVE_NOTE",
    "BINARY_NOTE",
    "CURVE_CAPTION",
    "CURVE_NOTES",
    "N_EFF_HELP",
    "RHO_HELP",
    "TIE_HELP",
    "TRIGGER_HELP",
    "VOTE_CURVE_EXPLAINS",
    "adaptive_sentence",
    "cases_per_n_note",
    "curve_sentence",
    "method_notes",
    "model_gap_sentence",
    "n_eff_sentence",
    "next_step_sentence",
    "order_sentence",
    "rho_sentence",
    "step_caution",
    "summary_rows",
    "unfixable_sentence",
    "verdict_sentence",
    "what_if_sentence",
]

#: The tie rules in words (the Sampling page's radio captions).
TIE_HELP = {
    "first": "the tied answer seen first wins (what Counter.most_common does)",
    "split": "a tie shares the credit (1/2 for a two-way tie)",
    "wrong": "a tie counts as wrong",
}
#: The adaptive rule's triggers in words (``nkcore.voting.adaptive``: when the first n0 samples get m more).
TRIGGER_HELP = {
    "no_plurality": "two or more answers tie for the most votes",
    "no_majority": "the top answer has at most half of the votes",
    "not_unanimous": "the samples are not all the same answer",
}
ADAPTIVE_NOTE = (
    "The adaptive rule spends extra samples only where the first draw is unsure. Which trigger you use matters: two "
    "extra samples cannot overturn three that agree, but they can overturn a 2-1 split."
)
RHO_HELP = (
    "How alike the samples of one case are, right or wrong: 0 = independent draws, 1 = every sample a copy of the "
    "first. Estimated as the intra-class correlation ICC(1) of the 0/1 correctness of each case's samples."
)
N_EFF_HELP = (
    "Effective samples: N_eff = n / (1 + (n - 1) rho). Correlated samples of one case are worth fewer independent "
    "votes; the correlated prediction is the independent-samples curve read at N_eff instead of n."
)
CURVE_NOTES = (
    "Solid line and band: the measured accuracy averaged over every subset of n samples of each case, with a 95% "
    "interval from resampling cases (the same resampled cases at every n). Diamonds: the vote over each case's first "
    "n samples, what a flat deployment sees. Dashed lines: predictions from the single-call accuracy p. At even n two "
    "answers can tie, so even n adds little over the odd n below it. The solid line is the same under the 'first' "
    "and 'split' tie rules: over every subset, which tied answer comes first is a fair coin, which is split credit; "
    "the rules differ only for the diamonds."
)
BINARY_NOTE = "This data has a correct column and no answers: votes are read as correct against one wrong answer."
CURVE_CAPTION = (
    "Solid line and band: measured accuracy with its 95% interval. Dashed lines: what models predict from the "
    "single-call accuracy. Diamonds: the vote over each case's first n samples."
)
#: The marks of the vote curve, one line (under the title of its PNG and SVG).
VOTE_CURVE_EXPLAINS = (
    "Solid line and band: measured accuracy, 95% interval; dashed lines: model predictions; diamonds: vote over "
    "each case's first n samples."
)


def method_notes() -> str:
    """The Sampling page's method notes (a Markdown list): the exact curve, rho, N_eff and the models."""
    return (
        "- **The curve** is exact: at each n, the vote over every subset of n of a case's samples, averaged (no "
        "sampling noise from choosing subsets). Its 95% band is an exact (Clopper-Pearson-type) interval over cases, "
        "which stays honest near 0% and 100%. The interval of each two-sample step resamples cases, the same "
        "resampled cases at both n, so the steps are paired; near 0% or 100% with few cases it is too narrow.\n"
        f"- **The correlation between samples (rho)**: {RHO_HELP}\n"
        f"- **{N_EFF_HELP}**\n"
        "- **The models** (independent, correlated, beta-binomial difficulty) count a vote as right or wrong against "
        "one wrong answer; a plurality vote over answers whose wrong values scatter can beat them."
    )


def verdict_sentence(a: VoteAnalysis) -> str:
    """The Sampling page's answer in one sentence: what voting over all the samples buys, whether the last
    two-sample step still helps (its 95% paired interval against zero), and how many errors no number of samples
    fixes.

    Steps are the odd-n ladder 1 -> 3 -> 5 ...; the first step whose paired interval reaches zero is where more
    samples stop adding anything these cases can tell from zero. Differences are taken between the shown
    (rounded) percentages (:func:`nkcore.common.formatting.points_between`).
    """
    curve = a.curve
    first, last = curve.point(1), curve.points[-1]
    steps = [p for p in curve.points if p.diff_from_n > 0 and p.n % 2 == 1]
    flat = next((p for p in steps if p.diff_ci_low <= 0), None)
    if last.n == 1:
        parts = [f"With one sample per case the vote scores {percent(first.accuracy)}: there is no larger n to compare"]
    elif round(last.accuracy, 3) <= round(first.accuracy, 3):
        parts = [
            f"Voting over {last.n} samples per request does not help here: {percent(first.accuracy)} with one call, "
            f"{percent(last.accuracy)} with {last.n}"
        ]
    else:
        one_call = "one call"
        if abs(first.first_n_accuracy - first.accuracy) >= 0.02:  # the draw order matters: name both readings
            one_call = f"one call, over all samples; the first sample alone: {percent(first.first_n_accuracy)}"
        parts = [
            f"Voting over {last.n} samples per request lifts accuracy from {percent(first.accuracy)} ({one_call}) to "
            f"{percent(last.accuracy)} ({points_between(first.accuracy, last.accuracy)} points)"
        ]
        if flat is not None:
            parts.append(
                f"from n = {flat.diff_from_n} on, more samples add nothing these cases can tell from zero "
                f"(n = {flat.diff_from_n} to {flat.n}: {points(flat.diff)} points, 95% interval "
                f"{points(flat.diff_ci_low)} to {points(flat.diff_ci_high)}{step_caution(flat)})"
            )
        elif steps:
            s = steps[-1]
            parts.append(
                f"the last step still helps (n = {s.diff_from_n} to {s.n}: {points(s.diff)} points{step_caution(s)})"
            )
    u = a.unfixable
    if u.wrong_at_from_n and u.largest_n > u.from_n:
        parts.append(
            f"{u.still_wrong} of the {u.wrong_at_from_n} cases wrong at n = {u.from_n} stay wrong with every sample "
            "they have"
        )
    return "; ".join(parts) + "."


def summary_rows(a: VoteAnalysis, rho_what_if: float) -> list[tuple[str, str, str]]:
    """The one-page summary's rows (label, value, sentence): the verdict, the cases, the curve's ends, the estimated
    rho, the what-if rho, the errors more samples cannot fix and the next-step check."""
    curve = a.curve
    p, top = curve.point(1).accuracy, curve.points[-1].accuracy
    rho_known = math.isfinite(a.rho.rho)
    u = a.unfixable
    rows = [
        ("verdict", percent(top), verdict_sentence(a)),
        ("cases", f"{a.n_cases:,}", f"each with up to {a.max_n} samples per request (n)"),
        ("single-call accuracy", percent(p), "exact accuracy at samples per request n = 1"),
        (f"accuracy at n = {a.max_n}", percent(top), curve_sentence(curve)),
        (
            "correlation between samples (rho)",
            f"{a.rho.rho:.2f} ({a.rho.ci_low:.2f} to {a.rho.ci_high:.2f})" if rho_known else "n/a",
            rho_sentence(a.rho, a.max_n, measured=top),
        ),
        ("what-if rho", f"{rho_what_if:.2f}", what_if_sentence(p, rho_what_if, a.max_n, top)),
        (
            f"errors more samples cannot fix (from n = {u.from_n})",
            f"{u.still_wrong} of {u.wrong_at_from_n}, {u.unanimous_wrong} unanimous",
            unfixable_sentence(u),
        ),
    ]
    if a.next_step is not None:
        rows.append(
            (
                "next-step check",
                f"{a.next_step.measured:.1%} vs {a.next_step.predicted:.1%}",
                next_step_sentence(a.next_step, a.rho.rho if rho_known else None),
            )
        )
    return rows


def step_caution(p: CurvePoint) -> str:
    """``"; ..."`` after a step whose paired interval covers less often than it says (fewer than 25 cases move in
    that step: :attr:`nkcore.voting.curve.CurvePoint.step_reliable`, docs/coverage.md), else ``""``."""
    if p.step_reliable:
        return ""
    moved = "no case" if p.diff_cases_changed == 0 else f"only {p.diff_cases_changed} of {p.n_cases} cases"
    return f"; less reliable: {moved} change between n = {p.diff_from_n} and {p.n}"


def curve_sentence(curve: VoteCurve) -> str:
    """Plain-language reading of the measured curve: each two-sample step with its paired interval, and the
    largest n whose step the data can still tell from zero."""
    steps = [p for p in curve.points if p.diff_from_n > 0 and p.n % 2 == 1]
    if not steps:
        p = curve.points[-1]
        return f"At samples per request n = {p.n} the exact vote accuracy is {percent(p.accuracy)}."
    parts = [
        f"n = {p.diff_from_n} to {p.n}: {points(p.diff)} points (95% paired interval {points(p.diff_ci_low)} to "
        f"{points(p.diff_ci_high)}{step_caution(p)})"
        for p in steps
    ]
    resolved = [p for p in steps if p.diff_ci_low > 0]
    flat = [p for p in steps if p.diff_ci_low <= 0 <= p.diff_ci_high]
    text = "Exact vote accuracy, step by step on the same cases: " + "; ".join(parts) + "."
    if flat:
        f = flat[0]
        text += (
            f" From n = {f.diff_from_n} to {f.n} the interval includes zero: these cases cannot tell the two apart, "
            "so a rising-looking point there is not evidence of a trend."
        )
    elif resolved:
        text += " Every step is distinguishable from zero on these cases."
    text += (
        " These intervals average over every subset of each case's samples: they say what more samples buy on "
        "average for cases like these; whether one deployed setting beats another on a single draw of samples is "
        "a paired test of the first-n results (the Compare page)."
    )
    return text


def order_sentence(curve: VoteCurve) -> str:
    """Says whether each case's first sample is right more (or less) often than its samples on average; empty
    when the two agree within two points (then the draw order does not matter)."""
    pt = curve.point(1)
    if abs(pt.first_n_accuracy - pt.accuracy) < 0.02:
        return ""
    return (
        f"The first sample of each case is right {percent(pt.first_n_accuracy)} of the time, all samples on average "
        f"{percent(pt.accuracy)}: in this data the order of the samples matters, so the first-n reading (diamonds) and the "
        "exact curve (line) differ; the exact curve is the one that does not depend on the order."
    )


def unfixable_sentence(u: UnfixableErrors) -> str:
    """Plain-language reading of :class:`UnfixableErrors`.

    >>> u = UnfixableErrors(3, 7, 200, 44, 38, 30, 42, ())
    >>> unfixable_sentence(u)[:110]
    'Of the 44 cases the vote gets wrong at samples per request n = 3, 38 are still wrong with all their samples (u'
    >>> unfixable_sentence(UnfixableErrors(3, 5, 3, 1, 1, 0, 1, ()))[:36]
    'Of the 1 case the vote gets wrong at'
    """
    if u.wrong_at_from_n == 0:
        return f"No case is wrong at samples per request n = {u.from_n}: there is nothing for more samples to fix."
    return (
        f"Of the {plural(u.wrong_at_from_n, 'case')} the vote gets wrong at samples per request n = {u.from_n}, "
        f"{u.still_wrong} {'is' if u.still_wrong == 1 else 'are'} still wrong with all their samples "
        f"(up to n = {u.largest_n}), and in "
        f"{u.unanimous_wrong} of those every sample gave the same wrong answer. Unanimous errors have a shared "
        "cause: more samples estimate the wrong mode more precisely, so no budget of samples reaches them."
    )


def adaptive_sentence(r: AdaptiveResult) -> str:
    """Plain-language reading of :class:`AdaptiveResult`."""
    rule = {
        "no_plurality": "have no strict plurality",
        "no_majority": "have no majority",
        "not_unanimous": "do not all agree",
    }[r.trigger]
    text = (
        f"Drawing {r.n0} samples and {r.m} more when the first {r.n0} {rule} tops up {percent(r.share_topped_up, 0)} of "
        f"requests and averages {r.expected_calls:.2f} calls; it scores {r.correct:,g} of {r.n_cases:,} cases "
        f"(flat n = {r.n0}: {r.flat_n0_correct:g}; flat n = {r.n0 + r.m}: {r.flat_full_correct:g})."
    )
    if r.changed_without_topup:
        text += (
            f" In {plural(r.changed_without_topup, 'case')} the extra samples would have changed the answer although the "
            f"rule did not top up: {r.m} extra samples can overturn a start that is not unanimous."
        )
    return text


def cases_per_n_note(curve: VoteCurve) -> str:
    """How many cases each n uses when cases differ in how many samples they have ('' when every n uses all).

    Each point of the curve averages over the cases with at least n samples (``VotePoint.n_cases``).
    """
    counts = [pt.n_cases for pt in curve.points]
    if len(set(counts)) <= 1:
        return ""
    return (
        "Cases differ in how many samples they have; each n uses the cases with at least n samples: "
        + ", ".join(f"n = {pt.n}: {plural(pt.n_cases, 'case')}" for pt in curve.points)
        + "."
    )
