"""``nk`` on a prior (a preset, a typed alpha or one fitted to ``--ratings``): one cell, the grid (of one or several
priors and eps values) and the minimal budget per metric, by the exact engine or the paper's simulation."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from nkcore.cli.common import print_json
from nkcore.cli.nk_common import CI_WIDTH_WORDS, cell_json, fixed_keys, header, prior_of
from nkcore.common import limits
from nkcore.nk.exact import exact_cell, exact_grid
from nkcore.nk.exact.engine import check_grid_work
from nkcore.nk.exact.sweep import exact_grids
from nkcore.nk.grid import minimal_budget_search, minimal_budgets, simulate_cell, simulate_grid
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.number_words import fmt_share_error
from nkcore.nk.priors import Prior, get_prior
from nkcore.nk.sentences import cell_sentence, minimal_budget_sentence

__all__ = ["GRID_LEGEND", "print_grid", "run_cell", "run_grid", "run_grids", "run_min_budget"]

GRID_LEGEND = (
    "Columns: items (N) x ratings per item (K) = the budget (ratings); p: how often an evaluation with no real "
    "difference between the models shows a gap at least as large as one where A really is better (below 0.05: 'A "
    "beats B' is repeatable); Delta: the average score gap A - B; CI-width: the spread (2.5% to 97.5%) of that gap "
    "over repeated evaluations; repro: the share of repeated evaluations in which A comes out ahead, and +/- its "
    "standard error (the simulation's Monte Carlo error, or the exact engine's from its drawn items; 0: exact)."
)


def run_cell(args: argparse.Namespace, prior: Prior, extra: dict[str, Any]) -> int:
    """``--budget B --k K``: the cell of every metric (default acc), with the fit's keys ``extra`` in the JSON."""
    metrics = parse_metrics(args.metric, ("acc",))
    if args.method == "exact":
        cells = exact_cell(prior.concentration, args.eps, args.budget, args.k, metrics)
    else:
        cells = simulate_cell(
            prior.concentration, args.eps, args.budget, args.k, metrics, args.rounds, args.seed, args.workers
        )
    if args.json:
        objs = [cell_json(c, prior, args.eps) | extra | fixed_keys(args, c) for c in cells]
        print_json(objs[0] if len(objs) == 1 else objs)
    else:
        print(header(prior, args.eps))
        for c in cells:
            print(
                f"- {cell_sentence(c)} CI-width {c.ci_width:.3g}. Reproducibility (share of evaluations with A "
                f"ahead) {_with_error(c)}."
            )
        print(CI_WIDTH_WORDS)
    return 0


def run_grid(args: argparse.Namespace, prior: Prior, budgets: tuple[int, ...], ks: tuple[int, ...]) -> int:
    """``--grid``: every cell of budgets x ks for each metric (default acc, tv, wins, kl), then the minimal budgets."""
    metrics = parse_metrics(args.metric, PAPER_METRICS)
    if args.method == "exact":
        check_grid_work([len(prior.concentration)], budgets, ks, metrics)
        cells = exact_grid(prior.concentration, args.eps, budgets, ks, metrics)
    else:
        cells = simulate_grid(prior.concentration, args.eps, budgets, ks, metrics, args.rounds, args.seed, args.workers)
    if args.json:
        print_json([cell_json(c, prior, args.eps) | fixed_keys(args, c) for c in cells])
    else:
        print_grid(prior, args.eps, cells, metrics)
        print(GRID_LEGEND)
    return 0


def run_min_budget(args: argparse.Namespace, prior: Prior, budgets: tuple[int, ...], ks: tuple[int, ...]) -> int:
    """``--min-budget``: the smallest budget of the grid where some K reaches p < 0.05, per metric; the exact engine
    also gives the smallest budget at any whole N (``any_budget``)."""
    metrics = parse_metrics(args.metric, PAPER_METRICS)
    exact = args.method == "exact"
    if exact:
        check_grid_work([len(prior.concentration)], budgets, ks, metrics)
        found = minimal_budgets(exact_grid(prior.concentration, args.eps, budgets, ks, metrics), metrics)
    else:
        found = minimal_budget_search(
            prior.concentration, args.eps, budgets, ks, metrics, args.rounds, args.seed, args.workers
        )
    # the exact engine also answers between the grid's budgets (any whole N): the Budget page's headline number
    anywhere = {mb.metric: any_budget(prior.concentration, args.eps, mb.metric, ks) for mb in found} if exact else {}
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
        print(header(prior, args.eps))
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


def any_budget(prior: Sequence[float], eps: float, metric: str, ks: Sequence[int]) -> dict[str, Any] | None:
    """The smallest budget at any whole N (the exact engine's continuous search, as the Budget page answers), as a
    JSON object (budget, k, p; null values when none up to 50,000), or None for a metric the engine does not cover."""
    from nkcore.nk.exact.search import min_budget_continuous
    from nkcore.nk.metrics import ITEM_METRICS

    if metric not in ITEM_METRICS:
        return None
    mb = min_budget_continuous(prior, eps, metric, ks, max_budget=50_000)
    return {"budget": mb.budget, "k": mb.k, "p": mb.p}


def run_grids(
    args: argparse.Namespace, names: list[str | None], eps_values: list[float], budgets: tuple, ks: tuple
) -> int:
    """``--grid`` for several priors and/or eps, by the exact engine: every grid, prior by prior, then eps by eps."""
    priors = [get_prior(str(n)) for n in names] if args.prior is not None else [prior_of(args)[0]]
    metrics = parse_metrics(args.metric, PAPER_METRICS)
    jobs = [(prior, eps) for prior in priors for eps in eps_values]
    limits.check("grids", len(jobs), "the request (priors x eps values)")
    check_grid_work(
        [len(prior.concentration) for prior, _ in jobs], budgets, ks, metrics, "the request (priors x eps values)"
    )
    grids = exact_grids([(prior.concentration, eps) for prior, eps in jobs], budgets, ks, metrics)
    if args.json:
        print_json(
            [
                cell_json(c, prior, eps) | fixed_keys(args, c)
                for (prior, eps), cells in zip(jobs, grids, strict=True)
                for c in cells
            ]
        )
        return 0
    for (prior, eps), cells in zip(jobs, grids, strict=True):
        print_grid(prior, eps, cells, metrics)
        print()
    print(GRID_LEGEND)
    return 0


def print_grid(prior: Prior, eps: float, cells: list, metrics: tuple[str, ...]) -> None:
    """One grid as text: the header, a row per cell (metric, budget, K, N, p, Delta, CI-width, repro), then the
    minimal budget of each metric."""
    print(header(prior, eps))
    print(
        f"{'metric':<10} {'budget':>7} {'K':>4} {'N':>6} {'p':>7} {'Delta':>9} {'CI-width':>9} {'repro':>6} {'+/-':>7}"
    )
    for c in cells:
        err = c.reproducibility_error
        print(
            f"{c.metric:<10} {c.budget:>7} {c.k:>4} {c.n:>6} {c.p:>7.3f} {c.delta:>9.4g} {c.ci_width:>9.4g} "
            f"{c.reproducibility:>6.2f} {'n/a' if err != err else f'{err:.1g}':>7}"
        )
    for mb in minimal_budgets(cells, metrics):
        print(minimal_budget_sentence(mb))


def _with_error(c: Any) -> str:
    """The cell's reproducibility with its standard error: '0.83 ± 0.01 (± one standard error)'."""
    text = fmt_share_error(c.reproducibility, c.reproducibility_error)
    return f"{text} (± is one standard error)" if "±" in text else text
