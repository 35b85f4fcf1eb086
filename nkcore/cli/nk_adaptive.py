"""``nk --adaptive margin|sequential``: a policy spreading the budget's ratings unevenly over the items, simulated on
the prior or resampled from real data (:mod:`nkcore.nk.adaptive`, :mod:`nkcore.nk.adaptive_resample`).

With ``--min-budget --json`` each metric's row is ``{metric, budget, k, p, policy, n, extrapolated, pool}``: ``n`` the
items (N) of the minimal cell, ``extrapolated`` and ``pool`` as in the non-adaptive ``--min-budget`` on real data
(``nkcore.nk.best.MinimalBudget``: the cell draws more items than the pool of items with K ratings holds; on a
prior ``extrapolated`` is false and ``pool`` null)."""

from __future__ import annotations

import argparse
from typing import Any

from nkcore.cli.common import print_json
from nkcore.cli.nk_common import CI_WIDTH_WORDS, cell_json, predictions_frame, prior_of, ratings_frame
from nkcore.errors import DataError
from nkcore.nk.grid import extrapolated, minimal_budgets
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.sentences import minimal_budget_sentence

__all__ = ["run_adaptive"]


def run_adaptive(args: argparse.Namespace, budgets: tuple[int, ...], ks: tuple[int, ...]) -> int:
    """``--adaptive margin|sequential``: the policy's cells (one, a grid, or the minimal budget), simulated on the
    prior or resampled from real data (``nkcore.nk.adaptive``, ``nkcore.nk.adaptive_resample``)."""
    from nkcore.nk.adaptive import adaptive_cells, make_policy
    from nkcore.nk.adaptive_sentences import adaptive_cell_sentence
    from nkcore.nk.grid import configurations

    policy = make_policy(args.adaptive, args.first_share, args.contested, args.clear_margin, args.cap)
    single = args.budget is not None
    if single:
        budgets, ks = (args.budget,), (args.k,)
    metrics = parse_metrics(args.metric, ("acc",) if single else PAPER_METRICS)
    if args.predictions is not None:
        from nkcore.nk.adaptive_resample import adaptive_resample_frames
        from nkcore.nk.frames import model_names

        if args.ratings is None:
            raise DataError("--predictions needs --ratings (the real ratings to resample)")
        preds = predictions_frame(args)
        names = model_names(preds)
        pair = [m.strip() for m in args.models.split(",")] if args.models else list(names[:2])
        if len(pair) != 2:
            raise DataError(f"--models needs two names A,B; got {args.models!r}")
        _, cells_r = adaptive_resample_frames(
            ratings_frame(args), preds, pair[0], pair[1], budgets, ks, policy, metrics, args.rounds, args.seed
        )
        objs = [
            c.summary() | {"model_a": pair[0], "model_b": pair[1], "extrapolated": extrapolated(c)} for c in cells_r
        ]
        cells: list[Any] = list(cells_r)
    else:
        if args.models is not None:
            raise DataError("--models goes with --ratings and --predictions")
        prior, extra = prior_of(args)
        cfgs = [(c.budget, c.k) for c in configurations(budgets, ks)]
        cells = adaptive_cells(
            prior.concentration, args.eps, cfgs, policy, metrics, args.rounds, args.seed, args.workers
        )
        objs = [cell_json(c, prior, args.eps) | extra for c in cells]
    if args.min_budget:
        found = minimal_budgets(cells, metrics)
        if args.json:
            print_json(
                [
                    {"metric": mb.metric, "budget": mb.budget, "k": mb.k, "p": mb.p, "policy": policy.name}
                    | {"n": mb.n, "extrapolated": mb.extrapolated, "pool": mb.pool}
                    for mb in found
                ]
            )
        else:
            print(f"Policy: {policy.label()}")
            for mb in found:
                print(minimal_budget_sentence(mb))
        return 0
    if args.json:
        print_json(objs[0] if single and len(objs) == 1 else objs)
        return 0
    print(f"Policy: {policy.label()} (simulated: {args.rounds:,} rounds per side, seed {args.seed})")
    for c in cells:
        print(f"- {adaptive_cell_sentence(c)}")
    print(CI_WIDTH_WORDS)
    return 0
