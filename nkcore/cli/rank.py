"""``python -m nkcore rank``: which config ships, from M configs on the same cases (issue 54).

JSON keys are a contract: ``configs`` (a list, best observed first, of ``config``, ``mean``, ``ci_low``, ``ci_high``,
``rank_low``, ``rank_high``), ``could_be_best`` (config names), ``winner`` (``config``, ``naive``, ``corrected``,
``ci_low``, ``ci_high``), ``verdict`` (one sentence); with ``--cost-column``, ``frontier`` (the configs no other
config beats resolvably on quality at no higher mean cost: ``config``, ``cost``, ``mean``, cheapest first); with
``--margin``, ``margin`` (a proportion: POINTS / 100) and ``margin_tests``. Extra keys may be added, never renamed.
Scores and differences are fractions (0.04 = 4 points).

``compare --margin POINTS`` (:func:`non_inferiority_doc`): non-inferiority of B against A; the JSON adds ``margin``,
``non_inferior``, ``p_non_inferior`` (and ``p_equivalent``, ``equivalent``, ``margin_lower_bound``,
``margin_test``, ``margin_verdict``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nkcore import paired, rank
from nkcore.cli.common import one_line_strings, print_json
from nkcore.cli.paired_input import read_compare_files
from nkcore.common.formatting import percent, plural, points
from nkcore.common.rows import format_rows
from nkcore.errors import DataError
from nkcore.kinds import to_text
from nkcore.rank.sentences import non_inferiority_sentence

__all__ = ["mean_costs", "non_inferiority_doc", "rank_doc", "register", "run_rank"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``rank`` subcommand."""
    r = subparsers.add_parser(
        "rank",
        help="which config ships: simultaneous rank intervals, the configs that could be the best, the winner's "
        "score corrected for having picked it",
        description="Read paired results of several configs on the same cases (any file compare reads: long or "
        "wide, repeats, scores in [0, 1]; the case is the unit) and rank them: simultaneous intervals for every "
        "pairwise difference by the paired max-statistic case bootstrap, each config's rank interval, the configs "
        "that could be the best, the best observed score corrected for the winner's curse; with --margin, the "
        "configs not worse than the best by more than the margin (Holm); with --cost-column, the cost frontier.",
    )
    r.add_argument("file", type=Path, nargs="+", help="paired results file (or evaluation-harness outputs)")
    r.add_argument("--margin", type=float, metavar="POINTS", help="non-inferiority margin in points, e.g. 1")
    r.add_argument("--cost-column", metavar="C", help="long layout: the column with each call's cost")
    r.add_argument("--alpha", type=float, default=0.05, help="significance; intervals at 1 - alpha (default 0.05)")
    r.add_argument("--resamples", type=int, default=rank.DEFAULT_RESAMPLES, help="bootstrap resamples (2000)")
    r.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.set_defaults(func=run_rank)


def _column(frame: pd.DataFrame, name: str) -> str | None:
    for c in frame.columns:
        if isinstance(c, str) and c.strip().lower() == name:
            return c
    return None


def mean_costs(frame: pd.DataFrame, column: str, table: paired.CaseTable) -> dict[str, float]:
    """Each config's mean cost per call over its rows on the paired cases (long layout; empty cells skipped).

    >>> df = pd.DataFrame({"case": [1, 1, 2, 2], "config": ["A", "B"] * 2, "correct": [1, 0, 1, 1],
    ...                    "cost": [0.5, 0.1, 0.7, 0.1]})
    >>> mean_costs(df, "cost", paired.parse_cases(df.drop(columns="cost")))
    {'A': 0.6, 'B': 0.1}
    """
    if column not in frame.columns:
        raise DataError(f"no cost column {column!r}; the columns are {', '.join(repr(str(c)) for c in frame.columns)}")
    config_col, case_col = _column(frame, "config"), _column(frame, "case")
    if config_col is None or case_col is None:
        raise DataError("--cost-column needs the long layout (case, config, correct, and the cost of each call)")
    raw = frame[column]
    cost = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = (raw.notna().to_numpy() & ~np.isfinite(cost)) | (np.isfinite(cost) & (cost < 0))
    if bad.any():
        raise DataError(
            f"the cost column {column!r} must hold non-negative numbers; {int(bad.sum())} row(s) do not: "
            f"{format_rows(np.flatnonzero(bad), 5)}"
        )
    configs = frame[config_col].astype("string").str.strip().to_numpy(dtype=object)
    paired_case = to_text(frame[case_col]).isin(set(table.cases)).to_numpy()
    out: dict[str, float] = {}
    for name in table.configs:
        rows = paired_case & (configs == name) & np.isfinite(cost)
        if not rows.any():
            raise DataError(f"config {name!r} has no cost in {column!r} on the paired cases: give each call a cost")
        out[name] = float(cost[rows].mean())
    return out


