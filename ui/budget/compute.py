"""Budget page, its numbers: the grid's cells (exact engine or simulation) and the headline answer.

All computations go through ``ui.common.cache`` / ``ui.common.work`` (cached on dataset fingerprints and small values,
never on big arrays), so a control that does not change the numbers redraws from the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import streamlit as st

from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.nk import exact as nk_exact
from nkcore.nk import frames, grid, sentences
from nkcore.nk.cell import Cell
from nkcore.nk.exact.engine import grid_work_ms
from nkcore.nk.exact.search import min_budgets_on_grid
from nkcore.nk.frames import ResampleRun
from nkcore.nk.grid import MinimalBudget
from nkcore.nk.metrics import ALL_METRICS, PAPER_METRICS
from ui.budget.controls import ENGINE_METRICS, Choices
from ui.common import cache, progress, work
from ui.common.text import md

SEARCH_MAX = max(grid.PAPER_BUDGETS)
"""The headline's smallest budget is searched on the continuous budget axis up to this many ratings."""


@dataclass
class Grid:
    """The computed grid: every cell (all metrics), the chosen metric's cells, the real-data run (or None)."""

    cells: list[Cell]
    mcells: list[Cell]
    run_info: ResampleRun | None = None
    exact_view: bool = False
    refused: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class Answer:
    """The headline: the smallest budget for the chosen metric, the words, and what was searched."""

    mb: MinimalBudget
    verdict: str
    searched: str
    everything_tied: bool


def _source_job(
    ch: Choices, from_prior: Callable[..., object], from_data: Callable[..., object], label: str, **params: object
) -> work.Job:
    """The call the page's source asks for: ``from_prior`` (alpha, eps) or ``from_data`` (the ratings and
    predictions, models A and B), with ``params``; the one place that builds it, for the page and the prefetch."""
    if ch.prior is not None:
        return work.Job(from_prior, (), {"prior": ch.prior.concentration, "eps": ch.eps, **params}, label)
    return work.Job(from_data, ch.data, {"model_a": ch.model_a, "model_b": ch.model_b, **params}, label)


def _computed(ch: Choices, job: work.Job) -> tuple[list[Cell], ResampleRun | None]:
    """``job`` (from ``_source_job``) as one cached computation with a progress bar: the cells, and the real data's
    run (which says which items qualify) or None."""
    found = progress.compute_with_progress(job.func, *job.datasets, progress_label=job.label, **job.params)
    return (list(found), None) if ch.prior is not None else (list(found.cells), found)


def _from_source(
    ch: Choices, from_prior: Callable[..., object], from_data: Callable[..., object], label: str, **params: object
) -> tuple[list[Cell], ResampleRun | None]:
    """``_computed`` of ``_source_job``: the source's cells (and the real data's run, or None)."""
    return _computed(ch, _source_job(ch, from_prior, from_data, label, **params))


def simulated_cells(
    ch: Choices,
    budgets: tuple[int, ...],
    ks: list[int] | tuple[int, ...],
    metrics: tuple[str, ...],
    rounds: int,
    seed: int,
    label: str,
) -> tuple[list[Cell], ResampleRun | None]:
    """The simulation's cells of budgets x K: the paper's simulation from the prior, or resampling of the real data."""
    return _from_source(
        ch, grid.simulate_grid, frames.resample_frames, label,
        budgets=budgets, ks=ks, metrics=metrics, rounds=rounds, seed=seed,
    )  # fmt: skip


def _simulated_rows(
    ch: Choices, cells: list[Cell], run_info: ResampleRun | None
) -> tuple[ResampleRun | None, list[tuple[int, str]]]:
    """A simulated grid, one budget row at a time: each row is its own cached computation (changing the largest
    budget reuses the rows already done); a row over the server's work limit is left out and said."""
    refused: list[tuple[int, str]] = []
    for i, b in enumerate(ch.budgets):
        label = f"Budget {b:,} ({i + 1} of {len(ch.budgets)})"
        try:
            found, run = simulated_cells(ch, (b,), ch.ks, ch.sim_metrics, ch.rounds, ch.seed, label)
        except DataError as exc:
            refused.append((b, str(exc)))
            continue
        run_info = run_info or run
        cells.extend(found)
    return run_info, refused


