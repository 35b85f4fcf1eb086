"""Cells of the (N, K) plan: the paper's grid, any list of budgets and K, minimal budget and best K.

Reference: spec "Grid" and "p-value, effect size, interval". A cell is a budget N x K with K ratings per item
and N = floor(budget / K) items; for a prior (alpha) and eps it gets R alternative and R null datasets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.nk.best import BestK, MinimalBudget, best_k, extrapolated, minimal_budgets
from nkcore.nk.cell import Cell, make_cell
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.priors import validate_prior
from nkcore.nk.pvalue import cell_stats
from nkcore.nk.simulate import check_request, default_workers, simulate_gaps

if TYPE_CHECKING:
    import pandas as pd

PAPER_BUDGETS: tuple[int, ...] = (100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000)
PAPER_KS: tuple[int, ...] = (*range(1, 11), *range(20, 501, 20))
PAPER_EPS: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4)


@dataclass(frozen=True, slots=True)
class Config:
    """One configuration: budget (N x K), ratings per item (K), items (N = floor(budget / K))."""

    budget: int
    k: int
    n: int


METHOD_WORDS: dict[str, str] = {
    "lattice": "exact engine: convolution of the per-item law",
    "edgeworth": "exact engine: normal approximation with a skewness correction (Edgeworth), for many items",
    "normal": "exact engine: normal approximation, for many items",
    "simulate": "Monte Carlo: simulated or resampled datasets",
}
"""A cell's ``method`` in words, for the page and the CLI's text output (the JSON keeps the name)."""


def method_words(method: str) -> str:
    """A cell's ``method`` in words (:data:`METHOD_WORDS`; an unknown name as it is).

    >>> method_words("lattice")
    'exact engine: convolution of the per-item law'
    """
    return METHOD_WORDS.get(method, method)


CellResult = Cell
"""The former name of :class:`nkcore.nk.cell.Cell` (the simulation's and the exact engine's cells)."""


def configurations(budgets: Iterable[int] = PAPER_BUDGETS, ks: Iterable[int] = PAPER_KS) -> list[Config]:
    """Every (budget, K) with K <= budget and N = floor(budget / K), budgets ascending then K ascending.

    >>> len(configurations()), len(configurations([100, 250, 500, 1000, 2500]))
    (282, 142)
    """
    bs = sorted({_pos_int(b, "budget") for b in budgets})
    kk = sorted({_pos_int(k, "ratings per item (K)") for k in ks})
    if not bs or not kk:
        raise DataError("need at least one budget and one value of ratings per item (K)")
    limits.check("budget", bs[-1], "the largest budget")
    limits.check("configs", sum(1 for b in bs for k in kk if k <= b), "the grid")
    return [Config(b, k, b // k) for b in bs for k in kk if k <= b]


def _pos_int(x: object, what: str) -> int:
    try:
        f = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError) as exc:  # 400 nines: too large for a float
        shown = repr(x) if len(repr(x)) <= 40 else f"{repr(x)[:37]}..."
        raise DataError(f"{what} must be a whole number, got {shown}") from exc
    if isinstance(x, (bool, np.bool_)) or not np.isfinite(f) or f != int(f):
        raise DataError(f"{what} must be a whole number, got {x!r}")
    if f < 1:
        raise DataError(f"{what} must be at least 1, got {x!r}")
    return int(f)


def parse_int_list(text: str, what: str) -> tuple[int, ...]:
    """Parse "1,2,5,10-50:10" style lists: commas; ``a-b`` ranges, ``a-b:step`` stepped ranges.

    At most ``limits.get("configs")`` values (checked from the ranges' lengths, before they are built).

    >>> parse_int_list("1-3, 20-60:20", "K")
    (1, 2, 3, 20, 40, 60)
    """
    out: list[int] = []
    cap = limits.get("configs")
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part:
                rng, _, step = part.partition(":")
                lo, hi = (int(v) for v in rng.split("-", 1))
                values = range(lo, hi + 1, int(step) if step else 1)
            else:
                values = range(int(part), int(part) + 1)
        except ValueError as exc:
            raise DataError(f"{what}: cannot read {part!r} (use numbers like 1,2,5 or ranges like 20-500:20)") from exc
        if len(out) + len(values) > cap:  # before a range of a billion values is built
            limits.check("configs", len(out) + len(values), what)
        out.extend(values)
    if not out or any(v < 1 for v in out):
        raise DataError(f"{what}: need whole numbers >= 1, got {text!r}")
    return tuple(sorted(set(out)))


def _cells_from_samples(configs: Sequence[Config], samples: Sequence, metrics: Sequence[str], rounds: int) -> list:
    return [
        make_cell(
            cfg.budget, cfg.k, cfg.n, mt, cell_stats(smp.alt[mt], smp.null[mt]), rounds, smp.alt[mt], smp.null[mt]
        )
        for cfg, smp in zip(configs, samples, strict=True)
        for mt in metrics
    ]


def simulate_cell(
    prior: Sequence[float],
    eps: float,
    budget: int,
    k: int,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    workers: int | None = None,
) -> list[CellResult]:
    """One cell (budget, K) of the simulation, one ``CellResult`` per metric.

    The numbers equal the same cell inside ``simulate_grid`` (same seed, N and K).

    >>> [c.n for c in simulate_cell((1.38, 1.33), 0.3, 1000, 120, ["tv"], rounds=50)]
    [8]
    """
    mts = parse_metrics(metrics)
    b, kk = _pos_int(budget, "budget"), _pos_int(k, "ratings per item (K)")
    if kk > b:
        raise DataError(f"ratings per item (K) = {kk} is larger than the budget {b}: no item fits")
    cfg = Config(b, kk, b // kk)
    smp = simulate_gaps(prior, eps, [(cfg.n, cfg.k)], rounds, as_entropy(seed), mts, workers)
    return _cells_from_samples([cfg], smp, mts, rounds)


def simulate_grid(
    prior: Sequence[float],
    eps: float,
    budgets: Iterable[int] = PAPER_BUDGETS,
    ks: Iterable[int] = PAPER_KS,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    workers: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> list[CellResult]:
    """Every cell of a grid of budgets x K (the paper's 282 configurations by default), every metric.

    One simulation per cell feeds all metrics (the metrics see the same datasets, as in the paper).
    """
    mts = parse_metrics(metrics)
    configs = configurations(budgets, ks)
    smp = simulate_gaps(prior, eps, [(c.n, c.k) for c in configs], rounds, as_entropy(seed), mts, workers, progress)
    return _cells_from_samples(configs, smp, mts, rounds)


def minimal_budget_search(
    prior: Sequence[float],
    eps: float,
    budgets: Iterable[int] = PAPER_BUDGETS,
    ks: Iterable[int] = PAPER_KS,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    workers: int | None = None,
) -> list[MinimalBudget]:
    """Minimal budget per metric, simulating budgets in ascending order and stopping once every metric is found.

    Gives the same answer as ``minimal_budgets(simulate_grid(...))`` (same cells, same seeds), usually faster.
    """
    mts = parse_metrics(metrics)
    entropy = as_entropy(seed)
    found: dict[str, MinimalBudget] = {}
    ks = tuple(ks)
    configs = configurations(budgets, ks)  # the whole search is one request: checked as if no budget stopped it
    nw = default_workers() if workers is None else max(1, int(workers))
    check_request([(c.n, c.k) for c in configs], len(validate_prior(prior)), int(rounds), len(mts), nw)
    for b in sorted({_pos_int(x, "budget") for x in budgets}):
        todo = [m for m in mts if m not in found]
        if not todo:
            break
        cells = simulate_grid(prior, eps, [b], ks, todo, rounds, entropy, workers)
        for mb in minimal_budgets(cells, todo):
            if mb.budget is not None:
                found[mb.metric] = mb
    return [found.get(m, MinimalBudget(m, None, None, None)) for m in mts]


def cells_frame(cells: Iterable) -> pd.DataFrame:
    """The cells as a table (one row per cell and metric), without the gap samples: for CSV downloads."""
    import pandas as pd  # on demand: the engine and the CLI's start-up do not need pandas

    rows = [c.summary() for c in cells]
    return pd.DataFrame(rows)


__all__ = [
    "METHOD_WORDS",
    "PAPER_BUDGETS",
    "PAPER_EPS",
    "PAPER_KS",
    "BestK",
    "Cell",
    "CellResult",
    "Config",
    "MinimalBudget",
    "best_k",
    "cells_frame",
    "configurations",
    "extrapolated",
    "method_words",
    "minimal_budget_search",
    "minimal_budgets",
    "parse_int_list",
    "simulate_cell",
    "simulate_grid",
]
