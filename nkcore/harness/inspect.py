"""inspect_ai evaluation logs (``.eval`` and ``.json``) read as one config's per-sample results.

Read with inspect_ai's own models (``EvalLog`` for the header, ``EvalSample`` for each sample, format of inspect_ai
0.3: log version 2), an optional dependency (``pip install -e .[inspect]``), one sample at a time under the limits: a
``.eval`` archive's entries are counted, named plainly and inflated in steps (:mod:`nkcore.io.archive`), each entry's
JSON scanned (depth, values) before it is parsed, and only the fields read here (id, epoch, target, scores, output,
total_time, error) validated, so memory holds one sample, not the log. Epochs run from 1 to the
``samples_per_case`` limit. The log's model (``log.eval.model``) is the config; each
sample (``id``, ``epoch``, ``scores`` by scorer, ``output``, ``target``, ``total_time``) is one sample of case
``id``: several epochs of a case are several samples (every epoch is kept; the case is the unit). Correct = the
score of the first scorer (or the one asked for), mapped as inspect_ai's ``value_to_float`` maps it: ``C`` = 1,
``I`` = 0 (CORRECT / INCORRECT), ``N`` = 0 (NOANSWER), ``P`` = 0.5 (PARTIAL), booleans, the words of
:mod:`nkcore.common.truth`, and numbers between 0 and 1 as they are (partial credit, numeric scorers); a number
outside [0, 1] is refused unless a threshold is given. With a threshold every value is read as right/wrong:
correct = value >= threshold. Samples that ended in an error have no score and are left out (a note names the
model and says how many: :func:`nkcore.harness.reading.error_note`).
"""

from __future__ import annotations

import io
import math
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from nkcore.common import limits
from nkcore.common.truth import FALSE_WORDS, TRUE_WORDS
from nkcore.errors import DataError, plain_reason
from nkcore.harness.reading import fail, limit, load_json, plain_bytes, visible
from nkcore.harness.result import Run, run_frame
from nkcore.io.archive import Archive, entry_count, open_archive
from nkcore.io.json_safe import JsonBudget

__all__ = ["INSTALL_HINT", "is_eval_zip", "looks_like_log", "read_log", "score_value"]

TOOL = "inspect"
INSTALL_HINT = "pip install -e .[inspect]"
_LETTERS = {"C": 1.0, "I": 0.0, "N": 0.0, "P": 0.5}
_ZIP_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True, slots=True)
class _Sample:
    """The fields read of one sample (the rest of it is dropped as soon as it is validated)."""

    id: object
    epoch: int
    scores: Any
    completion: object
    target: object
    total_time: object


def is_eval_zip(data: bytes) -> bool:
    """True for an inspect_ai ``.eval`` archive: a ZIP whose entries include ``header.json`` or ``_journal/``
    (an archive of more entries than the limit allows is not listed: it is one when those names are in it, and
    :func:`read_log` refuses it)."""
    if not data.startswith(_ZIP_MAGIC):
        return False
    count = entry_count(data)
    if count is not None and count > limits.get("archive_entries"):
        return b"header.json" in data or b"_journal/" in data
    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except Exception:  # zipfile raises several unrelated types for a damaged archive
        return False
    return any(n == "header.json" or n.startswith("_journal/") for n in names)


def looks_like_log(obj: object) -> bool:
    """True for a parsed inspect_ai ``.json`` log: ``version``, ``status`` and an ``eval`` object with a model.

    >>> looks_like_log({"version": 2, "status": "success", "eval": {"model": "mockllm/model", "task": "t"}})
    True
    """
    return (
        isinstance(obj, dict)
        and "version" in obj
        and "status" in obj
        and isinstance(obj.get("eval"), dict)
        and "model" in obj["eval"]
    )


def score_value(value: object, threshold: float | None = None) -> float | None:
    """A score value as a credit in [0, 1] (inspect_ai's ``value_to_float``: C 1, I 0, N 0, P 0.5, numbers as
    they are), or right/wrong (1.0 / 0.0, value >= threshold) when a threshold is given; None when it is neither
    (a number outside [0, 1], text that is no score) and no threshold is given.

    >>> [score_value(v) for v in ("C", "I", "N", True, 0, "yes", "P", 0.7, 3.0)]
    [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.5, 0.7, None]
    >>> score_value("P", threshold=0.5), score_value(0.7, threshold=0.8)
    (1.0, 0.0)
    """
    number: float | None = None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if text in _LETTERS:
            number = _LETTERS[text]
        elif text.lower() in TRUE_WORDS:
            return 1.0
        elif text.lower() in FALSE_WORDS:
            return 0.0
        else:
            try:
                number = float(text)
            except ValueError:
                return None
    if number is None or not math.isfinite(number):
        return None
    if threshold is not None:
        return float(number >= threshold)
    return number if 0.0 <= number <= 1.0 else None


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or "(no answer)"
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0].strip() or "(no answer)"
    return None


