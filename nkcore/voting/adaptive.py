"""The adaptive top-up rule "draw n0 samples, add m more when the first n0 trigger", measured on the data.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests": the 3+2 rule tops up
19% of requests for 3.38 calls per request and scores 158 of 200.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nkcore.errors import DataError
from nkcore.voting.exact import credit_from_stats, first_n_stats
from nkcore.voting.rules import TieRule, Trigger, check_tie, check_trigger, trigger_fires
from nkcore.voting.samples import SampleSet

__all__ = ["AdaptiveResult", "adaptive_topup"]


@dataclass(frozen=True, slots=True)
class AdaptiveResult:
    """The adaptive rule "draw n0, add m more when the first n0 trigger", measured on the first samples.

    ``correct`` counts credit over the ``n_cases`` cases with at least n0 + m samples; ``expected_calls`` =
    n0 + m * share_topped_up; ``flat_n0_correct`` / ``flat_full_correct`` are the flat n0 and n0 + m rows on the
    same cases; ``changed_without_topup`` counts cases the rule did not top up whose first n0 + m vote differs
    in correctness from the first n0 vote (where "two extra samples cannot overturn three" fails).
    """

    n0: int
    m: int
    trigger: str
    tie: str
    n_cases: int
    n_topped_up: int
    share_topped_up: float
    expected_calls: float
    correct: float
    accuracy: float
    flat_n0_correct: float
    flat_full_correct: float
    changed_without_topup: int


def adaptive_topup(
    samples: SampleSet, n0: int = 3, m: int = 2, trigger: Trigger = "no_plurality", tie: TieRule = "first"
) -> AdaptiveResult:
    """Accuracy and cost in calls of "draw n0, add m more when the first n0 have no majority".

    Triggers: ``no_plurality`` (no strict plurality among the first n0: the top count is shared),
    ``no_majority`` (the top answer has at most n0 / 2 samples), ``not_unanimous`` (the first n0 differ at all).
    Only for unanimous starts is it true that m < n0 extra samples cannot overturn the first n0 (a 2-1 start
    can become 2-3); ``changed_without_topup`` shows where this matters on the data.
    Reference: the chapter, 3+2 rule: 19% top up, 3.38 calls per request, 158 of 200 correct.

    Example: a 2-1 start has a plurality, so the rule stops at three; two more samples would have overturned it:
    >>> from nkcore.voting.samples import parse_samples
    >>> import pandas as pd
    >>> s = parse_samples(pd.DataFrame({"case": 1, "sample": [1, 2, 3, 4, 5], "answer": list("ggaaa"), "gold": "g"}))
    >>> r = adaptive_topup(s, 3, 2); (r.n_topped_up, r.correct, r.changed_without_topup)
    (0, 1.0, 1)
    """
    check_tie(tie)
    check_trigger(trigger)
    if n0 < 1 or m < 1:
        raise DataError(f"the adaptive rule needs n0 >= 1 and m >= 1, got {n0}+{m}")
    total = n0 + m
    if total > samples.max_n:
        raise DataError(f"the rule {n0}+{m} needs {total} samples per case; the data has at most {samples.max_n}")
    st = first_n_stats(samples)
    credit = credit_from_stats(samples, st, tie)
    top, n_top = st.top, st.n_top
    keep = samples.n_samples >= total
    top0, ntop0 = top[keep, n0 - 1], n_top[keep, n0 - 1]
    fire = trigger_fires(top0, ntop0, n0, trigger)
    c0, c1 = credit[keep, n0 - 1], credit[keep, total - 1]
    final = np.where(fire, c1, c0)
    n_cases = int(keep.sum())
    share = float(fire.mean()) if n_cases else math.nan
    correct = float(final.sum())
    return AdaptiveResult(
        n0=n0,
        m=m,
        trigger=trigger,
        tie=tie,
        n_cases=n_cases,
        n_topped_up=int(fire.sum()),
        share_topped_up=share,
        expected_calls=n0 + m * share,
        correct=correct,
        accuracy=correct / n_cases if n_cases else math.nan,
        flat_n0_correct=float(c0.sum()),
        flat_full_correct=float(c1.sum()),
        changed_without_topup=int(((c0 != c1) & ~fire).sum()),
    )
