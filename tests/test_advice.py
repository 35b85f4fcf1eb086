"""Advice under a latency budget pays only for gains the paired test supports; oracles: scipy's binomial test (0/1
credit), an exhaustive sign-flip law (fractional credit, the table's expected credit per case), the Monte Carlo
paired bootstrap, a brute-force search over the rows, and the chapter's worked numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore import advice, cost, latency, voting
from nkcore.common.formatting import format_p
from nkcore.common.intervals import wilson
from nkcore.errors import DataError
from nkcore.paired import paired_bootstrap_mc
from tests.conftest import holm_oracle, sign_flip_p


def _table(frame: pd.DataFrame, tie: voting.TieRule = "first") -> cost.CostTable:
    return cost.build_table_from_frame(frame, tie=tie)


def _oracle_p(a: np.ndarray, b: np.ndarray) -> float:
    """McNemar (scipy's binomial test) for 0/1 credit, else the exact sign-flip p."""
    if np.all(np.isin(a, (0, 1))) and np.all(np.isin(b, (0, 1))):
        k, m = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        return float(stats.binomtest(k, k + m, 0.5).pvalue) if k + m else 1.0
    return sign_flip_p(b - a)


def test_budget_8s_on_the_worked_example_says_why_with_the_sign_flip_test(worked_frame: pd.DataFrame) -> None:
    """The per-case credit is the expected vote (fractions), so the test is the sign-flip test, named as such."""
    t = _table(worked_frame)
    a = advice.advise(t, 8.0)
    assert a.pick == _brute_force(t, 8.0, 0.05)
    for g in (*a.worse, *((a.gap,) if a.gap else ()), *((a.over_budget,) if a.over_budget else ())):
        i, j = (next(k for k, r in enumerate(t.rows) if r.label == lab) for lab in (g.cheaper, g.dearer))
        assert g.test == "sign-flip" and g.p_method == "exact"
        assert g.p == pytest.approx(_oracle_p(t.credit[:, i], t.credit[:, j]), abs=1e-9)
    assert "McNemar" not in a.sentence and "sign-flip p" in a.sentence


def test_first_n_credit_keeps_the_chapters_mcnemar_numbers(worked_frame: pd.DataFrame) -> None:
    """paired_gap on 0/1 credit (the vote over each case's first samples) is McNemar's exact test and the exact
    paired bootstrap: n=1 -> n=3 is resolvable (12 vs 26 discordant, the chapter's p = 0.034); n=3 -> n=5 is not
    (5 vs 7, p = 0.77)."""
    credit = voting.case_credit_first_n(voting.parse_samples(worked_frame), "first")
    g13 = advice.paired_gap(credit[:, 0], credit[:, 2], "n=1", "n=3")
    g35 = advice.paired_gap(credit[:, 2], credit[:, 4], "n=3", "n=5")
    assert g13.test == g35.test == "mcnemar"
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
    """The rule by enumeration: of the rows within the budget, the fewest calls whose paired p (:func:`_oracle_p`)
    against the most accurate row (fewest calls among equals), Holm-adjusted, is >= alpha or which is not less
    accurate."""
    fits = [i for i, r in enumerate(t.rows) if r.p95 <= budget]
    if not fits:
        return None
    best = max(fits, key=lambda i: (t.rows[i].accuracy, -t.rows[i].calls, not t.rows[i].adaptive))
    ok = [best]
    cheaper = [i for i in fits if t.rows[i].calls < t.rows[best].calls]  # only a strictly cheaper row saves money
    tests = []
    for i in cheaper:
        a, b = t.credit[:, i], t.credit[:, best]
        tests.append((b.sum() > a.sum() + 1e-9, _oracle_p(a, b)))
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


def test_alpha_decides_whether_a_gain_is_paid_for() -> None:
    """A gain the test cannot resolve at the significance asked is never paid for: on the chain the 3-sample vote
    beats 1 sample on 10 cases by fractions; the sign-flip p (exact oracle) sits between the two levels tried."""
    frame = _samples(["ggggg"] * 60 + ["xxxxx"] * 30 + ["xggxg"] * 5 + ["xgxgg"] * 5)
    t = cost.build_table(voting.parse_samples(frame), latency.latency_model_from_frame(frame), (1, 3), 0.01, 0, None)
    p = _oracle_p(t.credit[:, 0], t.credit[:, 1])
    assert 0.001 < p < 0.05
    assert advice.advise(t, 10.0, significance=0.05).pick == "n=3"
    strict = advice.advise(t, 10.0, significance=p / 2)
    assert strict.pick == "n=1" and "cannot tell" in strict.sentence and "sign-flip" in strict.sentence


def test_the_family_of_cheaper_settings_is_holm_adjusted_and_named(worked_frame: pd.DataFrame) -> None:
    """One rule for a family of comparisons (Holm's, as on the Compare page): every cheaper setting within the
    budget is compared with the best and the adjusted p is named with the family's size."""
    t = _table(worked_frame)
    a = advice.advise(t, 8.0)
    family = [*a.worse, *((a.gap,) if a.gap else ())]
    assert family and all(g.family == len(family) for g in family)
    want = holm_oracle([g.p for g in family])
    assert [g.p_holm for g in family] == pytest.approx(list(want))
    assert f"after Holm's adjustment for the {len(family)} cheaper settings compared with {a.best}" in a.sentence
    alone = advice.advise(t, 7.0)  # one cheaper setting: nothing to adjust, and the sentence says so
    assert alone.pick == "n=3" and "the one comparison this decision makes, so no adjustment" in alone.sentence


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
    split = advice.advise(_table(worked_frame, "split"), 8.0)  # fractions: the case-level test, no error
    assert split.pick is not None and "sign-flip" in split.sentence
    with pytest.raises(DataError, match="between 0 and 1"):
        advice.paired_gap(np.array([0.5, 2.0]), np.ones(2))
    with pytest.raises(DataError, match="same, non-zero"):
        advice.paired_gap(np.ones(3), np.ones(4))


def test_to_dict_is_plain(worked_frame: pd.DataFrame) -> None:
    a = advice.advise(_table(worked_frame), 8.0)
    d = a.to_dict()
    assert d["pick"] == a.pick and d["best"] == a.best
    assert [g["cheaper"] for g in d["resolvably_worse"]] == [g.cheaper for g in a.worse]
    assert all(g["test"] == "sign-flip" and g["p_method"] == "exact" for g in d["resolvably_worse"])
    assert all(isinstance(v, (str, float, int, bool, list, dict, type(None))) for v in d.values())


def _samples(per_case: list[str], latency: float = 1.0) -> pd.DataFrame:
    """A samples frame: one string per case, its samples' answers in order ('g' is the gold answer)."""
    rows = [
        {"case": c, "sample": j + 1, "answer": a, "gold": "g", "latency_s": latency + 0.01 * j}
        for c, answers in enumerate(per_case)
        for j, a in enumerate(answers)
    ]
    return pd.DataFrame(rows)


def _close(extra: int = 2, worse: int = 1) -> pd.DataFrame:
    """124 cases x 5 samples where n=3 and n=5 are close: 'gggxy' gains 0.8 -> 1 from n=3 to n=5 (a 1-1-1 tie in a
    third of the 3-subsets), 'ggxxx' loses 0.3 -> 0; 'ggggx' gains 0.8 -> 1 from n=1 to n=3 (30 of them)."""
    return _samples(["ggggg"] * 60 + ["xxxxx"] * 30 + ["ggggx"] * 30 + ["gggxy"] * extra + ["ggxxx"] * worse)


def test_money_is_named_only_with_a_price_and_a_month_only_with_a_volume() -> None:
    """Without a price the sentence said '$0.00 per 1,000 requests ($0.00 a month)' and '$0.00 a month more'."""
    samples = voting.parse_samples(_close())
    model = latency.latency_model_from_frame(_close())
    free = advice.advise(cost.build_table(samples, model, (1, 3, 5), 0.0, 0.0, None), 10.0)
    assert "$" not in free.sentence and "2.00 more calls per request for n=5" in free.sentence
    priced = advice.advise(cost.build_table(samples, model, (1, 3, 5), 0.01, 0.0, None), 10.0)
    assert "$30.00 per 1,000 requests." in priced.sentence and "a month" not in priced.sentence
    assert "$20.00 per 1,000 requests more for n=5" in priced.sentence
    monthly = advice.advise(cost.build_table(samples, model, (1, 3, 5), 0.01, 100_000, None), 10.0)
    assert "($3,000 a month)" in monthly.sentence and "$2,000 a month more for n=5" in monthly.sentence


def test_an_interval_that_misses_zero_while_the_exact_test_does_not_is_named() -> None:
    """n=3 -> n=5 with 4 cases 'gggxy' each +0.2 and none worse: the sign-flip p is 2 of 16 sign patterns = 0.125
    (exhaustive), while the case bootstrap interval misses zero (a resample without any of the 4 cases has chance
    (120/124)^124 < 2.5%): the sentence says the exact test decides, and names it."""
    frame = _close(extra=4, worse=0)
    a = advice.advise(
        cost.build_table(voting.parse_samples(frame), latency.latency_model_from_frame(frame), (1, 3, 5), 0.01,
                         100_000, None), 10.0
    )  # fmt: skip
    assert a.pick == "n=3" and a.gap is not None and a.gap.test == "sign-flip"
    assert a.gap.p == pytest.approx(2 / 16) and a.gap.differing == 4 and a.gap.low > 0
    assert (120 / 124) ** 124 < 0.025
    assert "misses zero, but with so few cases that differ it runs too narrow, and the exact test decides" in a.sentence
    said = f"sign-flip {format_p(2 / 16)}, the sign-flip test on the per-case differences of expected credit, over "
    assert said + "the 4 cases where the two differ" in a.sentence and "McNemar" not in a.sentence


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
