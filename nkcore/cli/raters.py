"""``python -m nkcore raters``: who rated (per-rater summary, crossed resampling) and ordered labels.

    python -m nkcore raters --ratings FILE [--predictions FILE --models A,B --crossed] [--ordinal] [--json]
        [--budgets 100,250,500,1000,2500] [--ks 1-10] [--metric acc] [--rounds 1000] [--seed 0] [--bins 5] [--top 10]
        [--subset COLUMN=VALUE] [--item-key COL1,COL2] [--keep first|last]   (files read as ``data`` reads them)

JSON keys (extra keys may be added, never renamed):
- ``raters``: ``n_raters``, ``n_ratings``, ``n_items``, ``alpha`` (Krippendorff's, at ``alpha_level``: ordinal for an
  ordered numeric scale such as 1-5, else nominal), ``alpha_nominal`` (what ``alpha_without`` is measured on),
  ``ratings_per_rater``
  ``[min, median, max]``, ``agreement`` (share of ratings agreeing with the plurality of the item's other
  ratings), ``sentence``, ``top_alpha_changers`` and ``per_rater`` (lists of ``{rater, ratings, scored,
  agreement, alpha_without, alpha_change}``); ``null`` when the ratings carry no rater ids (label counts);
- ``crossed`` (with ``--crossed``): ``models``, ``n_items``, ``n_raters``, ``n_ratings``, ``rounds``,
  ``skipped_k``, ``sentence`` and ``cells``, each ``{budget, k, n, metric, p, delta, ci_width, ci_low, ci_high,
  reproducibility, mean_gap, item_p, item_delta, item_ci_width, item_ci_low, item_ci_high, item_reproducibility,
  ci_width_ratio, short_share, item_short_share, full_gap, direction, rounds, rounds_used}`` (``item_*``: items
  resampled alone; ``ci_width_ratio`` = ci_width / item_ci_width);
- ``aggregate`` (with ``--aggregate plurality|dawid-skene|one-coin|mace|glad``): ``method``, ``n_items`` and, with ``--gold``
  (an ``item_id, gold_label`` file), ``accuracy`` (the aggregate's labels) and ``plurality_accuracy`` against it
  (also at the top level) and ``n_gold_items``; ``rater_quality``: one row per rater ``{rater, quality,
  n_ratings}`` (``nkcore.ratings.quality``: crowd-kit's Dawid-Skene, one-coin Dawid-Skene, MACE (quality = the
  rater's competence) and GLAD (quality = the chance to be right on a random item));
- ``population`` (with ``--population``; ``nkcore.ratings.population``): ``method``, ``n_labels``,
  ``reference_skill``, ``n_raters``, ``n_flagged``, ``classes`` (``{name, n_raters, share, quality, skill}``),
  ``raters`` (``{rater, skill, quality, flagged, disagreement, n_ratings}``), ``sentence`` and, with ``--shift``,
  ``shift``: ``{prior_alpha, eps, budgets, ks, rounds, seed, metrics}`` with ``metrics`` a list of ``{metric, alike,
  unweighted, weighted, best_k, sentence}`` (each minimal budget ``{budget, k, p, n}``; ``best_k`` per variant a
  list of ``{budget, k, p}``), else ``null``;
- ``ordinal`` (with ``--ordinal``): ``labels``, ``values``, ``bins`` (the bins in words, or ``null``), ``n_items``,
  ``k_max``, ``scores`` (per model ``{model, mae, wasserstein, spearman, n_items}``), ``check`` (with two models:
  ``{n, rounds, full_gap, p_by_k, smallest_k, holds, sentence}``) and ``sentence``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from nkcore.cli.common import print_json, to_jsonable
from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.kinds import KEEP_CHOICES

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``raters`` subcommand."""
    p = subparsers.add_parser(
        "raters",
        help="who rated: per-rater summary, crossed resampling of items and raters, ordered (Likert) labels",
        description="Per-rater summary of a ratings file (ratings per rater, agreement with the other raters, the "
        "raters whose removal moves Krippendorff's alpha the most); with --predictions and --crossed, how much "
        "resampling raters as well as items changes p, Delta and CI-width; with --ordinal, MAE, Wasserstein-1 and "
        "Spearman on ordered labels and whether MAE needs 25 ratings per item at 1,000 items.",
    )
    p.add_argument("--ratings", type=Path, required=True, help="ratings file (item, rater, label)")
    p.add_argument("--predictions", type=Path, help="predictions file (item, model, pred_label and/or p_<label>)")
    p.add_argument("--models", help="the two models to compare, A,B (default: the first two)")
    p.add_argument("--crossed", action="store_true", help="resample raters and items (needs --predictions)")
    p.add_argument("--ordinal", action="store_true", help="treat numeric labels as an ordered scale")
    p.add_argument("--budgets", help="crossed grid budgets (default 100,250,500,1000,2500)")
    p.add_argument("--ks", help="crossed grid K values, e.g. 1-10 (default 1-10)")
    p.add_argument("--metric", help="crossed metrics, comma list (default acc)")
    p.add_argument("--rounds", type=int, default=1000, help="resampling rounds per side (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0): same seed, same numbers")
    p.add_argument("--bins", type=int, default=5, help="bins for a wide ordinal scale (default 5)")
    p.add_argument("--top", type=int, default=10, help="raters listed as moving alpha the most (default 10)")
    p.add_argument(
        "--subset",
        metavar="COLUMN=VALUE",
        help="use only the rows whose COLUMN is VALUE, in both files (as in 'data'; e.g. one LeWiDi dataset)",
    )
    p.add_argument("--item-key", metavar="COL1,COL2", help="name each item by several columns joined (as in 'data')")
    p.add_argument(
        "--keep",
        choices=KEEP_CHOICES,
        help="repeated (item, rater) or (item, model) rows: keep the first or the last of each (default: refuse)",
    )
    p.add_argument(
        "--aggregate",
        choices=("plurality", "dawid-skene", "one-coin", "mace", "glad"),
        help="fit a rater-quality model (crowd-kit): each rater's quality and each item's label (plurality; "
        "Dawid-Skene, a confusion matrix per rater; one-coin Dawid-Skene, one accuracy per rater; MACE, each "
        "rater's competence; GLAD, each rater's ability as a chance to be right)",
    )
    p.add_argument(
        "--population",
        action="store_true",
        help="fit the rater population (one-coin Dawid-Skene skills as quality classes with their shares of the "
        "ratings), the rater mix the Budget page simulates",
    )
    p.add_argument(
        "--shift",
        action="store_true",
        help="with --population: the minimal budget and best K on the prior fitted to the ratings with raters alike, "
        "with the fitted population, and with it weighted by quality (simulated over --budgets x --ks)",
    )
    p.add_argument("--eps", type=float, default=0.3, help="with --shift: the simulation's eps (default 0.3)")
    p.add_argument(
        "--gold",
        type=Path,
        help="with --aggregate: a file of item_id, gold_label; the accuracy of the aggregate and of the plurality",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _pair(models: str | None, preds: pd.DataFrame) -> tuple[str, str]:
    from nkcore.nk.frames import model_names

    if models:
        pair = [m.strip() for m in models.split(",")]
        if len(pair) != 2 or not all(pair):
            raise DataError(f"--models needs two names A,B; got {models!r}")
        return pair[0], pair[1]
    names = model_names(preds)
    if len(names) < 2:
        raise DataError("the predictions file needs at least two models")
    return names[0], names[1]


def run(args: argparse.Namespace) -> int:
    """Run ``raters``; print plain text or JSON; return the exit code."""
    from nkcore.nk.grid import parse_int_list

    if args.rounds < 2:
        raise DataError(f"--rounds must be at least 2, got {args.rounds}")
    limits.check("rounds", args.rounds, "--rounds")
    if args.crossed and args.predictions is None:
        raise DataError("--crossed needs --predictions (the two models to compare)")
    if args.models and args.predictions is None:
        raise DataError("--models goes with --predictions")
    if args.predictions is not None and not (args.crossed or args.ordinal):
        raise DataError(
            "--predictions is read by --crossed (resampling raters as well as items) or --ordinal: add one of them, "
            "or leave the predictions out for the raters' view alone"
        )
    if args.top < 1:
        raise DataError(f"--top must be at least 1 (raters listed), got {args.top}")
    if args.gold is not None and args.aggregate is None:
        raise DataError("--gold goes with --aggregate plurality|dawid-skene|one-coin|mace|glad (the labels to score)")
    from nkcore.datafiles import read_predictions_table, read_ratings_table

    ratings = read_ratings_table(args.ratings, args.subset, args.item_key, args.keep)
    preds = (
        read_predictions_table(args.predictions, args.subset, args.item_key, args.keep)
        if args.predictions is not None
        else None
    )
    if args.ordinal and ratings["label"].nunique() > limits.get("labels"):
        # a wide ordered scale (more values than the label limit), as the Data page stores it: binned first, so
        # the raters' view and the crossed grid read the same bins as the ordinal view
        from nkcore.nk.ordinal import bin_frames

        ratings, preds, wide = bin_frames(ratings, preds, args.bins)
    else:
        wide = None
    out: dict[str, Any] = {"raters": None}
    if "rater" in ratings.columns:
        from nkcore.summary.raters import raters_frame

        s = raters_frame(ratings, args.top)
        out["raters"] = {
            "n_raters": s.n_raters,
            "n_ratings": s.n_ratings,
            "n_items": s.n_items,
            "alpha": s.scale_alpha,
            "alpha_level": s.scale_level,
            "alpha_nominal": s.alpha,
            "ratings_per_rater": list(s.ratings_per_rater),
            "agreement": s.agreement,
            "sentence": s.sentence,
            "top_alpha_changers": to_jsonable(s.top_changers),
            "per_rater": to_jsonable(s.raters),
        }
    if args.aggregate is not None:
        out |= _aggregate(ratings, args.aggregate, args.gold)
    if args.shift and not args.population:
        raise DataError("--shift goes with --population (the fitted raters whose effect it simulates)")
    if args.population:
        from nkcore.cli.raters_population import population_json

        out["population"] = population_json(ratings, args)
    if args.crossed:
        assert preds is not None
        from nkcore.nk.crossed import crossed_frames
        from nkcore.nk.metrics import parse_metrics

        a, b = _pair(args.models, preds)
        budgets = parse_int_list(args.budgets, "--budgets") if args.budgets else (100, 250, 500, 1000, 2500)
        ks = parse_int_list(args.ks, "--ks") if args.ks else tuple(range(1, 11))
        cr = crossed_frames(
            ratings, preds, a, b, budgets, ks, parse_metrics(args.metric, ("acc",)), args.rounds, args.seed
        )
        out["crossed"] = {
            "models": list(cr.models),
            "n_items": cr.n_items,
            "n_raters": cr.n_raters,
            "n_ratings": cr.n_ratings,
            "rounds": cr.rounds,
            "skipped_k": list(cr.skipped_k),
            "sentence": cr.sentence,
            "cells": [c.summary() for c in cr.cells],
        }
    if args.ordinal:
        from nkcore.nk.ordinal import ordinal_frames

        pair = _pair(args.models, preds) if preds is not None else (None, None)
        o = ordinal_frames(ratings, preds, pair[0], pair[1], args.bins, rounds=min(args.rounds, 500), seed=args.seed)
        out["ordinal"] = {
            "labels": list(o.labels),
            "values": list(o.values),
            "bins": o.binning.text if o.binning is not None else (wide.text if wide is not None else None),
            "n_items": o.n_items,
            "k_max": o.k_max,
            "scores": to_jsonable(o.scores),
            "check": to_jsonable(o.check),
            "sentence": o.sentence,
        }
    if args.json:
        print_json(out)
        return 0
    _print_text(out)
    return 0


def _aggregate(ratings: pd.DataFrame, method: str, gold: Path | None) -> dict[str, Any]:
    """``--aggregate`` (and ``--gold``): the ``aggregate`` and ``rater_quality`` keys (``nkcore.ratings.quality``)."""
    from nkcore.io import read_table
    from nkcore.ratings.quality import aggregate_ratings, gold_accuracy
    from nkcore.ratings.raters import rater_ratings_from_frame

    agg = aggregate_ratings(rater_ratings_from_frame(ratings), method)
    block: dict[str, Any] = {"method": agg.method, "n_items": agg.n_items}
    if gold is not None:
        acc = gold_accuracy(agg, read_table(gold))
        block |= {"accuracy": acc.accuracy, "plurality_accuracy": acc.plurality_accuracy, "n_gold_items": acc.n_items}
    got: dict[str, Any] = {
        "aggregate": block,
        "rater_quality": [{"rater": q.rater, "quality": q.quality, "n_ratings": q.n_ratings} for q in agg.raters],
    }
    if gold is not None:  # also at the top level, the same numbers
        got |= {"accuracy": block["accuracy"], "plurality_accuracy": block["plurality_accuracy"]}
    return got


def _f(x: object, spec: str = ".3f") -> str:
    return "n/a" if not isinstance(x, (int, float)) or x != x else format(x, spec)


def _print_text(out: dict[str, Any]) -> None:
    r = out.get("raters")
    if r is None:
        print("Raters: the ratings carry no rater ids (label counts), so there is no per-rater summary.")
    else:
        print(r["sentence"])
        print(f"{'rater':<32} {'ratings':>8} {'agreement':>9} {'alpha without':>13} {'change':>8}")
        for row in r["top_alpha_changers"]:
            print(
                f"{str(row['rater'])[:32]:<32} {row['ratings']:>8} {_f(row['agreement'], '.1%'):>9} "
                f"{_f(row['alpha_without']):>13} {_f(row['alpha_change'], '+.3f'):>8}"
            )
    a = out.get("aggregate")
    if a is not None:
        print()
        print(f"Aggregate: {a['method']} labels for {a['n_items']:,} items")
        if "accuracy" in a:
            print(
                f"Accuracy against gold ({a['n_gold_items']:,} items): {a['method']} {_f(a['accuracy'], '.1%')}, "
                f"plurality {_f(a['plurality_accuracy'], '.1%')}"
            )
        rows = sorted(out["rater_quality"], key=lambda q: (q["quality"] == q["quality"], q["quality"]))
        print(f"{'rater':<32} {'quality':>8} {'ratings':>8}   (lowest quality first)")
        for q in rows[:10]:
            print(f"{str(q['rater'])[:32]:<32} {_f(q['quality'], '.2f'):>8} {q['n_ratings']:>8}")
    c = out.get("crossed")
    if c is not None:
        print()
        print(
            f"Crossed resampling: A = {c['models'][0]}, B = {c['models'][1]}; {c['n_items']} items, {c['n_raters']} raters"
        )
        print(c["sentence"])
        print(
            f"{'metric':<8} {'budget':>7} {'K':>3} {'N':>5} {'p':>7} {'p items only':>12} {'CI-width':>9} "
            f"{'items only':>10} {'ratio':>6} {'short':>6}"
        )
        for cell in c["cells"]:
            print(
                f"{cell['metric']:<8} {cell['budget']:>7} {cell['k']:>3} {cell['n']:>5} {_f(cell['p']):>7} "
                f"{_f(cell['item_p']):>12} {_f(cell['ci_width'], '.4g'):>9} {_f(cell['item_ci_width'], '.4g'):>10} "
                f"{_f(cell['ci_width_ratio'], '.2f'):>6} {_f(cell['short_share'], '.0%'):>6}"
            )
    o = out.get("ordinal")
    if o is not None:
        print()
        print(f"Ordered labels: {', '.join(o['labels'])}" + (f" ({o['bins']})" if o["bins"] else ""))
        for s in o["scores"]:
            print(
                f"- {s['model']}: MAE of the item mean {_f(s['mae'])}, Wasserstein-1 {_f(s['wasserstein'])}, "
                f"Spearman {_f(s['spearman'])} over {s['n_items']} items"
            )
        print(o["sentence"])
    pop = out.get("population")
    if pop is not None:
        print()
        print(pop["sentence"])
        for c in pop["classes"]:
            print(f"- {c['name']}: {c['n_raters']} raters, {c['share']:.0%} of the ratings, quality {c['quality']:.2f}")
        for s in (pop["shift"] or {}).get("metrics", []):
            print(s["sentence"])
