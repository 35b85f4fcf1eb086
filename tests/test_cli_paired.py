"""The ``compare`` and ``plan`` subcommands: JSON contract, plain output, exit code 2 on bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore.cli import main
from tests.test_paired import long_frame, worked_table

COMPARE_KEYS = {
    "n_cases",
    "a",
    "b",
    "a_only",
    "b_only",
    "diff",
    "p_exact",
    "p_midp",
    "p_chi2_cc",
    "diff_ci_low",
    "diff_ci_high",
}
CONFIG_KEYS = {"config", "correct", "n", "accuracy", "ci_low", "ci_high"}
PLAN_KEYS = {"cases", "discordance", "min_resolvable_diff", "mde_at_power"}


@pytest.fixture
def long_csv(tmp_path: Path) -> Path:
    path = tmp_path / "paired.csv"
    long_frame(worked_table()).to_csv(path, index=False)
    return path


def _run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_compare_json_contract_and_chapter_numbers(capsys: pytest.CaptureFixture[str], long_csv: Path) -> None:
    doc = _run_json(capsys, ["compare", str(long_csv), "--a", "n=1", "--b", "n=3"])
    assert COMPARE_KEYS <= doc.keys()
    assert CONFIG_KEYS == doc["a"].keys() == doc["b"].keys()
    assert doc["n_cases"] == 200
    assert (doc["a"]["config"], doc["a"]["correct"], doc["a"]["n"]) == ("n=1", 142, 200)
    assert (doc["b"]["config"], doc["b"]["correct"], doc["b"]["accuracy"]) == ("n=3", 156, 0.78)
    assert (doc["a_only"], doc["b_only"]) == (12, 26)
    assert doc["diff"] == pytest.approx(0.07)
    assert round(doc["p_exact"], 3) == 0.034 and round(doc["p_chi2_cc"], 3) == 0.035
    assert doc["p_midp"] < doc["p_exact"]
    assert (doc["diff_ci_low"], doc["diff_ci_high"]) == (pytest.approx(0.01), pytest.approx(0.13))
    assert doc["verdict"] == "n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034"


def test_compare_plain_output_uses_the_glossary(capsys: pytest.CaptureFixture[str], long_csv: Path) -> None:
    assert main(["compare", str(long_csv), "--a", "n=3", "--b", "n=5"]) == 0
    out = capsys.readouterr().out
    assert "n=3 -> n=5 on 200 paired cases" in out
    assert "156 of 200 correct" in out and "158 of 200 correct" in out
    assert "discordant cases: 7 only n=5 gets right, 5 only n=3" in out
    assert "verdict: cannot tell n=5 from n=3: +1.0 points (95% interval -2.5 to +4.5)" in out


@pytest.mark.parametrize("fmt", ["wide.tsv", "long.jsonl", "long.csv.gz", "wide.parquet"])
def test_compare_reads_every_format(capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str) -> None:
    t = worked_table()
    layout, suffix = fmt.split(".", 1)
    if layout == "wide":
        frame = pd.DataFrame({"case": t.cases, **{c: t.correct[:, j].astype(int) for j, c in enumerate(t.configs)}})
    else:
        frame = long_frame(t)
    path = tmp_path / f"results.{suffix}"
    if suffix == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif suffix == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    elif suffix == "csv.gz":
        path.write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    else:
        frame.to_parquet(path, index=False)
    doc = _run_json(capsys, ["compare", str(path), "--a", "n=5", "--b", "n=7"])
    assert (doc["a_only"], doc["b_only"], doc["p_exact"]) == (3, 3, 1.0)


def test_compare_reports_dropped_cases(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    frame = long_frame(worked_table())
    frame = frame[~((frame["config"] == "n=3") & frame["case"].isin(["q0", "q1", "q2"]))]
    path = tmp_path / "gaps.csv"
    frame.to_csv(path, index=False)
    doc = _run_json(capsys, ["compare", str(path), "--a", "n=1", "--b", "n=3"])
    assert doc["n_cases"] == 197 and doc["dropped_cases"] == 3
    assert doc["cases_per_config"] == {"n=1": 200, "n=3": 197}


def test_compare_two_config_file_needs_no_flags(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "two.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"case": range(50), "old": rng.integers(0, 2, 50), "new": rng.integers(0, 2, 50)}).to_csv(
        path, index=False
    )
    doc = _run_json(capsys, ["compare", str(path)])
    assert (doc["a"]["config"], doc["b"]["config"]) == ("old", "new")


def test_compare_clopper_pearson_and_alpha(capsys: pytest.CaptureFixture[str], long_csv: Path) -> None:
    doc = _run_json(
        capsys,
        ["compare", str(long_csv), "--a", "n=1", "--b", "n=3", "--alpha", "0.1", "--interval", "clopper-pearson"],
    )
    assert doc["level"] == pytest.approx(0.9) and doc["interval_method"] == "clopper-pearson"
    assert doc["diff_ci_high"] - doc["diff_ci_low"] < 0.12


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--a", "n=1", "--b", "n=9"], "unknown config 'n=9'; the configs present are 'n=1', 'n=3', 'n=5', 'n=7'"),
        (["--a", "n=1"], "name the two configs to compare with --a and --b"),
        (["--a", "n=1", "--b", "n=3", "--alpha", "2"], "--alpha must be between 0 and 1"),
    ],
)
def test_compare_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], long_csv: Path, argv: list[str], words: str
) -> None:
    assert main(["compare", str(long_csv), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_compare_bad_values_and_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("case,config,correct\n1,A,1\n1,B,2\n")
    assert main(["compare", str(path), "--a", "A", "--b", "B"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'correct' must be 0 or 1" in err and "rows 2 (case '1', config 'B': 2)" in err
    assert main(["compare", str(tmp_path / "nope.csv"), "--a", "A", "--b", "B"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_plan_json_contract_and_chapter_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _run_json(capsys, ["plan", "--cases", "200", "--discordance", "0.06"])
    assert PLAN_KEYS <= doc.keys() and "cases_for_target" not in doc
    assert (doc["cases"], doc["discordance"], doc["min_resolvable_diff"]) == (200, 0.06, 0.04)
    assert doc["mde_at_power"] == pytest.approx(0.0482, abs=1e-4)
    doc = _run_json(capsys, ["plan", "--cases", "200", "--discordance", "0.06", "--target-diff", "0.01"])
    assert doc["cases_for_target"] == 2600 and doc["cases_for_target_sqrt_law"] == 3200
    doc = _run_json(capsys, ["plan", "--cases", "200", "--discordance", "0.06", "--label-error", "0.03"])
    assert doc["label_error"]["best_measurable_accuracy"] == pytest.approx(0.97)


def test_plan_plain_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--cases", "200", "--discordance", "0.06", "--target-diff", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "200 cases at 6% discordance give about 12 discordant cases" in out
    assert "3,200" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--cases", "200", "--discordance", "6"], "0.06 for 6%"),
        (["--cases", "0", "--discordance", "0.06"], "number of cases"),
        (["--cases", "200", "--discordance", "0.06", "--target-diff", "0.5"], "never differ by more than"),
        (["--cases", "200", "--discordance", "0.06", "--power", "0.2"], "power"),
        (["--cases", "many", "--discordance", "0.06"], "invalid int value"),
    ],
)
def test_plan_bad_input_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    try:
        code = main(["plan", *argv])
    except SystemExit as exc:  # argparse's own type errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err
