"""Tests of nkcore.paired against the chapter's numbers, statsmodels/scipy oracles and brute-force enumeration.

The parsing tests are in test_paired_table.py, the exact bootstrap's in test_paired_bootstrap.py; the helpers
here (the chapter's table, the binomial-mixture oracle) serve all three and test_cli_paired.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint

from nkcore import paired as pr
from nkcore.cli.paired import compare_report
from nkcore.common import formatting, intervals
from nkcore.errors import DataError
from tests.conftest import holm_oracle

# ---------------------------------------------------------------------------------------------- the chapter's table


def worked_table() -> pr.PairedTable:
    """The chapter's 200 cases at 1, 3, 5, 7 samples per request (n), built from its counts.

    142, 156, 158, 158 correct; n=1 -> n=3: 12 only n=1, 26 only n=3; n=3 -> n=5: 5 and 7; n=5 -> n=7: 3 and 3.
    """
    n = 200
    c1 = np.zeros(n, bool)
    c1[:142] = True
    c3 = c1.copy()
    c3[:12] = False
    c3[142:168] = True
    c5 = c3.copy()
    c5[12:17] = False
    c5[168:175] = True
    c7 = c5.copy()
    c7[17:20] = False
    c7[175:178] = True
    correct = np.column_stack([c1, c3, c5, c7])
    cases = np.array([f"q{i}" for i in range(n)], dtype=object)
    return pr.PairedTable("wide", ("n=1", "n=3", "n=5", "n=7"), cases, correct, (n,) * 4, 0)


def long_frame(table: pr.PairedTable) -> pd.DataFrame:
    rows = [
        {"case": case, "config": cfg, "correct": int(table.correct[i, j])}
        for i, case in enumerate(table.cases)
        for j, cfg in enumerate(table.configs)
    ]
    return pd.DataFrame(rows)


def mixture_cdf(a: int, b: int, n: int, d: np.ndarray | list[int]) -> np.ndarray:
    """P(B* - A* <= d) by an independent route: M = A* + B* ~ Binomial(n, (a+b)/n) and, given M,
    B* ~ Binomial(M, b/(a+b)), so D = 2 B* - M <= d iff B* <= floor((d + M)/2) (scipy's binomial cdf)."""
    psi = (a + b) / n
    sd = math.sqrt(n * psi * (1 - psi))
    m = np.arange(max(0, math.floor(n * psi - 40 * sd) - 1), min(n, math.ceil(n * psi + 40 * sd) + 1) + 1)
    w = stats.binom.pmf(m, n, psi)
    p1 = b / (a + b)
    return np.array([np.sum(w * stats.binom.cdf(np.floor((x + m) / 2), m, p1)) for x in np.atleast_1d(d)])


def oracle_interval(a: int, b: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The chapter's diffs[int(q reps)] as reps -> inf: the smallest d with P(D <= d) > q, from :func:`mixture_cdf`."""
    d = np.arange(-n, n + 1)
    sd = math.sqrt(a + b)
    d = d[np.abs(d - (b - a)) <= 12 * sd + 2]
    cdf = mixture_cdf(a, b, n, d)
    q = (1 - level) / 2
    return d[np.argmax(cdf > q)] / n, d[np.argmax(cdf > 1 - q)] / n


def test_worked_table_matches_the_chapter_counts() -> None:
    t = worked_table()
    assert t.correct.sum(axis=0).tolist() == [142, 156, 158, 158]


def test_chapter_mcnemar_values() -> None:
    # "seven heads out of twelve ... 0.77"; "three each way ... 1.0"; "twenty-six of them wins ... 0.035"
    assert pr.mcnemar(5, 7).p_exact == pytest.approx(0.7744140625, abs=1e-12)
    assert round(pr.mcnemar(5, 7).p_exact, 3) == 0.774
    assert pr.mcnemar(3, 3).p_exact == 1.0
    assert pr.mcnemar(5, 7).p_exact == pytest.approx(stats.binomtest(7, 12, 0.5).pvalue, rel=1e-12)
    r = pr.mcnemar(12, 26)
    assert round(r.p_exact, 3) == 0.034
    assert round(r.p_chi2_cc, 3) == 0.035
    assert r.chi2_cc == pytest.approx(13**2 / 38)


def test_chapter_bootstrap_interval_n1_to_n3() -> None:
    # paired_bootstrap(correct_at_n1, correct_at_n3)  # (+0.010, +0.130)
    r = pr.exact_paired_bootstrap(12, 26, 200)
    assert (r.low, r.high) == pytest.approx((0.010, 0.130), abs=1e-12)
    assert r.method == "exact" and r.reps is None


def test_n3_to_n5_interval_is_the_issue_example() -> None:
    # The issue's "cannot tell: +1.0 points (-2.5 to +4.5)". (The chapter prints (-0.020, +0.040) for this pair,
    # which its own algorithm does not give on 5 vs 7 of 200: P(D <= -5) = 0.029 > 0.025, see the Monte Carlo test.)
    r = pr.exact_paired_bootstrap(5, 7, 200)
    assert (r.low, r.high) == pytest.approx(oracle_interval(5, 7, 200), abs=1e-12)
    assert (r.low, r.high) == pytest.approx((-0.025, 0.045), abs=1e-12)
    assert mixture_cdf(5, 7, 200, [-5])[0] == pytest.approx(0.0288, abs=1e-4)


def test_verdict_sentences_match_the_issue() -> None:
    o = pr.compare_ordered(worked_table())
    c13, c35, c57 = o.comparisons
    assert pr.verdict_sentence(c13) == "n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034"
    assert pr.verdict_sentence(c35) == (
        "cannot tell n=5 from n=3: +1.0 points (95% interval -2.5 to +4.5, p = 0.77) is smaller than the smallest "
        "difference 200 cases can resolve (with 12 discordant cases a difference needs 10 of them one way, a net of 8 cases = 4.0 points)"
    )
    s57 = pr.verdict_sentence(c57)
    assert s57.startswith("cannot tell n=7 from n=5: 0.0 points (95% interval -2.5 to +2.5, p = 1.0)")
    assert "6 of them one way, a net of 6 cases = 3.0 points" in s57
    # with Holm's adjustment over the 3 adjacent comparisons the n=1 -> n=3 win is only tentative
    assert o.p_holm[0] == pytest.approx(3 * c13.p_exact)
    s_holm = pr.verdict_sentence(c13, p_adjusted=o.p_holm[0], comparisons=3)
    assert s_holm == (
        "n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034; but that p is for this pair on its own: "
        "with Holm's adjustment for the 3 adjacent comparisons p = 0.10, not below alpha = 0.05, so treat the win as "
        "tentative"
    )
    assert pr.verdict_sentence(c13, p_adjusted=0.04, comparisons=3) == pr.verdict_sentence(c13)


def test_verdict_with_no_discordant_case_and_one_case() -> None:
    c = pr.compare_pair(pr.paired_table_from_counts("A", "B", 5, 0, 0, 3), "A", "B")
    assert pr.verdict_sentence(c) == (
        "cannot tell B from A: they agree on all 8 cases (no discordant case), so these data say nothing about which "
        "is better"
    )
    c = pr.compare_pair(pr.paired_table_from_counts("A", "B", 0, 1, 0, 0), "A", "B")
    s = pr.verdict_sentence(c)
    # the higher-scoring config named first, the difference as the chart draws it (higher minus lower)
    assert s.startswith("cannot tell A from B: +100.0 points") and "only 1 discordant case among 1 case no split" in s


def test_verdict_names_bootstrap_and_exact_disagreement() -> None:
    # 4 vs 0 of 200: the exact p is 0.125, but every resampled difference with no case only A gets right is >= 0,
    # and P(D = 0) = (196/200)^200 = 0.0176 < 0.025, so the percentile interval starts at +0.5 points
    c = pr.compare_pair(pr.paired_table_from_counts("A", "B", 150, 0, 4, 46), "A", "B")
    assert c.p_exact == pytest.approx(stats.binomtest(4, 4).pvalue)
    assert (c.diff_ci_low, c.diff_ci_high) == pytest.approx(oracle_interval(0, 4, 200))
    assert c.diff_ci_low > 0
    s = pr.verdict_sentence(c)
    assert (
        s.startswith("cannot tell B from A") and "the bootstrap interval misses zero" in s and "exact test decides" in s
    )
    # a 'beats' at alpha = 0.1 whose 95% interval reaches zero is called borderline
    c = pr.compare_pair(pr.paired_table_from_counts("A", "B", 150, 3, 10, 37), "A", "B", confidence=0.95)
    assert 0.05 < c.p_exact < 0.1 and c.diff_ci_low <= 0
    s = pr.verdict_sentence(c, significance=0.1)
    assert s.startswith("B beats A") and s.endswith(
        "the bootstrap interval reaches zero, so the evidence is borderline"
    )


def test_verdict_names_the_winner_when_b_is_worse() -> None:
    c = pr.compare_pair(worked_table(), "n=3", "n=1")
    assert c.diff == pytest.approx(-0.07)
    assert pr.verdict_sentence(c) == "n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034"


def test_verdict_with_too_few_discordant_cases() -> None:
    c = pr.compare_pair(pr.paired_table_from_counts("A", "B", 90, 1, 3, 6), "A", "B")
    s = pr.verdict_sentence(c)
    assert s.startswith("cannot tell B from A") and "only 4 discordant cases among 100 cases no split" in s
    # 4 of 4 one way gives p = 0.125 >= 0.05: consistent with critical_count
    assert stats.binomtest(4, 4).pvalue >= 0.05


def test_ordered_comparison_of_the_chapter() -> None:
    o = pr.compare_ordered(worked_table())
    assert [c.a_only for c in o.comparisons] == [12, 5, 3]
    assert [c.b_only for c in o.comparisons] == [26, 7, 3]
    assert [a.correct for a in o.accuracies] == [142, 156, 158, 158]
    assert o.chance_non_decreasing == pytest.approx(1 / 24)
    assert o.tied_run == ("n=3", "n=5", "n=7")
    assert o.tied_run_chance == pytest.approx(1 / 6)  # "one time in six"
    expected = holm_oracle([c.p_exact for c in o.comparisons])
    assert o.p_holm == pytest.approx(tuple(expected))
    assert o.mean_discordance == pytest.approx((38 + 12 + 6) / 3 / 200)
    text = pr.ordering_sentence(o)
    assert "n=3, n=5 and n=7 cannot be told apart" in text and "1 time in 6" in text and "1 in 24" in text
    two = pr.ordering_sentence(pr.compare_ordered(pr.paired_table_from_counts("A", "B", 5, 1, 1, 3)))
    assert two.endswith("1 time in 2, so a rising sequence among them is not evidence of a trend.")  # no "For all 2"


def test_marginal_interval_is_wider_than_the_paired_one() -> None:
    # the chapter: at 158 of 200 the standard error is sqrt(0.79 x 0.21 / 200) = 0.0288
    c = pr.compare_pair(worked_table(), "n=5", "n=7")
    se = math.sqrt(0.79 * 0.21 / 200)
    assert round(se, 4) == 0.0288
    z = stats.norm.isf(0.025)
    assert c.unpaired_ci_high - c.diff == pytest.approx(z * math.sqrt(2) * se)
    assert c.diff_ci_high - c.diff_ci_low < (c.unpaired_ci_high - c.unpaired_ci_low) / 2
    assert (c.both_correct, c.both_wrong) == (155, 39)
    assert "194 of the 200 cases came out the same" in pr.marginal_sentence(c)


def test_the_unpaired_interval_stays_within_a_difference_of_accuracies() -> None:
    """10 cases, A right on 9, B on 2: Wald's diff +- 1.96 se reached -101 points; it is cut at -100."""
    c = pr.compare_pair(pr.paired_table_from_counts("A", "B", 2, 7, 0, 1), "A", "B")
    assert c.diff == pytest.approx(-0.7)
    z = stats.norm.isf(0.025)
    wald_low = -0.7 - z * math.sqrt(0.9 * 0.1 / 10 + 0.2 * 0.8 / 10)
    assert wald_low < -1.0 and c.unpaired_ci_low == -1.0
    assert c.unpaired_ci_high == pytest.approx(-0.7 + z * math.sqrt(0.9 * 0.1 / 10 + 0.2 * 0.8 / 10))


# ---------------------------------------------------------------------------------------------- intervals


@given(
    st.integers(1, 3000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999]),
)
def test_wilson_and_clopper_pearson_match_statsmodels(kn: tuple[int, int], level: float) -> None:
    k, n = kn
    wlo, whi = proportion_confint(k, n, alpha=1 - level, method="wilson")
    blo, bhi = proportion_confint(k, n, alpha=1 - level, method="beta")
    assert intervals.wilson(k, n, level) == pytest.approx((wlo, whi), abs=1e-9)
    assert pr.proportion_interval(k, n, level, "clopper-pearson") == pytest.approx((blo, bhi), abs=1e-9)
    # the default: Clopper-Pearson under 40 cases; else Wilson with Clopper-Pearson's end when <= 4 right (wrong)
    if n < 40:
        want = (blo, bhi)
    else:
        want = (min(wlo, blo) if k <= 4 else wlo, max(whi, bhi) if n - k <= 4 else whi)
    assert pr.proportion_interval(k, n, level, "wilson") == pytest.approx(want, abs=1e-9)


def test_interval_errors() -> None:
    with pytest.raises(DataError, match="wilson"):
        pr.proportion_interval(3, 10, method="wald")
    with pytest.raises(DataError, match="0 <= correct <= n"):
        pr.proportion_interval(11, 10)
    with pytest.raises(DataError, match="level"):
        pr.proportion_interval(3, 10, confidence=95)


# ---------------------------------------------------------------------------------------------- McNemar


@given(st.integers(0, 400), st.integers(0, 400))
def test_mcnemar_matches_statsmodels_and_scipy(a: int, b: int) -> None:
    r = pr.mcnemar(a, b)
    if a + b == 0:
        assert (r.p_exact, r.p_midp, r.p_chi2_cc) == (1.0, 1.0, 1.0)
        return
    table = [[10, a], [b, 10]]
    assert r.p_exact == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-9, abs=1e-300)
    assert r.p_exact == pytest.approx(stats.binomtest(b, a + b, 0.5).pvalue, rel=1e-9, abs=1e-300)
    if a != b:  # statsmodels keeps (|b - a| - 1)^2 = 1 when a == b; we clip it at 0 (p = 1)
        assert r.p_chi2_cc == pytest.approx(sm_mcnemar(table, exact=False, correction=True).pvalue, rel=1e-9)
    else:
        assert r.p_chi2_cc == 1.0
    k, m = min(a, b), a + b
    midp = min(1.0, 2 * stats.binom.cdf(k, m, 0.5) - stats.binom.pmf(k, m, 0.5))
    assert r.p_midp == pytest.approx(midp, rel=1e-9, abs=1e-300)
    assert r.p_midp <= r.p_exact