_SAMPLE_FIELDS = ("id", "epoch", "target", "scores", "output", "total_time", "error")


def _validator() -> tuple[Any, Any, dict[str, Any]]:
    """inspect_ai's EvalLog and EvalSample models and its deserializing context (ImportError when not installed)."""
    from inspect_ai.log import EvalLog, EvalSample

    try:
        from inspect_ai._util.constants import get_deserializing_context

        context: dict[str, Any] = get_deserializing_context()
    except ImportError:  # pragma: no cover - other inspect_ai versions
        context = {}
    return EvalLog, EvalSample, context


def _json_entry(archive: Archive, entry: str, name: str, budget: JsonBudget) -> object:
    """One archive entry's JSON: inflated under the archive's budget, scanned (depth, values: spent from the
    archive's one ``budget``, so many entries each under the limit cannot add up past it), then parsed."""
    raw = archive.read(entry)
    try:
        return load_json(
            raw, entry, max_bytes=limits.get("unpacked_bytes"), budget=budget, what=f"the archive up to {entry}"
        )
    except DataError as exc:
        if budget.used > budget.cap:  # the archive's count: its sentence names the archive and the entry
            raise
        raise fail(name, f"not a readable inspect_ai log ({exc})") from None


def _archive_documents(name: str, data: bytes) -> tuple[object, Iterator[object]]:
    """(header document, its samples' documents one at a time) of an ``.eval`` archive."""
    archive = open_archive(data, name)
    budget = JsonBudget(name)  # one count of JSON values for the whole archive (the request)
    if "header.json" in archive.entries:
        header = _json_entry(archive, "header.json", name, budget)
    elif "_journal/start.json" in archive.entries:
        start = _json_entry(archive, "_journal/start.json", name, budget)
        header = (
            {k: v for k, v in start.items() if k in ("version", "eval", "plan")} if isinstance(start, dict) else start
        )
    else:
        raise fail(name, "the archive has neither header.json nor _journal/start.json: upload the log inspect_ai wrote")
    names = [n for n in archive.entries if n.startswith("samples/") and n.endswith(".json")]
    limit(name, "rows", len(names), "the log")

    def samples() -> Iterator[object]:
        for entry in names:
            yield _json_entry(archive, entry, name, budget)

    return header, samples()


def _json_documents(name: str, data: bytes) -> tuple[object, Iterator[object]]:
    """(header document, its samples' documents) of a ``.json`` log: parsed once, each sample dropped once read."""
    doc = load_json(data, name, max_bytes=len(data))
    if not isinstance(doc, dict):
        raise fail(name, f"not a readable inspect_ai log (a JSON {type(doc).__name__}, not an object)")
    listed = doc.pop("samples", None)
    found: list[object] = listed if isinstance(listed, list) else []
    limit(name, "rows", len(found), "the log")

    def samples() -> Iterator[object]:
        for i in range(len(found)):
            one, found[i] = found[i], None
            yield one

    return doc, samples()


def _unreadable(name: str, exc: Exception, where: str = "the log's header") -> DataError:
    return fail(name, f"not a readable inspect_ai log: in {where}, {plain_reason(exc)}")


def _order(sample_id: object, epoch: int) -> tuple[int, str]:
    """inspect_ai's order of samples (``sort_samples``): epoch, then id (numbers zero-filled)."""
    return epoch, sample_id if isinstance(sample_id, str) else str(sample_id).zfill(20)


