"""Tests of nkcore.latency: the max-of-n identity and the adaptive mixture against 10^6-draw simulations."""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, stats

from nkcore import latency as lat
from nkcore.errors import DataError

QS = np.array([0.5, 0.95, 0.99])


def _within_noise(draws: np.ndarray, q: float, value: float, z: float = 4.5) -> None:
    """``value`` lies between the order statistics at ranks N q -/+ z sqrt(N q (1 - q)) (distribution-free)."""
    x = np.sort(draws)
    n = len(x)
    half = z * math.sqrt(n * q * (1 - q))
    lo, hi = x[max(0, int(n * q - half))], x[min(n - 1, int(n * q + half))]
    assert lo <= value <= hi, f"q={q}: {value} not in [{lo}, {hi}]"


def _adaptive_matches_simulation(model: lat.LatencyModel, share: float, seed: int) -> np.ndarray:
    """The 3+2 rule's p50/p95/p99 lie within the noise of a 10^6-draw simulation; returns them."""
    got = lat.adaptive_quantile(model, 3, 2, share, QS)
    sim = lat.simulate_fanout(model, 3, draws=1_000_000, seed=seed, topup=(2, share))
    for q, value in zip(QS, got, strict=True):
        _within_noise(sim, q, float(value))
    return got


def test_lognormal_from_p50_p95_matches_scipy() -> None:
    m = lat.lognormal_from_p50_p95(1.9, 4.6)
    ref = stats.lognorm(s=m.sigma, scale=1.9)
    assert float(m.quantile(0.5)) == pytest.approx(1.9)
    assert float(m.quantile(0.95)) == pytest.approx(4.6)
    np.testing.assert_allclose(m.quantile(QS), ref.ppf(QS))
    np.testing.assert_allclose(m.cdf(np.array([0.5, 2.0, 7.0])), ref.cdf([0.5, 2.0, 7.0]))


def test_lognormal_errors() -> None:
    with pytest.raises(DataError, match="larger than p50"):
        lat.lognormal_from_p50_p95(2.0, 1.0)
    with pytest.raises(DataError, match="positive"):
        lat.lognormal_from_p50_p95(0.0, 1.0)
    with pytest.raises(DataError, match="at least 20"):
        lat.empirical_model([1.0, 2.0])
    with pytest.raises(DataError, match="p95 must be a finite"):
        lat.lognormal_from_p50_p95(1.9, math.inf)
    with pytest.raises(DataError, match="between 1 and 1000"):
        lat.fanout_quantile(lat.lognormal_from_p50_p95(1.9, 4.6), 10**6, 0.95)
    with pytest.raises(DataError, match="n0 \\+ m must be between"):
        lat.adaptive_quantile(lat.lognormal_from_p50_p95(1.9, 4.6), 600, 600, 0.2, 0.95)
    with pytest.raises(DataError, match="non-negative integer"):
        lat.simulate_fanout(lat.lognormal_from_p50_p95(1.9, 4.6), 3, draws=10, seed=-1)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 31])
def test_fanout_quantile_solves_cdf_to_the_n(n: int) -> None:
    """Oracle: the q-quantile of the slowest of n is the root of F(x)^n = q, found on scipy's lognormal CDF."""
    m = lat.lognormal_from_p50_p95(1.9, 4.6)
    ref = stats.lognorm(s=m.sigma, scale=1.9)
    for q in QS:
        root = optimize.brentq(lambda x, q=q: ref.cdf(x) ** n - q, 1e-6, 1e4, xtol=1e-12)
        assert float(lat.fanout_quantile(m, n, q)) == pytest.approx(root, rel=1e-9)
    # the chapter's reading: p95 of n = 3 is the single-call 98.3rd percentile, n = 7 the 99.3rd
    assert ref.cdf(float(lat.fanout_quantile(m, 3, 0.95))) == pytest.approx(0.983, abs=5e-4)
    assert ref.cdf(float(lat.fanout_quantile(m, 7, 0.95))) == pytest.approx(0.993, abs=5e-4)


@pytest.mark.parametrize("n", [1, 3, 7])
def test_fanout_quantiles_agree_with_a_million_draw_simulation_lognormal(n: int) -> None:
    m = lat.lognormal_from_p50_p95(1.9, 4.6)
    sim = lat.simulate_fanout(m, n, draws=1_000_000, seed=n)
    for q, value in zip(QS, lat.fanout_quantile(m, n, QS), strict=True):
        _within_noise(sim, q, float(value))


