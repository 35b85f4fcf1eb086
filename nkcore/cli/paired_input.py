"""``compare``'s input: one paired-results table, or evaluation-harness outputs read as one (also ``plan --from``).

The notes of a harness read are about every config in the files; :meth:`CompareInput.notes_for` keeps those about
the two configs compared (an error of a third provider is not printed under a comparison of two others).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from nkcore.errors import DataError
from nkcore.harness import read_harness
from nkcore.harness.files import path_tool, read_paths
from nkcore.harness.reading import notes_for
from nkcore.io import read_table

__all__ = ["CompareInput", "read_compare_files", "read_compare_input"]


@dataclass(frozen=True, slots=True, eq=False)
class CompareInput:
    """``compare``'s files read: the paired-results ``frame``, the ``notes`` from reading them, and for harness
    files the ``tool``, its ``configs`` and ``errors`` (per config, the results that ended in an error)."""

    frame: pd.DataFrame
    notes: tuple[str, ...] = ()
    tool: str | None = None
    configs: tuple[str, ...] = ()
    errors: tuple[int, ...] = ()

    def notes_for(self, compared: Collection[str]) -> tuple[str, ...]:
        """The notes without the error notes of the configs not compared
        (:func:`nkcore.harness.reading.notes_for`)."""
        if self.tool is None:
            return self.notes
        return notes_for(self.notes, self.tool, self.configs, self.errors, compared)


def read_compare_files(paths: Sequence[Path], metric: str | None = None, filter: str | None = None) -> CompareInput:
    """``compare``'s files read (see :func:`read_compare_input`); ``filter`` picks an lm-evaluation-harness filter."""
    paths = list(paths)
    if len(paths) == 1 and path_tool(paths[0]) is None:
        for flag, value in (("--metric", metric), ("--filter", filter)):
            if value is not None:
                raise DataError(
                    f"{flag} applies to lm-evaluation-harness samples files; this is a paired-results table"
                )
        return CompareInput(read_table(paths[0]))
    for path in paths:
        if path_tool(path) is None:
            raise DataError(
                f"{path}: not an evaluation-harness output; several files are read together only when each is one "
                "(lm-evaluation-harness samples_*.jsonl, inspect_ai .eval/.json, promptfoo results.json): "
                "give one paired-results file otherwise"
            )
    res = read_harness(read_paths(paths), metric=metric, filter=filter)
    if res.paired is None:
        raise DataError(
            f"these files hold one config ({', '.join(res.configs)}): a paired comparison needs two, "
            "give one file per model or run"
        )
    return CompareInput(res.paired, res.notes, res.tool, res.configs, res.errors)


def read_compare_input(
    paths: Sequence[Path], metric: str | None = None, filter: str | None = None
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The paired-results table of ``compare``'s files, and the notes from reading them.

    One file that is not an evaluation-harness output is read as a paired-results table (CSV/TSV/Parquet/JSONL);
    harness outputs (one or several, of one tool) are read with :func:`nkcore.harness.read_harness`, each
    file's model a config.
    """
    read = read_compare_files(paths, metric, filter)
    return read.frame, read.notes
