"""nkcore.voting's inputs and seams: the shared true/false vocabulary, the request limits, the package's public
names and its imports (one home per helper; no private names across modules)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nkcore import latency as lat
from nkcore import voting as v
from nkcore.common.truth import FALSE_WORDS, TRUE_WORDS
from nkcore.errors import DataError
from nkcore.voting.rules import as_tie_rule, as_trigger

ROOT = Path(__file__).resolve().parents[1]


def _binary(correct: Sequence[object], per_case: int = 3) -> pd.DataFrame:
    n = len(correct)
    return pd.DataFrame(
        {"case": np.arange(n) // per_case, "sample": np.arange(n) % per_case + 1, "correct": pd.Series(correct)}
    )


# ---------------------------------------------------------------------------------------------- the correct column


@given(
    st.integers(2, 4).flatmap(lambda k: st.lists(st.booleans(), min_size=3 * k, max_size=3 * k)),
    st.randoms(use_true_random=False),
)
def test_correct_column_reads_every_word_of_the_shared_vocabulary(truth: list[bool], rnd: random.Random) -> None:
    """Any spelling from nkcore.common.truth (any case, padded) parses like the plain 0/1 column."""
    words_true, words_false = sorted(TRUE_WORDS), sorted(FALSE_WORDS)
    spelled = [f" {rnd.choice(words_true if t else words_false).upper()} " for t in truth]
    a = v.parse_samples(_binary(spelled))
    b = v.parse_samples(_binary([int(t) for t in truth]))
    assert a.binary and b.binary
    np.testing.assert_array_equal(a.correct_matrix(), b.correct_matrix())
    np.testing.assert_array_equal(a.correct_matrix().ravel(), np.array(truth, dtype=float))


def test_correct_column_words_beyond_zero_one() -> None:
    """right/wrong and booleans are the product's words too (the old voting parser refused them)."""
    s = v.parse_samples(_binary(["right", "wrong", "Correct", True, False, "incorrect"]))
    assert s.correct_matrix().tolist() == [[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]]


@pytest.mark.parametrize(
    ("values", "row"), [([1, 0, 2, 1, 1, 0], "data row 3"), (["1", "0", "1", "maybe", "1", "0"], "data row 4")]
)
def test_correct_column_names_the_bad_row(values: list[object], row: str) -> None:
    with pytest.raises(DataError, match=rf"column 'correct' must be 0/1.*{row}\b"):
        v.parse_samples(_binary(values))


def test_missing_correct_value_is_an_error_not_a_wrong_answer() -> None:
    with pytest.raises(DataError, match=r"bad or missing values in data row 5\b"):
        v.parse_samples(_binary([1, 0, 1, 1, None, 0]))


def test_answers_compare_as_text_even_in_a_mixed_column() -> None:
    """1, 1.0 and " 1" are the answer "1"; True is the answer "True" (a hash table alone would merge it with 1)."""
    f = pd.DataFrame({"case": [7, 7, 7, 7], "sample": [1, 2, 3, 4], "answer": [True, 1, 1.0, " 1"], "gold": [1] * 4})
    s = v.parse_samples(f)
    assert s.cases == ("7",) and s.labels == (("True", "1"),)
    assert s.codes.tolist() == [[0, 1, 1, 1]] and s.gold_code.tolist() == [1]


# ---------------------------------------------------------------------------------------------- request limits


def _one_case(n: int) -> pd.DataFrame:
    return pd.DataFrame({"case": "big", "sample": np.arange(1, n + 1), "answer": "a", "gold": "a"})


def test_samples_per_case_limit_is_the_server_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert v.parse_samples(_one_case(6)).max_n == 6
    monkeypatch.setenv("NKP_MAX_SAMPLES_PER_CASE", "5")
    with pytest.raises(DataError, match=r"case big has 6 samples per case; the limit is 5 .*NKP_MAX_SAMPLES_PER_CASE"):
        v.parse_samples(_one_case(6))


def test_exact_curve_ceiling_holds_whatever_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """C(1000, 500) ~ 1e299 is finite in float64, C(1030, 515) is not: above 1,000 samples the exact curve refuses."""
    monkeypatch.setenv("NKP_MAX_SAMPLES_PER_CASE", "5000")
    assert v.parse_samples(_one_case(v.samples.EXACT_MAX_SAMPLES)).max_n == 1000
    with pytest.raises(DataError, match="at most 1000 per case"):
        v.parse_samples(_one_case(1001))


