"""The Cost & latency page's words from nkcore.advice: the advice's headline and reasons (no splitting of text at
". "), the dearest-row sentence and the table note, on the chapter's worked example (200 cases x 7 samples).

Oracles: correct counts and the McNemar exact p (scipy's binomial test) from the per-case credit of the first n
samples; the monthly cost by hand, (calls of n=7 - calls of n=3) x $0.0062 x 400,000 = $9,920.
"""

from __future__ import annotations

import pandas as pd
from scipy import stats

from nkcore import advice, cost, voting
from nkcore.common.formatting import format_p


def test_headline_is_what_to_ship_and_reasons_say_why(worked_frame: pd.DataFrame) -> None:
    t = cost.build_table_from_frame(worked_frame)
    a = advice.advise(t, 8.0)
    credit = voting.case_credit_first_n(voting.parse_samples(worked_frame), "first")
    assert credit[:, 2].sum() == 156  # n=3: 78.0%
    assert a.headline.startswith(
        "Under a p95 latency budget of 8.0 s, ship flat samples per request n=3: 78.0% accuracy"
    )
    assert a.headline.endswith("a month).") and ". " not in a.headline.replace("0.0", "")
    assert a.reasons.startswith("It is the cheapest setting within the budget that the paired test cannot tell")
    assert a.sentence == f"{a.headline} {a.reasons}"
    none = advice.advise(t, 1.0)
    assert none.headline.startswith("No configuration meets a p95 latency budget of 1.0 s; the fastest, n=1")
    assert none.reasons == "Raise the budget or find a faster model."


def test_dearest_sentence_by_hand(worked_frame: pd.DataFrame) -> None:
    t = cost.build_table_from_frame(worked_frame)
    a = advice.advise(t, 8.0)
    credit = voting.case_credit_first_n(voting.parse_samples(worked_frame), "first")
    n3, n7 = credit[:, 2], credit[:, 6]
    only3, only7 = int(((n3 == 1) & (n7 == 0)).sum()), int(((n3 == 0) & (n7 == 1)).sum())
    p = stats.binomtest(min(only3, only7), only3 + only7, 0.5).pvalue
    diff = (n7.sum() - n3.sum()) / 200
    text = advice.dearest_sentence(t, a)
    assert text.startswith("Running n=7 instead of the recommended n=3 would cost $9,920 a month more at 400,000")
    assert f"for +{100 * diff:.1f} points of accuracy" in text and text.endswith(f"{format_p(p)}).")
    assert advice.dearest_sentence(t, advice.advise(t, 1.0)) == ""  # nothing recommended


def test_table_note_names_the_top_up_share_only_with_the_rule() -> None:
    assert "the 23% of requests that top up" in advice.table_note(200, 0.23)
    assert "top up" not in advice.table_note(200, None)
    assert "on the same 200 cases" in advice.table_note(200, None)
