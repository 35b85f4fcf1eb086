"""Tests of nkcore.voting against brute force, closed forms, scipy/statsmodels oracles and the chapter's numbers."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from nkcore import voting as v
from nkcore.errors import DataError


def _frame(cases: dict[str, tuple[list[str], str]]) -> pd.DataFrame:
    rows = []
    for c, (answers, gold) in cases.items():
        for j, a in enumerate(answers, start=1):
            rows.append({"case": c, "sample": j, "answer": a, "gold": gold})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def worked(worked_samples_path: Path) -> v.SampleSet:
    """The chapter's worked example, parsed (a missing sample file fails: see tests/conftest.py)."""
    return v.parse_samples(pd.read_csv(worked_samples_path))


# ---------------------------------------------------------------------------------------------- parsing


def test_parse_codes_by_first_occurrence_and_gold_code() -> None:
    s = v.parse_samples(_frame({"x": (["b", "a", "b"], "a"), "y": (["c", "c"], "a")}))
    assert s.cases == ("x", "y")
    assert s.codes.tolist() == [[0, 1, 0], [0, 0, -1]]
    assert s.gold_code.tolist() == [1, -1]
    assert s.n_samples.tolist() == [3, 2]
    assert s.labels == (("b", "a"), ("c",))


def test_parse_sorts_samples_by_order_drawn() -> None:
    f = pd.DataFrame({"case": [1, 1, 1], "sample": [3, 1, 2], "answer": ["c", "a", "b"], "gold": ["a"] * 3})
    s = v.parse_samples(f)
    assert [s.labels[0][c] for c in s.codes[0]] == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (pd.DataFrame({"case": [1, 1], "sample": [1, 2], "answer": ["a", "b"]}), "missing gold"),
        (pd.DataFrame({"case": [1, 1], "sample": [1, 2], "answer": ["a", "b"], "gold": ["a", None]}), "missing gold"),
        (
            pd.DataFrame({"case": [1, 1], "sample": [1, 2], "answer": ["a", " "], "gold": ["a", "a"]}),
            "empty or missing answers",
        ),
        (pd.DataFrame({"case": [1, 2], "sample": [1, 1], "answer": ["a", "b"], "gold": ["a", "b"]}), "one sample"),
        (pd.DataFrame({"case": [1, 1], "sample": [1, 1], "answer": ["a", "b"], "gold": ["a", "a"]}), "more than once"),
        (pd.DataFrame({"case": [1, 1], "sample": [1, 2], "answer": ["a", "b"], "gold": ["a", "b"]}), "one gold"),
        (pd.DataFrame({"case": [1, 1], "sample": ["x", 2], "answer": ["a", "b"], "gold": ["a", "a"]}), "sample"),
        (pd.DataFrame({"case": [1, 1], "sample": [1, 2], "correct": [1, 2]}), "0/1"),
        (pd.DataFrame({"case": [1, 1], "sample": [1, 2], "gold": ["a", "a"]}), "answer column"),
        (pd.DataFrame({"sample": [1, 2], "answer": ["a", "b"], "gold": ["a", "a"]}), "case"),
        (
            pd.DataFrame(
                {"case": [1, 1], "sample": [1, 2], "answer": ["a", "b"], "gold": ["a", "a"], "latency_s": [1, -1]}
            ),
            "latency_s",
        ),
        (
            pd.DataFrame(
                {"case": [1, 1], "sample": [1, 2], "answer": ["a", "b"], "gold": ["a", "a"], "correct": [1, 1]}
            ),
            "disagrees",
        ),
        (pd.DataFrame({"case": [], "sample": [], "answer": [], "gold": []}), "empty"),
    ],
)
def test_parse_errors_are_precise(frame: pd.DataFrame, words: str) -> None:
    with pytest.raises(DataError, match=words):
        v.parse_samples(frame)


def test_empty_answer_message_names_the_row() -> None:
    f = pd.DataFrame({"case": [1, 1, 1], "sample": [1, 2, 3], "answer": ["a", "a", ""], "gold": ["a"] * 3})
    with pytest.raises(DataError, match="data row 3"):
        v.parse_samples(f)


