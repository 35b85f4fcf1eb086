"""Tests of nkcore.paired.bootstrap: the exact paired bootstrap against brute-force enumeration, a multinomial sum,
an independent binomial-mixture cdf (up to 1,000,000 cases) and Monte Carlo resampling of cases."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import stats

from nkcore import paired as pr
from nkcore.errors import DataError
from nkcore.paired.bootstrap import difference_pmf
from tests.test_paired import mixture_cdf, worked_table


def _brute_quantiles(a: int, b: int, n: int, level: float = 0.95) -> tuple[Fraction, Fraction]:
    """Enumerate (A*, B*, rest*) ~ Multinomial(n, (a, b, n-a-b)/n) in exact rational arithmetic."""
    pmf: dict[int, Fraction] = {}
    q0 = n - a - b
    for i in range(n + 1):
        for j in range(n + 1 - i):
            w = Fraction(math.comb(n, i) * math.comb(n - i, j) * a**i * b**j * q0 ** (n - i - j), n**n)
            pmf[j - i] = pmf.get(j - i, Fraction(0)) + w
    q_lo = Fraction(1) - Fraction(level).limit_denominator(1000)
    q_lo /= 2
    cdf = Fraction(0)
    low = high = None
    for d in sorted(pmf):
        cdf += pmf[d]
        assume(cdf != q_lo and cdf != 1 - q_lo)  # a discrete tie: the chapter's reading is ambiguous there
        if low is None and cdf > q_lo:
            low = d
        if high is None and cdf > 1 - q_lo:
            high = d
    assert low is not None and high is not None
    return Fraction(low, n), Fraction(high, n)


@given(st.integers(1, 30).flatmap(lambda n: st.tuples(st.integers(0, n), st.integers(0, n), st.just(n))))
def test_exact_bootstrap_matches_brute_force_enumeration(abn: tuple[int, int, int]) -> None:
    a, b, n = abn
    assume(a + b <= n and a + b > 0)
    low, high = _brute_quantiles(a, b, n)
    r = pr.exact_paired_bootstrap(a, b, n)
    assert r.low == pytest.approx(float(low), abs=1e-12)
    assert r.high == pytest.approx(float(high), abs=1e-12)


@pytest.mark.parametrize(("a", "b", "n"), [(7, 13, 25), (12, 26, 200), (60, 90, 700), (0, 5, 40), (30, 0, 30)])
def test_difference_pmf_matches_multinomial_sum(a: int, b: int, n: int) -> None:
    """pmf of D = B* - A* as sum over A* of multinomial probabilities (scipy), against the FFT."""
    lo, pmf = difference_pmf(a, b, n)
    qa, qb = a / n, b / n
    ref = np.zeros(2 * n + 1)
    for i in range(n + 1):
        j = np.arange(0, n - i + 1)
        w = stats.binom.pmf(i, n, qa) * stats.binom.pmf(j, n - i, qb / (1 - qa) if qa < 1 else 0.0)
        np.add.at(ref, j - i + n, w)
    got = np.zeros(2 * n + 1)
    d = lo + np.arange(pmf.size)
    inside = (d >= -n) & (d <= n)
    got[d[inside] + n] = pmf[inside]
    assert np.max(np.abs(got - ref)) < 1e-12
    assert pmf[~inside].sum() < 1e-12


@pytest.mark.parametrize(("a", "b", "n"), [(12, 26, 200), (5, 7, 200), (30, 45, 500)])
def test_exact_bootstrap_agrees_with_200000_monte_carlo_resamples(a: int, b: int, n: int) -> None:
    """Monte Carlo resampling of cases within its noise: the exact cdf at the MC quantiles brackets q +- 4 se."""
    table = pr.paired_table_from_counts("A", "B", n - a - b, a, b, 0)
    reps = 200_000
    mc = pr.paired_bootstrap_mc(table.column("A"), table.column("B"), reps=reps, seed=20240601)
    exact = pr.exact_paired_bootstrap(a, b, n)
    lo, pmf = difference_pmf(a, b, n)
    cdf = np.cumsum(pmf)

    def cdf_at(d: int) -> float:
        i = d - lo
        return 0.0 if i < 0 else float(cdf[min(i, cdf.size - 1)])

    for q, mc_value, ex_value in ((0.025, mc.low, exact.low), (0.975, mc.high, exact.high)):
        se = math.sqrt(q * (1 - q) / reps)
        d = round(mc_value * n)
        # the MC order statistic d means about a share q of resamples lie below d and q or more at or below it
        assert cdf_at(d - 1) <= q + 4 * se
        assert cdf_at(d) >= q - 4 * se
        assert abs(mc_value - ex_value) <= 1 / n + 1e-12


def test_monte_carlo_is_reproducible_and_resamples_cases() -> None:
    t = worked_table()
    r1 = pr.paired_bootstrap_mc(t.column("n=1"), t.column("n=3"), reps=5000, seed=7)
    r2 = pr.paired_bootstrap_mc(t.column("n=1"), t.column("n=3"), reps=5000, seed=np.random.default_rng(7))
    assert r1 == r2
    assert r1.method == "monte-carlo" and r1.reps == 5000
    with pytest.raises(DataError, match="same"):
        pr.paired_bootstrap_mc(np.ones(3, bool), np.ones(4, bool))


@pytest.mark.parametrize(
    ("a", "b"), [(60_000, 130_000), (20_000, 40_000), (3, 500_000), (0, 1_000), (499_000, 501_000), (499_999, 500_000)]
)
def test_exact_bootstrap_at_a_million_cases_against_the_binomial_mixture(a: int, b: int) -> None:
    """FFT accuracy at 1,000,000 cases, including nearly every case discordant (phi has modulus ~1 near t = pi)."""
    n = 1_000_000
    lo, pmf = difference_pmf(a, b, n)
    cdf = np.maximum.accumulate(np.cumsum(pmf))
    r = pr.exact_paired_bootstrap(a, b, n)
    d_lo, d_hi = round(r.low * n), round(r.high * n)
    d = np.unique(np.r_[d_lo - 2 : d_lo + 2, d_hi - 2 : d_hi + 2, np.linspace(lo, lo + pmf.size - 1, 12).astype(int)])
    d = d[(d >= lo) & (d < lo + pmf.size)]
    ref = mixture_cdf(a, b, n, d)
    assert np.max(np.abs(cdf[d - lo] - ref)) < 1e-12
    # the quantiles: F(low - 1) <= 0.025 < F(low) and F(high - 1) <= 0.975 < F(high), by the oracle
    f = mixture_cdf(a, b, n, [d_lo - 1, d_lo, d_hi - 1, d_hi])
    assert f[0] <= 0.025 < f[1] and f[2] <= 0.975 < f[3]


def test_all_discordant_at_a_million_cases_against_the_binomial() -> None:
    # no concordant case: D = 2 B* - n with B* ~ Binomial(n, b/n), one parity only
    a, b, n = 300_000, 700_000, 1_000_000
    lo, pmf = difference_pmf(a, b, n)
    d = lo + np.arange(pmf.size)
    ref = stats.binom.cdf(np.floor((d + n) / 2), n, b / n)
    assert np.max(np.abs(np.cumsum(pmf) - ref)) < 1e-12
    assert np.all(pmf[(d + n) % 2 == 1] == 0.0)


@given(st.integers(1, 3000).flatmap(lambda n: st.tuples(st.integers(0, n), st.integers(0, n), st.just(n))))
def test_exact_bootstrap_is_antisymmetric_and_brackets_the_difference(abn: tuple[int, int, int]) -> None:
    a, b, n = abn
    assume(a + b <= n)
    r = pr.exact_paired_bootstrap(a, b, n)
    s = pr.exact_paired_bootstrap(b, a, n)
    assert r.low <= (b - a) / n <= r.high
    assert abs(s.low + r.high) <= 1 / n + 1e-12 and abs(s.high + r.low) <= 1 / n + 1e-12


def test_exact_bootstrap_degenerate_and_bad_input() -> None:
    assert pr.exact_paired_bootstrap(0, 0, 50) == pr.BootstrapInterval(0.0, 0.0, 0.95, "exact", None)
    r = pr.exact_paired_bootstrap(0, 10, 10)  # every case discordant, all one way: D = 10 always
    assert (r.low, r.high) == (1.0, 1.0)
    with pytest.raises(DataError, match="n_cases"):
        pr.exact_paired_bootstrap(6, 6, 10)
    with pytest.raises(DataError, match="level"):
        pr.exact_paired_bootstrap(1, 2, 10, confidence=1.5)

    with pytest.raises(DataError, match="n_cases"):
        difference_pmf(6, 6, 10)
    with pytest.raises(DataError, match="discordant counts"):
        difference_pmf(-1, 2, 10)


@pytest.mark.parametrize("seed", [-1, 1.5, True])
def test_monte_carlo_seed_must_be_a_non_negative_integer(seed: object) -> None:
    with pytest.raises(DataError, match="seed must be a non-negative integer"):
        pr.paired_bootstrap_mc(np.ones(3, bool), np.zeros(3, bool), seed=seed)  # type: ignore[arg-type]


# ------------------------------------------------------------------ where the interval holds (issue 53)


def _worst_conditional_coverage(m: int, n: int) -> float:
    """min over theta = 0, 0.001, ..., 1 of P(interval covers m (2 theta - 1) / n | m discordant cases), with B's wins
    ~ Binomial(m, theta): exact, by enumerating the m + 1 splits."""
    theta = np.arange(1001) / 1000
    boots = [pr.exact_paired_bootstrap(m - b, b, n) for b in range(m + 1)]
    ends = np.array([(r.low, r.high) for r in boots])
    truth = m / n * (2 * theta - 1)
    pmf = stats.binom.pmf(np.arange(m + 1)[:, None], m, theta[None, :])
    inside = (ends[:, :1] - 1e-12 <= truth) & (truth <= ends[:, 1:] + 1e-12)
    return float((pmf * inside).sum(axis=0).min())


def test_the_bootstrap_interval_is_flagged_where_it_covers_less_than_093() -> None:
    n = 500
    for m in (1, 2, 4, 9, 20):  # worst coverage 0.50, 0.75, 0.83, 0.90, 0.92
        assert _worst_conditional_coverage(m, n) < 0.93
        assert not pr.interval_reliable(m, n - m) and pr.interval_caution(m, n - m) is not None
    for m in (25, 30, 40):
        assert _worst_conditional_coverage(m, n) >= 0.93
        assert pr.interval_reliable(m, n - m) and pr.interval_caution(m, n - m) is None
    # nearly every case discordant: the interval narrows to nothing at theta = 1 (e.g. 15 of 15 cases)
    assert _worst_conditional_coverage(15, 15) < 0.1 and not pr.interval_reliable(30, 5)


def test_comparisons_carry_the_flag() -> None:
    few = pr.compare_pair(pr.paired_table_from_counts("A", "B", 150, 3, 9, 38), "A", "B")
    many = pr.compare_pair(worked_table(), "n=1", "n=3")
    assert (few.discordant, few.interval_reliable, many.discordant, many.interval_reliable) == (12, False, 38, True)
