"""``python -m nkcore compare``: paired comparison of two configs on the same cases.

JSON keys are a contract (README.md). ``compare`` prints at least ``n_cases``, ``a`` and ``b`` (each ``config``,
``correct``, ``n``, ``accuracy``, ``ci_low``, ``ci_high``), ``a_only``, ``b_only``, ``diff`` (accuracy of b minus
a), ``p_exact``, ``p_midp``, ``p_chi2_cc``, ``diff_ci_low``, ``diff_ci_high``. ``plan`` prints at least ``cases``,
``discordance``, ``min_resolvable_diff``, ``mde_at_power`` and, with ``--target-diff``, ``cases_for_target``.
Extra keys may be added, never renamed (evaluation-harness input adds ``notes``: how the files were read). Differences are fractions (0.04 = 4 points); infinities (nothing
resolvable) are ``null``.

``p_chi2_cc`` follows R's ``mcnemar.test``: Edwards' continuity correction (|b - a| - 1)^2 / (a + b) is applied only
when ``a_only != b_only`` (a balanced table gives chi2 = 0, p = 1). statsmodels corrects unconditionally and reports
p < 1 for balanced tables (0.683 for 3 vs 3); the two agree otherwise. ``chi2_cc`` and ``chi2_cc_rule`` say so in the
JSON (see :func:`nkcore.paired.mcnemar`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from nkcore import paired, resolution, sequential
from nkcore.cli_util import one_line_strings, print_json
from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.harness import read_harness
from nkcore.harness.files import path_tool, read_paths
from nkcore.io import read_table
from nkcore.resolution.critical import z_two_sided

__all__ = ["compare_report", "read_compare_input", "register", "run_compare", "sequential_doc"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compare`` and ``plan`` subcommands."""
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
        help="interval for each config's accuracy (default wilson)",
    )
    c.add_argument(
        "--metric",
        help="lm-evaluation-harness files: the 0/1 metric read as correct (default acc, then exact_match, then the "
        "first 0/1 metric)",
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
    frame: pd.DataFrame, a: str | None, b: str | None, alpha: float = 0.05, interval: str = "wilson"
) -> dict[str, Any]:
    """The ``compare`` JSON document for a paired-results table (config a -> config b)."""
    if not (0.0 < alpha < 1.0):
        raise DataError(f"--alpha must be between 0 and 1, e.g. 0.05; got {alpha}")
    if 1.0 - alpha == 1.0:  # alpha below ~1.1e-16: the interval's level 1 - alpha rounds to 1 (a 100% interval)
        raise DataError(
            f"--alpha {alpha:g} is too small: the intervals are at 1 - alpha, which rounds to 1 below about 1e-16; "
            "give --alpha 1e-16 or more, e.g. 0.05"
        )
    ca, cb = _choose_configs(frame, a, b)
    if paired.has_repeats(frame):
        return _case_report(frame, ca, cb, alpha)
    table = paired.parse_paired(frame, (ca, cb))
    comp = paired.compare_pair(table, ca, cb, level=1.0 - alpha, ci_method=interval)
    res = resolution.critical_count(comp.discordant, alpha) if comp.discordant else None
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
        "level": comp.level,
        "bootstrap": "exact",
        "unpaired_ci_low": comp.unpaired_ci_low,
        "unpaired_ci_high": comp.unpaired_ci_high,
        "alpha": alpha,
        "critical_count": res,
        "min_resolvable_diff": (2 * res - comp.discordant) / comp.n_cases if res is not None else math.inf,
        "verdict": paired.verdict_sentence(comp, alpha),
        "unit": "case",
        "repeats": {c: {"min": 1, "max": 1} for c in (comp.config_a, comp.config_b)},
        "test": "McNemar exact",
        "p_value": comp.p_exact,
    }


_P_METHODS = {
    "exact": "exact",
    "monte-carlo": "Monte Carlo, 20,000 sign patterns",
    "normal": "normal form of the sign-flip law, Berry-Esseen bound in p_error",
}


def _case_report(frame: pd.DataFrame, ca: str, cb: str, alpha: float) -> dict[str, Any]:
    """``compare``'s document for results with repeats or scores in [0, 1]: the case-level comparison.

    The McNemar keys (``a_only``, ``b_only``, ``both_*``, ``p_exact``, ``p_midp``, ``p_chi2_cc``, ``chi2_cc``,
    ``critical_count``) are null: there is no 2x2 table. ``p_value`` is the sign-flip p on the case means; ``a`` /
    ``b`` carry each config's mean score (cases weighted equally) with ``correct`` = the sum of its scores over
    every repeat and ``n`` = the number of scores; ``min_resolvable_diff`` is the normal approximation
    z_{1-alpha/2} sd(d) / sqrt(n).
    """
    table = paired.parse_cases(frame, (ca, cb))
    comp = paired.compare_cases(table, ca, cb, level=1.0 - alpha)
    word = paired.repeat_word(table.repeat_column)
    d = table.means[:, 1] - table.means[:, 0]
    n = comp.n_cases
    z = z_two_sided(alpha)

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
        "level": comp.level,
        "bootstrap": "exact case bootstrap"
        if comp.ci_method == "exact"
        else f"case bootstrap on a 1/{round(0.5 / comp.ci_error):,} lattice",
        "bootstrap_error": comp.ci_error,
        "unpaired_ci_low": comp.unpaired_ci_low,
        "unpaired_ci_high": comp.unpaired_ci_high,
        "alpha": alpha,
        "critical_count": None,
        "min_resolvable_diff": z * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf,
        "verdict": paired.case_verdict_sentence(comp, alpha, word),
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


