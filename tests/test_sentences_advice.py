"""The Cost & latency page's words from nkcore.advice: the advice's headline and reasons (no splitting of text at
". "), the dearest-row sentence and the table note, on the chapter's worked example (200 cases x 7 samples).

Oracles: the expected correct cases by hand (every n-subset of each case's samples, ``itertools.combinations``),
the sign-flip p by enumeration of its exact law (fractional credit) or scipy's binomial test (0/1 credit); the
monthly cost by hand, (calls of n=7 - calls of n=3) x $0.0062 x 400,000 = $9,920.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

import pandas as pd
from scipy import stats

from nkcore import advice, cost, voting
from nkcore.common.formatting import format_p


def _flat_by_hand(frame: pd.DataFrame, n: int) -> float:
    """Expected correct cases of flat n: the vote (a tie shared) averaged over every n-subset of each case."""
    total = 0.0
    for _, g in frame.sort_values(["case", "sample"]).groupby("case"):
        gold, subsets = g["gold"].iloc[0], list(itertools.combinations(g["answer"], n))
        for sub in subsets:
            counts = Counter(sub)
            tied = [x for x, k in counts.items() if k == max(counts.values())]
            total += (gold in tied) / len(tied) / len(subsets)
    return total


def test_headline_is_what_to_ship_and_reasons_say_why(worked_frame: pd.DataFrame) -> None:
    t = cost.build_table_from_frame(worked_frame)
    a = advice.advise(t, 6.5)
    n3 = _flat_by_hand(worked_frame, 3) / 200
    assert a.headline.startswith(
        f"Under a p95 latency budget of 6.5 s, ship flat samples per request n=3: {100 * n3:.1f}% accuracy"
    )
    assert a.headline.endswith("a month).") and ". " not in a.headline.replace("0.0", "")
    assert a.reasons.startswith("Cheaper settings are resolvably worse than n=3 (n=1 by ")
    assert "sign-flip p < 0.001" in a.reasons and "McNemar" not in a.reasons
    assert a.sentence == f"{a.headline} {a.reasons}"
    none = advice.advise(t, 1.0)
    assert none.headline.startswith("No configuration meets a p95 latency budget of 1.0 s; the fastest, n=1")
    assert none.reasons == "Raise the budget or find a faster model."


def test_dearest_sentence_by_hand(worked_frame: pd.DataFrame) -> None:
    """n=7 against the recommended n=3 (budget 6.5 s): the expected credit differs case by case in fractions, so
    the p is the sign-flip test's, named as such; n=7 uses all seven samples (the chapter's 158 of 200)."""
    t = cost.build_table_from_frame(worked_frame)
    a = advice.advise(t, 6.5)
    diff = (158 - _flat_by_hand(worked_frame, 3)) / 200
    text = advice.dearest_sentence(t, a)
    assert text.startswith("Running n=7 instead of the recommended n=3 would cost $9,920 a month more at 400,000")
    assert f"for +{100 * diff:.1f} points of accuracy" in text and text.endswith("sign-flip p < 0.001).")
    assert advice.dearest_sentence(t, advice.advise(t, 1.0)) == ""  # nothing recommended


def test_why_names_mcnemar_when_every_credit_is_right_or_wrong(worked_frame: pd.DataFrame) -> None:
    """With 0/1 credit (here the chapter's vote over each case's first samples put into the table) McNemar's exact
    test decides and the sentence says so: n=3 -> n=5 is 5 vs 7 discordant cases, p = 0.77 (scipy)."""
    t = cost.build_table_from_frame(worked_frame, ns=(1, 3, 5), adaptive=False)
    first = voting.case_credit_first_n(voting.parse_samples(worked_frame), "first")[:, [0, 2, 4]]
    rows = tuple(replace(r, accuracy=float(first[:, i].mean())) for i, r in enumerate(t.rows))
    a = advice.advise(replace(t, rows=rows, credit=first), 8.0)
    assert (a.pick, a.best) == ("n=3", "n=5") and a.gap is not None and a.gap.test == "mcnemar"
    p = stats.binomtest(5, 12, 0.5).pvalue
    assert f"McNemar exact {format_p(p)} on the 12 cases where they disagree" in a.reasons
    assert "sign-flip" not in a.reasons


def test_table_note_names_the_top_up_share_only_with_the_rule() -> None:
    assert "the 23% of requests that top up" in advice.table_note(200, 0.23)
    assert "top up" not in advice.table_note(200, None)
    assert "on the same 200 cases" in advice.table_note(200, None)
