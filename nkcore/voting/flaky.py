"""Flaky cases: cases whose samples disagree (some right, some wrong), and what they do to a single-sample score.

A case with n samples, c of them right, is flaky when 0 < c < n. Flaky cases are listed most evenly split first
(|c/n - 1/2| ascending), with their answers. Their within-case noise is the part of a single-sample accuracy's
variance that running the model again on the same cases would show: with case i's true chance p_i of a right
sample,

    Var(single-sample accuracy | the cases) = sum_i p_i (1 - p_i) / N^2,

estimated without bias from the case's own samples by s_i^2 = c_i (n_i - c_i) / (n_i (n_i - 1)) (the sample variance
with n - 1 in the denominator of its n_i right/wrong samples; the plug-in c/n (1 - c/n) understates it by the factor
(n_i - 1) / n_i), against the total variance of a single-sample accuracy over N cases drawn from the same
population, p (1 - p) / N with p = mean c_i / n_i (law of total variance: p (1 - p) = mean p_i (1 - p_i) + var p_i).
The share is capped at 1 (on few samples the unbiased estimate can pass the plug-in total). Only flaky cases add
to it. Reference: the chapter "The accuracy curve flattens
sooner than the sample count suggests" (within- and between-case variation); Miller 2024, "Adding Error Bars to
Evals" (arXiv 2411.00640), section 2.2 (the within-question variance of resampled answers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.formatting import percent, plural, points
from nkcore.voting.samples import SampleSet, parse_samples

__all__ = ["AnswerCount", "FlakyCase", "FlakyCases", "flaky_cases", "flaky_from_frame", "flaky_sentence"]


@dataclass(frozen=True, slots=True)
class AnswerCount:
    """One distinct answer of a case: how many of its samples gave it and whether it is the gold answer."""

    answer: str
    count: int
    right: bool


@dataclass(frozen=True, slots=True)
class FlakyCase:
    """A case whose samples disagree: ``n_right`` of ``n_samples`` right; ``answers`` most frequent first
    (empty when the samples file has no answers, only a correct column)."""

    case: str
    gold: str
    n_samples: int
    n_right: int
    share_right: float
    answers: tuple[AnswerCount, ...]


@dataclass(frozen=True, slots=True)
class FlakyCases:
    """The flaky cases, most evenly split first, and what they mean for a single-sample evaluation.

    ``flaky`` of ``n_cases`` cases (``flaky_share``); ``all_right`` / ``all_wrong`` the cases whose samples agree;
    ``within_var`` = sum s_i^2 / N^2 with the unbiased s_i^2 = c (n - c) / (n (n - 1)) (the flaky cases' noise in
    a single-sample accuracy); ``total_var`` = p (1 - p) / N; ``noise_share`` = min(1, within_var / total_var)
    (NaN when total_var is 0);
    ``has_answers``: the samples file has answers (not only right / wrong); ``max_n`` the most samples per case.
    """

    cases: tuple[FlakyCase, ...]
    n_cases: int
    flaky: int
    flaky_share: float
    all_right: int
    all_wrong: int
    within_var: float
    total_var: float
    noise_share: float
    has_answers: bool
    max_n: int


def flaky_cases(samples: SampleSet) -> FlakyCases:
    """The flaky cases of ``samples`` (0 < right < samples), sorted by |c/n - 1/2| ascending, then by more samples
    first, then in case order; with the single-sample noise they cause (formulas in the module docstring).

    >>> f = pd.DataFrame({"case": [1] * 4 + [2] * 4 + [3] * 4, "sample": [1, 2, 3, 4] * 3,
    ...                   "answer": list("aaab") + list("abac") + list("aaaa"), "gold": "a"})
    >>> r = flaky_cases(parse_samples(f))
    >>> [c.case for c in r.cases], r.flaky, round(r.flaky_share, 4), r.all_right
    (['2', '1'], 2, 0.6667, 1)
    >>> [(a.answer, a.count, a.right) for a in r.cases[0].answers]
    [('a', 2, True), ('b', 1, False), ('c', 1, False)]
    >>> round(r.within_var, 6), round(r.total_var, 6)   # (3/12 + 4/12) / 9 and (3/4)(1/4) / 3
    (0.064815, 0.0625)
    """
    n_cases, m = samples.codes.shape
    n_codes = int(samples.codes.max()) + 1
    limits.check_memory(8 * n_cases * (m + n_codes), "the flaky-case counts")
    rows = np.repeat(np.arange(n_cases), m)
    flat = samples.codes.ravel()
    keep = flat >= 0
    counts = np.bincount(rows[keep] * n_codes + flat[keep], minlength=n_cases * n_codes).reshape(n_cases, n_codes)
    n = samples.n_samples.astype(np.int64)
    gold = samples.gold_code
    c = np.where(gold >= 0, counts[np.arange(n_cases), np.clip(gold, 0, None)], 0).astype(np.int64)
    p = c / n
    is_flaky = (c > 0) & (c < n)
    dist = np.abs(2 * c - n) / n  # 2 |c/n - 1/2|: equal rationals give equal floats
    order = np.lexsort((np.arange(n_cases), -n, dist))
    picked = order[is_flaky[order]]
    has_answers = not samples.binary
    sub = counts[picked]
    by_count = np.argsort(-sub, axis=1, kind="stable")  # most frequent first, then first seen (lowest code)
    sorted_counts = np.take_along_axis(sub, by_count, axis=1)
    n_list, c_list, p_list = n.tolist(), c.tolist(), p.tolist()
    out = []
    for i, codes, cnts in zip(picked.tolist(), by_count.tolist(), sorted_counts.tolist(), strict=True):
        answers: tuple[AnswerCount, ...] = ()
        if has_answers:
            labels, g = samples.labels[i], int(gold[i])
            answers = tuple(AnswerCount(labels[k], x, k == g) for k, x in zip(codes, cnts, strict=True) if x > 0)
        out.append(
            FlakyCase(
                case=samples.cases[i],
                gold=samples.gold[i],
                n_samples=n_list[i],
                n_right=c_list[i],
                share_right=p_list[i],
                answers=answers,
            )
        )
    several = n > 1
    s2 = np.where(several, c * (n - c) / np.where(several, n * (n - 1), 1), 0.0)  # unbiased within-case variance
    within = float(np.sum(s2)) / n_cases**2
    pbar = float(p.mean())
    total = pbar * (1.0 - pbar) / n_cases
    return FlakyCases(
        cases=tuple(out),
        n_cases=n_cases,
        flaky=int(is_flaky.sum()),
        flaky_share=float(is_flaky.mean()),
        all_right=int((c == n).sum()),
        all_wrong=int((c == 0).sum()),
        within_var=within,
        total_var=total,
        noise_share=min(1.0, within / total) if total > 0 else math.nan,
        has_answers=has_answers,
        max_n=int(n.max()),
    )


def flaky_from_frame(frame: pd.DataFrame) -> FlakyCases:
    """:func:`flaky_cases` on a samples table (a module-level entry point for ``ui.common.cache``)."""
    return flaky_cases(parse_samples(frame))


def flaky_sentence(r: FlakyCases) -> str:
    """One plain sentence: how many cases are flaky and what that does to a single-sample evaluation.

    The spread is sqrt(within_var) (one standard deviation of the single-sample accuracy when the same cases
    are run again), and its share of the total variance p (1 - p) / N.

    >>> f = pd.DataFrame({"case": [1] * 4 + [2] * 4 + [3] * 4, "sample": [1, 2, 3, 4] * 3,
    ...                   "answer": list("aaab") + list("abac") + list("aaaa"), "gold": "a"})
    >>> flaky_sentence(flaky_cases(parse_samples(f)))  # doctest: +NORMALIZE_WHITESPACE
    '2 of 3 cases (66.7%) are flaky (some samples right, some wrong): a single-sample evaluation of these cases
    would move by about ±25.5 points (one standard deviation) just from running it again, about all of its variance
    (on so few cases and samples the estimate reaches the total).'
    """
    if r.flaky == 0:
        return (
            f"No case is flaky: in each of the {plural(r.n_cases, 'case')} the samples are all right or all wrong, "
            "so running a single-sample evaluation again on the same cases gives the same score; its uncertainty is "
            "all in which cases were picked."
        )
    spread = points(math.sqrt(r.within_var), sign=False)
    head = (
        f"{r.flaky:,} of {plural(r.n_cases, 'case')} ({percent(r.flaky_share)}) are flaky (some samples right, some "
        f"wrong): a single-sample evaluation of these cases would move by about ±{spread} points (one standard "
        f"deviation) just from running it again"
    )
    if math.isnan(r.noise_share):
        return head + "."
    if r.noise_share >= 1.0:
        return head + ", about all of its variance (on so few cases and samples the estimate reaches the total)."
    return head + f", {percent(r.noise_share, 0)} of its variance; the rest comes from which cases were picked."
