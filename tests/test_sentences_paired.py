"""The Compare page's headline sentence (nkcore.paired.sentences.headline_sentence) on the chapter's worked example.

Oracles: McNemar's exact p from scipy's binomial test, Holm's adjustment from statsmodels, the chapter's counts
(n=1 -> n=3: 12 vs 26 discordant cases of 200; n=3 -> n=5: 5 vs 7; n=5 -> n=7: 3 vs 3).
"""

from __future__ import annotations

from scipy import stats

from nkcore import paired as pr
from nkcore.paired import sentences
from tests.conftest import holm_oracle
from tests.test_paired import worked_table


def test_headline_of_the_worked_example_is_tentative_after_holm() -> None:
    o = pr.compare_ordered(worked_table())
    p_n1_n3 = stats.binomtest(12, 38, 0.5).pvalue  # 0.0336: below alpha on its own
    holm = holm_oracle([p_n1_n3, stats.binomtest(5, 12).pvalue, 1.0])
    assert round(p_n1_n3, 4) == 0.0336 and round(holm[0], 2) == 0.10  # the chapter's p and its Holm adjustment
    assert sentences.headline_sentence(o.comparisons, o.p_holm, 0.05, o.n_cases) == (
        "On these 200 paired cases, n=3 beats n=1 by +7.0 points, but only tentatively (with Holm's adjustment for 3 "
        "pairs p = 0.10); they cannot tell n=5 from n=3 or n=7 from n=5."
    )


def test_headline_when_nothing_wins_and_when_a_win_survives_holm() -> None:
    o = pr.compare_ordered(worked_table(), significance=0.01)
    assert sentences.headline_sentence(o.comparisons, o.p_holm, 0.01, 200) == (
        "These 200 paired cases cannot tell n=3 from n=1, n=5 from n=3 or n=7 from n=5."
    )
    # 0 vs 20 discordant cases: exact p = 2 / 2^20, far below alpha even after Holm's factor 2
    a = pr.compare_pair(pr.paired_table_from_counts("A", "B", 150, 0, 20, 30), "A", "B")
    b = pr.compare_pair(pr.paired_table_from_counts("B", "C", 160, 6, 4, 30), "B", "C")
    holm = holm_oracle([a.p_exact, b.p_exact])
    assert holm[0] < 0.001
    assert sentences.headline_sentence([a, b], tuple(holm), 0.05, 200) == (
        "On these 200 paired cases, B beats A by +10.0 points (p < 0.001); they cannot tell C from B."
    )
    # a loss is told from the winner's side
    c = pr.compare_pair(pr.paired_table_from_counts("A", "B", 150, 20, 0, 30), "A", "B")
    assert sentences.headline_sentence([c, b], (0.0, 1.0), 0.05, 200).startswith(
        "On these 200 paired cases, A beats B by +10.0 points"
    )


def test_one_pair_headline_is_its_verdict_sentence() -> None:
    c = pr.compare_pair(pr.paired_table_from_counts("n=1", "n=3", 130, 12, 26, 32), "n=1", "n=3")
    assert sentences.headline_sentence([c], [None], 0.05, 200) == pr.verdict_sentence(c, 0.05)
    assert sentences.headline_sentence([c], [None], 0.05, 200).startswith("n=3 beats n=1: +7.0 points")


def test_notes_name_holm_only_for_several_pairs() -> None:
    assert "Holm" in sentences.verdict_note(0.05, several=True)
    assert "Holm" not in sentences.verdict_note(0.05, several=False)
    assert "alpha = 0.01" in sentences.verdict_note(0.01, several=False)
    assert "Holm p" not in sentences.tests_method_note(0.95, holm=False)
    assert "The interval (from, to) is the 90% paired" in sentences.tests_method_note(0.9, holm=True)
    assert sentences.chart_note(0.99).startswith("**The chart.** Blue: the 99% interval")