def test_answers_marked_correct_without_gold_show_their_own_text() -> None:
    # Case 1: two spellings of the right answer marked correct; case 2: one; case 3: none marked correct.
    frame = pd.DataFrame(
        {
            "case": [1, 1, 1, 2, 2, 2, 3, 3],
            "sample": [1, 2, 3, 1, 2, 3, 1, 2],
            "answer": ["42", "41", "42.0", "x", "y", "x", "q", "r"],
            "correct": [1, 0, 1, 0, 1, 0, 0, 0],
        }
    )
    s = v.parse_samples(frame)
    assert not any("<correct>" in g for g in s.gold) and not any("<correct>" in a for lab in s.labels for a in lab)
    assert s.gold == ("42 / 42.0", "y", v.samples.NO_GOLD)
    assert s.labels == (("42 / 42.0", "41"), ("x", "y"), ("q", "r"))
    # the vote is unchanged: the answers marked correct are one answer, and correctness is the column's
    np.testing.assert_array_equal(s.correct_matrix()[:, :2], np.array([[1, 0], [0, 1], [0, 0]], dtype=float))
    assert s.codes[0].tolist() == [0, 1, 0] and s.gold_code.tolist() == [0, 1, -1]


def test_cases_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "sample": [1, 2] * 3, "correct": [1, 0] * 3})
    monkeypatch.setenv("NKP_MAX_CASES", "2")
    with pytest.raises(DataError, match=r"the samples table has 3 cases; the limit is 2 cases"):
        v.parse_samples(frame)


def test_memory_limit_refuses_before_allocating(monkeypatch: pytest.MonkeyPatch) -> None:
    """One case with 1,000 samples and 20,000 one-sample cases: the padded table is 20,001 x 1,000."""
    frame = pd.concat(
        [_one_case(1000), pd.DataFrame({"case": np.arange(20_000), "sample": 1, "answer": "a", "gold": "a"})]
    )
    monkeypatch.setenv("NKP_MAX_MEMORY_BYTES", str(50 * 2**20))
    with pytest.raises(DataError, match="the table of samples by case needs 80,004,000 bytes"):
        v.parse_samples(frame)
    with pytest.raises(DataError, match="the queue simulation needs"):
        lat.queued_fanout(lat.lognormal_from_p50_p95(1.0, 2.0), 7, 7, draws=10**7)


def test_bootstrap_replicates_are_bounded_for_rho_too() -> None:
    s = v.parse_samples(_binary([1, 1, 0, 0, 0, 1, 1, 1, 1]))
    with pytest.raises(DataError, match="between 100 and 100,000"):
        v.estimate_rho(s, n_boot=10**6)


# ---------------------------------------------------------------------------------------------- names and seams


def test_public_names_resolve_and_the_old_seed_helper_is_gone() -> None:
    for name in v.__all__:
        assert getattr(v, name) is not None, name
    assert not hasattr(v, "as_generator")  # one home: nkcore.common.seeding


def test_text_rules_are_checked_and_typed() -> None:
    assert as_tie_rule("split") == "split" and as_trigger("no_majority") == "no_majority"
    with pytest.raises(DataError, match="tie rule must be one of wrong, split, first"):
        as_tie_rule("coin")
    with pytest.raises(DataError, match="trigger must be one of"):
        as_trigger("sometimes")


def test_latency_does_not_import_voting() -> None:
    code = "import sys, nkcore.latency; print('nkcore.voting' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_no_private_names_cross_module_boundaries() -> None:
    files = [
        *sorted((ROOT / "nkcore" / "voting").glob("*.py")),
        *sorted((ROOT / "nkcore" / "latency").glob("*.py")),
    ] + [ROOT / "nkcore" / f for f in ("cost.py", "cli/voting.py", "cli/fanout.py", "sample_data.py")]
    pattern = re.compile(r"^\s*from nkcore[\w.]* import .*\b_\w+", re.MULTILINE)
    offenders = [f"{f.name}: {m.group(0).strip()}" for f in files for m in pattern.finditer(f.read_text())]
    assert offenders == []


def test_a_step_that_rounds_to_zero_reads_without_a_sign() -> None:
    """Sentences format points with nkcore.common.formatting: -0.04 points is '0.0', never '-0.0' or '+0.0'."""
    pts = [
        v.CurvePoint(n, 100, 0.8, 0.75, 0.85, 0.8, 80.0, n - 2 if n > 2 else 0, d, lo, hi)
        for n, d, lo, hi in ((1, np.nan, np.nan, np.nan), (2, np.nan, np.nan, np.nan), (3, -0.0004, -0.03, 0.02))
    ]
    text = v.curve_sentence(v.VoteCurve(points=tuple(pts), tie="first", n_boot=100, seed=0))
    assert "n = 1 to 3: 0.0 points (95% paired interval -3.0 to +2.0)" in text
    assert "interval includes zero" in text


def test_missing_sample_columns_quote_the_files_columns_on_one_line() -> None:
    """Column names with line breaks are listed with their escapes (repr); str.splitlines is the one-line oracle."""
    frame = pd.DataFrame({"it\nem": [1], "rat\rer": ["a"], "label": ["x"]})
    with pytest.raises(DataError) as err:
        v.parse_samples(frame)
    message = str(err.value)
    assert message.splitlines() == [message]
    assert message.endswith("found 'it\\nem', 'rat\\rer', 'label'")
    with pytest.raises(DataError, match=r"duplicate column names: 'case'$"):
        v.parse_samples(pd.DataFrame([[1, 2]], columns=["case", "CASE "]))
