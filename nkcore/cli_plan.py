"""``python -m nkcore plan``: what a paired evaluation can resolve (the Planner from the command line).

JSON keys are a contract (README.md): ``plan`` prints at least ``cases``, ``discordance``, ``min_resolvable_diff``,
``mde_at_power`` and, with ``--target-diff``, ``cases_for_target``. Extra keys may be added, never renamed.
Differences are fractions (0.04 = 4 points); infinities (nothing resolvable) are ``null``.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from nkcore import resolution
from nkcore.cli_util import print_json

__all__ = ["plan_report", "register", "run_plan"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``plan`` subcommand."""
    p = subparsers.add_parser(
        "plan",
        help="what an evaluation can resolve: smallest resolvable difference, MDE at power, cases for a target",
        description="From the number of cases and the discordance (share of cases two configs disagree on, a "
        "fraction), the smallest difference that can reach p < alpha at all (exact binomial critical count), the "
        "minimum detectable difference at a power (Connor 1987, with its exact power) and the cases needed for a "
        "target difference.",
    )
    p.add_argument("--cases", type=int, required=True, help="number of evaluation cases (1 to 10,000,000)")
    p.add_argument("--discordance", type=float, required=True, help="share of discordant cases, e.g. 0.06")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--power", type=float, default=0.8, help="power for the minimum detectable difference (0.8)")
    p.add_argument("--target-diff", type=float, help="a difference to resolve, as a fraction (0.01 = 1 point)")
    p.add_argument("--label-error", type=float, help="gold-label error rate, e.g. 0.03: adds the label-error floor")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_plan)


def plan_report(
    cases: int,
    discordance: float,
    alpha: float = 0.05,
    power: float = 0.8,
    target_diff: float | None = None,
    label_error: float | None = None,
) -> dict[str, Any]:
    """The ``plan`` JSON document."""
    p = resolution.plan(cases, discordance, alpha, power, target_diff)
    doc = dataclasses.asdict(p)
    if target_diff is None:
        for key in [k for k in doc if k == "target_diff" or k.startswith("cases_for_target")]:
            doc.pop(key)
    s = resolution.plan_sentences(p)
    doc["sentences"] = {k: v for k, v in dataclasses.asdict(s).items() if v is not None}
    if label_error is not None:
        floor = resolution.label_error_floor(label_error)
        doc["label_error"] = dataclasses.asdict(floor)
        doc["sentences"]["label_error"] = resolution.label_error_sentence(floor)
    return doc


def run_plan(args: argparse.Namespace) -> int:
    """Run ``plan``."""
    doc = plan_report(args.cases, args.discordance, args.alpha, args.power, args.target_diff, args.label_error)
    if args.json:
        print_json(doc)
        return 0
    for text in doc["sentences"].values():
        print(text)
    return 0