def test_unequal_sample_counts_use_cases_with_at_least_n() -> None:
    s = v.parse_samples(_frame({"a": (["g", "g", "w"], "g"), "b": (["w", "g"], "g"), "c": (["g"], "g")}))
    curve = v.vote_curve(s, n_boot=200, seed=1)
    assert [p.n_cases for p in curve.points] == [3, 2, 1]
    assert s.cases_with_at_least(2) == 2
    # n = 3 uses case a only: first-3 vote g, g, w -> correct
    assert curve.point(3).first_n_accuracy == 1.0


def test_binary_correct_column_equals_single_wrong_answer() -> None:
    rng = np.random.default_rng(3)
    corr = rng.random((30, 5)) < 0.6
    case = np.repeat(np.arange(30), 5)
    sample = np.tile(np.arange(1, 6), 30)
    binary = pd.DataFrame({"case": case, "sample": sample, "correct": corr.ravel().astype(int)})
    answers = pd.DataFrame({"case": case, "sample": sample, "answer": np.where(corr.ravel(), "g", "w"), "gold": "g"})
    a, b = v.parse_samples(binary), v.parse_samples(answers)
    assert a.binary and not b.binary
    for tie in v.TIE_RULES:
        np.testing.assert_allclose(v.case_credit_exact(a, tie), v.case_credit_exact(b, tie))
        np.testing.assert_allclose(v.case_credit_first_n(a, tie), v.case_credit_first_n(b, tie))


def test_answer_with_correct_column_merges_correct_answers() -> None:
    f = pd.DataFrame(
        {"case": [1] * 4, "sample": [1, 2, 3, 4], "answer": ["1/2", "0.5", "x", "x"], "correct": [1, 1, 0, 0]}
    )
    s = v.parse_samples(f)
    # 0.5 and 1/2 count as one correct answer: 2 vs 2, the correct one seen first wins under 'first'
    assert v.case_credit_first_n(s, "first")[0, 3] == 1.0
    bad = f.assign(correct=[1, 1, 1, 0])
    with pytest.raises(DataError, match="both correct and wrong"):
        v.parse_samples(bad)


# ---------------------------------------------------------------------------------------------- vote rules


@given(st.lists(st.sampled_from("abcd"), min_size=1, max_size=9), st.sampled_from("abcd"))
def test_first_rule_is_counter_most_common(answers: list[str], gold: str) -> None:
    assert v.plurality_correct(answers, gold, "first") == float(Counter(answers).most_common(1)[0][0] == gold)


def _brute_exact(answers: list[str], gold: str, tie: str) -> list[float]:
    m = len(answers)
    out = [0.0]
    for n in range(1, m + 1):
        subsets = list(itertools.combinations(answers, n))
        out.append(sum(v.plurality_correct(list(sub), gold, tie) for sub in subsets) / len(subsets))
    return out


def _groups(answers: list[str], gold: str) -> tuple[int, tuple[int, ...]]:
    c = Counter(answers)
    return c.get(gold, 0), tuple(k for a, k in c.items() if a != gold)


@given(st.lists(st.sampled_from("gabcd"), min_size=1, max_size=9), st.sampled_from(["wrong", "split"]))
def test_exact_curve_equals_subset_enumeration(answers: list[str], tie: str) -> None:
    n_gold, wrong = _groups(answers, "g")
    np.testing.assert_allclose(v.exact_case_curve(n_gold, wrong, tie), _brute_exact(answers, "g", tie), atol=1e-12)


@given(st.lists(st.sampled_from("gabc"), min_size=1, max_size=6))
def test_first_seen_over_random_orders_equals_split(answers: list[str]) -> None:
    """For a uniformly random subset in random order, first-seen wins a tie == split credit (enumerate orders)."""
    m = len(answers)
    n_gold, wrong = _groups(answers, "g")
    exact = v.exact_case_curve(n_gold, wrong, "first")
    for n in range(1, m + 1):
        perms = list(itertools.permutations(range(m), n))  # ordered subsets = random subset in random order
        brute = sum(v.plurality_correct([answers[i] for i in p], "g", "first") for p in perms) / len(perms)
        assert exact[n] == pytest.approx(brute, abs=1e-12)


