"""Evaluation-harness outputs read as NK Planner data: lm-evaluation-harness, inspect_ai and promptfoo.

:func:`read_harness` takes the files of one tool uploaded together (one per model or run), recognises the tool
from their content, and returns one paired-results frame (``case, config, correct``; the config named by the
model in each file) and, where a case has several samples (epochs, repeats), a raw-samples frame. Readers:
:mod:`nkcore.harness.lm_eval`, :mod:`nkcore.harness.inspect`, :mod:`nkcore.harness.promptfoo`; the shared types
are in :mod:`nkcore.harness.result`. Pure (no streamlit); every bad input raises ``DataError`` naming the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.evaluation import samples_view
from nkcore.harness import inspect as inspect_log
from nkcore.harness import lm_eval, promptfoo
from nkcore.harness.reading import error_note, fail, limit, load_json, long_line, plain_bytes, tasks_note
from nkcore.harness.result import REPEAT_WORD, TOOL_NAMES, TOOLS, HarnessResult, Run
from nkcore.io.source import GZIP_MAGIC

__all__ = ["TOOLS", "TOOL_NAMES", "HarnessResult", "Run", "config_rows", "detect_tool", "read_harness"]

_HEAD = 1 << 16  # bytes looked at to recognise a file
_EXPECTED = (
    "expected lm-evaluation-harness samples_<task>_<date>.jsonl (lm_eval --log_samples), an inspect_ai .eval or "
    ".json log, or a promptfoo results.json (promptfoo eval -o results.json)"
)


def _basename(name: str) -> str:
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def _first_line_object(data: bytes) -> dict[str, object] | None:
    """The first line parsed as a JSON object, when it is one complete object (a JSON Lines file, or a
    one-line document); None otherwise."""
    end = data.find(b"\n")
    line = data if end < 0 else data[:end]
    if len(line) > limits.get("line_bytes") or not line.strip():
        return None
    try:
        obj = json.loads(line.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _kind(obj: object) -> str | None:
    if lm_eval.is_samples_record(obj):
        return "lm_eval"
    if inspect_log.looks_like_log(obj):
        return "inspect"
    if promptfoo.looks_like_results(obj):
        return "promptfoo"
    if lm_eval.is_results_document(obj):
        return "lm_eval_results"
    return None


def _sniff(data: bytes) -> str | None:
    """The kind of file from its first bytes: lm_eval, lm_eval_results, inspect, promptfoo or None."""
    if inspect_log.is_eval_zip(data):
        return "inspect"
    head = data[:_HEAD].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"{"):
        return None
    obj = _first_line_object(head if len(data) <= _HEAD else data.lstrip(b"\xef\xbb\xbf \t\r\n"))
    if obj is not None:
        return _kind(obj)
    if b'"evalId"' in head or (b'"results"' in head and (b'"testIdx"' in head or b'"promptIdx"' in head)):
        return "promptfoo"
    if b'"status"' in head and b'"eval"' in head and b'"version"' in head:
        return "inspect"
    if b'"results"' in head and (b'"n-shot"' in head or b'"alias"' in head or b'"model_name"' in head):
        return "lm_eval_results"
    return None


def detect_tool(data: bytes, name: str = "") -> str | None:
    """The tool that wrote a file (``lm_eval``, ``inspect`` or ``promptfoo``), from its content, or None when the
    file is not an evaluation-harness output (a CSV, a plain JSON Lines table...). Looks at the first 64 KB
    (an ``.eval`` archive's entry names) of the file, unpacked when it is gzip (:func:`nkcore.io.unpack`, under
    its limits); :func:`read_harness` checks the whole file.

    >>> detect_tool(b'{"doc_id": 0, "target": "B", "filtered_resps": ["B"], "exact_match": 1.0}\\n')
    'lm_eval'
    >>> detect_tool(b'{"case": 1, "config": "A", "correct": 1}\\n') is None
    True
    """
    if data.startswith(GZIP_MAGIC):
        try:
            data = plain_bytes(name or "the file", data)
        except DataError:
            return None
    kind = _sniff(data)
    return "lm_eval" if kind == "lm_eval_results" else kind


def _read_file(
    name: str, data: bytes, metric: str | None, threshold: float | None, scorer: str | None, filter: str | None = None
) -> tuple[str, list[Run], str | None]:
    """(kind, runs, lm-eval model name when the file is a results_<date>.json); gzip is unpacked here for the
    sniffing and by each reader for its own (the readers take the file as given)."""
    plain = plain_bytes(name, data)
    if not plain.strip():
        raise fail(name, "the file is empty")
    if inspect_log.is_eval_zip(plain):
        return "inspect", [inspect_log.read_log(name, data, scorer, threshold)], None
    body = plain.lstrip(b"\xef\xbb\xbf \t\r\n")
    end = body.find(b"\n")
    if end > limits.get("line_bytes") and body[end:].strip():  # JSON Lines with a line over the limit
        raise long_line(name, plain[: len(plain) - len(body)].count(b"\n") + 1)
    first = _first_line_object(body)
    if first is not None and lm_eval.is_samples_record(first):  # the unpacked bytes: one copy, not two
        return "lm_eval", [lm_eval.read_samples(name, plain, None, metric, threshold, filter)], None
    doc = load_json(plain, name, max_bytes=len(plain))
    kind = _kind(doc)
    if kind == "inspect":
        return kind, [inspect_log.read_log(name, data, scorer, threshold)], None
    if kind == "promptfoo":
        return kind, promptfoo.read_results(name, doc), None
    if kind == "lm_eval_results" and isinstance(doc, dict):
        return kind, [], lm_eval.model_name(doc)
    if kind == "lm_eval":
        raise fail(name, "one lm-evaluation-harness record in a JSON document: upload the .jsonl file itself")
    raise fail(name, f"not a recognised evaluation-harness file: {_EXPECTED}")


def _separate_configs(runs: list[Run], notes: list[str]) -> list[Run]:
    """Runs of one config from different files that share cases get the file name after the config."""
    by_config: dict[str, list[int]] = {}
    for i, r in enumerate(runs):
        by_config.setdefault(r.config, []).append(i)
    out = list(runs)
    for config, idx in by_config.items():
        if len(idx) < 2:
            continue
        keys = [set(zip([runs[i].task] * len(runs[i].rows), runs[i].rows["case"], strict=True)) for i in idx]
        clash = any(keys[a] & keys[b] for a in range(len(idx)) for b in range(a + 1, len(idx)))
        if not clash:
            continue
        sources = [runs[i].source for i in idx]
        for i in idx:
            out[i] = runs[i].renamed(f"{config} ({_basename(runs[i].source)})")
        notes.append(
            f"config {config} is in {len(idx)} files with the same cases ({', '.join(map(_basename, sources))}); "
            "each is named by its file"
        )
    return out


def _evaluation_frame(rows: pd.DataFrame, configs: tuple[str, ...], word: str | None) -> pd.DataFrame:
    """Every row of every config, whole (:mod:`nkcore.evaluation`): ``case, config`` (+ the repeat column named
    ``word`` when some case has several samples), ``correct`` and the ``answer``, ``gold``, ``latency_s`` and ``cost``
    columns that hold any value. Configs in file order, each config's rows in file order."""
    order = {c: i for i, c in enumerate(configs)}
    ordered = rows.sort_values("config", key=lambda s: s.map(order), kind="stable")
    if word is None:
        first = ordered.sort_values("sample", kind="stable").drop_duplicates(["config", "case"], keep="first")
        ordered = ordered.loc[ordered.index.isin(first.index)]
    cols = ["case", "config"] + ([word] if word else []) + ["correct"]
    cols += [c for c in ("answer", "gold", "latency_s", "cost") if ordered[c].notna().any()]
    out = ordered.assign(**({word: ordered["sample"]} if word else {}))[cols]
    return out.reset_index(drop=True)


