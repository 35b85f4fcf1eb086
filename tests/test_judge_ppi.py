"""PPI++ against ppi-python 0.2.3 (the oracle): estimates and intervals to 1e-9 on the same data, the cheapest split
against ``ppi_power``; humans-only and judge-only intervals against scipy's t; the label plan against brute force of
its own variance law; the corrected paired difference against ``ppi_mean_ci`` on the per-case differences; interval
coverage by a small simulation with its Monte Carlo error."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate, ppi_power
from scipy import stats

from nkcore.errors import DataError
from nkcore.judge import (
    cheapest_split,
    effective_human_labels,
    human_only_interval,
    judge_only_interval,
    judge_table,
    labels_for_half_width,
    labels_for_power,
    labels_for_se,
    pair_difference,
    ppi_lambda,
    ppi_mean_interval,
    sparse_binary,
)


def _data(seed: int, kind: str, n: int = 60, big_n: int = 600) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    total = n + big_n
    if kind == "binary":  # 0/1 human verdict, 0/1 judge agreeing 70% of the time
        # (was 75%: seed 2 then had 9 disagreements in 60 labels, the sparse corner where the interval is widened
        # on purpose, nkcore.judge.ppi.sparse_binary; at 70% every seed used has at least 10)
        h = (rng.random(total) < 0.6).astype(float)
        j = np.where(rng.random(total) < 0.7, h, 1 - h)
    elif kind == "likert":  # 1-5 humans, a 1-5 judge that is harsher
        h = np.clip(np.round(3 + 1.2 * rng.normal(size=total)), 1, 5)
        j = np.clip(np.round(h - 1 + rng.normal(size=total)), 1, 5)
    elif kind == "scale":  # the judge on a 0-100 scale
        h = rng.normal(3, 1, total)
        j = 20 * h + 15 * rng.normal(size=total)
    else:  # a useless judge
        h = rng.normal(0, 1, total)
        j = rng.normal(0, 1, total)
    return h[:n], j[:n], j[n:]


@pytest.mark.parametrize("kind", ["binary", "likert", "scale", "noise"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("significance", [0.05, 0.1])
def test_mean_equals_ppi_py(kind: str, seed: int, significance: float) -> None:
    y, yh, yu = _data(seed, kind)
    assert not sparse_binary(y, yh)  # ppi-python's interval is the product's outside the sparse verdict corner
    ours = ppi_mean_interval(y, yh, yu, significance)
    if ours.fallback:  # the tuned lambda was wider than humans only: then it equals ppi_py at lambda = 0
        lo, hi = ppi_mean_ci(y, yh, yu, alpha=significance, lam=0.0)
        est = ppi_mean_pointestimate(y, yh, yu, lam=0.0)
    else:
        lo, hi = ppi_mean_ci(y, yh, yu, alpha=significance)
        est = ppi_mean_pointestimate(y, yh, yu)
    assert ours.estimate == pytest.approx(float(np.ravel(est)[0]), abs=1e-9)
    assert ours.ci_low == pytest.approx(float(np.ravel(lo)[0]), abs=1e-9)
    assert ours.ci_high == pytest.approx(float(np.ravel(hi)[0]), abs=1e-9)


@pytest.mark.parametrize("lam", [0.0, 0.3, 1.0])
def test_fixed_lambda_equals_ppi_py(lam: float) -> None:
    y, yh, yu = _data(5, "likert")
    ours = ppi_mean_interval(y, yh, yu, 0.05, lam=lam)
    lo, hi = ppi_mean_ci(y, yh, yu, alpha=0.05, lam=lam)
    assert (ours.ci_low, ours.ci_high) == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-9)
    assert ours.estimate == pytest.approx(float(np.ravel(ppi_mean_pointestimate(y, yh, yu, lam=lam))[0]), abs=1e-9)


def test_tuned_lambda_is_near_the_narrowest() -> None:
    """The tuned lambda estimates the variance-minimising one: its interval is within 5% of the narrowest on a grid
    of fixed lambdas (ppi_py's widths), and a 0-100 judge against 1-5 humans gets a lambda near the slope 1/20."""
    y, yh, yu = _data(3, "scale")
    lam = ppi_lambda(y, yh, yu)
    ours = ppi_mean_interval(y, yh, yu, lam=lam)
    widths = []
    for g in np.linspace(0, 1, 201):
        lo, hi = ppi_mean_ci(y, yh, yu, alpha=0.05, lam=g)
        widths.append(float(hi[0] - lo[0]))
    assert ours.ci_high - ours.ci_low <= 1.05 * min(widths)
    assert 0.0 < lam < 0.1


def test_never_wider_than_humans_only_on_the_same_labels() -> None:
    for seed in range(40):
        y, yh, yu = _data(seed, "noise", n=8, big_n=30)
        tuned = ppi_mean_interval(y, yh, yu)
        humans = ppi_mean_interval(y, yh, yu, lam=0.0)
        assert tuned.half_width <= humans.half_width + 1e-12


def test_no_unlabelled_case_is_humans_only() -> None:
    y = np.array([1.0, 2.0, 4.0, 5.0])
    r = ppi_mean_interval(y, y + 1, np.array([]))
    z = stats.norm.ppf(0.975)
    assert r.lam == 0.0
    assert r.estimate == pytest.approx(3.0)
    assert r.half_width == pytest.approx(z * np.std(y) / 2.0)


def test_human_and_judge_only_are_scipys_t_intervals() -> None:
    rng = np.random.default_rng(7)
    y = rng.normal(3, 1, 25)
    r = human_only_interval(y, 0.9)
    lo, hi = stats.t.interval(0.9, len(y) - 1, loc=y.mean(), scale=stats.sem(y))
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    j = judge_only_interval(y * 2)
    lo, hi = stats.t.interval(0.95, len(y) - 1, loc=2 * y.mean(), scale=stats.sem(2 * y))
    assert (j.ci_low, j.ci_high) == pytest.approx((lo, hi), abs=1e-12)


def test_effective_human_labels() -> None:
    y, yh, yu = _data(1, "likert", n=80, big_n=2000)
    humans = ppi_mean_interval(y, yh, yu, lam=0.0)
    assert effective_human_labels(y, humans) == pytest.approx(80.0)
    tuned = ppi_mean_interval(y, yh, yu)
    expected = 80 * (np.var(y) / 80) / tuned.se**2
    assert effective_human_labels(y, tuned) == pytest.approx(expected)
    rho = np.corrcoef(y, yh)[0, 1]
    # with many judge-only cases, n_eff is about n / (1 - rho^2) (PPI++ with its best lambda)
    assert effective_human_labels(y, tuned) == pytest.approx(80 / (1 - rho**2), rel=0.15)


def test_bad_input() -> None:
    with pytest.raises(DataError, match="at least 2 human-labelled"):
        ppi_mean_interval([1.0], [1.0], [0.0, 1.0])
    with pytest.raises(DataError, match="finite"):
        ppi_mean_interval([1.0, np.nan], [1.0, 2.0], [0.0])
    with pytest.raises(DataError, match="differ in number"):
        ppi_mean_interval([1.0, 2.0], [1.0], [0.0])


@pytest.mark.parametrize("rho", [0.3, 0.6, 0.8, 0.95])
@pytest.mark.parametrize(("price_human", "price_judge"), [(1.0, 0.01), (1.0, 0.1), (5.0, 2.0), (1.0, 0.5)])
@pytest.mark.parametrize("effective_n", [50, 400])
def test_cheapest_split_equals_ppi_power(rho: float, price_human: float, price_judge: float, effective_n: int) -> None:
    ours = cheapest_split(effective_n, rho, price_human, price_judge)
    ref = ppi_power(rho, 0.0, price_human, price_judge, effective_n=effective_n)
    assert (ours.n_human, ours.n_judge_only) == (ref["n"], ref["N"])
    assert ours.cost == pytest.approx(ref["cost"])


def _var(n: int, big_t: int | None, sigma: float, rho: float) -> float:
    share = 1.0 if big_t is None else (big_t - n) / big_t
    return sigma**2 / n * (1 - rho**2 * share)


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.7, 0.9])
@pytest.mark.parametrize("n_cases", [None, 400, 3000])
def test_labels_for_se_is_the_smallest_n_meeting_the_variance_law(rho: float, n_cases: int | None) -> None:
    se = 0.08
    plan = labels_for_se(se, 1.0, rho, n_cases)
    assert plan.human_only_labels == math.ceil(1 / se**2)
    assert plan.ppi_labels is not None  # 1 / se^2 = 157 labels fit in every n_cases here
    n = plan.ppi_labels
    assert _var(n, n_cases, 1.0, rho) <= se**2 * (1 + 1e-9)
    assert n == 2 or _var(n - 1, n_cases, 1.0, rho) > se**2
    # the same as ppi_power's effective sample size n (n + N) / (n + (1 - rho^2) N) for N = T - n judge-only cases
    if n_cases is not None and rho > 0:
        big_n = n_cases - n
        assert n * (n + big_n) / (n + (1 - rho**2) * big_n) >= 1 / se**2 * (1 - 1e-9)


