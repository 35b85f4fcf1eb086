"""The embedded sample data: byte-for-byte regeneration, and every promised property checked independently.

The checks below use plain Python / numpy written here (no other nkcore module): the vote rule is
``Counter(first_n).most_common(1)``; the figures are the chapter's (``../shared/seeds/002_544b9edd7c12c66d.txt``).
"""

from __future__ import annotations

import csv
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "sample_data"
CSV_FILES = ("worked_example_samples.csv", "worked_example_paired.csv", "ratings.csv", "predictions.csv")
LABELS = ("safe", "unsure", "unsafe")


def _read(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _vote(answers: list[str]) -> str:
    return Counter(answers).most_common(1)[0][0]


@pytest.fixture(scope="module")
def cases() -> dict[int, tuple[str, list[str]]]:
    """case -> (gold, answers in sample order 1..7)."""
    out: dict[int, tuple[str, list[str]]] = {}
    rows = _read("worked_example_samples.csv")
    for row in rows:
        gold, answers = out.setdefault(int(row["case"]), (row["gold"], []))
        assert row["gold"] == gold
        answers.append(row["answer"])
        assert int(row["sample"]) == len(answers)
    return out


@pytest.fixture(scope="module")
def correct(cases: dict[int, tuple[str, list[str]]]) -> dict[int, np.ndarray]:
    """n -> 0/1 array over cases (sorted by case id) of the first-n vote being gold."""
    keys = sorted(cases)
    return {n: np.array([int(_vote(cases[c][1][:n]) == cases[c][0]) for c in keys]) for n in (1, 3, 5, 7)}


# ---------------------------------------------------------------- reproducibility


def test_regenerates_byte_for_byte(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "nkcore.sample_data", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for name in CSV_FILES:
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


def test_deterministic_formatting() -> None:
    for name in CSV_FILES:
        raw = (DATA / name).read_bytes()
        assert b"\r" not in raw and raw.endswith(b"\n"), name
    assert (DATA / "README.md").is_file()


# ---------------------------------------------------------------- file 1: the worked example


def test_shape_and_columns() -> None:
    rows = _read("worked_example_samples.csv")
    assert list(rows[0]) == ["case", "sample", "answer", "gold", "latency_s"]
    assert len(rows) == 1400
    keys = [(int(r["case"]), int(r["sample"])) for r in rows]
    assert keys == sorted(keys) == [(c, s) for c in range(1, 201) for s in range(1, 8)]
    assert all(r["answer"] and r["gold"] and len(r["answer"]) <= 12 for r in rows)


def test_curve_142_156_158_158(correct: dict[int, np.ndarray]) -> None:
    assert [int(correct[n].sum()) for n in (1, 3, 5, 7)] == [142, 156, 158, 158]


@pytest.mark.parametrize(
    ("lo", "hi", "lo_wins", "hi_wins"),
    [(1, 3, 12, 26), (3, 5, 5, 7), (5, 7, 3, 3)],
)
def test_discordant_cases(correct: dict[int, np.ndarray], lo: int, hi: int, lo_wins: int, hi_wins: int) -> None:
    a, b = correct[lo], correct[hi]
    assert int(((a == 1) & (b == 0)).sum()) == lo_wins
    assert int(((a == 0) & (b == 1)).sum()) == hi_wins


def test_wrong_at_three(cases: dict[int, tuple[str, list[str]]], correct: dict[int, np.ndarray]) -> None:
    keys = sorted(cases)
    wrong3 = [c for c, ok in zip(keys, correct[3], strict=True) if not ok]
    still = [c for c, ok in zip(keys, correct[7], strict=True) if not ok and c in wrong3]
    unanimous = [c for c in still if len(set(cases[c][1])) == 1]
    assert len(wrong3) == 44
    assert len(still) == 38
    # The chapter says 31; 30 is the most its other figures allow under this vote rule (see the module docstring).
    assert len(unanimous) == 30


def test_thirty_one_is_impossible_with_the_other_figures(
    cases: dict[int, tuple[str, list[str]]], correct: dict[int, np.ndarray]
) -> None:
    """The arithmetic behind the deviation, checked on the data: n=1 and n=3 agree whenever three have no majority."""
    keys = sorted(cases)
    no_major = np.array([len(set(cases[c][1][:3])) == 3 for c in keys])
    assert np.array_equal(correct[1][no_major], correct[3][no_major])
    n1_wins = (correct[1] == 1) & (correct[3] == 0)
    assert int(n1_wins.sum()) == 12 and not (n1_wins & no_major).any()
    # adaptive gain over n=3 = (no-majority cases won at 5) - (lost at 5) <= no-majority cases wrong at 3
    # <= 44 - 12 - unanimous, so a gain of 2 needs unanimous <= 30.
    wrong3_no_major = int((no_major & (correct[3] == 0)).sum())
    assert wrong3_no_major == 2


def test_no_majority_and_adaptive(cases: dict[int, tuple[str, list[str]]]) -> None:
    no_major = 0
    adaptive = 0
    for gold, answers in cases.values():
        if len(set(answers[:3])) == 3:
            no_major += 1
            adaptive += _vote(answers[:5]) == gold
        else:
            adaptive += _vote(answers[:3]) == gold
    assert no_major == 38  # 19% of 200
    assert adaptive == 158


def test_no_ties_at_five_and_seven(cases: dict[int, tuple[str, list[str]]]) -> None:
    for gold, answers in cases.values():
        for n in (5, 7):
            top = Counter(answers[:n]).most_common()
            assert len(top) == 1 or top[0][1] > top[1][1]
        # n = 3 ties only in no-majority cases (three distinct answers), where sample 1 wins
        if len(set(answers[:3])) == 3:
            assert _vote(answers[:3]) == answers[0]
        assert gold


def test_looks_realistic(cases: dict[int, tuple[str, list[str]]]) -> None:
    wrong = Counter(a for gold, answers in cases.values() for a in answers if a != gold)
    assert len(wrong) > 100  # wrong answers vary
    disagree = sum(len(set(answers)) > 1 for _, answers in cases.values())
    assert disagree > 80
    # intraclass correlation of per-sample correctness (one-way ANOVA estimator), moderate
    y = np.array([[int(a == gold) for a in answers] for gold, answers in cases.values()], dtype=float)
    n, k = y.shape
    means = y.mean(axis=1)
    msb = k * ((means - y.mean()) ** 2).sum() / (n - 1)
    msw = ((y - means[:, None]) ** 2).sum() / (n * (k - 1))
    icc = (msb - msw) / (msb + (k - 1) * msw)
    assert 0.1 <= icc <= 0.4
    assert 0.55 <= y.mean() <= 0.75


def test_latencies() -> None:
    rows = _read("worked_example_samples.csv")
    assert all(len(r["latency_s"].split(".")[1]) == 3 for r in rows)
    lat = np.array([float(r["latency_s"]) for r in rows])
    assert lat.size == 1400 and lat.min() > 0.1
    for q, target in ((0.5, 1.9), (0.95, 4.6), (0.983, 6.1), (0.993, 8.2)):
        assert abs(np.quantile(lat, q) - target) <= 0.01, q
    # heavy right tail: mean above median, the top 0.7% well above the 99.3rd percentile
    assert lat.mean() > np.median(lat)
    assert lat.max() > 10.0
    logs = np.log(lat)
    skew = ((logs - logs.mean()) ** 3).mean() / logs.std() ** 3
    assert -0.5 < skew < 1.0  # roughly lognormal body


# ---------------------------------------------------------------- file 3: paired results


def test_paired_derived_from_samples(correct: dict[int, np.ndarray]) -> None:
    rows = _read("worked_example_paired.csv")
    assert list(rows[0]) == ["case", "config", "correct"]
    assert len(rows) == 800
    keys = [(int(r["case"]), r["config"]) for r in rows]
    assert keys == sorted(keys)
    for n in (1, 3, 5, 7):
        col = np.array([int(r["correct"]) for r in rows if r["config"] == f"n={n}"])
        assert np.array_equal(col, correct[n])


# ---------------------------------------------------------------- file 2: ratings and predictions


def test_ratings() -> None:
    rows = _read("ratings.csv")
    assert list(rows[0]) == ["item", "rater", "label"]
    by_item: dict[int, list[dict[str, str]]] = {}
    for r in rows:
        by_item.setdefault(int(r["item"]), []).append(r)
    assert sorted(by_item) == list(range(1, 501))
    pool = {f"r{i:03d}" for i in range(1, 121)}
    for item_rows in by_item.values():
        raters = [r["rater"] for r in item_rows]
        assert len(raters) == 40 and len(set(raters)) == 40 and set(raters) <= pool
        assert raters == sorted(raters)
    labels = Counter(r["label"] for r in rows)
    assert set(labels) == set(LABELS)
    alpha = np.array([5.21765954, 0.85824731, 2.74833849])
    share = np.array([labels[lab] for lab in LABELS]) / len(rows)
    assert np.allclose(share, alpha / alpha.sum(), atol=0.03)
    # method of moments for the Dirichlet concentration a0 from the spread of items' "safe" shares:
    # Var(p_hat) = m (1 - m) / (a0 + 1) + E[beta (1 - beta)] / K, with E[beta (1 - beta)] = m (1 - m) a0 / (a0 + 1)
    p_hat = np.array([sum(r["label"] == "safe" for r in item_rows) / 40 for item_rows in by_item.values()])
    m, v = p_hat.mean(), p_hat.var(ddof=1)
    k = 40
    ratio = v / (m * (1 - m))  # = (k + a0) / (k (a0 + 1)), solved for a0 below
    a0 = (k - k * ratio) / (k * ratio - 1)
    assert 5.0 < a0 < 16.0  # DICES prior: a0 = 8.82


def test_predictions() -> None:
    rows = _read("predictions.csv")
    cols = ["item", "model", "pred_label", "p_safe", "p_unsure", "p_unsafe"]
    assert list(rows[0]) == cols
    assert len(rows) == 1500
    keys = [(int(r["item"]), r["model"]) for r in rows]
    assert keys == sorted(keys)
    models = sorted({r["model"] for r in rows})
    assert models == ["model-a", "model-b", "model-c"]
    for r in rows:
        texts = [r[f"p_{lab}"] for lab in LABELS]
        assert all(len(t.split(".")[1]) == 4 for t in texts)
        p = [float(t) for t in texts]
        assert abs(sum(p) - 1) <= 1e-3 and min(p) >= 0
        assert r["pred_label"] == LABELS[int(np.argmax(p))]
        assert sorted(p)[-1] > sorted(p)[-2]  # argmax is unambiguous

    # compare with the human ratings: mean total variation and plurality accuracy per model
    emp: dict[int, np.ndarray] = {}
    for r in _read("ratings.csv"):
        emp.setdefault(int(r["item"]), np.zeros(3))[LABELS.index(r["label"])] += 1 / 40
    tv: dict[str, float] = {}
    acc: dict[str, float] = {}
    for model in models:
        mine = [r for r in rows if r["model"] == model]
        probs = np.array([[float(r[f"p_{lab}"]) for lab in LABELS] for r in mine])
        e = np.array([emp[int(r["item"])] for r in mine])
        tv[model] = float(np.abs(probs - e).sum(axis=1).mean() / 2)
        acc[model] = float((probs.argmax(axis=1) == e.argmax(axis=1)).mean())
    assert tv["model-b"] - tv["model-a"] > 0.05 and tv["model-c"] - tv["model-a"] > 0.05  # one clearly better
    assert acc["model-a"] - max(acc["model-b"], acc["model-c"]) > 0.1
    assert abs(tv["model-b"] - tv["model-c"]) < 0.02  # two nearly tied
    assert abs(acc["model-b"] - acc["model-c"]) < 0.04
