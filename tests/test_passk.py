"""pass@k, pass^k and flaky cases against independent oracles: brute-force k-subsets, exact fractions,
simulation (unbiasedness, the single-sample noise), the chapter's worked example counted by hand in pandas."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from nkcore import voting
from nkcore.errors import DataError
from nkcore.voting.passk import case_pass_at_k, case_pass_hat_k, pass_at_k, pass_hat_k, pass_k_curves


def _frame(cases: list[list[str]], gold: str = "a") -> pd.DataFrame:
    rows = [(i, j + 1, ans, gold) for i, answers in enumerate(cases) for j, ans in enumerate(answers)]
    return pd.DataFrame(rows, columns=["case", "sample", "answer", "gold"])


def _brute(right: list[bool], k: int) -> tuple[float, float]:
    """Share of k-subsets with at least one right, and with all right (enumerated)."""
    subsets = list(itertools.combinations(right, k))
    return sum(any(s) for s in subsets) / len(subsets), sum(all(s) for s in subsets) / len(subsets)


answers_st = st.lists(st.lists(st.sampled_from("abc"), min_size=1, max_size=7), min_size=1, max_size=6).filter(
    lambda cases: max(len(a) for a in cases) >= 2  # a samples file needs some case with 2 samples
)


@given(answers_st)
def test_case_estimates_equal_brute_force_enumeration_of_k_subsets(cases: list[list[str]]) -> None:
    s = voting.parse_samples(_frame(cases))
    at, hat = case_pass_at_k(s), case_pass_hat_k(s)
    for i, c in enumerate(s.cases):
        answers = cases[int(c)]
        right = [a == "a" for a in answers]
        for k in range(1, s.max_n + 1):
            if k > len(answers):
                assert math.isnan(at[i, k - 1]) and math.isnan(hat[i, k - 1])
                continue
            b_at, b_hat = _brute(right, k)
            assert at[i, k - 1] == pytest.approx(b_at, abs=1e-12)
            assert hat[i, k - 1] == pytest.approx(b_hat, abs=1e-12)
            assert pass_at_k(len(right), sum(right), k) == pytest.approx(b_at, abs=1e-12)
            assert pass_hat_k(len(right), sum(right), k) == pytest.approx(b_hat, abs=1e-12)


@given(answers_st)
def test_curves_average_the_cases_that_have_k_samples(cases: list[list[str]]) -> None:
    r = pass_k_curves(voting.parse_samples(_frame(cases)), n_boot=100)
    for k in range(1, r.max_n + 1):
        rows = [[a == "a" for a in ans] for ans in cases if len(ans) >= k]
        brute = [_brute(right, k) for right in rows]
        assert r.pass_at_k[k - 1].n_cases == len(rows)
        assert r.pass_at_k[k - 1].value == pytest.approx(np.mean([b[0] for b in brute]), abs=1e-12)
        assert r.pass_hat_k[k - 1].value == pytest.approx(np.mean([b[1] for b in brute]), abs=1e-12)
        # all right => plurality right => one right, on every subset, so on the averages
        a, m, h = r.pass_at_k[k - 1].value, r.majority_at_k[k - 1].value, r.pass_hat_k[k - 1].value
        assert h - 1e-12 <= m <= a + 1e-12
    assert r.min_n == min(len(a) for a in cases) and r.max_n == max(len(a) for a in cases)


@pytest.mark.parametrize(("n", "c", "k"), [(1000, 3, 500), (1000, 997, 10), (200, 1, 199), (500, 250, 250)])
def test_product_form_matches_exact_fractions_for_large_n(n: int, c: int, k: int) -> None:
    exact_at = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    exact_hat = Fraction(math.comb(c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(float(exact_at), rel=1e-12, abs=1e-300)
    assert pass_hat_k(n, c, k) == pytest.approx(float(exact_hat), rel=1e-11, abs=1e-300)
    one = voting.parse_samples(_frame([["a"] * c + ["b"] * (n - c)]))
    assert case_pass_at_k(one)[0, k - 1] == pytest.approx(float(exact_at), rel=1e-11)
    assert case_pass_hat_k(one)[0, k - 1] == pytest.approx(float(exact_hat), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize(("n", "c"), [(1, 0), (1, 1), (5, 0), (5, 2), (5, 5), (31, 30)])
def test_k_equal_1_and_k_equal_n(n: int, c: int) -> None:
    assert pass_at_k(n, c, 1) == pytest.approx(c / n) and pass_hat_k(n, c, 1) == pytest.approx(c / n)
    assert pass_at_k(n, c, n) == (1.0 if c > 0 else 0.0)
    assert pass_hat_k(n, c, n) == (1.0 if c == n else 0.0)


def test_estimators_are_unbiased_by_simulation() -> None:
    """Draw n samples from a known p many times: the mean estimate matches 1 - (1-p)^k and p^k within 4 standard
    errors; the plug-in 1 - (1 - c/n)^k, which is biased, is caught by the same check."""
    rng = np.random.default_rng(7)
    n, p, draws = 10, 0.6, 40_000
    c = rng.binomial(n, p, size=draws)
    for k in (1, 2, 5, 10):
        est_at = np.array([pass_at_k(n, int(x), k) for x in range(n + 1)])[c]
        est_hat = np.array([pass_hat_k(n, int(x), k) for x in range(n + 1)])[c]
        for est, truth in ((est_at, 1 - (1 - p) ** k), (est_hat, p**k)):
            se = est.std(ddof=1) / math.sqrt(draws)
            assert se > 0 and abs(est.mean() - truth) <= 4 * se, (k, est.mean(), truth, se)
    plug_in = 1 - (1 - c / n) ** 5
    se = plug_in.std(ddof=1) / math.sqrt(draws)
    assert abs(plug_in.mean() - (1 - (1 - p) ** 5)) > 4 * se  # the check can fail


@pytest.mark.parametrize("p", [0.05, 0.3, 0.9])
def test_estimators_are_unbiased_exactly(p: float) -> None:
    """E[estimate] over c ~ Binomial(n, p), summed exactly with scipy's pmf, is 1 - (1-p)^k and p^k."""
    n = 12
    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    for k in range(1, n + 1):
        mean_at = sum(pmf[c] * pass_at_k(n, c, k) for c in range(n + 1))
        mean_hat = sum(pmf[c] * pass_hat_k(n, c, k) for c in range(n + 1))
        assert mean_at == pytest.approx(1 - (1 - p) ** k, abs=1e-12)
        assert mean_hat == pytest.approx(p**k, rel=1e-9, abs=1e-15)


