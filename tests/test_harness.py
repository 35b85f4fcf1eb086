"""nkcore.harness: evaluation-harness outputs read as paired results and raw samples.

Inputs: inspect_ai logs are written by inspect_ai itself (its ``mockllm`` provider, offline); lm-evaluation-harness
and promptfoo cannot run here, so their files are built field by field after the tools' source: lm-evaluation-harness
0.4.x (``lm_eval/evaluator.py`` builds each logged sample, ``lm_eval/loggers/evaluation_tracker.py`` writes
``samples_<task>_<date>.jsonl`` and ``results_<date>.json``) and promptfoo's ``EvaluateSummaryV3`` output
(``src/types/index.ts``; ``promptfoo eval -o results.json``). Oracles: accuracies computed by hand from the values
written, the same ``compare`` JSON as the equivalent hand-written paired CSV, and inspect_ai's own scores.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from nkcore import voting
from nkcore.cli import main
from nkcore.errors import DataError
from nkcore.harness import detect_tool, read_harness
from nkcore.harness.files import path_tool, read_paths

DATE_A = "2024-06-27T12-33-15.123456"
DATE_B = "2024-06-28T09-01-02.654321"

# ---------------------------------------------------------------------------------------------- lm-evaluation-harness


def lm_record(doc_id: int, metrics: dict[str, Any], target: str = "2", filt: str = "none") -> dict[str, Any]:
    """One logged sample as lm-evaluation-harness 0.4.x writes it (a 4-choice loglikelihood task)."""
    rec: dict[str, Any] = {
        "doc_id": doc_id,
        "doc": {"question": f"question {doc_id}", "choices": ["a", "b", "c", "d"], "answer": int(target)},
        "target": target,
        "arguments": {
            f"gen_args_{i}": {"arg_0": f"Question {doc_id}?\nAnswer:", "arg_1": f" {c}"} for i, c in enumerate("abcd")
        },
        "resps": [[[str(-1.5 - i), "False"]] for i in range(4)],
        "filtered_resps": [[str(-1.5 - i), "False"] for i in range(4)],
        "filter": filt,
        "metrics": list(metrics),
        "doc_hash": f"{doc_id:064x}",
        "prompt_hash": f"{doc_id + 1:064x}",
        "target_hash": f"{doc_id + 2:064x}",
    }
    rec.update(metrics)
    return rec


def lm_results(model: str) -> dict[str, Any]:
    """The aggregated results_<date>.json of lm-evaluation-harness 0.4.x (the keys the reader uses and their kin)."""
    return {
        "results": {"arc_easy": {"alias": "arc_easy", "acc,none": 0.5, "acc_stderr,none": 0.1}},
        "versions": {"arc_easy": 1.0},
        "n-shot": {"arc_easy": 0},
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float32", "batch_size": 1},
        "model_name": model,
        "model_name_sanitized": model.replace("/", "__"),
    }


def write_lm_run(root: Path, model: str, date: str, acc: Sequence[int], task: str = "arc_easy", **extra: Any) -> Path:
    """A model's output folder as lm_eval --log_samples --output_path root writes it; returns the samples file."""
    folder = root / model.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    lines = [lm_record(i, {"acc": float(v), "acc_norm": float(1 - v), **extra}) for i, v in enumerate(acc)]
    path = folder / f"samples_{task}_{date}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    (folder / f"results_{date}.json").write_text(json.dumps(lm_results(model), indent=2))
    return path


ACC_SMALL = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0]
ACC_LARGE = [1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0]


@pytest.fixture
def lm_files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_lm_run(tmp_path, "EleutherAI/pythia-160m", DATE_A, ACC_SMALL),
        write_lm_run(tmp_path, "EleutherAI/pythia-1b", DATE_B, ACC_LARGE),
    )


def test_two_models_with_the_same_date_stamp_keep_their_own_names(tmp_path: Path) -> None:
    """lm-eval writes one folder per model; two runs started in the same second share the stamp. Matched by date
    alone, both files took one model's name and were refused as 'case 0 appears twice'."""
    a = write_lm_run(tmp_path, "org/m1", DATE_A, ACC_SMALL)
    b = write_lm_run(tmp_path, "org/m2", DATE_A, ACC_LARGE)
    res = read_harness(read_paths([a, b]))
    assert res.configs == ("org/m1", "org/m2") and res.paired is not None
    acc = res.paired.groupby("config")["correct"].mean()
    assert acc["org/m1"] == pytest.approx(np.mean(ACC_SMALL)) and acc["org/m2"] == pytest.approx(np.mean(ACC_LARGE))


