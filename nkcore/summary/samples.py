"""Summary of raw samples: cases, samples per request (n) per case, correct samples, distinct answers, latency.

The table is parsed by the one samples parser, :func:`nkcore.voting.parse_samples`; the summary reads the
resulting :class:`nkcore.voting.SampleSet`, so a sample is correct exactly when the vote analysis counts it so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nkcore.summary.results import SummaryNumber, number_text, share_text, whole
from nkcore.voting import SampleSet

__all__ = ["SamplesSummary", "summarize_samples"]


@dataclass(frozen=True, slots=True)
class SamplesSummary:
    """Summary of raw samples (one row per model sample of a case); latencies are NaN without a latency_s column."""

    kind: str
    n_cases: int
    n_samples: int
    n_min: int
    n_median: float
    n_max: int
    correct_share: float
    answers_median: float
    latency_p50: float
    latency_p95: float
    numbers: tuple[SummaryNumber, ...]


def summarize_samples(samples: SampleSet) -> SamplesSummary:
    """Cases, samples per request (n) per case, share of correct samples, distinct answers per case, latency.

    correct share = samples whose answer is the case's gold answer / all samples (the accuracy of one call);
    distinct answers per case as the parser codes them (answers compare as stripped text; with a 0/1 correct
    column and no gold, the answers marked correct count as one answer); latency p50 / p95 are the
    ``numpy.quantile`` (linear) of all single-call latencies.

    >>> import pandas as pd
    >>> from nkcore.voting import parse_samples
    >>> df = pd.DataFrame({"case": [1, 1, 1, 2, 2], "sample": [0, 1, 2, 0, 1], "answer": ["4", "4", "5", "x", "y"],
    ...                    "gold": ["4", "4", "4", "x", "x"]})
    >>> s = summarize_samples(parse_samples(df))
    >>> s.n_cases, s.n_max, s.correct_share
    (2, 3, 0.6)
    """
    per_case = np.asarray(samples.n_samples)
    n_cases, n_samples = samples.n_cases, int(per_case.sum())
    share = float(np.nanmean(samples.correct_matrix()))
    answers = np.array([len(labels) for labels in samples.labels], dtype=np.float64)
    p50 = p95 = float("nan")
    if samples.latency_s is not None:
        lat = samples.latencies()
        if len(lat):
            p50, p95 = (float(v) for v in np.quantile(lat, [0.5, 0.95]))
    n_min, n_med, n_max = int(per_case.min()), float(np.median(per_case)), int(per_case.max())
    n_sentence = (
        f"Every case has {n_min:,} samples: samples per request (n) = {n_min:,}."
        if n_min == n_max
        else f"Cases have between {n_min:,} and {n_max:,} samples each (samples per request, n); the median case has "
        f"{number_text(n_med)}."
    )
    answers_median = float(np.median(answers))
    numbers = [
        SummaryNumber("cases", n_cases, whole(n_cases), f"{n_cases:,} evaluation cases."),
        SummaryNumber("samples", n_samples, whole(n_samples), f"{n_samples:,} model samples in total."),
        SummaryNumber(
            "samples per request (n), min / median / max",
            n_med,
            f"{n_min:,} / {number_text(n_med)} / {n_max:,}",
            n_sentence,
        ),
        SummaryNumber(
            "correct samples",
            share,
            share_text(share),
            f"{share_text(share)} of single samples are correct: the accuracy of one call, before any majority vote.",
        ),
        SummaryNumber(
            "distinct answers per case (median)",
            answers_median,
            number_text(answers_median),
            "How many different answers the samples of a typical case give; 1 means the model always agrees with itself.",
        ),
    ]
    if math.isfinite(p50):
        numbers.append(
            SummaryNumber(
                "latency p50 / p95",
                p50,
                f"{p50:.2f} s / {p95:.2f} s",
                f"Half of the single calls took at most {p50:.2f} s; 95% took at most {p95:.2f} s.",
            )
        )
    return SamplesSummary(
        "samples", n_cases, n_samples, n_min, n_med, n_max, share, answers_median, p50, p95, tuple(numbers)
    )
