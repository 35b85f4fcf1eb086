"""pass@k, pass^k and flaky cases against independent oracles: brute-force k-subsets, exact fractions,
simulation (unbiasedness, the single-sample noise), the chapter's worked example counted by hand in pandas; the
score interval against statsmodels' and scipy's Wilson interval, a root-finder on the score equation, and its
containment, symmetry, order and level properties (coverage by simulation: ``test_passk_coverage.py``)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize, stats
from statsmodels.stats.proportion import proportion_confint

from nkcore import voting
from nkcore.common.bounded_mean import PSEUDO_CASES, bounded_mean_interval, bounded_mean_intervals
from nkcore.errors import DataError
from nkcore.voting.passk import (
    case_bootstrap_bands,
    case_pass_at_k,
    case_pass_hat_k,
    pass_at_k,
    pass_hat_k,
    pass_k_curves,
)


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


def test_bootstrap_intervals_are_paired_and_the_vote_curve_band_is_majority_at_k(worked_frame: pd.DataFrame) -> None:
    s = voting.parse_samples(worked_frame)
    r = pass_k_curves(s, n_boot=500, seed=3, interval="bootstrap")
    assert r.interval == "bootstrap"
    curve = voting.vote_curve(s, "first", n_boot=500, seed=3)
    default = pass_k_curves(s, n_boot=500, seed=3)  # the vote curve's band: the same interval on the same values
    for kv, pt in zip(default.majority_at_k, curve.points, strict=True):
        assert (kv.value, kv.ci_low, kv.ci_high) == pytest.approx((pt.accuracy, pt.ci_low, pt.ci_high), abs=1e-12)
    for kv, pt in zip(r.majority_at_k, curve.points, strict=True):
        assert kv.value == pytest.approx(pt.accuracy, abs=1e-12)
    for series in (r.pass_at_k, r.pass_hat_k):
        assert all(v.ci_low <= v.value <= v.ci_high for v in series)
    again = pass_k_curves(s, n_boot=500, seed=3, interval="bootstrap")
    assert again == r
    assert pass_k_curves(s, n_boot=500, seed=4, interval="bootstrap").pass_at_k != r.pass_at_k


def test_default_interval_is_the_score_interval_of_the_per_case_values(worked_frame: pd.DataFrame) -> None:
    """Every reading, every k: the interval is bounded_mean_intervals on that column of per-case values, the
    majority@k value is still the vote curve's accuracy, and the interval does not depend on the seed."""
    s = voting.parse_samples(worked_frame)
    r = pass_k_curves(s, n_boot=500, seed=3)
    other = pass_k_curves(s, n_boot=100, seed=4)
    assert r.interval == "score"
    assert (other.pass_at_k, other.pass_hat_k, other.majority_at_k) == (r.pass_at_k, r.pass_hat_k, r.majority_at_k)
    curve = voting.vote_curve(s, "first", n_boot=500, seed=3)
    columns = (case_pass_at_k(s), case_pass_hat_k(s), voting.case_credit_exact(s, "first"))
    for series, per_case in zip((r.pass_at_k, r.pass_hat_k, r.majority_at_k), columns, strict=True):
        iv = bounded_mean_intervals(per_case)
        for v in series:
            j = v.k - 1
            assert (v.value, v.ci_low, v.ci_high) == pytest.approx((iv.mean[j], iv.low[j], iv.high[j]), abs=1e-12)
            assert 0 <= v.ci_low < v.value < v.ci_high <= 1
    assert [v.value for v in r.majority_at_k] == pytest.approx([p.accuracy for p in curve.points], abs=1e-12)


def test_pass_at_n_interval_is_clopper_pearsons_on_the_cases_that_pass() -> None:
    """With n = 2 samples per case, pass@2 per case is 1{some right} and pass^2 is 1{both right}: 0/1 values, so
    the interval must be Clopper-Pearson's on the count of such cases (statsmodels and scipy as oracles; Wilson's
    until issue 53, whose dip next to the boundary covered 0.905 at truth 0.999 on 100 cases)."""
    rng = np.random.default_rng(5)
    for n_cases in (1, 3, 10, 37):
        right = rng.random((n_cases, 2)) < rng.random(n_cases)[:, None]
        frame = pd.DataFrame(
            {
                "case": np.repeat(np.arange(n_cases), 2),
                "sample": np.tile([1, 2], n_cases),
                "correct": right.ravel().astype(int),
            }
        )
        r = pass_k_curves(voting.parse_samples(frame), majority=False)
        for v, hits in (
            (r.pass_at_k[1], int(right.any(axis=1).sum())),
            (r.pass_hat_k[1], int(right.all(axis=1).sum())),
        ):
            lo, hi = proportion_confint(hits, n_cases, alpha=0.05, method="beta")
            ci = stats.binomtest(hits, n_cases).proportion_ci(0.95, method="exact")
            assert (v.ci_low, v.ci_high) == pytest.approx((lo, hi), abs=1e-12)
            assert (v.ci_low, v.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_zero_one_values_give_clopper_pearsons_interval_at_every_count(level: float) -> None:
    for n in (1, 2, 5, 20, 60):
        for hits in range(n + 1):
            r = bounded_mean_interval([1.0] * hits + [0.0] * (n - hits), level)
            lo, hi = proportion_confint(hits, n, alpha=1 - level, method="beta")
            assert r.ratio == 1.0 and (r.low, r.high) == pytest.approx((lo, hi), abs=1e-10)
            assert r.high > r.low  # never zero width, even at 0 or n of n
    tail = (1 - level) / 2  # every case passes: P(X = n) = mu^n = tail at the lower end
    every = bounded_mean_interval([1.0] * 60, level)
    assert (every.low, every.high) == (pytest.approx(tail ** (1 / 60), rel=1e-10), 1.0)
    none = bounded_mean_interval([0.0] * 60, level)
    assert (none.low, none.high) == (0.0, pytest.approx(1 - tail ** (1 / 60), rel=1e-10))


values_st = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=40)