def test_unreachable_target() -> None:
    assert labels_for_se(0.01, 1.0, 0.5, n_cases=500).ppi_labels is None  # even 500 labels give se 0.045


def test_half_width_and_power_plans() -> None:
    z = stats.norm.ppf(0.975)
    assert labels_for_half_width(0.1, 1.0, 0.0).human_only_labels == math.ceil((z / 0.1) ** 2 - 1e-9)
    p = labels_for_power(0.2, 1.0, 0.6)
    n0 = ((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) / 0.2) ** 2
    assert p.human_only_labels == math.ceil(n0)
    assert p.ppi_labels == math.ceil(n0 * (1 - 0.36))
    assert p.max_saving == pytest.approx(0.36)


def test_paired_difference_is_ppi_on_per_case_differences() -> None:
    rng = np.random.default_rng(11)
    n = 400
    ha, hb = rng.normal(3.2, 1, n), rng.normal(3.0, 1, n)
    ja, jb = ha + 0.5 + rng.normal(0, 0.7, n), hb + rng.normal(0, 0.7, n)
    lab = rng.random(n) < 0.2
    frame = pd.DataFrame(
        {
            "case": np.tile(np.arange(n), 2),
            "config": np.repeat(["A", "B"], n),
            "judge": np.concatenate([ja, jb]),
            "human": np.concatenate([np.where(lab, ha, np.nan), np.where(lab, hb, np.nan)]),
        }
    )
    t = judge_table(frame, ["judge"], "human", "config", "case")
    d = pair_difference(t, "A", "B")
    assert d is not None and d.paired
    dy, dj = (ha - hb)[lab], (ja - jb)[lab]
    lo, hi = ppi_mean_ci(dy, dj, (ja - jb)[~lab], alpha=0.05)
    assert (d.ppi.ci_low, d.ppi.ci_high) == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-9)
    assert d.n_human == int(lab.sum()) and d.n_cases == n