def _engine_job(ch: Choices, metric: str) -> work.Job:
    """One metric's grid from the exact engine, as the page computes it and :func:`prefetch_metrics` queues it."""
    return _source_job(
        ch, nk_exact.exact_grid, frames.exact_resample_frames, "Computing the grid",
        budgets=tuple(ch.budgets), ks=ch.ks, metrics=(metric,),
    )  # fmt: skip


def _engine_cells(ch: Choices, metric: str) -> tuple[list[Cell], ResampleRun | None]:
    """One metric's grid from the exact engine (its own cached computation: a metric not shown costs nothing)."""
    return _computed(ch, _engine_job(ch, metric))


def prefetch_metrics(ch: Choices) -> None:
    """The paper's other metrics' grids of the view on screen (a prior, or real data resampled), computed in the
    background while the page is read (``work.prefetch``: a foreground computation stops them), so a change of
    metric, or the every-metric table, redraws from the cache."""
    if ch.metric not in ENGINE_METRICS:
        return
    jobs = [_engine_job(ch, m) for m in PAPER_METRICS if m != ch.metric and _over_work(ch, m) is None]
    if ch.prior is not None and all(_over_work(ch, m) is None for m in ENGINE_METRICS):
        jobs.append(_table_job(ch))  # last: it reuses the laws of the metrics above
    work.prefetch(jobs)


def _over_work(ch: Choices, metric: str) -> int | None:
    """The estimated CPU milliseconds of one metric's exact grid of a prior when over the server's bound on exact
    grids (``NKP_MAX_GRID_WORK``, which ``nk --grid`` holds too: ``check_grid_work``), else None (within it, or real
    data)."""
    if ch.prior is None:
        return None
    work = grid_work_ms([len(ch.prior.concentration)], ch.budgets, ch.ks, (metric,))
    return work if work > limits.get("grid_work") else None


def _check_work(ch: Choices) -> None:
    """The shown metric's grid over the bound: the page says so and stops before any law is computed (each metric
    is its own computation, and a foreground one stops the background ones, so one metric's grid is what a request
    costs; :func:`prefetch_metrics` leaves out the metrics over it)."""
    work = _over_work(ch, ch.metric)
    if work is not None:
        st.error(
            f"This grid is too large to compute here: about {work / 1000:,.0f} s of computing, and this server "
            f"computes at most {limits.get('grid_work') / 1000:,.0f} s per grid (setting NKP_MAX_GRID_WORK). "
            "Choose a smaller largest budget or fewer ratings per item (K), e.g. the paper's list 1-10,20-500:20."
        )
        st.stop()


def compute_grid(ch: Choices) -> Grid:
    """The chosen metric's cells of the grid; stops the page with a message when no cell can be computed.

    The engine computes one metric per cached call (its per-item laws serve every budget, presets and real data
    alike); only the metrics it does not cover (macro F1) are simulated, and only then do rounds and seed matter.
    The other metrics are computed when a section asks for them (:func:`all_cells`).
    """
    cells: list[Cell] = []
    run_info = None
    if ch.metric in ENGINE_METRICS:
        _check_work(ch)
        cells, run_info = _engine_cells(ch, ch.metric)
    refused: list[tuple[int, str]] = []
    if ch.sim_metrics:
        run_info, refused = _simulated_rows(ch, cells, run_info)
    if refused:
        left_out = ", ".join(f"{b:,}" for b, _ in refused)
        st.warning(
            f"Budgets {left_out} were not computed: {md(refused[0][1])}. The rest of the grid is shown; choose "
            "Quick preview or a smaller largest budget to stay within the server's limits."
        )
    mcells = [c for c in cells if c.metric == ch.metric]
    if not mcells:
        st.error("No cell could be computed: no item has that many ratings per item (K). Try smaller K.")
        st.stop()
    exact_view = all(c.method != "simulate" for c in mcells)
    return Grid(cells, mcells, run_info, exact_view, refused)


def all_cells(ch: Choices, g: Grid) -> list[Cell]:
    """Every metric's cells (the shown grid's, plus the engine's other metrics, each its own cached call)."""
    cells = list(g.cells)
    for m in ENGINE_METRICS:
        if m != ch.metric:
            cells.extend(_engine_cells(ch, m)[0])
    return cells


