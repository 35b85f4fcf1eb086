"""Summary of paired results: cases, configs, cases every config has, and the accuracy of each config.

The table is parsed by the one paired parser, :func:`nkcore.paired.parse_paired` (long or wide layout), and each
config's accuracy is :func:`nkcore.paired.config_accuracy` over the paired cases (the cases every config has),
the same numbers the Compare page tests.
"""

from __future__ import annotations

from dataclasses import dataclass

from nkcore.common.formatting import name_list
from nkcore.paired import CaseTable, ConfigAccuracy, PairedTable, case_mean, config_accuracy, repeat_word
from nkcore.summary.results import SummaryNumber, share_text, short_name, whole

__all__ = ["PairedSummary", "summarize_cases", "summarize_paired"]


@dataclass(frozen=True, slots=True)
class PairedSummary:
    """Summary of paired results (long or wide layout).

    ``n_cases``: cases with a result for at least one config; ``n_complete``: cases with a result for every config
    (the paired cases); ``configs``: each config's accuracy over the paired cases, with its 95% interval (Wilson,
    with the exact Clopper-Pearson end near 0 or 100% and under 40 cases); ``cases_per_config``: each config's cases
    before pairing.
    """

    kind: str
    layout: str
    n_cases: int
    n_complete: int
    configs: tuple[ConfigAccuracy, ...]
    numbers: tuple[SummaryNumber, ...]
    cases_per_config: tuple[int, ...] = ()
    repeats: tuple[tuple[int, int], ...] = ()  # per config: (fewest, most) repeats per case; () for one each


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


def summarize_cases(table: CaseTable) -> PairedSummary:
    """The summary of paired results with repeats or partial scores: the case is the unit.

    Each config's accuracy is the mean over the paired cases of its case means (every repeat used, cases weighted
    equally; :func:`nkcore.paired.case_mean`), with the case-bootstrap interval (``method`` "case bootstrap");
    ``correct`` is the sum of its scores over every repeat and ``n`` the number of scores. One 0/1 repeat per
    case is :func:`summarize_paired` exactly.

    >>> import pandas as pd
    >>> from nkcore.paired import parse_cases
    >>> df = pd.DataFrame({"case": [1, 1, 2, 2], "epoch": [1, 2, 1, 2], "A": [1, 0, 1, 1], "B": [0, 0, 1, 0]})
    >>> s = summarize_cases(parse_cases(df))
    >>> [(c.config, c.accuracy, c.n) for c in s.configs], s.repeats
    ([('A', 0.75, 4), ('B', 0.25, 4)], ((2, 2), (2, 2)))
    """
    if table.single:
        return summarize_paired(table.to_paired())
    word = repeat_word(table.repeat_column)
    rows = []
    for j, c in enumerate(table.configs):
        m = case_mean(table, c)
        total = float(table.sums[:, j].sum())
        rows.append(ConfigAccuracy(c, round(total), m.scores, m.mean, m.ci_low, m.ci_high, "case bootstrap"))
    configs = table.configs
    n_complete = table.n_cases
    n_cases = n_complete + table.dropped_cases
    ranges = tuple(table.repeat_range(c) for c in configs)
    lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
    reps = f"{lo:,} {word}{'' if lo == 1 else 's'}" if lo == hi else f"{lo:,} to {hi:,} {word}s"
    top = max(r.accuracy for r in rows)
    n_top = sum(r.accuracy == top for r in rows)
    numbers = [
        SummaryNumber(
            "cases",
            n_cases,
            whole(n_cases),
            f"{n_cases:,} evaluation cases, each run {reps} per config; the case is the unit (its repeats are "
            "averaged, not counted as cases).",
        ),
        SummaryNumber(
            "configs", len(configs), whole(len(configs)), f"{len(configs)} configs compared: {name_list(configs)}."
        ),
        SummaryNumber(
            "cases every config has",
            n_complete,
            whole(n_complete),
            "Every config was run on every case, so all cases are paired."
            if n_complete == n_cases
            else f"Only {n_complete:,} of {n_cases:,} cases have a result for every config; paired tests use those.",
        ),
    ]
    for r in rows:
        numbers.append(
            SummaryNumber(
                f"accuracy of {short_name(r.config)}",
                r.accuracy,
                share_text(r.accuracy),
                f"{short_name(r.config)}'s mean score over the {n_complete:,} paired cases ({r.n:,} scores, each case's "
                f"{word}s averaged)" + (_highest(n_top) if r.accuracy == top and len(rows) > 1 else "."),
            )
        )
    return PairedSummary(
        "paired", table.layout, n_cases, n_complete, tuple(rows), tuple(numbers), tuple(table.cases_per_config), ranges
    )
