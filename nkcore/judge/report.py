"""All of it for one judge table: per-config estimates, differences, bias tests, the subset check, the plan, the judge
panel, and the verdict (:func:`judge_report`, what the CLI and the page show)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from nkcore.common.checks import check_significance
from nkcore.errors import DataError
from nkcore.judge.data import JudgeTable, judge_table
from nkcore.judge.estimate import (
    ALL_PAIRS_UP_TO,
    BiasTests,
    ConfigEstimate,
    PairDifference,
    bias_tests,
    config_estimates,
    pair_differences,
)
from nkcore.judge.plan import LabelPlan, PilotFit, SplitPlan, cheapest_split, labels_for_half_width, pilot_fit
from nkcore.judge.ppi import INTERVALS, T_BELOW
from nkcore.judge.raters import JudgePanel, judge_panel
from nkcore.judge.sentences import judge_verdict

__all__ = [
    "JudgePlan",
    "JudgeReport",
    "SubsetCheck",
    "interval_note",
    "judge_plan",
    "judge_report",
    "judge_report_of_frame",
    "ranking_flips",
    "subset_check",
]
SUBSET_P = 0.01
"""Below this p the labelled cases' judge scores differ from the others' enough to doubt a random draw."""


@dataclass(frozen=True, slots=True)
class SubsetCheck:
    """Were the human-labelled cases drawn at random? The judge's score (centred within each config) on the labelled
    minus the unlabelled cases, ``difference``, Welch's ``p_value``; ``looks_random`` when p >= :data:`SUBSET_P`
    (a check that can only find a non-random draw, never prove a random one). NaN when every case is labelled."""

    difference: float
    p_value: float
    n_labelled: int
    n_unlabelled: int
    looks_random: bool


@dataclass(frozen=True, slots=True)
class JudgePlan:
    """The plan from this table as a pilot: ``pilot`` (rho and sigma of the human scores within configs),
    ``target_half_width`` (given, or the configs' median PPI half-width), ``confidence``, ``n_cases`` (the configs'
    median number of cases), ``labels`` (per config), and ``split`` (with prices: the cheapest labels / judge calls
    for the humans-only precision of ``labels.human_only_labels``)."""

    pilot: PilotFit
    target_half_width: float
    confidence: float
    n_cases: int
    labels: LabelPlan
    split: SplitPlan | None


@dataclass(frozen=True, slots=True, eq=False)
class JudgeReport:
    """Everything about one judge table (fields as named; ``flips`` the pairs (a, b) the judge alone orders a > b
    while the corrected difference says b > a resolvably or the judge-only order contradicts the corrected one;
    ``verdict`` the sentences; ``interval`` the choice asked for: "auto", "normal" or "t")."""

    table: JudgeTable
    judge: str
    significance: float
    configs: tuple[ConfigEstimate, ...]
    pairs: tuple[PairDifference, ...]
    bias: BiasTests
    subset: SubsetCheck
    plan: JudgePlan | None
    panel: JudgePanel | None
    flips: tuple[tuple[str, str], ...]
    verdict: str
    notes: tuple[str, ...]
    interval: str = "auto"

    @property
    def confidence(self) -> float:
        """1 - significance."""
        return 1.0 - self.significance


def subset_check(table: JudgeTable, judge: str | None = None) -> SubsetCheck:
    """Welch's t test of the judge score (minus its config mean) on labelled against unlabelled rows (Welch 1947)."""
    j = judge or table.judges[0]
    f = table.frame
    s = f[j].to_numpy(dtype=float)
    s = s - f.groupby("config")[j].transform("mean").to_numpy(dtype=float)
    lab = f["human"].notna().to_numpy()
    a, b = s[lab], s[~lab]
    if a.size < 2 or b.size < 2:
        return SubsetCheck(math.nan, math.nan, int(a.size), int(b.size), True)
    if np.std(a) == 0 and np.std(b) == 0:
        d = float(a.mean() - b.mean())
        return SubsetCheck(d, 1.0 if d == 0 else 0.0, int(a.size), int(b.size), d == 0)
    p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    return SubsetCheck(float(a.mean() - b.mean()), p, int(a.size), int(b.size), p >= SUBSET_P)


