"""lm-evaluation-harness per-sample logs (``--log_samples``) read as one config's per-case results.

Format (lm-evaluation-harness 0.4.x, ``lm_eval/evaluator.py`` and ``lm_eval/loggers/evaluation_tracker.py``):
``lm_eval --log_samples --output_path DIR`` writes, per task, ``DIR/<model_name_sanitized>/samples_<task>_<date>
.jsonl``, one JSON object per document and filter: ``doc_id``, ``doc``, ``target`` (text), ``arguments``
(``{"gen_args_0": {"arg_0": ...}}``), ``resps``, ``filtered_resps``, ``filter`` (e.g. ``none``,
``strict-match``), ``metrics`` (the metric names) and one key per metric with that document's value (``acc``:
0.0 / 1.0, ``exact_match``...), plus ``doc_hash``, ``prompt_hash``, ``target_hash``. Beside it,
``results_<date>.json`` (same date) names the model: ``model_name``, ``config.model_args``
(``pretrained=...,dtype=...``) and ``config.model``.

Correct = the document's metric: ``acc`` first, then ``exact_match``, then the first metric whose values are
all 0 or 1; a metric with other values is refused unless a threshold is given (correct = value >= threshold).
A task logged with several filters (gsm8k: ``strict-match`` and ``flexible-extract``) is read with its first.

Repeats (a task's ``repeats: K``, lm-eval's way of drawing K generations per document): ``resps`` holds the K raw
responses of each request (``[[r1, ..., rK]]``), ``filtered_resps`` what the task's filter kept, and the metric is
computed once per document on that (``Task.process_results`` scores ``filtered_resps[0]``). Read as repeats, one row
per (document, repeat) with ``sample`` = the repeat number, when the file lets each repeat be re-scored exactly as
``exact_match`` scores it (text equal to ``target``; numpy's ``==`` on the texts, so trailing NULs aside), checked
against the logged value of every document:

- the filter kept several responses (``take_first_k``): ``filtered_resps[0]`` is a list of texts and the logged
  ``exact_match`` is their mean; each kept response is one sample;
- the default filter (``none``: keep the first) kept ``resps[0][0]`` and scored it alone; each raw response is one
  sample (repeat 1 is the one lm-eval scored).

Otherwise one row per document: the filter combined the repeats into one answer (``majority_vote``, or any
named filter that keeps one text: the file does not say which), loglikelihood repeats, another metric, or the check
failed; a note says which.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from nkcore.errors import DataError
from nkcore.harness.reading import fail, iter_json_lines, plain_bytes
from nkcore.harness.result import Run, run_frame

__all__ = [
    "file_date",
    "is_results_document",
    "is_samples_record",
    "model_name",
    "read_samples",
    "task_name",
]

TOOL = "lm_eval"
PREFERRED_METRICS: tuple[str, ...] = ("acc", "exact_match")
_RECORD_KEYS = frozenset(
    {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics"}
    | {"doc_hash", "prompt_hash", "target_hash", "task", "task_name"}
)
# Fields of a record that nothing here reads: dropped as each line is read, so memory holds what is scored, not the
# documents and prompts (which a file may pad to the line limit).
_UNREAD_KEYS = frozenset({"doc", "arguments", "doc_hash", "prompt_hash", "target_hash"})
_DATE = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
_SAMPLES_NAME = re.compile(rf"^samples_(?P<task>.+)_(?P<date>{_DATE})\.jsonl(?:\.gz)?$")
_RESULTS_NAME = re.compile(rf"^results_(?P<date>{_DATE})\.json(?:\.gz)?$")
_MODEL_ARG_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")  # lm-eval's own order


def is_samples_record(obj: object) -> bool:
    """True for one line of a ``--log_samples`` file (a ``doc_id``, a ``target`` and the responses).

    >>> is_samples_record({"doc_id": 0, "target": "1", "resps": [], "filtered_resps": [], "acc": 1.0})
    True
    >>> is_samples_record({"case": 0, "config": "A", "correct": 1})
    False
    """
    return (
        isinstance(obj, dict) and {"doc_id", "target"} <= obj.keys() and bool({"resps", "filtered_resps"} & obj.keys())
    )


def is_results_document(obj: object) -> bool:
    """True for lm-evaluation-harness's aggregated ``results_<date>.json`` (task results and the run's config)."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("results"), dict)
        and bool({"config", "model_name", "versions", "n-shot", "configs"} & obj.keys())
    )


