"""Issue 51, inspect_ai: partial credit (C / P / I) with epochs is kept as 0.5, ``vote`` says why it cannot vote on
it, and ``vote --scorer`` reads a right / wrong scorer of the same log.

Input: a real inspect_ai ``.eval`` log written by inspect_ai itself (mockllm, offline; as
:func:`tests.inspect_logs.write_log`, with its :func:`tests.inspect_logs.epoch_contents` drawing the answers) scored
by two scorers: ``graded`` (C for the target "1", P for "2", I otherwise) and inspect_ai's ``match()`` (C / I).
Oracle: inspect_ai's own reader (``read_eval_log``): each sample's scores as inspect_ai stored them, mapped by hand
(C 1, P 0.5, I 0).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nkcore.cli import main
from nkcore.harness import read_harness
from nkcore.harness.files import read_paths

CASES, EPOCHS = 8, 3
CREDIT = {"C": 1.0, "P": 0.5, "I": 0.0}


def _contents(seed: int) -> str:
    """One answer per (epoch, case), epoch-major: "1" right, "2" half right, "0" wrong, each case its own odds."""
    rng = np.random.default_rng(seed)
    odds = rng.dirichlet([1.0, 1.0, 1.0], size=CASES)
    return "".join(str(rng.choice(["1", "2", "0"], p=odds[c])) for _ in range(EPOCHS) for c in range(CASES))


def write_two_scorer_log(log_dir: Path, model_name: str, contents: str) -> Path:
    """A real inspect_ai log scored by ``graded`` (C / P / I) then ``match`` (C / I)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import CORRECT, INCORRECT, PARTIAL, Score, Target, accuracy, match, scorer
    from inspect_ai.solver import TaskState, generate

    @scorer(metrics=[accuracy()])
    def graded() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            text = state.output.completion.strip()
            value = CORRECT if text == target.text else PARTIAL if text == "2" else INCORRECT
            return Score(value=value, answer=text)

        return score

    def outputs() -> Any:
        for c in contents:
            out = ModelOutput.from_content(model=model_name, content=c)
            out.usage = ModelUsage(input_tokens=5, output_tokens=1, total_tokens=6)  # no tokenizer download
            yield out

    model = get_model(f"mockllm/{model_name}", custom_outputs=outputs())
    task = Task(
        dataset=[Sample(input=f"question {i}", target="1", id=f"c{i}") for i in range(CASES)],
        solver=generate(),
        scorer=[graded(), match()],
        epochs=EPOCHS,
        name="digits",
    )
    with ThreadPoolExecutor(max_workers=1) as pool:  # inspect_ai starts an event loop of its own
        logs = pool.submit(
            lambda: inspect_eval(
                task, model=model, log_dir=str(log_dir), display="none", max_samples=1, max_connections=1
            )
        ).result()
    assert logs[0].status == "success"
    return Path(str(logs[0].location))


def stored_scores(path: Path) -> dict[str, dict[tuple[str, int], str]]:
    """scorer -> (case, epoch) -> the value inspect_ai stored, read with inspect_ai's own reader."""
    from inspect_ai.log import read_eval_log

    with ThreadPoolExecutor(max_workers=1) as pool:
        log = pool.submit(read_eval_log, str(path)).result()
    out: dict[str, dict[tuple[str, int], str]] = {}
    for s in log.samples or []:
        for name, score in (s.scores or {}).items():
            out.setdefault(name, {})[(str(s.id), int(s.epoch))] = str(score.value)
    return out


@pytest.fixture(scope="module")
def two_scorer_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("inspect_ai")
    return write_two_scorer_log(tmp_path_factory.mktemp("two_scorers"), "graded-model", _contents(7))


def test_partial_credit_with_epochs_keeps_half_points(two_scorer_log: Path) -> None:
    stored = stored_scores(two_scorer_log)
    assert list(stored) == ["graded", "match"]
    assert set(stored["graded"].values()) == {"C", "P", "I"}  # the log holds all three grades
    res = read_harness(read_paths([two_scorer_log]))
    assert res.evaluation is not None and res.samples is None  # partial credit: nothing to vote over
    got = {
        (str(c), int(e)): float(v)
        for c, e, v in zip(res.evaluation["case"], res.evaluation["epoch"], res.evaluation["correct"], strict=True)
    }
    assert got == {k: CREDIT[v] for k, v in stored["graded"].items()}
    assert 0.5 in got.values()
    assert any("scorer graded used (of graded, match)" in n for n in res.notes)
    assert any("partial credit" in n for n in res.notes)


def test_vote_says_the_true_reason_and_reads_the_binary_scorer(
    two_scorer_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vote", str(two_scorer_log), "--n-boot", "100", "--json"]) == 2
    err = capsys.readouterr().err
    assert "partial credit" in err and "--scorer" in err and "one sample per case" not in err
    assert main(["vote", str(two_scorer_log), "--scorer", "match", "--n-boot", "100", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    match = stored_scores(two_scorer_log)["match"]
    per_case: dict[str, list[float]] = {}
    for (case, _epoch), value in match.items():
        per_case.setdefault(case, []).append(CREDIT[value])
    assert doc["n_cases"] == CASES and all(len(v) == EPOCHS for v in per_case.values())
    expected = float(np.mean([np.mean(v) for v in per_case.values()]))  # the mean over cases of each case's mean
    assert doc["p_single"] == pytest.approx(expected)
    assert doc["curve"][0]["n"] == 1 and doc["curve"][0]["accuracy"] == pytest.approx(expected)
    assert any("scorer match used (of graded, match)" in n for n in doc.get("notes", []))