def rank_doc(
    frame: pd.DataFrame,
    significance: float = 0.05,
    margin_points: float | None = None,
    cost_column: str | None = None,
    resamples: int = rank.DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """The ``rank`` JSON document for a paired-results table."""
    if not (isinstance(significance, float) and 0.0 < significance < 0.5):
        raise DataError(f"--alpha must be between 0 and 0.5, e.g. 0.05; got {significance}")
    if cost_column is not None and cost_column not in frame.columns:
        raise DataError(
            f"no cost column {cost_column!r}; the columns are {', '.join(repr(str(c)) for c in frame.columns)}"
        )
    data = frame.drop(columns=[cost_column]) if cost_column is not None else frame
    table = paired.parse_cases(data)
    costs = mean_costs(frame, cost_column, table) if cost_column is not None else None
    margin = None if margin_points is None else rank.check_margin(margin_points / 100.0)
    rep = rank.rank_report(table, 1.0 - significance, resamples, seed, margin, costs)
    r, w = rep.ranking, rep.winner
    doc: dict[str, Any] = {
        "n_cases": r.n_cases,
        "dropped_cases": table.dropped_cases,
        "n_configs": len(r.names),
        "unit": "case",
        "repeats": {c: dict(zip(("min", "max"), table.repeat_range(c), strict=True)) for c in table.configs},
        "configs": [
            {
                "config": c.config,
                "mean": c.mean,
                "ci_low": c.ci_low,
                "ci_high": c.ci_high,
                "rank_low": c.rank_low,
                "rank_high": c.rank_high,
                "observed_rank": c.observed_rank,
                **({"cost": costs[c.config]} if costs is not None else {}),
            }
            for c in r.configs
        ],
        "could_be_best": list(r.could_be_best),
        "tie_groups": [list(g) for g in r.tie_groups],
        "winner": {
            "config": w.config,
            "naive": w.naive,
            "corrected": w.corrected,
            "bias": w.bias,
            "ci_low": w.ci_low,
            "ci_high": w.ci_high,
        },
        "verdict": rep.verdict,
        "level": r.confidence,
        "alpha": significance,
        "method": r.method,
        "critical": r.pairs.critical,
        "resamples": r.pairs.resamples,
        "seed": seed,
        "winner_method": "bootstrap bias correction of the maximum (Efron & Tibshirani 1993, ch. 10): corrected = "
        "2 x naive - mean of the resampled maxima; percentile interval of the corrected statistic",
    }
    if rep.frontier is not None:
        doc["frontier"] = [{"config": f.config, "cost": f.cost, "mean": f.mean} for f in rep.frontier]
        doc["cost_column"] = cost_column
    if margin is not None:
        doc["margin"] = margin
        doc["ship"] = rep.ship
        doc["margin_test"] = rank.NI_TEST + ", Holm over the configs against the best observed"
        doc["margin_tests"] = [
            {
                "config": m.test.config_b,
                "against": m.test.config_a,
                "diff": m.test.diff,
                "lower_bound": m.test.lower_bound,
                "p_non_inferior": m.test.p_non_inferior,
                "p_holm": m.p_holm,
                "non_inferior": m.non_inferior,
                "p_equivalent": m.test.p_equivalent,
            }
            for m in rep.margin_tests
        ]
    return doc


def non_inferiority_doc(
    frame: pd.DataFrame, config_a: str, config_b: str, margin_points: float, significance: float
) -> dict[str, Any]:
    """``compare --margin``'s keys: B against A at the margin (POINTS / 100) on the case means."""
    margin = rank.check_margin(margin_points / 100.0)
    table = paired.parse_cases(frame, (config_a, config_b))
    t = rank.non_inferiority(table.means[:, 0], table.means[:, 1], margin, significance, (config_a, config_b))
    return {
        "margin": margin,
        "non_inferior": t.non_inferior,
        "p_non_inferior": t.p_non_inferior,
        "equivalent": t.equivalent,
        "p_equivalent": t.p_equivalent,
        "margin_lower_bound": t.lower_bound,
        "margin_test": t.test,
        "margin_verdict": non_inferiority_sentence(
            config_a, config_b, margin, t.lower_bound, t.p_non_inferior, t.non_inferior, significance
        ),
    }


def run_rank(args: argparse.Namespace) -> int:
    """Run ``rank``."""
    read = read_compare_files(args.file)
    doc = rank_doc(read.frame, args.alpha, args.margin, args.cost_column, args.resamples, args.seed)
    if read.notes:
        doc["notes"] = list(read.notes)
    if args.json:
        print_json(doc)
        return 0
    doc = one_line_strings(doc)
    pct = f"{100 * doc['level']:g}%"
    print(f"{plural(doc['n_configs'], 'config')} on {plural(doc['n_cases'], 'paired case')} (the case is the unit)")
    width = max(len(c["config"]) for c in doc["configs"])
    for c in doc["configs"]:
        rank_text = str(c["rank_low"]) if c["rank_low"] == c["rank_high"] else f"{c['rank_low']}-{c['rank_high']}"
        cost = f"  cost {c['cost']:.4g}" if "cost" in c else ""
        print(
            f"  {c['config']:<{width}}  {percent(c['mean'])} ({pct}: {percent(c['ci_low'])} to "
            f"{percent(c['ci_high'])})  rank {rank_text}{cost}"
        )
    w = doc["winner"]
    print(
        f"winner {w['config']}: {percent(w['naive'])} observed, {percent(w['corrected'])} corrected "
        f"(bias {points(w['bias'])} points; {pct} {percent(w['ci_low'])} to {percent(w['ci_high'])})"
    )
    if "frontier" in doc:
        print(
            "cost frontier: "
            + ", ".join(f"{f['config']} ({f['cost']:.4g}, {percent(f['mean'])})" for f in doc["frontier"])
        )
    print(f"verdict: {doc['verdict']}")
    print(f"method: {doc['method']}")
    for note in doc.get("notes", []):
        print(f"note: {note}")
    return 0
