"""``rank`` (through nkcore.cli.rank's own parser until the lead registers it) and ``compare --margin``: the JSON
contract, the margin as a proportion, oracles for the margin test (Tango's score statistic with the restricted MLE
from scipy's optimiser for 0/1 results; the one-sided t with the pseudo-case standard error by a loop for case
means), and plain refusals."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore.cli import main
from nkcore.cli import rank as rank_cli
from nkcore.errors import DataError
from nkcore.rank.simulate import simulate_case_means

CONFIG_KEYS = {"config", "mean", "ci_low", "ci_high", "rank_low", "rank_high"}
WINNER_KEYS = {"config", "naive", "corrected", "ci_low", "ci_high"}


def _long(tmp_path: Path, repeats: int = 2, costs: bool = False) -> Path:
    rng = np.random.default_rng(0)
    rows = []
    p = [0.80, 0.78, 0.60, 0.79]
    names = ["gpt-big", "gpt-small", "tiny", "mid"]
    n = 150
    z = rng.normal(0, np.sqrt(0.5), n)
    for j, name in enumerate(names):
        t = stats.norm.ppf(p[j])
        for r in range(1, repeats + 1):
            correct = (z + rng.normal(0, np.sqrt(0.5), n) < t).astype(int)
            row = {"case": np.arange(n), "config": name, "repeat": r, "correct": correct}
            if costs:
                row["cost_usd"] = [10.0, 1.0, 0.1, 3.0][j] * (1 + 0.01 * rng.random(n))
            rows.append(pd.DataFrame(row))
    path = tmp_path / "runs.csv"
    pd.concat(rows).to_csv(path, index=False)
    return path


def _rank(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    parser = argparse.ArgumentParser()
    rank_cli.register(parser.add_subparsers())
    args = parser.parse_args(["rank", *argv, "--json", "--resamples", "500"])
    assert args.func(args) == 0
    return json.loads(capsys.readouterr().out)


def test_rank_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _rank([str(_long(tmp_path))], capsys)
    assert {"configs", "could_be_best", "winner", "verdict"} <= doc.keys()
    assert all(CONFIG_KEYS <= c.keys() for c in doc["configs"])
    assert WINNER_KEYS <= doc["winner"].keys()
    assert [c["mean"] for c in doc["configs"]] == sorted((c["mean"] for c in doc["configs"]), reverse=True)
    assert all(type(c["rank_low"]) is int and 1 <= c["rank_low"] <= c["rank_high"] <= 4 for c in doc["configs"])
    assert doc["winner"]["config"] == doc["configs"][0]["config"] in doc["could_be_best"]
    assert "tiny" not in doc["could_be_best"]
    assert doc["winner"]["corrected"] <= doc["winner"]["naive"] + 1e-12
    assert doc["repeats"]["tiny"] == {"min": 2, "max": 2} and doc["n_cases"] == 150
    assert "could each be the best" in doc["verdict"] or " is the best " in doc["verdict"]


def test_rank_reads_wide_and_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = simulate_case_means(np.array([0.7, 0.75, 0.5]), 80, repeats=3, seed=2)  # thirds: scores in [0, 1]
    path = tmp_path / "wide.csv"
    pd.DataFrame({"case": range(80), "A": x[:, 0], "B": x[:, 1], "C": x[:, 2]}).to_csv(path, index=False)
    doc = _rank([str(path)], capsys)
    assert [c["config"] for c in doc["configs"]][-1] == "C"
    assert doc["configs"][0]["mean"] == pytest.approx(x.mean(axis=0).max())


def test_rank_cost_frontier_and_margin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _rank([str(_long(tmp_path, costs=True)), "--cost-column", "cost_usd", "--margin", "5"], capsys)
    assert doc["margin"] == pytest.approx(0.05)
    frontier = [f["config"] for f in doc["frontier"]]
    assert frontier[0] == "tiny"  # the cheapest is never beaten at a lower cost
    costs = {c["config"]: c["cost"] for c in doc["configs"]}
    assert [costs[c] for c in frontier] == sorted(costs[c] for c in frontier)
    assert len(doc["margin_tests"]) == 3
    assert doc["ship"] in {doc["winner"]["config"], *(m["config"] for m in doc["margin_tests"] if m["non_inferior"])}
    assert doc["verdict"].startswith(f"Ship {doc['ship']}")


def test_rank_refusals(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    pd.DataFrame({"case": [1, 2, 3], "A": [1, 0, 1], "B": [0, 0, 1], "cost": [1, 2, 3]}).to_csv(path, index=False)
    with pytest.raises(DataError, match="long layout"):
        rank_cli.rank_doc(pd.read_csv(path), cost_column="cost")
    with pytest.raises(DataError, match="margin"):
        rank_cli.rank_doc(pd.read_csv(path).drop(columns="cost"), margin_points=150)
    with pytest.raises(DataError, match="no cost column"):
        rank_cli.rank_doc(pd.read_csv(path), cost_column="price")


def test_rank_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    rank_cli.register(parser.add_subparsers())
    args = parser.parse_args(["rank", str(_long(tmp_path)), "--resamples", "300"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "verdict:" in out and "winner" in out and "rank" in out


def _margin_p(d: np.ndarray, margin: float) -> float:
    """p of "not worse by more than the margin": Tango's score statistic (against t_{n-1}) when every d is -1, 0
    or 1, else the t-test
    with the standard error of d plus a pseudo-case of +1 and of -1 (weight 1/2 each) and 0 (weight 1)."""
    from scipy import optimize

    n = d.size
    if np.all(np.isin(d, (-1.0, 0.0, 1.0))):
        n10, n01 = int(np.sum(d == 1)), int(np.sum(d == -1))
        m = n - n10 - n01

        def nll(q: float) -> float:
            terms = [(n10, q - margin), (n01, q), (m, 1 - 2 * q + margin)]
            return -sum(c * np.log(v) for c, v in terms if c > 0)

        bounds = (margin + 1e-13, (1 + margin) / 2 - 1e-13)
        q = optimize.minimize_scalar(nll, bounds=bounds, method="bounded", options={"xatol": 1e-13}).x
        z = (n10 - n01 + n * margin) / np.sqrt(n * (2 * q - margin - margin**2))
        return float(stats.t.sf(z, n - 1))  # Z referred to Student's t with n - 1 df
    vals = np.concatenate([d, [1.0, -1.0, 0.0]])
    wts = np.concatenate([np.ones(n), [0.5, 0.5, 1.0]])
    total = wts.sum()
    mu = np.sum(wts * vals) / total
    se = np.sqrt(np.sum(wts * (vals - mu) ** 2) / (total - 1) / total)
    return float(stats.t.sf((d.mean() + margin) / se, n - 1))


@pytest.mark.parametrize("repeats", [1, 2])
def test_compare_margin_is_the_margin_test(tmp_path: Path, capsys: pytest.CaptureFixture[str], repeats: int) -> None:
    path = _long(tmp_path, repeats=repeats)
    assert main(["compare", str(path), "--a", "gpt-big", "--b", "gpt-small", "--margin", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    frame = pd.read_csv(path)
    means = frame.groupby(["case", "config"])["correct"].mean().unstack()
    p = _margin_p((means["gpt-small"] - means["gpt-big"]).to_numpy(), 0.04)
    assert doc["margin"] == pytest.approx(0.04)
    assert doc["p_non_inferior"] == pytest.approx(p, rel=1e-6)
    assert doc["non_inferior"] is bool(p < 0.05)
    assert type(doc["non_inferior"]) is bool
    assert main(["compare", str(path), "--a", "gpt-big", "--b", "gpt-small", "--margin", "4"]) == 0
    assert "margin: gpt-small is" in capsys.readouterr().out


def test_compare_margin_refuses_a_bad_margin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _long(tmp_path)
    assert main(["compare", str(path), "--a", "gpt-big", "--b", "tiny", "--margin", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the margin must be between 0 and 100 points") and err.count("\n") == 1
