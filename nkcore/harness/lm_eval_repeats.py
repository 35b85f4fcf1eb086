"""lm-evaluation-harness repeats (a task's ``repeats: K``): how a samples file lays them out and whether each
repeat can be re-scored as lm-eval scores it (:mod:`nkcore.harness.lm_eval` reads the file).

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
from collections.abc import Mapping
from dataclasses import dataclass

from nkcore.harness.reading import fail


def metric_value(name: str, rec: Mapping[str, object], metric: str, lineno: int) -> float:
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


@dataclass(frozen=True, slots=True)
class Repeats:
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


def layout_of(records: list[tuple[int, dict[str, object]]], chosen_filter: str) -> Repeats | None:
    """The repeats of a file's records, or None when every request has one response."""
    gens = [_generation(rec) for _, rec in records]
    if any(g is None for g in gens):
        counts = [0]
        for _, rec in records:
            resps = rec.get("resps")
            if isinstance(resps, list):
                counts.extend(len(r) for r in resps if isinstance(r, list))
        return Repeats("loglikelihood", max(counts)) if max(counts) > 1 else None
    pairs = [g for g in gens if g is not None]
    count = max(len(raw) for raw, _ in pairs)
    if count == 1:
        return None
    if all(isinstance(kept, list) and len(kept) > 1 for _, kept in pairs):
        return Repeats("filtered", count)
    if chosen_filter == "none" and all(isinstance(kept, str) and kept == raw[0] for raw, kept in pairs):
        return Repeats("first", count)
    return Repeats("combined", count)


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
class Rescored:
    """Per-repeat rows re-scored from the responses (the columns of :func:`run_frame`)."""

    case: list[str]
    sample: list[int]
    correct: list[int]
    answer: list[str | None]
    gold: list[str | None]


def rescore(name: str, records: list[tuple[int, dict[str, object]]], cases: list[str], kind: str) -> Rescored | str:
    """Each repeat compared with ``target`` as exact_match does, checked against the logged exact_match of every
    document; the reason as text when a document's check fails."""
    out = Rescored([], [], [], [], [])
    for (lineno, rec), case in zip(records, cases, strict=True):
        pair = _generation(rec)
        gold = _gold(rec.get("target"))
        if pair is None or gold is None:
            return f"the target of doc_id {case} is {rec.get('target')!r}, not a text"
        raw, kept = pair
        answers = kept if kind == "filtered" and isinstance(kept, list) else raw
        scores = [int(_same(a, gold)) for a in answers]
        logged = metric_value(name, rec, "exact_match", lineno)
        expected = sum(scores) / len(scores) if kind == "filtered" else float(scores[0])
        if abs(logged - expected) > 1e-9:
            return f"doc_id {case}: exact_match is {logged:g} but the responses equal to target give {expected:g}"
        out.case.extend([case] * len(answers))
        out.sample.extend(range(1, len(answers) + 1))
        out.correct.extend(scores)
        out.answer.extend(answers)
        out.gold.extend([gold] * len(answers))
    return out


def repeat_note(task: str, layout: Repeats, chosen_filter: str, n_docs: int, scored: int) -> str:
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


def one_row_note(task: str, layout: Repeats, chosen_filter: str, metric: str, why: str = "") -> str:
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