def test_chi2_continuity_correction_follows_r_not_statsmodels_for_balanced_tables() -> None:
    # R's mcnemar.test corrects only when the discordant counts differ (its source: any(x - t(x) != 0)), so a
    # balanced table has chi2 = 0 and p = 1; statsmodels corrects always: (|3 - 3| - 1)^2 / 6 = 1/6, p = 0.683
    sm = sm_mcnemar([[10, 3], [3, 10]], exact=False, correction=True)
    assert sm.statistic == pytest.approx(1 / 6) and sm.pvalue == pytest.approx(0.6831, abs=1e-4)
    r = pr.mcnemar(3, 3)
    assert (r.chi2_cc, r.p_chi2_cc) == (0.0, 1.0)
    # wherever the counts differ the two agree, statistic and p (|b - a| = 1 gives chi2 = 0 in both)
    for a, b in ((3, 4), (12, 26), (0, 1), (40, 7)):
        sm = sm_mcnemar([[0, a], [b, 0]], exact=False, correction=True)
        assert pr.mcnemar(a, b).chi2_cc == pytest.approx(sm.statistic, abs=1e-15)
        assert pr.mcnemar(a, b).p_chi2_cc == pytest.approx(sm.pvalue, rel=1e-12)


def test_mcnemar_rejects_bad_counts() -> None:
    with pytest.raises(DataError, match="non-negative"):
        pr.mcnemar(-1, 3)
    with pytest.raises(DataError, match="whole"):
        pr.mcnemar(1.5, 3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- Holm and ordering


def _holm_rejects(ps: list[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure itself: sort, reject while p_(j) <= alpha / (m - j + 1), stop at the first failure."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out = [False] * len(ps)
    for j, i in enumerate(order):
        if ps[i] > alpha / (len(ps) - j):
            break
        out[i] = True
    return out


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_adjusted_p_is_the_smallest_alpha_that_rejects(ps: list[float]) -> None:
    """Adjusted p_i = the smallest alpha at which the step-down procedure rejects H_i (brute force over the
    candidate alphas (m - j + 1) p_(j), where the procedure's decisions can change; 1 when even alpha = 1 does not)."""
    adj = pr.holm(ps)
    m = len(ps)
    candidates = sorted({min(1.0, (m - j) * p) for j, p in enumerate(sorted(ps))} | {1.0})
    for i in range(m):
        smallest = next((c for c in candidates if _holm_rejects(ps, c * (1 + 1e-12))[i]), 1.0)  # capped at 1
        assert adj[i] == pytest.approx(smallest, abs=1e-12)


def test_holm_matches_statsmodels_on_the_chapter() -> None:
    ps = [pr.mcnemar(12, 26).p_exact, pr.mcnemar(5, 7).p_exact, pr.mcnemar(3, 3).p_exact]
    assert pr.holm(ps) == pytest.approx(tuple(holm_oracle(ps)), abs=1e-12)


def test_holm_rejects_bad_p() -> None:
    assert pr.holm([]) == ()
    with pytest.raises(DataError, match=r"\[0, 1\]"):
        pr.holm([0.2, 1.2])


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_ordering_chance_by_enumeration(k: int) -> None:
    perms = list(itertools.permutations(range(k)))
    ascending = sum(all(p[i] <= p[i + 1] for i in range(k - 1)) for p in perms)
    assert pr.ordering_chance(k) == pytest.approx(ascending / len(perms))
    assert pr.ordering_chance(3) == pytest.approx(1 / 6)


def test_ordering_chance_rejects_zero() -> None:
    with pytest.raises(DataError):
        pr.ordering_chance(0)


def test_table_from_counts_and_clopper_pearson_on_request() -> None:
    t = pr.paired_table_from_counts("A", "B", 151, 5, 7, 37)
    acc = pr.config_accuracy(t, method="clopper-pearson")
    assert [a.correct for a in acc] == [156, 158] and acc[0].method == "clopper-pearson"
    lo, hi = proportion_confint(156, 200, alpha=0.05, method="beta")
    assert (acc[0].ci_low, acc[0].ci_high) == (pytest.approx(lo), pytest.approx(hi))
    with pytest.raises(DataError, match="non-negative"):
        pr.paired_table_from_counts("A", "B", 1, -1, 0, 0)


def test_p_values_in_the_sentences_have_two_significant_digits() -> None:
    assert [formatting.format_p(p) for p in (0.0001, 0.00123, 0.0336, 0.1008, 0.774, 0.999, 1.0)] == [
        "p < 0.001",
        "p = 0.0012",
        "p = 0.034",
        "p = 0.10",
        "p = 0.77",
        "p = 1.0",
        "p = 1.0",
    ]


# ---------------------------------------------------------------------------------------------- the package


def test_the_worked_example_file_gives_the_chapter_numbers(worked_paired_frame: pd.DataFrame) -> None:
    o = pr.analyse_paired(worked_paired_frame)
    assert [a.correct for a in o.accuracies] == [142, 156, 158, 158]
    assert [(c.a_only, c.b_only) for c in o.comparisons] == [(12, 26), (5, 7), (3, 3)]
    assert [round(c.p_exact, 3) for c in o.comparisons] == [0.034, 0.774, 1.0]
    assert (o.comparisons[0].diff_ci_low, o.comparisons[0].diff_ci_high) == pytest.approx((0.01, 0.13), abs=1e-12)
    assert o.tied_run == ("n=3", "n=5", "n=7") and o.tied_run_chance == pytest.approx(1 / 6)


def test_config_accuracy_carries_the_summary_names_and_the_interval() -> None:
    a = pr.accuracy_of("n=5", 158, 200, confidence=0.9, method="exact")
    assert (a.n_correct, a.n_cases, a.correct, a.n, a.accuracy) == (158, 200, 158, 200, 0.79)
    lo, hi = proportion_confint(158, 200, alpha=0.1, method="beta")
    assert (a.ci_low, a.ci_high, a.method) == (
        pytest.approx(lo, abs=1e-12),
        pytest.approx(hi, abs=1e-12),
        "clopper-pearson",
    )
    with pytest.raises(DataError, match="0 <= correct <= n"):
        pr.accuracy_of("A", 3, 0)


def test_the_package_exports_one_object_per_name() -> None:
    assert sorted(pr.__all__) == sorted(set(pr.__all__))
    assert all(hasattr(pr, name) for name in pr.__all__)
    assert pr.proportion_interval is intervals.proportion_interval  # one home for the interval of a proportion
    assert pr.ConfigAccuracy.__module__ == "nkcore.paired.accuracy"


@pytest.mark.parametrize("alpha", [1e-300, 5e-324, 2.0**-54])
def test_compare_refuses_an_alpha_whose_level_rounds_to_one_naming_alpha(
    alpha: float, worked_paired_frame: pd.DataFrame
) -> None:
    """1 - alpha == 1.0 in floating point (alpha <= 2**-54): the refusal names --alpha, not the derived level."""
    assert 1.0 - alpha == 1.0
    with pytest.raises(DataError, match=r"^--alpha .* is too small") as err:
        compare_report(worked_paired_frame, "n=1", "n=3", alpha)
    assert "level" not in str(err.value)


def test_compare_takes_the_smallest_alpha_whose_level_is_below_one(worked_paired_frame: pd.DataFrame) -> None:
    alpha = 2.0**-52
    doc = compare_report(worked_paired_frame, "n=1", "n=3", alpha)
    assert doc["level"] == 1.0 - alpha < 1.0 and doc["alpha"] == alpha
