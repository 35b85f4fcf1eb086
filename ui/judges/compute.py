"""The judge report of the page's choices, cached on the dataset's fingerprint and the choices
(:func:`ui.common.cache.compute`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nkcore.judge import JudgeReport, judge_report, judge_table
from ui.common import cache
from ui.common.datasets import Dataset

__all__ = ["Choice", "report"]


@dataclass(frozen=True, slots=True)
class Choice:
    """What the page computes from: the ``judges`` (the first is corrected), the ``human`` column, the ``config`` and
    ``case`` columns (None: absent), the ``scale``, the ``significance``, the plan's ``half_width`` (None: the
    configs' median corrected half-width) and the prices of one human label and one judge call."""

    judges: tuple[str, ...]
    human: str
    config: str | None
    case: str | None
    scale: str
    significance: float = 0.05
    half_width: float | None = None
    price_human: float = 1.0
    price_judge: float = 0.01


@dataclass(frozen=True, slots=True)
class _Checked:
    """A checked judge table as :func:`ui.common.cache.compute` takes a dataset: its ``fingerprint`` (the dataset's
    and the columns chosen) and, as ``frame``, the :class:`nkcore.judge.JudgeTable` handed to
    :func:`nkcore.judge.judge_report`."""

    fingerprint: str
    frame: Any


def report(ds: Dataset, choice: Choice) -> JudgeReport:
    """The cached report of ``choice`` on ``ds``: the table read by :func:`nkcore.judge.judge_table` (a missing
    judge score filled with the judge's mean on its config, as ``--fill-missing-judge``), then
    :func:`nkcore.judge.judge_report`, each cached on the fingerprint and the choices."""
    columns: dict[str, object] = {
        "judge_columns": choice.judges,
        "human_column": choice.human,
        "config_column": choice.config,
        "case_column": choice.case,
        "scale": choice.scale,
        "fill_missing_judge": True,
    }
    table = cache.compute(judge_table, ds, **columns)
    digest = cache.key_digest("judge_table", (ds.fingerprint,), cache.frozen_params(columns))
    return cache.compute(
        judge_report,
        _Checked(digest, table),
        significance=choice.significance,
        half_width=choice.half_width,
        price_human=choice.price_human,
        price_judge=choice.price_judge,
    )
