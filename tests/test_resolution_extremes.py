"""Extreme inputs to nkcore.resolution: every float gives a result or a one-line DataError, never a traceback.

Oracles: the square-root law and the fact that a net of discordant cases is at least 1 (so a target t needs at least
1/t cases), scipy's normal quantiles, the exact binomial tails of scipy, and the CLI's exit-code contract (0 with a
document, or 2 with one line on stderr).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from nkcore import cli
from nkcore import resolution as rs
from nkcore.errors import DataError
from nkcore.resolution.cases import net_upper_slope, sqrt_law_cases
from nkcore.resolution.critical import z_two_sided
from nkcore.resolution.label_error import invert_disagreement
from nkcore.resolution.power import power_parts

EXTREMES = ["1e-300", "5e-324", "1e-320", "1e308", "-1e308", "inf", "-inf", "nan", "0", "-0", "1", "2", "1e-9"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_result_or_one_line(code: int, out: str, err: str) -> None:
    assert code in (0, 2)
    assert "Traceback" not in err
    if code == 2:
        assert err.startswith("error: ") and err.count("\n") == 1, err
    else:
        assert err == "" and out


# ---------------------------------------------------------------------------------------------- the CLI


def test_plan_with_a_target_of_1e_300_answers_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["plan", "--cases", "200", "--discordance", "0.06", "--target-diff", "1e-300"], capsys)
    assert (code, err) == (0, "")
    assert "would take more than 1,000,000,000 cases" in out
    assert "takes more than 1,000,000,000 cases by Connor's formula" in out
    code, out, err = _run(
        ["plan", "--cases", "200", "--discordance", "0.06", "--target-diff", "1e-300", "--json"], capsys
    )
    doc = json.loads(out)
    keys = ["cases_for_target", "cases_for_target_stable", "cases_for_target_sqrt_law"]
    keys += ["cases_for_target_at_power", "cases_for_target_at_power_exact"]
    assert code == 0 and all(doc[k] is None for k in keys)
    assert doc["min_resolvable_diff"] == 0.04 and doc["target_diff"] == 1e-300


@pytest.mark.parametrize("flag", ["--discordance", "--alpha", "--power", "--target-diff", "--label-error"])
@pytest.mark.parametrize("value", EXTREMES)
def test_plan_flags_take_any_float(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = {"--cases": "200", "--discordance": "0.06", "--target-diff": "0.01", flag: value}
    argv = ["plan", *[f"{k}={v}" for k, v in args.items()]]  # --flag=value: "-1e308" is not read as a flag
    _assert_result_or_one_line(*_run(argv, capsys))


@pytest.mark.parametrize("value", ["0", "-1", "10000001", str(10**30)])
def test_plan_cases_out_of_range_is_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["plan", f"--cases={value}", "--discordance", "0.06"], capsys)
    assert code == 2 and err.count("\n") == 1 and "cases" in err


def test_plan_with_a_denormal_discordance_and_target(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "--cases", "10000000", "--discordance", "5e-324", "--target-diff", "5e-324", "--json"]
    code, out, _ = _run(argv, capsys)
    doc = json.loads(out)
    assert code == 0 and doc["discordant"] == 0 and doc["cases_for_target"] is None
    assert doc["cases_for_target_at_power"] is None  # Connor: delta^2 underflows; the count is above 1e113


@pytest.mark.parametrize("discordance", ["2.2250738585072014e-308", "1e-308", "3e-308", "1e-310"])
def test_plan_at_a_discordance_near_the_smallest_normal_double(
    discordance: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """scipy's binomial pmf overflows inside Boost for p near 2.2e-308; the plan still answers: nothing resolvable."""
    argv = ["plan", "--cases", "4", "--discordance", discordance, "--alpha", "1e-300", "--json"]
    code, out, err = _run(argv, capsys)
    doc = json.loads(out)
    assert (code, err) == (0, "") and doc["discordant"] == 0 and doc["mde_at_power_exact"] is None


@pytest.mark.parametrize("psi", [2.2250738585072014e-308, 1e-308, 1e-310, 1e-300, 0.06, 0.5, 1.0 - 1e-16])
def test_power_parts_weights_are_the_binomial_pmf(psi: float) -> None:
    """The weights P(M = m) against the closed form C(n, m) psi^m (1 - psi)^(n - m) in exact rational arithmetic."""
    n = 40
    parts = power_parts(n, psi, 0.5)
    p = Fraction(psi)
    for m, w in zip(parts.m.tolist(), parts.weight.tolist(), strict=True):
        exact = math.comb(n, m) * p**m * (1 - p) ** (n - m)
        assert w == pytest.approx(float(exact), rel=1e-12, abs=1e-320)


