"""promptfoo results (``promptfoo eval -o results.json``) read as per-provider, per-test-case results.

Format (promptfoo ``src/types/index.ts``: ``EvaluateSummaryV3`` / ``EvaluateResult``, output documented in
``site/docs/configuration/outputs.md``): ``{"evalId": ..., "results": {"version": 3, "timestamp": ...,
"results": [EvaluateResult, ...], "prompts": [...], "stats": {...}}, "config": {...}, "shareableUrl": ...}``
(version 2 files have ``table`` instead of ``prompts``; a bare summary with ``results`` at the top is read too).
Each result: ``testIdx``, ``promptIdx``, ``testCase`` (``vars``, ``description``), ``vars``, ``provider``
(``{"id", "label"}``), ``prompt`` (``label``, ``raw``), ``response`` (``output``), ``success``, ``score``,
``latencyMs``, ``cost``, ``gradingResult``, ``failureReason`` (2 = error).

One result per test case and provider: config = provider label (else id), with the prompt label appended when
the file holds several prompts; correct = ``success`` (an error counts as wrong, a note says how many); case = the
test's index. With ``--repeat``, promptfoo gives each repeat its own ``testIdx``: results with the same test
(its test case: description, vars, assertions) are one case, numbered by its first index, and the repeats are its samples.
Latency (``latencyMs`` / 1000 seconds) and ``cost`` (dollars per call) are kept for Cost & latency.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from nkcore.harness.reading import fail, limit
from nkcore.harness.result import Run, run_frame

__all__ = ["looks_like_results", "read_results", "result_list"]

TOOL = "promptfoo"
_ERROR = 2  # ResultFailureReason.ERROR


def result_list(doc: object) -> list[object] | None:
    """The list of per-result objects of a promptfoo output document, or None when it is not one.

    >>> result_list({"evalId": "e", "results": {"version": 3, "results": [{"success": True, "provider": {}}]}})
    [{'success': True, 'provider': {}}]
    """
    if not isinstance(doc, dict):
        return None
    inner = doc.get("results")
    if isinstance(inner, dict) and isinstance(inner.get("results"), list):
        items: list[object] = inner["results"]
    elif isinstance(inner, list) and ("version" in doc or "stats" in doc or "evalId" in doc):
        items = inner
    else:
        return None
    first = next((r for r in items if isinstance(r, dict)), None)
    if items and (first is None or "success" not in first or "provider" not in first):
        return None
    return items


def looks_like_results(doc: object) -> bool:
    """True for a promptfoo output document (see :func:`result_list`)."""
    return result_list(doc) is not None


def _provider(r: Mapping[str, object]) -> str:
    p = r.get("provider")
    if isinstance(p, Mapping):
        for key in ("label", "id"):
            v = p.get(key)
            if isinstance(v, str) and v.strip():
                return v.strip()
    if isinstance(p, str) and p.strip():
        return p.strip()
    return "provider"


def _prompt_label(r: Mapping[str, object]) -> str:
    p = r.get("prompt")
    if isinstance(p, Mapping):
        for key in ("label", "id", "raw"):
            v = p.get(key)
            if isinstance(v, str) and v.strip():
                return v.strip()[:80]
    return str(r.get("promptIdx", 0))


def _test_key(r: Mapping[str, object]) -> str:
    """What identifies a test across its repeats: the whole test case (description, vars, assertions) and vars."""
    return json.dumps({"t": r.get("testCase"), "v": r.get("vars")}, sort_keys=True, default=str)


def _number(v: object, scale: float = 1.0) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
        try:
            number = float(v) * scale
        except OverflowError:
            return math.nan
        return number if math.isfinite(number) else math.nan
    return math.nan


def _output(r: Mapping[str, object]) -> str | None:
    resp = r.get("response")
    out = resp.get("output") if isinstance(resp, Mapping) else None
    if out is None:
        return None
    text = out if isinstance(out, str) else json.dumps(out, sort_keys=True, default=str)
    return text.strip() or "(no answer)"


class _Columns:
    """The growing columns of one config's results."""

    def __init__(self) -> None:
        self.case: list[str] = []
        self.sample: list[int] = []
        self.correct: list[int] = []
        self.answer: list[str | None] = []
        self.latency_s: list[float] = []
        self.cost: list[float] = []


def read_results(name: str, doc: object) -> list[Run]:
    """Read a parsed promptfoo output document into one :class:`Run` per config (provider, and prompt when the
    file holds several).

    >>> doc = {"results": {"version": 3, "results": [
    ...     {"testIdx": 0, "vars": {"q": "1+1"}, "provider": {"id": "openai:gpt-4o-mini"}, "success": True,
    ...      "latencyMs": 800, "cost": 0.0002, "response": {"output": "2"}}]}}
    >>> [(r.config, r.rows["correct"].tolist(), r.rows["latency_s"].tolist()) for r in read_results("r.json", doc)]
    [('openai:gpt-4o-mini', [1], [0.8])]
    """
    items = result_list(doc)
    if items is None:
        raise fail(name, "not a promptfoo results file (expected results.results, a list with success and provider)")
    if not items:
        raise fail(name, "the promptfoo results list is empty: run promptfoo eval with at least one test")
    limit(name, "rows", len(items), "the results list")
    prompts = {_prompt_label(r) for r in items if isinstance(r, dict)}
    case_of_key: dict[str, str] = {}
    by_config: dict[str, _Columns] = {}
    seen: dict[tuple[str, str], int] = {}
    errors = 0
    for i, r in enumerate(items):
        if not isinstance(r, dict):
            raise fail(name, f"result {i:,} is a JSON {type(r).__name__}, not an object")
        success = r.get("success")
        if not isinstance(success, bool):
            raise fail(name, f"result {i:,} has no true/false success ({success!r}): export the results again")
        idx = r.get("testIdx", i)
        key = _test_key(r)
        case = case_of_key.setdefault(key, str(idx))
        config = _provider(r) + (f" | {_prompt_label(r)}" if len(prompts) > 1 else "")
        n = seen.get((config, case), 0) + 1
        seen[(config, case)] = n
        if r.get("failureReason") == _ERROR or r.get("error"):
            errors += 1
        cols = by_config.setdefault(config, _Columns())
        cols.case.append(case)
        cols.sample.append(n)
        cols.correct.append(int(success))
        cols.answer.append(_output(r))
        cols.latency_s.append(_number(r.get("latencyMs"), 1e-3))
        cols.cost.append(_number(r.get("cost")))
    notes: list[str] = []
    if errors:
        notes.append(f"{errors} result{'s' if errors != 1 else ''} ended in an error (counted as wrong)")
    runs = []
    for config, cols in by_config.items():
        frame = run_frame(cols.case, cols.sample, cols.correct, cols.answer, None, cols.latency_s, cols.cost)
        runs.append(Run(TOOL, name, config, "promptfoo", frame, tuple(notes)))
    return runs
