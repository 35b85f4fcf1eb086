"""Evaluation-harness files on disk (for the CLI): recognise a path, read paths with their lm-eval siblings.

lm-evaluation-harness writes ``results_<date>.json`` beside ``samples_<task>_<date>.jsonl``; when a samples file
is given, its sibling results file (same folder, same date) is read with it, so the config is named by the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.harness import detect_tool, lm_eval
from nkcore.harness.reading import check_file_size, fail
from nkcore.io.source import GZIP_MAGIC

__all__ = ["path_tool", "read_paths"]


def _size(path: Path) -> int:
    if not path.is_file():
        raise fail(str(path), "no such file")
    size = path.stat().st_size
    check_file_size(str(path), size)
    return size


def path_tool(path: Path) -> str | None:
    """The tool that wrote the file at ``path`` (see :func:`nkcore.harness.detect_tool`), reading only its first
    line (at most the line limit), or the whole file when it is a ZIP archive (an inspect_ai ``.eval``) or gzip
    (``.jsonl.gz``, ``.json.gz``: unpacked under the limits of :func:`nkcore.io.unpack`)."""
    _size(path)
    with path.open("rb") as fh:
        head = fh.read(limits.get("line_bytes") + 1)
    if head.startswith((b"PK\x03\x04", GZIP_MAGIC)):
        return detect_tool(path.read_bytes(), str(path))
    return detect_tool(head, str(path))


def read_paths(paths: Sequence[Path]) -> list[tuple[str, bytes]]:
    """(name, bytes) of each path, size-checked before reading, plus the ``results_<date>.json`` (or ``.json.gz``)
    beside each lm-evaluation-harness samples file that was not given (same folder, same date)."""
    if not paths:
        raise DataError("no files given")
    out: list[tuple[str, bytes]] = []
    given = {p.resolve() for p in paths}
    for path in paths:
        _size(path)
        out.append((str(path), path.read_bytes()))
    for path in paths:
        date = lm_eval.file_date(path.name)
        if date is None or not path.name.startswith("samples_"):
            continue
        sibling = next(
            (p for p in (path.with_name(f"results_{date}.json{gz}") for gz in ("", ".gz")) if p.is_file()), None
        )
        if sibling is not None and sibling.resolve() not in given:
            given.add(sibling.resolve())
            _size(sibling)
            out.append((str(sibling), sibling.read_bytes()))
    return out