def test_fanout_quantiles_agree_with_simulation_empirical() -> None:
    rng = np.random.default_rng(9)
    m = lat.empirical_model(rng.gamma(2.0, 1.0, size=500))
    sim = lat.simulate_fanout(m, 5, draws=1_000_000, seed=3)
    for q, value in zip(QS, lat.fanout_quantile(m, 5, QS), strict=True):
        _within_noise(sim, q, float(value))


@pytest.mark.parametrize("share", [0.19, 0.6])
def test_adaptive_quantiles_agree_with_simulation(share: float) -> None:
    _adaptive_matches_simulation(lat.lognormal_from_p50_p95(1.9, 4.6), share, seed=11)


@pytest.mark.parametrize(("p50", "p95"), [(1.0, 20.0), (0.2, 30.0)])
def test_adaptive_quantiles_heavy_tails_agree_with_simulation(p50: float, p95: float) -> None:
    """A heavy single-call tail (p95 20 to 150 times p50) must not cost the body its resolution: the former
    latency-grid convolution put p50 5.54 s where 10^6 draws say 5.33 s (p50 1, p95 20), and 925 s for 3.1 s."""
    _adaptive_matches_simulation(lat.lognormal_from_p50_p95(p50, p95), 0.19, seed=21)


def test_adaptive_with_a_stall_atom_agrees_with_simulation() -> None:
    """1% of calls stall at 3,000 s: about 3% of requests hit one, so p99 of the adaptive rule IS the stall."""
    rng = np.random.default_rng(0)
    m = lat.empirical_model(np.concatenate([rng.gamma(2.0, 1.0, size=990), [3000.0] * 10]))
    got = _adaptive_matches_simulation(m, 0.19, seed=4)
    assert float(got[-1]) == pytest.approx(3000.0)


def test_adaptive_cdf_equals_a_quadrature_oracle() -> None:
    """P(T <= x) = (1 - s) F^3(x) + s * integral_0^x 3 F(t)^2 f(t) F(x - t)^2 dt, by scipy.integrate.quad."""
    m = lat.lognormal_from_p50_p95(1.0, 8.0)
    ref = stats.lognorm(s=m.sigma, scale=1.0)
    s = 0.3
    for x in (1.5, 4.0, 12.0, 40.0):
        both = integrate.quad(lambda t, x=x: 3 * ref.cdf(t) ** 2 * ref.pdf(t) * ref.cdf(x - t) ** 2, 0, x, limit=200)[0]
        want = (1 - s) * ref.cdf(x) ** 3 + s * both
        assert float(lat.adaptive_cdf(m, 3, 2, s, x)) == pytest.approx(want, abs=2e-5)


def test_adaptive_edges_reduce_to_flat_and_to_a_sum() -> None:
    m = lat.lognormal_from_p50_p95(1.0, 3.0)
    np.testing.assert_allclose(lat.adaptive_quantile(m, 3, 2, 0.0, QS), lat.fanout_quantile(m, 3, QS), rtol=2e-3)
    _adaptive_matches_simulation(m, 1.0, seed=5)


def test_empirical_adaptive_agrees_with_simulation() -> None:
    rng = np.random.default_rng(1)
    _adaptive_matches_simulation(lat.empirical_model(np.exp(rng.normal(0.6, 0.6, size=1400))), 0.19, seed=2)


def test_fanout_rows() -> None:
    m = lat.lognormal_from_p50_p95(1.9, 4.6)
    rows = lat.fanout_rows(m, (1, 3, 5, 7), (3, 2, 0.19))
    assert [r.label for r in rows] == ["n=1", "n=3", "n=5", "n=7", "3+2"]
    assert rows[-1].calls == pytest.approx(3.38) and rows[-1].adaptive
    p95 = [r.p95 for r in rows[:4]]
    assert p95 == sorted(p95)
    assert rows[0].p95 == pytest.approx(4.6)
    assert rows[1].p95 < rows[-1].p95  # the topped-up share pays two fan-outs in sequence


