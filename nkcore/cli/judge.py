"""``python -m nkcore judge``: judge scores corrected by a few human labels (PPI++), and how many labels to buy
(issue 55).

One row per (case[, config]); the human column is empty where no human labelled the case. JSON keys are a contract
(:mod:`nkcore.judge.document`): ``configs`` (a list of ``config``, ``n_cases``, ``n_human``, ``ppi_mean``,
``ci_low``, ``ci_high``, ``human_only_mean``, ``human_only_ci_low``, ``human_only_ci_high``, ``judge_only_mean``,
``effective_human_labels``) and ``verdict``; more keys may be added, never renamed.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from nkcore.cli.common import one_line_strings, print_json
from nkcore.errors import DataError
from nkcore.judge import SCALES, judge_doc, judge_report, read_judge_table
from nkcore.judge.ppi import INTERVALS, T_BELOW
from nkcore.judge.sentences import num

__all__ = ["register", "run_judge"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``judge`` subcommand."""
    r = subparsers.add_parser(
        "judge",
        help="judge scores corrected by a few human labels (PPI++), the judge's bias, and how many labels to buy",
        description="Read an evaluation scored by a judge on every case, with human labels on a random subset (the "
        "human column empty elsewhere), and estimate each config's mean on the human scale by prediction-powered "
        "inference (PPI++), beside the humans-only and judge-only numbers; the paired differences between configs; "
        "the judge's bias per config and whether it differs between configs; how many human labels a target "
        "half-width needs and, with prices, the cheapest split; with several judge columns, the judges as raters.",
    )
    r.add_argument("file", type=Path, help="judge table (CSV / TSV / Parquet / JSONL)")
    r.add_argument(
        "--judge-column",
        required=True,
        action="append",
        metavar="J",
        help="the judge's score column (repeat for several judges; the first is the one corrected)",
    )
    r.add_argument("--human-column", required=True, metavar="H", help="the human score column (empty: unlabelled)")
    r.add_argument(
        "--human-file", type=Path, metavar="F", help="the human labels in a second file, joined on --case-column"
    )
    r.add_argument("--config-column", metavar="C", help="the config (system, prompt, model) column")
    r.add_argument("--case-column", metavar="I", help="the case id column (configs on the same cases: paired)")
    r.add_argument("--price-human", type=float, metavar="P", help="price of one human label")
    r.add_argument("--price-judge", type=float, metavar="Q", help="price of one judge call")
    r.add_argument("--half-width", type=float, metavar="W", help="target half-width for the plan (human scale)")
    r.add_argument("--scale", choices=SCALES, default="auto", help="how scores are read (pairwise: 1 / 2 / tie)")
    r.add_argument(
        "--fill-missing-judge",
        action="store_true",
        help="fill a missing judge score with the judge's mean on the config (otherwise an error)",
    )
    r.add_argument(
        "--interval",
        choices=INTERVALS,
        default="auto",
        help=f"auto (default): the small-sample t interval for a config or pair with fewer than {T_BELOW} human "
        "labels, PPI++'s normal interval (as ppi-python's ppi_mean_ci) otherwise; normal or t forces one",
    )
    r.add_argument(
        "--small-sample",
        action="store_true",
        help="force the t interval with n - 1 variances for every config (same as --interval t)",
    )
    r.add_argument(
        "--normal-interval",
        action="store_true",
        help="force PPI++'s normal interval, equal to ppi-python's ppi_mean_ci (same as --interval normal)",
    )
    r.add_argument("--alpha", type=float, default=0.05, help="significance; intervals at 1 - alpha (default 0.05)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.set_defaults(func=run_judge)


def _prices(args: argparse.Namespace) -> None:
    given = [args.price_human is not None, args.price_judge is not None]
    if any(given) and not all(given):
        raise DataError("give both --price-human and --price-judge (or neither)")
    for flag, v in (("--price-human", args.price_human), ("--price-judge", args.price_judge)):
        if v is not None and not (math.isfinite(v) and v >= 0):
            raise DataError(f"{flag} must be a non-negative number; got {v}")
    if args.price_human is not None and args.price_human == 0:
        raise DataError("--price-human must be positive")


def _interval(args: argparse.Namespace) -> str:
    forced = {"t"} if args.small_sample else set()
    if args.normal_interval:
        forced.add("normal")
    if args.interval != "auto":
        forced.add(args.interval)
    if len(forced) > 1:
        raise DataError("choose one interval: --small-sample (t), --normal-interval or --interval")
    return forced.pop() if forced else "auto"


def run_judge(args: argparse.Namespace) -> int:
    """Run ``judge``."""
    _prices(args)
    interval = _interval(args)
    table = read_judge_table(
        args.file,
        args.judge_column,
        args.human_column,
        args.config_column,
        args.case_column,
        args.scale,
        args.fill_missing_judge,
        args.human_file,
    )
    report = judge_report(
        table,
        significance=args.alpha,
        half_width=args.half_width,
        price_human=args.price_human,
        price_judge=args.price_judge,
        interval=interval,
    )
    doc = judge_doc(report)
    if args.json:
        print_json(doc)
        return 0
    doc = one_line_strings(doc)
    pct = f"{100 * doc['level']:g}%"
    print(f"judge {doc['judge']!r}, {len(doc['configs'])} config(s), scale {doc['scale']}; intervals at {pct}")
    width = max(len(c["config"]) for c in doc["configs"])
    for c in doc["configs"]:
        print(
            f"  {c['config']:<{width}}  corrected {num(c['ppi_mean'])} ({num(c['ci_low'])} to {num(c['ci_high'])})"
            f"  humans only {num(c['human_only_mean'])} ({num(c['human_only_ci_low'])} to "
            f"{num(c['human_only_ci_high'])})  judge only {num(c['judge_only_mean'])}  bias {num(c['bias'])}"
            f"  {c['n_human']} of {c['n_cases']} cases labelled, worth {num(c['effective_human_labels'])}"
            f"  {c['interval']} interval"
            + (f"  widened: {c['sparse_note']}" if c["sparse_note"] else "")
            + ("  LESS RELIABLE (see notes)" if c["less_reliable"] else "")
        )
    for p in doc["pairs"][:10]:
        print(
            f"  {p['config_a']} - {p['config_b']}: corrected {num(p['ppi_difference'])} ({num(p['ci_low'])} to "
            f"{num(p['ci_high'])}), p = {p['p_value']:.2g}"
        )
    print(f"verdict: {doc['verdict']}")
    for note in doc["notes"]:
        print(f"note: {note}")
    return 0
