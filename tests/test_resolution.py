"""Tests of nkcore.resolution against the chapter's numbers, scipy's binomial test, brute force and simulation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize, stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint

from nkcore import resolution as rs
from nkcore.errors import DataError
from nkcore.resolution.cases import net_lower_bound, net_upper_slope
from nkcore.resolution.label_error import invert_disagreement

# ---------------------------------------------------------------------------------------------- the chapter


def test_chapter_smallest_resolvable_difference() -> None:
    # "200 cases produce roughly twelve discordant pairs ... ten of them ... a net of eight cases, or four points"
    r = rs.min_resolvable_diff(200, 0.06)
    assert (r.discordant, r.critical_count, r.net_cases, r.min_diff) == (12, 10, 8, 0.04)
    assert r.expected_discordant == pytest.approx(12.0)


def test_chapter_cases_for_one_point() -> None:
    # "cutting it by a factor of four needs sixteen times as many cases: resolving 1pp ... roughly 3,200"
    p = rs.plan(200, 0.06, target_diff=0.01)
    assert p.cases_for_target_sqrt_law == 200 * 4**2 == 3200
    # the exact answers, each checked by brute force elsewhere: first at 2,600, for good from 2,800
    assert (p.cases_for_target, p.cases_for_target_stable) == (2600, 2800)
    assert p.cases_for_target_at_power == math.ceil(rs.connor_cases(0.01, 0.06))
    assert p.cases_for_target is not None and p.cases_for_target_stable is not None
    assert p.cases_for_target_sqrt_law is not None and p.cases_for_target_at_power is not None
    assert p.cases_for_target_at_power_exact is not None
    assert p.cases_for_target < p.cases_for_target_stable < p.cases_for_target_sqrt_law < p.cases_for_target_at_power
    assert p.cases_for_target_at_power < p.cases_for_target_at_power_exact  # the exact conditional test is conservative


def test_rounding_of_expected_discordant_cases() -> None:
    # halves round up, also when floating point puts the product just below the half: 0.145 x 100 = 14.4999...
    assert 0.145 * 100 < 14.5
    cases = [(200, 0.06, 12), (200, 0.0625, 13), (100, 0.145, 15), (1500, 0.009, 14), (300, 0.035, 11), (201, 0.06, 12)]
    for n, d, m in cases:
        r = rs.min_resolvable_diff(n, d)
        assert (r.discordant, r.expected_discordant) == (m, pytest.approx(n * d)), (n, d)
    s = rs.plan_sentences(rs.plan(200, 0.0625)).min_resolvable
    assert s.startswith("200 cases at 6.25% discordance give 12.50 discordant cases on average, about 13 (rounded")


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
    k = rs.critical_counts(m, 0.05)
    for mi, ki in zip(m, k, strict=True):
        assert 2 * stats.binom.sf(ki - 1, mi, 0.5) < 0.05 <= 2 * stats.binom.sf(ki - 2, mi, 0.5)


@pytest.mark.parametrize("alpha", [0.2, 0.05, 0.01, 0.001])
def test_berry_esseen_net_bound_holds(alpha: float) -> None:
    m = np.arange(1, 6001)
    k = rs.critical_counts(m, alpha)
    ok = k <= m
    assert np.all(net_lower_bound(m[ok], alpha) <= (2 * k - m)[ok] + 1e-9)


def _brute_cases_for_target(t: float, d: float, alpha: float, n_max: int) -> tuple[int, int]:
    """Independent: every n up to n_max (m = n d rounded half up with Fraction arithmetic), critical counts by
    scipy's binomial test; the first n that resolves t and one past the last n that does not."""
    n = np.arange(1, n_max + 1)
    dd = Fraction(str(d))
    m = np.array([math.floor(dd * int(k) + Fraction(1, 2)) for k in n])
    net = np.full(n.size, np.inf)
    for mi in np.unique(m[m > 0]):
        ks = np.arange(mi // 2 + 1, mi + 1)
        good = ks[2 * stats.binom.sf(ks - 1, mi, 0.5) < alpha]
        if good.size:
            net[m == mi] = 2 * good[0] - mi
    ok = net / n <= t
    assert ok[-n_max // 3 :].all(), "n_max too small to see the end of the zigzag"
    return int(n[np.argmax(ok)]), int(n[np.flatnonzero(~ok)[-1]] + 1)


@pytest.mark.parametrize(
    ("t", "d", "alpha"),
    [
        (0.01, 0.06, 0.05),
        (0.02, 0.1, 0.05),
        (0.05, 0.3, 0.01),
        (0.06, 0.06, 0.05),
        (0.015, 0.2, 0.1),
        (0.1, 0.5, 0.05),
        (0.5, 1.0, 0.05),
        (0.03, 0.145, 0.05),
    ],
)
def test_cases_for_target_against_brute_force(t: float, d: float, alpha: float) -> None:
    got = rs.cases_for_target(t, d, alpha)
    n_max = int(3 * stats.norm.isf(alpha / 2) ** 2 * d / t**2) + 200  # three times the square-root-law answer
    assert (got, rs.cases_for_target_stable(t, d, alpha)) == _brute_cases_for_target(t, d, alpha, n_max)
    assert got is not None
    assert rs.min_resolvable_diff(got, d, alpha).min_diff <= t


def test_cases_for_tiny_targets_is_consistent_and_fast_enough() -> None:
    n = rs.cases_for_target(0.001, 0.5)
    assert n is not None
    assert rs.min_resolvable_diff(n, 0.5).min_diff <= 0.001
    assert all(rs.min_resolvable_diff(k, 0.5).min_diff > 0.001 for k in range(n - 300, n))
    assert n == pytest.approx(stats.norm.isf(0.025) ** 2 * 0.5 / 0.001**2, rel=0.01)
    stable = rs.cases_for_target_stable(0.001, 0.5)
    assert stable is not None
    assert rs.min_resolvable_diff(stable - 1, 0.5).min_diff > 0.001
    assert all(rs.min_resolvable_diff(k, 0.5).min_diff <= 0.001 for k in range(stable, stable + 3000, 7))


@pytest.mark.parametrize("alpha", [0.2, 0.05, 0.01, 0.001])
def test_upper_net_bound_holds(alpha: float) -> None:
    m = np.arange(1, 6001)
    k = rs.critical_counts(m, alpha)
    ok = k <= m
    for start in (1, 50, 400, 2000):
        sel = ok & (m >= start)
        bound = net_upper_slope(start, alpha) * np.sqrt(m[sel]) + 4
        assert np.all((2 * k - m)[sel] <= bound)


@given(st.integers(1, 3_000_000), st.sampled_from([0.2, 0.1, 0.05, 0.01, 0.001, 1e-6]))
def test_critical_counts_against_scipy_for_any_m(m: int, alpha: float) -> None:
    k = int(rs.critical_counts(np.array([m]), alpha)[0])
    if k <= m:
        assert 2 * stats.binom.sf(k - 1, m, 0.5) < alpha
    assert k - 1 <= m // 2 or 2 * stats.binom.sf(k - 2, m, 0.5) >= alpha


# ---------------------------------------------------------------------------------------------- power


@given(st.floats(0.01, 0.5), st.floats(0.05, 1.0), st.sampled_from([0.5, 0.8, 0.9]))
def test_connor_round_trip(d: float, share: float, power: float) -> None:
    delta = d * share
    n = rs.connor_cases(delta, d, 0.05, power)
    if n >= 1:
        # mde at the (unrounded) n gives delta back; rounding n up can only lower it
        assert rs.mde_at_power(math.ceil(n), d, 0.05, power) <= delta * (1 + 1e-9)


def test_connor_published_example() -> None:
    # Connor (1987) p. 209 as implemented in R (pwr_mcnemar; powerandsamplesize.com's McNemar Z-test, 2-sided):
    # p10 = 0.05, p01 = 0.45 (discordance 0.5, difference 0.4), alpha = 0.05, power 0.8 -> ceiling(n) = 23
    assert math.ceil(rs.connor_cases(0.40, 0.50, 0.05, 0.8)) == 23
    assert rs.connor_cases(-0.40, 0.50) == rs.connor_cases(0.40, 0.50)  # the sign of the difference does not matter
    # power 0.5: Connor's MDE is the square-root law z sqrt(d / n)
    z_a = stats.norm.isf(0.025)
    assert rs.mde_at_power(200, 0.06, 0.05, 0.5) == pytest.approx(z_a * math.sqrt(0.06 / 200))


def test_connor_power_formula_at_its_own_sample_size() -> None:
    # the published power formula, Phi(x1) + Phi(x2), x = (+-delta sqrt(n) - z sqrt(psi)) / sqrt(psi - delta^2),
    # is the inverse of the sample size formula: at n = connor_cases it gives the power asked for
    psi, delta, z = 0.06, 0.01, stats.norm.isf(0.025)
    n = rs.connor_cases(delta, psi, 0.05, 0.8)
    s = math.sqrt(psi - delta**2)
    power = stats.norm.cdf((delta * math.sqrt(n) - z * math.sqrt(psi)) / s) + stats.norm.cdf(
        (-delta * math.sqrt(n) - z * math.sqrt(psi)) / s
    )
    assert power == pytest.approx(0.8, abs=1e-6)


@pytest.mark.parametrize(("n", "d"), [(1000, 0.1), (5000, 0.06), (2000, 0.3)])
def test_connor_is_checked_by_exact_power(n: int, d: float) -> None:
    mde = rs.mde_at_power(n, d)
    assert rs.exact_power(n, d, mde) == pytest.approx(0.8, abs=0.03)
    exact = rs.mde_at_power_exact(n, d)
    assert rs.exact_power(n, d, exact) >= 0.8
    assert rs.exact_power(n, d, exact - 1e-4) < 0.8
    assert exact == pytest.approx(mde, rel=0.05)


@pytest.mark.parametrize(
    ("n", "d", "delta", "alpha"), [(12, 0.5, 0.25, 0.05), (25, 0.3, 0.1, 0.05), (30, 1.0, 0.4, 0.1)]
)
def test_exact_power_against_brute_force_enumeration(n: int, d: float, delta: float, alpha: float) -> None:
    """Every (A*, B*) of Multinomial(n, ((d - delta)/2, (d + delta)/2, 1 - d)) with its probability, rejected
    when scipy's two-sided binomial test of B* of A* + B* has p < alpha."""
    qa, qb = (d - delta) / 2, (d + delta) / 2
    power = 0.0
    for a in range(n + 1):
        for b in range(n + 1 - a):
            w = stats.multinomial.pmf([a, b, n - a - b], n, [qa, qb, 1 - qa - qb])
            if a + b > 0 and stats.binomtest(b, a + b, 0.5).pvalue < alpha:
                power += w
    assert rs.exact_power(n, d, delta, alpha) == pytest.approx(power, abs=1e-12)


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


@pytest.mark.parametrize(("t", "d", "power"), [(0.01, 0.06, 0.8), (0.05, 0.2, 0.9), (0.3, 0.5, 0.8), (0.5, 1.0, 0.5)])
def test_cases_for_power_exact_is_the_first_n_reaching_the_power(t: float, d: float, power: float) -> None:
    n = rs.cases_for_power_exact(t, d, 0.05, power)
    assert n is not None
    assert rs.exact_power(n, d, t) >= power > rs.exact_power(n - 1, d, t) if n > 1 else True
    assert all(rs.exact_power(k, d, t) < power for k in range(max(1, n - 40), n))


def test_large_inputs_are_refused_and_large_answers_allowed() -> None:
    with pytest.raises(DataError, match="at most 10,000,000"):
        rs.plan(10_000_001, 0.06)
    assert (rs.cases_for_target(0.0001, 0.06) or 0) > rs.MAX_CASES
    p = rs.plan(200, 0.06, target_diff=0.0001)
    assert p.cases_for_target_at_power_exact is None and (p.cases_for_target_at_power or 0) > rs.MAX_CASES
    assert "the exact check is skipped above 10,000,000 cases" in (rs.plan_sentences(p).target or "")


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
    assert s.mde == (
        "To detect a true difference 80% of the time it must be at least 4.8 points (Connor's formula; the exact "
        "power at 4.8 points is 78%, and the exact minimum is 4.9 points)."
    )
    assert "z x sqrt(discordance / cases) = 1.96 x sqrt(0.06 / 200) = 3.4 points (z = 1.96" in s.sqrt_law
    assert s.target == (
        "Resolving 1.0 points (an observed difference that large reaching p < 0.05) first becomes possible at 2,600 "
        "cases by the exact critical count, and for every larger evaluation from 2,800 cases on (in between, whole "
        "numbers of discordant cases make the threshold zigzag). The chapter's rule of thumb, today's 4.0 points "
        "scaled by the square-root law, gives 200 x (4.0 / 1.0)^2 = 3,200. Detecting a true difference of 1.0 points "
        "80% of the time takes about 4,707 cases by Connor's formula, 4,876 by the exact power."
    )
    assert rs.plan_sentences(rs.plan(200, 0.06)).target is None


def test_plan_sentences_for_tiny_evaluations() -> None:
    s = rs.plan_sentences(rs.plan(1, 0.06))
    assert s.min_resolvable.startswith("1 case at 6% discordance gives 0.06 discordant cases on average, about 0")
    assert "cannot resolve any difference" in s.min_resolvable
    assert s.mde == "No difference can be detected 80% of the time with 1 case at 6% discordance."
    assert "1.96 x sqrt(0.06 / 1) = 48.0 points" in s.sqrt_law
    assert "= more than 100 points, i.e. nothing" in rs.plan_sentences(rs.plan(1, 1.0)).sqrt_law


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"cases": 0, "discordance": 0.06}, "whole number of at least 1"),
        ({"cases": 200, "discordance": 6}, r"0.06 for 6%"),
        ({"cases": 200, "discordance": 0.0}, "above 0"),
        ({"cases": 200, "discordance": 0.06, "significance": 1.5}, "alpha"),
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
    assert invert_disagreement(q, "binary") == pytest.approx(e, abs=1e-9)
    q2 = 1 - (1 - e) ** 2
    assert invert_disagreement(q2, "distinct") == pytest.approx(e, abs=1e-9)


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
    # oracles: solve 2e(1 - e) = q numerically; the interval maps statsmodels' Clopper-Pearson interval of q
    e_of = lambda q: optimize.brentq(lambda e: 2 * e * (1 - e) - q, 0.0, 0.5)  # noqa: E731
    assert r.error_rate == pytest.approx(e_of(0.058), abs=1e-12)
    q_lo, q_hi = proportion_confint(58, 1000, alpha=0.05, method="beta")
    assert (r.ci_low, r.ci_high) == (pytest.approx(e_of(q_lo), abs=1e-10), pytest.approx(e_of(q_hi), abs=1e-10))
    assert "assuming two independent labellings" in rs.label_estimate_sentence(r)
    assert rs.estimate_label_error(100, 0).ci_low == 0.0
    assert rs.estimate_label_error(100, 80).error_rate == 0.5  # beyond the binary model: labels are coin flips
    assert rs.estimate_label_error(100, 19, model="distinct").error_rate == pytest.approx(1 - math.sqrt(0.81))
    with pytest.raises(DataError, match="from 0 to 10"):
        rs.estimate_label_error(10, 11)
    with pytest.raises(DataError, match="model"):
        rs.estimate_label_error(10, 1, model="other")


def test_measured_discordance_reads_with_one_decimal() -> None:
    """A discordance read from data (1,514 cases, 0.130284) reads 13.0%, never 13.0284%."""
    from nkcore.resolution.sentences import cases_answer

    p = rs.plan(1514, 0.130284, target_diff=0.01)
    s = rs.plan_sentences(p)
    assert "1,514 cases at 13.0% discordance" in s.min_resolvable and "13.0284" not in s.min_resolvable
    assert "sqrt(0.1303 / 1,514)" in s.sqrt_law
    a = cases_answer(p)
    assert a is not None and a.cases == p.cases_for_target_at_power_exact
    assert a.headline.startswith(
        f"To detect a true difference of 1.0 points 80% of the time (p < 0.05), you need {a.cases:,}"
    )
    assert [m.cases for m in a.methods][2:] == [
        p.cases_for_target,
        p.cases_for_target_stable,
        p.cases_for_target_sqrt_law,
    ]