def judge_plan(
    table: JudgeTable,
    estimates: tuple[ConfigEstimate, ...],
    judge: str | None = None,
    significance: float = 0.05,
    half_width: float | None = None,
    price_human: float | None = None,
    price_judge: float | None = None,
) -> JudgePlan | None:
    """The table as a pilot (:mod:`nkcore.judge.plan`): rho and sigma from the labelled rows centred within configs,
    labels for ``half_width`` (default: the configs' median PPI half-width) on the median config's cases, and with
    both prices the cheapest split. None when the human scores do not vary."""
    j = judge or table.judges[0]
    f = table.frame[table.frame["human"].notna()]
    h = (f["human"] - f.groupby("config")["human"].transform("mean")).to_numpy(dtype=float)
    s = (f[j] - f.groupby("config")[j].transform("mean")).to_numpy(dtype=float)
    dof = len(f) - len(table.configs)
    if dof < 1 or float(np.sum(h**2)) == 0.0:
        return None
    pilot = pilot_fit(h, s)
    sigma = math.sqrt(float(np.sum(h**2)) / dof)  # pooled within-config standard deviation
    pilot = PilotFit(max(-0.999, min(0.999, pilot.rho)), sigma, pilot.n_labelled)
    target = half_width if half_width is not None else float(np.median([e.ppi.half_width for e in estimates]))
    if not (math.isfinite(target) and target > 0):
        raise DataError(f"the target half-width must be a positive number on the human scale; got {target}")
    n_cases = int(np.median([e.n_cases for e in estimates]))
    conf = 1.0 - check_significance(significance)
    labels = labels_for_half_width(target, pilot.sigma_human, pilot.rho, conf, max(2, n_cases))
    split = None
    if price_human is not None and price_judge is not None:
        split = cheapest_split(labels.human_only_labels, pilot.rho, price_human, price_judge)
    return JudgePlan(pilot, target, conf, n_cases, labels, split)


def ranking_flips(
    configs: tuple[ConfigEstimate, ...], pairs: tuple[PairDifference, ...]
) -> tuple[tuple[str, str], ...]:
    """Pairs whose judge-only order is the reverse of the corrected order: (a, b) with judge_only(a) > judge_only(b)
    while PPI(a) < PPI(b)."""
    est = {c.config: c for c in configs}
    out = []
    for p in pairs:
        ja, jb = est[p.config_a].judge_only.estimate, est[p.config_b].judge_only.estimate
        if (ja - jb) * p.ppi.estimate < 0:
            out.append((p.config_a, p.config_b) if ja > jb else (p.config_b, p.config_a))
    return tuple(out)


