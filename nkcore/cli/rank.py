"""``python -m nkcore rank``: which config ships, from M configs on the same cases (issue 54).

JSON keys are a contract: ``configs`` (a list, best observed first, of ``config``, ``mean``, ``ci_low``, ``ci_high``,
``rank_low``, ``rank_high``), ``could_be_best`` (config names), ``winner`` (``config``, ``naive``, ``corrected``,
``ci_low``, ``ci_high``), ``verdict`` (one sentence); with ``--cost-column``, ``frontier`` (the configs no other
config beats resolvably on quality at no higher mean cost: ``config``, ``cost``, ``mean``, cheapest first); with
``--margin``, ``margin`` (a proportion: POINTS / 100) and ``margin_tests``; with ``--nk`` (a ratings file, one row per
rating), ``nk``: the (N, K) reproducibility of the winner and the order (:func:`nkcore.manymodels.document.nk_doc`).
Extra keys may be added, never renamed. Scores and differences are fractions (0.04 = 4 points).

``compare --margin POINTS`` (:func:`non_inferiority_doc`): non-inferiority of B against A; the JSON adds ``margin``,
``non_inferior``, ``p_non_inferior`` (and ``p_equivalent``, ``equivalent``, ``margin_lower_bound``,
``margin_test``, ``margin_verdict``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from nkcore import rank
from nkcore.cli.common import one_line_strings, print_json
from nkcore.cli.paired_input import read_compare_files
from nkcore.common.formatting import percent, plural, points
from nkcore.manymodels.document import DEFAULT_DRAWS, DEFAULT_TARGET, nk_doc, parse_whole_list
from nkcore.rank.document import mean_costs, non_inferiority_doc, rank_doc

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
    r.add_argument(
        "--nk",
        action="store_true",
        help="ratings file (one row per rating: case, config, repeat, score): how often N items and K ratings per "
        "item give the full data's winner and order, and the smallest budget for a reproducible winner",
    )
    r.add_argument(
        "--nk-items", metavar="LIST", help="items (N) to try, e.g. 10,24,48,96 (default: 0.1x to 8x the data's)"
    )
    r.add_argument(
        "--nk-ratings", metavar="LIST", help="ratings per item (K) to try, e.g. 1,2,3 (default: 1 to the most)"
    )
    r.add_argument("--nk-draws", type=int, default=DEFAULT_DRAWS, help="resampled studies per (N, K) (default 1000)")
    r.add_argument(
        "--nk-gold",
        metavar="CONFIG",
        help="with --nk: the config whose ratings are the gold; the other configs are models scored against K of them "
        "per item (minus the mean absolute error)",
    )
    r.add_argument("--nk-target", type=float, default=DEFAULT_TARGET, help="winner agreement asked (default 0.95)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.set_defaults(func=run_rank)


def run_rank(args: argparse.Namespace) -> int:
    """Run ``rank``."""
    read = read_compare_files(args.file)
    doc = rank_doc(read.frame, args.alpha, args.margin, args.cost_column, args.resamples, args.seed)
    if args.nk:
        doc["nk"] = nk_doc(
            read.frame,
            parse_whole_list(args.nk_items, "--nk-items"),
            parse_whole_list(args.nk_ratings, "--nk-ratings"),
            args.nk_draws,
            args.nk_target,
            args.seed,
            args.nk_gold,
        )
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
    if "nk" in doc:
        print(f"(N, K): {doc['nk']['sentence']}")
        for g in doc["nk"]["grid"]:
            print(
                f"  N {g['items']:>6,}  K {g['ratings_per_item']:>3}  budget {g['budget']:>8,}  same winner "
                f"{100 * g['p_winner']:5.1f}%  same order {100 * g['p_order']:5.1f}%"
            )
    print(f"method: {doc['method']}")
    for note in doc.get("notes", []):
        print(f"note: {note}")
    return 0
