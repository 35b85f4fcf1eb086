"""The case is the unit: results with repeats and partial scores, against independent oracles.

Oracles: McNemar's exact test and the exact paired bootstrap (one 0/1 repeat: the same numbers), scipy's
``permutation_test`` enumerating every sign pattern (small n), brute-force enumeration of every bootstrap resample
(tiny n), a simulation with known between- and within-case variances, and real inspect_ai logs (60 cases x 3
epochs) read back with inspect_ai's own reader.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore import paired
from nkcore.cli import main
from nkcore.cli.paired import compare_report
from nkcore.errors import DataError
from nkcore.paired.lattice import bootstrap_sum_pmf, percentile_interval, sign_flip_p
from tests.inspect_logs import epoch_scores

# ------------------------------------------------------------------------------------------ one 0/1 repeat


@pytest.mark.parametrize("seed", range(4))
def test_the_lattice_laws_are_mcnemar_and_the_exact_paired_bootstrap_on_a_2x2_table(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n = int(rng.integers(1, 600))
        a = int(rng.integers(0, n + 1))
        b = int(rng.integers(0, n - a + 1))
        m = np.array([-1] * a + [1] * b + [0] * (n - a - b))
        p = sign_flip_p(m)
        assert p is not None and p == pytest.approx(paired.mcnemar(a, b).p_exact, rel=1e-12, abs=1e-300)
        law = bootstrap_sum_pmf(m)
        assert law is not None
        exact = paired.exact_paired_bootstrap(a, b, n)
        assert percentile_interval(law[0], law[1], n, 0.95) == (exact.low, exact.high)


def test_a_repeat_column_of_ones_gives_mcnemar_and_the_exact_bootstrap() -> None:
    table = paired.paired_table_from_counts("n=1", "n=3", 130, 12, 26, 32)
    frame = pd.DataFrame(
        {
            "case": np.repeat(table.cases, 2),
            "config": ["n=1", "n=3"] * table.n_cases,
            "repeat": 1,
            "correct": table.correct.astype(int).ravel(),
        }
    )
    cases = paired.parse_cases(frame)
    assert cases.single and cases.repeat_column == "repeat"
    c = paired.compare_cases(cases, "n=1", "n=3")
    ref = paired.compare_pair(table, "n=1", "n=3")
    assert c.p_value == pytest.approx(ref.p_exact, rel=1e-12)
    assert (c.diff_ci_low, c.diff_ci_high) == (ref.diff_ci_low, ref.diff_ci_high)
    assert c.diff == pytest.approx(ref.diff, abs=1e-15)


def test_one_0_1_repeat_keeps_todays_compare_document_and_adds_the_unit() -> None:
    frame = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "config": ["A", "B"] * 3, "correct": [1, 1, 0, 1, 0, 1]})
    doc = compare_report(frame, "A", "B")
    comp = paired.compare_pair(paired.parse_paired(frame), "A", "B")
    assert (doc["p_exact"], doc["p_value"], doc["test"], doc["unit"]) == (
        comp.p_exact,
        comp.p_exact,
        "McNemar exact",
        "case",
    )
    assert doc["repeats"] == {"A": {"min": 1, "max": 1}, "B": {"min": 1, "max": 1}}
    assert (doc["a_only"], doc["b_only"], doc["diff"]) == (0, 2, comp.diff)


# ------------------------------------------------------------------------------------------ exact laws


def _lattice_frame(rng: np.random.Generator, n: int, reps: int) -> pd.DataFrame:
    rows = []
    for i in range(n):
        pa, pb = rng.uniform(0.2, 0.9, size=2)
        for r in range(reps):
            rows.append((f"c{i}", r + 1, int(rng.random() < pa), int(rng.random() < pb)))
    return pd.DataFrame(rows, columns=["case", "epoch", "A", "B"])


@pytest.mark.parametrize("seed", range(3))
def test_the_sign_flip_p_equals_scipys_permutation_test_enumerating_every_sign_pattern(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = paired.parse_cases(_lattice_frame(rng, 12, 3))
    d = table.means[:, 1] - table.means[:, 0]
    res = stats.permutation_test(
        (table.means[:, 1], table.means[:, 0]),
        lambda x, y: np.mean(x - y),
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
    )
    # scipy's two-sided p doubles the smaller tail; the sign-flip law is symmetric, so P(|S| >= |s|) is the same
    p, method, _ = paired.sign_flip_test(d)
    assert method == "exact"
    assert p == pytest.approx(min(1.0, res.pvalue), rel=1e-9)


def test_the_case_bootstrap_equals_every_resample_enumerated() -> None:
    values = np.array([0.0, 1 / 3, 2 / 3, 1.0, 1.0, -1 / 3])
    n = values.size
    means = np.array([np.mean(c) for c in itertools.product(values, repeat=n)])  # 6^6 = 46,656 resamples
    low, high, method, err = paired.case_bootstrap(values, 0.9)
    assert (method, err) == ("exact", 0.0)
    # the percentile reading: the smallest mean whose cdf exceeds 0.05 (and 0.95)
    uniq = np.unique(np.round(means * 3 * n).astype(int))
    cdf = np.array([np.mean(np.round(means * 3 * n) <= u) for u in uniq])
    assert low == pytest.approx(uniq[np.searchsorted(cdf, 0.05, side="right")] / (3 * n))
    assert high == pytest.approx(uniq[np.searchsorted(cdf, 0.95, side="right")] / (3 * n))


def test_values_on_no_lattice_take_the_monte_carlo_p_and_the_rounded_bootstrap_within_their_errors() -> None:
    rng = np.random.default_rng(7)
    d = rng.uniform(-0.3, 0.6, size=12) + 1e-4 * np.pi
    p, method, se = paired.sign_flip_test(d)
    signs = np.array(list(itertools.product([-1, 1], repeat=d.size)))
    exact = float(np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12))
    assert method == "monte-carlo" and 0 < se < 0.01
    assert abs(p - exact) <= 4 * se + 1 / 20_001
    small = d[:5]
    low, high, ci_method, err = paired.case_bootstrap(small, 0.8)
    means = np.sort([np.mean(c) for c in itertools.product(small, repeat=5)])
    q_lo, q_hi = means[int(0.1 * means.size)], means[int(0.9 * means.size)]
    assert ci_method == "rounded" and err == pytest.approx(0.0005)
    assert abs(low - q_lo) <= err + 1e-12 and abs(high - q_hi) <= err + 1e-12


# ------------------------------------------------------------------------------------------ variance components


def test_variance_components_recover_known_between_and_within_variances() -> None:
    rng = np.random.default_rng(3)
    n, reps = 20_000, 4
    p_a = rng.beta(2, 2, size=n)
    shift = rng.normal(0.1, 0.15, size=n)
    p_b = np.clip(p_a + shift, 0, 1)
    a = rng.random((n, reps)) < p_a[:, None]
    b = rng.random((n, reps)) < p_b[:, None]
    rows = pd.DataFrame(
        {
            "case": np.repeat(np.arange(n), reps),
            "repeat": np.tile(np.arange(1, reps + 1), n),
            "A": a.ravel().astype(int),
            "B": b.ravel().astype(int),
        }
    )
    v = paired.variance_components(paired.parse_cases(rows), "A", "B")
    true_within = float(np.mean(p_a * (1 - p_a)) + np.mean(p_b * (1 - p_b)))
    true_between = float(np.var(p_b - p_a))
    assert v.within_var == pytest.approx(true_within, rel=0.02)
    assert v.between_var == pytest.approx(true_between, rel=0.05)
    assert v.mean_repeats == pytest.approx(reps)
    icc = true_between / (true_between + true_within)
    assert v.icc == pytest.approx(icc, rel=0.06)
    assert v.effective_cases == pytest.approx(n * reps / (1 + (reps - 1) * icc), rel=0.03)


def test_pooling_repeats_as_cases_would_overstate_the_evidence() -> None:
    """Three repeats of a case are not three cases: the sign-flip p on case means is far larger than a test that
    counts every repeat as a case when repeats of a case agree."""
    rng = np.random.default_rng(11)
    n, reps = 40, 3
    p_a = rng.uniform(0, 1, n)
    p_b = np.clip(p_a + 0.08, 0, 1)
    rows = []
    for i in range(n):
        # repeats of a case agree strongly: one draw decides, repeated
        ra, rb = int(rng.random() < p_a[i]), int(rng.random() < p_b[i])
        rows += [(i, r, ra, rb) for r in range(1, reps + 1)]
    frame = pd.DataFrame(rows, columns=["case", "repeat", "A", "B"])
    c = paired.compare_cases(paired.parse_cases(frame), "A", "B")
    pooled = paired.mcnemar(int(((frame.A == 1) & (frame.B == 0)).sum()), int(((frame.A == 0) & (frame.B == 1)).sum()))
    assert c.components.design_effect == pytest.approx(reps)  # identical repeats: design effect = R
    assert c.p_value > pooled.p_exact


# ------------------------------------------------------------------------------------------ parsing


def test_parse_cases_reads_epochs_scores_unequal_repeats_and_drops_unpaired_cases() -> None:
    frame = pd.DataFrame(
        {
            "case": ["a", "a", "a", "a", "b", "b", "b", "c"],
            "config": ["X", "X", "Y", "Y", "X", "Y", "Y", "X"],
            "Epoch": [1, 2, 1, 2, 1, 1, 2, 1],
            "score": [1, 0.5, "yes", 0, 0.25, 1, 1, 1],
        }
    )
    t = paired.parse_cases(frame)
    assert t.configs == ("X", "Y") and t.repeat_column == "Epoch" and not t.binary
    assert t.cases.tolist() == ["a", "b"] and t.dropped_cases == 1 and t.cases_per_config == (3, 2)
    assert t.means.tolist() == [[0.75, 0.5], [0.25, 1.0]] and t.repeats.tolist() == [[2, 2], [1, 2]]
    assert t.repeat_range("X") == (1, 2)


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (
            pd.DataFrame({"case": [1, 1], "config": ["A", "B"], "repeat": [1, 1], "correct": [1, 1.5]}),
            "or a score between 0 and 1; 1 row(s) are not: data row 2",
        ),
        (
            pd.DataFrame({"case": [1, 1, 1], "config": ["A", "A", "B"], "repeat": [1, 1, 1], "correct": [1, 0, 1]}),
            "duplicate (case, config, repeat) rows",
        ),
        (
            pd.DataFrame({"case": [1, 1], "config": ["A", "B"], "repeat": [1, "x"], "correct": [1, 0]}),
            "the repeat column 'repeat' must hold whole numbers",
        ),
        (pd.DataFrame({"case": [1, 2], "config": ["A", "A"], "epoch": [1, 1], "correct": [1, 0]}), "found only 'A'"),
    ],
)
def test_parse_cases_refuses_bad_tables_in_one_line(frame: pd.DataFrame, words: str) -> None:
    with pytest.raises(DataError) as info:
        paired.parse_cases(frame)
    assert words in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------------------------------------ real inspect_ai logs


@pytest.fixture(scope="module")
def epoch_logs(inspect_epoch_pair: tuple[Path, Path]) -> tuple[Path, Path]:
    return inspect_epoch_pair  # tests.inspect_logs.epoch_pair, written once per run (tests/conftest.py)


def test_two_inspect_logs_with_three_epochs_compare_case_by_case_over_every_epoch(
    capsys: pytest.CaptureFixture[str], epoch_logs: tuple[Path, Path]
) -> None:
    weak, strong = epoch_logs
    sa, sb = epoch_scores(weak), epoch_scores(strong)
    cases = sorted({c for c, _ in sa})
    per_case = [np.mean([sb[(c, e)] for e in (1, 2, 3)]) - np.mean([sa[(c, e)] for e in (1, 2, 3)]) for c in cases]
    assert main(["compare", str(weak), str(strong), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["unit"] == "case" and doc["test"].startswith(paired.CASE_TEST) and doc["p_method"] == "exact"
    assert doc["repeats"] == {"mockllm/weak": {"min": 3, "max": 3}, "mockllm/strong": {"min": 3, "max": 3}}
    assert abs(doc["diff"] - float(np.mean(per_case))) <= 1e-12
    assert doc["a"]["accuracy"] == pytest.approx(np.mean(list(sa.values())), abs=1e-12)
    assert doc["b"]["accuracy"] == pytest.approx(np.mean(list(sb.values())), abs=1e-12)
    assert doc["n_cases"] == 60 and doc["a"]["n"] == 180
    assert doc["p_value"] < 0.001 and doc["p_exact"] is None
    assert "60 cases x 3 epochs per config; case means compared" in doc["verdict"]
    assert main(["compare", str(weak), str(strong)]) == 0
    text = capsys.readouterr().out
    assert "sign-flip test on the case means (exact)" in text and "mockllm/strong beats mockllm/weak" in text


def test_a_third_config_with_partial_scores_does_not_change_a_0_1_pair() -> None:
    """A vs B are one 0/1 result per case; C (not compared) scores 0.5: the pair is still McNemar's setting."""
    frame = pd.DataFrame(
        {"case": [1, 1, 1, 2, 2, 2], "config": ["A", "B", "C"] * 2, "repeat": 1, "correct": [1, 0, 0.5, 0, 1, 0.5]}
    )
    pair = paired.parse_cases(frame, ("A", "B"))
    assert pair.binary and pair.single and pair.to_paired().n_cases == 2
    assert not paired.parse_cases(frame).binary