def model_name(doc: Mapping[str, object]) -> str | None:
    """The model named in a ``results_<date>.json`` document: ``model_name``, else the model argument of
    ``config.model_args`` (peft=, delta=, pretrained=, model=, path=, engine=, as lm-eval reads it), else
    ``config.model``.

    >>> model_name({"config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-160m,dtype=float"}})
    'EleutherAI/pythia-160m'
    """
    name = doc.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    config = doc.get("config")
    if not isinstance(config, Mapping):
        return None
    args = config.get("model_args")
    if isinstance(args, Mapping):
        for key in _MODEL_ARG_KEYS:
            if isinstance(args.get(key), str) and str(args[key]).strip():
                return str(args[key]).strip()
    elif isinstance(args, str):
        for key in _MODEL_ARG_KEYS:
            if f"{key}=" in args:
                value = args.split(f"{key}=", 1)[1].split(",")[0].strip()
                if value:
                    return value
    model = config.get("model")
    return model.strip() if isinstance(model, str) and model.strip() else None


def file_date(name: str) -> str | None:
    """The date stamp of a ``samples_<task>_<date>.jsonl`` or ``results_<date>.json`` file name (the two files of
    one run share it), or None.

    >>> file_date("samples_arc_easy_2024-06-27T12-33-15.123456.jsonl")
    '2024-06-27T12-33-15.123456'
    """
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    m = _SAMPLES_NAME.match(base) or _RESULTS_NAME.match(base)
    return m.group("date") if m else None


def task_name(name: str) -> str:
    """The task of a ``samples_<task>_<date>.jsonl`` (or ``.jsonl.gz``) file name; the file's stem for other names.

    >>> task_name("samples_arc_easy_2024-06-27T12-33-15.123456.jsonl"), task_name("run.jsonl.gz")
    ('arc_easy', 'run')
    """
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    m = _SAMPLES_NAME.match(base)
    if m:
        return m.group("task")
    base = base.removesuffix(".gz")
    return base.rsplit(".", 1)[0] if "." in base else base


def _metric_names(rec: Mapping[str, object]) -> list[str]:
    listed = rec.get("metrics")
    if isinstance(listed, list) and listed:
        return [str(m) for m in listed if str(m) in rec]
    return [
        k
        for k, v in rec.items()
        if k not in _RECORD_KEYS and isinstance(v, (bool, int, float)) and not isinstance(v, str)
    ]


def _value(name: str, rec: Mapping[str, object], metric: str, lineno: int) -> float:
    v = rec.get(metric)
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        try:
            number = float(v)
        except OverflowError:
            number = math.inf
        if math.isfinite(number):
            return number
    raise fail(
        name,
        f"line {lineno:,} (doc_id {rec.get('doc_id')}): metric {metric!r} is {v!r}, not a number; "
        "every document needs a value of the metric",
    )


def _is_01(values: list[float]) -> bool:
    return all(v in (0.0, 1.0) for v in values)


