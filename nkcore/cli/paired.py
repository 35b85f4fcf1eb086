"""``python -m nkcore compare``: paired comparison of two configs on the same cases.

JSON keys are a contract (README.md). ``compare`` prints at least ``n_cases``, ``a`` and ``b`` (each ``config``,
``correct``, ``n``, ``accuracy``, ``ci_low``, ``ci_high``), ``a_only``, ``b_only``, ``diff`` (accuracy of b minus
a), ``p_exact``, ``p_midp``, ``p_chi2_cc``, ``diff_ci_low``, ``diff_ci_high``. ``plan`` prints at least ``cases``,
``discordance``, ``min_resolvable_diff``, ``mde_at_power`` and, with ``--target-diff``, ``cases_for_target``.
Extra keys may be added, never renamed (evaluation-harness input adds ``notes``: how the files were read).
Differences are fractions (0.04 = 4 points); infinities (nothing resolvable) are ``null``.

``p_chi2_cc`` follows R's ``mcnemar.test``: Edwards' continuity correction (|b - a| - 1)^2 / (a + b) is applied only
when ``a_only != b_only`` (a balanced table gives chi2 = 0, p = 1). statsmodels corrects unconditionally and reports
p < 1 for balanced tables (0.683 for 3 vs 3); the two agree otherwise. ``chi2_cc`` and ``chi2_cc_rule`` say so in the
JSON (see :func:`nkcore.paired.mcnemar`).

The case-level document (results with repeats or partial scores) is :mod:`nkcore.cli.paired_cases`, the
``--sequential`` part :mod:`nkcore.cli.paired_sequential`, the reading of the files :mod:`nkcore.cli.paired_input`.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import pandas as pd

from nkcore import paired, resolution
from nkcore.cli.common import one_line_strings, print_json
from nkcore.cli.paired_cases import case_report, print_case_report
from nkcore.cli.paired_input import read_compare_files, read_compare_input
from nkcore.cli.paired_sequential import print_sequential, sequential_doc
from nkcore.common.formatting import plural
from nkcore.common.intervals import interval_name
from nkcore.errors import DataError

__all__ = ["compare_report", "read_compare_input", "register", "run_compare", "sequential_doc"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compare`` subcommand (``plan`` is :mod:`nkcore.cli.plan`)."""
    c = subparsers.add_parser(
        "compare",
        help="paired comparison of two configs on the same cases: McNemar, exact paired bootstrap, verdict",
        description="Read paired per-case results (long: case, config, correct; or wide: case + one 0/1 column per "
        "config) and compare config A -> config B on the cases both have: accuracy with Wilson intervals, the "
        "discordant cases, McNemar p-values (exact, mid-p, continuity-corrected chi-square) and the exact paired "
        "bootstrap interval on the difference (accuracy of B minus A).",
    )
    c.add_argument(
        "file",
        type=Path,
        nargs="+",
        help="paired results file (CSV/TSV/Parquet/JSONL, gzip ok); or one or more evaluation-harness outputs, one "
        "per model or run: lm-evaluation-harness samples_<task>_<date>.jsonl (--log_samples), inspect_ai .eval / "
        ".json logs, promptfoo results.json",
    )
    c.add_argument("--a", dest="config_a", metavar="CONFIG", help="config A (the baseline)")
    c.add_argument("--b", dest="config_b", metavar="CONFIG", help="config B (compared with A)")
    c.add_argument(
        "--alpha", type=float, default=0.05, help="significance level; intervals are at 1 - alpha (default 0.05)"
    )
    c.add_argument(
        "--interval",
        choices=("wilson", "clopper-pearson"),
        default="wilson",
        help="interval for each config's accuracy (default wilson: Wilson, with Clopper-Pearson's end near 0 or 100%% "
        "and under 40 cases)",
    )
    c.add_argument(
        "--metric",
        help="lm-evaluation-harness files: the 0/1 metric read as correct (default acc, then exact_match, then the "
        "first 0/1 metric)",
    )
    c.add_argument(
        "--filter",
        help="lm-evaluation-harness files: the filter whose records are read (default: the file's first)",
    )
    c.add_argument(
        "--sequential",
        action="store_true",
        help="also read the cases one by one in order and report when an anytime-valid test (valid however often "
        "you look) first decided, with its running state; JSON key 'sequential'",
    )
    c.add_argument(
        "--order",
        metavar="COLUMN",
        help="with --sequential: the order the cases came in, by this column (a time or an index; a case's smallest "
        "value); default: file order (the order each case first appears)",
    )
    c.add_argument(
        "--margin",
        type=float,
        metavar="POINTS",
        help="non-inferiority margin in points (1 = 1 point): is B not worse than A by more than this? (Tango's score "
        "test for 0/1 results, else a one-sided paired t on the case differences with a never-zero standard error; "
        "JSON keys margin, non_inferior, p_non_inferior)",
    )
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=run_compare)