def judge_report(
    table: JudgeTable,
    judge: str | None = None,
    significance: float = 0.05,
    half_width: float | None = None,
    price_human: float | None = None,
    price_judge: float | None = None,
    dawid_skene: bool = True,
    small_sample: bool = False,
    interval: str = "auto",
) -> JudgeReport:
    """Every number of issue 55 for one judge table; the verdict from :mod:`nkcore.judge.sentences`.
    ``interval`` "auto" (t below :data:`nkcore.judge.ppi.T_BELOW` human labels, else PPI++'s normal interval),
    "normal" or "t" (:func:`nkcore.judge.ppi.ppi_mean_interval`); ``small_sample=True`` is ``interval="t"``."""
    j = judge or table.judges[0]
    if j not in table.judges:
        raise DataError(f"no judge {j!r}; the judges are {', '.join(table.judges)}")
    check_significance(significance)
    if interval not in INTERVALS:
        raise DataError(f"the interval must be one of {', '.join(INTERVALS)}; got {interval!r}")
    if small_sample:
        if interval == "normal":
            raise DataError("the small-sample option (t interval) and the normal interval cannot both be forced")
        interval = "t"
    configs = config_estimates(table, j, significance, interval)
    pairs = pair_differences(table, configs, j, significance, interval)
    best = max(configs, key=lambda c: c.ppi.estimate).config
    bias = bias_tests(table, j, significance, None if len(configs) <= ALL_PAIRS_UP_TO else best)
    subset = subset_check(table, j)
    plan = judge_plan(table, configs, j, significance, half_width, price_human, price_judge)
    panel = judge_panel(table, dawid_skene) if len(table.judges) > 1 else None
    flips = ranking_flips(configs, pairs)
    notes = list(table.notes)
    if not subset.looks_random:
        notes.append(
            "the judge scores the human-labelled cases differently from the others "
            f"(p = {subset.p_value:.2g}): the labelled cases look not drawn at random, and PPI's intervals assume "
            "they are"
        )
    notes.append(
        "PPI assumes the human-labelled cases are a random sample of each config's cases; if they were chosen "
        "(hard cases, one config first), the corrected numbers do not hold"
    )
    if panel is not None:
        notes.extend(panel.notes)
    notes.append(interval_note(configs, interval))
    sparse = [c for c in configs if c.sparse_note]
    if sparse:
        notes.append(
            "few of one verdict: "
            + "; ".join(f"{c.config}: {c.sparse_note}" for c in sparse[:5])
            + (" and more" if len(sparse) > 5 else "")
            + ". There the usual interval would be too short, so these use a widened one (pseudo-counts, "
            "Agresti-Coull style) or the humans-only exact (Clopper-Pearson) one when that is narrower; "
            "measured coverage 94-100% for 95% (docs/coverage.md, docs/judge.md)"
        )
    fallbacks = [c.config for c in configs if c.ppi.fallback]
    if fallbacks:
        notes.append(
            "the judge did not narrow the interval of " + ", ".join(fallbacks[:5]) + ": humans only used there"
        )
    report = JudgeReport(
        table, j, significance, configs, pairs, bias, subset, plan, panel, flips, "", tuple(notes), interval
    )
    return JudgeReport(
        table,
        j,
        significance,
        configs,
        pairs,
        bias,
        subset,
        plan,
        panel,
        flips,
        judge_verdict(report),
        tuple(notes),
        interval,
    )


def interval_note(configs: Sequence[ConfigEstimate], interval: str = "auto") -> str:
    """Which interval was used and why, in plain words (the page and the CLI's notes).

    >>> interval_note([], "normal")
    'intervals: the normal interval of PPI++ for every config (forced)'
    """
    if interval == "normal":
        return "intervals: the normal interval of PPI++ for every config (forced)"
    if interval == "t":
        return "intervals: the small-sample t interval for every config (forced)"
    t = [c.config for c in configs if c.interval == "t"]
    if not t:
        return f"intervals: the normal interval of PPI++ (every config has at least {T_BELOW} human labels)"
    why = f"(fewer than {T_BELOW} human labels, where the normal interval runs short)"
    if len(t) == len(configs):
        return f"intervals: the small-sample t interval for every config {why}"
    names = ", ".join(t[:5]) + (" and more" if len(t) > 5 else "")
    return f"intervals: the small-sample t interval for {names} {why}; the normal interval of PPI++ for the others"


def judge_report_of_frame(
    frame: pd.DataFrame,
    judge_columns: Sequence[str],
    human_column: str,
    config_column: str | None = None,
    case_column: str | None = None,
    scale: str = "auto",
    fill_missing_judge: bool = False,
    significance: float = 0.05,
    half_width: float | None = None,
    price_human: float | None = None,
    price_judge: float | None = None,
    dawid_skene: bool = True,
    small_sample: bool = False,
    interval: str = "auto",
) -> JudgeReport:
    """:func:`nkcore.judge.data.judge_table` then :func:`judge_report` (the first judge column is the one corrected):
    one call from a frame, for a cache keyed on the frame's fingerprint."""
    table = judge_table(frame, judge_columns, human_column, config_column, case_column, scale, fill_missing_judge)
    return judge_report(
        table,
        significance=significance,
        half_width=half_width,
        price_human=price_human,
        price_judge=price_judge,
        dawid_skene=dawid_skene,
        small_sample=small_sample,
        interval=interval,
    )