def _samples_frame(evaluation: pd.DataFrame, multi: list[str], notes: list[str]) -> pd.DataFrame | None:
    """The raw samples of the configs with several samples per case, each config read on its own
    (:func:`nkcore.evaluation.samples_view`), with a ``config`` column when there are several; None when no config
    can be voted on (partial credit)."""
    parts = []
    for config in multi:
        view = samples_view(evaluation, config)
        notes.extend(n for n in view.notes if n not in notes)
        if view.frame is not None:
            parts.append(view.frame.assign(config=config) if len(multi) > 1 else view.frame)
    if not parts:
        return None
    out = pd.concat(parts, ignore_index=True)
    if len(multi) > 1:
        out = out[["config", *[c for c in out.columns if c != "config"]]]
    return out


def read_harness(
    files: Sequence[tuple[str, bytes]],
    names: Mapping[str, str] | None = None,
    metric: str | None = None,
    threshold: float | None = None,
    scorer: str | None = None,
    filter: str | None = None,
) -> HarnessResult:
    """Read evaluation-harness files (name, bytes) uploaded together into NK Planner's paired results and samples.

    The tool is recognised from each file's content (:func:`detect_tool`); all files must come from one tool.
    Config = the model in the file (lm-eval: the ``results_<date>.json`` uploaded with it, same date; inspect_ai:
    ``log.eval.model``; promptfoo: the provider), else ``names[file name]`` when given (it always wins), else the
    file name; a config found in two files with the same cases is named by each file. Cases of different tasks are
    kept apart (``task/case``). Paired frame: ``case, config, correct`` (+ ``latency_s``, ``cost`` when recorded),
    one row per case and config; when some case has several samples, every one of them, numbered in a column named
    as the tool names its repeats (``epoch`` for inspect_ai, ``repeat`` otherwise), so the comparison is case by
    case over all repeats (:func:`nkcore.paired.parse_cases`); None with fewer than two configs.
    Samples frame: when some case has several samples, ``case, sample, correct`` (+ ``answer``, ``gold``,
    ``latency_s``, ``config``; see :class:`HarnessResult`). ``metric`` / ``threshold`` are lm-eval's metric and
    the cut-off for metrics (or inspect_ai scores) that are not 0/1; ``scorer`` picks an inspect_ai scorer and
    ``filter`` an lm-eval filter (:func:`nkcore.harness.lm_eval.read_samples`).

    >>> line = '{{"doc_id": {}, "target": "A", "filtered_resps": ["A"], "metrics": ["acc"], "acc": {}}}'
    >>> a = "\\n".join(line.format(i, v) for i, v in enumerate([1, 0, 1])).encode()
    >>> b = "\\n".join(line.format(i, v) for i, v in enumerate([1, 1, 1])).encode()
    >>> res = read_harness([("a.jsonl", a), ("b.jsonl", b)], names={"a.jsonl": "small", "b.jsonl": "large"})
    >>> res.tool, res.configs, res.paired.groupby("config", sort=False)["correct"].mean().tolist()
    ('lm_eval', ('small', 'large'), [0.6666666666666666, 1.0])
    """
    if not files:
        raise DataError("no files given: upload one evaluation-harness output per model or run")
    if threshold is not None and not np.isfinite(threshold):
        raise DataError(f"the threshold must be a finite number, got {threshold}")
    runs: list[Run] = []
    kinds: dict[str, str] = {}
    models: dict[str, str | None] = {}
    for name, data in files:
        kind, file_runs, model = _read_file(name, data, metric, threshold, scorer, filter)
        if kind == "lm_eval_results":
            models[name] = model
            continue
        kinds[name] = kind
        runs.extend(file_runs)
    tools = sorted(set(kinds.values()))
    if not runs:
        raise DataError(
            "only lm-evaluation-harness results_<date>.json files were given: upload the samples_<task>_<date>.jsonl "
            "files (lm_eval --log_samples) with them"
        )
    if len(tools) > 1:
        listed = "; ".join(f"{_basename(n)}: {TOOL_NAMES[k]}" for n, k in kinds.items())
        raise DataError(f"the files come from different tools ({listed}): upload the files of one tool at a time")
    tool = tools[0]
    notes: list[str] = []
    if tool == "lm_eval":
        runs, naming = lm_eval.name_runs(runs, models, fixed=[n for n, v in (names or {}).items() if v])
        notes.extend(naming)
    if names:
        runs = [r.renamed(names[r.source]) if names.get(r.source) else r for r in runs]
    runs = _separate_configs(runs, notes)
    for r in runs:
        notes.extend(n for n in r.notes if n not in notes)
    several_tasks = len({r.task for r in runs}) > 1
    if several_tasks:
        notes.append(tasks_note(list(dict.fromkeys(r.task for r in runs))))
    parts = []
    for r in runs:
        part = r.rows.assign(config=r.config, source=r.source)
        if several_tasks:
            part["case"] = r.task + "/" + part["case"].astype(str)
        parts.append(part)
    limit(_basename(runs[0].source), "rows", sum(len(p) for p in parts), "the files together")
    rows = pd.concat(parts, ignore_index=True)
    dup = rows.duplicated(["config", "case", "sample"], keep=False)
    if dup.any():
        first = rows.loc[dup].iloc[0]
        raise fail(
            _basename(str(first["source"])),
            f"case {first['case']} (sample {first['sample']}) appears twice for config {first['config']}: "
            "upload each run once",
        )
    configs = tuple(dict.fromkeys(r.config for r in runs))
    counts = rows.groupby(["config", "case"], sort=False).size()
    multi = [c for c in configs if (counts.loc[c] > 1).any()]

    word = REPEAT_WORD.get(tool, "repeat") if multi else None
    evaluation = _evaluation_frame(rows, configs, word)
    order = {c: i for i, c in enumerate(configs)}
    paired: pd.DataFrame | None = None
    if len(configs) >= 2:
        cols = ["case", "config", *([word] if word else []), "correct"]
        cols += [c for c in ("latency_s", "cost") if c in evaluation.columns]
        by_repeat = evaluation.sort_values(word, kind="stable") if word else evaluation  # repeat-major, as before
        paired = by_repeat.sort_values("config", key=lambda s: s.map(order), kind="stable")[cols]
        paired = paired.reset_index(drop=True)
        if multi:
            notes.append(
                f"paired results keep every {word} of each case: the case is the unit "
                "(each case's mean score per config, compared case by case)"
            )
    samples: pd.DataFrame | None = None
    partial = [c for c in multi if not rows.loc[rows["config"] == c, "correct"].dropna().isin([0, 1]).all()]
    if partial:
        whose = "these files" if len(partial) == len(multi) else ", ".join(partial)
        notes.append(
            "the samples have scores between 0 and 1 (partial credit): the majority vote needs right/wrong samples, "
            f"so Sampling and vote are not offered for {whose}"
        )
    if multi:
        samples = _samples_frame(evaluation, multi, notes)
        per_case = counts.loc[multi]
        n_cases = int(per_case.index.get_level_values("case").nunique())
        cases = plural(n_cases, "case") + (f" x {len(multi)} configs" if len(multi) > 1 else "")
        notes.append(
            f"{cases} with {int(per_case.min())} to {int(per_case.max())} samples each"
            if per_case.min() != per_case.max()
            else f"{cases} with {int(per_case.max())} samples each"
        )
    errors = tuple(sum(r.errors for r in runs if r.config == c) for c in configs)
    notes.extend(error_note(tool, c, e) for c, e in zip(configs, errors, strict=True) if e)
    return HarnessResult(
        tool=tool,
        paired=paired,
        samples=samples,
        configs=configs,
        notes=tuple(notes),
        errors=errors,
        evaluation=evaluation,
    )


