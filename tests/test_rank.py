"""nkcore.rank against independent oracles: scipy's paired t (one-sided, shifted by the margin), statsmodels' Holm,
brute-force enumeration of every bootstrap resample of 4 cases for the max statistic and the winner's bias, and
loops for the rank intervals and the cost frontier."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from nkcore.errors import DataError
from nkcore.paired import parse_cases
from nkcore.rank import (
    PairwiseIntervals,
    bootstrap_means,
    cost_frontier,
    critical_value,
    margin_tests,
    max_statistic,
    non_inferiority,
    pairwise_intervals,
    rank_intervals,
    rank_means,
    rank_report,
    shrink_means,
    winner_estimate,
)
from nkcore.rank.simulate import simulate_case_means

# ------------------------------------------------------------------ non-inferiority and equivalence: scipy


def _pseudo_se_loop(d: np.ndarray) -> float:
    """The pseudo-case standard error by a weighted loop: d plus +1 and -1 with weight 1/2 and 0 with weight 1."""
    vals = [*d.tolist(), 1.0, -1.0, 0.0]
    wts = [1.0] * len(d) + [0.5, 0.5, 1.0]
    total = sum(wts)
    mean = sum(w * v for w, v in zip(wts, vals, strict=True)) / total
    var = sum(w * (v - mean) ** 2 for w, v in zip(wts, vals, strict=True)) / (total - 1)
    return math.sqrt(var / total)


def _tango_oracle(n10: int, n01: int, n: int, delta: float) -> float:
    """Tango's Z with the restricted MLE found by scipy's bounded optimiser (not the quadratic's root)."""
    from scipy import optimize

    m = n - n10 - n01

    def nll(q: float) -> float:
        terms = [(n10, q - delta), (n01, q), (m, 1 - 2 * q + delta)]
        return -sum(c * math.log(p) for c, p in terms if c > 0)

    lo, hi = max(delta, 0.0) + 1e-13, (1 + delta) / 2 - 1e-13
    q = float(optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}).x)
    return (n10 - n01 + n * delta) / math.sqrt(n * (2 * q - delta - delta**2))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("margin", [0.0, 0.01, 0.05])
def test_non_inferiority_is_a_t_test_with_the_pseudo_case_error_or_tangos_score_test(seed: int, margin: float) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 300))
    if seed % 2:  # 0/1 without repeats: Tango's score test
        a = (rng.random(n) < 0.7).astype(float)
        b = np.where(rng.random(n) < 0.85, a, 1 - a)
        n10, n01 = int(np.sum(b > a)), int(np.sum(b < a))
        p = stats.t.sf(_tango_oracle(n10, n01, n, margin), n - 1)
        p_hi = stats.t.sf(_tango_oracle(n01, n10, n, margin), n - 1)
        r = non_inferiority(a, b, margin, 0.05)
        assert r.p_non_inferior == pytest.approx(p, rel=1e-5, abs=1e-9)
        assert r.p_equivalent == pytest.approx(max(p, p_hi), rel=1e-5, abs=1e-9)
        # the bound inverts the test: Z at the bound is t_{n-1, 0.95}
        assert _tango_oracle(n10, n01, n, -r.lower_bound) == pytest.approx(stats.t.isf(0.05, n - 1), rel=1e-6)
    else:  # case means over 3 repeats: the one-sided t with the pseudo-case standard error
        a = rng.integers(0, 4, n) / 3
        b = np.clip(a + rng.integers(-1, 2, n) / 3, 0, 1)
        d = b - a
        se = _pseudo_se_loop(d)
        p = stats.t.sf((d.mean() + margin) / se, n - 1)
        p_hi = stats.t.cdf((d.mean() - margin) / se, n - 1)
        r = non_inferiority(a, b, margin, 0.05)
        assert r.se == pytest.approx(se, rel=1e-12)
        assert r.p_non_inferior == pytest.approx(p, rel=1e-9, abs=1e-14)
        assert r.p_equivalent == pytest.approx(max(p, p_hi), rel=1e-9, abs=1e-14)
        assert r.lower_bound == pytest.approx(d.mean() - stats.t.isf(0.05, n - 1) * se, rel=1e-9)
    assert r.non_inferior == (p < 0.05)
    # the one-sided bound agrees with the test: non-inferior iff the lower bound is above -margin
    assert r.non_inferior == (r.lower_bound > -margin)