def test_coverage_of_a_biased_judge() -> None:
    """1000 simulated evaluations, a judge with bias +0.5 and rho about 0.6, 10% labelled: coverage of the true mean
    within 3 Monte Carlo standard errors of 95% (the benchmark runs the full grid)."""
    rng = np.random.default_rng(2024)
    reps, n_cases, mu = 1000, 500, 3.0
    hits = 0
    for _ in range(reps):
        h = mu + rng.normal(size=n_cases)
        j = 0.5 + 0.8 * h + rng.normal(0, 1.0, n_cases)
        lab = np.zeros(n_cases, dtype=bool)
        lab[rng.choice(n_cases, 50, replace=False)] = True
        r = ppi_mean_interval(h[lab], j[lab], j[~lab])
        hits += r.ci_low <= mu <= r.ci_high
    cov, mc = hits / reps, math.sqrt(0.95 * 0.05 / reps)
    assert abs(cov - 0.95) < 3 * mc + 0.01  # the normal interval on 50 labels runs a little short


def test_small_sample_is_a_t_interval_with_n_minus_1_variances() -> None:
    y, yh, yu = _data(4, "likert", n=20, big_n=300)
    base = ppi_mean_interval(y, yh, yu)
    t = ppi_mean_interval(y, yh, yu, lam=base.lam, small_sample=True)
    lam = base.lam
    se = math.sqrt(np.var(lam * yu, ddof=1) / yu.size + np.var(y - lam * yh, ddof=1) / y.size)
    q = stats.t.ppf(0.975, y.size - 1)
    assert t.estimate == pytest.approx(base.estimate, abs=1e-12)
    assert (t.ci_low, t.ci_high) == pytest.approx((t.estimate - q * se, t.estimate + q * se), abs=1e-12)
    # at lambda = 0 it is exactly the humans-only t interval, and worth exactly n labels
    t0 = ppi_mean_interval(y, yh, yu, lam=0.0, small_sample=True)
    h = human_only_interval(y)
    assert (t0.ci_low, t0.ci_high) == pytest.approx((h.ci_low, h.ci_high), abs=1e-12)
    assert effective_human_labels(y, t0) == pytest.approx(20.0)
    tuned = ppi_mean_interval(y, yh, yu, small_sample=True)
    assert tuned.half_width <= h.half_width + 1e-12
