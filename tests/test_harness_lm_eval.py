"""nkcore.harness.lm_eval on files written by lm-evaluation-harness itself: a task's ``repeats`` read as repeats.

Inputs: ``tests/data/lm_eval/output``, written by ``lm_eval run ... --log_samples`` (lm-eval 0.4.13, offline) with a
deterministic plugin model (``tests/data/lm_eval/plugin``) at two settings (nk-fake-small, skill 0.5;
nk-fake-large, skill 0.8) on five local tasks over the same 12 documents (``tests/data/lm_eval/tasks``; the
commands are in ``tests/data/lm_eval/README.md``): nk_arith (no repeats), nk_arith_mc (multiple choice, no
repeats), nk_arith_first (repeats 3, lm-eval's default filter), nk_arith_k3 (repeats 3, filters take_first_k 3 and
maj@3), nk_arith_maj (repeats 3, majority vote only). Oracles: each repeat's correctness and the accuracies computed
here from the JSON Lines with json and plain Python, and lm-eval's own aggregated scores in ``results_<date>.json``.
Hand-written records (after ``lm_eval/evaluator.py``, which logs each document) cover the cases lm-eval cannot be
made to write with exact_match's defaults.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nkcore.errors import DataError
from nkcore.harness import read_harness
from nkcore.harness.files import read_paths
from nkcore.harness.lm_eval import read_samples

OUT = Path(__file__).parent / "data" / "lm_eval" / "output"
MODELS = ("nk-fake-small", "nk-fake-large")
DOCS = 12
REPEATS = 3


def samples_path(model: str, task: str) -> Path:
    (path,) = sorted((OUT / model).glob(f"samples_{task}_[0-9]*.jsonl"))
    return path


def results_path(model: str) -> Path:
    (path,) = sorted((OUT / model).glob("results_*.json"))
    return path


def lines(model: str, task: str, filt: str | None = None) -> list[dict[str, Any]]:
    recs = [json.loads(x) for x in samples_path(model, task).read_text().splitlines() if x.strip()]
    return [r for r in recs if filt is None or r["filter"] == filt]


def lm_score(model: str, task: str, key: str) -> float:
    """lm-eval's own aggregated score of a task (``results_<date>.json``, e.g. ``exact_match,none``)."""
    return float(json.loads(results_path(model).read_text())["results"][task][key])


def files(task: str) -> list[Path]:
    return [p for m in MODELS for p in (samples_path(m, task), results_path(m))]


def by_hand(model: str, task: str, filt: str | None, field: str) -> list[tuple[str, int, int]]:
    """(case, repeat, correct) of every repeat: the responses in ``field`` equal to target (plain Python)."""
    out = []
    for rec in lines(model, task, filt):
        answers = rec[field][0]
        for repeat, answer in enumerate(answers, start=1):
            out.append((str(rec["doc_id"]), repeat, int(answer == rec["target"])))
    return out


def run_rows(model: str, task: str) -> list[tuple[str, int, int]]:
    path = samples_path(model, task)
    rows = read_samples(path.name, path.read_bytes(), config=model).rows
    return list(zip(rows["case"], rows["sample"].tolist(), rows["correct"].tolist(), strict=True))


def mean(values: list[int]) -> float:
    return sum(values) / len(values)


def test_the_committed_files_are_lm_evals_with_three_repeats() -> None:
    """What lm-eval wrote: resps holds the three raw responses; filtered_resps what each filter kept."""
    for model in MODELS:
        first = lines(model, "nk_arith_first")
        k3 = lines(model, "nk_arith_k3", "every-repeat")
        maj = lines(model, "nk_arith_maj")
        assert len(first) == len(k3) == len(maj) == DOCS
        assert all(len(r["resps"]) == 1 and len(r["resps"][0]) == REPEATS for r in first + k3 + maj)
        assert all(r["filtered_resps"] == [r["resps"][0][0]] for r in first)  # default filter: the first
        assert all(r["filtered_resps"] == r["resps"] for r in k3)  # take_first_k 3: all three
        assert all(len(r["filtered_resps"]) == 1 and isinstance(r["filtered_resps"][0], str) for r in maj)
        assert {r["filter"] for r in lines(model, "nk_arith_k3")} == {"every-repeat", "maj@3"}
        # take_first_k: lm-eval's exact_match of a document is the mean over its repeats (0, 1/3, 2/3 or 1)
        assert all(r["exact_match"] == mean([int(a == r["target"]) for a in r["resps"][0]]) for r in k3)
        assert len({r["exact_match"] for r in k3}) > 2  # not all 0 / 1: the old reader refused these files
        # the default filter: the first response alone
        assert all(r["exact_match"] == int(r["resps"][0][0] == r["target"]) for r in first)
    # nk-fake-small's vote differs from its first response on two documents; nk-fake-large's on none, where only
    # the filter's name (maj@3, not lm-eval's default none) tells the reader the answer is not repeat 1
    differs = {m: sum(r["filtered_resps"][0] != r["resps"][0][0] for r in lines(m, "nk_arith_maj")) for m in MODELS}
    assert differs == {"nk-fake-small": 2, "nk-fake-large": 0}