def test_lm_eval_paired_accuracy_is_the_metric_mean(lm_files: tuple[Path, Path]) -> None:
    res = read_harness(read_paths(list(lm_files)))
    assert res.tool == "lm_eval"
    assert res.configs == ("EleutherAI/pythia-160m", "EleutherAI/pythia-1b")  # from the sibling results files
    assert res.samples is None  # one metric per document
    assert res.paired is not None
    assert list(res.paired.columns) == ["case", "config", "correct"]
    acc = res.paired.groupby("config")["correct"].mean()
    assert acc["EleutherAI/pythia-160m"] == pytest.approx(np.mean(ACC_SMALL))
    assert acc["EleutherAI/pythia-1b"] == pytest.approx(np.mean(ACC_LARGE))
    assert any("metric acc used (of acc, acc_norm)" in n for n in res.notes)


def test_compare_on_lm_eval_files_equals_the_hand_written_csv(
    capsys: pytest.CaptureFixture[str], lm_files: tuple[Path, Path], tmp_path: Path
) -> None:
    csv = tmp_path / "paired.csv"
    pd.DataFrame(
        {
            "case": list(range(20)) * 2,
            "config": ["EleutherAI/pythia-160m"] * 20 + ["EleutherAI/pythia-1b"] * 20,
            "correct": ACC_SMALL + ACC_LARGE,
        }
    ).to_csv(csv, index=False)
    ab = ["--a", "EleutherAI/pythia-160m", "--b", "EleutherAI/pythia-1b", "--json"]
    assert main(["compare", str(csv), *ab]) == 0
    from_csv = json.loads(capsys.readouterr().out)
    assert main(["compare", str(lm_files[0]), str(lm_files[1]), *ab]) == 0
    from_harness = json.loads(capsys.readouterr().out)
    notes = from_harness.pop("notes")
    assert from_harness == from_csv
    assert from_csv["a"]["correct"] == sum(ACC_SMALL) and from_csv["b"]["correct"] == sum(ACC_LARGE)
    assert any("metric acc" in n for n in notes)


def test_lm_eval_metric_choice(tmp_path: Path) -> None:
    a = write_lm_run(tmp_path / "a", "m1", DATE_A, [1, 0, 1, 0])
    b = write_lm_run(tmp_path / "b", "m2", DATE_B, [1, 1, 1, 0])
    res = read_harness(read_paths([a, b]), metric="acc_norm")  # acc_norm = 1 - acc in these files
    assert res.paired is not None
    assert res.paired.groupby("config")["correct"].sum().to_dict() == {"m1": 2, "m2": 1}
    with pytest.raises(DataError, match="no metric 'f1' in the file; its metrics are acc, acc_norm"):
        read_harness(read_paths([a, b]), metric="f1")


def test_lm_eval_exact_match_then_first_0_1_metric_and_non_binary_refused(tmp_path: Path) -> None:
    def write(name: str, records: list[dict[str, Any]]) -> tuple[str, bytes]:
        return name, "".join(json.dumps(r) + "\n" for r in records).encode()

    em = [lm_record(i, {"exact_match": float(i % 2)}) for i in range(4)]
    res = read_harness([write(f"samples_gsm_{DATE_A}.jsonl", em)])
    assert res.paired is None and any("metric exact_match used" in n for n in res.notes)
    bleu = [lm_record(i, {"bleu": 0.25 * i, "hit": bool(i % 2)}) for i in range(4)]
    res = read_harness([write(f"samples_t_{DATE_A}.jsonl", bleu)])
    assert any("metric hit used" in n for n in res.notes)  # bleu is not 0/1: the first 0/1 metric
    only_bleu = [lm_record(i, {"bleu": 0.25 * i}) for i in range(4)]
    with pytest.raises(DataError, match=r"metric 'bleu' takes values other than 0 and 1 \(0.25 for doc_id 1\)"):
        read_harness([write(f"samples_t_{DATE_A}.jsonl", only_bleu)])
    res = read_harness(
        [write("m1.jsonl", only_bleu), write("m2.jsonl", only_bleu)], threshold=0.5, names={"m2.jsonl": "other"}
    )
    assert res.paired is not None
    assert res.paired.groupby("config", sort=False)["correct"].sum().tolist() == [2, 2]  # 0.5 and 0.75
    assert res.configs == ("m1.jsonl", "other")  # no results file: the file name


