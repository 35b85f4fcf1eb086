"""The ranking planner (nkcore.rank.plan) against independent numbers: the studentized range against a Monte Carlo
max over pairs and the normal quantile at M = 2, the non-inferiority power against statsmodels' TTestPower (the
noncentral t), and both planned case counts against simulation of the product's own procedures (``rank_means`` at
the planned cases; the one-sided paired t at the margin), within 3 Monte Carlo errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from nkcore.errors import DataError
from nkcore.rank import non_inferiority, rank_means
from nkcore.rank.plan import (
    diff_sd,
    non_inferiority_cases,
    non_inferiority_power,
    separation_cases,
    separation_critical,
    separation_power,
)


def test_critical_value_is_the_max_over_pairs() -> None:
    assert separation_critical(2, 0.05) == pytest.approx(stats.norm.ppf(0.975))
    rng = np.random.default_rng(3)
    for m in (3, 6):
        z = rng.standard_normal((200_000, m))
        gaps = (z.max(axis=1) - z.min(axis=1)) / math.sqrt(2)  # max over pairs of |Z_j - Z_k| / sqrt(2)
        assert separation_critical(m, 0.05) == pytest.approx(np.quantile(gaps, 0.95), abs=0.02)


@pytest.mark.parametrize(
    ("n", "t", "margin", "sd"), [(50, 0.0, 0.05, 0.3), (400, 0.01, 0.02, 0.25), (12, -0.01, 0.1, 0.2)]
)
def test_non_inferiority_power_is_statsmodels_noncentral_t(n: int, t: float, margin: float, sd: float) -> None:
    want = TTestPower().power(effect_size=(t + margin) / sd, nobs=n, alpha=0.05, alternative="larger")
    assert non_inferiority_power(n, t, margin, sd, 0.05) == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize(("margin", "b", "w", "r", "t"), [(0.02, 0.05, 0.1, 1, 0.0), (0.03, 0.02, 0.2, 3, 0.005)])
def test_non_inferiority_cases_is_the_smallest_enough(margin: float, b: float, w: float, r: int, t: float) -> None:
    p = non_inferiority_cases(margin, b, w, r, t, 0.05, 0.8)
    sd = math.sqrt(b + w / r)
    es = (t + margin) / sd
    assert TTestPower().power(es, p.cases, 0.05, alternative="larger") >= 0.8
    assert TTestPower().power(es, p.cases - 1, 0.05, alternative="larger") < 0.8
    assert p.cases == math.ceil(TTestPower().solve_power(es, None, 0.05, 0.8, alternative="larger") - 1e-9)


def test_separation_cases_closed_form() -> None:
    p = separation_cases(0.04, 0.03, 0.15, 3, 5, 0.05, 0.9)
    sd = math.sqrt(0.03 + 0.15 / 3)
    c = stats.studentized_range.ppf(0.95, 5, np.inf) / math.sqrt(2)
    assert p.cases == math.ceil(((c + stats.norm.ppf(0.9)) * sd / 0.04) ** 2)
    assert p.power >= 0.9 > separation_power(p.cases - 1, 0.04, sd, 5, 0.05)
    assert p.calls == 3 * p.cases and p.sd_diff == pytest.approx(diff_sd(0.03, 0.15, 3))


def test_separation_power_holds_for_ranks_own_procedure() -> None:
    """Independent configs (no shared case difficulty) with 0/1 results: sigma_d^2 = p1 (1 - p1) + p2 (1 - p2);
    300 runs of rank_means at the planned cases; the best resolved above the runner-up as often as claimed."""
    rng = np.random.default_rng(11)
    p = np.array([0.75, 0.65, 0.60])
    var = float(p[0] * (1 - p[0]) + p[1] * (1 - p[1]))
    plan = separation_cases(0.10, var, 0.0, 1, 3, 0.05, 0.8)
    runs, hits = 300, 0
    for _ in range(runs):
        x = (rng.random((plan.cases, 3)) < p).astype(float)
        hits += rank_means(x, ["a", "b", "c"], resamples=400, seed=int(rng.integers(2**31))).pairs.above(0, 1)
    mc = math.sqrt(plan.power * (1 - plan.power) / runs)
    assert abs(hits / runs - plan.power) < 3 * mc, (hits / runs, plan.power, mc)


def test_non_inferiority_plan_holds_by_simulation() -> None:
    rng = np.random.default_rng(5)
    plan = non_inferiority_cases(0.05, 0.3, 0.0, 1, 0.0, 0.05, 0.8)  # 0/1 results, 30% discordant, equal configs
    runs, hits = 2000, 0
    for _ in range(runs):
        a = (rng.random(plan.cases) < 0.5).astype(float)
        flip = rng.random(plan.cases) < 0.3
        b = np.where(flip, 1 - a, a)
        hits += non_inferiority(a, b, 0.05, 0.05).non_inferior
    mc = math.sqrt(plan.power * (1 - plan.power) / runs)
    assert abs(hits / runs - plan.power) < 3 * mc, (hits / runs, plan.power, mc)


def test_refusals_are_plain() -> None:
    with pytest.raises(DataError, match="gap"):
        separation_cases(0.0, 0.1, 0.1)
    with pytest.raises(DataError, match="both 0"):
        separation_cases(0.02, 0.0, 0.0)
    with pytest.raises(DataError, match="at least two configs"):
        separation_critical(1)
    with pytest.raises(DataError, match="minus the margin"):
        non_inferiority_cases(0.02, 0.1, 0.1, 1, -0.03)
    with pytest.raises(DataError, match="repeats"):
        diff_sd(0.1, 0.1, 0)
