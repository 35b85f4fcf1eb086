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
    # the contract's types: counts are ints, rates and p-values floats
    assert all(type(doc[k]) is int for k in ("n_cases", "a_only", "b_only"))
    assert all(type(doc[k]) is float for k in ("diff", "p_exact", "p_midp", "p_chi2_cc", "diff_ci_low", "diff_ci_high"))
    assert type(doc["a"]["correct"]) is int and type(doc["a"]["n"]) is int and type(doc["a"]["ci_low"]) is float
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
    assert "verdict: cannot tell n=5 from n=3: +1.0 points (95% interval -2.5 to +4.5, p = 0.77)" in out
    assert "194 cases the same" not in out and "188 cases the same for both" in out


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
        (["--a", "n=1", "--b", "n=3", "--alpha", "0"], "--alpha must be between 0 and 1"),
        (["--a", "n=1", "--b", "n=3", "--alpha", "1"], "--alpha must be between 0 and 1"),
        (["--a", "n=1", "--b", "n=1"], "a config is chosen twice"),
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
    assert err.count("\n") == 1 and "'correct' must be 0 or 1" in err and "data row 2 (case '1', config 'B': 2)" in err
    assert main(["compare", str(tmp_path / "nope.csv"), "--a", "A", "--b", "B"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_compare_zero_discordant_and_all_discordant(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, "same.csv", "case,A,B\n1,1,1\n2,0,0\n3,1,1\n")
    doc = _run_json(capsys, ["compare", str(path)])
    assert (doc["a_only"], doc["b_only"], doc["p_exact"], doc["p_midp"], doc["p_chi2_cc"]) == (0, 0, 1.0, 1.0, 1.0)
    assert (doc["diff_ci_low"], doc["diff_ci_high"]) == (0.0, 0.0)
    assert doc["min_resolvable_diff"] is None and doc["critical_count"] is None  # JSON null: nothing resolvable
    assert "agree on all 3 cases (no discordant case)" in doc["verdict"]
    path = _write(tmp_path, "flip.csv", "case,A,B\n" + "".join(f"{i},{i % 2},{1 - i % 2}\n" for i in range(8)))
    doc = _run_json(capsys, ["compare", str(path)])
    assert (doc["a_only"], doc["b_only"], doc["both_correct"], doc["both_wrong"]) == (4, 4, 0, 0)
    # balanced: R's rule gives chi2 = 0 and p = 1; the JSON names the rule
    assert (doc["chi2_cc"], doc["p_chi2_cc"]) == (0.0, 1.0) and "R's mcnemar.test" in doc["chi2_cc_rule"]
    assert main(["compare", str(path)]) == 0
    assert "(balanced table: chi-square 0, no correction, as R's mcnemar.test)" in capsys.readouterr().out


def test_compare_one_case_and_one_discordant_case(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, "one.csv", "case,config,correct\n1,A,1\n1,B,0\n")
    doc = _run_json(capsys, ["compare", str(path), "--a", "A", "--b", "B"])
    assert (doc["n_cases"], doc["diff"], doc["p_exact"]) == (1, -1.0, 1.0)
    assert doc["p_midp"] == pytest.approx(0.5)  # 2 P(X <= 0) - P(X = 0) with X ~ Binomial(1, 1/2)
    assert "only 1 discordant case among 1 case no split of them can reach p < 0.05" in doc["verdict"]
    assert main(["compare", str(path), "--a", "A", "--b", "B"]) == 0
    assert "0 cases the same for both" in capsys.readouterr().out


def test_compare_pairing_drops_cases_and_odd_config_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # wide with blanks: case 3 has no 'model one', case 4 no 'model=two'
    text = "case,model one,model=two\n1,1,0\n2,1,1\n3,,1\n4,0,\n5,0,1\n"
    path = _write(tmp_path, "wide.csv", text)
    doc = _run_json(capsys, ["compare", str(path), "--a", "model one", "--b", "model=two"])
    assert (doc["n_cases"], doc["dropped_cases"]) == (3, 2)
    assert doc["cases_per_config"] == {"model one": 4, "model=two": 4}
    assert (doc["a"]["config"], doc["b"]["config"], doc["a_only"], doc["b_only"]) == ("model one", "model=two", 1, 1)
    # naming one of two configs is enough
    assert _run_json(capsys, ["compare", str(path), "--b", "model one"])["a"]["config"] == "model=two"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("case,config,correct\n", "no data rows"),
        (
            "case,config,correct\n1,A,1\n1,B,1.5\n",
            "'correct' must be 0 or 1; 1 row(s) are not: data row 2",
        ),
        ("case,config,correct\n1,A,1\n1,A,0\n1,B,1\n", "duplicate (case, config) rows"),
        ("case,A,B\n1,1,yes please\n", "config column 'B' must hold 0 or 1"),
        ("case,A\n1,1\n", "unknown config 'B'; the configs present are 'A'"),
        ("case,A,B\n1,1,\n2,,0\n", "no case has results for every config"),
        ("id,A,B\n1,1,0\n", "no 'case' column"),
    ],
)
def test_compare_bad_files_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, words: str
) -> None:
    path = _write(tmp_path, "bad.csv", text)
    assert main(["compare", str(path), "--a", "A", "--b", "B"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and words in captured.err
    assert "Traceback" not in captured.err


def test_plan_json_contract_and_chapter_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _run_json(capsys, ["plan", "--cases", "200", "--discordance", "0.06"])
    assert PLAN_KEYS <= doc.keys() and not any(k.startswith("cases_for_target") for k in doc)
    assert type(doc["cases"]) is int and type(doc["min_resolvable_diff"]) is float
    assert (doc["cases"], doc["discordance"], doc["min_resolvable_diff"]) == (200, 0.06, 0.04)
    assert doc["mde_at_power"] == pytest.approx(0.0482, abs=1e-4)
    doc = _run_json(capsys, ["plan", "--cases", "200", "--discordance", "0.06", "--target-diff", "0.01"])
    assert doc["cases_for_target"] == 2600 and doc["cases_for_target_sqrt_law"] == 3200
    assert (doc["cases_for_target_stable"], doc["cases_for_target_at_power"]) == (2800, 4707)
    assert doc["cases_for_target_at_power_exact"] == 4876
    # nothing resolvable: infinities are null
    doc = _run_json(capsys, ["plan", "--cases", "50", "--discordance", "0.1"])
    assert doc["min_resolvable_diff"] is None and doc["mde_at_power"] is None and doc["critical_count"] is None
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
        (["--cases", "200", "--discordance", "0.06", "--power", "1"], "power must be at least 0.5 and below 1"),
        (["--cases", "200", "--discordance", "0.06", "--alpha", "0"], "alpha (the significance level) must be"),
        (["--cases", "200", "--discordance", "0.06", "--alpha", "1"], "alpha (the significance level) must be"),
        (["--cases", "200", "--discordance", "nan"], "discordance is the share of cases"),
        (["--cases", "20000000", "--discordance", "0.06"], "at most 10,000,000"),
        (["--cases", "200", "--discordance", "0.06", "--label-error", "1"], "label error rate"),
    ],
)
def test_plan_bad_input_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    code: int | str | None
    try:
        code = main(["plan", *argv])
    except SystemExit as exc:  # argparse's own type errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


