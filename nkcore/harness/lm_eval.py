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
A task logged with several filters (gsm8k: ``strict-match`` and ``flexible-extract``; a repeated task:
``maj@4`` and ``first_k``) is read with the filter asked for (``filter``), else its first; a note names the
filter read and the others in the file.

Config (:func:`name_runs`): lm-eval 0.4's records name no model (``evaluation_tracker.save_results_samples`` writes
the fields above), so a samples file is named by a ``model_name`` / ``model`` text in its records (other tools'
files), else the ``results_<date>.json`` uploaded with it, else its folder (:func:`folder_model`), else its file
name, with a note asking for the results files.

Repeats (a task's ``repeats: K``) are read as :mod:`nkcore.harness.lm_eval_repeats` says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping

from nkcore.common.formatting import name_list
from nkcore.errors import DataError
from nkcore.harness.lm_eval_repeats import Rescored, layout_of, metric_value, one_row_note, repeat_note, rescore
from nkcore.harness.reading import fail, iter_json_lines, plain_bytes, visible
from nkcore.harness.result import Run, run_frame

__all__ = [
    "file_date",
    "is_results_document",
    "is_samples_record",
    "model_name",
    "name_runs",
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


def _basename(name: str) -> str:
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def _folder(name: str) -> str:
    return name.replace("\\", "/").rpartition("/")[0]


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
    base = _basename(name)
    m = _SAMPLES_NAME.match(base) or _RESULTS_NAME.match(base)
    return m.group("date") if m else None


def task_name(name: str) -> str:
    """The task of a ``samples_<task>_<date>.jsonl`` (or ``.jsonl.gz``) file name; the file's stem for other names.

    >>> task_name("samples_arc_easy_2024-06-27T12-33-15.123456.jsonl"), task_name("run.jsonl.gz")
    ('arc_easy', 'run')
    """
    base = _basename(name)
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


def _record_model(rec: Mapping[str, object]) -> str | None:
    """The model a record names (``model_name`` or ``model``: files other tools wrote; lm-eval 0.4 writes neither)."""
    for key in ("model_name", "model"):
        v = rec.get(key)
        if isinstance(v, str) and visible(v):
            return visible(v)
    return None


def _choose_filter(name: str, filters: Mapping[str, None], asked: str | None) -> str:
    """The filter read: the one asked for (refused, with the file's filters, when the file has none of that name),
    else the file's first."""
    if asked is None:
        return next(iter(filters))
    if asked not in filters:
        raise fail(name, f"no filter {asked!r} in the file; its filters are {', '.join(filters)}: choose one of them")
    return asked


def read_samples(
    name: str,
    data: bytes,
    config: str | None = None,
    metric: str | None = None,
    threshold: float | None = None,
    filter: str | None = None,
) -> Run:
    """Read one ``samples_<task>_<date>.jsonl`` file into a :class:`Run` (one sample per case, or one per repeat).

    ``config`` names the model (from the sibling results file, or the caller); without it, the model its records
    name (``model_name`` / ``model``), else the file name. ``metric`` picks the metric (default: ``acc``,
    ``exact_match``, the first 0/1 metric); ``threshold`` reads a metric with other values as correct when value >=
    threshold; ``filter`` the filter whose records are read (default: the file's first). Case = ``doc_id``. A
    gzipped file (``.jsonl.gz``) is unpacked first.

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
    models: set[str | None] = set()
    plain = plain_bytes(name, data)
    for lineno, rec in iter_json_lines(plain, name, max_bytes=len(plain)):
        if not is_samples_record(rec):
            raise fail(
                name,
                f"line {lineno:,} is not an lm-evaluation-harness sample (it needs doc_id, target and "
                "filtered_resps): upload the samples_<task>_<date>.jsonl written by lm_eval --log_samples",
            )
        filters.setdefault(str(rec.get("filter", "none")), None)
        models.add(_record_model(rec))
        records.append((lineno, {k: v for k, v in rec.items() if k not in _UNREAD_KEYS}))
    if not records:
        raise fail(name, "the file holds no samples (only blank lines)")
    notes: list[str] = []
    chosen_filter = _choose_filter(name, filters, filter)
    if len(filters) > 1:
        records = [(ln, r) for ln, r in records if str(r.get("filter", "none")) == chosen_filter]
        others = ", ".join(f for f in filters if f != chosen_filter)
        notes.append(
            f"{task_name(name)}: filter {chosen_filter} used (of {', '.join(filters)}); "
            + ("as asked" if filter is not None else f"to read {others} instead, choose it with --filter")
        )
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
    own = next(iter(models)) if len(models) == 1 else None
    label = config or own or _basename(name)
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


def folder_model(name: str) -> str | None:
    """The model a samples file's folder names: lm-eval writes ``<output_path>/<model_name_sanitized>/samples_...``,
    the model with each run of ``"<>:/|\\?*[]`` turned into ``__`` (``EleutherAI__pythia-160m``, kept as it is: the
    ``/`` cannot be told from a ``__`` of the name); an old ``pretrained__gpt2`` loses its argument name. None for a
    file without a folder.

    >>> folder_model("results/pretrained__gpt2/samples_arc_easy_2024-06-27T12-33-15.jsonl")
    'gpt2'
    >>> folder_model("out/EleutherAI__pythia-160m/samples_t.jsonl"), folder_model("samples_t.jsonl")
    ('EleutherAI__pythia-160m', None)
    """
    folder = visible(_folder(name).rsplit("/", 1)[-1])
    for key in _MODEL_ARG_KEYS:
        for sep in ("__", "="):
            if folder.startswith(key + sep) and len(folder) > len(key + sep):
                return folder[len(key + sep) :]
    return folder or None


def name_runs(
    runs: list[Run], models: Mapping[str, str | None], fixed: Collection[str] = ()
) -> tuple[list[Run], list[str]]:
    """Each lm-eval samples file's config, and a note when some are named by their folder or file.

    A run already named (by its records; or its source in ``fixed``, named by the caller) keeps its name. Else the
    model of the ``results_<date>.json`` in its folder with its date stamp; else of the one model whose results files
    carry that stamp (uploads have no folders); else of the only results file, when every samples file has one date.
    Else its folder (:func:`folder_model`), unless the unnamed files share one folder with several date stamps (the
    folder does not tell them apart); else its file name, the note asking for the results files.
    """
    by_place = {(_folder(n), file_date(n)): m for n, m in models.items() if m}
    by_date: dict[str | None, set[str]] = {}
    for n, m in models.items():
        if m:
            by_date.setdefault(file_date(n), set()).add(m)
    named = {m for m in models.values() if m}
    only = next(iter(named)) if len(named) == 1 else None
    dates = {file_date(r.source) for r in runs}
    out: list[Run] = []
    unnamed: list[int] = []
    for r in runs:
        if r.source in fixed or r.config != _basename(r.source):
            out.append(r)
            continue
        date = file_date(r.source)
        model = by_place.get((_folder(r.source), date))
        if model is None and len(by_date.get(date, ())) == 1:
            model = next(iter(by_date[date]))
        if model is None and only is not None and len(dates) == 1:
            model = only
        if model is None:
            unnamed.append(len(out))
        out.append(r.renamed(model) if model else r)
    if not unnamed:
        return out, []
    sources = [out[i].source for i in unnamed]
    folders = {_folder(s) for s in sources}
    by_folder = all(folder_model(s) for s in sources) and (
        len(folders) > 1 or len({file_date(s) for s in sources}) == 1
    )
    how = "upload results_<date>.json with the samples to name the configs by model"
    if by_folder:
        for i in unnamed:
            out[i] = out[i].renamed(folder_model(out[i].source) or out[i].config)
        names = dict.fromkeys(out[i].config for i in unnamed)
        return out, [f"configs named by the folder lm-eval wrote each samples file in ({name_list(names)}): {how}"]
    files = dict.fromkeys(_basename(s) for s in sources)
    return out, [f"configs named by file ({name_list(files, width=60)}): {how}"]
