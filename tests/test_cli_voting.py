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


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


VOTE_KEYS = {
    "n_cases",
    "curve",
    "rho",
    "rho_ci_low",
    "rho_ci_high",
    "p_single",
    "n_eff",
    "unfixable",
    "unanimous_wrong",
}
CURVE_KEYS = {"n", "accuracy", "ci_low", "ci_high", "first_n_accuracy"}


def _strict(text: str) -> dict:
    """Parse JSON refusing NaN / Infinity (not JSON; a consumer in another language would choke)."""

    def bad(name: str) -> None:
        raise AssertionError(f"non-JSON constant {name}")

    return json.loads(text, parse_constant=bad)


def test_vote_json_contract(capsys: pytest.CaptureFixture[str], worked_samples_path: Path) -> None:
    code, out, _ = _run(capsys, "vote", str(worked_samples_path), "--json", "--n-boot", "300")
    assert code == 0
    doc = _strict(out)
    assert VOTE_KEYS <= set(doc)
    assert isinstance(doc["n_cases"], int) and isinstance(doc["unfixable"], int)
    assert doc["n_cases"] == 200
    assert [p["n"] for p in doc["curve"]] == list(range(1, 8))
    for p in doc["curve"]:
        assert CURVE_KEYS <= set(p) and all(isinstance(p[k], (int, float)) for k in CURVE_KEYS)
        assert p["ci_low"] <= p["accuracy"] <= p["ci_high"]
    first = {p["n"]: round(p["first_n_accuracy"] * 200) for p in doc["curve"]}
    assert [first[n] for n in (1, 3, 5, 7)] == [142, 156, 158, 158]
    assert doc["unfixable"] == 38 and doc["unanimous_wrong"] == 30
    assert doc["rho_ci_low"] < doc["rho"] < doc["rho_ci_high"]
    assert doc["p_single"] == doc["curve"][0]["accuracy"]
    assert [set(r) >= {"n", "n_eff"} for r in doc["n_eff"]] == [True] * 7
    assert [r["n"] for r in doc["n_eff"]] == list(range(1, 8))
    assert doc["n_eff"][4]["n_eff"] == pytest.approx(5 / (1 + 4 * doc["rho"]))


K_KEYS = {"k", "value", "ci_low", "ci_high"}


def test_vote_json_pass_at_k_and_flaky_keys(capsys: pytest.CaptureFixture[str], worked_samples_path: Path) -> None:
    """pass@7 and pass^7 are the shares of cases with any / every sample right, counted here in pandas."""
    code, out, _ = _run(capsys, "vote", str(worked_samples_path), "--json", "--n-boot", "300")
    doc = _strict(out)
    assert code == 0 and {"pass_at_k", "pass_hat_k", "flaky", "flaky_share"} <= set(doc)
    frame = pd.read_csv(worked_samples_path)
    right = (frame["answer"] == frame["gold"]).groupby(frame["case"]).sum()
    for key in ("pass_at_k", "pass_hat_k"):
        assert [v["k"] for v in doc[key]] == list(range(1, 8))
        for v in doc[key]:
            assert K_KEYS <= set(v) and v["ci_low"] <= v["value"] <= v["ci_high"]
    assert doc["pass_at_k"][6]["value"] == pytest.approx((right > 0).mean())
    assert doc["pass_hat_k"][6]["value"] == pytest.approx((right == 7).mean())
    assert doc["pass_at_k"][0]["value"] == pytest.approx(doc["p_single"])
    assert doc["flaky"] == int(((right > 0) & (right < 7)).sum()) == 135
    assert isinstance(doc["flaky"], int) and doc["flaky_share"] == pytest.approx(135 / 200)
    first = doc["flaky_cases"][0]
    assert len(doc["flaky_cases"]) == 20 and abs(first["n_right"] / first["n_samples"] - 0.5) <= 1 / 14
    assert sum(a["count"] for a in first["answers"]) == first["n_samples"]


def test_vote_pass_at_k_on_binary_and_unanimous_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    binary = pd.DataFrame({"case": [1, 1, 2, 2], "sample": [1, 2, 1, 2], "correct": [1, 0, 1, 1]})
    binary.to_csv(tmp_path / "b.csv", index=False)
    doc = _strict(_run(capsys, "vote", str(tmp_path / "b.csv"), "--json", "--n-boot", "100", "--from-n", "1")[1])
    assert doc["flaky"] == 1 and doc["flaky_cases"][0]["answers"] == []
    assert [v["value"] for v in doc["pass_at_k"]] == [0.75, 1.0]
    assert [v["value"] for v in doc["pass_hat_k"]] == [0.75, 0.5]
    same = pd.DataFrame({"case": np.repeat([1, 2], 3), "sample": [1, 2, 3] * 2, "answer": "x", "gold": "x"})
    same.to_csv(tmp_path / "s.csv", index=False)
    doc = _strict(_run(capsys, "vote", str(tmp_path / "s.csv"), "--json", "--n-boot", "100")[1])
    assert doc["flaky"] == 0 and doc["flaky_share"] == 0.0 and doc["flaky_cases"] == []
    assert [v["value"] for v in doc["pass_hat_k"]] == [1.0, 1.0, 1.0]


