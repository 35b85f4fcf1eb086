"""The exact vote curve on heavy free-form samples (issue 52, "heavy views"): its closed forms against independent
counts, the former computation, and the Sampling page's one computation against its parts.

Oracles: enumeration of every n-subset (small cases); the former tie-count recursion restated here (every gold
count a through the (tie count x degree) table, as the code did before the closed forms); for one-sample wrong
answers only, the count with Python integers (``math.comb``): with one gold sample in the subset every other sample
ties with it (credit 1/n), with two or more gold no one-sample answer can reach it; per-column
``np.nanpercentile``; per-n ``scipy.stats.betabinom``.
"""

from __future__ import annotations

import io
import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import tests.hostile_files as hf
from nkcore import voting as v
from nkcore.common import limits
from nkcore.voting.curve import column_percentiles
from nkcore.voting.exact import case_groups, exact_work


def _former_curve(n_gold: int, wrong: tuple[int, ...], tie: str) -> np.ndarray:
    """The exact curve as it was computed before the closed forms: for every gold count a, the table of
    (tie count t, degree d) of prod over groups >= a of [sum_{x<a} C(g, x) z^x + w C(g, a) z^a] times C(small, .),
    credit sum_t coef / (t + 1) (split) or t = 0 only (wrong), in exact integers (Python), divided by C(m, n)."""
    m = n_gold + sum(wrong)
    out = [Fraction(0)] * (m + 1)
    for a in range(1, n_gold + 1):
        small = sum(g for g in wrong if g < a)
        table: dict[tuple[int, int], int] = {(0, d): math.comb(small, d) for d in range(small + 1)}
        for g in (g for g in wrong if g >= a):
            grown: dict[tuple[int, int], int] = {}
            for (t, d), c in table.items():
                for x in range(a):
                    grown[(t, d + x)] = grown.get((t, d + x), 0) + c * math.comb(g, x)
                grown[(t + 1, d + a)] = grown.get((t + 1, d + a), 0) + c * math.comb(g, a)
            table = grown
        for (t, d), c in table.items():
            if a + d <= m and (tie == "split" or t == 0):
                out[a + d] += Fraction(math.comb(n_gold, a) * c, t + 1)
    return np.array([0.0] + [float(out[n] / math.comb(m, n)) for n in range(1, m + 1)])


def _enumerated(n_gold: int, wrong: tuple[int, ...], tie: str) -> list[float]:
    answers = ["g"] * n_gold + [f"w{j}" for j, g in enumerate(wrong) for _ in range(g)]
    out = [0.0]
    for n in range(1, len(answers) + 1):
        subsets = list(itertools.combinations(answers, n))
        out.append(sum(v.plurality_correct(list(s), "g", tie) for s in subsets) / len(subsets))  # type: ignore[arg-type]
    return out


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 6),
    st.lists(st.integers(1, 4), max_size=5).map(lambda x: tuple(sorted(x, reverse=True))),
    st.sampled_from(["split", "wrong"]),
)
def test_exact_curve_equals_enumeration(n_gold: int, wrong: tuple[int, ...], tie: str) -> None:
    if n_gold + sum(wrong) > 12:
        wrong = wrong[:2]
    np.testing.assert_allclose(v.exact_case_curve(n_gold, wrong, tie), _enumerated(n_gold, wrong, tie), atol=1e-12)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("n_gold", "wrong"),
    [
        (7, (1,) * 40),  # free-form: one-sample answers only (a = 1 closed form; a >= 2 one convolution)
        (30, (12, 1, 1, 1, 1, 1, 1, 1, 1)),  # one large wrong answer alone above the others for a = 2..12
        (12, (30, 3, 2, 2, 1, 1, 1)),  # gold below the largest wrong answer
        (25, (9, 9, 4, 4, 4, 2, 2, 1, 1, 1, 1)),  # ties between equal groups, a up to 9 through the table
        (3, (2, 2, 2, 2, 2, 2, 2, 2, 2, 2)),
        (40, ()),  # every sample right
        (0, (5, 3)),  # no gold sample
        (1, (60,)),
    ],
)
@pytest.mark.parametrize("tie", ["split", "wrong"])
def test_exact_curve_equals_the_former_computation(n_gold: int, wrong: tuple[int, ...], tie: str) -> None:
    got = v.exact_case_curve(n_gold, wrong, tie)  # type: ignore[arg-type]
    np.testing.assert_allclose(got, _former_curve(n_gold, wrong, tie), rtol=1e-12, atol=1e-15)