@given(values_st)
def test_interval_ends_are_clopper_pearson_on_the_effective_cases(values: list[float]) -> None:
    """Each end inside (0, 1) solves the binomial tail equations with s = n_eff xbar successes of n_eff = n / r
    (real-valued, through the regularised incomplete beta): P(X >= s | mu_low) = alpha/2, P(X <= s | mu_high) =
    alpha/2, i.e. I_mu_low(s, n_eff - s + 1) = alpha/2 and I_mu_high(s + 1, n_eff - s) = 1 - alpha/2, found here
    by brentq; r is the variance ratio of the values with a pseudo-case at 0 and one at 1 (numpy's var)."""
    from scipy.special import betainc

    x = np.array(values)
    r = bounded_mean_interval(x)
    n, xbar = len(x), x.mean()
    aug = np.concatenate([x, [0.0, 1.0]]) if PSEUDO_CASES == 1.0 else x
    ratio = min(1.0, aug.var() / (aug.mean() * (1 - aug.mean())))
    assert r.ratio == pytest.approx(ratio, rel=1e-9, abs=1e-12)
    assert 0.0 <= r.low <= xbar <= r.high <= 1.0 and r.high - r.low > 0
    assert r.mean == pytest.approx(xbar, abs=1e-12)
    n_eff = n / ratio
    s, f = n_eff * xbar, n_eff * (1 - xbar)
    edge = 1e-15  # a root outside [edge, 1 - edge] (a tiny s or f: one case) is the bound itself, to 1e-12
    if s > 1e-9 and 0.0 < r.low < xbar:
        lower = lambda mu: betainc(s, f + 1, mu) - 0.025  # noqa: E731
        if lower(edge) > 0:
            assert r.low <= 1e-12
        else:
            root = optimize.brentq(lower, edge, 1 - edge, xtol=1e-14)
            assert r.low == pytest.approx(min(root, xbar), abs=1e-7)
    if f > 1e-9 and xbar < r.high < 1.0:
        upper = lambda mu: betainc(s + 1, f, mu) - 0.975  # noqa: E731
        if upper(1 - edge) < 0:
            assert r.high >= 1 - 1e-12
        else:
            root = optimize.brentq(upper, edge, 1 - edge, xtol=1e-14)
            assert r.high == pytest.approx(max(root, xbar), abs=1e-7)


@given(values_st)
def test_interval_is_symmetric_order_free_and_nested_in_level(values: list[float]) -> None:
    x = np.array(values)
    r = bounded_mean_interval(x)
    mirror = bounded_mean_interval(1.0 - x)
    assert (mirror.low, mirror.high) == pytest.approx((1 - r.high, 1 - r.low), abs=1e-9)
    back = bounded_mean_interval(x[::-1])
    assert (back.low, back.high) == pytest.approx((r.low, r.high), abs=1e-12)
    prev = (r.mean, r.mean)
    for level in (0.5, 0.8, 0.95, 0.999):
        cur = bounded_mean_interval(x, level)
        assert cur.low <= prev[0] + 1e-12 and cur.high >= prev[1] - 1e-12
        prev = (cur.low, cur.high)


def test_more_cases_passing_tighten_the_interval_and_one_near_miss_does_not_collapse_it() -> None:
    """All 1: the lower end rises with the number of cases. One case at 0.99 among 59 at 1 (pass@5 of a strong
    model) keeps the lower end near the all-pass one (0.940); without the pseudo-cases r would be 0.0098 and the
    interval [0.9991, 1.0000]."""
    lows = [bounded_mean_interval([1.0] * n).low for n in (5, 20, 60, 200)]
    assert lows == sorted(lows) and lows[-1] < 1.0
    near = bounded_mean_interval([1.0] * 59 + [0.99])
    assert near.low < 0.96 and near.high == pytest.approx(1.0, abs=1e-3)


