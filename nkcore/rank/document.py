"""The ``rank`` document (the CLI's JSON, and what Compare's "Which config ships" section shows): every config's
mean with its interval and simultaneous rank interval, the set that could be the best, the winner's corrected score,
the margin tests and the cost frontier, as plain values (:func:`rank_doc`); and ``compare --margin``'s keys
(:func:`non_inferiority_doc`). One function for the page and the CLI, so both give the same numbers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from nkcore import paired
from nkcore.common.rows import format_rows
from nkcore.errors import DataError
from nkcore.kinds import to_text
from nkcore.rank.bootstrap import DEFAULT_RESAMPLES
from nkcore.rank.leaderboard import rank_report
from nkcore.rank.noninferiority import NI_TEST, check_margin, non_inferiority
from nkcore.rank.sentences import non_inferiority_sentence
from nkcore.rank.winner import WINNER_METHOD

__all__ = ["mean_costs", "non_inferiority_doc", "rank_doc"]


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
    resamples: int = DEFAULT_RESAMPLES,
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
    margin = None if margin_points is None else check_margin(margin_points / 100.0)
    rep = rank_report(table, 1.0 - significance, resamples, seed, margin, costs)
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
            "bootstrap_corrected": w.bootstrap_corrected,
            "shrinkage": w.shrinkage,
        },
        "verdict": rep.verdict,
        "level": r.confidence,
        "alpha": significance,
        "method": r.method,
        "critical": r.pairs.critical,
        "resamples": r.pairs.resamples,
        "seed": seed,
        "winner_method": WINNER_METHOD,
    }
    if rep.frontier is not None:
        doc["frontier"] = [{"config": f.config, "cost": f.cost, "mean": f.mean} for f in rep.frontier]
        doc["cost_column"] = cost_column
    if margin is not None:
        doc["margin"] = margin
        doc["ship"] = rep.ship
        doc["margin_test"] = NI_TEST + ", Holm over the configs against the best observed"
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
    margin = check_margin(margin_points / 100.0)
    table = paired.parse_cases(frame, (config_a, config_b))
    t = non_inferiority(table.means[:, 0], table.means[:, 1], margin, significance, (config_a, config_b))
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
