"""Tests of nkcore.resolution.repeats: the variance law against a simulation of the case-level test, the splits
against brute force, the sentences against the numbers they quote.

The simulated world (its variances in closed form, so that the law is checked against independent numbers): per
case, p_A,i = 0.25 + 0.5 Beta(2, 2) (variance v = 0.25 x 1/20 = 0.0125) and p_B,i = p_A,i + mu + s e_i with e_i = +-1
(a fair sign), so the true per-case difference has between-case variance s^2 exactly; given the case, one repeat's
difference x_B - x_A has variance p_A(1 - p_A) + p_B(1 - p_B), whose mean over cases is 0.5 - 2v - s^2 - mu^2. Each
config's K repeats of a case are K Bernoulli draws (their sum a binomial); the test is the case-level test on the
per-case mean differences: a z on their mean with their sample sd, and the paired t-test (scipy.stats.ttest_1samp).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from nkcore import paired
from nkcore import resolution as rs
from nkcore.errors import DataError
from nkcore.resolution.critical import z_two_sided

V_A = 0.25 * (2 * 2) / ((2 + 2) ** 2 * (2 + 2 + 1))  # Var(0.5 Beta(2, 2)) = 0.25 x 1/20


def within_var(s: float, mu: float) -> float:
    """E[p_A(1 - p_A) + p_B(1 - p_B)] over the simulated cases (closed form)."""
    return 0.5 - 2 * V_A - s * s - mu * mu


@dataclass(frozen=True)
class Sim:
    """R simulated evaluations of N cases x K repeats at a true mean difference mu."""

    mean_diff: np.ndarray  # (R,) the mean per-case difference of each evaluation
    reject_z: np.ndarray  # (R,) |mean| / (sd / sqrt(N)) > z_{1 - alpha/2}
    reject_t: np.ndarray  # (R,) paired t-test on the case means, p < alpha


def simulate(n: int, k: int, s: float, mu: float, rounds: int, rng: np.random.Generator, alpha: float = 0.05) -> Sim:
    p_a = 0.25 + 0.5 * rng.beta(2.0, 2.0, size=(rounds, n))
    p_b = p_a + mu + s * rng.choice([-1.0, 1.0], size=(rounds, n))
    assert p_b.min() >= 0.0 and p_b.max() <= 1.0
    d = (rng.binomial(k, p_b) - rng.binomial(k, p_a)) / k  # per case: mean_B,i - mean_A,i over K repeats
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    reject_z = np.abs(mean) / (sd / math.sqrt(n)) > z_two_sided(alpha)
    reject_t = stats.ttest_1samp(d, 0.0, axis=1).pvalue < alpha
    return Sim(mean, reject_z, reject_t)


def at_own_difference(n: int, k: int, s: float, which: str) -> rs.RepeatDesign:
    """The design whose ``which`` difference (min_resolvable_diff or mde_at_power) is the mu its variances are taken
    at (the within-case variance falls by mu^2 as mu grows): a fixed point, reached in a few steps."""
    mu = 0.0
    for _ in range(20):
        d = rs.repeat_design(n, k, s * s, within_var(s, mu))
        mu = getattr(d, which)
    return rs.repeat_design(n, k, s * s, within_var(s, mu))


def _mc_se(p: float, rounds: int) -> float:
    return math.sqrt(p * (1 - p) / rounds)


@pytest.mark.parametrize(("n", "k", "s", "rounds", "seed"), [(200, 5, 0.1, 8000, 11), (400, 1, 0.15, 5000, 12),
                                                             (100, 10, 0.05, 8000, 13)])  # fmt: skip
def test_the_law_against_a_simulation_of_the_case_level_test(n: int, k: int, s: float, rounds: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    # (a) the sd of the mean difference under "no difference"
    null = rs.repeat_design(n, k, s * s, within_var(s, 0.0))
    sim = simulate(n, k, s, 0.0, rounds, rng)
    sd = float(sim.mean_diff.std(ddof=1))
    assert sd == pytest.approx(null.se, rel=3 / math.sqrt(2 * (rounds - 1))), (sd, null.se)
    # the test's size: alpha, give or take the sample sd's noise (t_{N-1} against z) and 3 MC s.e.
    assert abs(sim.reject_z.mean() - 0.05) < 3 * _mc_se(0.05, rounds) + 0.005
    # (b) at the MDE at 80% power the case-level test rejects 80% of the time
    mde = at_own_difference(n, k, s, "mde_at_power")
    sim = simulate(n, k, s, mde.mde_at_power, rounds, rng)
    assert float(sim.mean_diff.std(ddof=1)) == pytest.approx(mde.se, rel=3 / math.sqrt(2 * (rounds - 1)))
    assert abs(sim.reject_z.mean() - 0.8) < 3 * _mc_se(0.8, rounds), sim.reject_z.mean()
    assert abs(sim.reject_t.mean() - 0.8) < 3 * _mc_se(0.8, rounds) + 0.01  # t_{N-1} rejects a little less
    # (c) at the smallest resolvable difference, about half the time
    mrd = at_own_difference(n, k, s, "min_resolvable_diff")
    sim = simulate(n, k, s, mrd.min_resolvable_diff, rounds, rng)
    assert abs(sim.reject_z.mean() - 0.5) < 3 * _mc_se(0.5, rounds), sim.reject_z.mean()


def test_a_budget_split_simulated_more_cases_beat_more_repeats() -> None:
    """1,000 calls per config: 1,000 cases x 1 repeat against 200 cases x 5 repeats, simulated; the sd of the mean
    difference of each and their ratio are the law's."""
    rng = np.random.default_rng(5)
    s, rounds = 0.1, 4000
    plan = rs.repeat_plan(1000, s * s, within_var(s, 0.0), cases_available=200)
    wide = simulate(1000, 1, s, 0.0, rounds, rng).mean_diff.std(ddof=1)
    deep = simulate(200, 5, s, 0.0, rounds, rng).mean_diff.std(ddof=1)
    z = z_two_sided(0.05)
    tol = 3 / math.sqrt(2 * (rounds - 1))
    assert z * wide == pytest.approx(plan.unlimited_cases.min_resolvable_diff, rel=tol)
    assert z * deep == pytest.approx(plan.best.min_resolvable_diff, rel=tol)
    assert deep > wide
    assert (plan.best.cases, plan.best.repeats) == (200, 5)


