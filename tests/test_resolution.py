"""Tests of nkcore.resolution against the chapter's numbers, scipy's binomial test, brute force and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from nkcore import resolution as rs
from nkcore.errors import DataError

# ---------------------------------------------------------------------------------------------- the chapter


def test_chapter_smallest_resolvable_difference() -> None:
    # "200 cases produce roughly twelve discordant pairs ... ten of them ... a net of eight cases, or four points"
    r = rs.min_resolvable_diff(200, 0.06)
    assert (r.discordant, r.critical_count, r.net_cases, r.min_diff) == (12, 10, 8, 0.04)
    assert r.expected_discordant == pytest.approx(12.0)


def test_chapter_cases_for_one_point() -> None:
    # "cutting it by a factor of four needs sixteen times as many cases: resolving 1pp ... roughly 3,200"
    p = rs.plan(200, 0.06, target_diff=0.01)
    assert p.cases_for_target_sqrt_law == 3200
    # the exact answer (first number of cases whose own critical count resolves 1 point) and Connor at 80%
    assert p.cases_for_target == 2600
    assert p.cases_for_target_at_power == math.ceil(rs.connor_cases(0.01, 0.06))
    assert 2000 < p.cases_for_target < 3200 < p.cases_for_target_at_power < 5000


def test_square_root_law() -> None:
    c = rs.resolution_curve(0.06, cases_min=200, cases_max=3200, points=5)
    assert c.cases == (200, 400, 800, 1600, 3200)
    assert c.sqrt_law_diff[0] / c.sqrt_law_diff[-1] == pytest.approx(4.0)
    assert c.mde_at_power[0] / c.mde_at_power[-1] == pytest.approx(4.0, rel=0.05)
    exact = np.array(c.min_resolvable_diff)
    assert np.all(np.diff(exact) < 0)
    # 16 times the cases: between a third and a fifth of the difference (discreteness at 200 cases)
    assert 3.0 < exact[0] / exact[-1] < 5.0
    frame = c.to_frame()
    assert list(frame.columns) == ["cases", "min_resolvable_diff", "sqrt_law_diff", "mde_at_power"]
    assert len(frame) == 5


# ---------------------------------------------------------------------------------------------- critical counts


@pytest.mark.parametrize("alpha", [0.1, 0.05, 0.01])
def test_critical_count_against_scipy_binomtest(alpha: float) -> None:
    for m in range(0, 81):
        expected = next((k for k in range(m // 2 + 1, m + 1) if stats.binomtest(k, m, 0.5).pvalue < alpha), None)
        assert rs.critical_count(m, alpha) == expected, m


def test_critical_count_for_large_m_against_scipy() -> None:
    m = np.array([500, 1001, 5000, 12345, 100_000])
    k = rs._critical_counts(m, 0.05)
    for mi, ki in zip(m, k, strict=True):
        assert 2 * stats.binom.sf(ki - 1, mi, 0.5) < 0.05 <= 2 * stats.binom.sf(ki - 2, mi, 0.5)


@pytest.mark.parametrize("alpha", [0.2, 0.05, 0.01, 0.001])
def test_berry_esseen_net_bound_holds(alpha: float) -> None:
    m = np.arange(1, 6001)
    k = rs._critical_counts(m, alpha)
    ok = k <= m
    assert np.all(rs._net_lower_bound(m[ok], alpha) <= (2 * k - m)[ok] + 1e-9)


def _brute_cases_for_target(t: float, d: float, alpha: float, n_max: int) -> int | None:
    """Independent: every n up to n_max, critical counts by scipy's binomial survival function."""
    n = np.arange(1, n_max + 1)
    m = np.floor(d * n + 0.5).astype(int)
    net = np.full(n.size, np.inf)
    for mi in np.unique(m[m > 0]):
        ks = np.arange(mi // 2 + 1, mi + 1)
        good = ks[2 * stats.binom.sf(ks - 1, mi, 0.5) < alpha]
        if good.size:
            net[m == mi] = 2 * good[0] - mi
    hit = np.flatnonzero(net / n <= t)
    return int(n[hit[0]]) if hit.size else None


@pytest.mark.parametrize(
    ("t", "d", "alpha"),
    [(0.01, 0.06, 0.05), (0.02, 0.1, 0.05), (0.05, 0.3, 0.01), (0.06, 0.06, 0.05), (0.015, 0.2, 0.1), (0.1, 0.5, 0.05)],
)
def test_cases_for_target_against_brute_force(t: float, d: float, alpha: float) -> None:
    got = rs.cases_for_target(t, d, alpha)
    n_max = int(3 * stats.norm.isf(alpha / 2) ** 2 * d / t**2) + 200  # three times the square-root-law answer
    assert got == _brute_cases_for_target(t, d, alpha, n_max)
    assert rs.min_resolvable_diff(got, d, alpha).min_diff <= t


def test_cases_for_tiny_targets_is_consistent_and_fast_enough() -> None:
    n = rs.cases_for_target(0.001, 0.5)
    assert rs.min_resolvable_diff(n, 0.5).min_diff <= 0.001
    assert all(rs.min_resolvable_diff(k, 0.5).min_diff > 0.001 for k in range(n - 300, n))
    assert n == pytest.approx(stats.norm.isf(0.025) ** 2 * 0.5 / 0.001**2, rel=0.01)


# ---------------------------------------------------------------------------------------------- power


@given(st.floats(0.01, 0.5), st.floats(0.05, 1.0), st.sampled_from([0.5, 0.8, 0.9]))
def test_connor_round_trip(d: float, share: float, power: float) -> None:
    delta = d * share
    n = rs.connor_cases(delta, d, 0.05, power)
    if n >= 1:
        # mde at the (unrounded) n gives delta back; rounding n up can only lower it
        assert rs.mde_at_power(math.ceil(n), d, 0.05, power) <= delta * (1 + 1e-9)


def test_connor_closed_form_value() -> None:
    z_a, z_b = stats.norm.isf(0.025), stats.norm.ppf(0.8)
    expected = (z_a * math.sqrt(0.06) + z_b * math.sqrt(0.06 - 0.01**2)) ** 2 / 0.01**2
    assert rs.connor_cases(0.01, 0.06) == pytest.approx(expected)
    assert round(expected) == 4707
    # power 0.5: Connor's MDE is the square-root law z sqrt(d / n)
    assert rs.mde_at_power(200, 0.06, 0.05, 0.5) == pytest.approx(z_a * math.sqrt(0.06 / 200))


@pytest.mark.parametrize(("n", "d"), [(1000, 0.1), (5000, 0.06), (2000, 0.3)])
def test_connor_is_checked_by_exact_power(n: int, d: float) -> None:
    mde = rs.mde_at_power(n, d)
    assert rs.exact_power(n, d, mde) == pytest.approx(0.8, abs=0.03)
    exact = rs.mde_at_power_exact(n, d)
    assert rs.exact_power(n, d, exact) >= 0.8
    assert rs.exact_power(n, d, exact - 1e-4) < 0.8
    assert exact == pytest.approx(mde, rel=0.05)


def test_exact_power_against_simulation_with_statsmodels() -> None:
    n, d, delta, sims = 300, 0.1, 0.05, 2000
    rng = np.random.default_rng(3)
    counts = rng.multinomial(n, [(d - delta) / 2, (d + delta) / 2, 1 - d], size=sims)
    rejects = sum(sm_mcnemar([[0, a], [b, 0]], exact=True).pvalue < 0.05 for a, b, _ in counts)
    p = rs.exact_power(n, d, delta)
    assert abs(rejects / sims - p) < 4 * math.sqrt(p * (1 - p) / sims)


def test_exact_power_at_zero_is_the_size_of_the_test() -> None:
    assert rs.exact_power(200, 0.06, 0.0) < 0.05
    assert rs.exact_power(200, 0.06, 0.06) > rs.exact_power(200, 0.06, 0.03)


def test_nothing_resolvable_with_too_few_discordant_cases() -> None:
    r = rs.min_resolvable_diff(50, 0.1)  # 5 discordant cases: even 5 of 5 gives p = 0.0625
    assert r.critical_count is None and math.isinf(r.min_diff)
    p = rs.plan(50, 0.1)
    assert "cannot resolve any difference" in rs.plan_sentences(p).min_resolvable
    assert math.isinf(rs.mde_at_power(20, 0.05))


# ---------------------------------------------------------------------------------------------- plan


def test_plan_sentences_state_the_numbers() -> None:
    s = rs.plan_sentences(rs.plan(200, 0.06, target_diff=0.01))
    assert s.min_resolvable.startswith("200 cases at 6% discordance give about 12 discordant cases; 10 of them")
    assert "a net of 8 cases = 4.0 points" in s.min_resolvable
    assert "4.8 points" in s.mde and "Connor" in s.mde
    assert "2,600" in s.target and "3,200" in s.target and "4,707" in s.target
    assert rs.plan_sentences(rs.plan(200, 0.06)).target is None


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"cases": 0, "discordance": 0.06}, "whole number of at least 1"),
        ({"cases": 200, "discordance": 6}, r"0.06 for 6%"),
        ({"cases": 200, "discordance": 0.0}, "above 0"),
        ({"cases": 200, "discordance": 0.06, "alpha": 1.5}, "alpha"),
        ({"cases": 200, "discordance": 0.06, "power": 0.3}, "power"),
        ({"cases": 200, "discordance": 0.06, "target_diff": 0.1}, "never differ by more than"),
        ({"cases": 200, "discordance": 0.06, "target_diff": -0.01}, "target difference"),
    ],
)
def test_plan_input_errors(kwargs: dict, words: str) -> None:
    with pytest.raises(DataError, match=words):
        rs.plan(**kwargs)