# ---------------------------------------------------------------------------------------------- the functions


@settings(max_examples=40, deadline=None)
@given(
    cases=st.integers(-2, 10**7 + 2) | st.floats(allow_nan=True, allow_infinity=True),
    discordance=st.floats(allow_nan=True, allow_infinity=True) | st.floats(0.0, 1.0),
    alpha=st.floats(allow_nan=True, allow_infinity=True) | st.floats(1e-300, 0.2) | st.just(5e-324),
    power=st.floats(allow_nan=True, allow_infinity=True) | st.floats(0.5, 0.99),
    target=st.none() | st.floats(allow_nan=True, allow_infinity=True) | st.floats(1e-9, 1.0) | st.just(5e-324),
)
def test_plan_gives_a_result_or_a_data_error_for_any_float(
    cases: float, discordance: float, alpha: float, power: float, target: float | None
) -> None:
    try:
        p = rs.plan(cases, discordance, alpha, power, target)  # type: ignore[arg-type]
    except DataError as exc:
        assert "\n" not in str(exc)
        return
    s = rs.plan_sentences(p)
    assert s.min_resolvable and s.mde and s.sqrt_law and (s.target is None) == (target is None)
    for n in (p.cases_for_target, p.cases_for_target_sqrt_law, p.cases_for_target_at_power):
        assert n is None or 1 <= n <= rs.SEARCH_CEILING
    if p.cases_for_target is not None:
        assert p.target_diff is not None and p.cases_for_target >= 1 / p.target_diff  # a net is at least 1 case
    if p.cases_for_target_at_power_exact is not None:
        assert p.cases_for_target_at_power_exact <= rs.MAX_CASES


@pytest.mark.parametrize("t", [1e-300, 5e-324, 1e-12, 9.99e-10])
def test_targets_below_one_over_the_ceiling_are_none(t: float) -> None:
    # every resolvable evaluation needs a net of at least one case, so cases >= 1/t > 1,000,000,000
    assert rs.cases_for_target(t, 0.5) is None
    assert rs.cases_for_target_stable(t, 0.5) is None
    assert math.isinf(rs.connor_cases(t, 0.5)) or rs.connor_cases(t, 0.5) > rs.SEARCH_CEILING


def test_answers_above_the_ceiling_are_none_and_below_it_exact() -> None:
    # square-root law: about z^2 d / t^2 cases; 0.001 points at 50% discordance is about 1.9e10 > 1e9
    z = stats.norm.isf(0.025)
    assert z**2 * 0.5 / 1e-5**2 > 5 * rs.SEARCH_CEILING
    assert rs.cases_for_target(1e-5, 0.5) is None
    # 0.01 points at 6% discordance: about 2.3e7 cases, computed exactly (checked against scipy at that n)
    n = rs.cases_for_target(1e-4, 0.06)
    assert n is not None and n == pytest.approx(z**2 * 0.06 / 1e-4**2, rel=0.01)
    assert _scipy_net(n, 0.06) / n <= 1e-4 < _scipy_net(n - 1, 0.06) / (n - 1)


