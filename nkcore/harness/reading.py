"""Safe reading for the harness readers: size, line-length and nesting-depth limits, gzip, one-line errors.

Every limit comes from :mod:`nkcore.common.limits` (``file_bytes``, ``unpacked_bytes``, ``gzip_ratio``,
``line_bytes``, ``json_depth``, ``rows``); a file over one, or one that is not valid JSON, raises ``DataError``
naming the file and how to fix it. Nothing here is a second reader: one JSON document is read by
:func:`nkcore.io.load_json`, JSON Lines by :func:`nkcore.io.iter_json_lines` and gzip by :func:`nkcore.io.unpack`
(re-exported here with :func:`nkcore.io.fail`, :func:`nkcore.io.limit` and :func:`nkcore.io.line_too_long` as
``long_line``, for the harness readers).

Beside them, the few sentences and names every reader shares: :func:`visible` (a name without its invisible
characters), :func:`error_note` (the results of one config that ended in an error), :func:`tasks_note` (several
tasks read together) and :func:`notes_for` (the notes about the configs being compared, for the CLI).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from nkcore.common.formatting import name_list, plural
from nkcore.io import fail, iter_json_lines, limit, load_json, unpack
from nkcore.io import line_too_long as long_line

__all__ = [
    "check_file_size",
    "error_note",
    "fail",
    "iter_json_lines",
    "limit",
    "load_json",
    "long_line",
    "notes_for",
    "plain_bytes",
    "tasks_note",
    "unpack",
    "visible",
]

# Zero-width and invisible format characters a name can carry unseen (copied from a web page, a label typed in a
# rich editor): zero-width space, non-joiner and joiner (U+200B-U+200D), word joiner and the invisible operators
# (U+2060-U+2064), the byte-order mark / zero-width no-break space (U+FEFF).
_INVISIBLE = re.compile("[\u200b-\u200d\u2060-\u2064\ufeff]")


def check_file_size(name: str, size: int) -> None:
    """Refuse a file over the ``file_bytes`` limit (before it is parsed).

    >>> check_file_size("a.jsonl", 10)
    """
    limit(name, "file_bytes", size, "the file")


def plain_bytes(name: str, data: bytes) -> bytes:
    """A file's bytes ready to parse: its size checked against ``file_bytes``, then gunzipped when it is gzip
    (``.jsonl.gz``, ``.json.gz``) under the unpacked-size and ratio limits (:func:`nkcore.io.unpack`).

    >>> import gzip
    >>> plain_bytes("a.jsonl.gz", gzip.compress(b'{"a": 1}'))
    b'{"a": 1}'
    """
    check_file_size(name, len(data))
    return unpack(data, name)


def visible(text: str) -> str:
    """``text`` without its invisible characters (U+200B-U+200D, U+2060-U+2064, U+FEFF) and outer spaces: a
    provider named ``"gpt-4o\u2060"`` is the config ``gpt-4o``, not a second one printed as ``gpt-4o\\u2060``.

    >>> visible("openai:gpt-4o\u2060 "), visible("\ufeffa\u200bb")
    ('openai:gpt-4o', 'ab')
    """
    return _INVISIBLE.sub("", text).strip()


# What becomes of a result that ended in an error, per tool (see each reader's docstring).
_ERROR_FATE = {
    "promptfoo": ("result", "the provider failed; counted as wrong"),
    "inspect": ("sample", "no score; left out"),
}


def error_note(tool: str, config: str, errors: int) -> str:
    """The sentence saying how many results of one config ended in an error, naming the config (the counts are
    per config, so a comparison of two configs without errors says nothing of a third's).

    >>> error_note("promptfoo", "openai:gpt-4o", 8)
    'openai:gpt-4o: 8 results ended in an error (the provider failed; counted as wrong)'
    >>> error_note("inspect", "mockllm/model", 1)
    'mockllm/model: 1 sample ended in an error (no score; left out)'
    """
    word, fate = _ERROR_FATE.get(tool, ("result", "see the file"))
    return f"{config}: {plural(errors, word)} ended in an error ({fate})"


def notes_for(
    notes: Sequence[str], tool: str, configs: Sequence[str], errors: Sequence[int], compared: Collection[str]
) -> tuple[str, ...]:
    """``notes`` of a harness read (:class:`nkcore.harness.HarnessResult`) without the error notes
    (:func:`error_note`) of the configs that are not ``compared``: what ``compare A B`` prints about A and B.

    >>> n = ("scorer match used", error_note("promptfoo", "c", 3))
    >>> notes_for(n, "promptfoo", ("a", "b", "c"), (0, 0, 3), {"a", "b"})
    ('scorer match used',)
    """
    other = {error_note(tool, c, e) for c, e in zip(configs, errors, strict=False) if e and c not in compared}
    return tuple(n for n in notes if n not in other)


def tasks_note(tasks: Sequence[str]) -> str:
    """The sentence saying that the files hold several tasks and how their cases are read: kept apart
    (``task/case``) and compared together, every case of every task counting once (a task group such as mmlu is
    then the mean over its documents, not over its tasks); one task alone is compared by uploading its files alone.

    >>> tasks_note(["arc_easy", "arc_challenge"])[:60]
    'the files hold 2 tasks (arc_easy, arc_challenge): their case'
    """
    return (
        f"the files hold {len(tasks)} tasks ({name_list(tasks)}): their cases are kept apart (task/case) and read "
        "together as one set of cases, each case counting once (a task group is pooled over its documents, not "
        "averaged task by task); give one task's files alone to read that task"
    )
