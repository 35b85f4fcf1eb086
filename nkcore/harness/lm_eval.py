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

Repeats (a task's ``repeats: K``) are read as :mod:`nkcore.harness.lm_eval_repeats` says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from nkcore.errors import DataError
from nkcore.harness.lm_eval_repeats import Rescored, layout_of, metric_value, one_row_note, repeat_note, rescore
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
        values = [metric_value(name, rec, m, lineno) for lineno, rec in records]
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
    layout = layout_of(records, chosen_filter)
    why = ""
    if layout is not None and layout.kind in ("filtered", "first"):
        available = _metric_names(records[0][1])
        default = next((m for m in PREFERRED_METRICS if m in available), available[0] if available else None)
        if (metric or default) == "exact_match" and "exact_match" in available:
            rescored = rescore(name, records, cases, layout.kind)
            if isinstance(rescored, Rescored):
                used = "exact_match" + (f" (of {', '.join(available)})" if len(available) > 1 else "")
                notes.insert(0, f"{task}: metric {used} used")
                notes.append(repeat_note(task, layout, chosen_filter, len(cases), max(rescored.sample)))
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
        notes.append(one_row_note(task, layout, chosen_filter, used, why))
    frame = run_frame(cases, [1] * len(cases), correct)
    return Run(TOOL, name, label, task, frame, tuple(notes))