def test_equal_cases_never_prove_non_inferiority() -> None:
    """Regression (issue 53): every case difference equal gave se = 0, p = 0 and "non-inferior" on no evidence."""
    a = np.zeros(15)
    r = non_inferiority(a, a, 0.01)  # 15 cases, none discordant: Z = sqrt(n delta / (1 - delta)) = 0.39
    assert not r.non_inferior and r.p_non_inferior == pytest.approx(stats.t.sf(math.sqrt(0.15 / 0.99), 14))
    b = np.full(15, 0.4)  # case means over repeats, every difference -0.1, margin 0.2: the old test said p = 0
    r = non_inferiority(np.full(15, 0.5), b, 0.2)
    assert r.se > 0 and not r.non_inferior
    assert non_inferiority(np.full(200, 0.5), np.full(200, 0.4), 0.2).non_inferior  # 200 such cases do suffice


@pytest.mark.parametrize(("n", "repeats"), [(15, 1), (15, 3), (30, 1), (120, 1)])
def test_non_inferiority_type_one_error_at_the_margin(n: int, repeats: int) -> None:
    """B's true mean exactly 1 point below A's at a 2% rate (the old test: 0.60, 0.32, 0.36, 0.08 here)."""
    rng = np.random.default_rng(n + repeats)
    runs = 2000
    hits = sum(
        non_inferiority(*simulate_case_means(np.array([0.025, 0.015]), n, repeats, 0.5, rng).T, 0.01).non_inferior
        for _ in range(runs)
    )
    mc = math.sqrt(0.05 * 0.95 / runs)
    assert hits / runs <= 0.05 + 3 * mc, (hits / runs, mc)


def test_non_inferiority_refusals() -> None:
    a = np.zeros(10)
    assert non_inferiority(a, a, 0.0).p_non_inferior == 0.5  # d = 0 is on H0's boundary: Z = 0
    r = non_inferiority(np.ones(10), a, 0.5)  # B always wrong where A is right: far below the margin
    assert r.p_non_inferior > 0.9 and not r.non_inferior
    with pytest.raises(DataError, match="margin"):
        non_inferiority(a, a, 1.5)
    with pytest.raises(DataError, match="margin"):
        non_inferiority(a, a, -0.01)
    with pytest.raises(DataError, match="two paired cases"):
        non_inferiority(a[:1], a[:1], 0.01)


def test_margin_tests_use_statsmodels_holm() -> None:
    x = simulate_case_means(np.array([0.80, 0.79, 0.78, 0.74, 0.80]), 300, repeats=2, seed=4)
    df = pd.DataFrame(x, columns=list("ABCDE")).assign(case=range(300))
    table = parse_cases(df[["case", *"ABCDE"]])
    tests = margin_tests(table, "A", 0.03, 0.05)
    raw = [m.test.p_non_inferior for m in tests]
    reject, adjusted, _, _ = multipletests(raw, alpha=0.05, method="holm")
    assert [m.p_holm for m in tests] == pytest.approx(list(adjusted), rel=1e-12)
    assert [m.non_inferior for m in tests] == list(reject)
    assert [m.test.config_b for m in tests] == list("BCDE")


# ------------------------------------------------------------------ the max statistic: brute force on 4 cases

CASES4 = np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1 / 3]])


def _all_resamples(x: np.ndarray) -> np.ndarray:
    """The means of every ordered resample of the n cases (n^n of them, each equally likely)."""
    n = x.shape[0]
    return np.array([x[list(idx)].mean(axis=0) for idx in itertools.product(range(n), repeat=n)])


