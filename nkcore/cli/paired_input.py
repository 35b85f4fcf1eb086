"""``compare``'s input: one paired-results table, or evaluation-harness outputs read as one (also ``plan --from``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from nkcore.errors import DataError
from nkcore.harness import read_harness
from nkcore.harness.files import path_tool, read_paths
from nkcore.io import read_table

__all__ = ["read_compare_input"]


def read_compare_input(paths: Sequence[Path], metric: str | None = None) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The paired-results table of ``compare``'s files, and the notes from reading them.

    One file that is not an evaluation-harness output is read as a paired-results table (CSV/TSV/Parquet/JSONL);
    harness outputs (one or several, of one tool) are read with :func:`nkcore.harness.read_harness`, each
    file's model a config.
    """
    paths = list(paths)
    if len(paths) == 1 and path_tool(paths[0]) is None:
        if metric is not None:
            raise DataError("--metric applies to lm-evaluation-harness samples files; this is a paired-results table")
        return read_table(paths[0]), ()
    for path in paths:
        if path_tool(path) is None:
            raise DataError(
                f"{path}: not an evaluation-harness output; several files are read together only when each is one "
                "(lm-evaluation-harness samples_*.jsonl, inspect_ai .eval/.json, promptfoo results.json): "
                "give one paired-results file otherwise"
            )
    res = read_harness(read_paths(paths), metric=metric)
    if res.paired is None:
        raise DataError(
            f"these files hold one config ({', '.join(res.configs)}): a paired comparison needs two, "
            "give one file per model or run"
        )
    return res.paired, res.notes
