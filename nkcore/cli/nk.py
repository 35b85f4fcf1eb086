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

The outputs are in :mod:`nkcore.cli.nk_grid` (a prior: one cell, the grid, the minimal budget),
:mod:`nkcore.cli.nk_resample` (real data) and :mod:`nkcore.cli.nk_adaptive` (``--adaptive margin|sequential``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from nkcore.cli.nk_adaptive import run_adaptive
from nkcore.cli.nk_common import prior_of
from nkcore.cli.nk_grid import run_cell, run_grid, run_grids, run_min_budget
from nkcore.cli.nk_resample import run_resample
from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.kinds import KEEP_CHOICES
from nkcore.nk.grid import PAPER_BUDGETS, PAPER_KS, parse_int_list
from nkcore.nk.metrics import ALL_METRICS
from nkcore.nk.priors import preset_names

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
        return run_adaptive(args, budgets, ks)
    if len(eps_values) > 1 or len(names) > 1:
        if not args.grid or args.predictions is not None or args.method != "exact":
            raise DataError(
                "several priors or eps values go with --grid and the exact engine (without --predictions): one grid "
                "each; for the simulation, one call per prior and eps"
            )
        return run_grids(args, names, eps_values, budgets, ks)
    args.eps = eps_values[0]
    if args.predictions is not None:
        return run_resample(args, budgets, ks)
    if args.models is not None:
        raise DataError("--models goes with --ratings and --predictions")
    prior, extra = prior_of(args)
    if args.budget is not None:
        return run_cell(args, prior, extra)
    if args.grid:
        return run_grid(args, prior, budgets, ks)
    return run_min_budget(args, prior, budgets, ks)


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