def test_worked_example_latency_quantiles(worked_frame: pd.DataFrame) -> None:
    """The chapter: 1.9 s at p50, 4.6 s at p95, 6.1 s at p98.3, 8.2 s at p99.3 (numpy quantiles of the 1,400 calls)."""
    m = lat.latency_model_from_frame(worked_frame)
    assert len(m.values) == 1400
    got = [round(float(m.quantile(q)), 1) for q in (0.5, 0.95, 0.983, 0.993)]
    assert got == [1.9, 4.6, 6.1, 8.2]
    # the identity reads p95 of n = 3 at the 98.3rd percentile: the chapter's 6.1 s
    assert round(float(lat.fanout_quantile(m, 3, 0.95)), 1) == 6.1


def test_latency_model_from_one_column_frame() -> None:
    values = np.linspace(0.5, 5.0, 50)
    m = lat.latency_model_from_frame(pd.DataFrame({"seconds": values}))
    assert float(m.quantile(0.5)) == pytest.approx(np.quantile(values, 0.5))
    with pytest.raises(DataError, match="no latency_s column"):
        lat.latency_model_from_frame(pd.DataFrame({"a": values, "b": values}))
    with pytest.raises(DataError, match="numbers"):
        lat.latency_model_from_frame(pd.DataFrame({"seconds": ["x"] * 30}))


def test_empirical_quantile_is_numpy_type_7() -> None:
    rng = np.random.default_rng(6)
    values = np.round(rng.lognormal(0.5, 0.8, size=333), 2)  # ties included
    m = lat.empirical_model(values)
    qs = np.concatenate([[0.0, 1.0], rng.random(500)])
    np.testing.assert_allclose(m.quantile(qs), np.quantile(values, qs), rtol=1e-12, atol=1e-12)


def test_empirical_cdf_inverts_quantile() -> None:
    m = lat.empirical_model([1.0] * 10 + list(np.linspace(1.0, 3.0, 30)))
    qs = np.linspace(0.3, 0.99, 20)
    np.testing.assert_allclose(m.cdf(m.quantile(qs)), qs, atol=1e-9)


def test_stall_exposure_chapter() -> None:
    """A stall seen once an hour at n = 1 is seen roughly seven times as often at n = 7."""
    e = lat.stall_exposure(1 / 3600, 7)
    assert e.per_request == pytest.approx(1 - (1 - 1 / 3600) ** 7)
    assert 6.9 < e.times_as_often < 7.0
    assert lat.stall_hits_per_hour(7, 3600) == pytest.approx(3600 * e.per_request)
    assert "7.0 times" in lat.stall_sentence(e)
    with pytest.raises(DataError):
        lat.stall_exposure(0.0, 3)


def test_queue_with_constant_calls_is_the_number_of_waves() -> None:
    m = lat.empirical_model([1.0] * 30)
    r = lat.queued_fanout(m, 7, 2, draws=1000, seed=0)
    assert r.p50 == pytest.approx(4.0) and r.p99 == pytest.approx(4.0)  # ceil(7 / 2) waves of 1 s
    assert r.identity_p95 == pytest.approx(1.0)


def test_queue_with_one_slot_is_a_gamma_sum_for_exponential_calls() -> None:
    """One slot runs the n branches one after another: for Exp(1) calls the latency is Gamma(n, 1) (scipy)."""
    grid = np.linspace(0.0, 1.0, 20_001)[:-1]
    m = lat.empirical_model(stats.expon.ppf(grid))  # Exp(1) through its quantile function
    r = lat.queued_fanout(m, 4, 1, draws=100_000, seed=2)
    for got, q in zip((r.p50, r.p95, r.p99), QS, strict=True):
        assert got == pytest.approx(stats.gamma.ppf(q, 4), rel=0.02)
    # and with 4 slots it is the max of 4: the identity, here F(x)^4 = q on the exponential
    full = lat.queued_fanout(m, 4, 4, draws=100_000, seed=3)
    assert full.p95 == pytest.approx(-math.log(1 - 0.95**0.25), rel=0.02)


def test_queue_with_enough_slots_is_the_identity_and_understates_otherwise() -> None:
    m = lat.lognormal_from_p50_p95(1.9, 4.6)
    full = lat.queued_fanout(m, 5, 5, draws=400_000, seed=1)
    assert full.p95 == pytest.approx(full.identity_p95, rel=0.02)
    tight = lat.queued_fanout(m, 5, 2, draws=100_000, seed=1)
    assert tight.p95 > 1.3 * tight.identity_p95
    assert "understates" in lat.queue_sentence(tight)
    assert "as the max-of-n identity says" in lat.queue_sentence(full)


