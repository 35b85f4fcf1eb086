"""``compare`` on results with repeats or partial scores in [0, 1]: the case-level document and its text.

There is no 2x2 table, so the McNemar keys are null; the test is the sign-flip test on the case means and the
intervals resample cases (:func:`nkcore.paired.compare_cases`).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from nkcore import paired
from nkcore.common.formatting import plural
from nkcore.resolution.critical import z_two_sided

__all__ = ["case_report", "print_case_report"]


_P_METHODS = {
    "exact": "exact",
    "monte-carlo": "Monte Carlo, 20,000 sign patterns",
    "normal": "normal form of the sign-flip law, Berry-Esseen bound in p_error",
}


def case_report(frame: pd.DataFrame, ca: str, cb: str, significance: float) -> dict[str, Any]:
    """``compare``'s document for results with repeats or scores in [0, 1]: the case-level comparison.

    The McNemar keys (``a_only``, ``b_only``, ``both_*``, ``p_exact``, ``p_midp``, ``p_chi2_cc``, ``chi2_cc``,
    ``critical_count``) are null: there is no 2x2 table. ``p_value`` is the sign-flip p on the case means; ``a`` /
    ``b`` carry each config's mean score (cases weighted equally) with ``correct`` = the sum of its scores over
    every repeat and ``n`` = the number of scores; ``min_resolvable_diff`` is the normal approximation
    z_{1-alpha/2} sd(d) / sqrt(n).
    """
    table = paired.parse_cases(frame, (ca, cb))
    comp = paired.compare_cases(table, ca, cb, confidence=1.0 - significance)
    word = paired.repeat_word(table.repeat_column)
    d = table.means[:, 1] - table.means[:, 0]
    n = comp.n_cases
    z = z_two_sided(significance)

    def side(x: paired.CaseMean, j: int) -> dict[str, Any]:
        total = float(table.sums[:, j].sum())
        return {
            "config": x.config,
            "correct": int(total) if table.binary else total,
            "n": x.scores,
            "cases": x.n_cases,
            "accuracy": x.mean,
            "ci_low": x.ci_low,
            "ci_high": x.ci_high,
        }

    v = comp.components
    return {
        "n_cases": n,
        "dropped_cases": table.dropped_cases,
        "cases_per_config": dict(zip(table.configs, table.cases_per_config, strict=True)),
        "a": side(comp.a, 0),
        "b": side(comp.b, 1),
        "interval_method": "case bootstrap",
        "a_only": None,
        "b_only": None,
        "both_correct": None,
        "both_wrong": None,
        "a_better": comp.a_better,
        "b_better": comp.b_better,
        "ties": comp.ties,
        "diff": comp.diff,
        "p_exact": None,
        "p_midp": None,
        "p_chi2_cc": None,
        "chi2_cc": None,
        "diff_ci_low": comp.diff_ci_low,
        "diff_ci_high": comp.diff_ci_high,
        "level": comp.confidence,
        "bootstrap": "exact case bootstrap"
        if comp.ci_method == "exact"
        else f"case bootstrap on a 1/{round(0.5 / comp.ci_error):,} lattice",
        "bootstrap_error": comp.ci_error,
        "interval_reliable": comp.interval_reliable,
        "interval_note": paired.interval_caution(comp.b_better + comp.a_better, repeats=True),
        "unpaired_ci_low": comp.unpaired_ci_low,
        "unpaired_ci_high": comp.unpaired_ci_high,
        "alpha": significance,
        "critical_count": None,
        "min_resolvable_diff": z * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf,
        "verdict": paired.case_verdict_sentence(comp, significance, word),
        "unit": "case",
        "repeat_word": word,
        "repeats": {
            c: {"min": lo, "max": hi}
            for c, (lo, hi) in ((comp.config_a, table.repeat_range(ca)), (comp.config_b, table.repeat_range(cb)))
        },
        "test": f"{comp.test} ({_P_METHODS.get(comp.p_method, comp.p_method)})",
        "p_value": comp.p_value,
        "p_method": comp.p_method,
        "p_error": comp.p_error,
        "within_case_correlation": None if math.isnan(v.icc) else v.icc,
        "design_effect": v.design_effect,
        "effective_cases": v.effective_cases,
        "between_var": v.between_var,
        "within_var": None if math.isnan(v.within_var) else v.within_var,
        "unit_sentence": paired.unit_sentence(comp, word),
        "repeats_sentence": paired.repeats_sentence(comp, word),
    }


def print_case_report(doc: dict[str, Any]) -> None:
    """The text of a case-level ``compare`` (results with repeats or partial scores)."""
    a, b = doc["a"], doc["b"]
    pct = f"{100 * doc['level']:g}%"
    print(
        f"{a['config']} -> {b['config']}: {doc['unit_sentence']} ({doc['dropped_cases']:,} cases dropped to pair them)"
    )
    for x in (a, b):
        print(
            f"  {x['config']}: mean score {x['accuracy']:.1%} over {plural(x['cases'], 'case')} ({x['n']:,} scores; "
            f"{pct} case-bootstrap interval {x['ci_low']:.1%} to {x['ci_high']:.1%})"
        )
    print(
        f"  difference ({b['config']} minus {a['config']}), the mean over cases of the per-case difference: "
        f"{100 * doc['diff']:+.1f} points; {pct} case-bootstrap interval {100 * doc['diff_ci_low']:+.1f} to "
        f"{100 * doc['diff_ci_high']:+.1f} (unpaired: {100 * doc['unpaired_ci_low']:+.1f} to "
        f"{100 * doc['unpaired_ci_high']:+.1f})"
    )
    if doc.get("interval_note"):
        print(f"  {doc['interval_note']}")
    err = (
        f" (Monte Carlo standard error {doc['p_error']:.2g})"
        if doc["p_method"] == "monte-carlo"
        else f" (within {doc['p_error']:.2g} of the exact p, Berry-Esseen)"
        if doc["p_method"] == "normal"
        else ""
    )
    print(f"  {doc['test']}: p = {doc['p_value']:.3g}{err}")
    if doc["repeats_sentence"]:
        print(f"  {doc['repeats_sentence']}")
    print(f"verdict: {doc['verdict']}")
    for note in doc.get("notes", []):
        print(f"note: {note}")