def test_worked_example_against_pandas_counts(worked_frame: pd.DataFrame) -> None:
    right = (worked_frame["answer"] == worked_frame["gold"]).groupby(worked_frame["case"]).sum()
    r = pass_k_curves(voting.parse_samples(worked_frame), n_boot=200)
    assert r.pass_at_k[6].value == pytest.approx((right > 0).mean())  # 0.85
    assert r.pass_hat_k[6].value == pytest.approx((right == 7).mean())  # 0.175
    assert r.pass_at_k[0].value == pytest.approx(right.sum() / 1400)
    assert voting.passk_sentence(r, 135 / 200) == (
        "pass@7 (at least one of 7 samples right) is 85% but all 7 right (pass^7) is only 18%: 68% of cases are "
        "flaky (their samples disagree)."
    )


def test_bootstrap_intervals_are_paired_and_match_the_vote_curve(worked_frame: pd.DataFrame) -> None:
    s = voting.parse_samples(worked_frame)
    r = pass_k_curves(s, n_boot=500, seed=3)
    curve = voting.vote_curve(s, "first", n_boot=500, seed=3)
    for kv, pt in zip(r.majority_at_k, curve.points, strict=True):
        assert (kv.value, kv.ci_low, kv.ci_high) == pytest.approx((pt.accuracy, pt.ci_low, pt.ci_high), abs=1e-12)
    for series in (r.pass_at_k, r.pass_hat_k):
        assert all(v.ci_low <= v.value <= v.ci_high for v in series)
    again = pass_k_curves(s, n_boot=500, seed=3)
    assert again == r
    assert pass_k_curves(s, n_boot=500, seed=4).pass_at_k != r.pass_at_k


def test_bootstrap_interval_against_a_naive_case_resampling(worked_frame: pd.DataFrame) -> None:
    """Percentiles of mean(pass@3) over cases resampled with replacement, written out with index draws."""
    s = voting.parse_samples(worked_frame)
    r = pass_k_curves(s, n_boot=4000, seed=0, majority=False)
    per_case = case_pass_at_k(s)[:, 2]
    rng = np.random.default_rng(123)
    means = [per_case[rng.integers(0, s.n_cases, s.n_cases)].mean() for _ in range(4000)]
    lo, hi = np.percentile(means, [2.5, 97.5])
    assert r.pass_at_k[2].ci_low == pytest.approx(lo, abs=0.006)
    assert r.pass_at_k[2].ci_high == pytest.approx(hi, abs=0.006)


