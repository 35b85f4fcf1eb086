"""The judge report of the page's choices, cached on the dataset's fingerprint and the choices
(:func:`ui.common.cache.compute` over :func:`nkcore.judge.judge_report_of_frame`)."""

from __future__ import annotations

from dataclasses import dataclass

from nkcore.judge import JudgeReport, judge_report_of_frame
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


def report(ds: Dataset, choice: Choice) -> JudgeReport:
    """The cached report of ``choice`` on ``ds``: :func:`nkcore.judge.judge_report_of_frame` (a missing judge score
    filled with the judge's mean on its config, as ``--fill-missing-judge``; the default "auto" interval, as the
    CLI's), cached on the dataset's fingerprint and the choices."""
    return cache.compute(
        judge_report_of_frame,
        ds,
        judge_columns=choice.judges,
        human_column=choice.human,
        config_column=choice.config,
        case_column=choice.case,
        scale=choice.scale,
        fill_missing_judge=True,
        significance=choice.significance,
        half_width=choice.half_width,
        price_human=choice.price_human,
        price_judge=choice.price_judge,
    )
