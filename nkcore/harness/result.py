"""The shared types of the harness readers: one file's results (:class:`Run`) and the combined :class:`HarnessResult`.

Every reader turns one tool's file into one or more :class:`Run` (one per config in the file): per-sample rows of
``case, sample, correct`` with the answer, gold, latency and cost when the tool records them.
:func:`nkcore.harness.read_harness` joins the runs of every uploaded file into NK Planner's paired-results frame
(``case, config, correct``) and, where a case has several samples, its raw-samples frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.evaluation import SamplesView, samples_view

__all__ = ["FIELDS", "REPEAT_WORD", "RUN_COLUMNS", "TOOLS", "TOOL_NAMES", "HarnessResult", "Run"]

TOOLS: tuple[str, ...] = ("lm_eval", "inspect", "promptfoo")
# Each tool's name as its users know it (for messages and the Data page).
TOOL_NAMES: dict[str, str] = {"lm_eval": "lm-evaluation-harness", "inspect": "inspect_ai", "promptfoo": "promptfoo"}
"""The tools whose files are read: lm-evaluation-harness, inspect_ai, promptfoo."""

#: How each tool's fields are read (the ``data FILE`` document and the README's mapping).
FIELDS: dict[str, dict[str, str]] = {
    "inspect": {
        "config": "log.eval.model (the file name when two logs share it)",
        "case": "the sample's id (cases of different tasks kept apart)",
        "repeat": "the sample's epoch: every epoch kept",
        "correct": "the first scorer's value (or --scorer): C 1, P 0.5, I 0, N 0, true/false, numbers in [0, 1] as "
        "they are (inspect_ai's value_to_float)",
        "error": "a sample with an error has no score and is left out",
        "latency_s": "the sample's total_time",
    },
    "promptfoo": {
        "config": "the provider's label, else its id (+ the settings that tell apart providers sharing an id), "
        "+ the prompt when the file has several",
        "case": "the test (description, vars, assertions): its description, else its place",
        "repeat": "the test's repeats (--repeat): each repeat's own testIdx, in order",
        "correct": "success",
        "error": "failureReason 2 only (a failed assertion is an ordinary wrong answer)",
        "latency_s": "latencyMs / 1000; cost: cost (dollars per call)",
    },
    "lm_eval": {
        "config": "the model its records name, else that of the results_<date>.json uploaded with it, else its "
        "folder (lm-eval's model folder), else the file name (with a note asking for the results files)",
        "case": "doc_id (cases of different tasks kept apart)",
        "repeat": "the task's repeats, when each can be re-scored as exact_match scores it; else one per document",
        "correct": "acc, then exact_match, then the first 0/1 metric (or --metric)",
        "error": "none recorded",
        "latency_s": "not recorded",
    },
}

#: What each tool calls a case's repeats: the name of the repeat column of its paired results.
REPEAT_WORD: dict[str, str] = {"lm_eval": "repeat", "inspect": "epoch", "promptfoo": "repeat"}

RUN_COLUMNS: tuple[str, ...] = ("case", "sample", "correct", "answer", "gold", "latency_s", "cost")
"""The columns of :attr:`Run.rows`: case id (text), sample (1, 2, ... in the order drawn), correct (0/1, or a
score between 0 and 1 for partial credit), the
answer and gold (text, or None where the tool has none), latency_s (seconds) and cost (dollars), NaN when absent."""


@dataclass(frozen=True, slots=True, eq=False)
class Run:
    """One config's results read from one file.

    ``tool`` is one of :data:`TOOLS`; ``source`` the file's name; ``config`` the model (or provider) named in the
    file; ``task`` the evaluation task (cases of different tasks are kept apart); ``rows`` a frame with
    :data:`RUN_COLUMNS`; ``notes`` plain sentences about choices made while reading (the metric used...).
    """

    tool: str
    source: str
    config: str
    task: str
    rows: pd.DataFrame
    notes: tuple[str, ...] = ()
    errors: int = 0  # results of this config that ended in an error (counted as wrong, or left out: see notes)

    def renamed(self, config: str) -> Run:
        """The same run under another config name."""
        return Run(self.tool, self.source, config, self.task, self.rows, self.notes, self.errors)


def run_frame(
    case: list[str],
    sample: list[int],
    correct: list[int] | list[float],
    answer: list[str | None] | None = None,
    gold: list[str | None] | None = None,
    latency_s: list[float] | None = None,
    cost: list[float] | None = None,
) -> pd.DataFrame:
    """The rows of a :class:`Run` from per-sample lists (missing columns filled with None / NaN)."""
    n = len(case)
    nan = np.full(n, np.nan)
    return pd.DataFrame(
        {
            "case": pd.Series(case, dtype=object),
            "sample": np.asarray(sample, dtype=np.int64),
            "correct": _correct_column(correct),
            "answer": pd.Series(answer if answer is not None else [None] * n, dtype=object),
            "gold": pd.Series(gold if gold is not None else [None] * n, dtype=object),
            "latency_s": np.asarray(latency_s, dtype=float) if latency_s is not None else nan,
            "cost": np.asarray(cost, dtype=float) if cost is not None else nan.copy(),
        }
    )


def _correct_column(correct: list[int] | list[float]) -> np.ndarray:
    """0/1 results as int8 (as always); scores between 0 and 1 (partial credit) as float."""
    values = np.asarray(correct, dtype=float)
    if np.all((values == 0.0) | (values == 1.0)):
        return values.astype(np.int8)
    return values


@dataclass(frozen=True, slots=True, eq=False)
class HarnessResult:
    """Evaluation-harness files read as NK Planner data.

    ``tool``: the tool that wrote the files (one of :data:`TOOLS`). ``paired``: one row per case and config
    (``case, config, correct``, plus ``latency_s`` and ``cost`` when the tool records them), with every sample
    (epoch, repeat) numbered in a ``epoch`` / ``repeat`` column when a case has several; None when the files hold
    fewer than two configs. ``samples``: the raw
    samples (``case, sample, correct``, with ``answer``, ``gold``, ``latency_s`` where usable, and ``config`` when
    several configs have them) when some case has several samples, else None. ``configs``: the config names, in
    file order. ``notes``: plain sentences about the choices made (metric, scorer, renamed configs...).
    ``errors``: per config (in ``configs`` order), the results that ended in an error. ``evaluation``: the whole
    run, one row per case, config and repeat with every recorded column (:mod:`nkcore.evaluation`): what the Data
    page stores.
    """

    tool: str
    paired: pd.DataFrame | None
    samples: pd.DataFrame | None
    configs: tuple[str, ...]
    notes: tuple[str, ...]
    errors: tuple[int, ...] = ()
    evaluation: pd.DataFrame | None = None  # every row of every config, whole (nkcore.evaluation)

    def samples_for(self, config: str | None = None) -> pd.DataFrame | None:
        """The raw samples of one config (:func:`nkcore.evaluation.samples_view`, that config's rows alone), or None
        when it cannot be voted on (:meth:`samples_view` says why); ``config`` may be None when only one config has
        several samples per case. Raises ``DataError`` naming the configs with samples when the choice is
        ambiguous."""
        return self.samples_view(config).frame

    def samples_view(self, config: str | None = None) -> SamplesView:
        """One config's :class:`nkcore.evaluation.SamplesView`: its samples, or the reason it has none (one sample
        per case, or partial credit), in one sentence."""
        if self.evaluation is None:  # pragma: no cover - read_harness always sets it
            raise DataError("no evaluation was read")
        if config is not None and config not in self.configs:
            raise DataError(f"unknown config {config!r}; the configs present are {_names(self.configs)}")
        if config is None:
            multi = tuple(  # the configs with several samples of some case: needed only to pick the one
                c
                for c in self.configs
                if self.evaluation.loc[self.evaluation["config"] == c, "case"].astype(str).duplicated().any()
            )
            if len(self.configs) == 1:
                config = self.configs[0]
            elif len(multi) == 1:
                config = multi[0]
            else:
                listed = _names(multi) if multi else "none"
                raise DataError(
                    f"name the config to read with --config; the configs with several samples per case are {listed}"
                )
        return samples_view(self.evaluation, config)


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(repr(c) for c in names)