# ------------------------------------------------------------------------------------------------ compare


def _accuracy_doc(x: paired.ConfigAccuracy) -> dict[str, Any]:
    return {
        "config": x.config,
        "correct": x.correct,
        "n": x.n,
        "accuracy": x.accuracy,
        "ci_low": x.ci_low,
        "ci_high": x.ci_high,
    }


CHI2_CC_RULE = (
    "(|b_only - a_only| - 1)^2 / (a_only + b_only) on 1 df, the continuity correction applied only when "
    "a_only != b_only (as R's mcnemar.test; statsmodels applies it always and differs only when a_only == b_only)"
)


def _choose_configs(frame: pd.DataFrame, a: str | None, b: str | None) -> tuple[str, str]:
    if a is not None and b is not None:
        return a, b
    configs = paired.parse_cases(frame).configs
    if len(configs) == 2:
        if a is None and b is None:
            return configs[0], configs[1]
        named = a if a is not None else b
        if named in configs:
            other = configs[1] if named == configs[0] else configs[0]
            return (named, other) if a is not None else (other, named)
    raise DataError(
        "name the two configs to compare with --a and --b; the configs present are "
        + ", ".join(repr(c) for c in configs)
    )


def compare_report(
    frame: pd.DataFrame, a: str | None, b: str | None, significance: float = 0.05, interval: str = "wilson"
) -> dict[str, Any]:
    """The ``compare`` JSON document for a paired-results table (config a -> config b)."""
    if not (0.0 < significance < 1.0):
        raise DataError(f"--alpha must be between 0 and 1, e.g. 0.05; got {significance}")
    if 1.0 - significance == 1.0:  # alpha below ~1.1e-16: the interval's level 1 - alpha rounds to 1 (a 100% interval)
        raise DataError(
            f"--alpha {significance:g} is too small: the intervals are at 1 - alpha, which rounds to 1 below about 1e-16; "
            "give --alpha 1e-16 or more, e.g. 0.05"
        )
    ca, cb = _choose_configs(frame, a, b)
    if paired.has_repeats(frame):
        return case_report(frame, ca, cb, significance)
    table = paired.parse_paired(frame, (ca, cb))
    comp = paired.compare_pair(table, ca, cb, confidence=1.0 - significance, ci_method=interval)
    res = resolution.critical_count(comp.discordant, significance) if comp.discordant else None
    test = paired.mcnemar(comp.a_only, comp.b_only)
    return {
        "n_cases": comp.n_cases,
        "dropped_cases": table.dropped_cases,
        "cases_per_config": dict(zip(table.configs, table.cases_per_config, strict=True)),
        "a": _accuracy_doc(comp.a),
        "b": _accuracy_doc(comp.b),
        "interval_method": comp.a.method,
        "a_only": comp.a_only,
        "b_only": comp.b_only,
        "both_correct": comp.both_correct,
        "both_wrong": comp.both_wrong,
        "diff": comp.diff,
        "p_exact": comp.p_exact,
        "p_midp": comp.p_midp,
        "p_chi2_cc": comp.p_chi2_cc,
        "chi2_cc": test.chi2_cc,
        "chi2_cc_rule": CHI2_CC_RULE,
        "diff_ci_low": comp.diff_ci_low,
        "diff_ci_high": comp.diff_ci_high,
        "level": comp.confidence,
        "bootstrap": "exact",
        "interval_reliable": comp.interval_reliable,
        "interval_note": paired.interval_caution(comp.discordant, comp.n_cases - comp.discordant),
        "unpaired_ci_low": comp.unpaired_ci_low,
        "unpaired_ci_high": comp.unpaired_ci_high,
        "alpha": significance,
        "critical_count": res,
        "min_resolvable_diff": (2 * res - comp.discordant) / comp.n_cases if res is not None else math.inf,
        "verdict": paired.verdict_sentence(comp, significance),
        "unit": "case",
        "repeats": {c: {"min": 1, "max": 1} for c in (comp.config_a, comp.config_b)},
        "test": "McNemar exact",
        "p_value": comp.p_exact,
    }