@pytest.mark.parametrize(
    ("task", "filt", "field"), [("nk_arith_k3", "every-repeat", "filtered_resps"), ("nk_arith_first", None, "resps")]
)
def test_repeats_are_read_as_repeats(task: str, filt: str | None, field: str) -> None:
    res = read_harness(read_paths(files(task)))
    assert res.configs == MODELS  # named by the results_<date>.json beside each samples file
    assert res.samples is not None
    for model in MODELS:
        hand = by_hand(model, task, filt, field)
        assert len(hand) == DOCS * REPEATS
        got = res.samples[res.samples["config"] == model]
        rows = list(zip(got["case"], got["sample"].tolist(), got["correct"].tolist(), strict=True))
        assert rows == hand == run_rows(model, task)  # one row per (doc, repeat), sample = the repeat number
        assert sorted(got["case"].unique(), key=int) == [str(i) for i in range(DOCS)]
        assert got.groupby("case").size().tolist() == [REPEATS] * DOCS
        accuracy = mean([c for _, _, c in hand])
        assert got["correct"].mean() == pytest.approx(accuracy)
    assert any("3 repeats per document read as 3 samples per case (sample = repeat number)" in n for n in res.notes)


def test_accuracy_over_all_repeats_against_lm_evals_own_scores() -> None:
    """take_first_k: lm-eval's exact_match is the mean over documents of the mean over repeats = the accuracy over
    all 36 repeats (every document has three). The default filter scores repeat 1 only: lm-eval's score is the
    accuracy of the rows with sample 1."""
    measured = {}
    for model in MODELS:
        k3 = run_rows(model, "nk_arith_k3")
        first = run_rows(model, "nk_arith_first")
        measured[model] = mean([c for _, _, c in k3])
        assert measured[model] == pytest.approx(lm_score(model, "nk_arith_k3", "exact_match,every-repeat"), abs=1e-12)
        assert mean([c for _, s, c in first if s == 1]) == pytest.approx(
            lm_score(model, "nk_arith_first", "exact_match,none"), abs=1e-12
        )
        # the plugin draws repeat r of a prompt the same in every task: both layouts give the same 36 rows
        assert k3 == first
    assert measured == pytest.approx({"nk-fake-small": 22 / 36, "nk-fake-large": 32 / 36})


def test_majority_vote_keeps_one_row_per_document_with_a_note() -> None:
    res = read_harness(read_paths(files("nk_arith_maj")))
    assert res.configs == MODELS and res.samples is None and res.paired is not None
    for model in MODELS:
        logged = {str(r["doc_id"]): int(r["exact_match"]) for r in lines(model, "nk_arith_maj")}
        assert run_rows(model, "nk_arith_maj") == [(case, 1, v) for case, v in logged.items()]
        got = res.paired[res.paired["config"] == model]
        assert got["correct"].mean() == pytest.approx(lm_score(model, "nk_arith_maj", "exact_match,maj@3"))
    assert any(
        "the task's filter maj@3 combined the 3 repeats of each document into one answer" in n for n in res.notes
    )


@pytest.mark.parametrize(("task", "metric"), [("nk_arith", "exact_match"), ("nk_arith_mc", "acc")])
def test_single_repeat_files_read_as_before(task: str, metric: str) -> None:
    """No repeats: one sample per case, the document's metric, no answer or gold, the one metric note."""
    res = read_harness(read_paths(files(task)))
    assert res.configs == MODELS and res.samples is None and res.paired is not None
    assert res.notes[0] == f"{task}: metric {metric} used"
    assert not any("repeat" in n and task in n for n in res.notes)
    for model in MODELS:
        recs = lines(model, task)
        assert all(len(req) == 1 for r in recs for req in r["resps"])  # one response per request
        path = samples_path(model, task)
        run = read_samples(path.name, path.read_bytes(), config=model)
        assert run.notes == (f"{task}: metric {metric} used",)
        assert run_rows(model, task) == [(str(r["doc_id"]), 1, int(r[metric])) for r in recs]
        assert run.rows["answer"].isna().all() and run.rows["gold"].isna().all()
        got = res.paired[res.paired["config"] == model]
        assert got["case"].tolist() == [str(r["doc_id"]) for r in recs]
        assert got["correct"].mean() == pytest.approx(lm_score(model, task, f"{metric},none"))