def test_bad_counts_raise_data_error() -> None:
    for n, c, k in [(3, 4, 1), (3, 1, 4), (3, 1, 0), (0, 0, 1)]:
        with pytest.raises(DataError, match="pass@k needs"):
            pass_at_k(n, c, k)
    with pytest.raises(DataError, match="k must be between 1 and"):
        pass_k_curves(voting.parse_samples(_frame([["a", "b"]])), n_boot=100).at(3)


# ------------------------------------------------------------------------------------------------ flaky cases


def test_flaky_cases_hand_example() -> None:
    f = _frame([list("aaaa"), list("abab"), list("bbbb"), list("abcc"), list("aab"), list("abb")])
    r = voting.flaky_cases(voting.parse_samples(f))
    # right shares 1, 1/2, 0, 1/4, 2/3, 1/3: flaky are cases 1, 3, 4, 5; |c/n - 1/2| = 0, 1/4, 1/6, 1/6
    assert [c.case for c in r.cases] == ["1", "4", "5", "3"]
    assert (r.flaky, r.all_right, r.all_wrong, r.n_cases) == (4, 1, 1, 6)
    assert r.flaky_share == pytest.approx(4 / 6)
    c3 = r.cases[-1]
    assert (c3.n_right, c3.n_samples) == (1, 4)
    assert [(a.answer, a.count, a.right) for a in c3.answers] == [("c", 2, False), ("a", 1, True), ("b", 1, False)]
    p = np.array([1, 1 / 2, 0, 1 / 4, 2 / 3, 1 / 3])
    assert r.within_var == pytest.approx(np.sum(p * (1 - p)) / 36)
    assert r.total_var == pytest.approx(p.mean() * (1 - p.mean()) / 6)


def test_flaky_binary_file_has_no_answers() -> None:
    f = pd.DataFrame({"case": [1, 1, 2, 2], "sample": [1, 2, 1, 2], "correct": [1, 0, 1, 1]})
    r = voting.flaky_cases(voting.parse_samples(f))
    assert not r.has_answers and [c.case for c in r.cases] == ["1"] and r.cases[0].answers == ()


def test_flaky_sentence_when_no_case_is_flaky() -> None:
    agree = voting.flaky_cases(voting.parse_samples(_frame([list("aaa"), list("bbb")])))
    assert agree.flaky == 0 and agree.flaky_share == 0.0
    assert voting.flaky_sentence(agree).startswith("No case is flaky")


def test_within_case_variance_is_the_variance_of_a_rerun_single_sample_score() -> None:
    """Simulate the single-sample evaluation: one sample drawn at random per case, accuracy over the cases; its
    variance over many reruns is sum p_i (1 - p_i) / N^2."""
    rng = np.random.default_rng(11)
    cases = [list(rng.choice(list("ab"), size=int(rng.integers(2, 8)), p=[q, 1 - q])) for q in rng.random(40)]
    s = voting.parse_samples(_frame(cases))
    r = voting.flaky_cases(s)
    right = s.correct_matrix()
    reruns = 20_000
    pick = (rng.random((reruns, s.n_cases)) * s.n_samples).astype(int)
    scores = right[np.arange(s.n_cases), pick].mean(axis=1)
    # the sample variance of a variance estimate has relative sd about sqrt(2 / reruns) = 1%
    assert scores.var(ddof=1) == pytest.approx(r.within_var, rel=0.05)
    assert 0 < r.noise_share <= 1


@given(answers_st)
def test_noise_share_is_at_most_one(cases: list[list[str]]) -> None:
    r = voting.flaky_cases(voting.parse_samples(_frame(cases)))
    assert r.flaky == len(r.cases) == sum(0 < sum(a == "a" for a in x) < len(x) for x in cases)
    if r.total_var > 0:
        assert 0 <= r.noise_share <= 1 + 1e-12
    dists = [abs(Fraction(c.n_right, c.n_samples) - Fraction(1, 2)) for c in r.cases]
    assert dists == sorted(dists)