def _choose_metric(
    name: str,
    records: list[tuple[int, dict[str, object]]],
    metric: str | None,
    threshold: float | None,
    hint: str = "",
) -> tuple[str, list[int], str]:
    """(metric, correct per record, note); ``hint`` ends the refusal of a metric that is not 0/1."""
    first = records[0][1]
    available = _metric_names(first)
    if metric is not None:
        if metric not in available:
            listed = ", ".join(available) or "none"
            raise fail(name, f"no metric {metric!r} in the file; its metrics are {listed}")
        chosen = [metric]
    else:
        chosen = [m for m in PREFERRED_METRICS if m in available] + [m for m in available if m not in PREFERRED_METRICS]
        if not chosen:
            raise fail(
                name,
                "no metric found in the records (expected keys such as acc or exact_match next to doc_id): "
                "upload the samples_<task>_<date>.jsonl written by lm_eval --log_samples",
            )
    first_bad: tuple[str, float, object] | None = None
    for m in chosen:
        values = [_value(name, rec, m, lineno) for lineno, rec in records]
        if _is_01(values):
            note = f"{task_name(name)}: metric {m} used" + (
                f" (of {', '.join(available)})" if len(available) > 1 else ""
            )
            return m, [int(v) for v in values], note
        if threshold is not None and (metric is not None or m == chosen[0]):
            note = f"{task_name(name)}: metric {m} read as correct when >= {threshold:g}"
            return m, [int(v >= threshold) for v in values], note
        if first_bad is None:
            i = next(i for i, v in enumerate(values) if v not in (0.0, 1.0))
            first_bad = (m, values[i], records[i][1].get("doc_id"))
    assert first_bad is not None
    m, v, doc = first_bad
    raise fail(
        name,
        f"metric {m!r} takes values other than 0 and 1 ({v:g} for doc_id {doc}): a paired comparison needs "
        f"right/wrong per case; choose a 0/1 metric with --metric (metrics in the file: {', '.join(available)}) "
        f"or give a threshold{hint}",
    )


@dataclass(frozen=True, slots=True)
class _Repeats:
    """How a file's repeats are laid out: ``kind`` is ``filtered`` (the filter kept several responses), ``first``
    (the default filter kept the first raw response), ``combined`` (the filter made one answer of them) or
    ``loglikelihood`` (repeated loglikelihood requests); ``count`` = responses per request (the most of any
    document)."""

    kind: str
    count: int


def _generation(rec: Mapping[str, object]) -> tuple[list[str], str | list[str]] | None:
    """(raw responses, what the filter kept) of a one-request generation record, or None for other records."""
    resps, kept = rec.get("resps"), rec.get("filtered_resps")
    if not (isinstance(resps, list) and len(resps) == 1 and isinstance(resps[0], list) and resps[0]):
        return None
    raw = resps[0]
    if not all(isinstance(r, str) for r in raw) or not (isinstance(kept, list) and len(kept) == 1):
        return None
    one = kept[0]
    if isinstance(one, str):
        return [str(r) for r in raw], one
    if isinstance(one, list) and one and all(isinstance(r, str) for r in one):
        return [str(r) for r in raw], [str(r) for r in one]
    return None


def _repeats(records: list[tuple[int, dict[str, object]]], chosen_filter: str) -> _Repeats | None:
    """The repeats of a file's records, or None when every request has one response."""
    gens = [_generation(rec) for _, rec in records]
    if any(g is None for g in gens):
        counts = [0]
        for _, rec in records:
            resps = rec.get("resps")
            if isinstance(resps, list):
                counts.extend(len(r) for r in resps if isinstance(r, list))
        return _Repeats("loglikelihood", max(counts)) if max(counts) > 1 else None
    pairs = [g for g in gens if g is not None]
    count = max(len(raw) for raw, _ in pairs)
    if count == 1:
        return None
    if all(isinstance(kept, list) and len(kept) > 1 for _, kept in pairs):
        return _Repeats("filtered", count)
    if chosen_filter == "none" and all(isinstance(kept, str) and kept == raw[0] for raw, kept in pairs):
        return _Repeats("first", count)
    return _Repeats("combined", count)


def _gold(target: object) -> str | None:
    """The text exact_match compares with (lm-eval casts a non-text target to the answer's type, str)."""
    if isinstance(target, str):
        return target
    if isinstance(target, int) and not isinstance(target, bool):
        return str(target)
    return None


def _same(answer: str, gold: str) -> bool:
    """exact_match's test (numpy ``==`` on the texts, which ignores trailing NUL characters)."""
    return answer.rstrip("\x00") == gold.rstrip("\x00")