def test_many_cases_on_no_lattice_take_the_normal_form_within_its_berry_esseen_bound() -> None:
    """Beyond 5,000 cases of continuous scores the Monte Carlo sign flips would cost 20,000 x n: the sign-flip law's
    normal form is used, its error bounded by Berry-Esseen; checked against 4,000 sign patterns drawn here."""
    rng = np.random.default_rng(5)
    d = rng.uniform(-0.5, 0.6, size=8_000) * rng.uniform(0.2, 1.0, size=8_000) + 1e-4 * np.pi
    p, method, bound = paired.sign_flip_test(d)
    assert method == "normal" and 0 < bound < 0.05
    signs = rng.integers(0, 2, size=(4_000, d.size)) * 2 - 1
    mc = float(np.mean(np.abs(signs @ d) >= abs(d.sum())))
    assert abs(p - mc) <= bound + 4 * np.sqrt(max(mc * (1 - mc), 1e-4) / 4_000)
    # on a lattice the exact law still decides, however many cases
    exact = paired.sign_flip_test(np.round(d * 4) / 4)
    assert exact[1] == "exact"


def test_case_comparison_flags_its_interval_with_few_differing_cases() -> None:
    """Issue 53: the case bootstrap with repeats covers 0.33-0.92 near 0/1 rates; with fewer than 25 cases whose
    mean differs the comparison says so (and the CLI's JSON and text)."""
    rows = [(i, r, int(i < 2 and r == 1), int(3 <= i < 6)) for i in range(60) for r in (1, 2, 3)]
    frame = pd.DataFrame(rows, columns=["case", "repeat", "A", "B"])
    c = paired.compare_cases(paired.parse_cases(frame), "A", "B")
    assert (c.b_better + c.a_better, c.interval_reliable) == (5, False)
    doc = compare_report(frame, "A", "B")
    assert doc["interval_reliable"] is False and "only 5 cases whose mean differs" in doc["interval_note"]
    rows = [(i, r, int(i % 2 == 0), int(i % 3 == 0)) for i in range(60) for r in (1, 2)]
    c = paired.compare_cases(paired.parse_cases(pd.DataFrame(rows, columns=["case", "repeat", "A", "B"])), "A", "B")
    assert c.b_better + c.a_better >= 25 and c.interval_reliable
