"""promptfoo results read as promptfoo means them, on files written by promptfoo 0.121.20 itself.

``tests/data/promptfoo/`` (see its README.md): one prompt, 7 tests, ``--repeat 3``, three providers: the same
``file://provider.js`` twice without a label at two settings (one id, two ``promptIdx``), and once labelled
``guesser``. Oracles: the numbers computed here from the JSON with ``json.load`` and plain Python (success per
``promptIdx``, ``failureReason``, ``latencyMs`` / 1000, ``cost``), and numpy's quantiles of those latencies.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nkcore.cli import main
from nkcore.errors import DataError
from nkcore.harness import detect_tool, read_harness
from nkcore.harness.promptfoo import read_results

DATA = Path(__file__).resolve().parent / "data" / "promptfoo"
RESULTS = DATA / "results.json"
GUESSER = DATA / "results-guesser.json"


def _doc(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        doc: dict[str, Any] = json.load(fh)
    return doc


def _results(path: Path) -> list[dict[str, Any]]:
    return list(_doc(path)["results"]["results"])


def _expected_names(doc: dict[str, Any]) -> dict[int, str]:
    """promptIdx -> config name, by hand: with one prompt, column i is config.providers[i]; a label names it, and
    the two unlabelled providers (same id) are told apart by their config.skill."""
    assert len(doc["config"]["prompts"]) == 1
    names = {}
    for i, p in enumerate(doc["config"]["providers"]):
        names[i] = p.get("label") or f"{p['id']} (skill={p['config']['skill']})"
    return names


def _runs(path: Path) -> dict[str, Any]:
    res = read_harness([(path.name, path.read_bytes())])
    assert res.samples is not None
    return {"res": res, "samples": res.samples}


def _call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ---------------------------------------------------------------------------------------------- the real file


def test_the_files_are_promptfoo_0_121_output() -> None:
    doc = _doc(RESULTS)
    assert doc["metadata"]["promptfooVersion"] == "0.121.20"
    assert doc["results"]["version"] == 3 and len(doc["results"]["results"]) == 7 * 3 * 3
    assert detect_tool(RESULTS.read_bytes(), "x") == "promptfoo"
    # the facts the reader rests on, as promptfoo wrote them
    ids = {r["promptIdx"]: r["provider"]["id"] for r in doc["results"]["results"]}
    assert ids == {0: "file://provider.js", 1: "file://provider.js", 2: "file://provider.js"}
    assert [p["provider"] for p in doc["results"]["prompts"]] == ["file://provider.js", "file://provider.js", "guesser"]
    by_test: dict[str, set[int]] = defaultdict(set)
    for r in doc["results"]["results"]:
        by_test[r["testCase"]["description"]].add(r["testIdx"])
    assert sorted(map(sorted, by_test.values())) == [[3 * t, 3 * t + 1, 3 * t + 2] for t in range(7)]


def test_two_providers_with_one_id_are_two_configs_named_by_their_settings() -> None:
    doc = _doc(RESULTS)
    names = _expected_names(doc)
    res = _runs(RESULTS)["res"]
    assert res.configs == (names[0], names[1], names[2])
    assert res.configs == ("file://provider.js (skill=careful)", "file://provider.js (skill=sloppy)", "guesser")
    assert any("2 providers share the name file://provider.js" in n for n in res.notes)


def test_cases_are_the_tests_and_repeats_their_samples() -> None:
    doc = _doc(RESULTS)
    names = _expected_names(doc)
    samples = _runs(RESULTS)["samples"]
    descriptions = [t["description"] for t in doc["config"]["tests"]]
    assert list(dict.fromkeys(samples["case"])) == descriptions  # one case per test, named by its description
    assert samples.groupby(["config", "case"]).size().tolist() == [3] * 21
    # sample k = the k-th repeat (k-th lowest testIdx) of that test and provider; correct = success
    expected: dict[tuple[str, str, int], int] = {}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in doc["results"]["results"]:
        groups[(names[r["promptIdx"]], r["testCase"]["description"])].append(r)
    for (config, case), rs in groups.items():
        for k, r in enumerate(sorted(rs, key=lambda r: r["testIdx"]), start=1):
            expected[(config, case, k)] = int(r["success"])
    got = {(c, case, int(s)): int(v) for c, case, s, v in samples[["config", "case", "sample", "correct"]].to_numpy()}
    assert got == expected


def test_each_configs_mean_accuracy_is_the_mean_of_success() -> None:
    doc = _doc(RESULTS)
    names = _expected_names(doc)
    by_column: dict[int, list[bool]] = defaultdict(list)
    for r in doc["results"]["results"]:
        by_column[r["promptIdx"]].append(r["success"])
    hand = {names[i]: sum(v) / len(v) for i, v in by_column.items()}
    assert hand == {  # the file's numbers, counted once by hand
        "file://provider.js (skill=careful)": 15 / 21,
        "file://provider.js (skill=sloppy)": 13 / 21,
        "guesser": 12 / 21,
    }
    got = _runs(RESULTS)["samples"].groupby("config")["correct"].mean().to_dict()
    assert got == pytest.approx(hand)
    assert [p["metrics"]["testPassCount"] for p in doc["results"]["prompts"]] == [15, 13, 12]


def test_only_failure_reason_2_is_an_error() -> None:
    """Every failed assertion has its reason in `error`; the reader said all 23 'ended in an error'."""
    results = _results(RESULTS)
    with_error_text = sum(1 for r in results if r.get("error"))
    errors = sum(1 for r in results if r.get("failureReason") == 2)
    assert (with_error_text, errors) == (23, 1)
    assert _doc(RESULTS)["results"]["stats"]["errors"] == errors
    res = _runs(RESULTS)["res"]
    assert "file://provider.js (skill=sloppy): 1 result ended in an error (the provider failed; counted as wrong)" in (
        res.notes
    )
    assert not any(f"{with_error_text} results ended" in n for n in res.notes)


def test_latency_and_cost_per_call_are_the_files() -> None:
    doc = _doc(RESULTS)
    names = _expected_names(doc)
    runs = {r.config: r.rows for r in read_results("results.json", doc)}
    for i, name in names.items():
        rs = sorted((r for r in doc["results"]["results"] if r["promptIdx"] == i), key=lambda r: r["testIdx"])
        assert sorted(runs[name]["latency_s"]) == pytest.approx(sorted(r["latencyMs"] / 1000 for r in rs))
        assert runs[name]["cost"].sum() == pytest.approx(sum(r["cost"] for r in rs))


def test_the_reading_does_not_depend_on_the_order_of_results() -> None:
    doc = _doc(RESULTS)
    shuffled = json.loads(json.dumps(doc))
    random.Random(3).shuffle(shuffled["results"]["results"])
    a = {r.config: r.rows for r in read_results("r.json", doc)}
    b = {r.config: r.rows for r in read_results("r.json", shuffled)}
    assert list(a) == list(b)
    for config in a:
        assert a[config].equals(b[config])


# ---------------------------------------------------------------------------------------------- fanout on it


def test_fanout_gives_the_quantiles_of_latency_ms(capsys: pytest.CaptureFixture[str]) -> None:
    results = _results(GUESSER)
    seconds = np.array([r["latencyMs"] / 1000 for r in results])
    price = sum(r["cost"] for r in results) / len(results)
    code, out, _ = _call(capsys, "fanout", "--latencies", str(GUESSER), "--n", "1", "3", "--json")
    assert code == 0
    doc = json.loads(out)
    one, three = doc["rows"]
    assert [one["p50"], one["p95"], one["p99"]] == pytest.approx(np.quantile(seconds, [0.5, 0.95, 0.99]))
    assert three["p95"] == pytest.approx(np.quantile(seconds, 0.95 ** (1 / 3)))  # the slowest of 3 calls
    assert doc["config"] == "guesser" and doc["latency_source"] == "empirical"
    assert doc["price_per_call"] == pytest.approx(price)
    assert doc["price_source"] == "results-guesser.json: mean cost of 21 calls of config guesser"
    assert one["cost_per_1k"] == pytest.approx(1000 * price) and three["cost_per_1k"] == pytest.approx(3000 * price)
    code, out, _ = _call(capsys, "fanout", "--latencies", str(GUESSER), "--n", "1")
    assert code == 0 and "price per call: $" in out and "(results-guesser.json: mean cost of 21 calls" in out


def test_fanout_on_a_file_of_several_configs_needs_config(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _call(capsys, "fanout", "--latencies", str(RESULTS), "--n", "1")
    assert code == 2
    assert "holds 3 configs: name the one to read with --config" in err
    assert "'file://provider.js (skill=careful)', 'file://provider.js (skill=sloppy)', 'guesser'" in err
    code, _, err = _call(capsys, "fanout", "--latencies", str(RESULTS), "--config", "gpt-9", "--n", "1")
    assert code == 2 and "no config 'gpt-9': the configs are 'file://provider.js (skill=careful)'" in err

    sloppy = [r for r in _results(RESULTS) if r["promptIdx"] == 1]
    seconds = np.array([r["latencyMs"] / 1000 for r in sloppy])
    code, out, _ = _call(
        capsys, "fanout", "--latencies", str(RESULTS), "--config", "file://provider.js (skill=sloppy)", "--n", "1",
        "--price-per-call", "0.01", "--requests-per-month", "1000", "--json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    row = doc["rows"][0]
    assert [row["p50"], row["p95"], row["p99"]] == pytest.approx(np.quantile(seconds, [0.5, 0.95, 0.99]))
    assert (doc["price_per_call"], doc["price_source"]) == (0.01, "--price-per-call")  # the flag wins
    assert row["monthly_cost"] == pytest.approx(10.0)


def test_fanout_measures_the_topup_share_from_the_repeats(capsys: pytest.CaptureFixture[str]) -> None:
    """2+1 tops up when the first two samples disagree (no plurality of two): in expectation over random orders of
    each test's repeats (the cost table's reading), the share of pairs of a test's repeats that disagree, averaged
    over tests, by hand from the JSON (the vote reads answers; here every answer's grade is its success)."""
    from itertools import combinations

    by_test: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in _results(RESULTS):
        if r["promptIdx"] == 0:  # file://provider.js (skill=careful)
            by_test[r["testCase"]["description"]].append(r)
    shares = []
    for rs in by_test.values():
        answers = [str(r["response"]["output"]).strip() for r in rs]
        pairs = list(combinations(answers, 2))
        shares.append(sum(a != b for a, b in pairs) / len(pairs))
    share = sum(shares) / len(shares)
    config = "file://provider.js (skill=careful)"
    code, out, _ = _call(
        capsys, "fanout", "--latencies", str(RESULTS), "--config", config, "--n", "1", "--adaptive", "2+1", "--json"
    )
    assert code == 0
    assert json.loads(out)["topup_share"] == pytest.approx(share, abs=1e-12)


def test_fanout_config_flag_needs_a_harness_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "lat.csv"
    path.write_text("seconds\n" + "\n".join(str(0.1 * i) for i in range(1, 30)))
    code, _, err = _call(capsys, "fanout", "--latencies", str(path), "--config", "a", "--n", "1")
    assert code == 2 and "--config applies to evaluation-harness files" in err
    code, _, err = _call(capsys, "fanout", "--p50", "1", "--p95", "2", "--config", "a", "--n", "1")
    assert code == 2 and "--latencies FILE" in err


def test_fanout_on_a_harness_file_without_latencies_is_one_data_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = _doc(GUESSER)
    for r in doc["results"]["results"]:
        del r["latencyMs"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    code, _, err = _call(capsys, "fanout", "--latencies", str(path), "--n", "1")
    assert code == 2 and "promptfoo recorded no latency for the file" in err


# ---------------------------------------------------------------------------------------------- edge cases


def _result(test_idx: int, prompt_idx: int, success: bool, vars_: dict[str, Any], **extra: Any) -> dict[str, Any]:
    r: dict[str, Any] = {
        "testIdx": test_idx,
        "promptIdx": prompt_idx,
        "testCase": {"vars": vars_, "assert": [{"type": "equals", "value": "1"}], "options": {}, "metadata": {}},
        "vars": vars_,
        "provider": {"id": "openai:gpt-4o", "label": ""},
        "prompt": {"raw": "q", "label": "q"},
        "success": success,
        "failureReason": 0 if success else 1,
        "error": None if success else "Expected output to equal 1",
        "latencyMs": 100,
        "cost": 0.001,
    }
    r.update(extra)
    return r


def test_same_id_providers_without_config_are_numbered_by_place() -> None:
    results = [_result(t, p, bool((t + p) % 2), {"q": t}) for t in range(3) for p in (0, 1)]
    runs = read_results("r.json", {"evalId": "e", "results": {"version": 3, "results": results}})
    assert [r.config for r in runs] == ["openai:gpt-4o #1", "openai:gpt-4o #2"]
    assert [r.rows["correct"].tolist() for r in runs] == [[0, 1, 0], [1, 0, 1]]
    assert "named by their place (#1, #2, ...)" in runs[0].notes[0]


def test_cases_without_descriptions_are_numbered_by_test_not_by_testidx() -> None:
    """Repeats numbered test by test (as promptfoo 0.121 does): test t is testIdx 3t..3t+2, case str(t)."""
    results = [_result(3 * t + k, 0, bool(k), {"q": t}) for t in range(4) for k in range(3)]
    (run,) = read_results("r.json", {"evalId": "e", "results": {"version": 3, "results": results}})
    assert run.rows["case"].tolist() == [str(t) for t in range(4) for _ in range(3)]
    assert run.rows["sample"].tolist() == [1, 2, 3] * 4
    assert run.rows["correct"].tolist() == [0, 1, 1] * 4
    assert run.notes == ()  # failed assertions (failureReason 1, error text) are not errors


def test_duplicate_descriptions_fall_back_to_the_tests_place() -> None:
    results = [_result(t, 0, True, {"q": t}) for t in range(3)]
    for r in results:
        r["testCase"]["description"] = "same"
    (run,) = read_results("r.json", {"evalId": "e", "results": {"version": 3, "results": results}})
    assert run.rows["case"].tolist() == ["0", "1", "2"]


def test_not_a_bool_success_is_one_data_error() -> None:
    results = [_result(0, 0, True, {"q": 0})]
    results[0]["success"] = "yes"
    with pytest.raises(DataError, match=r"r\.json: result 0 has no true/false success"):
        read_results("r.json", {"evalId": "e", "results": {"version": 3, "results": results}})