def test_lm_eval_several_filters_first_used(tmp_path: Path) -> None:
    recs = [lm_record(i, {"exact_match": 1.0}, filt="strict-match") for i in range(3)]
    recs += [lm_record(i, {"exact_match": 0.0}, filt="flexible-extract") for i in range(3)]
    data = "".join(json.dumps(r) + "\n" for r in recs).encode()
    res = read_harness([("a.jsonl", data), ("b.jsonl", data)])
    assert res.paired is not None and res.paired["correct"].tolist() == [1] * 6
    assert any("filter strict-match used (of strict-match, flexible-extract)" in n for n in res.notes)


def test_lm_eval_several_tasks_keep_cases_apart_and_same_model_twice_is_named_by_file(tmp_path: Path) -> None:
    a1 = write_lm_run(tmp_path, "m1", DATE_A, [1, 0, 1], task="arc_easy")
    a2 = write_lm_run(tmp_path, "m1", DATE_A, [0, 0, 1], task="arc_challenge")
    b1 = write_lm_run(tmp_path, "m2", DATE_B, [1, 1, 1], task="arc_easy")
    b2 = write_lm_run(tmp_path, "m2", DATE_B, [1, 1, 0], task="arc_challenge")
    res = read_harness(read_paths([a1, a2, b1, b2]))
    assert res.configs == ("m1", "m2") and res.paired is not None
    assert sorted(set(res.paired["case"])) == [f"{t}/{i}" for t in ("arc_challenge", "arc_easy") for i in range(3)]
    # two runs of one model (say, two prompt formats) with the same cases: each named by its file
    r1 = write_lm_run(tmp_path / "run1", "m1", DATE_A, [1, 0, 1])
    r2 = write_lm_run(tmp_path / "run2", "m1", DATE_B, [1, 1, 1])
    again = read_harness(read_paths([r1, r2]))
    assert again.configs == (f"m1 ({r1.name})", f"m1 ({r2.name})")
    assert any("config m1 is in 2 files with the same cases" in n for n in again.notes)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (
            b'{"doc_id": 0, "target": "1", "filtered_resps": [], "acc": 1.0}\n{"doc_id": 0, "target": "1", '
            b'"filtered_resps": [], "acc": 0.0}\n',
            "doc_id 0 appears twice (lines 1 and 2)",
        ),
        (
            b'{"doc_id": 0, "target": "1", "filtered_resps": [], "acc": 1.0}\n{"doc_id": 1,\n',
            "line 2 is not valid JSON",
        ),
        (
            b'{"doc_id": 0, "target": "1", "filtered_resps": [], "metrics": ["acc"], "acc": null}\n',
            "metric 'acc' is None, not a number",
        ),
        (b'{"doc_id": 0, "target": "1", "filtered_resps": []}\n', "no metric found"),
        (
            b'{"doc_id": 0, "target": "1", "filtered_resps": [], "acc": 1}\n[1, 2]\n',
            "line 2 (data row 2) holds a JSON list",
        ),
    ],
)
def test_lm_eval_bad_files_name_the_file_and_line(content: bytes, words: str) -> None:
    with pytest.raises(DataError, match="^samples_x.jsonl: .*" + words.replace("(", r"\(").replace(")", r"\)")):
        read_harness([("samples_x.jsonl", content)])


def test_lm_eval_results_file_alone_is_refused(tmp_path: Path) -> None:
    data = json.dumps(lm_results("m"), indent=2).encode()
    assert detect_tool(data) == "lm_eval"
    with pytest.raises(DataError, match=r"upload the samples_<task>_<date>\.jsonl"):
        read_harness([(f"results_{DATE_A}.json", data)])


# ---------------------------------------------------------------------------------------------- promptfoo


