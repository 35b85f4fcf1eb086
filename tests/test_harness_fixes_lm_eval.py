"""Issue 51, lm-evaluation-harness: configs named by model without the results files, task groups said, filters
chosen.

Inputs: the files lm-evaluation-harness 0.4.13 wrote (``tests/data/lm_eval/output``, see its README: one folder per
model, ``nk-fake-small`` and ``nk-fake-large``) and records written as ``lm_eval/evaluator.py`` logs them
(:func:`tests.test_harness.lm_record`). Oracles: the folder names and the JSON Lines read here with ``json`` and
plain Python (correct per document, filters in file order).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nkcore.cli.paired_input import read_compare_input
from nkcore.errors import DataError
from nkcore.harness import read_harness
from nkcore.harness.lm_eval import folder_model
from tests.test_harness import DATE_A, DATE_B, lm_record

OUT = Path(__file__).parent / "data" / "lm_eval" / "output"
MODELS = ("nk-fake-small", "nk-fake-large")
ASK = "upload results_<date>.json with the samples to name the configs by model"


def samples(model: str, task: str) -> Path:
    (path,) = sorted((OUT / model).glob(f"samples_{task}_[0-9]*.jsonl"))
    return path


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def by_hand(path: Path, metric: str, filt: str | None = None) -> dict[str, int]:
    """doc_id -> correct (the metric, 0/1) of the records of one filter (the file's first when None)."""
    recs = records(path)
    filt = recs[0]["filter"] if filt is None else filt
    return {str(r["doc_id"]): int(r[metric]) for r in recs if r["filter"] == filt}


def paired_dict(frame: Any, config: str) -> dict[str, int]:
    part = frame[frame["config"] == config]
    return dict(zip(part["case"].astype(str), part["correct"].astype(int).tolist(), strict=True))


def test_samples_without_results_files_are_named_by_their_folder() -> None:
    """The files as a CLI user gives them (paths with lm-eval's model folder), without results_<date>.json."""
    paths = [samples(m, "nk_arith") for m in MODELS]
    res = read_harness([(str(p), p.read_bytes()) for p in paths])
    assert res.configs == tuple(p.parent.name for p in paths) == MODELS
    assert res.paired is not None
    for model, path in zip(MODELS, paths, strict=True):
        assert paired_dict(res.paired, model) == by_hand(path, "exact_match")
    (note,) = [n for n in res.notes if n.startswith("configs named by")]
    assert "folder" in note and all(m in note for m in MODELS) and ASK in note


def test_samples_uploaded_alone_keep_their_file_name_and_ask_for_the_results() -> None:
    """A browser upload has no folders: the file names stay, and a note says how to name the configs by model."""
    paths = [samples(m, "nk_arith") for m in MODELS]
    res = read_harness([(p.name, p.read_bytes()) for p in paths])
    assert res.configs == tuple(p.name for p in paths)
    (note,) = [n for n in res.notes if n.startswith("configs named by file")]
    assert ASK in note and all(p.name in note for p in paths)


def test_with_the_results_files_no_naming_note() -> None:
    paths = [samples(m, "nk_arith") for m in MODELS]
    results = [next(p.parent.glob("results_*.json")) for p in paths]
    res = read_harness([(p.name, p.read_bytes()) for p in [*paths, *results]])
    names = tuple(json.loads(r.read_text())["model_name"] for r in results)
    assert res.configs == names == MODELS
    assert not any(n.startswith("configs named by") for n in res.notes)


def _lines(acc: list[int], **extra: Any) -> bytes:
    return "".join(json.dumps(lm_record(i, {"acc": float(v)}) | extra) + "\n" for i, v in enumerate(acc)).encode()


def test_a_model_named_in_the_records_names_the_config() -> None:
    a = _lines([1, 0, 1], model_name="org/small")
    b = _lines([1, 1, 1], model_name="org/large")
    res = read_harness([(f"samples_t_{DATE_A}.jsonl", a), (f"samples_t_{DATE_B}.jsonl", b)])
    assert res.configs == ("org/small", "org/large")
    assert not any(n.startswith("configs named by") for n in res.notes)


def test_old_pretrained_folder_and_one_folder_of_two_runs() -> None:
    a, b = _lines([1, 0, 1, 0]), _lines([1, 1, 1, 0])
    res = read_harness(
        [
            (f"results/pretrained__gpt2/samples_t_{DATE_A}.jsonl", a),
            (f"results/pretrained__gpt2-xl/samples_t_{DATE_B}.jsonl", b),
        ]
    )
    assert res.configs == ("gpt2", "gpt2-xl")
    assert folder_model("out/EleutherAI__pythia-160m/samples_t.jsonl") == "EleutherAI__pythia-160m"
    # two runs written into one folder (lm_eval --output_path out/run.json): the folder tells them apart from
    # nothing, so the file names stay
    names = [f"out/samples_t_{DATE_A}.jsonl", f"out/samples_t_{DATE_B}.jsonl"]
    same = read_harness([(names[0], a), (names[1], b)])
    assert same.configs == tuple(Path(n).name for n in names)
    assert any(n.startswith("configs named by file") and ASK in n for n in same.notes)


def test_names_given_by_the_caller_win_and_need_no_note() -> None:
    a, b = _lines([1, 0]), _lines([1, 1])
    res = read_harness([("a.jsonl", a), ("b.jsonl", b)], names={"a.jsonl": "A", "b.jsonl": "B"})
    assert res.configs == ("A", "B") and not any(n.startswith("configs named by") for n in res.notes)


def test_several_tasks_are_said_and_kept_apart() -> None:
    """A task group read together: a note names the tasks; cases are task/doc_id and every one counts once."""
    tasks = ("nk_arith", "nk_arith_mc")
    metric = {"nk_arith": "exact_match", "nk_arith_mc": "acc"}
    paths = {(m, t): samples(m, t) for m in MODELS for t in tasks}
    res = read_harness([(str(p), p.read_bytes()) for p in paths.values()])
    assert res.configs == MODELS and res.paired is not None
    (note,) = [n for n in res.notes if n.startswith("the files hold 2 tasks")]
    assert all(t in note for t in tasks) and "task/case" in note
    for model in MODELS:
        hand = {f"{t}/{d}": c for t in tasks for d, c in by_hand(paths[(model, t)], metric[t]).items()}
        assert paired_dict(res.paired, model) == hand
        pooled = sum(hand.values()) / len(hand)  # each case once: the mean over both tasks' documents
        assert res.paired.loc[res.paired["config"] == model, "correct"].mean() == pytest.approx(pooled)


def test_one_task_has_no_tasks_note() -> None:
    paths = [samples(m, "nk_arith") for m in MODELS]
    res = read_harness([(str(p), p.read_bytes()) for p in paths])
    assert not any(n.startswith("the files hold") for n in res.notes)


def test_the_filter_asked_for_is_read_and_the_note_names_the_others() -> None:
    """nk_arith_k3 logs two filters: every-repeat (take_first_k 3, first in the file) and maj@3 (the vote)."""
    paths = [samples(m, "nk_arith_k3") for m in MODELS]
    filters = list(dict.fromkeys(r["filter"] for r in records(paths[0])))
    assert filters == ["every-repeat", "maj@3"]
    files = [(str(p), p.read_bytes()) for p in paths]
    res = read_harness(files, filter="maj@3")
    assert res.paired is not None and res.samples is None  # the vote: one answer per document
    for model, path in zip(MODELS, paths, strict=True):
        assert paired_dict(res.paired, model) == by_hand(path, "exact_match", "maj@3")
    assert any("filter maj@3 used (of every-repeat, maj@3); as asked" in n for n in res.notes)
    first = read_harness(files)  # default: the first filter, the others named with how to choose them
    assert first.samples is not None  # every-repeat keeps the three repeats as samples
    assert any("filter every-repeat used (of every-repeat, maj@3)" in n and "--filter" in n for n in first.notes)
    frame, notes = read_compare_input(paths, filter="maj@3")
    assert any("filter maj@3 used" in n and "as asked" in n for n in notes)
    assert paired_dict(frame, MODELS[1]) == by_hand(paths[1], "exact_match", "maj@3")
    with pytest.raises(DataError, match=r"no filter 'first_k' in the file; its filters are every-repeat, maj@3"):
        read_harness(files, filter="first_k")


def test_filter_on_a_paired_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("case,config,correct\n1,A,1\n1,B,0\n")
    with pytest.raises(DataError, match="--filter applies to lm-evaluation-harness"):
        read_compare_input([path], filter="maj@3")