def test_vote_json_is_strict_when_rho_cannot_be_estimated(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Every sample correct: rho is undefined (0 / 0) and must come out as null, not NaN; the text says why."""
    path = tmp_path / "all_right.csv"
    pd.DataFrame({"case": np.repeat([1, 2, 3], 3), "sample": [1, 2, 3] * 3, "answer": "x", "gold": "x"}).to_csv(
        path, index=False
    )
    code, out, _ = _run(capsys, "vote", str(path), "--json", "--n-boot", "100")
    doc = _strict(out)
    assert code == 0 and doc["rho"] is None and doc["rho_ci_low"] is None and doc["curve"][2]["accuracy"] == 1.0
    code, out, _ = _run(capsys, "vote", str(path), "--n-boot", "100")
    assert code == 0 and "rho cannot be estimated" in out and "nan" not in out


def test_vote_tie_rule_changes_the_first_n_reading(
    capsys: pytest.CaptureFixture[str], worked_samples_path: Path
) -> None:
    _, out, _ = _run(capsys, "vote", str(worked_samples_path), "--json", "--tie", "wrong", "--n-boot", "200")
    doc = json.loads(out)
    assert round(doc["curve"][2]["first_n_accuracy"] * 200) == 120  # ties at n = 3 count wrong
    assert round(doc["curve"][4]["first_n_accuracy"] * 200) == 158  # n = 5 never ties


def test_vote_plain_text_uses_glossary_words(capsys: pytest.CaptureFixture[str], worked_samples_path: Path) -> None:
    code, out, _ = _run(capsys, "vote", str(worked_samples_path), "--n-boot", "200")
    assert code == 0
    assert "samples per request (n)" in out and "rho" in out and "N_eff" in out and "cannot fix" in out
    assert "pass@k: at least one of k right" in out and "k=7   85.0%" in out
    assert "pass@7 (at least one of 7 samples right) is 85% but all 7 right (pass^7) is only 18%" in out
    assert "flaky cases: 135 of 200 cases (67.5%) are flaky" in out


def _lines(n: int = 3) -> list[str]:
    return [f"{c},{j},{'a' if (c + j) % 3 else 'b'},a,1.5" for c in range(1, n + 1) for j in (1, 2, 3)]


@pytest.mark.parametrize(
    ("text", "argv", "words"),
    [
        ("case,sample,answer\n1,1,a\n1,2,b\n", (), "missing gold"),
        ("", (), "empty"),
        ("case,sample,answer,gold\n", (), "no rows"),
        ("x,y\n1,2\n", (), "missing column(s) case, sample"),
        (
            "case,sample,answer,gold\n1,1,NaN,a\n1,2,a,a\n2,1,a,a\n2,2,a,a\n",
            (),
            "empty or missing answers in data row 1",
        ),
        ("case,sample,answer,gold\n1,1,a,a\n1,2,a,\n2,1,a,a\n2,2,b,a\n", (), "missing gold for case(s) 1"),
        ("case,sample,answer,gold\n1,1,a,a\n1,2,b,a\n1,3,a,a\n", (), "this data has 1"),
        ("case,sample,answer,gold\n1,1,a,a\n2,1,b,a\n", (), "every case has one sample"),
        ("case,sample,answer,gold,latency_s\n" + "\n".join(_lines()).replace("1.5", "slow", 1), (), "latency_s"),
        ("case,sample,answer,gold,latency_s\n" + "\n".join(_lines()).replace("1.5", "-2", 1), (), "latency_s"),
        ("case,sample,answer,gold\n" + "\n".join(r.rsplit(",", 1)[0] for r in _lines()), ("--seed", "-1"), "seed"),
        ("case,sample,answer,gold\n" + "\n".join(r.rsplit(",", 1)[0] for r in _lines()), ("--n-boot", "5"), "100"),
        (
            "case,sample,answer,gold\n" + "\n".join(r.rsplit(",", 1)[0] for r in _lines()),
            ("--from-n", "9"),
            "cannot start from n = 9",
        ),
    ],
)
def test_vote_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, argv: tuple[str, ...], words: str
) -> None:
    bad = tmp_path / "s.csv"
    bad.write_text(text)
    code, out, err = _run(capsys, "vote", str(bad), "--n-boot", "100", *argv)
    assert code == 2 and out == "" and words in err and "Traceback" not in err
    assert err.count("\n") == 1, err


def test_vote_correct_column_instead_of_gold(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A 0/1 correct column with answers gives the same curve as gold; without answers the vote is binary."""
    rows = [(c, j, "g" if (c * j) % 4 else f"w{j % 2}") for c in range(1, 21) for j in range(1, 6)]
    gold = pd.DataFrame(rows, columns=["case", "sample", "answer"]).assign(gold="g")
    with_correct = gold.drop(columns="gold").assign(correct=(gold["answer"] == "g").astype(int))
    docs = []
    for name, frame in (("gold.csv", gold), ("correct.csv", with_correct)):
        frame.to_csv(tmp_path / name, index=False)
        code, out, _ = _run(capsys, "vote", str(tmp_path / name), "--json", "--n-boot", "100")
        assert code == 0
        docs.append(_strict(out))
    assert [p["accuracy"] for p in docs[0]["curve"]] == [p["accuracy"] for p in docs[1]["curve"]]


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
    capsys: pytest.CaptureFixture[str], worked_samples_path: Path
) -> None:
    code, out, _ = _run(
        capsys, "fanout", "--latencies", str(worked_samples_path), "--n", "1", "3", "--adaptive", "3+2", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    share = _expected_topup_share(worked_samples_path)  # over random orders: the first 3 are a random 3-subset
    assert doc["topup_share"] == pytest.approx(share, abs=1e-12)
    assert round(doc["rows"][1]["p95"], 1) == 6.1
    assert doc["rows"][-1]["calls"] == pytest.approx(3 + 2 * share, abs=1e-12)


def _expected_topup_share(path: Path) -> float:
    """The share of requests the 3+2 rule (top up when the first 3 show no strict plurality) tops up, in
    expectation over random orders of each case's samples, by hand: the first 3 of a random order are a uniformly
    random 3-subset, and 3 answers have no strict plurality exactly when all three differ."""
    from itertools import combinations

    frame = pd.read_csv(path)
    shares = []
    for _, case in frame.groupby("case"):
        answers = case["answer"].astype(str).tolist()
        triples = list(combinations(answers, 3))
        shares.append(sum(len(set(t)) == 3 for t in triples) / len(triples))
    return float(np.mean(shares))


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
        ("fanout --p50 1.9 --p95 4.6 --n 0", "between 1 and 1000"),
        ("fanout --p50 1.9 --p95 4.6 --n 3 1000000", "between 1 and 1000"),
        ("fanout --p50 1.9 --p95 inf --n 3", "p95 must be a finite"),
        ("fanout --p50 1.9 --p95 4.6 --n 3 --requests-per-month 400000", "--price-per-call"),
        ("fanout --p50 1.9 --p95 4.6 --n 3 --price-per-call -0.01", "non-negative"),
        ("fanout --p50 1.9 --p95 4.6 --n 3 --adaptive 600+600 --topup-share 0.2", "between 1 and 1000"),
    ],
)
def test_fanout_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: str, words: str) -> None:
    code, _, err = _run(capsys, *argv.split())
    assert code == 2 and words in err