def _brute_t(x: np.ndarray, boot_row: np.ndarray, studentized: bool) -> float:
    n, m = x.shape
    mean = x.mean(axis=0)
    best = 0.0
    for j in range(m):
        for k in range(j + 1, m):
            d = x[:, j] - x[:, k]
            sd = math.sqrt(sum((v - d.mean()) ** 2 for v in d) / (n - 1))
            if sd == 0:
                continue
            dev = abs((boot_row[j] - mean[j]) - (boot_row[k] - mean[k]))
            best = max(best, dev / (sd / math.sqrt(n)) if studentized else dev)
    return best


@pytest.mark.parametrize("studentized", [True, False])
def test_max_statistic_and_its_quantile_on_every_resample_of_4_cases(studentized: bool) -> None:
    boot = _all_resamples(CASES4)
    assert boot.shape == (256, 3)
    t = max_statistic(CASES4, boot, studentized)
    brute = np.array([_brute_t(CASES4, row, studentized) for row in boot])
    np.testing.assert_allclose(t, brute, rtol=1e-12, atol=1e-12)
    for conf in (0.5, 0.8, 0.95):
        k = math.ceil(conf * 256 - 1e-9)  # the smallest value with at least conf of the law at or below it
        assert critical_value(t, conf) == pytest.approx(sorted(brute)[k - 1])
    pairs = pairwise_intervals(CASES4, boot, 0.8, studentized)
    c = sorted(brute)[math.ceil(0.8 * 256 - 1e-9) - 1]
    for j, k in itertools.permutations(range(3), 2):
        d = CASES4[:, j] - CASES4[:, k]
        # the width's se: the larger of the sample's and the pseudo-case one (a whole case of +1 and of -1 added)
        aug = np.concatenate([d, [1.0, -1.0, 0.0, 0.0]])
        se = max(d.std(ddof=1) / 2, aug.std(ddof=1) / math.sqrt(aug.size))
        if studentized:  # c floored at the one-pair normal quantile, then carried to t with 3 df at the same level
            c_t = stats.t.isf(stats.norm.sf(max(c, stats.norm.isf(0.1))), 3) * math.sqrt(4 / 3)
            half = c_t * se
        else:
            half = max(c * math.sqrt(4 / 3), stats.t.isf(0.1, 3) * se)
        assert pairs.low[j, k] == pytest.approx(d.mean() - half)
        assert pairs.high[j, k] == pytest.approx(d.mean() + half)


def test_winner_on_every_resample_of_4_cases() -> None:
    """The bootstrap correction and the projection interval against every one of the 4^4 resamples."""
    boot = _all_resamples(CASES4)
    means = CASES4.mean(axis=0)
    cov = np.cov(CASES4, rowvar=False) / 4
    w = winner_estimate(means, boot, ["A", "B", "C"], 0.9, cov)
    naive = max(means)
    bias = np.mean([max(row) for row in boot]) - naive
    assert (w.config, w.naive) == ("A", pytest.approx(naive))
    assert w.bootstrap_corrected == pytest.approx(naive - bias) and bias > 0
    se = [math.sqrt(cov[j, j]) for j in range(3)]
    dev = sorted(max(abs(row[j] - means[j]) / se[j] for j in range(3) if se[j] > 0) for row in boot)
    c = dev[math.ceil(0.9 * 256 - 1e-9) - 1]
    assert w.ci_low == pytest.approx(max(0.0, naive - c * se[0]))
    assert w.ci_high == pytest.approx(min(1.0, naive + c * se[0]))
    assert w.bias == pytest.approx(w.naive - w.corrected)