# ---------------------------------------------------------------------------------------------- closed forms


def test_one_design_closed_form() -> None:
    d = rs.repeat_design(200, 5, 0.0625, 0.1875)
    assert d.variance == pytest.approx((0.0625 + 0.1875 / 5) / 200)
    assert d.se == pytest.approx(math.sqrt(0.0005))
    assert d.min_resolvable_diff == pytest.approx(stats.norm.ppf(0.975) * math.sqrt(0.0005))
    assert d.mde_at_power == pytest.approx((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * math.sqrt(0.0005))
    assert (d.calls, d.equivalent_cases) == (1000, pytest.approx(200 * 0.25 / 0.1))
    # one repeat: the variance of one call's difference over the cases; with 0/1 scores and no difference that is
    # the discordance, so the case-level z matches the square-root law of the discordance plan
    one = rs.repeat_design(200, 1, 0.02, 0.04)
    assert one.min_resolvable_diff == pytest.approx(rs.plan(200, 0.06).sqrt_law_diff)
    # power at the MDE by the normal law, both tails
    z = one.mde_at_power / one.se
    za = stats.norm.ppf(0.975)
    assert stats.norm.sf(za - z) + stats.norm.cdf(-za - z) == pytest.approx(0.8, abs=1e-4)


def test_brief_numbers() -> None:
    """The brief's sentence: 1,000 calls on 1,000 cases resolve 3.1 points; on 200 cases, 5 repeats 4.4 points."""
    p = rs.repeat_plan(1000, 0.0625, 0.1875, cases_available=200)
    assert round(100 * p.unlimited_cases.min_resolvable_diff, 1) == 3.1
    assert (p.best.cases, p.best.repeats, p.best.calls, round(100 * p.best.min_resolvable_diff, 1)) == (
        200,
        5,
        1000,
        4.4,
    )
    s = rs.repeat_plan_sentences(p)
    assert s.headline == (
        "More cases, as long as you have them: 1,000 calls per config on 1,000 cases (one repeat each) would resolve "
        "3.1 points; on the 200 cases you have, 5 repeats per case resolve 4.4 points."
    )
    assert "200 cases x 5 repeats per case = 1,000 calls per config" in s.best and "6.3 points" in s.best
    assert "(0.0625 + 0.1875 / K) / N" in s.law


def _brute_best(c: int, b: float, w: float, avail: int | None, k_max: int) -> tuple[int, int]:
    rows = []
    for k in range(1, k_max + 1):
        n = c // k if avail is None else min(c // k, avail)
        rows.append(((b + w / k) / n, n * k, k, n))
    best = min(rows, key=lambda r: (round(r[0], 15), r[1], r[2]))
    return best[3], best[2]


@pytest.mark.parametrize("seed", range(6))
def test_splits_and_best_against_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(30):
        c = int(rng.integers(1, 5000))
        b, w = float(rng.uniform(0, 0.3)), float(rng.uniform(0.01, 0.5))
        avail = None if rng.random() < 0.3 else int(rng.integers(1, 3000))
        p = rs.repeat_plan(c, b, w, cases_available=avail)
        for s in p.splits:
            n = c // s.repeats if avail is None else min(c // s.repeats, avail)
            assert (s.cases, s.calls) == (n, n * s.repeats)
            assert s.min_resolvable_diff == pytest.approx(z_two_sided(0.05) * math.sqrt((b + w / s.repeats) / n))
        assert [s.repeats for s in p.splits] == list(range(1, p.max_repeats + 1))
        assert (p.best.cases, p.best.repeats) == _brute_best(c, b, w, avail, p.max_repeats)
        if avail is None or avail >= c:  # cases enough: one repeat per case is best
            assert (p.best.cases, p.best.repeats) == (c, 1) and p.best == p.unlimited_cases
        elif b < 0.3 * w and c >= 3 * avail:  # repeats pay once the cases run out: about calls / cases available
            assert p.best.repeats > 1 and p.best.repeats in (c // avail, c // avail + 1)
        # the best split over every K (not only up to K_max) is within K_max when it is the default
        if avail is not None and c <= 5000:
            assert _brute_best(c, b, w, avail, min(c, 1000)) == (p.best.cases, p.best.repeats)


def test_ties_go_to_fewer_calls_then_fewer_repeats() -> None:
    # no within-case variance: repeats buy nothing, so every K at N = 200 ties and one repeat (200 calls) wins
    p = rs.repeat_plan(1000, 0.05, 0.0, cases_available=200)
    assert (p.best.cases, p.best.repeats, p.best.calls) == (200, 1, 200)
    assert "repeats would not help" in rs.repeat_plan_sentences(p).headline
    # no between-case variance and cases unlimited: (w / K) / (C / K) = w / C for every K dividing C: one repeat
    p = rs.repeat_plan(1200, 0.0, 0.2)
    assert (p.best.cases, p.best.repeats) == (1200, 1)
    # no between-case variance and 60 cases: every split of all 1,000 calls ties; the fewest repeats among them
    p = rs.repeat_plan(1000, 0.0, 0.2, cases_available=60)
    assert (p.best.cases, p.best.repeats, p.best.calls) == (50, 20, 1000)
    assert p.best.min_resolvable_diff == pytest.approx(p.unlimited_cases.min_resolvable_diff)
    assert rs.repeat_plan_sentences(p).headline.endswith(
        "with the 60 cases you have, 50 of them with 20 repeats per case resolve 2.8 points, as much: the true "
        "difference does not vary between cases (between-case variance 0), so a repeat is worth a new case."
    )


def test_leftover_calls_are_explained() -> None:
    # 1,000 calls on 300 cases: 3 repeats (900 calls) beat 4 repeats on 250 cases (1,000 calls)
    p = rs.repeat_plan(1000, 0.0625, 0.1875, cases_available=300)
    assert (p.best.cases, p.best.repeats, p.best.calls) == (300, 3, 900)
    assert "It uses 900 of the 1,000 calls" in rs.repeat_plan_sentences(p).best
    frame = p.to_frame()
    assert list(frame.columns) == ["cases", "repeats", "calls", "min_resolvable_diff", "mde_at_power", "best"]
    assert frame["best"].sum() == 1 and int(frame.loc[frame["best"], "repeats"].iloc[0]) == 3


def test_default_repeats_cover_the_budget_on_the_cases() -> None:
    assert rs.repeat_plan(100, 0.01, 0.2).max_repeats == 10
    assert rs.repeat_plan(5, 0.01, 0.2).max_repeats == 5  # N >= 1
    assert rs.repeat_plan(10_000, 0.01, 0.2, cases_available=100).max_repeats == 200
    assert rs.repeat_plan(10_000, 0.01, 0.2, cases_available=100, max_repeats=3).max_repeats == 3


def test_design_sentence_names_every_number() -> None:
    text = rs.repeat_design_sentence(rs.repeat_design(200, 5, 0.0625, 0.1875))
    assert text.startswith("200 cases with 5 repeats per case (1,000 calls per config)")
    assert "(between-case variance 0.0625 + within-case variance 0.1875 / 5 repeats) / 200 cases = 0.0005" in text
    assert "worth 500 cases with one repeat each" in text
    assert "4.4 points (z = 1.96 standard errors) reaches p < 0.05 half the time" in text
    assert "6.3 points is detected 80% of the time" in text


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"between_var": -0.1}, "between-case variance must be a number from 0 to 1"),
        ({"within_var": float("nan")}, "within-case variance must be a number from 0 to 1"),
        ({"within_var": 2.0}, "at most 1"),
        ({"between_var": 0.0, "within_var": 0.0}, "both 0"),
        ({"calls": 0}, "calls per config must be a whole number from 1"),
        ({"calls": 10.5}, "calls per config"),
        ({"cases_available": 0}, "cases available"),
        ({"max_repeats": 10**6}, "repeats per case must be a whole number from 1 to 1,000"),
        ({"significance": 1.0}, "alpha"),
        ({"power": 0.3}, "power"),
    ],
)
def test_bad_inputs_are_data_errors(kwargs: dict[str, float], words: str) -> None:
    args: dict[str, float] = {"calls": 1000, "between_var": 0.05, "within_var": 0.2, **kwargs}
    with pytest.raises(DataError, match=None) as info:
        rs.repeat_plan(**args)  # type: ignore[arg-type]
    assert words in str(info.value)
    with pytest.raises(DataError):
        rs.repeat_design(0, 1, 0.1, 0.1)
    with pytest.raises(DataError, match="repeats per case"):
        rs.repeat_design(10, 0, 0.1, 0.1)


def test_choose_pair() -> None:
    assert paired.choose_pair(("x", "y"), None, None) == ("x", "y")
    assert paired.choose_pair(("x", "y"), "y", None) == ("y", "x")
    assert paired.choose_pair(("x", "y", "z"), "z", "x") == ("z", "x")
    with pytest.raises(DataError, match="name the two configs"):
        paired.choose_pair(("x", "y", "z"), None, None)
    with pytest.raises(DataError, match="unknown config 'q'"):
        paired.choose_pair(("x", "y"), "q", None)
    with pytest.raises(DataError, match="both 'x'"):
        paired.choose_pair(("x", "y"), "x", "x")
