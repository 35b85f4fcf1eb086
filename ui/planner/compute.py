"""The Planner's numbers for the chosen setting: the plan, its sentences, the answer to "how many cases", and the
resolution curve with its chart (cached wrappers of :mod:`nkcore.resolution`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import altair as alt
import pandas as pd

from nkcore import resolution
from nkcore.resolution import sentences as resolution_text
from ui.charts import paired as charts_paired
from ui.common import cache
from ui.planner.controls import Choices

__all__ = ["PlanNumbers", "plan_numbers"]


@dataclass(frozen=True, slots=True)
class PlanNumbers:
    """The plan, its sentences and answer, the resolution curve (``wide``, one column per series), the chart's
    cached spec and its builder (called only when an export is clicked)."""

    plan: resolution.Plan
    sentences: resolution_text.PlanSentences
    answer: resolution_text.CasesAnswer | None
    wide: pd.DataFrame
    chart_spec: dict[str, object]
    chart: Callable[[], alt.LayerChart]


def plan_numbers(c: Choices) -> PlanNumbers:
    """The numbers for the controls' setting, every one through :mod:`ui.common.cache`."""
    cases, discordance, significance, power, target = c.cases, c.discordance, c.significance, c.power, c.target
    p = cache.compute_params(resolution.plan, cases=cases, discordance=discordance, significance=significance, power=power,
                             target_diff=target)  # fmt: skip
    s = resolution.plan_sentences(p)
    answer = resolution_text.cases_answer(p)
    curve = cache.compute_params(
        resolution.resolution_curve, discordance=discordance, significance=significance, power=power, cases_min=20,
        cases_max=50_000, points=160,
    )  # fmt: skip
    wide = curve.to_frame().rename(
        columns={
            "min_resolvable_diff": "smallest resolvable difference (exact)",
            "sqrt_law_diff": "square-root law",
            "mde_at_power": "detectable at the chosen power (Connor)",
        }
    )
    # the chart's spec is cached on its inputs' content (a control that leaves them as they were rebuilds nothing);
    # the chart itself is built only when an export is clicked
    chart_args = (wide.melt(id_vars="cases", var_name="series", value_name="diff"), cases, target)
    chart_spec = cache.chart_spec(charts_paired.resolution_chart, *chart_args)

    def chart() -> alt.LayerChart:
        return charts_paired.resolution_chart(*chart_args)

    return PlanNumbers(p, s, answer, wide, chart_spec, chart)
