"""Advice under a latency budget pays only for gains the paired test supports; oracles: scipy's binomial test,
the Monte Carlo paired bootstrap, a brute-force search over the rows, and the chapter's worked numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore import advice, cost, latency, voting
from nkcore.common.intervals import wilson
from nkcore.errors import DataError
from nkcore.paired import paired_bootstrap_mc
from tests.conftest import holm_oracle


def _table(frame: pd.DataFrame, tie: voting.TieRule = "first") -> cost.CostTable:
    return cost.build_table_from_frame(frame, tie=tie)


def test_budget_8s_on_the_worked_example_recommends_n3_and_says_why(worked_frame: pd.DataFrame) -> None:
    t = _table(worked_frame)
    a = advice.advise(t, 8.0)
    assert a.pick == "n=3" and a.best == "3+2"
    assert a.gap is not None and not a.gap.resolved
    # oracle: scipy's exact binomial test on the discordant cases of the two per-case credit columns
    credit = voting.case_credit_first_n(voting.parse_samples(worked_frame), "first")
    assert a.gap.cheaper_only + a.gap.dearer_only == 2 and a.gap.dearer_only == 2
    assert a.gap.p == pytest.approx(stats.binomtest(0, 2, 0.5).pvalue)
    assert "ship flat samples per request n=3" in a.sentence
    assert "cannot tell from the most accurate one, 3+2" in a.sentence
    assert "+1.0 points (95% paired bootstrap interval 0.0 to +2.5" in a.sentence
    # n=1 -> n=3 is resolvable (12 vs 26 discordant, the chapter's p = 0.034); n=3 -> n=5 is not (5 vs 7, p = 0.77)
    g13 = advice.paired_gap(credit[:, 0], credit[:, 2], "n=1", "n=3")
    g35 = advice.paired_gap(credit[:, 2], credit[:, 4], "n=3", "n=5")
    assert (g13.cheaper_only, g13.dearer_only, g13.resolved) == (12, 26, True)
    assert g13.p == pytest.approx(stats.binomtest(12, 38, 0.5).pvalue)
    assert (g35.cheaper_only, g35.dearer_only, g35.resolved) == (5, 7, False)
    assert g35.words() == "+1.0 points (-2.5 to +4.5), p = 0.77"


def test_the_interval_agrees_with_the_monte_carlo_bootstrap(worked_frame: pd.DataFrame) -> None:
    credit = voting.case_credit_first_n(voting.parse_samples(worked_frame), "first")
    g = advice.paired_gap(credit[:, 0], credit[:, 2])
    mc = paired_bootstrap_mc(credit[:, 0].astype(bool), credit[:, 2].astype(bool), reps=40_000, seed=3)
    assert abs(g.low - mc.low) <= 0.0051 and abs(g.high - mc.high) <= 0.0051


def _brute_force(t: cost.CostTable, budget: float, alpha: float) -> str | None:
    """The rule by enumeration: of the rows within the budget, the fewest calls whose binomial-test p against the
    most accurate row (fewest calls among equals) is >= alpha or which is not less accurate."""
    fits = [i for i, r in enumerate(t.rows) if r.p95 <= budget]
    if not fits:
        return None
    best = max(fits, key=lambda i: (t.rows[i].accuracy, -t.rows[i].calls, not t.rows[i].adaptive))
    ok = [best]
    cheaper = [i for i in fits if t.rows[i].calls < t.rows[best].calls]  # only a strictly cheaper row saves money
    tests = []
    for i in cheaper:
        a, b = t.credit[:, i].astype(bool), t.credit[:, best].astype(bool)
        k, m = int((a & ~b).sum()), int((b & ~a).sum())
        tests.append((m > k, stats.binomtest(k, k + m, 0.5).pvalue if k + m else 1.0))
    # the family: every cheaper row against the best, Holm-adjusted (statsmodels as the oracle)
    adjusted = holm_oracle([p for _, p in tests]) if tests else []
    for i, (better, _), p in zip(cheaper, tests, adjusted, strict=True):
        if not (better and p < alpha):
            ok.append(i)
    return t.rows[min(ok, key=lambda i: (t.rows[i].calls, t.rows[i].adaptive, t.rows[i].label))].label


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
@pytest.mark.parametrize("budget", [4.0, 5.0, 6.5, 7.5, 8.0, 60.0])
def test_pick_equals_brute_force(worked_frame: pd.DataFrame, budget: float, alpha: float) -> None:
    t = _table(worked_frame)
    assert advice.advise(t, budget, significance=alpha).pick == _brute_force(t, budget, alpha)


def test_alpha_decides_whether_a_gain_is_paid_for(worked_frame: pd.DataFrame) -> None:
    t = _table(worked_frame)
    assert advice.advise(t, 6.5, significance=0.05).pick == "n=3"  # n=1 -> n=3: p = 0.034 < 0.05
    strict = advice.advise(t, 6.5, significance=0.01)
    assert strict.pick == "n=1" and "cannot tell" in strict.sentence


def test_the_family_of_cheaper_settings_is_holm_adjusted_and_named(worked_frame: pd.DataFrame) -> None:
    """One rule for a family of comparisons (Holm's, as on the Compare page): at budget 8 s the best is 3+2 and
    two cheaper settings are compared with it; n=1's p = 0.017 becomes 0.033, still below 0.05 but not below 0.03,
    where n=1 is then what to ship (the unadjusted p paid for n=3)."""
    t = _table(worked_frame)
    a = advice.advise(t, 8.0)
    (g,) = a.worse
    assert (g.cheaper, g.family) == ("n=1", 2)
    assert a.gap is not None
    want = holm_oracle([g.p, a.gap.p])
    assert (g.p_holm, a.gap.p_holm) == pytest.approx(tuple(want))
    assert "p = 0.017, p = 0.033 after Holm's adjustment for the 2 cheaper settings compared with 3+2" in a.sentence
    assert advice.advise(t, 8.0, significance=0.03).pick == "n=1"
    alone = advice.advise(t, 7.0)  # one cheaper setting: nothing to adjust, and the sentence says so
    assert (
        alone.pick == "n=3" and "p = 0.034, the one comparison this decision makes, so no adjustment" in alone.sentence
    )


def test_row_intervals_are_wilson(worked_frame: pd.DataFrame) -> None:
    t = _table(worked_frame)
    for iv, r in zip(advice.row_intervals(t), t.rows, strict=True):
        assert (r.accuracy_low, r.accuracy_high) == (iv.low, iv.high)
        assert (iv.low, iv.high) == pytest.approx(wilson(round(r.correct), r.n_cases))
        assert iv.low <= iv.accuracy <= iv.high


def test_no_row_fits_and_bad_inputs(worked_frame: pd.DataFrame) -> None:
    t = _table(worked_frame)
    none = advice.advise(t, 1.0)
    assert none.pick is None and none.sentence.startswith("No configuration meets")
    assert none.to_dict()["pick"] is None
    with pytest.raises(DataError, match="percentile"):
        advice.advise(t, 5.0, percentile="p90")
    with pytest.raises(DataError, match="budget"):
        advice.advise(t, 0.0)
    with pytest.raises(DataError, match="0/1 credit"):
        advice.advise(_table(worked_frame, "split"), 8.0)
    with pytest.raises(DataError, match="same, non-zero"):
        advice.paired_gap(np.ones(3), np.ones(4))


def test_to_dict_is_plain(worked_frame: pd.DataFrame) -> None:
    d = advice.advise(_table(worked_frame), 8.0).to_dict()
    assert d["pick"] == "n=3" and d["versus_best"]["dearer"] == "3+2" and d["versus_best"]["resolved"] is False
    assert [g["cheaper"] for g in d["resolvably_worse"]] == ["n=1"]


def _samples(per_case: list[str], latency: float = 1.0) -> pd.DataFrame:
    """A samples frame: one string per case, its samples' answers in order ('g' is the gold answer)."""
    rows = [
        {"case": c, "sample": j + 1, "answer": a, "gold": "g", "latency_s": latency + 0.01 * j}
        for c, answers in enumerate(per_case)
        for j, a in enumerate(answers)
    ]
    return pd.DataFrame(rows)


def _chain() -> pd.DataFrame:
    """100 cases x 5 samples: 60 always right, 30 always wrong, 5 right from the 3-sample vote on, 5 only at 5."""
    return _samples(["ggggg"] * 60 + ["xxxxx"] * 30 + ["xggxg"] * 5 + ["xgxgg"] * 5)


def test_money_is_named_only_with_a_price_and_a_month_only_with_a_volume() -> None:
    """Without a price the sentence said '$0.00 per 1,000 requests ($0.00 a month)' and '$0.00 a month more'."""
    samples = voting.parse_samples(_chain())
    model = latency.latency_model_from_frame(_chain())
    free = advice.advise(cost.build_table(samples, model, (1, 3, 5), 0.0, 0.0, None), 10.0)
    assert "$" not in free.sentence and "2.00 more calls per request for n=5" in free.sentence
    priced = advice.advise(cost.build_table(samples, model, (1, 3, 5), 0.01, 0.0, None), 10.0)
    assert "$30.00 per 1,000 requests." in priced.sentence and "a month" not in priced.sentence
    assert "$20.00 per 1,000 requests more for n=5" in priced.sentence
    monthly = advice.advise(cost.build_table(samples, model, (1, 3, 5), 0.01, 100_000, None), 10.0)
    assert "($3,000 a month)" in monthly.sentence and "$2,000 a month more for n=5" in monthly.sentence


def test_an_interval_that_misses_zero_while_the_exact_test_does_not_is_named() -> None:
    """n=3 -> n=5 on the chain: 0 vs 5 discordant, McNemar exact p = 0.0625 (scipy), the bootstrap interval
    +1.0 to +10.0 misses zero: the sentence says the exact test decides, as Compare's does."""
    samples = voting.parse_samples(_chain())
    model = latency.latency_model_from_frame(_chain())
    a = advice.advise(cost.build_table(samples, model, (1, 3, 5), 0.01, 100_000, None), 10.0)
    assert a.pick == "n=3" and a.gap is not None
    assert a.gap.p == pytest.approx(stats.binomtest(0, 5, 0.5).pvalue) and a.gap.low > 0
    assert "misses zero, but with so few discordant cases it runs too narrow, and the exact test decides" in a.sentence


def test_a_row_as_dear_as_the_best_is_never_the_cheaper_pick() -> None:
    """An adaptive rule that never tops up costs what flat n costs: the flat row is named, with no '+0.0 points
    ... $0.00 a month more' comparison of two identical settings."""
    frame = _samples(["ggggggg"] * 70 + ["xxxxxxx"] * 30)
    samples = voting.parse_samples(frame)
    t = cost.build_table(samples, latency.latency_model_from_frame(frame), (5, 7), 0.01, 1000, (5, 2))
    a = advice.advise(t, 30.0)
    assert (a.pick, a.best, a.gap) == ("n=5", "n=5", None)
    assert "would pay for a gain" not in a.sentence


@pytest.mark.parametrize(
    ("price", "volume", "words"),
    [(1e308, 1000.0, "price per call"), (0.01, 1e308, "requests per month"), (float("inf"), 1.0, "price per call")],
)
def test_absurd_money_is_refused(worked_frame: pd.DataFrame, price: float, volume: float, words: str) -> None:
    """A price of 1e308 printed '$inf per 1k requests'."""
    samples = voting.parse_samples(worked_frame)
    with pytest.raises(DataError, match=words):
        cost.build_table(samples, latency.latency_model_from_frame(worked_frame), (1, 3), price, volume, None)