def pf_result(
    test_idx: int,
    provider: str,
    success: bool,
    vars_: dict[str, Any],
    latency_ms: float = 500.0,
    cost: float = 0.001,
    prompt: str = "p1",
    output: str = "yes",
) -> dict[str, Any]:
    """One EvaluateResult as promptfoo writes it in results.results (version 3)."""
    return {
        "id": f"r{test_idx}-{provider}",
        "promptIdx": 0,
        "testIdx": test_idx,
        "testCase": {"vars": vars_, "assert": [{"type": "equals", "value": "yes"}]},
        "promptId": "abc",
        "provider": {"id": provider, "label": ""},
        "prompt": {"raw": f"Answer {vars_}", "label": prompt},
        "vars": vars_,
        "response": {"output": output, "tokenUsage": {"total": 10, "prompt": 8, "completion": 2}},
        "error": None if success else "Expected output to equal yes",
        "failureReason": 0 if success else 1,
        "success": success,
        "score": float(success),
        "latencyMs": latency_ms,
        "gradingResult": {"pass": success, "score": float(success), "reason": "ok" if success else "no"},
        "namedScores": {},
        "cost": cost,
        "metadata": {},
    }


def pf_document(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The promptfoo eval -o results.json document (EvaluateSummaryV3 under results)."""
    return {
        "evalId": "eval-abc-2024-06-27T12:33:15",
        "results": {
            "version": 3,
            "timestamp": "2024-06-27T12:33:15.000Z",
            "prompts": [],
            "results": results,
            "stats": {"successes": 0, "failures": 0, "errors": 0},
        },
        "config": {"providers": ["openai:gpt-4o-mini", "openai:gpt-4o"]},
        "shareableUrl": None,
    }


PF_MINI = [1, 0, 1, 1, 0, 1, 0, 1]
PF_FULL = [1, 1, 1, 1, 0, 1, 1, 1]


def test_promptfoo_paired_with_latency_and_cost() -> None:
    results = []
    for i, (a, b) in enumerate(zip(PF_MINI, PF_FULL, strict=True)):
        results.append(pf_result(i, "openai:gpt-4o-mini", bool(a), {"q": i}, latency_ms=400 + i, cost=0.0001))
        results.append(pf_result(i, "openai:gpt-4o", bool(b), {"q": i}, latency_ms=900 + i, cost=0.002))
    data = json.dumps(pf_document(results), indent=2).encode()
    assert detect_tool(data, "anything.txt") == "promptfoo"
    res = read_harness([("results.json", data)])
    assert res.tool == "promptfoo" and res.configs == ("openai:gpt-4o-mini", "openai:gpt-4o") and res.samples is None
    assert res.paired is not None
    assert list(res.paired.columns) == ["case", "config", "correct", "latency_s", "cost"]
    acc = res.paired.groupby("config")["correct"].mean()
    assert acc["openai:gpt-4o-mini"] == pytest.approx(np.mean(PF_MINI))
    assert acc["openai:gpt-4o"] == pytest.approx(np.mean(PF_FULL))
    mini = res.paired[res.paired["config"] == "openai:gpt-4o-mini"]
    assert mini["latency_s"].tolist() == pytest.approx([(400 + i) / 1000 for i in range(8)])
    assert mini["cost"].tolist() == pytest.approx([0.0001] * 8)


def pf_repeats(successes: list[list[int]], provider: str = "openai:gpt-4o-mini") -> dict[str, Any]:
    """promptfoo eval --repeat R: each repeat of a test gets its own testIdx (the evaluator counts per var set)."""
    results = []
    n_tests, repeats = len(successes), len(successes[0])
    for r in range(repeats):
        for t in range(n_tests):
            ok = bool(successes[t][r])
            results.append(pf_result(r * n_tests + t, provider, ok, {"q": t}, output="yes" if ok else f"no {r}"))
    return pf_document(results)


REPEATS = [[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 1, 0], [0, 0, 0]]


def test_promptfoo_repeats_are_samples_and_vote_at_n1_is_the_mean(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    res = read_harness([("r.json", json.dumps(pf_repeats(REPEATS)).encode())])
    assert res.paired is None and res.samples is not None  # one provider
    assert set(res.samples["case"]) == {"0", "1", "2", "3", "4"}  # repeats grouped by vars, numbered by first index
    assert res.samples.groupby("case").size().tolist() == [3] * 5
    curve = voting.analyze_samples(res.samples, n_boot=100, seed=0).curve
    assert curve.point(1).accuracy == pytest.approx(np.mean(REPEATS))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(pf_repeats(REPEATS)))
    assert main(["vote", str(path), "--n-boot", "100", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["p_single"] == pytest.approx(np.mean(REPEATS)) and doc["n_cases"] == 5


def test_repeats_of_two_providers_are_counted_as_cases_per_config() -> None:
    """5 tests x 2 providers x 3 repeats: the note said '10 cases with 3 samples each' (provider-case pairs)."""
    two = pf_repeats(REPEATS)
    two["results"]["results"] += pf_repeats(REPEATS, provider="openai:gpt-4o")["results"]["results"]
    res = read_harness([("r.json", json.dumps(two).encode())])
    assert res.samples is not None and res.samples["case"].nunique() == 5
    assert "5 cases x 2 configs with 3 samples each" in res.notes
    one = read_harness([("r.json", json.dumps(pf_repeats(REPEATS)).encode())])
    assert "5 cases with 3 samples each" in one.notes


def test_promptfoo_several_prompts_are_several_configs() -> None:
    results = [
        pf_result(i, "openai:gpt-4o", bool(i % 2), {"q": i}, prompt=p) for p in ("short", "long") for i in range(4)
    ]
    res = read_harness([("r.json", json.dumps(pf_document(results)).encode())])
    assert res.configs == ("openai:gpt-4o | short", "openai:gpt-4o | long")


def test_promptfoo_errors_count_as_wrong_with_a_note() -> None:
    results = [pf_result(i, p, True, {"q": i}) for p in ("a", "b") for i in range(3)]
    results[0].update(success=False, failureReason=2, error="timeout")
    res = read_harness([("r.json", json.dumps(pf_document(results)).encode())])
    assert res.paired is not None and res.paired["correct"].sum() == 5
    assert "a: 1 result ended in an error (the provider failed; counted as wrong)" in res.notes  # names it


# ---------------------------------------------------------------------------------------------- inspect_ai


def run_inspect(log_dir: Path, model_name: str, contents: str, epochs: int, n_cases: int = 6) -> Path:
    """A real inspect_ai log: mockllm outputs in order (one per sample and epoch), scored by match()."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    def outputs() -> Iterator[ModelOutput]:
        for c in contents:
            out = ModelOutput.from_content(model=model_name, content=c)
            out.usage = ModelUsage(input_tokens=5, output_tokens=1, total_tokens=6)  # no tokenizer download
            yield out

    model = get_model(f"mockllm/{model_name}", custom_outputs=outputs())
    task = Task(
        dataset=[Sample(input=f"question {i}", target=str(i % 2), id=f"c{i}") for i in range(n_cases)],
        solver=generate(),
        scorer=match(),
        epochs=epochs,
    )
    # on a thread of its own: inspect_ai starts an event loop, which fails where one runs (Playwright's sync API
    # keeps one running in the main thread once the browser tests of the same session have started)
    with ThreadPoolExecutor(max_workers=1) as pool:
        logs = pool.submit(
            lambda: inspect_eval(
                task, model=model, log_dir=str(log_dir), display="none", max_samples=1, max_connections=1
            )
        ).result()
    assert logs[0].status == "success"
    return Path(str(logs[0].location))


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("inspect_ai")  # in requirements-dev.txt: CI runs these tests
    root = tmp_path_factory.mktemp("inspect")
    three = run_inspect(root / "a", "model", "110100101101001011", epochs=3)
    one = run_inspect(root / "b", "other", "101101", epochs=1)
    from inspect_ai.log import read_eval_log, write_eval_log

    as_json = root / "three.json"
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(lambda: write_eval_log(read_eval_log(str(three)), str(as_json))).result()
    return {"three": three, "one": one, "json": as_json}


def _inspect_scores(path: Path) -> list[float]:
    from inspect_ai.log import read_eval_log

    with ThreadPoolExecutor(max_workers=1) as pool:
        log = pool.submit(read_eval_log, str(path)).result()
    return [1.0 if (s.scores or {})["match"].value == "C" else 0.0 for s in log.samples or []]


def test_inspect_epochs_are_samples_and_vote_at_n1_is_the_mean_score(
    capsys: pytest.CaptureFixture[str], inspect_logs: dict[str, Path]
) -> None:
    scores = _inspect_scores(inspect_logs["three"])
    assert len(scores) == 18 and 0 < sum(scores) < 18  # both right and wrong samples
    assert path_tool(inspect_logs["three"]) == "inspect"
    res = read_harness(read_paths([inspect_logs["three"]]))
    assert res.tool == "inspect" and res.configs == ("mockllm/model",) and res.paired is None
    assert res.samples is not None
    assert res.samples.groupby("case").size().tolist() == [3] * 6
    curve = voting.analyze_samples(res.samples, n_boot=100, seed=0).curve
    assert curve.point(1).accuracy == pytest.approx(np.mean(scores))
    assert main(["vote", str(inspect_logs["three"]), "--n-boot", "100", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["p_single"] == pytest.approx(np.mean(scores))
    assert any("scorer match used" in n for n in doc["notes"])


def test_inspect_json_log_reads_like_the_eval_archive(inspect_logs: dict[str, Path]) -> None:
    from_eval = read_harness(read_paths([inspect_logs["three"]]))
    from_json = read_harness(read_paths([inspect_logs["json"]]))
    assert from_eval.samples is not None and from_json.samples is not None
    pd.testing.assert_frame_equal(from_eval.samples, from_json.samples)


def test_inspect_two_models_compare_on_every_epoch(
    capsys: pytest.CaptureFixture[str], inspect_logs: dict[str, Path]
) -> None:
    """Every epoch is evidence: the paired frame keeps them all (an ``epoch`` column), not the first one only."""
    from inspect_ai.log import read_eval_log

    res = read_harness(read_paths([inspect_logs["three"], inspect_logs["one"]]))
    assert res.configs == ("mockllm/model", "mockllm/other") and res.paired is not None
    assert "epoch" in res.paired.columns
    for key, config in (("three", "mockllm/model"), ("one", "mockllm/other")):
        every = [
            1.0 if (s.scores or {})["match"].value == "C" else 0.0
            for s in read_eval_log(str(inspect_logs[key])).samples or []
        ]
        got = res.paired[res.paired["config"] == config]["correct"]
        assert len(got) == len(every) and got.mean() == pytest.approx(np.mean(every))
    assert main(["compare", str(inspect_logs["three"]), str(inspect_logs["one"]), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["a"]["config"], doc["b"]["config"], doc["n_cases"]) == ("mockllm/model", "mockllm/other", 6)
    assert doc["repeats"] == {"mockllm/model": {"min": 3, "max": 3}, "mockllm/other": {"min": 1, "max": 1}}


def test_inspect_log_is_read_inside_a_running_event_loop(inspect_logs: dict[str, Path]) -> None:
    """A caller with a running asyncio loop (a notebook, Playwright's sync API) can still read a log."""
    import asyncio
    import concurrent.futures

    async def read() -> object:
        return read_harness(read_paths([inspect_logs["three"]]))

    # its own thread: a browser test earlier in this worker leaves Playwright's loop running in the main thread
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        res = pool.submit(asyncio.run, read()).result()
    assert res.samples is not None and res.samples.groupby("case").size().tolist() == [3] * 6  # type: ignore[attr-defined]


def test_inspect_missing_package_names_the_install(
    monkeypatch: pytest.MonkeyPatch, inspect_logs: dict[str, Path]
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(DataError, match=r"pip install -e \.\[inspect\]"):
        read_harness(read_paths([inspect_logs["three"]]))


# ---------------------------------------------------------------------------------------------- shared rules


def test_detect_tool_needs_the_content_not_the_name(lm_files: tuple[Path, Path]) -> None:
    lm = lm_files[0].read_bytes()
    assert detect_tool(lm, "upload.txt") == "lm_eval"
    assert detect_tool(b"case,config,correct\n1,A,1\n", "samples_x_2024.jsonl") is None
    assert detect_tool(b'{"case": 1, "config": "A", "correct": 1}\n{"case": 2, "config": "A", "correct": 0}\n') is None
    assert detect_tool(b"PK\x03\x04 not really a zip") is None
    with pytest.raises(DataError, match="not a recognised evaluation-harness file"):
        read_harness([("x.json", b'{"a": 1}')])


def test_files_of_different_tools_are_refused(lm_files: tuple[Path, Path]) -> None:
    pf = json.dumps(pf_document([pf_result(0, "a", True, {"q": 0})])).encode()
    with pytest.raises(DataError, match=r"come from different tools .*lm-evaluation-harness; .*promptfoo"):
        read_harness([("a.jsonl", lm_files[0].read_bytes()), ("r.json", pf)])


def test_limits_apply(monkeypatch: pytest.MonkeyPatch, lm_files: tuple[Path, Path]) -> None:
    data = lm_files[0].read_bytes()
    monkeypatch.setenv("NKP_MAX_ROWS", "5")
    with pytest.raises(DataError, match=r"limit is 5 rows .*NKP_MAX_ROWS"):
        read_harness([("a.jsonl", data)])
    monkeypatch.delenv("NKP_MAX_ROWS")
    monkeypatch.setenv("NKP_MAX_JSON_DEPTH", "3")
    with pytest.raises(DataError, match=r"nested more than 3 levels deep.*NKP_MAX_JSON_DEPTH"):
        read_harness([("a.jsonl", data)])
    monkeypatch.delenv("NKP_MAX_JSON_DEPTH")
    monkeypatch.setenv("NKP_MAX_LINE_BYTES", "100")
    with pytest.raises(DataError, match="line 1 is longer than 100 bytes"):
        read_harness([("a.jsonl", data)])
    monkeypatch.delenv("NKP_MAX_LINE_BYTES")
    monkeypatch.setenv("NKP_MAX_FILE_BYTES", "1000")
    with pytest.raises(DataError, match="NKP_MAX_FILE_BYTES"):
        read_harness([("a.jsonl", data)])


def test_deep_json_is_one_data_error() -> None:
    deep = b'{"results": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(DataError, match="nested"):
        read_harness([("deep.json", deep)])


@pytest.mark.parametrize(
    "content",
    [
        b'{"doc_id": 0, "target": "1", "filtered_resps": [], "metrics": ["acc"], "acc": ' + b"9" * 5000 + b"}\n",
        b'{"doc_id": 0, "target": "1", "filtered_resps": [], "metrics": ["acc"], "acc": ' + b"9" * 400 + b"}\n",
        b'{"doc_id": 0, "target": "1", "filtered_resps": [], "metrics": ["acc"], "acc": 1e999}\n',
        b'{"results": {"version": 3, "results": [{"success": true, "provider": "p", "latencyMs": '
        + b"9" * 400
        + b', "cost": "x"}]}}',
        b"\xff\xfe{\x00",
        b'{"doc_id": 0, "target": "1", "filtered_resps": [], "acc": 1}\n\xff\n',
    ],
)
def test_hostile_numbers_and_bytes_give_a_result_or_one_data_error(content: bytes) -> None:
    try:
        res = read_harness([("x.json", content), ("y.json", content)])
    except DataError as exc:
        assert "\n" not in str(exc)
    else:
        assert res.paired is not None and "latency_s" not in res.paired.columns  # the 10^400 ms latency is dropped


def _eval_zip(entries: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, content in entries.items():
            zf.writestr(name, content)
    return buf.getvalue()


def test_eval_archive_limits_are_checked_before_unpacking(monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = _eval_zip({"header.json": b"0" * 4_000_000})  # about 4 KB packed: a ratio of about 1,000
    assert detect_tool(bomb, "x.eval") == "inspect"
    with pytest.raises(DataError, match=r"x\.eval: the archive unpacks to .*NKP_MAX_GZIP_RATIO"):
        read_harness([("x.eval", bomb)])
    small = _eval_zip({"header.json": b'{"version": 2}', "_journal/start.json": b"{}"})
    monkeypatch.setenv("NKP_MAX_UNPACKED_BYTES", "10")
    with pytest.raises(DataError, match=r"x\.eval: the archive has 16 bytes unpacked; the limit is 10"):
        read_harness([("x.eval", small)])


def test_damaged_eval_archive_is_one_data_error() -> None:
    pytest.importorskip("inspect_ai")
    damaged = _eval_zip({"header.json": b"{not json", "_journal/start.json": b"[]"})
    with pytest.raises(DataError, match=r"^x\.eval: not a readable inspect_ai log \("):
        read_harness([("x.eval", damaged)])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"results": [}', "not valid JSON: Expecting value at line 1, column 14"),
        (b'{"doc_id": 0}\n[' + b"[" * 70 + b"]" * 71 + b"\n", "the JSON on line 2 is nested more than 64 levels"),
    ],
)
def test_a_file_name_with_line_breaks_gives_a_one_line_error(content: bytes, message: str) -> None:
    """The error names the file as escapes (``\\n``, ``\\r``), not as line breaks or blanks."""
    name = "evil\nname\r.jsonl" if content.startswith(b'{"doc_id"') else "evil\nname\r.json"
    with pytest.raises(DataError) as err:
        read_harness([(name, content)])
    assert str(err.value).startswith(name.replace("\n", "\\n").replace("\r", "\\r") + ": ")
    assert message in str(err.value) and "\n" not in str(err.value) and "\r" not in str(err.value)


# ------------------------------------------------------------------------------------------------- gzipped harness files


def _gz(path: Path) -> Path:
    """``path`` gzipped beside it (``.jsonl`` -> ``.jsonl.gz``), the plain file removed."""
    out = path.with_name(path.name + ".gz")
    out.write_bytes(gzip.compress(path.read_bytes()))
    path.unlink()
    return out


def test_gzipped_lm_eval_files_read_like_the_plain_ones(lm_files: tuple[Path, Path], tmp_path: Path) -> None:
    plain = read_harness(read_paths(list(lm_files)))
    zipped = [_gz(p) for p in lm_files]
    for p in zipped:  # the sibling results_<date>.json gzipped too: still found and read
        _gz(p.with_name(f"results_{p.name.split('_')[-1].removesuffix('.jsonl.gz')}.json"))
    assert [path_tool(p) for p in zipped] == ["lm_eval", "lm_eval"]
    res = read_harness(read_paths(zipped))
    assert res.configs == plain.configs == ("EleutherAI/pythia-160m", "EleutherAI/pythia-1b")
    assert res.paired is not None and plain.paired is not None
    pd.testing.assert_frame_equal(res.paired, plain.paired)
    assert any(n.startswith("arc_easy: metric acc") for n in res.notes)  # the task, not 'arc_easy_..jsonl'


def test_gzipped_promptfoo_results_read_like_the_plain_file() -> None:
    results = [
        pf_result(i, provider, bool(v), {"q": i})
        for provider, values in (("openai:gpt-4o-mini", PF_MINI), ("openai:gpt-4o", PF_FULL))
        for i, v in enumerate(values)
    ]
    doc = json.dumps(pf_document(results)).encode()
    plain = read_harness([("results.json", doc)])
    zipped = read_harness([("results.json.gz", gzip.compress(doc))])
    assert detect_tool(gzip.compress(doc)) == "promptfoo"
    assert zipped.paired is not None and plain.paired is not None
    pd.testing.assert_frame_equal(zipped.paired, plain.paired)


def test_a_gzip_bomb_harness_file_is_refused_by_nkcore_io_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    line = json.dumps(lm_record(0, {"acc": 1.0})).encode() + b"\n"
    bomb = gzip.compress(line + b" " * 5_000_000)  # about 5 KB that unpack to 5 MB: ratio about 1,000
    with pytest.raises(DataError, match=r"bomb\.jsonl\.gz: the compressed file unpacks to more than 200 times"):
        read_harness([("bomb.jsonl.gz", bomb)])
    assert detect_tool(bomb) is None  # refused there too, never unpacked past the cap
    monkeypatch.setenv("NKP_MAX_UNPACKED_BYTES", "100")
    with pytest.raises(DataError, match=r"over the size limit of 100 bytes.*NKP_MAX_UNPACKED_BYTES"):
        read_harness([("a.jsonl.gz", gzip.compress(line * 3))])


def test_json_lines_have_one_reader() -> None:
    """The harness readers use nkcore.io's JSON Lines reader, not a copy."""
    from nkcore import io as nkio
    from nkcore.harness import reading

    assert reading.iter_json_lines is nkio.iter_json_lines
    assert reading.unpack is nkio.unpack


def test_data_describes_a_harness_file_as_compare_and_vote_read_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`data` on a promptfoo results file said 'no column found for case' (it read it as a table)."""
    two = pf_repeats(REPEATS)
    two["results"]["results"] += pf_repeats(REPEATS, provider="openai:gpt-4o")["results"]["results"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(two))
    assert main(["data", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["kind"], doc["tool"], doc["configs"]) == (
        "harness",
        "promptfoo",
        ["openai:gpt-4o-mini", "openai:gpt-4o"],
    )
    assert doc["paired_cases"] == 5 and doc["sample_cases"] == 5
    assert main(["data", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("results.json: promptfoo output, 2 configs: openai:gpt-4o-mini, openai:gpt-4o")
    assert "paired results: 5 cases every config has" in out