def sequential_doc(frame: pd.DataFrame, doc: dict[str, Any], order: str | None = None) -> dict[str, Any]:
    """``compare --sequential``'s ``sequential`` document: ``decided_at`` (cases, or null), ``winner`` ("a", "b" or
    null), ``anytime_p``, ``low``, ``high`` (the confidence sequence on B minus A after the last case), ``looks``
    (a short list for plotting: ``n``, ``diff``, ``low``, ``high``, ``anytime_p``, ``decided``), and ``method``,
    ``order``, ``n_cases``, ``diff``, ``sentence``."""
    run = sequential.sequential_compare(frame, doc["a"]["config"], doc["b"]["config"], doc["alpha"], order)
    return {
        "decided_at": run.decided_at,
        "winner": run.winner,
        "winner_config": run.winner_config,
        "anytime_p": run.anytime_p,
        "low": run.low,
        "high": run.high,
        "diff": run.diff,
        "n_cases": run.n_cases,
        "alpha": run.alpha,
        "method": run.method,
        "order": order if order is not None else "file order",
        "sentence": sequential.room_sentence(run, doc["p_value"], doc["diff"]),
        "looks": [
            {"n": x.n, "diff": x.diff, "low": x.low, "high": x.high, "anytime_p": x.anytime_p, "decided": x.decided}
            for x in run.looks
        ],
    }


def _print_sequential(seq: dict[str, Any]) -> None:
    print(f"sequential ({seq['method']}; cases in {seq['order']}):")
    print(f"  {seq['sentence']}")
    print(
        f"  after {seq['n_cases']:,} cases: difference {100 * seq['diff']:+.1f} points, anytime p "
        f"{seq['anytime_p']:.3g}, {100 * (1 - seq['alpha']):g}% confidence sequence {100 * seq['low']:+.1f} to "
        f"{100 * seq['high']:+.1f}"
    )
    print("  running state (cases: difference, confidence sequence, anytime p):")
    looks = seq["looks"]
    step = max(1, len(looks) // 8)
    shown = [x for i, x in enumerate(looks) if i % step == 0 or x["n"] == seq["decided_at"] or i == len(looks) - 1]
    for x in shown:
        mark = "  <- decided" if x["n"] == seq["decided_at"] else ""
        print(
            f"    {x['n']:>7,}: {100 * x['diff']:+.1f} [{100 * x['low']:+.1f}, {100 * x['high']:+.1f}] "
            f"p {x['anytime_p']:.3g}{mark}"
        )


def read_compare_input(paths: Sequence[Path], metric: str | None = None) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The paired-results table of ``compare``'s files, and the notes from reading them.

    One file that is not an evaluation-harness output is read as a paired-results table (CSV/TSV/Parquet/JSONL);
    harness outputs (one or several, of one tool) are read with :func:`nkcore.harness.read_harness`, each
    file's model a config.
    """
    paths = list(paths)
    if len(paths) == 1 and path_tool(paths[0]) is None:
        if metric is not None:
            raise DataError("--metric applies to lm-evaluation-harness samples files; this is a paired-results table")
        return read_table(paths[0]), ()
    for path in paths:
        if path_tool(path) is None:
            raise DataError(
                f"{path}: not an evaluation-harness output; several files are read together only when each is one "
                "(lm-evaluation-harness samples_*.jsonl, inspect_ai .eval/.json, promptfoo results.json): "
                "give one paired-results file otherwise"
            )
    res = read_harness(read_paths(paths), metric=metric)
    if res.paired is None:
        raise DataError(
            f"these files hold one config ({', '.join(res.configs)}): a paired comparison needs two, "
            "give one file per model or run"
        )
    return res.paired, res.notes


def run_compare(args: argparse.Namespace) -> int:
    """Run ``compare``."""
    frame, notes = read_compare_input(args.file, getattr(args, "metric", None))
    doc = compare_report(frame, args.config_a, args.config_b, args.alpha, args.interval)
    order = getattr(args, "order", None)
    if order is not None and not getattr(args, "sequential", False):
        raise DataError("--order applies with --sequential (the order the cases came in)")
    if getattr(args, "sequential", False):
        doc["sequential"] = sequential_doc(frame, doc, order)
    if notes:
        doc["notes"] = list(notes)
    if args.json:
        print_json(doc)
        return 0
    doc = one_line_strings(doc)  # a name read from a file is one line in the text: no forged output line
    if doc["a_only"] is None:
        _print_case_report(doc)
        if "sequential" in doc:
            _print_sequential(doc["sequential"])
        return 0
    a, b = doc["a"], doc["b"]
    pct = f"{100 * doc['level']:g}%"
    method = "Wilson" if doc["interval_method"] == "wilson" else "Clopper-Pearson"
    print(
        f"{a['config']} -> {b['config']} on {plural(doc['n_cases'], 'paired case')} ({doc['dropped_cases']:,} dropped "
        "to pair them)"
    )
    for x in (a, b):
        print(
            f"  {x['config']}: {x['correct']} of {x['n']} correct = {x['accuracy']:.1%} "
            f"({pct} {method} interval {x['ci_low']:.1%} to {x['ci_high']:.1%})"
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
    balanced = doc["a_only"] == doc["b_only"] > 0
    print(
        f"  McNemar p: exact {doc['p_exact']:.3g}, mid-p {doc['p_midp']:.3g}, "
        f"chi-square with continuity correction {doc['p_chi2_cc']:.3g}"
        + (" (balanced table: chi-square 0, no correction, as R's mcnemar.test)" if balanced else "")
    )
    print(f"verdict: {doc['verdict']}")
    if "sequential" in doc:
        _print_sequential(doc["sequential"])
    for note in doc.get("notes", []):
        print(f"note: {note}")
    return 0


def _print_case_report(doc: dict[str, Any]) -> None:
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