@pytest.mark.parametrize("seed", range(8))
def test_shrinkage_is_efron_morris_with_equal_noise(seed: int) -> None:
    """Sigma = s^2 I: theta_j = xbar + (1 - B)(x_j - xbar), B = min(1, (M - 1) s^2 / sum (x_j - xbar)^2)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 12))
    x = rng.uniform(0.4, 0.9, m)
    s2 = float(rng.uniform(1e-4, 3e-3))
    xbar = x.mean()
    b = min(1.0, (m - 1) * s2 / float(((x - xbar) ** 2).sum()))
    got = shrink_means(x, np.eye(m) * s2)
    np.testing.assert_allclose(got.means, xbar + (1 - b) * (x - xbar), atol=1e-12)
    # a common shock added to every config (shared case difficulty) changes nothing
    shared = shrink_means(x, np.eye(m) * s2 + 0.004)
    np.testing.assert_allclose(shared.means, got.means, atol=1e-10)


def test_corrected_winner_is_unbiased_when_the_prior_holds() -> None:
    """Simulation: true means drawn from N(0.7, tau^2), observed with N(0, s^2) noise; over 4,000 draws the
    corrected winner's mean error is within 4 Monte Carlo errors of 0 while the naive one's is far above."""
    rng = np.random.default_rng(7)
    m, tau, s, reps = 30, 0.02, 0.02, 4000
    naive_err, corr_err = [], []
    for _ in range(reps):
        theta = 0.7 + tau * rng.standard_normal(m)
        x = theta + s * rng.standard_normal(m)
        j = int(np.argmax(x))
        naive_err.append(x[j] - theta[j])
        corr_err.append(shrink_means(x, np.eye(m) * s**2).means[j] - theta[j])
    ce, ne = np.array(corr_err), np.array(naive_err)
    mc = ce.std(ddof=1) / math.sqrt(reps)
    assert abs(ce.mean()) < 4 * mc, (ce.mean(), mc)
    assert ne.mean() > 20 * mc


# ------------------------------------------------------------------ ranks, best set, frontier: loops


@pytest.mark.parametrize("seed", range(5))
def test_rank_intervals_and_frontier_match_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = 7
    d = rng.normal(0, 0.05, (m, m))
    diff = d - d.T
    half = np.abs(rng.normal(0.05, 0.02, (m, m)))
    half = (half + half.T) / 2
    pairs = PairwiseIntervals(diff, half, diff - half, diff + half, 1.0, 0.95, True, 1)
    low, high = rank_intervals(pairs)
    costs = rng.random(m)
    means = rng.random(m)
    for j in range(m):
        above_j = sum(1 for k in range(m) if k != j and diff[k, j] - half[k, j] > 0)
        below_j = sum(1 for k in range(m) if k != j and diff[j, k] - half[j, k] > 0)
        assert (low[j], high[j]) == (1 + above_j, m - below_j)
    names = tuple("ABCDEFG")
    frontier = [f.config for f in cost_frontier(pairs, names, means, costs)]
    brute = [
        names[j]
        for j in np.argsort(costs)
        if not any(k != j and costs[k] <= costs[j] and diff[k, j] - half[k, j] > 0 for k in range(m))
    ]
    assert frontier == brute


def test_rank_means_is_seeded_and_orders_configs() -> None:
    x = simulate_case_means(np.array([0.6, 0.7, 0.9, 0.65]), 200, seed=3)
    r1 = rank_means(x, ["a", "b", "c", "d"], seed=5, resamples=500)
    r2 = rank_means(x, ["a", "b", "c", "d"], seed=5, resamples=500)
    assert r1.configs == r2.configs and r1.could_be_best == r2.could_be_best == ("c",)
    assert r1.configs[0].config == "c"
    assert r1.configs[0].rank_low == r1.configs[0].rank_high == 1
    assert all(c.rank_low <= c.observed_rank <= c.rank_high for c in r1.configs)
    assert r1.tie_groups[0] == ("c",)
    assert rank_means(x, ["a", "b", "c", "d"], seed=6, resamples=500).pairs.critical != r1.pairs.critical


def test_a_pair_without_spread_is_never_a_point() -> None:
    """Regression (issue 53): a pair whose case differences were all equal got a zero-width interval, "resolved"
    on 3 cases. Now its width is the pseudo-case se's: 3 agreeing cases resolve nothing, 40 do."""
    x = np.array([[1.0, 0.0, 0.5], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    pairs = pairwise_intervals(x, bootstrap_means(x, 200, seed=0))
    assert pairs.se[0, 1] == 0.0 and pairs.low[0, 1] < 1.0 < pairs.high[0, 1]
    assert not pairs.above(0, 1)
    assert set(rank_means(x, ["A", "B", "C"], seed=0, resamples=200).could_be_best) == {"A", "B", "C"}
    x40 = np.tile(x, (14, 1))[:40]
    assert rank_means(x40, ["A", "B", "C"], seed=0, resamples=200).could_be_best == ("A",)
    empty = np.zeros((15, 4))  # nothing to resample: Bonferroni's critical value over the 6 pairs
    p0 = pairwise_intervals(empty, bootstrap_means(empty, 200, seed=0))
    want = stats.t.isf(stats.norm.sf(stats.norm.isf(0.05 / 12)), 14) * math.sqrt(15 / 14)
    assert p0.critical == pytest.approx(want) and p0.high[0, 1] == pytest.approx(want * math.sqrt(2 / (19 * 18)))


@pytest.mark.parametrize(("n", "repeats", "rate"), [(15, 1, 0.04), (15, 3, 0.04), (60, 1, 0.04)])
def test_simultaneous_coverage_holds_on_sparse_cases(n: int, repeats: int, rate: float) -> None:
    """Four configs 2 points apart near 0 (the old intervals: 0.10, 0.53, 0.77 here): all six true differences
    inside at once in >= 0.95 - 3 Monte Carlo errors of 200 runs."""
    truth = rate + np.array([-0.03, -0.01, 0.01, 0.03])
    true_diff = truth[:, None] - truth[None, :]
    rng = np.random.default_rng(n * 10 + repeats)
    runs, hits = 200, 0
    for _ in range(runs):
        x = simulate_case_means(truth, n, repeats, 0.5, rng)
        p = pairwise_intervals(x, bootstrap_means(x, 400, seed=rng))
        hits += bool(np.all((p.low <= true_diff + 1e-12) & (true_diff - 1e-12 <= p.high)))
    mc = math.sqrt(0.95 * 0.05 / runs)
    assert hits / runs >= 0.95 - 3 * mc, (hits / runs, mc)


def test_refusals_are_plain_sentences() -> None:
    with pytest.raises(DataError, match="at least two configs"):
        rank_means(np.ones((5, 1)), ["A"])
    with pytest.raises(DataError, match="between 0 and 1"):
        rank_means(np.full((5, 2), 2.0), ["A", "B"])
    with pytest.raises(DataError, match="at least one resample"):
        rank_means(np.ones((5, 2)), ["A", "B"], resamples=0)


def test_report_ships_the_cheapest_non_inferior_config() -> None:
    x = simulate_case_means(np.array([0.80, 0.795, 0.60]), 2000, seed=1)
    df = pd.DataFrame(x, columns=["big", "small", "tiny"]).assign(case=range(2000))
    table = parse_cases(df[["case", "big", "small", "tiny"]])
    rep = rank_report(table, seed=0, resamples=500, margin=0.04, costs={"big": 10.0, "small": 1.0, "tiny": 0.1})
    assert rep.ship == "small"
    assert rep.verdict.startswith("Ship small: the cheapest config not worse than")
    # tiny is cheapest (always on it); big is not resolvably above small, so both stay
    assert [f.config for f in rep.frontier or ()] == ["tiny", "small", "big"]
    assert rep.margin_tests[0].p_holm == pytest.approx(min(1.0, 2 * rep.margin_tests[0].test.p_non_inferior))