def test_fanout_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, *"fanout --p50 1.9 --p95 4.6 --n 1 3 --price-per-call 0.0062".split())
    assert code == 0 and "samples per request n=3" in out and "per 1k requests" in out


@pytest.mark.slow  # out of make test-quick (the edit loop); make test runs it
def test_module_entry_point(worked_samples_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "nkcore", "fanout", "--p50", "1", "--p95", "3", "--n", "2", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert res.returncode == 0 and json.loads(res.stdout)["rows"][0]["n"] == 2


def test_vote_harness_file_with_one_sample_per_case_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.test_harness import pf_document, pf_result

    path = tmp_path / "results.json"
    path.write_text(json.dumps(pf_document([pf_result(i, "p", bool(i % 2), {"q": i}) for i in range(4)])))
    code, _, err = _run(capsys, "vote", str(path))
    assert code == 2 and err.count("\n") == 1 and "a vote needs several samples per case" in err


def test_vote_harness_file_with_two_configs_needs_config(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.test_harness import pf_document, pf_result

    results = [
        pf_result(r * 3 + t, p, bool((t + r + k) % 2), {"q": t}, output=f"o{t}{r}{k}")
        for k, p in enumerate(("p1", "p2"))
        for r in range(3)
        for t in range(3)
    ]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(pf_document(results)))
    code, _, err = _run(capsys, "vote", str(path))
    assert code == 2 and "name the config to read with --config" in err and "'p1', 'p2'" in err
    code, out, _ = _run(capsys, "vote", str(path), "--config", "p2", "--n-boot", "100", "--json")
    doc = json.loads(out)
    # p2 (k = 1): sample r of case t is right when t + r + 1 is odd, i.e. t + r even: 5 of the 9 samples
    assert code == 0 and doc["n_cases"] == 3 and doc["p_single"] == pytest.approx(5 / 9)


def test_vote_config_flag_on_a_samples_table_exits_2(
    capsys: pytest.CaptureFixture[str], worked_samples_path: Path
) -> None:
    code, _, err = _run(capsys, "vote", str(worked_samples_path), "--config", "x")
    assert code == 2 and "--config applies to evaluation-harness files" in err


def test_fanout_recommendation_pays_only_for_resolvable_gains(
    capsys: pytest.CaptureFixture[str], worked_samples_path: Path
) -> None:
    """Worked example, p95 budget 8 s: the expected credit (every n-subset, as Sampling reads it) resolves every
    cheaper setting below n=5, and n=7 is over the budget: ship n=5, the best within it."""
    code, out, _ = _run(
        capsys,
        *f"fanout --latencies {worked_samples_path} --n 1 3 5 7 --adaptive 3+2 --json".split(),
        *"--price-per-call 0.0062 --requests-per-month 400000 --latency-budget 8".split(),
    )
    assert code == 0
    doc = _strict(out)
    assert {"latency_source", "topup_share", "requests_per_month", "rows"} <= set(doc)
    rec = doc["recommendation"]
    p95 = {r["label"]: r["p95"] for r in doc["rows"]}
    assert p95["n=5"] <= 8 < p95["n=7"]  # n=7 is over the budget, n=5 within it
    assert rec["pick"] == "n=5" and rec["best"] == "n=5" and rec.get("versus_best") is None
    assert "ship flat samples per request n=5" in rec["sentence"]
    code, out, _ = _run(capsys, *f"fanout --latencies {worked_samples_path} --n 1 3 --json".split())
    assert json.loads(out)["recommendation"] is None
    code, _, err = _run(capsys, *"fanout --p50 1.9 --p95 4.6 --n 1 3 --latency-budget 8".split())
    assert code == 2 and "answers" in err


def test_fanout_refuses_a_topup_share_the_samples_file_measures(
    capsys: pytest.CaptureFixture[str], worked_samples_path: Path
) -> None:
    """The rows took the typed share (1%) while the recommendation's table used the measured share (8% in
    expectation over random orders): refused."""
    code, _, err = _run(
        capsys, "fanout", "--latencies", str(worked_samples_path), "--n", "3", "--adaptive", "3+2",
        "--topup-share", "0.01", "--latency-budget", "8",
    )  # fmt: skip
    share = _expected_topup_share(worked_samples_path)
    assert code == 2 and f"--topup-share is measured from the samples file ({share:.0%}" in err


def test_vote_on_two_samples_per_case_starts_from_what_the_data_has(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The default --from-n 3 refused every file with 2 samples per case; an explicit 3 is still refused, in words."""
    rows = [{"case": c, "sample": j + 1, "answer": "g" if (c + j) % 3 else "x", "gold": "g"} for c in range(30)
            for j in range(2)]  # fmt: skip
    path = tmp_path / "two.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    code, out, _ = _run(capsys, "vote", str(path), "--json")
    assert code == 0 and json.loads(out)["from_n"] == 2
    code, _, err = _run(capsys, "vote", str(path), "--from-n", "3")
    assert code == 2 and "cannot start from n = 3 samples per request: the data has at most 2" in err


def test_fanout_repeated_n_is_one_row_and_adaptive_flags_need_adaptive(capsys: pytest.CaptureFixture[str]) -> None:
    """--n 3 3 5 printed the n=3 row twice; --trigger (or --topup-share) without --adaptive was silently ignored."""
    code, out, _ = _run(capsys, *"fanout --p50 1.9 --p95 4.6 --n 3 3 5 --json".split())
    assert code == 0 and [r["label"] for r in json.loads(out)["rows"]] == ["n=3", "n=5"]
    code, _, err = _run(capsys, *"fanout --p50 1.9 --p95 4.6 --n 3 --trigger not_unanimous".split())
    assert code == 2 and "--trigger sets when the adaptive rule tops up" in err
    code, _, err = _run(capsys, *"fanout --p50 1.9 --p95 4.6 --n 3 --topup-share 0.2".split())
    assert code == 2 and "give it with --adaptive" in err