def _one_sample_answers_credit(n_gold: int, singles: int, n: int) -> float:
    """Split credit at n of a case with ``n_gold`` gold samples and ``singles`` one-sample wrong answers, counted
    with integers: a = 1 gold in the subset ties with its n - 1 others (credit 1/n each); a >= 2 always wins."""
    m = n_gold + singles
    total = Fraction(n_gold * math.comb(singles, n - 1), n)
    total += sum(math.comb(n_gold, a) * math.comb(singles, n - a) for a in range(2, min(n_gold, n) + 1))
    return float(total / math.comb(m, n))


def test_the_issues_free_form_file_is_exact_and_within_the_work_limit() -> None:
    """The issue's file: 300 cases x 1,000 samples, 1 + c % 40 gold samples and one-sample wrong answers
    (refused before: 5.0e10 multiply-adds estimated against the 8e9 limit)."""
    samples = v.parse_samples(pd.read_csv(io.BytesIO(hf.samples_distinct_answers(300, 1000))))
    keys = set(case_groups(samples))
    assert len(keys) == 40 and all(set(sizes) == {1} for _, sizes in keys)
    work = sum(exact_work(g, sizes) for g, sizes in keys)
    assert work < limits.get("vote_work") / 10, work
    credit = v.case_credit_exact(samples, "split")
    rng = np.random.default_rng(52)
    for i in rng.choice(300, size=4, replace=False):
        n_gold = 1 + int(i) % 40
        for n in (1, 2, 3, 10, 57, 500, 999, 1000):
            assert credit[i, n - 1] == pytest.approx(_one_sample_answers_credit(n_gold, 1000 - n_gold, n), rel=1e-12)


def test_sampling_numbers_are_each_parts_own_numbers(worked_samples_path: object) -> None:
    frame = pd.read_csv(worked_samples_path)  # type: ignore[call-overload]
    for tie in ("first", "split", "wrong"):
        got = v.sampling_numbers(frame, tie=tie, n_boot=300, seed=3)  # type: ignore[arg-type]
        assert got.analysis == v.analyze_samples(frame, tie=tie, n_boot=300, seed=3, from_n=None)  # type: ignore[arg-type]
        assert got.passk == v.passk_from_frame(frame, tie=tie, n_boot=300, seed=3)  # type: ignore[arg-type]
        assert got.flaky == v.flaky_from_frame(frame)
        # the page's opening unfixable errors and model check are the sections' own computations at that n and k
        a = got.analysis
        assert a.unfixable == v.unfixable_from_frame(frame, from_n=a.unfixable.from_n, tie=tie)  # type: ignore[arg-type]
        assert a.next_step is not None
        assert a.next_step == v.next_step_from_frame(frame, fit_upto=a.next_step.fit_upto, tie=tie, n_boot=300, seed=3)  # type: ignore[arg-type]


def test_column_percentiles_equal_nanpercentile_column_by_column() -> None:
    rng = np.random.default_rng(0)
    b = rng.random((501, 40))
    b[rng.random((501, 40)) < 0.05] = np.nan
    b[:, 3] = np.nan  # a column with no value
    b[:, 5] = 0.25  # a constant column
    lo, hi = column_percentiles(b)
    for j in range(b.shape[1]):
        if j == 3:
            assert np.isnan(lo[j]) and np.isnan(hi[j])
            continue
        want = np.nanpercentile(b[:, j], [2.5, 97.5])
        assert (lo[j], hi[j]) == (want[0], want[1])


def test_beta_binomial_curve_equals_scipy_one_n_at_a_time() -> None:
    fit = v.BetaBinomialFit(alpha=1.7, beta=0.6, mean=1.7 / 2.3, rho=1 / 3.3, log_likelihood=0.0, n_cases=10)
    ns = (*range(1, 60), 101, 400)
    for tie in ("first", "wrong"):
        want = []
        for n in ns:
            ks = np.arange(n + 1)
            pmf = stats.betabinom.pmf(ks, n, 1.7, 0.6)
            want.append(float(pmf[2 * ks > n].sum() + (0.0 if tie == "wrong" else 0.5) * pmf[2 * ks == n].sum()))
        assert v.beta_binomial_curve(fit, ns, tie) == tuple(want)  # type: ignore[arg-type]


def test_text_answers_read_the_same_from_arrow_and_python_strings() -> None:
    rows = {"case": [1, 1, 1, 2, 2, 2], "sample": [1, 2, 3] * 2, "answer": [" 42", "42 ", "x", "y", " y", "z\t"]}
    plain = pd.DataFrame({**rows, "gold": ["42"] * 3 + ["y"] * 3}).astype({"answer": object})
    arrow = plain.astype({"answer": "string[pyarrow]", "gold": "string[pyarrow]"})
    a, b = v.parse_samples(plain), v.parse_samples(arrow)
    assert a.labels == b.labels == (("42", "x"), ("y", "z"))
    assert a.codes.tolist() == b.codes.tolist() and a.gold_code.tolist() == b.gold_code.tolist() == [0, 0]
