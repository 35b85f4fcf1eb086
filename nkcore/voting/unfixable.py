"""Errors more samples cannot fix: cases still wrong with every sample, and those whose samples all agree.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests": 38 of the 44 cases
wrong at n = 3 are still wrong at n = 7, 31 of them unanimous (the worked example in ``sample_data/`` has 30).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from nkcore.errors import DataError
from nkcore.kinds import natural_order
from nkcore.voting.exact import case_credit_first_n
from nkcore.voting.rules import TieRule, check_tie
from nkcore.voting.samples import SampleSet

__all__ = ["UnfixableCase", "UnfixableErrors", "unfixable_errors"]


@dataclass(frozen=True, slots=True)
class UnfixableCase:
    """One case still wrong with all its samples: its answers' counts, most common first."""

    case: str
    gold: str
    n_samples: int
    top_answer: str
    top_count: int
    gold_count: int
    unanimous: bool
    answers: str


@dataclass(frozen=True, slots=True)
class UnfixableErrors:
    """Errors more samples cannot fix.

    Of the ``wrong_at_from_n`` cases the vote over the first ``from_n`` samples gets wrong, ``still_wrong`` are
    still wrong with all their samples (n up to ``largest_n``) and ``unanimous_wrong`` of those have every
    sample on the same wrong answer; ``wrong_at_largest`` counts every case wrong with all its samples.
    """

    from_n: int
    largest_n: int
    n_cases: int
    wrong_at_from_n: int
    still_wrong: int
    unanimous_wrong: int
    wrong_at_largest: int
    cases: tuple[UnfixableCase, ...]


def unfixable_errors(samples: SampleSet, from_n: int = 3, tie: TieRule = "first") -> UnfixableErrors:
    """Cases wrong at ``from_n`` samples that are still wrong with every sample, and how many are unanimous.

    A case counts when it has at least ``from_n`` samples; "wrong" is the first-n vote's credit < 1 under
    ``tie``. Cases are listed unanimous first, then by fewest gold samples, then by case id in natural order.
    Reference: the chapter (38 of the 44 cases wrong at n = 3 still wrong at n = 7; 31 unanimous).

    >>> from nkcore.voting.samples import parse_samples
    >>> import pandas as pd
    >>> f = pd.DataFrame({"case": [1, 1, 1, 2, 2, 2], "sample": [1, 2, 3] * 2, "answer": list("aaagag"), "gold": "g"})
    >>> u = unfixable_errors(parse_samples(f)); (u.wrong_at_from_n, u.still_wrong, u.unanimous_wrong, u.cases[0].answers)
    (1, 1, 1, 'a x3')
    """
    check_tie(tie)
    if from_n < 1:
        raise DataError(f"from_n must be at least 1, got {from_n}")
    if from_n > samples.max_n:
        raise DataError(
            f"cannot start from n = {from_n} samples per request: the data has at most {samples.max_n} per case "
            "(choose a smaller n, --from-n on the command line)"
        )
    credit = case_credit_first_n(samples, tie)
    eligible = samples.n_samples >= from_n
    last = credit[np.arange(samples.n_cases), samples.n_samples - 1]
    wrong_from = eligible & (credit[:, from_n - 1] < 1)
    wrong_last = eligible & (last < 1)
    still = wrong_from & wrong_last
    n_distinct = np.array([len(lbl) for lbl in samples.labels])
    unanimous = (n_distinct == 1) & (samples.gold_code != 0)
    rows = []
    for i in np.flatnonzero(still):
        codes = samples.codes[i, : samples.n_samples[i]]
        cnt = Counter(samples.labels[i][c] for c in codes)
        top_answer, top_count = cnt.most_common(1)[0]
        rows.append(
            UnfixableCase(
                case=samples.cases[i],
                gold=samples.gold[i],
                n_samples=int(samples.n_samples[i]),
                top_answer=top_answer,
                top_count=int(top_count),
                gold_count=int(cnt.get(samples.gold[i], 0)),
                unanimous=bool(unanimous[i]),
                answers=", ".join(f"{a} x{k}" for a, k in cnt.most_common()),
            )
        )
    rank = {c: i for i, c in enumerate(natural_order([r.case for r in rows]))}  # case "14" before "115"
    rows.sort(key=lambda r: (not r.unanimous, r.gold_count, rank[r.case]))
    return UnfixableErrors(
        from_n=from_n,
        largest_n=samples.max_n,
        n_cases=int(eligible.sum()),
        wrong_at_from_n=int(wrong_from.sum()),
        still_wrong=int(still.sum()),
        unanimous_wrong=int((still & unanimous).sum()),
        wrong_at_largest=int(wrong_last.sum()),
        cases=tuple(rows),
    )
