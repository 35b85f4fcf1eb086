"""Tests of ``python -m nkcore vote`` and ``fanout``: the JSON keys are a contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore.cli import main

ROOT = Path(__file__).resolve().parents[1]
WORKED = ROOT / "sample_data" / "worked_example_samples.csv"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def worked_path() -> Path:
    if not WORKED.exists():
        pytest.skip("sample_data/worked_example_samples.csv is not there yet")
    return WORKED


def test_vote_json_contract(capsys: pytest.CaptureFixture[str], worked_path: Path) -> None:
    code, out, _ = _run(capsys, "vote", str(worked_path), "--json", "--n-boot", "300")
    assert code == 0
    doc = json.loads(out)
    for key in (
        "n_cases",
        "curve",
        "rho",
        "rho_ci_low",
        "rho_ci_high",
        "p_single",
        "n_eff",
        "unfixable",
        "unanimous_wrong",
    ):
        assert key in doc
    assert doc["n_cases"] == 200
    assert [p["n"] for p in doc["curve"]] == list(range(1, 8))
    for p in doc["curve"]:
        assert {"n", "accuracy", "ci_low", "ci_high", "first_n_accuracy"} <= set(p)
    first = {p["n"]: round(p["first_n_accuracy"] * 200) for p in doc["curve"]}
    assert [first[n] for n in (1, 3, 5, 7)] == [142, 156, 158, 158]
    assert doc["unfixable"] == 38 and doc["unanimous_wrong"] == 30
    assert doc["rho_ci_low"] < doc["rho"] < doc["rho_ci_high"]
    assert [r["n"] for r in doc["n_eff"]] == list(range(1, 8))
    assert doc["n_eff"][4]["n_eff"] == pytest.approx(5 / (1 + 4 * doc["rho"]))


def test_vote_tie_rule_changes_the_first_n_reading(capsys: pytest.CaptureFixture[str], worked_path: Path) -> None:
    _, out, _ = _run(capsys, "vote", str(worked_path), "--json", "--tie", "wrong", "--n-boot", "200")
    doc = json.loads(out)
    assert round(doc["curve"][2]["first_n_accuracy"] * 200) == 120  # ties at n = 3 count wrong
    assert round(doc["curve"][4]["first_n_accuracy"] * 200) == 158  # n = 5 never ties


def test_vote_plain_text_uses_glossary_words(capsys: pytest.CaptureFixture[str], worked_path: Path) -> None:
    code, out, _ = _run(capsys, "vote", str(worked_path), "--n-boot", "200")
    assert code == 0
    assert "samples per request (n)" in out and "rho" in out and "N_eff" in out and "cannot fix" in out


def test_vote_bad_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "s.csv"
    pd.DataFrame({"case": [1, 1], "sample": [1, 2], "answer": ["a", "b"]}).to_csv(bad, index=False)
    code, out, err = _run(capsys, "vote", str(bad))
    assert code == 2 and out == "" and "missing gold" in err and "Traceback" not in err


def test_fanout_lognormal_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "fanout", "--p50", "1.9", "--p95", "4.6", "--n", "1", "3", "7", "--json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert [r["n"] for r in rows] == [1, 3, 7]
    for r in rows:
        assert {"n", "p50", "p95", "p99"} <= set(r)
        assert "cost_per_1k" not in r
    assert rows[0]["p50"] == pytest.approx(1.9) and rows[0]["p95"] == pytest.approx(4.6)


def test_fanout_adaptive_with_cost(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        *"fanout --p50 1.9 --p95 4.6 --n 3 7 --adaptive 3+2 --topup-share 0.19".split(),
        *"--price-per-call 0.0062 --requests-per-month 400000 --json".split(),
    )
    assert code == 0
    rows = json.loads(out)["rows"]
    by = {r["label"]: r for r in rows}
    assert by["n=3"]["cost_per_1k"] == pytest.approx(18.60)
    assert by["3+2"]["n"] == "3+2" and by["3+2"]["cost_per_1k"] == pytest.approx(20.956)
    assert by["n=7"]["monthly_cost"] - by["n=3"]["monthly_cost"] == pytest.approx(9920)


def test_fanout_from_samples_file_measures_the_topup_share(
    capsys: pytest.CaptureFixture[str], worked_path: Path
) -> None:
    code, out, _ = _run(
        capsys, "fanout", "--latencies", str(worked_path), "--n", "1", "3", "--adaptive", "3+2", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["topup_share"] == pytest.approx(0.19)
    assert round(doc["rows"][1]["p95"], 1) == 6.1
    assert doc["rows"][-1]["calls"] == pytest.approx(3.38)


def test_fanout_one_column_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "lat.csv"
    values = np.linspace(0.5, 6.0, 100)
    pd.DataFrame({"seconds": values}).to_csv(path, index=False)
    code, out, _ = _run(capsys, "fanout", "--latencies", str(path), "--n", "1", "--json")
    assert code == 0
    assert json.loads(out)["rows"][0]["p50"] == pytest.approx(np.quantile(values, 0.5))
    code, out, err = _run(capsys, "fanout", "--latencies", str(path), "--n", "3", "--adaptive", "3+2")
    assert code == 2 and "--topup-share" in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ("fanout --p50 1.9 --n 3", "--p95"),
        ("fanout --p50 5 --p95 2 --n 3", "larger than p50"),
        ("fanout --p50 1.9 --p95 4.6 --n 3 --adaptive 3x2 --topup-share 0.2", "3+2"),
        ("fanout --p50 1.9 --p95 4.6 --n 3 --adaptive 3+2 --topup-share 1.5", "topup-share"),
        ("fanout --p50 1.9 --p95 4.6 --n 0", "at least 1"),
    ],
)
def test_fanout_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: str, words: str) -> None:
    code, _, err = _run(capsys, *argv.split())
    assert code == 2 and words in err


def test_fanout_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, *"fanout --p50 1.9 --p95 4.6 --n 1 3 --price-per-call 0.0062".split())
    assert code == 0 and "samples per request n=3" in out and "per 1k requests" in out


def test_module_entry_point(worked_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "nkcore", "fanout", "--p50", "1", "--p95", "3", "--n", "2", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert res.returncode == 0 and json.loads(res.stdout)["rows"][0]["n"] == 2