def read_log(
    name: str, data: bytes, scorer: str | None = None, threshold: float | None = None, config: str | None = None
) -> Run:
    """Read one inspect_ai log (``.eval`` archive or ``.json``) into a :class:`Run`: case = sample ``id``,
    sample = ``epoch``, correct = the scorer's value, answer = the score's ``answer`` (else the completion),
    gold = ``target``, latency_s = ``total_time``. ``config`` overrides the log's model name. A gzipped ``.json``
    log (``.json.gz``) is unpacked first."""
    data = plain_bytes(name, data)
    try:
        eval_log, eval_sample, context = _validator()
    except ImportError:
        raise fail(name, f"reading inspect_ai logs needs the inspect_ai package: {INSTALL_HINT}") from None
    zipped = data.startswith(_ZIP_MAGIC)
    header, documents = _archive_documents(name, data) if zipped else _json_documents(name, data)
    if isinstance(header, dict):
        header = {k: v for k, v in header.items() if k != "samples"}
    try:
        log: Any = eval_log.model_validate(header, context=context)
    except RecursionError:
        raise fail(name, "the log is nested too deeply to read") from None
    except Exception as exc:  # pydantic raises ValidationError and ValueError
        raise _unreadable(name, exc) from None
    model = visible(str(getattr(log.eval, "model", "") or ""))
    task = str(getattr(log.eval, "task", "") or "").strip() or "task"
    epoch_cap = limits.get("samples_per_case")
    rows_cap = limits.get("rows")
    read: list[tuple[tuple[int, str], Any]] = []
    for doc in documents:
        if not isinstance(doc, dict):
            raise fail(name, f"sample {len(read) + 1:,} is a JSON {type(doc).__name__}, not an object")
        try:
            s = eval_sample.model_validate(
                {k: doc[k] for k in _SAMPLE_FIELDS if k in doc} | {"input": ""}, context=context
            )
        except RecursionError:
            raise fail(name, "the log is nested too deeply to read") from None
        except Exception as exc:  # pydantic raises ValidationError and ValueError
            sample = f"sample {len(read) + 1:,}" + (f" (id {str(doc.get('id'))[:40]!r})" if "id" in doc else "")
            raise _unreadable(name, exc, sample) from None
        epoch = s.epoch
        if not isinstance(epoch, int) or not 1 <= epoch <= epoch_cap:
            lim = limits.LIMITS["samples_per_case"]
            raise fail(
                name,
                f"sample {str(s.id)[:80]} has epoch {epoch!r}; epochs run from 1 to {epoch_cap:,} "
                f"(server setting {lim.env}): upload the log inspect_ai wrote",
            )
        if len(read) >= rows_cap:
            limit(name, "rows", len(read) + 1, "the log", more_than=True)
        read.append(
            (
                _order(s.id, epoch),
                _Sample(
                    s.id,
                    epoch,
                    s.scores,
                    getattr(s.output, "completion", None),
                    s.target,
                    getattr(s, "total_time", None),
                ),
            )
        )
    if zipped:
        read.sort(key=lambda pair: pair[0])
    samples = [one for _, one in read]
    if not samples:
        raise fail(
            name,
            f"the log holds no samples (status {log.status}): upload a log of a finished eval, written with samples",
        )
    chosen = scorer
    cases: list[str] = []
    epochs: list[int] = []
    correct: list[float] = []
    answers: list[str | None] = []
    golds: list[str | None] = []
    latency: list[float] = []
    errors = 0
    scorers: list[str] = []
    for s in samples:
        scores = s.scores or {}
        if not scores:
            errors += 1
            continue
        if not scorers:
            scorers = list(scores)
        if chosen is None:
            chosen = scorers[0]
        if chosen not in scores:
            raise fail(
                name, f"sample {s.id} (epoch {s.epoch}) has no score {chosen!r}; its scorers are {', '.join(scores)}"
            )
        score = scores[chosen]
        v = score_value(score.value, threshold)
        if v is None:
            raise fail(
                name,
                f"scorer {chosen!r} gives {score.value!r} for sample {s.id} (epoch {s.epoch}), not a score between 0 "
                "and 1 (C/I/P/N, 0 to 1, true/false): choose another scorer or give a threshold",
            )
        cases.append(str(s.id))
        epochs.append(s.epoch)
        correct.append(v)
        answers.append(_text(score.answer) or _text(s.completion))
        golds.append(_text(s.target))
        t = s.total_time
        latency.append(float(t) if isinstance(t, (int, float)) and math.isfinite(t) and t >= 0 else math.nan)
    if not cases:
        raise fail(name, f"no sample in the log has a score ({errors} ended in an error): score the eval first")
    notes = [f"{task}: scorer {chosen} used" + (f" (of {', '.join(scorers)})" if len(scorers) > 1 else "")]
    if threshold is not None:
        notes[0] += f", correct when >= {threshold:g}"
    elif any(v not in (0.0, 1.0) for v in correct):
        notes.append(f"{task}: scores between 0 and 1 kept as partial credit (C = 1, P = 0.5, I and N = 0)")
    frame = run_frame(cases, epochs, correct, answers, golds, latency)
    return Run(TOOL, name, config or model or name, task, frame, tuple(notes), errors)