def config_rows(res: HarnessResult) -> list[dict[str, object]]:
    """Per config of a harness read: ``config``, ``cases``, ``repeats`` ({min, max} per case), ``scores``,
    ``mean_score`` (the mean over cases of each case's mean: the case is the unit) and ``errors``.

    >>> line = '{{"doc_id": {}, "target": "A", "filtered_resps": ["A"], "metrics": ["acc"], "acc": {}}}'
    >>> a = "\\n".join(line.format(i, v) for i, v in enumerate([1, 0, 1])).encode()
    >>> b = "\\n".join(line.format(i, v) for i, v in enumerate([1, 1, 1])).encode()
    >>> [r["mean_score"] for r in config_rows(read_harness([("a.jsonl", a), ("b.jsonl", b)]))]
    [0.6666666666666666, 1.0]
    """
    rows: list[dict[str, object]] = []
    frame = res.paired
    for j, config in enumerate(res.configs):
        if frame is not None:
            part = frame[frame["config"] == config]
        elif res.samples is not None:
            part = res.samples if "config" not in res.samples.columns else res.samples[res.samples["config"] == config]
        else:  # pragma: no cover - read_harness gives one or the other
            continue
        per_case = part.groupby("case", sort=False)["correct"]
        sizes = per_case.size()
        rows.append(
            {
                "config": config,
                "cases": int(sizes.size),
                "repeats": {"min": int(sizes.min()), "max": int(sizes.max())},
                "scores": int(sizes.sum()),
                "mean_score": float(per_case.mean().mean()),
                "errors": res.errors[j] if j < len(res.errors) else 0,
            }
        )
    return rows