def _scipy_net(n: int, d: float) -> int:
    """2k - m for n cases at discordance d, k the smallest count with scipy's two-sided binomial p < 0.05."""
    m = math.floor(n * d + 0.5 + 1e-9 * n * d)
    ks = np.arange(m // 2 + 1, m // 2 + 4 * math.isqrt(m))
    k = int(ks[2 * stats.binom.sf(ks - 1, m, 0.5) < 0.05][0])
    return 2 * k - m


def test_connor_cases_overflows_to_inf_not_an_error() -> None:
    assert math.isinf(rs.connor_cases(1e-200, 0.06))
    assert rs.connor_cases(1e-100, 0.06) == pytest.approx(
        (z_two_sided(0.05) * math.sqrt(0.06) + stats.norm.ppf(0.8) * math.sqrt(0.06)) ** 2 / 1e-200
    )


def test_sqrt_law_cases_bounds() -> None:
    assert sqrt_law_cases(200, 0.04, 0.01) == 3200
    assert sqrt_law_cases(200, math.inf, 0.01) is None
    assert sqrt_law_cases(200, 0.04, 1e-300) is None
    assert sqrt_law_cases(10**7, 1.0, 1e-1) == 10**9 and sqrt_law_cases(10**7, 1.0, 0.0999) is None


def test_z_two_sided_for_the_smallest_alpha() -> None:
    assert z_two_sided(0.05) == stats.norm.isf(0.025)
    # 5e-324 / 2 underflows; the expansion agrees with the exact quantile at the next-smallest alphas to 0.01
    for a in (1e-320, 1e-310, 1e-300):
        z1 = stats.norm.isf(a)
        assert z1 + math.log(2) / z1 == pytest.approx(stats.norm.isf(a / 2), abs=0.01)
    assert math.isfinite(z_two_sided(5e-324))
    assert net_upper_slope(1, 5e-324) == pytest.approx(math.sqrt(2 * (math.log(2) + 744.44)), abs=0.01)


def test_smallest_alpha_gives_critical_counts_from_scipy() -> None:
    # 2 x 2^-m < 5e-324 needs m >= 1075: below it nothing is resolvable, above it scipy confirms the count
    assert rs.critical_count(1074, 5e-324) is None
    k = rs.critical_count(5000, 5e-324)
    assert k is not None and 2 * stats.binom.sf(k - 1, 5000, 0.5) < 5e-324 <= 2 * stats.binom.sf(k - 2, 5000, 0.5)


def test_cases_limit_follows_the_server_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DataError, match=r"at most 10,000,000 .*NKP_MAX_CASES.*got 1e\+30"):
        rs.min_resolvable_diff(1e30, 0.06)  # type: ignore[arg-type]
    monkeypatch.setenv("NKP_MAX_CASES", "1000")
    with pytest.raises(DataError, match="at most 1,000"):
        rs.plan(1001, 0.06)
    assert rs.plan(1000, 0.06).cases == 1000
    p = rs.plan(200, 0.06, target_diff=0.01)
    assert p.cases_for_target_at_power_exact is None  # 4,876 is above the limit of 1,000
    assert "the exact check is skipped above 1,000 cases" in (rs.plan_sentences(p).target or "")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"points": 10**9},
        {"points": math.nan},
        {"points": 1.5},
        {"points": 1},
        {"cases_min": math.inf},
        {"cases_max": 1e308},
        {"significance": math.nan},
        {"power": math.inf},
    ],
)
def test_resolution_curve_refuses_extremes(kwargs: dict[str, float]) -> None:
    with pytest.raises(DataError):
        rs.resolution_curve(0.06, **kwargs)  # type: ignore[arg-type]


def test_resolution_curve_at_the_edges() -> None:
    c = rs.resolution_curve(5e-324, significance=5e-324, cases_min=1, cases_max=10**7, points=5)
    assert all(math.isinf(x) for x in c.min_resolvable_diff)  # no discordant case at all
    assert rs.resolution_curve(0.06, points=200.0).cases[0] == 50  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("items", "disagreements"), [(math.nan, 1), (math.inf, 1), (10, math.nan), (10, math.inf), (True, 0)]
)
def test_label_error_estimate_refuses_non_finite_counts(items: float, disagreements: float) -> None:
    with pytest.raises(DataError, match="whole number"):
        rs.estimate_label_error(items, disagreements)  # type: ignore[arg-type]


@pytest.mark.parametrize("e", [math.nan, math.inf, -math.inf, -0.1, 1.0, 1e308])
def test_label_error_floor_refuses_extremes(e: float) -> None:
    with pytest.raises(DataError, match="label error rate"):
        rs.label_error_floor(e)


def test_label_error_at_the_edges() -> None:
    assert rs.label_error_floor(5e-324).best_measurable_accuracy == 1.0
    assert invert_disagreement(math.inf, "binary") == 0.5 and invert_disagreement(-1.0, "distinct") == 0.0
    est = rs.estimate_label_error(2 * 10**6, 2 * 10**6, model="distinct")
    assert est.error_rate == 1.0 and est.ci_high == 1.0
    with pytest.raises(DataError, match="limit is 2,000,000 items"):
        rs.estimate_label_error(1e308, 1)  # type: ignore[arg-type]
