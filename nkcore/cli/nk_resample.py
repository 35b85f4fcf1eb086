"""``nk --ratings FILE --predictions FILE``: the question asked of the real data, by resampling it (``--method
simulate``) or by the resampler's numbers without Monte Carlo noise (``--method exact``): one cell, the grid or the
minimal budget per metric (:mod:`nkcore.nk.frames`)."""

from __future__ import annotations

import argparse
from typing import Any

from nkcore.cli.common import print_json
from nkcore.cli.nk_common import fixed_keys, predictions_frame, ratings_frame
from nkcore.errors import DataError
from nkcore.nk.grid import extrapolated, method_words, minimal_budgets
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.number_words import fmt_share_error
from nkcore.nk.sentences import minimal_budget_sentence

__all__ = ["run_resample"]


def run_resample(args: argparse.Namespace, budgets: tuple[int, ...], ks: tuple[int, ...]) -> int:
    """``--predictions``: models A and B (``--models``, default the file's first two) on the real data: cells (JSON
    adds ``model_a``, ``model_b``, ``extrapolated``) or, with ``--min-budget``, the minimal budgets (JSON adds ``n``,
    ``extrapolated``, ``pool``)."""
    from nkcore.nk.cell_words import resample_p_phrase
    from nkcore.nk.frames import exact_resample_frames, model_names, resample_frames
    from nkcore.nk.sentences import resample_sentence

    if args.ratings is None:
        raise DataError("--predictions needs --ratings (the real ratings to resample)")
    ratings = ratings_frame(args)
    preds = predictions_frame(args)
    names = model_names(preds)
    if args.models:
        pair = [m.strip() for m in args.models.split(",")]
        if len(pair) != 2:
            raise DataError(f"--models needs two names A,B; got {args.models!r}")
    elif len(names) >= 2:
        pair = list(names[:2])
    else:
        raise DataError("the predictions file needs at least two models")
    single = args.budget is not None
    if single:
        budgets, ks = (args.budget,), (args.k,)
    metrics = parse_metrics(args.metric, ("acc",) if single else PAPER_METRICS)
    if args.method == "exact":
        run_ = exact_resample_frames(ratings, preds, pair[0], pair[1], budgets, ks, metrics)
    else:
        run_ = resample_frames(ratings, preds, pair[0], pair[1], budgets, ks, metrics, args.rounds, args.seed)
    cells = list(run_.cells)
    if args.min_budget:
        found = minimal_budgets(cells, metrics)
        if args.json:
            policy = {"policy": "fixed"} if args.adaptive == "fixed" else {}
            print_json(
                [
                    {"metric": mb.metric, "budget": mb.budget, "k": mb.k, "p": mb.p}
                    | {"n": mb.n, "extrapolated": mb.extrapolated, "pool": mb.pool}
                    | policy
                    for mb in found
                ]
            )
        else:
            for mb in found:
                print(minimal_budget_sentence(mb))
        return 0
    if args.json:
        objs = [
            c.summary()
            | {"model_a": pair[0], "model_b": pair[1], "extrapolated": extrapolated(c)}
            | fixed_keys(args, c)
            for c in cells
        ]
        print_json(objs[0] if single and len(objs) == 1 else objs)
        return 0
    print(f"Real data: {run_.n_items:,} items, models A = {pair[0]}, B = {pair[1]}")
    for c in cells:
        beyond = (
            f" Extrapolation: the {c.n:,} items (N) are drawn from only {c.n_qualifying:,}, so each repeats about "
            f"{c.n / max(c.n_qualifying, 1):.1f} times; the data cannot say more than its {c.n_qualifying:,} items do."
            if extrapolated(c)
            else ""
        )
        print(
            f"- {resample_sentence(c, pair[0], pair[1])} {resample_p_phrase(c, pair[0], pair[1])}; "
            f"{c.n_qualifying:,} items have at least "
            f"{c.k} ratings ({method_words(c.method)}). Reproducibility (share of resampled evaluations with the full "
            f"data's winner) {_with_error(c)}."
            f"{beyond}"
        )
    return 0


def _with_error(c: Any) -> str:
    """The cell's reproducibility with its standard error: '0.83 ± 0.01 (± one standard error)'."""
    text = fmt_share_error(c.reproducibility, c.reproducibility_error)
    return f"{text} (± is one standard error)" if "±" in text else text
