"""promptfoo results (``promptfoo eval -o results.json``) read as per-provider, per-test-case results.

Format (promptfoo ``src/types/index.ts``: ``EvaluateSummaryV3`` / ``EvaluateResult``, output documented in
``site/docs/configuration/outputs.md``; checked against files written by promptfoo 0.121.20, see
``tests/data/promptfoo/``): ``{"evalId": ..., "results": {"version": 3, "timestamp": ..., "results":
[EvaluateResult, ...], "prompts": [...], "stats": {...}}, "config": {...}, "shareableUrl": ..., "metadata": {...}}``
(version 2 files have ``table`` instead of ``prompts``; a bare summary with ``results`` at the top is read too).
Each result: ``testIdx``, ``promptIdx``, ``testCase`` (``description``, ``vars``, ``assert``, ``options``),
``vars``, ``provider`` (``{"id", "label"}``, no config), ``prompt`` (``label``, ``raw``), ``response``
(``output``), ``success``, ``score``, ``latencyMs``, ``cost``, ``gradingResult``, ``error``, ``failureReason``.

How the fields are read:

- config = one promptfoo column: promptfoo runs every (provider, prompt) pair as a column numbered by
  ``promptIdx`` (``results.prompts[promptIdx]``). Its name is the provider's ``label``, else its ``id``, with the
  prompt label appended when the file holds several prompts. Two providers that share an id and have no label
  (one model at two settings) are two configs: each is named by the settings that tell them apart, from the
  file's ``config.providers`` list (``file://provider.js (skill=careful)``), or by its place among them
  (``file://provider.js #2``) when the settings do not say.
- correct = ``success``. An error is ``failureReason`` 2 (``ResultFailureReason.ERROR``: the provider failed);
  it counts as wrong (its row, kept, drops nothing of the provider's other results nor of other providers'), and
  a note names each provider with errors and how many (:func:`nkcore.harness.reading.error_note`, per config, so
  a comparison of two providers says nothing of a third's). ``failureReason`` 1 is a failed assertion, an
  ordinary wrong answer, although promptfoo writes its reason into ``error`` too.
- names (provider label or id, prompt label, test description) lose invisible characters (U+200B-U+200D,
  U+2060-U+2064, U+FEFF: :func:`nkcore.harness.reading.visible`), which a label can carry unseen.
- case = the test: its test case (description, vars, assertions) and vars. With ``--repeat``, promptfoo gives
  each repeat its own ``testIdx``; results of the same test are one case and its repeats are its samples
  (sample 1 = the lowest ``testIdx``). The case id is the test's ``description`` when every test has its own,
  else its place among the tests (0, 1, ...: promptfoo's ``testIdx`` without repeats).
- latency_s = ``latencyMs`` / 1000 and cost = ``cost`` (dollars per call), for Cost & latency and ``fanout``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from nkcore.harness.reading import fail, limit, visible
from nkcore.harness.result import Run, run_frame

__all__ = ["looks_like_results", "read_results", "result_list"]

TOOL = "promptfoo"
_ERROR = 2  # ResultFailureReason.ERROR (1 = ASSERT, a failed assertion; 0 = NONE)
_SETTINGS_CHARS = 60  # longest settings text that names a provider; past it, its place does


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


def _text(v: object) -> str | None:
    """A name as promptfoo shows it: without invisible characters (U+2060...: :func:`visible`), or None."""
    return (visible(v) or None) if isinstance(v, str) else None


def _provider(r: Mapping[str, object]) -> str:
    """promptfoo's name for a result's provider (``getProviderIdentifier``: label, else id)."""
    p = r.get("provider")
    if isinstance(p, Mapping):
        for key in ("label", "id"):
            v = _text(p.get(key))
            if v:
                return v
    return _text(p) or "provider"


def _prompt_label(r: Mapping[str, object]) -> str:
    p = r.get("prompt")
    if isinstance(p, Mapping):
        for key in ("label", "id", "raw"):
            v = _text(p.get(key))
            if v:
                return v[:80]
    return str(r.get("promptIdx", 0))


def _test_key(r: Mapping[str, object]) -> str:
    """What identifies a test across its repeats: the whole test case (description, vars, assertions) and vars."""
    return json.dumps({"t": r.get("testCase"), "v": r.get("vars")}, sort_keys=True, default=str)


def _description(r: Mapping[str, object]) -> str | None:
    tc = r.get("testCase")
    return _text(tc.get("description")) if isinstance(tc, Mapping) else None


def _index(v: object, fallback: int) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else fallback


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


def _provider_entries(doc: object) -> list[Mapping[str, object]] | None:
    """The providers of the file's ``config.providers`` as objects with ``id`` (and ``label``, ``config``), in
    order; None when the list is absent or holds an entry whose form is not known (a function, a file of
    providers), so that places in it cannot be trusted."""
    config = doc.get("config") if isinstance(doc, dict) else None
    providers = config.get("providers") if isinstance(config, Mapping) else None
    if not isinstance(providers, list):
        return None
    out: list[Mapping[str, object]] = []
    for p in providers:
        if isinstance(p, str):
            if p.startswith("file://") and p.endswith((".yaml", ".yml", ".json")):
                return None  # a file of providers: the list is longer than it looks
            out.append({"id": p})
        elif isinstance(p, Mapping) and isinstance(p.get("id"), str):
            out.append(p)
        elif isinstance(p, Mapping) and len(p) == 1 and isinstance(next(iter(p.values())), Mapping):
            pid, options = next(iter(p.items()))  # the {"openai:gpt-4o": {config: ...}} form
            out.append({"id": str(pid), **options})
        else:
            return None
    return out


def _value(v: object) -> str:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True, separators=(",", ":"), default=str)


def _settings(entries: list[Mapping[str, object]]) -> list[str] | None:
    """``key=value`` of the fewest ``config`` keys (in file order) whose values tell the providers apart, one text
    per provider; None when no short text does."""
    configs: list[Mapping[str, object]] = []
    for e in entries:
        c = e.get("config")
        configs.append(c if isinstance(c, Mapping) else {})
    keys = list(dict.fromkeys(str(k) for c in configs for k in c))
    differ = [k for k in keys if len({_value(c.get(k)) for c in configs}) > 1]
    for n in range(1, len(differ) + 1):
        texts = [", ".join(f"{k}={_value(c[k])}" for k in differ[:n] if k in c) for c in configs]
        if len(set(texts)) == len(texts):
            return texts if all(0 < len(t) <= _SETTINGS_CHARS for t in texts) else None
    return None


def _config_names(
    columns: list[tuple[str, str, object]], several_prompts: bool, doc: object
) -> tuple[dict[tuple[str, str, object], str], list[str]]:
    """The config name of each column (provider name, prompt label, promptIdx), and notes on names made up."""
    suffix = {c: (f" | {c[1]}" if several_prompts else "") for c in columns}
    by_name: dict[str, list[tuple[str, str, object]]] = {}
    for c in columns:
        by_name.setdefault(c[0] + suffix[c], []).append(c)
    names = {c: c[0] + suffix[c] for c in columns}
    notes: list[str] = []
    entries = _provider_entries(doc)
    for group in (g for g in by_name.values() if len(g) > 1):
        provider = group[0][0]
        same = [e for e in entries or [] if (_text(e.get("label")) or _text(e.get("id"))) == provider]
        texts = _settings(same) if len(same) == len(group) else None
        for place, c in enumerate(group, start=1):
            names[c] = f"{provider} ({texts[place - 1]})" if texts else f"{provider} #{place}"
            names[c] += suffix[c]
        how = "by the settings that differ in config.providers" if texts else "by their place (#1, #2, ...)"
        notes.append(
            f"{len(group)} providers share the name {provider} (same id, no label): they are kept apart as promptfoo "
            f"does (promptIdx) and named {how}; give each a label in promptfooconfig.yaml to name them"
        )
    if len(set(names.values())) < len(names):  # a made-up name that another provider already has
        names = {c: f"{n} [promptIdx {c[2]}]" for c, n in names.items()}
    return names, notes


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
    """Read a parsed promptfoo output document into one :class:`Run` per config (promptfoo's column: provider and
    prompt, ``promptIdx``), the repeats of a test as its samples (the mapping is in the module docstring).

    correct = ``success``; an error is ``failureReason`` == 2 only; latency_s = ``latencyMs`` / 1000.

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
    results: list[Mapping[str, object]] = []
    for i, r in enumerate(items):
        if not isinstance(r, dict):
            raise fail(name, f"result {i:,} is a JSON {type(r).__name__}, not an object")
        if not isinstance(r.get("success"), bool):
            raise fail(name, f"result {i:,} has no true/false success ({r.get('success')!r}): export the results again")
        results.append(r)
    order = [_index(r.get("testIdx"), i) for i, r in enumerate(results)]
    keys = [_test_key(r) for r in results]
    first: dict[str, int] = {}
    for key, idx in zip(keys, order, strict=True):
        first[key] = min(idx, first.get(key, idx))
    tests = sorted(first, key=first.__getitem__)
    description = {k: _description(r) for k, r in zip(keys, results, strict=True)}
    labels = [description[k] for k in tests]
    use_description = all(labels) and len(set(labels)) == len(labels)
    case_of = {k: (description[k] if use_description else str(n)) or str(n) for n, k in enumerate(tests)}
    rank = {k: n for n, k in enumerate(tests)}

    column = [(_provider(r), _prompt_label(r), r.get("promptIdx")) for r in results]
    appearance = list(dict.fromkeys(column))
    columns = sorted(appearance, key=lambda c: (_index(c[2], len(appearance)), appearance.index(c)))
    names, notes = _config_names(columns, len({c[1] for c in columns}) > 1, doc)

    by_config: dict[str, _Columns] = {names[c]: _Columns() for c in columns}
    seen: dict[tuple[str, str], int] = {}
    per_config: dict[str, int] = dict.fromkeys(by_config, 0)
    for i in sorted(range(len(results)), key=lambda i: (rank[keys[i]], order[i], i)):
        r = results[i]
        config, case = names[column[i]], case_of[keys[i]]
        n = seen.get((config, case), 0) + 1
        seen[(config, case)] = n
        is_error = r.get("failureReason") == _ERROR
        per_config[config] += is_error
        cols = by_config[config]
        cols.case.append(case)
        cols.sample.append(n)
        cols.correct.append(int(bool(r["success"])))
        cols.answer.append(_output(r))
        cols.latency_s.append(_number(r.get("latencyMs"), 1e-3))
        cols.cost.append(_number(r.get("cost")))
    runs = []
    for config, cols in by_config.items():
        frame = run_frame(cols.case, cols.sample, cols.correct, cols.answer, None, cols.latency_s, cols.cost)
        runs.append(Run(TOOL, name, config, "promptfoo", frame, tuple(notes), per_config[config]))
    return runs
