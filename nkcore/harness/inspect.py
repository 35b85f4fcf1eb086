"""inspect_ai evaluation logs (``.eval`` and ``.json``) read as one config's per-sample results.

Read with inspect_ai's own reader (``inspect_ai.log.read_eval_log``, format of inspect_ai 0.3: log version 2), an
optional dependency (``pip install -e .[inspect]``). The log's model (``log.eval.model``) is the config; each
sample (``id``, ``epoch``, ``scores`` by scorer, ``output``, ``target``, ``total_time``) is one sample of case
``id``: several epochs of a case are several samples (every epoch is kept; the case is the unit). Correct = the
score of the first scorer (or the one asked for), mapped as inspect_ai's ``value_to_float`` maps it: ``C`` = 1,
``I`` = 0 (CORRECT / INCORRECT), ``N`` = 0 (NOANSWER), ``P`` = 0.5 (PARTIAL), booleans, the words of
:mod:`nkcore.common.truth`, and numbers between 0 and 1 as they are (partial credit, numeric scorers); a number
outside [0, 1] is refused unless a threshold is given. With a threshold every value is read as right/wrong:
correct = value >= threshold. Samples that ended in an error have no score and are left out (a note says how
many).
"""

from __future__ import annotations

import asyncio
import io
import math
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from nkcore.common import limits
from nkcore.common.truth import FALSE_WORDS, TRUE_WORDS
from nkcore.harness.reading import fail, limit, load_json, plain_bytes
from nkcore.harness.result import Run, run_frame

T = TypeVar("T")

__all__ = ["INSTALL_HINT", "is_eval_zip", "looks_like_log", "read_log", "score_value"]

TOOL = "inspect"
INSTALL_HINT = "pip install -e .[inspect]"
_LETTERS = {"C": 1.0, "I": 0.0, "N": 0.0, "P": 0.5}
_ZIP_MAGIC = b"PK\x03\x04"


def is_eval_zip(data: bytes) -> bool:
    """True for an inspect_ai ``.eval`` archive: a ZIP whose entries include ``header.json`` or ``_journal/``."""
    if not data.startswith(_ZIP_MAGIC):
        return False
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


def _check_zip(name: str, data: bytes) -> None:
    """Refuse an archive whose entries unpack past the unpacked-size or ratio limit (before any is read)."""
    try:
        infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except Exception as exc:  # zipfile raises several unrelated types for a damaged archive
        raise fail(name, f"not a readable .eval archive ({exc}): upload the log inspect_ai wrote") from None
    total = sum(i.file_size for i in infos)
    limit(name, "unpacked_bytes", total, "the archive")
    cap = limits.get("gzip_ratio")
    if total > cap * max(len(data), 1):
        lim = limits.LIMITS["gzip_ratio"]
        raise fail(
            name,
            f"the archive unpacks to {total / max(len(data), 1):,.0f} {lim.unit}; the limit is {cap:,} "
            f"(server setting {lim.env}): {lim.hint}",
        )


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or "(no answer)"
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0].strip() or "(no answer)"
    return None


def _outside_event_loop(func: Callable[[], T]) -> T:
    """``func()``, on a worker thread when this thread already runs an asyncio loop (a notebook, an async caller):
    inspect_ai's reader starts a loop of its own, which a running loop forbids."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return func()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(func).result()


def read_log(
    name: str, data: bytes, scorer: str | None = None, threshold: float | None = None, config: str | None = None
) -> Run:
    """Read one inspect_ai log (``.eval`` archive or ``.json``) into a :class:`Run`: case = sample ``id``,
    sample = ``epoch``, correct = the scorer's value, answer = the score's ``answer`` (else the completion),
    gold = ``target``, latency_s = ``total_time``. ``config`` overrides the log's model name. A gzipped ``.json``
    log (``.json.gz``) is unpacked first."""
    data = plain_bytes(name, data)
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise fail(name, f"reading inspect_ai logs needs the inspect_ai package: {INSTALL_HINT}") from None
    zipped = data.startswith(_ZIP_MAGIC)
    if zipped:
        _check_zip(name, data)
    else:
        load_json(data, name, max_bytes=len(data))  # size, depth and validity checked before inspect_ai parses it
    try:
        log: Any = _outside_event_loop(lambda: read_eval_log(io.BytesIO(data), format="eval" if zipped else "json"))
    except RecursionError:
        raise fail(name, "the log is nested too deeply to read") from None
    except Exception as exc:  # inspect_ai raises pydantic, zip and JSON errors of several types
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        raise fail(name, f"not a readable inspect_ai log ({type(exc).__name__}: {first})") from None
    model = str(getattr(log.eval, "model", "") or "").strip()
    task = str(getattr(log.eval, "task", "") or "").strip() or "task"
    samples = list(log.samples or [])
    if not samples:
        raise fail(
            name,
            f"the log holds no samples (status {log.status}): upload a log of a finished eval, written with samples",
        )
    limit(name, "rows", len(samples), "the log")
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
        epochs.append(int(s.epoch or 1))
        correct.append(v)
        answers.append(_text(score.answer) or _text(getattr(s.output, "completion", None)))
        golds.append(_text(s.target))
        t = getattr(s, "total_time", None)
        latency.append(float(t) if isinstance(t, (int, float)) and math.isfinite(t) and t >= 0 else math.nan)
    if not cases:
        raise fail(name, f"no sample in the log has a score ({errors} ended in an error): score the eval first")
    notes = [f"{task}: scorer {chosen} used" + (f" (of {', '.join(scorers)})" if len(scorers) > 1 else "")]
    if threshold is not None:
        notes[0] += f", correct when >= {threshold:g}"
    elif any(v not in (0.0, 1.0) for v in correct):
        notes.append(f"{task}: scores between 0 and 1 kept as partial credit (C = 1, P = 0.5, I and N = 0)")
    if errors:
        notes.append(
            f"{task}: {errors} sample{'s' if errors != 1 else ''} ended in an error and {'were' if errors != 1 else 'was'} left out"
        )
    frame = run_frame(cases, epochs, correct, answers, golds, latency)
    return Run(TOOL, name, config or model or name, task, frame, tuple(notes), errors)
