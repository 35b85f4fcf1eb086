"""``plan`` with repeats per case: one case-level design, the splits of a budget of calls, variances read from a
file (--from); the JSON keys ``splits`` / ``best_split`` are a contract. Numbers are checked against the variance
law written out here, a one-way analysis of variance done by hand with pandas, and the discordance plan."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore.cli import main
from tests.test_harness import REPEATS, pf_repeats

PLAN_KEYS = {"cases", "discordance", "min_resolvable_diff", "mde_at_power"}
SPLIT_KEYS = {"cases", "repeats", "calls", "min_resolvable_diff", "mde_at_power"}
Z = float(stats.norm.ppf(0.975))
ZP = float(stats.norm.ppf(0.8))


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code: int | str | None
    try:
        code = main(["plan", *argv])
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    out, err = capsys.readouterr()
    return int(code or 0), out, err


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    code, out, err = _run(capsys, [*argv, "--json"])
    assert (code, err) == (0, ""), err
    return json.loads(out)


def _law(n: int, k: int, b: float, w: float) -> tuple[float, float]:
    se = math.sqrt((b + w / k) / n)
    return Z * se, (Z + ZP) * se


def test_one_design(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, ["--cases", "200", "--repeats", "5", "--between-var", "0.0625", "--within-var", "0.1875"])
    assert PLAN_KEYS <= doc.keys() and doc["discordance"] is None
    mrd, mde = _law(200, 5, 0.0625, 0.1875)
    assert (doc["cases"], doc["repeats"], doc["calls"]) == (200, 5, 1000)
    assert doc["min_resolvable_diff"] == pytest.approx(mrd) and doc["mde_at_power"] == pytest.approx(mde)
    assert doc["case_level"]["min_resolvable_diff"] == pytest.approx(mrd)
    assert "splits" not in doc and "best_split" not in doc
    code, out, _ = _run(
        capsys, ["--cases", "200", "--repeats", "5", "--between-var", "0.0625", "--within-var", "0.1875"]
    )
    assert code == 0 and out.startswith("200 cases with 5 repeats per case (1,000 calls per config)")
    assert "4.4 points (z = 1.96 standard errors) reaches p < 0.05 half the time" in out


def test_calls_give_every_split_and_the_best(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--calls", "1000", "--cases-available", "200", "--between-var", "0.0625", "--within-var", "0.1875"]
    doc = _json(capsys, argv)
    assert all(set(s) == SPLIT_KEYS for s in doc["splits"]) and set(doc["best_split"]) == SPLIT_KEYS
    assert doc["best_split"] in doc["splits"]
    assert [s["repeats"] for s in doc["splits"]] == list(range(1, 11))
    for s in doc["splits"]:
        n = min(1000 // s["repeats"], 200)
        assert (s["cases"], s["calls"]) == (n, n * s["repeats"])
        assert (s["min_resolvable_diff"], s["mde_at_power"]) == pytest.approx(_law(n, s["repeats"], 0.0625, 0.1875))
    best = min(doc["splits"], key=lambda s: s["min_resolvable_diff"])
    assert doc["best_split"] == best and (best["cases"], best["repeats"]) == (200, 5)
    assert doc["budget"]["unlimited_cases"]["cases"] == 1000
    # without --cases the plan's design is the best split's
    assert (doc["cases"], doc["repeats"], doc["discordance"]) == (200, 5, None)
    code, out, _ = _run(capsys, argv)
    assert code == 0
    assert (
        "More cases, as long as you have them: 1,000 calls per config on 1,000 cases (one repeat each) would resolve "
        "3.1 points; on the 200 cases you have, 5 repeats per case resolve 4.4 points." in out
    )
    # cases unlimited: one repeat per case is best
    doc = _json(capsys, ["--calls", "1000", "--between-var", "0.0625", "--within-var", "0.1875", "--max-repeats", "4"])
    assert (doc["best_split"]["cases"], doc["best_split"]["repeats"]) == (1000, 1)
    assert len(doc["splits"]) == 4 and doc["budget"]["cases_available"] is None


def test_the_discordance_plan_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, ["--cases", "200", "--discordance", "0.06"])
    assert (doc["cases"], doc["discordance"], doc["min_resolvable_diff"]) == (200, 0.06, 0.04)
    assert not {"case_level", "splits", "best_split", "budget", "source", "notes"} & doc.keys()
    assert set(doc["sentences"]) == {"min_resolvable", "mde", "sqrt_law"}
    # one repeat per case with the discordance: McNemar's plan, unchanged
    assert _json(capsys, ["--cases", "200", "--discordance", "0.06", "--repeats", "1"]) == doc


def _epochs_frame(n: int, k: int, s: float, mu: float, seed: int) -> pd.DataFrame:
    """Long rows case, config, epoch, correct: p_A,i = 0.25 + 0.5 Beta(2, 2), p_B,i = p_A,i + mu +- s."""
    rng = np.random.default_rng(seed)
    p_a = 0.25 + 0.5 * rng.beta(2.0, 2.0, n)
    p_b = p_a + mu + s * rng.choice([-1.0, 1.0], n)
    rows = []
    for cfg, p in (("A", p_a), ("B", p_b)):
        x = rng.random((n, k)) < p[:, None]
        for i in range(n):
            rows += [(f"q{i}", cfg, e + 1, int(x[i, e])) for e in range(k)]
    return pd.DataFrame(rows, columns=["case", "config", "epoch", "correct"])


def _anova(frame: pd.DataFrame) -> tuple[float, float]:
    """Between- and within-case variance of the per-case difference, one-way ANOVA written out with pandas."""
    g = frame.groupby(["case", "config"])["correct"]
    means = g.mean().unstack()
    within = sum(
        ((frame[frame["config"] == c]["correct"] - frame[frame["config"] == c].groupby("case")["correct"].transform("mean")) ** 2).sum()
        / (g.size().unstack()[c] - 1).sum()
        for c in ("A", "B")
    )  # fmt: skip
    k = g.size().unstack()["A"].to_numpy()
    d = (means["B"] - means["A"]).to_numpy()
    return float(d.var(ddof=1) - np.mean(within / k)), float(within)


def test_from_a_file_with_epochs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    s, mu = 0.15, 0.03
    frame = _epochs_frame(1500, 4, s, mu, seed=3)
    path = tmp_path / "epochs.csv"
    frame.to_csv(path, index=False)
    doc = _json(capsys, ["--from", str(path), "--calls", "12000"])
    between, within = _anova(frame)
    src = doc["source"]
    assert (src["config_a"], src["config_b"], src["n_cases"], src["repeats"]) == ("A", "B", 1500, 4)
    assert (src["between_var"], src["within_var"]) == (pytest.approx(between), pytest.approx(within))
    # the estimates against the simulated world's own variances: s^2 and 0.5 - 2 Var(p_A) - s^2 - mu^2
    assert between == pytest.approx(s * s, abs=0.012)
    assert within == pytest.approx(0.5 - 2 * 0.0125 - s * s - mu * mu, abs=0.01)
    # the design of the file (1,500 cases x 4 repeats) and the splits of 12,000 calls on the 1,500 cases there are
    assert (doc["cases"], doc["repeats"], doc["discordance"]) == (1500, 4, None)
    assert doc["min_resolvable_diff"] == pytest.approx(_law(1500, 4, between, within)[0])
    assert doc["budget"]["cases_available"] == 1500
    best = doc["best_split"]
    assert best["cases"] * best["repeats"] <= 12000 and best["repeats"] in (8, 9)
    assert best == min(doc["splits"], key=lambda x: (x["min_resolvable_diff"], x["calls"], x["repeats"]))


def test_from_a_file_of_one_0_1_result_per_case(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.random(300) < 0.6, rng.random(300) < 0.65
    path = tmp_path / "wide.csv"
    pd.DataFrame({"case": range(300), "A": a.astype(int), "B": b.astype(int)}).to_csv(path, index=False)
    doc = _json(capsys, ["--from", str(path)])
    disc = float(np.mean(a != b))
    assert doc["source"]["discordance"] == pytest.approx(disc)
    # the discordance plan, exactly as typed; beside it the case-level design at one repeat per case
    typed = _json(capsys, ["--cases", "300", "--discordance", str(disc)])
    assert {k: doc[k] for k in typed if k != "sentences"} == {k: v for k, v in typed.items() if k != "sentences"}
    assert typed["sentences"].items() <= doc["sentences"].items()
    var_d = float(np.var(b.astype(float) - a.astype(float), ddof=1))
    assert doc["case_level"]["min_resolvable_diff"] == pytest.approx(Z * math.sqrt(var_d / 300))
    assert any("cannot be split" in n for n in doc["notes"])
    code, _, err = _run(capsys, ["--from", str(path), "--calls", "1000"])
    assert code == 2 and "run some cases at least twice per config" in err and err.count("\n") == 1


def test_from_promptfoo_repeats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    two = pf_repeats(REPEATS)
    flipped = [[1 - x for x in r] for r in REPEATS]
    two["results"]["results"] += pf_repeats(flipped, provider="openai:gpt-4o")["results"]["results"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(two))
    doc = _json(capsys, ["--from", str(path), "--calls", "60"])
    assert (doc["source"]["n_cases"], doc["source"]["repeats"]) == (5, 3)
    x, y = np.array(REPEATS, float), np.array(flipped, float)
    within = float(np.mean(x.var(axis=1, ddof=1)) + np.mean(y.var(axis=1, ddof=1)))
    between = float((y.mean(axis=1) - x.mean(axis=1)).var(ddof=1) - within / 3)
    assert (doc["source"]["within_var"], doc["source"]["between_var"]) == pytest.approx((within, between))
    assert doc["budget"]["cases_available"] == 5 and all(s["cases"] <= 5 for s in doc["splits"])


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--cases", "200", "--repeats", "5"], "need --between-var and --within-var"),
        (["--repeats", "5"], "need --between-var and --within-var"),
        (["--cases", "200", "--repeats", "5", "--discordance", "0.06"], "--discordance describes one repeat per case"),
        (["--cases", "200"], "give --cases and --discordance, or --between-var"),
        (["--discordance", "0.06"], "give --cases"),
        (["--cases", "200", "--between-var", "0.1"], "give both --between-var and --within-var"),
        (["--cases", "200", "--between-var", "0.1", "--within-var", "-1"], "within-case variance must be a number"),
        (["--cases", "200", "--between-var", "nan", "--within-var", "0.1"], "between-case variance must be"),
        (["--cases", "200", "--between-var", "0", "--within-var", "0"], "both 0"),
        (["--cases", "200", "--repeats", "0", "--between-var", "0.1", "--within-var", "0.1"], "repeats per case"),
        (["--calls", "0", "--between-var", "0.1", "--within-var", "0.1"], "calls per config"),
        (["--calls", "100", "--between-var", "0.1", "--within-var", "0.1", "--cases-available", "0"], "available"),
        (["--cases", "200", "--between-var", "0.1", "--within-var", "0.1", "--cases-available", "9"], "give --calls"),
        (["--cases", "200", "--between-var", "0.1", "--within-var", "0.1", "--target-diff", "0.01"], "--discordance"),
        (["--cases", "200", "--discordance", "0.06", "--a", "A"], "give --from FILE too"),
        (["--calls", "many"], "invalid int value"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    code, out, err = _run(capsys, argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err


def test_bad_from_files_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "three.csv"
    pd.DataFrame({"case": [1, 2], "A": [1, 0], "B": [0, 1], "C": [1, 1]}).to_csv(path, index=False)
    code, _, err = _run(capsys, ["--from", str(path)])
    assert code == 2 and "name the two configs" in err and "'C'" in err
    code, _, err = _run(capsys, ["--from", str(path), "--a", "A", "--b", "Q"])
    assert code == 2 and "unknown config 'Q'" in err
    code, _, err = _run(capsys, ["--from", str(path), "--a", "A", "--b", "B", "--between-var", "0.1"])
    assert code == 2 and "not both" in err
    same = tmp_path / "same.csv"
    pd.DataFrame({"case": [1, 2, 3], "A": [1, 0, 1], "B": [1, 0, 1]}).to_csv(same, index=False)
    code, _, err = _run(capsys, ["--from", str(same)])
    assert code == 2 and "score the same on every one of the 3 paired cases" in err
    code, _, err = _run(capsys, ["--from", str(tmp_path / "missing.csv")])
    assert code == 2 and err.count("\n") == 1
