"""``python -m nkcore nk``: the paper's (N, K) reproducibility engine from the command line.

    python -m nkcore nk (--prior NAME | --alpha a1,a2,... | --ratings FILE) [--eps 0.3]
        (--budget B --k K | --grid | --min-budget) [--metric acc|tv|wins|kl|kl_smooth|js|ce|f1]
        [--method exact|simulate] [--rounds 1000] [--seed 0] [--json]
    python -m nkcore nk --prior all --eps 0.1,0.2,0.3,0.4 --grid --metric acc,tv,wins,kl,kl_smooth,js,ce

JSON keys are a contract (issue 5): a cell has ``budget``, ``k``, ``n``, ``metric``, ``p``, ``delta``,
``ci_width``, ``reproducibility`` (plus extras); ``--grid`` prints a list of cells; ``--min-budget`` a list of
``{"metric", "budget", "k", "p"}``. Extra keys may be added, never renamed: a cell also has ``method``
("lattice", "edgeworth": the exact engine; "simulate") and the engine's accuracy ``p_error``, ``delta_error``,
``ci_width_error``. ``--method exact`` (the default) computes the numbers without Monte Carlo noise
(``nkcore.nk.exact``; ``--rounds`` and ``--seed`` then only matter for macro F1, which is simulated);
``--method simulate`` runs the paper's simulation. With ``--grid``, ``--prior`` and ``--eps`` take comma lists
(``--prior all``: every preset) for the exact engine: the grids of every (prior, eps), prior by prior, in one list of
cells (each names its ``prior`` and ``eps``; one prior and one eps print exactly what they always did), computed
together, whole grids on the cores (``nkcore.nk.exact.sweep.exact_grids``).
With ``--ratings FILE`` the prior is fitted to the file (Dirichlet-multinomial ML); adding
``--predictions FILE --models A,B`` asks the question of the real data instead of simulating: ``--method exact``
computes the resampler's numbers without Monte Carlo noise (``nkcore.nk.frames.exact_resample_frames``),
``--method simulate`` resamples (``resample_frames``, ``--rounds``, ``--seed``). The files are read as ``data``
reads them (:func:`nkcore.datafiles.read_ratings`), with the same ``--subset COLUMN=VALUE``, ``--item-key COL1,COL2``
and ``--keep first|last``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from nkcore.cli_util import print_json
from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.kinds import KEEP_CHOICES
from nkcore.nk.exact import exact_cell, exact_grid
from nkcore.nk.exact.sweep import exact_grids
from nkcore.nk.grid import (
    PAPER_BUDGETS,
    PAPER_KS,
    extrapolated,
    method_words,
    minimal_budget_search,
    minimal_budgets,
    parse_int_list,
    simulate_cell,
    simulate_grid,
)
from nkcore.nk.metrics import ALL_METRICS, PAPER_METRICS, parse_metrics
from nkcore.nk.priors import Prior, get_prior, preset_names, resolve_prior
from nkcore.nk.sentences import cell_sentence, minimal_budget_sentence

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``nk`` subcommand."""
    p = subparsers.add_parser(
        "nk",
        help="(N, K) budgets: p-value, Delta, CI-width and reproducibility of items (N) x ratings per item (K)",
        description="Simulate the paper's model (Forest vs Tree, AAAI-26) for a prior (alpha) and eps: how reliably "
        "does a budget of N x K ratings tell a better model A from a worse B? One cell, the paper's grid, or the "
        "minimal budget per metric.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--prior",
        help=f"preset prior: {', '.join(preset_names())}; with --grid also a comma list, or 'all' for every preset",
    )
    src.add_argument("--alpha", help="a typed prior, e.g. 1.38,1.33 (one value per label category)")
    src.add_argument("--ratings", type=Path, help="ratings file (item, rater, label): fit the prior to it")
    p.add_argument("--predictions", type=Path, help="with --ratings: predictions file; resample the real data")
    p.add_argument("--models", help="with --predictions: the two models to compare, A,B")
    p.add_argument(
        "--subset",
        metavar="COLUMN=VALUE",
        help="with --ratings: use only the rows whose COLUMN is VALUE, in both files (as in 'data'; e.g. --subset "
        "snli for ChaosNLI)",
    )
    p.add_argument(
        "--item-key",
        metavar="COL1,COL2",
        help="with --ratings: name each item by several columns joined, in both files (as in 'data')",
    )
    p.add_argument(
        "--keep",
        choices=KEEP_CHOICES,
        help="with --ratings: repeated (item, rater) or (item, model) rows: keep the first or the last of each "
        "(default: refuse)",
    )
    p.add_argument(
        "--eps",
        default="0.3",
        help="how far model B is pulled towards noise (default 0.3); with --grid also a comma list, e.g. 0.1,0.2,0.3",
    )
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--budget", type=int, help="one cell: the budget N x K (use with --k)")
    mode.add_argument("--grid", action="store_true", help="every cell of the grid (the paper's 282 by default)")
    mode.add_argument("--min-budget", action="store_true", help="smallest budget where some K reaches p < 0.05")
    p.add_argument("--k", type=int, help="ratings per item (K) of the single cell")
    p.add_argument(
        "--metric",
        help=f"one or more of {', '.join(ALL_METRICS)} (comma list); default: acc for one "
        "cell, acc,tv,wins,kl for --grid / --min-budget",
    )
    p.add_argument("--budgets", help="grid budgets, e.g. 100,250,500,1000 (default: the paper's nine)")
    p.add_argument("--ks", help="grid K values, e.g. 1-10,20-500:20 (default: the paper's 35)")
    p.add_argument(
        "--method",
        choices=("exact", "simulate"),
        default="exact",
        help="exact: the paper's numbers in the limit of infinitely many rounds, no seed (default; real data: "
        "the resampler's numbers without Monte Carlo noise); simulate: the paper's simulation, or resampling the real "
        "data, with --rounds and --seed. Macro F1 is simulated either way (its cells say method 'simulate')",
    )
    p.add_argument("--rounds", type=int, default=1000, help="alternative and null datasets each (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0): same seed, same numbers")
    p.add_argument(
        "--workers", type=int, default=None, help="worker threads (default: all cores; no effect on numbers)"
    )
    p.add_argument(
        "--adaptive",
        choices=("fixed", "margin", "sequential"),
        help="how the budget's ratings are spread over the items: fixed (K each: the same numbers as without the "
        "flag), margin (a first round for every item, the rest to the most contested items by the plurality's "
        "margin), sequential (one more rating at a time until the plurality's lead is clear or a cap per item). "
        "margin and sequential are simulated (or resampled on real data) with --rounds and --seed",
    )
    p.add_argument(
        "--first-share", type=float, default=0.5, help="with --adaptive: the first round's share of K (default 0.5)"
    )
    p.add_argument(
        "--contested",
        type=float,
        default=0.2,
        help="with --adaptive margin: the share of items (most contested first) that get the rest (default 0.2)",
    )
    p.add_argument(
        "--clear-margin",
        type=int,
        default=2,
        help="with --adaptive sequential: the plurality's lead (ratings) at which an item is clear (default 2)",
    )
    p.add_argument(
        "--cap",
        type=float,
        default=3.0,
        help="with --adaptive sequential: at most CAP x K ratings per item (default 3)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _ratings_frame(args: argparse.Namespace) -> pd.DataFrame:
    """The ``--ratings`` file as a label-count table (item + ``count_<label>``), read as ``data`` reads it
    (:func:`nkcore.datafiles.read_ratings_counts`: ``--subset``, ``--item-key``, ``--keep``)."""
    from nkcore.datafiles import read_ratings_counts

    return read_ratings_counts(args.ratings, args.subset, args.item_key, args.keep)


def _predictions_frame(args: argparse.Namespace) -> pd.DataFrame:
    """The ``--predictions`` file as ``data`` reads it, with the ratings' ``--subset`` (when the file has that
    subset), ``--item-key`` and ``--keep`` (:func:`nkcore.datafiles.read_predictions_table`)."""
    from nkcore.datafiles import read_predictions_table

    return read_predictions_table(args.predictions, args.subset, args.item_key, args.keep)


def _prior(args: argparse.Namespace) -> tuple[Prior, dict[str, Any]]:
    if args.ratings is None:
        return resolve_prior(args.prior, args.alpha), {}
    from nkcore.nk.frames import fit_prior_frame

    fitted = fit_prior_frame(_ratings_frame(args))
    extra = {"labels": list(fitted.labels), "fit_mab": fitted.fit.mab, "fit_warnings": list(fitted.fit.warnings)}
    return Prior(f"fitted to {args.ratings.name}", fitted.fit.alpha, "Dirichlet-multinomial ML fit"), extra


def _cell_json(cell: Any, prior: Prior, eps: float | None) -> dict[str, Any]:
    d = dict(cell.summary())
    d["prior"] = prior.name if prior is not None else None
    if eps is not None:
        d["eps"] = eps
    d["significant"] = bool(cell.p < 0.05)
    return d


_FIXED_KEYS = ("policy", "mean_ratings_per_item", "max_ratings_per_item")


def _fixed_keys(args: argparse.Namespace, cell: Any) -> dict[str, Any]:
    """``--adaptive fixed``: the cell's keys of the adaptive contract (K ratings per item), else nothing."""
    if getattr(args, "adaptive", None) != "fixed" or not hasattr(cell, "k"):
        return {}
    return {"policy": "fixed", "mean_ratings_per_item": float(cell.k), "max_ratings_per_item": int(cell.k)}


def run(args: argparse.Namespace) -> int:
    """Run ``nk``; print plain text or JSON; return the exit code."""
    if args.rounds < 2:
        raise DataError(f"--rounds must be at least 2, got {args.rounds}")
    limits.check("rounds", args.rounds, "--rounds")
    if args.budget is not None:
        limits.check("budget", args.budget, "--budget")
    if args.k is not None and args.budget is not None and args.k > args.budget:
        raise DataError(f"--k (ratings per item) = {args.k:,} is larger than --budget {args.budget:,}: no item fits")
    if args.budget is not None and args.k is None:
        raise DataError("--budget needs --k (ratings per item)")
    if args.budget is None and args.k is not None:
        raise DataError("--k goes with --budget (or use --ks with --grid)")
    if args.ratings is None:
        for flag, value in (("--subset", args.subset), ("--item-key", args.item_key), ("--keep", args.keep)):
            if value is not None:
                raise DataError(f"{flag} goes with --ratings (it says which rows of the ratings file to use)")
    budgets = parse_int_list(args.budgets, "--budgets") if args.budgets else PAPER_BUDGETS
    ks = parse_int_list(args.ks, "--ks") if args.ks else PAPER_KS
    eps_values = _eps_values(args.eps)
    names = _prior_names(args.prior)
    if args.adaptive in ("margin", "sequential"):
        if len(eps_values) > 1 or len(names) > 1:
            raise DataError("--adaptive margin / sequential take one prior and one eps (one call each)")
        args.eps = eps_values[0]
        return _run_adaptive(args, budgets, ks)
    if len(eps_values) > 1 or len(names) > 1:
        if not args.grid or args.predictions is not None or args.method != "exact":
            raise DataError(
                "several priors or eps values go with --grid and the exact engine (without --predictions): one grid "
                "each; for the simulation, one call per prior and eps"
            )
        return _run_grids(args, names, eps_values, budgets, ks)
    args.eps = eps_values[0]
    if args.predictions is not None:
        return _run_resample(args, budgets, ks)
    if args.models is not None:
        raise DataError("--models goes with --ratings and --predictions")
    prior, extra = _prior(args)
    single = args.budget is not None
    metrics = parse_metrics(args.metric, ("acc",) if single else PAPER_METRICS)
    exact = args.method == "exact"
    if single:
        if exact:
            cells = exact_cell(prior.alpha, args.eps, args.budget, args.k, metrics)
        else:
            cells = simulate_cell(
                prior.alpha, args.eps, args.budget, args.k, metrics, args.rounds, args.seed, args.workers
            )
        if args.json:
            objs = [_cell_json(c, prior, args.eps) | extra | _fixed_keys(args, c) for c in cells]
            print_json(objs[0] if len(objs) == 1 else objs)
        else:
            print(_header(prior, args.eps))
            for c in cells:
                print(f"- {cell_sentence(c)} CI-width {c.ci_width:.3g}.")
            print(CI_WIDTH_WORDS)
        return 0
    if args.grid:
        if exact:
            cells = exact_grid(prior.alpha, args.eps, budgets, ks, metrics)
        else:
            cells = simulate_grid(prior.alpha, args.eps, budgets, ks, metrics, args.rounds, args.seed, args.workers)
        if args.json:
            print_json([_cell_json(c, prior, args.eps) | _fixed_keys(args, c) for c in cells])
        else:
            _print_grid(prior, args.eps, cells, metrics)
            print(GRID_LEGEND)
        return 0
    if exact:
        found = minimal_budgets(exact_grid(prior.alpha, args.eps, budgets, ks, metrics), metrics)
    else:
        found = minimal_budget_search(prior.alpha, args.eps, budgets, ks, metrics, args.rounds, args.seed, args.workers)
    # the exact engine also answers between the grid's budgets (any whole N): the Budget page's headline number
    anywhere = {mb.metric: _any_budget(prior.alpha, args.eps, mb.metric, ks) for mb in found} if exact else {}
    if args.json:
        policy = {"policy": "fixed"} if args.adaptive == "fixed" else {}
        print_json(
            [
                {"metric": mb.metric, "budget": mb.budget, "k": mb.k, "p": mb.p}
                | ({"any_budget": anywhere[mb.metric]} if mb.metric in anywhere else {})
                | policy
                for mb in found
            ]
        )
    else:
        print(_header(prior, args.eps))
        for mb in found:
            line = minimal_budget_sentence(mb)
            other = anywhere.get(mb.metric)
            if other is not None and other["budget"] is not None:
                line = line.rstrip(".") + (
                    f"; between the grid's budgets (any number of items) it first does at {other['budget']:,} ratings "
                    f"with K = {other['k']}, the Budget page's answer."
                )
            print(line)
    return 0


def _any_budget(alpha: Sequence[float], eps: float, metric: str, ks: Sequence[int]) -> dict[str, Any] | None:
    """The smallest budget at any whole N (the exact engine's continuous search, as the Budget page answers), as a
    JSON object (budget, k, p; null values when none up to 50,000), or None for a metric the engine does not cover."""
    from nkcore.nk.exact.search import min_budget_continuous
    from nkcore.nk.metrics import ITEM_METRICS

    if metric not in ITEM_METRICS:
        return None
    mb = min_budget_continuous(alpha, eps, metric, ks, max_budget=50_000)
    return {"budget": mb.budget, "k": mb.k, "p": mb.p}


CI_WIDTH_WORDS = (
    "CI-width: the spread (2.5% to 97.5%) of the score gap between A and B over repeated evaluations of this size; "
    "the smaller, the more one evaluation can be trusted."
)
GRID_LEGEND = (
    "Columns: items (N) x ratings per item (K) = the budget (ratings); p: how often an evaluation with no real "
    "difference between the models shows a gap at least as large as one where A really is better (below 0.05: 'A "
    "beats B' is repeatable); Delta: the average score gap A - B; CI-width: the spread (2.5% to 97.5%) of that gap "
    "over repeated evaluations; repro: the share of repeated evaluations in which A comes out ahead."
)


def _eps_values(text: str) -> list[float]:
    """``--eps``: one number, or a comma list of them (each checked by the engine, in [0, 1])."""
    parts = [x.strip() for x in str(text).split(",")]
    try:
        return [float(x) for x in parts]
    except ValueError:
        raise DataError(f"--eps must be a number or a comma list of numbers, e.g. 0.1,0.3; got {text!r}") from None


def _prior_names(text: str | None) -> list[str | None]:
    """``--prior``: one name (or None: --alpha or --ratings give the prior), a comma list, or 'all'."""
    if text is None:
        return [None]
    if text.strip().lower() == "all":
        return [*preset_names()]
    names: list[str | None] = [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise DataError("--prior needs a preset name, a comma list of them, or 'all'")
    return names


def _run_grids(
    args: argparse.Namespace, names: list[str | None], eps_values: list[float], budgets: tuple, ks: tuple
) -> int:
    """``--grid`` for several priors and/or eps, by the exact engine: every grid, prior by prior, then eps by eps."""
    priors = [get_prior(str(n)) for n in names] if args.prior is not None else [_prior(args)[0]]
    metrics = parse_metrics(args.metric, PAPER_METRICS)
    jobs = [(prior, eps) for prior in priors for eps in eps_values]
    limits.check("grids", len(jobs), "the request (priors x eps values)")
    grids = exact_grids([(prior.alpha, eps) for prior, eps in jobs], budgets, ks, metrics)
    if args.json:
        print_json(
            [
                _cell_json(c, prior, eps) | _fixed_keys(args, c)
                for (prior, eps), cells in zip(jobs, grids, strict=True)
                for c in cells
            ]
        )
        return 0
    for (prior, eps), cells in zip(jobs, grids, strict=True):
        _print_grid(prior, eps, cells, metrics)
        print()
    print(GRID_LEGEND)
    return 0


def _print_grid(prior: Prior, eps: float, cells: list, metrics: tuple[str, ...]) -> None:
    print(_header(prior, eps))
    print(f"{'metric':<10} {'budget':>7} {'K':>4} {'N':>6} {'p':>7} {'Delta':>9} {'CI-width':>9} {'repro':>6}")
    for c in cells:
        print(
            f"{c.metric:<10} {c.budget:>7} {c.k:>4} {c.n:>6} {c.p:>7.3f} {c.delta:>9.4g} {c.ci_width:>9.4g} "
            f"{c.reproducibility:>6.2f}"
        )
    for mb in minimal_budgets(cells, metrics):
        print(minimal_budget_sentence(mb))


def _header(prior: Prior, eps: float) -> str:
    alpha = ", ".join(f"{a:.4g}" for a in prior.alpha)
    return f"Prior (alpha) {prior.name}: [{alpha}] (M = {prior.m} labels), eps = {eps}"


def _run_resample(args: argparse.Namespace, budgets: tuple[int, ...], ks: tuple[int, ...]) -> int:
    from nkcore.nk.cell_words import resample_p_phrase
    from nkcore.nk.frames import exact_resample_frames, model_names, resample_frames
    from nkcore.nk.sentences import resample_sentence

    if args.ratings is None:
        raise DataError("--predictions needs --ratings (the real ratings to resample)")
    ratings = _ratings_frame(args)
    preds = _predictions_frame(args)
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
            | _fixed_keys(args, c)
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
            f"{c.k} ratings ({method_words(c.method)}).{beyond}"
        )
    return 0


def _run_adaptive(args: argparse.Namespace, budgets: tuple[int, ...], ks: tuple[int, ...]) -> int:
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
        preds = _predictions_frame(args)
        names = model_names(preds)
        pair = [m.strip() for m in args.models.split(",")] if args.models else list(names[:2])
        if len(pair) != 2:
            raise DataError(f"--models needs two names A,B; got {args.models!r}")
        _, cells_r = adaptive_resample_frames(
            _ratings_frame(args), preds, pair[0], pair[1], budgets, ks, policy, metrics, args.rounds, args.seed
        )
        objs = [
            c.summary() | {"model_a": pair[0], "model_b": pair[1], "extrapolated": extrapolated(c)} for c in cells_r
        ]
        cells: list[Any] = list(cells_r)
    else:
        if args.models is not None:
            raise DataError("--models goes with --ratings and --predictions")
        prior, extra = _prior(args)
        cfgs = [(c.budget, c.k) for c in configurations(budgets, ks)]
        cells = adaptive_cells(prior.alpha, args.eps, cfgs, policy, metrics, args.rounds, args.seed, args.workers)
        objs = [_cell_json(c, prior, args.eps) | extra for c in cells]
    if args.min_budget:
        found = minimal_budgets(cells, metrics)
        if args.json:
            print_json(
                [
                    {"metric": mb.metric, "budget": mb.budget, "k": mb.k, "p": mb.p, "policy": policy.name}
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