# ---------------------------------------------------------------------------------------------- label error


def test_label_error_floor_of_the_chapter() -> None:
    f = rs.label_error_floor(0.03)
    assert f.best_measurable_accuracy == pytest.approx(0.97)  # "a perfect system scores 97%"
    assert f.noise_floor_diff == pytest.approx(0.03)
    assert "97.0%" in rs.label_error_sentence(f)
    with pytest.raises(DataError):
        rs.label_error_floor(1.2)


@given(st.floats(0.0, 0.49))
def test_label_error_inverse_round_trip(e: float) -> None:
    q = 2 * e * (1 - e)
    assert rs._invert_disagreement(q, "binary") == pytest.approx(e, abs=1e-9)
    q2 = 1 - (1 - e) ** 2
    assert rs._invert_disagreement(q2, "distinct") == pytest.approx(e, abs=1e-9)


def test_label_error_estimate_and_its_interval_cover_in_simulation() -> None:
    e, m, sims = 0.04, 500, 400
    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(sims):
        wrong1 = rng.random(m) < e
        wrong2 = rng.random(m) < e
        d = int(np.count_nonzero(wrong1 != wrong2))  # binary labels: disagree when exactly one is wrong
        est = rs.estimate_label_error(m, d)
        covered += est.ci_low <= e <= est.ci_high
    assert covered / sims >= 0.93  # Clopper-Pearson mapped through a monotone function: at least nominal


def test_label_error_estimate_values_and_errors() -> None:
    r = rs.estimate_label_error(1000, 58)
    assert r.error_rate == pytest.approx((1 - math.sqrt(1 - 2 * 0.058)) / 2)
    assert r.ci_low < r.error_rate < r.ci_high
    assert "assuming two independent labellings" in rs.label_estimate_sentence(r)
    assert rs.estimate_label_error(100, 0).ci_low == 0.0
    assert rs.estimate_label_error(100, 80).error_rate == 0.5  # beyond the binary model: labels are coin flips
    assert rs.estimate_label_error(100, 19, model="distinct").error_rate == pytest.approx(1 - math.sqrt(0.81))
    with pytest.raises(DataError, match="from 0 to 10"):
        rs.estimate_label_error(10, 11)
    with pytest.raises(DataError, match="model"):
        rs.estimate_label_error(10, 1, model="other")
