"""``python -m nkcore judge``: the JSON contract, its numbers against ppi-python on the same file, scales (pairwise
verdicts, true/false), several judges, and one-line refusals of bad input (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate, ppi_power
from scipy import stats

from nkcore.cli import main

CONFIG_KEYS = {
    "config",
    "n_cases",
    "n_human",
    "ppi_mean",
    "ci_low",
    "ci_high",
    "human_only_mean",
    "human_only_ci_low",
    "human_only_ci_high",
    "judge_only_mean",
    "effective_human_labels",
}


def _frame(seed: int = 0, n: int = 300, every: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for config, mean, bias in (("A", 3.3, 0.6), ("B", 3.0, -0.1), ("C", 2.9, 0.0)):
        h = np.clip(np.round(mean + rng.normal(size=n)), 1, 5)
        j = np.clip(np.round(h + bias + rng.normal(0, 0.8, n)), 1, 5)
        j2 = np.clip(np.round(h + rng.normal(0, 1.0, n)), 1, 5)
        human = np.where(np.arange(n) % every == 0, h, np.nan)
        rows.append(pd.DataFrame({"case": np.arange(n), "config": config, "judge": j, "judge2": j2, "human": human}))
    return pd.concat(rows, ignore_index=True)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["judge", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_contract_and_numbers_equal_ppi_py(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = _frame()
    path = tmp_path / "evals.csv"
    frame.to_csv(path, index=False)
    doc = _json(
        capsys,
        str(path),
        "--judge-column",
        "judge",
        "--human-column",
        "human",
        "--config-column",
        "config",
        "--case-column",
        "case",
    )
    assert {"configs", "verdict"} <= set(doc)
    assert isinstance(doc["verdict"], str) and doc["verdict"]
    assert [c["config"] for c in doc["configs"]] == ["A", "B", "C"]
    for c in doc["configs"]:
        assert CONFIG_KEYS <= set(c)
        rows = frame[frame["config"] == c["config"]]
        lab = rows["human"].notna().to_numpy()
        y, yh, yu = rows["human"].to_numpy()[lab], rows["judge"].to_numpy()[lab], rows["judge"].to_numpy()[~lab]
        lam = None if not c["humans_only_used"] else 0.0
        lo, hi = ppi_mean_ci(y, yh, yu, alpha=0.05, lam=lam)
        assert c["ppi_mean"] == pytest.approx(float(np.ravel(ppi_mean_pointestimate(y, yh, yu, lam=lam))[0]), abs=1e-9)
        assert (c["ci_low"], c["ci_high"]) == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-9)
        tlo, thi = stats.t.interval(0.95, len(y) - 1, loc=y.mean(), scale=stats.sem(y))
        assert (c["human_only_ci_low"], c["human_only_ci_high"]) == pytest.approx((tlo, thi), abs=1e-9)
        assert c["judge_only_mean"] == pytest.approx(rows["judge"].mean())
        assert (c["n_cases"], c["n_human"]) == (300, 60)
        assert c["bias"] == pytest.approx(float(np.mean(yh - y)))
    assert doc["bias_differs"] is True  # A's judge is +0.6 too kind, the others about 0
    assert "not equally fair to every config" in doc["verdict"]
    assert len(doc["pairs"]) == 3


def test_plan_with_prices_agrees_with_ppi_power(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evals.csv"
    _frame(1).to_csv(path, index=False)
    doc = _json(
        capsys,
        str(path),
        "--judge-column",
        "judge",
        "--human-column",
        "human",
        "--config-column",
        "config",
        "--case-column",
        "case",
        "--price-human",
        "2",
        "--price-judge",
        "0.05",
        "--half-width",
        "0.2",
    )
    plan = doc["plan"]
    assert plan["target_half_width"] == 0.2
    ref = ppi_power(plan["rho"], 0.0, 2.0, 0.05, effective_n=plan["human_only_labels"])
    assert plan["split"]["n_human"] == ref["n"]
    assert plan["split"]["judge_calls"] == ref["n"] + ref["N"]
    assert plan["split"]["cost"] == pytest.approx(ref["cost"])


def test_several_judges_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evals.csv"
    _frame(2).to_csv(path, index=False)
    doc = _json(
        capsys,
        str(path),
        "--judge-column",
        "judge",
        "--judge-column",
        "judge2",
        "--human-column",
        "human",
        "--config-column",
        "config",
        "--case-column",
        "case",
    )
    panel = doc["panel"]
    assert [j["judge"] for j in panel["judges"]] == ["judge", "judge2"]
    assert 1.0 <= panel["effective_judges"] <= 2.0
    assert panel["dawid_skene"] is not None and 0 <= panel["dawid_skene"]["accuracy"] <= 1
    code, out, _ = _run(
        capsys, str(path), "--judge-column", "judge", "--human-column", "human", "--config-column", "config"
    )
    assert code == 0 and "verdict:" in out and "corrected" in out


def test_pairwise_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    n = 400
    human = rng.choice(["1", "2", "tie"], size=n, p=[0.5, 0.4, 0.1])
    judge = np.where(rng.random(n) < 0.7, human, rng.choice(["1", "2", "tie"], size=n))
    shown = np.where(np.arange(n) % 4 == 0, human, "")
    path = tmp_path / "pairs.csv"
    pd.DataFrame({"judge": judge, "human": shown}).to_csv(path, index=False)
    doc = _json(capsys, str(path), "--judge-column", "judge", "--human-column", "human")
    assert doc["scale"] == "pairwise"
    c = doc["configs"][0]
    score = {"1": 1.0, "2": 0.0, "tie": 0.5}
    y = np.array([score[h] for h in human[::4]])
    assert c["human_only_mean"] == pytest.approx(y.mean())
    assert c["judge_only_mean"] == pytest.approx(np.mean([score[j] for j in judge]))


def _bad(tmp_path: Path, capsys: pytest.CaptureFixture[str], frame: pd.DataFrame, *extra: str) -> str:
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(capsys, str(path), "--judge-column", "judge", "--human-column", "human", *extra)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_missing_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _bad(tmp_path, capsys, pd.DataFrame({"judge": [1, 2, 3], "labels": [1, None, 2]}))
    assert "--human-column" in err and "'human'" in err
    err = _bad(tmp_path, capsys, _frame(), "--config-column", "system")
    assert "'system'" in err


def test_no_and_one_human_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _bad(tmp_path, capsys, pd.DataFrame({"judge": [1, 2, 3, 4], "human": [None] * 4}))
    assert "empty on every row" in err
    err = _bad(tmp_path, capsys, pd.DataFrame({"judge": [1, 2, 3, 4], "human": [3, None, None, None]}))
    assert "fewer than 2 human labels" in err


def test_missing_judge_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pd.DataFrame({"judge": [1, None, 3, 4, 5], "human": [1, 2, None, 4, None]})
    err = _bad(tmp_path, capsys, frame)
    assert "data row 2" in err and "--fill-missing-judge" in err
    path = tmp_path / "bad.csv"
    doc = _json(capsys, str(path), "--judge-column", "judge", "--human-column", "human", "--fill-missing-judge")
    assert doc["configs"][0]["judge_only_mean"] == pytest.approx(np.mean([1, 13 / 4, 3, 4, 5]))
    assert any("filled" in n for n in doc["notes"])


def test_non_numeric_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _bad(tmp_path, capsys, pd.DataFrame({"judge": [1, 2, "good", 4], "human": [1, 2, 3, None]}))
    assert "not numbers" in err and "'good'" in err
    err = _bad(tmp_path, capsys, pd.DataFrame({"judge": [1, 2, 3, 4], "human": ["1", "2", "x", None]}))
    assert "'human'" in err


def test_other_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pd.DataFrame({"case": [1, 1, 2, 3], "judge": [1, 2, 3, 4], "human": [1, 2, 3, None]})
    err = _bad(tmp_path, capsys, frame, "--case-column", "case")
    assert "twice" in err
    err = _bad(tmp_path, capsys, _frame(), "--price-human", "1")
    assert "--price-judge" in err
    err = _bad(tmp_path, capsys, pd.DataFrame({"judge": [1, 2, 3, np.inf], "human": [1, 2, 3, None]}))
    assert "infinite" in err or "not numbers" in err


def test_human_labels_in_a_second_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = _frame(4)
    one = tmp_path / "one.csv"
    frame.to_csv(one, index=False)
    judged, humans = tmp_path / "judge.csv", tmp_path / "humans.csv"
    frame.drop(columns="human").to_csv(judged, index=False)
    frame.dropna(subset=["human"])[["case", "config", "human"]].sample(frac=1, random_state=0).to_csv(
        humans, index=False
    )
    common = [
        "--judge-column",
        "judge",
        "--human-column",
        "human",
        "--config-column",
        "config",
        "--case-column",
        "case",
    ]
    a = _json(capsys, str(one), *common)
    b = _json(capsys, str(judged), *common, "--human-file", str(humans))
    assert a["configs"] == b["configs"]
    code, _, err = _run(capsys, str(one), *common, "--human-file", str(humans))
    assert code == 2 and "already has a column 'human'" in err