def test_inputs_table_and_queue_entry_points() -> None:
    frame = pd.DataFrame({"latency_s": np.linspace(0.5, 5.0, 40)})
    assert lat.model_from_inputs(frame, "data").kind == "empirical"
    assert lat.model_from_inputs(None, "lognormal", 1.0, 2.0).kind == "lognormal"
    with pytest.raises(DataError, match="p50 and p95"):
        lat.model_from_inputs(None, "lognormal")
    with pytest.raises(DataError, match="'data' or 'lognormal'"):
        lat.model_from_inputs(frame, "gamma")
    rows = lat.stall_table(1 / 3600, (1, 3, 7))
    assert [round(r.times_as_often, 2) for r in rows] == [1.0, 3.0, 6.99]
    q = lat.queued_fanout_from_frame(None, 3, 3, "lognormal", 1.0, 2.0, draws=20_000, seed=1)
    assert q.p95 == pytest.approx(q.identity_p95, rel=0.05)


def test_no_latency_column_quotes_the_files_columns_on_one_line() -> None:
    """Column names with line breaks are listed with their escapes (repr); str.splitlines is the one-line oracle."""
    frame = pd.DataFrame({"it\nem": [1.0], "rat\rer": [2.0], "label\u2028": [3.0]})
    with pytest.raises(DataError) as err:
        lat.latency_model_from_frame(frame)
    message = str(err.value)
    assert message.splitlines() == [message]
    assert message.endswith(f"(found columns {', '.join(map(repr, frame.columns))})")


def test_quantiles_beyond_the_largest_double_are_inf_without_warnings() -> None:
    """p50 1e-300 s and p95 1e308 s: sigma = (ln 1e308 - ln 1e-300) / z_0.95 ~ 852, so the p99 is exp(ln 1e-300 +
    852 z_0.99) ~ e^1291, beyond 1.8e308: inf, with no RuntimeWarning (the suite turns warnings into errors here).
    Oracle for the finite ones: the same quantiles in log space, exp(mu + sigma z_q) ** applied to q**(1/n)."""
    mu = math.log(1e-300)  # typed latencies are refused this far out; the model itself must still hold
    model = lat.LatencyModel("lognormal", mu, (math.log(1e308) - mu) / stats.norm.ppf(0.95))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = lat.fanout_rows(model, (1, 2), (2, 2, 0.5))
        draws = model.sample(1000, seed=1)
    log_q = [model.mu + model.sigma * stats.norm.ppf(q ** (1 / n)) for n in (1, 2) for q in (0.5, 0.95, 0.99)]
    expected = [math.exp(v) if v < math.log(sys.float_info.max) else math.inf for v in log_q]
    got = [v for r in rows[:2] for v in (r.p50, r.p95, r.p99)]
    assert got == pytest.approx(expected, rel=1e-9)
    assert math.isinf(got[2]) and math.isinf(rows[2].p99)  # the adaptive rule is slower than flat n0 = 2
    assert rows[1].p50 <= rows[2].p50 < math.inf
    assert np.isinf(draws).any() and not np.isnan(draws).any()


@pytest.mark.parametrize(
    ("p50", "p95", "words"),
    [(1e-300, 1e300, "between 1e-06 s and 86,400 s"), (1.0, 1e10, "between 1e-06 s"), (0.01, 50.0, "5,000 times p50")],
)
def test_absurd_typed_latencies_are_refused(p50: float, p95: float, words: str) -> None:
    """p50 1e-300 s and p95 1e300 s printed a p95 of 300 digits and p99 'inf s'; p95 = 1e10 x p50 a p99 of 3e16 s."""
    with pytest.raises(DataError, match=words):
        lat.lognormal_from_p50_p95(p50, p95)
    m = lat.lognormal_from_p50_p95(1.0, lat.MAX_P95_OVER_P50)  # the largest ratio taken: finite tail
    assert math.isfinite(float(m.quantile(0.99))) and float(m.quantile(0.99)) == pytest.approx(
        math.exp(stats.norm.ppf(0.99) * math.log(1000) / stats.norm.ppf(0.95))
    )