# ------------------------------------------------------------------------------------ evaluation-harness files


def test_compare_promptfoo_results_file_two_providers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.test_harness import pf_document, pf_result

    mini, full = [1, 0, 1, 0, 1, 1], [1, 1, 1, 1, 0, 1]
    results = [pf_result(i, "openai:gpt-4o-mini", bool(v), {"q": i}) for i, v in enumerate(mini)]
    results += [pf_result(i, "openai:gpt-4o", bool(v), {"q": i}) for i, v in enumerate(full)]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(pf_document(results), indent=2))
    doc = _run_json(capsys, ["compare", str(path)])  # two configs: A and B in file order
    assert COMPARE_KEYS <= doc.keys()
    assert (doc["a"]["config"], doc["a"]["correct"], doc["b"]["config"], doc["b"]["correct"]) == (
        "openai:gpt-4o-mini",
        sum(mini),
        "openai:gpt-4o",
        sum(full),
    )
    assert (doc["a_only"], doc["b_only"]) == (1, 2)  # case 4 only mini gets right; cases 1 and 3 only gpt-4o
    assert isinstance(doc.get("notes", []), list)  # no note: no result ended in an error (failureReason 2)


def test_compare_lm_eval_metric_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.test_harness import DATE_A, DATE_B, write_lm_run

    a = write_lm_run(tmp_path, "m1", DATE_A, [1, 0, 1, 0])
    b = write_lm_run(tmp_path, "m2", DATE_B, [1, 1, 1, 0])
    acc = _run_json(capsys, ["compare", str(a), str(b)])
    norm = _run_json(capsys, ["compare", str(a), str(b), "--metric", "acc_norm"])  # acc_norm = 1 - acc here
    assert (acc["a"]["correct"], acc["b"]["correct"]) == (2, 3)
    assert (norm["a"]["correct"], norm["b"]["correct"]) == (2, 1)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--metric", "acc"], "--metric applies to lm-evaluation-harness samples files"),
        (["SECOND"], "not an evaluation-harness output; several files are read together only when each is one"),
    ],
)
def test_compare_harness_misuse_exits_2(
    capsys: pytest.CaptureFixture[str], long_csv: Path, extra: list[str], words: str
) -> None:
    argv = ["compare", str(long_csv), *[str(long_csv) if e == "SECOND" else e for e in extra]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_compare_one_harness_config_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.test_harness import DATE_A, write_lm_run

    a = write_lm_run(tmp_path, "m1", DATE_A, [1, 0, 1, 0])
    assert main(["compare", str(a)]) == 2
    assert "these files hold one config (m1): a paired comparison needs two" in capsys.readouterr().err


def test_compare_flags_the_paired_interval_with_few_discordant_cases(
    capsys: pytest.CaptureFixture[str], long_csv: Path
) -> None:
    """Issue 53: with 12 discordant cases the bootstrap interval covers less often than 95%; the JSON and the text
    say so and point to the test; with 38 they do not."""
    doc = _run_json(capsys, ["compare", str(long_csv), "--a", "n=1", "--b", "n=3"])
    assert (doc["a_only"] + doc["b_only"], doc["interval_reliable"], doc["interval_note"]) == (38, True, None)
    doc = _run_json(capsys, ["compare", str(long_csv), "--a", "n=3", "--b", "n=5"])
    assert (doc["a_only"] + doc["b_only"], doc["interval_reliable"]) == (12, False)
    assert doc["interval_note"].startswith("this interval is less reliable: only 12 cases where the configs disagree")
    assert main(["compare", str(long_csv), "--a", "n=3", "--b", "n=5"]) == 0
    assert "read the test's p" in capsys.readouterr().out
    assert main(["compare", str(long_csv), "--a", "n=1", "--b", "n=3"]) == 0
    assert "less reliable" not in capsys.readouterr().out