@dataclass(frozen=True, slots=True)
class _Rescored:
    """Per-repeat rows re-scored from the responses (the columns of :func:`run_frame`)."""

    case: list[str]
    sample: list[int]
    correct: list[int]
    answer: list[str | None]
    gold: list[str | None]


def _rescore(name: str, records: list[tuple[int, dict[str, object]]], cases: list[str], kind: str) -> _Rescored | str:
    """Each repeat compared with ``target`` as exact_match does, checked against the logged exact_match of every
    document; the reason as text when a document's check fails."""
    out = _Rescored([], [], [], [], [])
    for (lineno, rec), case in zip(records, cases, strict=True):
        pair = _generation(rec)
        gold = _gold(rec.get("target"))
        if pair is None or gold is None:
            return f"the target of doc_id {case} is {rec.get('target')!r}, not a text"
        raw, kept = pair
        answers = kept if kind == "filtered" and isinstance(kept, list) else raw
        scores = [int(_same(a, gold)) for a in answers]
        logged = _value(name, rec, "exact_match", lineno)
        expected = sum(scores) / len(scores) if kind == "filtered" else float(scores[0])
        if abs(logged - expected) > 1e-9:
            return f"doc_id {case}: exact_match is {logged:g} but the responses equal to target give {expected:g}"
        out.case.extend([case] * len(answers))
        out.sample.extend(range(1, len(answers) + 1))
        out.correct.extend(scores)
        out.answer.extend(answers)
        out.gold.extend([gold] * len(answers))
    return out


def _repeat_note(task: str, layout: _Repeats, chosen_filter: str, n_docs: int, scored: int) -> str:
    """How the repeats were read (as samples, ``scored`` responses per document)."""
    k = layout.count
    if layout.kind == "filtered":
        return (
            f"{task}: {k} repeats per document read as {scored} samples per case (sample = repeat number): each "
            f"response the filter {chosen_filter} kept is compared with target as exact_match does (equal text); "
            f"their mean is the logged exact_match for all {n_docs:,} documents"
        )
    return (
        f"{task}: {k} repeats per document read as {k} samples per case (sample = repeat number): each response "
        "in resps is compared with target as exact_match does (equal text); lm-evaluation-harness's default "
        f"filter (none: keep the first) scored repeat 1 only, and the comparison gives its exact_match for all "
        f"{n_docs:,} documents"
    )


def _one_row_note(task: str, layout: _Repeats, chosen_filter: str, metric: str, why: str = "") -> str:
    """Why a file with repeats is read as one result per document."""
    k = layout.count
    if layout.kind == "combined":
        return (
            f"{task}: the task's filter {chosen_filter} combined the {k} repeats of each document into one answer "
            f"(a majority vote or a choice of one; the file logs only the result), so each case has one result: "
            f"{metric} of that answer"
        )
    if layout.kind == "loglikelihood":
        return (
            f"{task}: {k} responses per loglikelihood request (repeats); {metric} is lm-evaluation-harness's "
            "result per document, read as one result per case"
        )
    return f"{task}: {k} repeats per document read as one result per case ({metric}): {why}"