def run_compare(args: argparse.Namespace) -> int:
    """Run ``compare``."""
    read = read_compare_files(args.file, getattr(args, "metric", None), getattr(args, "filter", None))
    frame = read.frame
    doc = compare_report(frame, args.config_a, args.config_b, args.alpha, args.interval)
    notes = read.notes_for({doc["a"]["config"], doc["b"]["config"]})  # errors of other configs are not this pair's
    order = getattr(args, "order", None)
    if order is not None and not getattr(args, "sequential", False):
        raise DataError("--order applies with --sequential (the order the cases came in)")
    if getattr(args, "sequential", False):
        doc["sequential"] = sequential_doc(frame, doc, order)
    if getattr(args, "margin", None) is not None:
        from nkcore.cli.rank import non_inferiority_doc  # the rank topic's margin test, imported when asked for

        doc.update(non_inferiority_doc(frame, doc["a"]["config"], doc["b"]["config"], args.margin, args.alpha))
    if notes:
        doc["notes"] = list(notes)
    if args.json:
        print_json(doc)
        return 0
    doc = one_line_strings(doc)  # a name read from a file is one line in the text: no forged output line
    if doc["a_only"] is None:
        print_case_report(doc)
        if "margin_verdict" in doc:
            print(f"margin: {doc['margin_verdict']}")
        if "sequential" in doc:
            print_sequential(doc["sequential"])
        return 0
    a, b = doc["a"], doc["b"]
    pct = f"{100 * doc['level']:g}%"
    print(
        f"{a['config']} -> {b['config']} on {plural(doc['n_cases'], 'paired case')} ({doc['dropped_cases']:,} dropped "
        "to pair them)"
    )
    for x in (a, b):
        print(
            f"  {x['config']}: {x['correct']} of {x['n']} correct = {x['accuracy']:.1%} "
            f"({pct} {interval_name(doc['interval_method'], x['correct'], x['n'])} interval {x['ci_low']:.1%} to {x['ci_high']:.1%})"
        )
    same = doc["both_correct"] + doc["both_wrong"]
    print(
        f"  discordant cases: {doc['b_only']} only {b['config']} gets right, {doc['a_only']} only {a['config']}; "
        f"{same} case{'' if same == 1 else 's'} the same for both"
    )
    print(
        f"  difference ({b['config']} minus {a['config']}): {100 * doc['diff']:+.1f} points; {pct} paired bootstrap "
        f"interval {100 * doc['diff_ci_low']:+.1f} to {100 * doc['diff_ci_high']:+.1f} "
        f"(unpaired: {100 * doc['unpaired_ci_low']:+.1f} to {100 * doc['unpaired_ci_high']:+.1f})"
    )
    if doc.get("interval_note"):
        print(f"  {doc['interval_note']}")
    balanced = doc["a_only"] == doc["b_only"] > 0
    print(
        f"  McNemar p: exact {doc['p_exact']:.3g}, mid-p {doc['p_midp']:.3g}, "
        f"chi-square with continuity correction {doc['p_chi2_cc']:.3g}"
        + (" (balanced table: chi-square 0, no correction, as R's mcnemar.test)" if balanced else "")
    )
    print(f"verdict: {doc['verdict']}")
    if "margin_verdict" in doc:
        print(f"margin: {doc['margin_verdict']}")
    if "sequential" in doc:
        print_sequential(doc["sequential"])
    for note in doc.get("notes", []):
        print(f"note: {note}")
    return 0