@given(
    st.lists(
        st.tuples(st.lists(st.sampled_from("gabc"), min_size=1, max_size=7), st.sampled_from("gab")),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(v.TIE_RULES),
)
def test_first_n_credit_matches_a_counter_loop(cases: list[tuple[list[str], str]], tie: str) -> None:
    if max(len(a) for a, _ in cases) < 2:
        cases = [(cases[0][0] + cases[0][0][:1], cases[0][1]), *cases[1:]]
    frame = _frame({f"c{i}": case for i, case in enumerate(cases)})
    s = v.parse_samples(frame)
    got = v.case_credit_first_n(s, tie)
    for i, (answers, gold) in enumerate(cases):
        for n in range(1, s.max_n + 1):
            if n > len(answers):
                assert math.isnan(got[i, n - 1])
            else:
                assert got[i, n - 1] == pytest.approx(v.plurality_correct(answers[:n], gold, tie))


@pytest.mark.parametrize(("n_gold", "n_wrong"), [(9, 6), (16, 15), (20, 11), (600, 400), (333, 667)])
@pytest.mark.parametrize("tie", ["split", "wrong"])
def test_two_answer_case_is_the_hypergeometric_tail(n_gold: int, n_wrong: int, tie: str) -> None:
    """Oracle (scipy): with one wrong answer, X gold samples in a random n-subset is hypergeometric; the vote is
    right when X > n / 2 and, at even n, tied when X = n / 2. Up to 1,000 samples (C(1000, 500) ~ 1e299: no
    overflow, no NaN)."""
    m = n_gold + n_wrong
    got = v.exact_case_curve(n_gold, (n_wrong,), tie)  # type: ignore[arg-type]
    ns = np.arange(1, m + 1)
    dist = stats.hypergeom(m, n_gold, ns)
    want = dist.sf(ns // 2) + np.where(ns % 2 == 0, (0.5 if tie == "split" else 0.0) * dist.pmf(ns // 2), 0.0)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got[1:], want, atol=1e-10)


@pytest.mark.parametrize(("n_gold", "wrong"), [(10, (8, 7, 6)), (12, (12, 4, 2, 1)), (5, (9, 9))])
def test_many_answer_case_is_a_multivariate_hypergeometric_sum(n_gold: int, wrong: tuple[int, ...]) -> None:
    """Oracle (scipy.stats.multivariate_hypergeom): sum the pmf of every count vector of an n-subset, with split
    credit 1 / (number of answers tied at the top) when gold is among them. Even n and 31 samples included."""
    sizes = [n_gold, *wrong]
    m = sum(sizes)
    got = v.exact_case_curve(n_gold, wrong, "split")
    for n in range(1, m + 1):
        grids = np.meshgrid(*[np.arange(min(g, n) + 1) for g in sizes], indexing="ij")
        x = np.stack([g.ravel() for g in grids], axis=1)
        x = x[x.sum(axis=1) == n]
        pmf = stats.multivariate_hypergeom.pmf(x, m=sizes, n=n)
        top = x.max(axis=1)
        credit = np.where(x[:, 0] == top, 1.0 / (x == top[:, None]).sum(axis=1), 0.0)
        assert got[n] == pytest.approx(float((pmf * credit).sum()), abs=1e-10), n


def test_exact_curve_at_31_samples_by_10000_cases_is_finite_and_bounded() -> None:
    """The benchmark's size: every value finite, in [0, 1], and the mean equals the per-case rows' mean."""
    rng = np.random.default_rng(31)
    g = rng.integers(0, 6, size=(10_000, 31))
    g[rng.random(10_000) < 0.3] = 0  # some unanimous cases (all gold)
    answers = np.where(g == 0, "g", np.char.add("w", g.astype(str)))
    frame = pd.DataFrame(
        {"case": np.repeat(np.arange(10_000), 31), "sample": np.tile(np.arange(1, 32), 10_000),
         "answer": answers.ravel(), "gold": "g"}
    )  # fmt: skip
    s = v.parse_samples(frame)
    for tie in ("split", "wrong"):
        exact = v.case_credit_exact(s, tie)  # type: ignore[arg-type]
        assert np.isfinite(exact).all() and exact.min() >= 0 and exact.max() <= 1 + 1e-12
        i = int(np.argmax(g.sum(axis=1) > 0))
        c = Counter(answers[i])
        np.testing.assert_allclose(
            exact[i],
            v.exact_case_curve(c["g"], tuple(k for a, k in c.items() if a != "g"), tie)[1:],  # type: ignore[arg-type]
        )


def test_exact_case_curve_large_case_sums_to_one_under_split() -> None:
    # credit over all answers of a subset sums to 1 under split: check with the gold group each in turn
    sizes = (9, 7, 5, 3, 3, 2, 1, 1)
    total = np.zeros(sum(sizes) + 1)
    for i, g in enumerate(sizes):
        total += v.exact_case_curve(g, tuple(s for j, s in enumerate(sizes) if j != i), "split")
    np.testing.assert_allclose(total[1:], 1.0, atol=1e-12)


def test_subset_keeps_the_chosen_cases() -> None:
    f = _frame({"a": (list("gga"), "g"), "b": (list("ab"), "g"), "c": (list("gbbb"), "g")})
    s = v.parse_samples(f)
    sub = s.subset(np.array([True, False, True]))
    direct = v.parse_samples(f[f["case"] != "b"])
    assert sub.cases == direct.cases and sub.n_samples.tolist() == direct.n_samples.tolist()
    np.testing.assert_array_equal(v.case_credit_first_n(sub), v.case_credit_first_n(direct)[:, : sub.max_n])
    with pytest.raises(DataError, match="at least one case"):
        s.subset(np.zeros(3, dtype=bool))


def test_bad_tie_rule() -> None:
    with pytest.raises(DataError, match="tie rule"):
        v.exact_case_curve(1, (1,), "coin")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- curve + bootstrap


def test_vote_curve_is_seeded_and_paired() -> None:
    rng = np.random.default_rng(0)
    answers = {f"c{i}": (list(rng.choice(list("gab"), size=5, p=[0.6, 0.3, 0.1])), "g") for i in range(60)}
    s = v.parse_samples(_frame(answers))
    a = v.vote_curve(s, n_boot=500, seed=7)
    b = v.vote_curve(s, n_boot=500, seed=7)
    assert a == b
    for p in a.points:
        assert p.ci_low <= p.accuracy <= p.ci_high
    # paired: the step interval is much narrower than either marginal interval
    p3 = a.point(3)
    assert (p3.diff_ci_high - p3.diff_ci_low) < 0.5 * (p3.ci_high - p3.ci_low)
    exact = v.case_credit_exact(s, "first")
    assert a.point(3).accuracy == pytest.approx(np.nanmean(exact[:, 2]))


# ---------------------------------------------------------------------------------------------- models


def test_independent_model_chapter_numbers() -> None:
    """The chapter: p = 0.71 gives 79.6%, 85.0%, 88.6% at n = 3, 5, 7 (88.66% exactly; the chapter truncates)."""
    assert v.independent_accuracy(0.71, 3) == pytest.approx(0.796, abs=5e-4)
    assert v.independent_accuracy(0.71, 5) == pytest.approx(0.850, abs=5e-4)
    assert v.independent_accuracy(0.71, 7) == pytest.approx(0.886, abs=1e-3)


@pytest.mark.parametrize("n", [1, 3, 5, 7, 9, 15, 31])
@pytest.mark.parametrize("p", [0.3, 0.55, 0.71, 0.9])
def test_independent_model_is_the_binomial_tail_at_odd_n(n: int, p: float) -> None:
    assert v.independent_accuracy(p, n) == pytest.approx(stats.binom.sf(n // 2, n, p), rel=1e-10)


def test_independent_model_is_continuous_and_increasing_in_n() -> None:
    xs = np.linspace(1, 15, 200)
    ys = np.array([v.independent_accuracy(0.71, x) for x in xs])
    assert np.all(np.diff(ys) > 0)
    assert np.max(np.abs(np.diff(ys))) < 0.01


def test_n_eff_chapter_numbers() -> None:
    """rho = 0.17: N_eff 3.0 at n = 5, 3.5 at n = 7. At n = 15 the formula gives 4.44 (the chapter prints 4.3)."""
    assert round(v.n_eff(5, 0.17), 1) == 3.0
    assert round(v.n_eff(7, 0.17), 1) == 3.5
    assert v.n_eff(15, 0.17) == pytest.approx(15 / 3.38)
    assert v.n_eff(15, 0.17) - v.n_eff(7, 0.17) < 1.0  # "doubling the budget buys less than one effective sample"
    assert v.n_eff(9, 0.0) == 9 and v.n_eff(9, 1.0) == 1
    with pytest.raises(DataError):
        v.n_eff(5, -0.5)


def test_correlated_model_at_an_integer_n_eff_is_the_binomial_majority() -> None:
    """rho = 1/6 makes n = 5 worth N_eff = 3 samples, rho = 0.1 makes n = 9 worth 5: binomial tails (scipy)."""
    assert v.correlated_accuracy(0.71, 5, 1 / 6) == pytest.approx(stats.binom.sf(1, 3, 0.71), rel=1e-10)
    assert v.correlated_accuracy(0.6, 9, 0.1) == pytest.approx(stats.binom.sf(2, 5, 0.6), rel=1e-10)


def test_correlated_curve_reads_independent_curve_at_n_eff() -> None:
    got = v.correlated_curve(0.71, (1, 3, 5, 7), 0.17)
    want = [
        v.independent_accuracy(0.71, 5 / (1 + 4 * 0.17) if n == 5 else n / (1 + (n - 1) * 0.17)) for n in (1, 3, 5, 7)
    ]
    np.testing.assert_allclose(got, want)
    assert got[0] == pytest.approx(0.71)
    table = v.n_eff_table(0.71, (5, 7), 0.17)
    assert table[0].independent == pytest.approx(v.independent_accuracy(0.71, 5))
    assert table[1].correlated < table[1].independent


def _binary_frame(k: np.ndarray, m: np.ndarray) -> pd.DataFrame:
    rows = []
    for i, (ki, mi) in enumerate(zip(k, m, strict=True)):
        rows += [{"case": i, "sample": j + 1, "correct": int(j < ki)} for j in range(mi)]
    return pd.DataFrame(rows)


def test_rho_equals_anova_from_statsmodels() -> None:
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    rng = np.random.default_rng(11)
    m = rng.integers(2, 9, size=40)
    k = rng.binomial(m, rng.beta(2, 1, size=40))
    frame = _binary_frame(k, m)
    s = v.parse_samples(frame)
    est = v.estimate_rho(s, n_boot=200, seed=0)
    table = sm.stats.anova_lm(ols("correct ~ C(case)", data=frame).fit())
    msb, msw = table["mean_sq"].iloc[0], table["mean_sq"].iloc[1]
    big_n, g = m.sum(), len(m)
    n0 = (big_n - (m**2).sum() / big_n) / (g - 1)
    assert est.n0 == pytest.approx(n0)
    assert est.rho == pytest.approx((msb - msw) / (msb + (n0 - 1) * msw), rel=1e-9)
    assert est.ci_low <= est.rho <= est.ci_high


def test_rho_ignores_cases_with_one_sample_and_checks_its_inputs() -> None:
    rng = np.random.default_rng(12)
    m = rng.integers(2, 8, size=50)
    k = rng.binomial(m, rng.beta(2, 2, size=50))
    base = v.estimate_rho(v.parse_samples(_binary_frame(k, m)), n_boot=200, seed=0)
    more = v.estimate_rho(v.parse_samples(_binary_frame(np.r_[k, 1, 0, 1], np.r_[m, 1, 1, 1])), n_boot=200, seed=0)
    assert more.rho == pytest.approx(base.rho) and more.n_cases == 50
    one = v.parse_samples(_frame({"a": (list("gga"), "g")}))
    with pytest.raises(DataError, match=r"at least 2 cases.*this data has 1"):
        v.estimate_rho(one)
    with pytest.raises(DataError, match="non-negative integer"):
        v.estimate_rho(v.parse_samples(_binary_frame(k, m)), seed=-3)
    with pytest.raises(DataError, match="between 100 and 100,000"):
        v.vote_curve(v.parse_samples(_binary_frame(k, m)), n_boot=10**7)


def test_rho_recovers_beta_binomial_correlation() -> None:
    rng = np.random.default_rng(5)
    a, b = 2.0, 1.0  # rho = 1 / (a + b + 1) = 0.25
    m = np.full(3000, 7)
    k = rng.binomial(m, rng.beta(a, b, size=3000))
    s = v.parse_samples(_binary_frame(k, m))
    est = v.estimate_rho(s, n_boot=300, seed=1)
    assert est.ci_low < 0.25 < est.ci_high
    fit = v.fit_beta_binomial(s)
    assert fit.alpha == pytest.approx(a, rel=0.15) and fit.beta == pytest.approx(b, rel=0.15)
    assert fit.rho == pytest.approx(0.25, abs=0.03)
    truth = stats.betabinom.logpmf(k, m, a, b).sum()
    assert fit.log_likelihood >= truth - 1e-6  # the ML fit is at least as likely as the truth


def test_beta_binomial_curve_equals_integral_over_difficulty() -> None:
    fit = v.BetaBinomialFit(alpha=1.3, beta=0.7, mean=1.3 / 2, rho=1 / 3, log_likelihood=0.0, n_cases=1)
    got = v.beta_binomial_curve(fit, (1, 2, 3, 4, 7), "split")
    for n, g in zip((1, 2, 3, 4, 7), got, strict=True):

        def integrand(p: float, n: int = n) -> float:
            tail = (
                stats.binom.sf(n // 2, n, p)
                if n % 2
                else stats.binom.sf(n // 2, n, p) + 0.5 * stats.binom.pmf(n // 2, n, p)
            )
            return tail * stats.beta.pdf(p, 1.3, 0.7)

        assert g == pytest.approx(integrate.quad(integrand, 0, 1)[0], abs=1e-7)
    wrong = v.beta_binomial_curve(fit, (2,), "wrong")[0]
    assert wrong < got[1]


def test_next_step_on_independent_binary_data_holds() -> None:
    rng = np.random.default_rng(2)
    corr = (rng.random((3000, 7)) < 0.65).astype(int)
    frame = pd.DataFrame(
        {"case": np.repeat(np.arange(3000), 7), "sample": np.tile(np.arange(1, 8), 3000), "correct": corr.ravel()}
    )
    s = v.parse_samples(frame)
    curve = v.vote_curve(s, n_boot=200, seed=0)
    chk = v.predict_next_step(curve, s, 5)
    assert chk.rho_fitted < 0.03
    assert chk.within_noise
    assert abs(chk.missed_by) < 0.01
    assert "rho" in v.next_step_sentence(chk)


def test_next_step_sentences_say_which_way() -> None:
    base = dict(fit_upto=3, predict_n=5, p_single=0.7, rho_fitted=0.1, predicted=0.8, beta_binomial=0.79)
    above = v.NextStepCheck(
        **base, measured=0.85, ci_low=0.82, ci_high=0.88, missed_by=0.05, direction="above", within_noise=False
    )
    below = v.NextStepCheck(
        **base, measured=0.75, ci_low=0.70, ci_high=0.81, missed_by=-0.05, direction="below", within_noise=True
    )
    assert "more independent" in v.next_step_sentence(above)
    assert "larger n may be worth measuring" in v.next_step_sentence(above)
    text = v.next_step_sentence(below)
    assert "flattened" in text and "systematic misreading in the prompt" in text and "cannot tell" in text


def test_next_step_errors() -> None:
    s = v.parse_samples(_frame({"a": (list("gga"), "g"), "b": (list("gaa"), "g")}))
    curve = v.vote_curve(s, n_boot=100)
    with pytest.raises(DataError, match="at most 3"):
        v.predict_next_step(curve, s, 3)
    with pytest.raises(DataError, match="k >= 3"):
        v.predict_next_step(curve, s, 1)


# ---------------------------------------------------------------------------------------------- unfixable + adaptive


def test_unfixable_on_a_small_example() -> None:
    s = v.parse_samples(
        _frame(
            {
                "uni": (list("aaaaa"), "g"),  # unanimous wrong
                "mix": (list("abagb"), "g"),  # wrong at 3 and at 5
                "fix": (list("abggg"), "g"),  # wrong at 3, right at 5
                "ok": (list("ggaaa"), "g"),  # right at 3? g,g,a -> g; at 5 a wins: not counted (right at 3)
            }
        )
    )
    u = v.unfixable_errors(s, from_n=3)
    assert (u.wrong_at_from_n, u.still_wrong, u.unanimous_wrong, u.wrong_at_largest) == (3, 2, 1, 3)
    assert [c.case for c in u.cases] == ["uni", "mix"]
    assert u.cases[0].answers == "a x5" and u.cases[0].unanimous
    assert "2 are still wrong" in v.unfixable_sentence(u)


def test_unfixable_cases_in_natural_order_within_a_group() -> None:
    """Same group (all unanimous wrong, no gold vote): numeric case ids by value, others with digit runs as numbers."""
    for ids, expected in ((["10", "2", "-1"], ["-1", "2", "10"]), (["item10", "item9"], ["item9", "item10"])):
        s = v.parse_samples(_frame({c: (list("aaa"), "g") for c in ids}))
        assert [c.case for c in v.unfixable_errors(s, from_n=3).cases] == expected


def _adaptive_loop(cases: list[tuple[list[str], str]], n0: int, m: int, trigger: str, tie: str) -> tuple[float, int]:
    correct, fired = 0.0, 0
    for answers, gold in cases:
        first = Counter(answers[:n0]).most_common()
        top = first[0][1]
        fire = {
            "no_plurality": len(first) > 1 and first[1][1] == top,
            "no_majority": 2 * top <= n0,
            "not_unanimous": top < n0,
        }[trigger]
        fired += fire
        correct += v.plurality_correct(answers[: n0 + m] if fire else answers[:n0], gold, tie)
    return correct, fired


@given(
    st.lists(st.lists(st.sampled_from("gabc"), min_size=6, max_size=6), min_size=1, max_size=12),
    st.sampled_from(v.TRIGGERS),
    st.sampled_from(v.TIE_RULES),
)
def test_adaptive_matches_a_plain_loop(answer_lists: list[list[str]], trigger: str, tie: str) -> None:
    cases = [(a, "g") for a in answer_lists]
    s = v.parse_samples(_frame({f"c{i}": c for i, c in enumerate(cases)}))
    r = v.adaptive_topup(s, 3, 2, trigger, tie)  # type: ignore[arg-type]
    correct, fired = _adaptive_loop(cases, 3, 2, trigger, tie)
    assert r.correct == pytest.approx(correct)
    assert r.n_topped_up == fired
    assert r.expected_calls == pytest.approx(3 + 2 * fired / len(cases))


def test_two_extra_samples_can_overturn_a_two_one_start() -> None:
    # g g a | a a : no_plurality does not top up (2-1 has a plurality), yet n = 5 would say a
    s = v.parse_samples(_frame({"c": (list("ggaaa"), "g")}))
    r = v.adaptive_topup(s, 3, 2, "no_plurality")
    assert r.changed_without_topup == 1 and r.correct == 1
    u = v.adaptive_topup(s, 3, 2, "not_unanimous")
    assert u.changed_without_topup == 0 and u.correct == 0
    assert "overturn" in v.adaptive_sentence(r)


def test_adaptive_errors() -> None:
    s = v.parse_samples(_frame({"c": (list("gga"), "g")}))
    with pytest.raises(DataError, match="needs 5 samples"):
        v.adaptive_topup(s, 3, 2)
    with pytest.raises(DataError, match="trigger"):
        v.adaptive_topup(s, 1, 1, "sometimes")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- the worked example


def test_worked_example_first_n_counts(worked: v.SampleSet) -> None:
    """The chapter: 142, 156, 158, 158 correct of 200 at n = 1, 3, 5, 7 (first n samples, first-seen tie rule)."""
    credit = v.case_credit_first_n(worked, "first")
    assert worked.n_cases == 200 and worked.max_n == 7
    assert [int(credit[:, n - 1].sum()) for n in (1, 3, 5, 7)] == [142, 156, 158, 158]
    for tie in ("wrong", "split"):  # n = 5 and 7 never tie
        c = v.case_credit_first_n(worked, tie)
        assert [c[:, n - 1].sum() for n in (5, 7)] == [158, 158]


def test_worked_example_curve_reading(worked: v.SampleSet) -> None:
    curve = v.vote_curve(worked, n_boot=500, seed=0)
    assert [curve.point(n).first_n_correct for n in (1, 3, 5, 7)] == [142, 156, 158, 158]
    # with every sample voting the exact curve ends where the first-7 reading does
    assert curve.point(7).accuracy == pytest.approx(0.79)


def test_worked_example_unfixable(worked: v.SampleSet) -> None:
    """The chapter: of 44 wrong at n = 3, 38 are still wrong at n = 7; it says 31 unanimous, this data has 30
    (sample_data/README.md: the chapter's other figures rule out 31 under this vote rule)."""
    u = v.unfixable_errors(worked, from_n=3)
    assert (u.wrong_at_from_n, u.still_wrong, u.unanimous_wrong) == (44, 38, 30)
    assert u.wrong_at_largest == 42


def test_worked_example_adaptive(worked: v.SampleSet) -> None:
    """The chapter: 3+2 tops up 19%, 3.38 calls per request, 158 of 200 correct."""
    r = v.adaptive_topup(worked, 3, 2, "no_plurality")
    assert r.share_topped_up == pytest.approx(0.19)
    assert r.expected_calls == pytest.approx(3.38)
    assert r.correct == 158
    nu = v.adaptive_topup(worked, 3, 2, "not_unanimous")
    assert nu.share_topped_up > r.share_topped_up and nu.changed_without_topup == 0
    assert r.changed_without_topup > 0  # the chapter's "two cannot outvote three" fails for 2-1 starts


def test_worked_example_rho(worked: v.SampleSet) -> None:
    est = v.estimate_rho(worked, n_boot=300, seed=0)
    assert 0.3 < est.rho < 0.4  # the README's "about 0.35"
    assert est.ci_low < est.rho < est.ci_high


def test_analyze_samples_bundles_everything() -> None:
    rng = np.random.default_rng(4)
    answers = {f"c{i}": (list(rng.choice(list("gab"), size=7, p=[0.6, 0.3, 0.1])), "g") for i in range(40)}
    a = v.analyze_samples(_frame(answers), n_boot=200)
    assert a.n_cases == 40 and a.max_n == 7
    assert len(a.curve.points) == 7 and len(a.n_eff) == 7
    assert a.next_step is not None and a.next_step.fit_upto == 5 and a.next_step.predict_n == 7


def test_curve_steps_are_paired_two_sample_steps() -> None:
    rng = np.random.default_rng(8)
    answers = {f"c{i}": (list(rng.choice(list("gab"), size=7, p=[0.55, 0.3, 0.15])), "g") for i in range(80)}
    s = v.parse_samples(_frame(answers))
    curve = v.vote_curve(s, n_boot=400, seed=3)
    exact = v.case_credit_exact(s, "first")
    p5 = curve.point(5)
    assert p5.diff_from_n == 3
    assert p5.diff == pytest.approx(np.mean(exact[:, 4] - exact[:, 2]))
    assert p5.diff_ci_low <= p5.diff <= p5.diff_ci_high
    assert curve.point(2).diff_from_n == 0 and math.isnan(curve.point(2).diff)
    text = v.curve_sentence(curve)
    assert "n = 1 to 3" in text and "n = 5 to 7" in text and "paired interval" in text


def test_rho_and_what_if_sentences() -> None:
    est = v.RhoEstimate(0.17, 0.1, 0.25, 0.71, 200, 1400, 7.0, "x")
    text = v.rho_sentence(est, 7)
    assert "rho = 0.17" in text and "N_eff = 3.5" in text
    what = v.what_if_sentence(0.71, 0.17, 5)
    assert "N_eff = 3.0" in what and f"{v.correlated_accuracy(0.71, 5, 0.17):.1%}" in what and "85.0%" in what


def test_next_step_differences_are_between_the_shown_values() -> None:
    """75.1% predicted, 75.4% measured (0.7514 and 0.7536): '0.3 points', as the reader computes it, not 0.2."""
    from nkcore.voting.next_step import NextStepCheck
    from nkcore.voting.sentences import next_step_sentence

    check = NextStepCheck(5, 7, 0.63, 0.2, 0.7514, 0.70, 0.7536, 0.70, 0.80, 0.0022, "above", True)
    text = next_step_sentence(check, estimated=0.21)
    assert "predicts 75.1% at n = 7 and the data measured 75.4%" in text
    assert "climbed 0.3 points higher" in text
    assert "differ because" not in text  # 0.20 vs 0.21: no story about two rhos
    assert "The two rhos differ because" in next_step_sentence(check, estimated=0.35)