def read_samples(
    name: str,
    data: bytes,
    config: str | None = None,
    metric: str | None = None,
    threshold: float | None = None,
) -> Run:
    """Read one ``samples_<task>_<date>.jsonl`` file into a :class:`Run` (one sample per case, or one per repeat).

    ``config`` names the model (from the sibling results file, or the caller); the file name is used without it.
    ``metric`` picks the metric (default: ``acc``, ``exact_match``, the first 0/1 metric); ``threshold`` reads a
    metric with other values as correct when value >= threshold. Case = ``doc_id``. A gzipped file
    (``.jsonl.gz``) is unpacked first.

    >>> rows = b'{"doc_id": 0, "target": "A", "resps": [], "filtered_resps": [], "metrics": ["acc"], "acc": 1.0}\\n'
    >>> run = read_samples("samples_t_2024-01-01T00-00-00.000001.jsonl", rows, config="m")
    >>> run.config, run.task, run.rows["correct"].tolist(), run.notes
    ('m', 't', [1], ('t: metric acc used',))

    Repeats kept by ``take_first_k`` (``exact_match`` = 2/3, the mean over the three): one sample per repeat.

    >>> rows = (b'{"doc_id": 0, "target": "5", "resps": [["5", "6", "5"]], "filtered_resps": [["5", "6", "5"]], '
    ...         b'"filter": "k3", "metrics": ["exact_match"], "exact_match": 0.6666666666666666}\\n')
    >>> run = read_samples("samples_t_2024-01-01T00-00-00.000001.jsonl", rows, config="m")
    >>> run.rows[["case", "sample", "correct", "answer"]].values.tolist()
    [['0', 1, 1, '5'], ['0', 2, 0, '6'], ['0', 3, 1, '5']]
    """
    records: list[tuple[int, dict[str, object]]] = []
    filters: dict[str, None] = {}
    plain = plain_bytes(name, data)
    for lineno, rec in iter_json_lines(plain, name, max_bytes=len(plain)):
        if not is_samples_record(rec):
            raise fail(
                name,
                f"line {lineno:,} is not an lm-evaluation-harness sample (it needs doc_id, target and "
                "filtered_resps): upload the samples_<task>_<date>.jsonl written by lm_eval --log_samples",
            )
        filters.setdefault(str(rec.get("filter", "none")), None)
        records.append((lineno, {k: v for k, v in rec.items() if k not in _UNREAD_KEYS}))
    if not records:
        raise fail(name, "the file holds no samples (only blank lines)")
    notes: list[str] = []
    chosen_filter = next(iter(filters))
    if len(filters) > 1:
        records = [(ln, r) for ln, r in records if str(r.get("filter", "none")) == chosen_filter]
        notes.append(f"{task_name(name)}: filter {chosen_filter} used (of {', '.join(filters)})")
    seen: dict[str, int] = {}
    cases: list[str] = []
    for lineno, rec in records:
        case = str(rec["doc_id"]).strip()
        if not case or case == "None":
            raise fail(name, f"line {lineno:,} has an empty doc_id")
        if case in seen:
            raise fail(
                name,
                f"doc_id {case} appears twice (lines {seen[case]:,} and {lineno:,}) for filter {chosen_filter}: "
                "upload one samples file per task and model",
            )
        seen[case] = lineno
        cases.append(case)
    if threshold is not None and not math.isfinite(threshold):
        raise DataError(f"the threshold must be a finite number, got {threshold}")
    label = config or name.replace("\\", "/").rsplit("/", 1)[-1]
    task = task_name(name)
    layout = _repeats(records, chosen_filter)
    why = ""
    if layout is not None and layout.kind in ("filtered", "first"):
        available = _metric_names(records[0][1])
        default = next((m for m in PREFERRED_METRICS if m in available), available[0] if available else None)
        if (metric or default) == "exact_match" and "exact_match" in available:
            rescored = _rescore(name, records, cases, layout.kind)
            if isinstance(rescored, _Rescored):
                used = "exact_match" + (f" (of {', '.join(available)})" if len(available) > 1 else "")
                notes.insert(0, f"{task}: metric {used} used")
                notes.append(_repeat_note(task, layout, chosen_filter, len(cases), max(rescored.sample)))
                frame = run_frame(rescored.case, rescored.sample, rescored.correct, rescored.answer, rescored.gold)
                return Run(TOOL, name, label, task, frame, tuple(notes))
            why = f"the repeats cannot be re-scored ({rescored})"
        else:
            why = f"only exact_match can be re-scored per repeat, and the metric read is {metric or default}"
    hint = ""
    if layout is not None and layout.kind == "filtered":
        hint = (
            f" (lm-evaluation-harness averaged it over the repeats the filter {chosen_filter} kept, of "
            f"{layout.count} per document; {why})"
        )
    used, correct, note = _choose_metric(name, records, metric, threshold, hint)
    notes.insert(0, note)
    if layout is not None:
        notes.append(_one_row_note(task, layout, chosen_filter, used, why))
    frame = run_frame(cases, [1] * len(cases), correct)
    return Run(TOOL, name, label, task, frame, tuple(notes))