def test_all_the_files_together() -> None:
    """Five tasks, two models: the cases are task/doc_id; nk_arith_first and nk_arith_k3 have three samples per case."""
    res = read_harness(read_paths(sorted(OUT.glob("*/*"))))
    assert set(res.configs) == set(MODELS) and res.samples is not None
    s = res.samples
    s = s.assign(task=s["case"].str.split("/").str[0])
    sizes = s.groupby(["config", "task", "case"]).size().groupby(["config", "task"]).agg(["count", "min", "max"])
    for model in MODELS:
        for task in ("nk_arith", "nk_arith_mc", "nk_arith_maj", "nk_arith_first", "nk_arith_k3"):
            k = REPEATS if task in ("nk_arith_first", "nk_arith_k3") else 1
            assert sizes.loc[(model, task)].tolist() == [DOCS, k, k]
        k3 = s[(s["config"] == model) & (s["task"] == "nk_arith_k3")]
        assert k3["correct"].mean() == pytest.approx(
            mean([c for _, _, c in by_hand(model, "nk_arith_k3", "every-repeat", "filtered_resps")])
        )


# ---------------------------------------------------------------------------------------------- hand-written records


def record(doc_id: int, resps: list[Any], kept: Any, value: float, target: Any = "5", filt: str = "k3") -> str:
    """One generate_until document as lm_eval/evaluator.py logs it (one request, its repeats in resps[0])."""
    rec = {
        "doc_id": doc_id,
        "doc": {"question": "What is 2 + 3?", "answer": "5"},
        "target": target,
        "arguments": {"gen_args_0": {"arg_0": "Q: What is 2 + 3?\nA:", "arg_1": {"until": ["\n"]}}},
        "resps": resps,
        "filtered_resps": kept,
        "filter": filt,
        "metrics": ["exact_match"],
        "exact_match": value,
    }
    return json.dumps(rec) + "\n"


NAME = "samples_t_2024-01-01T00-00-00.000001.jsonl"


def test_a_metric_the_responses_do_not_reproduce_is_not_split_into_repeats() -> None:
    """exact_match with ignore_case: 'Five' scored as 'five'. The repeats cannot be re-scored from the text."""
    data = record(0, [["Five", "five", "6"]], [["Five", "five", "6"]], 2 / 3, target="five").encode()
    with pytest.raises(
        DataError,
        match=r"averaged it over the repeats the filter k3 kept, of 3 per document; the repeats cannot be re-scored \(doc_id 0: exact_match is 0.666667 but the responses equal to target give 0.333333\)",
    ):
        read_samples(NAME, data)
    run = read_samples(NAME, data, threshold=0.5)
    assert run.rows["correct"].tolist() == [1] and run.rows["sample"].tolist() == [1]
    assert "3 repeats per document read as one result per case (exact_match): the repeats cannot be" in run.notes[-1]


def test_the_default_filter_whose_metric_the_text_does_not_reproduce_keeps_one_row() -> None:
    data = record(0, [["FIVE", "5", "5"]], ["FIVE"], 1.0, filt="none").encode()
    run = read_samples(NAME, data)
    assert run.rows["correct"].tolist() == [1] and len(run.rows) == 1
    assert "the repeats cannot be re-scored (doc_id 0: exact_match is 1 but" in run.notes[-1]


def test_the_filter_may_keep_fewer_responses_than_repeats_and_a_number_target_is_text() -> None:
    """take_first_k 2 of 3 repeats: two samples per case. A target that is a number is compared as text (lm-eval
    casts it to the answer's type); numpy's == ignores trailing NULs, so does the reader."""
    data = (
        record(0, [["5", "6", "5"]], [["5", "6"]], 0.5, target=5)
        + record(1, [["5\x00", "5", "7"]], [["5\x00", "5"]], 1.0)
    ).encode()
    run = read_samples(NAME, data)
    assert run.rows[["case", "sample", "correct"]].values.tolist() == [
        ["0", 1, 1],
        ["0", 2, 0],
        ["1", 1, 1],
        ["1", 2, 1],
    ]
    assert "3 repeats per document read as 2 samples per case" in run.notes[-1]


def test_another_metric_or_loglikelihood_repeats_keep_one_row_per_document() -> None:
    rec = json.loads(record(0, [["5", "6", "5"]], ["5"], 1.0, filt="none"))
    rec["metrics"].append("hit")
    rec["hit"] = 0.0
    run = read_samples(NAME, json.dumps(rec).encode(), metric="hit")
    assert run.rows["correct"].tolist() == [0]
    assert "only exact_match can be re-scored per repeat, and the metric read is hit" in run.notes[-1]
    ll = {
        "doc_id": 0,
        "target": "1",
        "resps": [[["-1.5", "False"], ["-1.5", "False"]], [["-0.5", "True"], ["-0.5", "True"]]],
        "filtered_resps": [["-1.5", "False"], ["-0.5", "True"]],
        "filter": "none",
        "metrics": ["acc"],
        "acc": 1.0,
    }
    run = read_samples(NAME, json.dumps(ll).encode())
    assert run.rows["correct"].tolist() == [1]
    assert run.notes[-1].startswith("t: 2 responses per loglikelihood request (repeats); acc is")