def _table_job(ch: Choices) -> work.Job:
    """Every engine metric's minimal budget on a prior's grid (``min_budgets_on_grid``: the grid's rows up to each
    metric's answer, every metric in one pass), as the every-metric table asks for it and the prefetch queues it."""
    assert ch.prior is not None
    params = {"budgets": tuple(ch.budgets), "ks": tuple(ch.ks), "metrics": ENGINE_METRICS, "significance": 0.05}
    return work.Job(
        min_budgets_on_grid,
        (),
        {"prior": ch.prior.concentration, "eps": ch.eps, **params},
        "Every metric's minimal budget",
    )


def every_minimal(ch: Choices, g: Grid) -> list[MinimalBudget]:
    """Every metric's minimal budget on the grid, in the order of ``ALL_METRICS``: on a prior, the engine's metrics
    from :func:`_table_job` (the same numbers as their full grids give, from the rows up to each answer only); on
    real data, from every metric's grid (:func:`all_cells`); a simulated metric on screen (macro F1) from its grid."""
    if ch.prior is None:
        cells = all_cells(ch, g)
        return grid.minimal_budgets(cells, [m for m in ALL_METRICS if any(c.metric == m for c in cells)])
    job = _table_job(ch)
    found = progress.compute_with_progress(job.func, progress_label=job.label, **job.params)
    by_metric = {mb.metric: mb for mb in found}
    if ch.metric not in by_metric:  # a simulated metric on screen
        (by_metric[ch.metric],) = grid.minimal_budgets(g.mcells, [ch.metric])
    return [by_metric[m] for m in ALL_METRICS if m in by_metric]


def answer(ch: Choices, g: Grid) -> Answer:
    """The smallest budget that reaches p < 0.05 for the chosen metric: on the continuous budget axis where the
    engine has the prior, else among the grid's budgets."""
    if ch.prior is not None and ch.metric in ENGINE_METRICS:
        mb = _min_budget(ch)
        searched, on_grid = f"any budget up to {SEARCH_MAX:,} ratings", False
    else:
        mb = grid.minimal_budgets(g.mcells, [ch.metric])[0]
        searched, on_grid = f"the budgets on the grid ({', '.join(f'{b:,}' for b in ch.budgets)})", True
        beyond = sorted(b for b in grid.PAPER_BUDGETS if b > max(ch.budgets))
        if mb.budget is None and ch.prior is None and ch.metric in ENGINE_METRICS and beyond:
            # real data: go on over the paper's larger budgets, as `nk --ratings ... --min-budget` does, so the page
            # and the CLI give one answer (flagged where it draws more items than the data has)
            found = progress.compute_with_progress(
                frames.exact_resample_frames, *ch.data, progress_label="Searching larger budgets",
                model_a=ch.model_a, model_b=ch.model_b, budgets=tuple(beyond), ks=ch.ks, metrics=(ch.metric,),
            )  # fmt: skip
            mb = grid.minimal_budgets(list(found.cells), [ch.metric])[0]
            searched = f"the paper's budgets up to {max(beyond):,} ratings"
    tied = all(sentences.gap_shares(c.alt, c.null).all_tied for c in g.mcells)
    return Answer(mb, sentences.verdict_sentence(mb, ch.label, searched, on_grid, tied), searched, tied)


def _min_budget(ch: Choices) -> MinimalBudget:
    """The smallest budget reaching p < 0.05 on the continuous budget axis (a prior's view on the engine), cached."""
    assert ch.prior is not None
    return cache.compute_params(
        nk_exact.min_budget_continuous,
        prior=ch.prior.concentration,
        eps=ch.eps,
        metric=ch.metric,
        ks=ch.ks,
        significance=0.05,
        max_budget=SEARCH_MAX,
    )


def warm_numbers(ch: Choices) -> None:
    """Compute the grid and the headline of ``ch`` into the shared caches, under the keys the page asks for
    (``ui.budget.warm``: the default view, once per server at start-up); a page that asks for the grid meanwhile
    joins that computation (``ui.common.work.warm``)."""
    work.warm(_engine_job(ch, ch.metric))
    if ch.prior is not None and ch.metric in ENGINE_METRICS:
        _min_budget(ch)