def test_columns_with_absent_cases_use_only_their_present_values() -> None:
    x = np.array([[1.0, 0.2], [0.0, np.nan], [0.5, 0.7], [np.nan, np.nan]])
    r = bounded_mean_intervals(x)
    one, two = bounded_mean_interval([1.0, 0.0, 0.5]), bounded_mean_interval([0.2, 0.7])
    assert r.n.tolist() == [3, 2]
    assert (r.low[0], r.high[0], r.low[1], r.high[1]) == pytest.approx((one.low, one.high, two.low, two.high))
    empty = bounded_mean_intervals(np.full((2, 1), np.nan))
    assert empty.n.tolist() == [0] and math.isnan(empty.low[0])


def test_bootstrap_bands_helper_matches_pass_k_curves(worked_frame: pd.DataFrame) -> None:
    s = voting.parse_samples(worked_frame)
    r = pass_k_curves(s, n_boot=300, seed=9, majority=False, interval="bootstrap")
    stacked = np.hstack([case_pass_at_k(s), case_pass_hat_k(s)])
    b = case_bootstrap_bands(stacked, n_boot=300, seed=9)
    m = s.max_n
    assert [v.ci_low for v in r.pass_hat_k] == pytest.approx(b.low[m:].tolist(), abs=1e-12)
    assert [v.ci_high for v in r.pass_at_k] == pytest.approx(b.high[:m].tolist(), abs=1e-12)


def test_bootstrap_interval_against_a_naive_case_resampling(worked_frame: pd.DataFrame) -> None:
    """Percentiles of mean(pass@3) over cases resampled with replacement, written out with index draws."""
    s = voting.parse_samples(worked_frame)
    r = pass_k_curves(s, n_boot=4000, seed=0, majority=False, interval="bootstrap")
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
    with pytest.raises(DataError, match="unknown pass@k interval"):
        pass_k_curves(voting.parse_samples(_frame([["a", "b"]])), interval="percentile")  # type: ignore[arg-type]
    for bad in ([0.5, 1.2], [-0.1], [math.inf]):
        with pytest.raises(DataError, match="values must"):
            bounded_mean_interval(bad)
    with pytest.raises(DataError, match="at least one value"):
        bounded_mean_interval([math.nan])


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
    n = np.array([4, 4, 4, 4, 3, 3])
    assert r.within_var == pytest.approx(np.sum(p * (1 - p) * n / (n - 1)) / 36)  # the unbiased s^2 per case
    assert r.total_var == pytest.approx(p.mean() * (1 - p.mean()) / 6)


def test_flaky_binary_file_has_no_answers() -> None:
    f = pd.DataFrame({"case": [1, 1, 2, 2], "sample": [1, 2, 1, 2], "correct": [1, 0, 1, 1]})
    r = voting.flaky_cases(voting.parse_samples(f))
    assert not r.has_answers and [c.case for c in r.cases] == ["1"] and r.cases[0].answers == ()


def test_flaky_sentence_when_no_case_is_flaky() -> None:
    agree = voting.flaky_cases(voting.parse_samples(_frame([list("aaa"), list("bbb")])))
    assert agree.flaky == 0 and agree.flaky_share == 0.0
    assert voting.flaky_sentence(agree).startswith("No case is flaky")


@pytest.mark.slow  # out of make test-quick (the edit loop); make test runs it
def test_within_case_variance_is_the_variance_of_a_rerun_single_sample_score() -> None:
    """Running the model again draws new samples: a single-sample accuracy then varies by sum p_i (1 - p_i) / N^2
    with the cases' true chances p_i. The estimate from each case's own samples (the unbiased sample variance,
    numpy's ddof=1) averages to it over many simulated sample sets; the plug-in c/n (1 - c/n) falls short by
    (n - 1) / n."""
    rng = np.random.default_rng(11)
    chance = rng.random(40)
    sizes = rng.integers(2, 8, size=40)
    truth = float(np.sum(chance * (1 - chance))) / 40**2
    estimates = []
    for _ in range(400):
        cases = [list(np.where(rng.random(k) < q, "a", "b")) for q, k in zip(chance, sizes, strict=True)]
        r = voting.flaky_cases(voting.parse_samples(_frame(cases)))
        right = [np.array([x == "a" for x in case], dtype=float) for case in cases]
        oracle = sum(float(np.var(x, ddof=1)) for x in right) / 40**2
        assert r.within_var == pytest.approx(oracle, rel=1e-12, abs=1e-15)
        estimates.append(r.within_var)
    # 400 sets: the mean's relative standard error is about 1.5%
    assert np.mean(estimates) == pytest.approx(truth, rel=0.06)
    assert 0 < r.noise_share <= 1


@given(answers_st)
def test_noise_share_is_at_most_one(cases: list[list[str]]) -> None:
    r = voting.flaky_cases(voting.parse_samples(_frame(cases)))
    assert r.flaky == len(r.cases) == sum(0 < sum(a == "a" for a in x) < len(x) for x in cases)
    if r.total_var > 0:
        assert 0 <= r.noise_share <= 1 + 1e-12
    dists = [abs(Fraction(c.n_right, c.n_samples) - Fraction(1, 2)) for c in r.cases]
    assert dists == sorted(dists)
