"""Summary of paired results: cases, configs, cases every config has, and the accuracy of each config.

The table is parsed by the one paired parser, :func:`nkcore.paired.parse_paired` (long or wide layout), and each
config's accuracy is :func:`nkcore.paired.config_accuracy` over the paired cases (the cases every config has),
the same numbers the Compare page tests.
"""

from __future__ import annotations

from dataclasses import dataclass

from nkcore.common.formatting import name_list
from nkcore.paired import ConfigAccuracy, PairedTable, config_accuracy
from nkcore.summary.results import SummaryNumber, share_text, short_name, whole

__all__ = ["PairedSummary", "summarize_paired"]


@dataclass(frozen=True, slots=True)
class PairedSummary:
    """Summary of paired results (long or wide layout).

    ``n_cases``: cases with a result for at least one config; ``n_complete``: cases with a result for every config
    (the paired cases); ``configs``: each config's accuracy over the paired cases, with its 95% Wilson interval;
    ``cases_per_config``: each config's cases before pairing.
    """

    kind: str
    layout: str
    n_cases: int
    n_complete: int
    configs: tuple[ConfigAccuracy, ...]
    numbers: tuple[SummaryNumber, ...]
    cases_per_config: tuple[int, ...] = ()


def _highest(n_top: int) -> str:
    if n_top == 1:
        return " (the highest)."
    return f" (tied for the highest with {n_top - 1} other config{'s' if n_top > 2 else ''})."


def summarize_paired(table: PairedTable) -> PairedSummary:
    """Cases, configs, cases every config has, and each config's accuracy over those paired cases.

    accuracy = cases right / paired cases (:func:`nkcore.paired.config_accuracy`); cases = paired cases + cases
    some config lacks (``table.dropped_cases``). The highest accuracy is named, and a tie is said as a tie.

    >>> import pandas as pd
    >>> from nkcore.paired import parse_paired
    >>> t = parse_paired(pd.DataFrame({"case": [1, 1, 2, 2], "config": ["a", "b", "a", "b"], "correct": [1, 0, 1, 1]}))
    >>> [(c.config, c.accuracy) for c in summarize_paired(t).configs]
    [('a', 1.0), ('b', 0.5)]
    """
    rows = config_accuracy(table)
    configs = table.configs
    n_complete = table.n_cases
    n_cases = n_complete + table.dropped_cases
    top = max(r.accuracy for r in rows)
    n_top = sum(r.accuracy == top for r in rows)
    if n_complete == n_cases:
        complete = "Every config was run on every case, so all cases are paired."
        of_cases = "cases"
    else:
        per_config = ", ".join(
            f"{short_name(c)}: {k:,}" for c, k in zip(configs[:8], table.cases_per_config, strict=False)
        )
        complete = (
            f"Only {n_complete:,} of {n_cases:,} cases have a result for every config (cases per config: "
            f"{per_config}{' ...' if len(configs) > 8 else ''}); paired tests and the accuracies below use those."
        )
        of_cases = "paired cases"
    numbers = [
        SummaryNumber("cases", n_cases, whole(n_cases), f"{n_cases:,} evaluation cases."),
        SummaryNumber(
            "configs",
            len(configs),
            whole(len(configs)),
            f"{len(configs)} configs compared: {name_list(configs)}.",
        ),
        SummaryNumber("cases every config has", n_complete, whole(n_complete), complete),
    ]
    for r in rows:
        numbers.append(
            SummaryNumber(
                f"accuracy of {short_name(r.config)}",
                r.accuracy,
                share_text(r.accuracy),
                f"{short_name(r.config)} got {r.correct:,} of {r.n:,} {of_cases} right"
                + (_highest(n_top) if r.accuracy == top and len(rows) > 1 else "."),
            )
        )
    return PairedSummary(
        "paired", table.layout, n_cases, n_complete, rows, tuple(numbers), tuple(table.cases_per_config)
    )
