"""nkcore.sequential: the mixture SPRT and its confidence sequence against quadrature and root finding, the
empirical-Bernstein sequence against its defining supermartingales, Monitor against the whole-run arrays, and the
null simulation (fast profile: the long one is benchmarks/bench_sequential.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats
from scipy.special import betaln

from nkcore.errors import DataError
from nkcore.sequential import (
    PRIOR,
    Monitor,
    beta_mixture_bounds,
    binary_path,
    e_value_region,
    log_e_value,
    mcnemar_critical,
    scores_path,
    simulate,
)
from nkcore.sequential.bounded import BET_CAP


@pytest.mark.parametrize(("k", "m"), [(0, 1), (3, 10), (26, 38), (90, 200), (7, 7)])
def test_e_value_is_the_beta_mixture_likelihood_ratio_by_quadrature(k: int, m: int) -> None:
    pdf = stats.beta(PRIOR, PRIOR).pdf
    mix, _ = integrate.quad(lambda t: t**k * (1 - t) ** (m - k) * pdf(t), 0, 1, epsabs=0, epsrel=1e-11, limit=200)
    assert float(log_e_value(k, m)) == pytest.approx(math.log(mix / 0.5**m), rel=1e-8, abs=1e-9)


def test_confidence_sequence_ends_are_the_roots_and_exclude_half_exactly_when_e_reaches_one_over_alpha() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = int(rng.integers(1, 400))
        k = int(rng.integers(0, m + 1))
        alpha = float(rng.choice([0.01, 0.05, 0.1]))
        lo, hi = (float(x[0]) for x in beta_mixture_bounds(np.array([k]), np.array([m]), alpha))
        c = betaln(PRIOR + k, PRIOR + m - k) - betaln(PRIOR, PRIOR) - math.log(1 / alpha)

        def f(t: float, k: int = k, m: int = m, c: float = c) -> float:
            return k * math.log(t) + (m - k) * math.log1p(-t) - c

        mle = min(max(k / m, 1e-300), 1 - 1e-16)
        want_lo = 0.0 if k == 0 else optimize.brentq(f, 1e-300, mle, xtol=1e-15)
        want_hi = 1.0 if k == m else optimize.brentq(f, mle, 1 - 1e-16, xtol=1e-15)
        assert lo == pytest.approx(want_lo, abs=1e-9) and hi == pytest.approx(want_hi, abs=1e-9)
        excluded = not (lo < 0.5 < hi)
        assert excluded == (float(log_e_value(k, m)) >= math.log(1 / alpha)), (k, m, alpha)


def test_monitor_matches_the_whole_run_arrays_for_binary_cases() -> None:
    rng = np.random.default_rng(5)
    for theta, disc in ((0.5, 0.3), (0.7, 0.1), (0.3, 0.5)):
        n = 1500
        d = rng.random(n) < disc
        bwin = rng.random(n) < theta
        a = (~d & (rng.random(n) < 0.6)) | (d & ~bwin)
        b = (~d & a) | (d & bwin)
        path = binary_path(a, b, 0.05)
        mon = Monitor(0.05)
        for i in range(n):
            s = mon.update(int(a[i]), int(b[i]))
            assert s.anytime_p == pytest.approx(path.anytime_p[i], rel=1e-9, abs=1e-12)
            assert s.low == pytest.approx(path.low[i], abs=1e-9) and s.high == pytest.approx(path.high[i], abs=1e-9)
            assert s.diff == pytest.approx(path.diff[i], abs=1e-12)
        assert (s.decided_at, s.winner) == (path.decided_at, path.winner)
        assert s.low <= s.high  # the band, a running intersection, never inverts


def test_monitor_matches_the_whole_run_arrays_for_repeats() -> None:
    rng = np.random.default_rng(6)
    n = 1200
    p = rng.beta(2, 2, n)
    a_rep = rng.binomial(1, p[:, None], (n, 3))
    b_rep = rng.binomial(1, np.clip(p + 0.1, 0, 1)[:, None], (n, 3))
    path = scores_path(b_rep.mean(1) - a_rep.mean(1), 0.05)
    mon = Monitor(0.05)
    for i in range(n):
        s = mon.update(a_rep[i].tolist(), b_rep[i].tolist())
        assert s.anytime_p == pytest.approx(path.anytime_p[i], rel=1e-9, abs=1e-12)
        assert s.low == pytest.approx(path.low[i], abs=1e-9) and s.high == pytest.approx(path.high[i], abs=1e-9)
    assert s.kind == "scores" and (s.decided_at, s.winner) == (path.decided_at, path.winner)
    assert path.decided_at is not None and path.winner == "b"


def test_bernstein_sequence_is_the_set_where_both_supermartingales_stay_below_two_over_alpha() -> None:
    """Oracle: M^+-(m) written out literally (one loop over cases, for each candidate mean m)."""
    rng = np.random.default_rng(8)
    x = (rng.choice([-1, -1 / 3, 0, 1 / 3, 2 / 3], size=60) + 1) / 2
    alpha = 0.05
    big_l = math.log(2 / alpha)
    path = scores_path(2 * x - 1, alpha)
    grid = np.linspace(0.001, 0.999, 999)
    inside_any = np.ones_like(grid, bool)
    for t_end in (10, 30, 60):
        sig2, mu, lp, lm, sx, ssq = 0.25, 0.5, np.zeros_like(grid), np.zeros_like(grid), 0.0, 0.0
        for t in range(1, t_end + 1):
            xi = x[t - 1]
            lam = min(math.sqrt(2 * big_l / (sig2 * t * math.log(1 + t))), BET_CAP)
            pen = 4 * (xi - mu) ** 2 * (-math.log(1 - lam) - lam) / 4
            lp += lam * (xi - grid) - pen
            lm += -lam * (xi - grid) - pen
            sx += xi
            mu = (0.5 + sx) / (t + 1)
            ssq += (xi - mu) ** 2
            sig2 = (0.25 + ssq) / (t + 1)
            inside_any &= (lp < big_l) & (lm < big_l)
        lo, hi = (path.low[t_end - 1] + 1) / 2, (path.high[t_end - 1] + 1) / 2
        assert grid[inside_any].min() == pytest.approx(lo, abs=2e-3)
        assert grid[inside_any].max() == pytest.approx(hi, abs=2e-3)


@pytest.mark.parametrize(("alpha", "prior"), [(0.05, PRIOR), (0.01, PRIOR), (0.2, 1.0), (0.001, 16.0)])
def test_e_value_region_is_where_the_e_value_reaches_one_over_alpha_for_every_count(alpha: float, prior: float) -> None:
    """Every (k, m) with m <= 1,500: k is in the region exactly when the e-value computed directly (scipy's betaln,
    not nkcore's) reaches 1 / alpha. The simulation reads its decisions from this region."""
    m_max = 1_500
    lo, hi = e_value_region(m_max, alpha, prior)
    m = np.repeat(np.arange(m_max + 1), np.arange(m_max + 1) + 1)
    k = np.concatenate([np.arange(x + 1) for x in range(m_max + 1)])
    direct = betaln(prior + k, prior + m - k) - betaln(prior, prior) + m * math.log(2.0) >= math.log(1 / alpha)
    assert np.array_equal((k <= lo[m]) | (k >= hi[m]), direct)
    assert lo[0] == -1 and hi[0] == 1  # no case, no evidence


def test_mcnemar_critical_counts_match_scipy_binomtest() -> None:
    crit = mcnemar_critical(80, 0.05)
    for m in range(1, 81):
        rejecting = [c for c in range(m // 2 + 1) if stats.binomtest(c, m, 0.5).pvalue <= 0.05]
        assert crit[m] == (max(rejecting) if rejecting else -1), m


@pytest.mark.parametrize("kind", ["binary", "scores"])
def test_null_rejection_within_alpha_and_naive_peeking_far_above(kind: str) -> None:
    """Fast profile: 1,000 runs x 1,000 looks (the long profile: 10,000 x 2,000 in benchmarks/)."""
    r = simulate(kind, runs=1000, looks=1000, significance=0.05, seed=11)
    assert r.rejected <= 0.05 + 3 * r.rejected_se
    assert r.naive >= 3 * 0.05
    assert 0.03 <= r.fixed_n <= 0.07  # the fixed-n test checked once holds its level


def test_a_real_difference_is_decided_and_by_the_right_side() -> None:
    r = simulate("binary", runs=300, looks=2000, diff=0.06, discordance=0.2, seed=2)
    assert r.rejected > 0.9 and r.stop_median is not None and r.stop_median < 2000
    m = Monitor()
    for _ in range(100):
        s = m.update(1, 0)
    assert s.winner == "a" and s.high < 0


def test_monitor_rejects_bad_input_with_data_errors() -> None:
    with pytest.raises(DataError, match="alpha"):
        Monitor(significance=1.5)
    with pytest.raises(DataError, match="kind"):
        Monitor(kind="fancy")
    m = Monitor()
    m.update(1, 0)
    with pytest.raises(DataError, match="not 0 or 1"):
        m.update(0.5, 1)
    s = Monitor(kind="scores")
    with pytest.raises(DataError, match="between 0 and 1"):
        s.update(1.5, 0)
    with pytest.raises(DataError, match="empty"):
        s.update([], [1])
    with pytest.raises(DataError, match="number"):
        s.update("x", 1)  # type: ignore[arg-type]
