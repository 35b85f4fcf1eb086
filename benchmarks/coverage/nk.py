"""Rows for the (N, K) engine: the paper's p and the reproducibility against their stated errors, and the minimal
budget, on the Toxicity prior (eps 0.3).

Per cell the exact engine (:func:`nkcore.nk.exact.exact_cell`, method "lattice": no Monte Carlo error) gives the
truth; the simulation (:func:`nkcore.nk.grid.simulate_cell`) is run with ``nk_seeds`` seeds of ``nk_rounds`` rounds
each. For every seed the stated error of p is :func:`nkcore.nk.pvalue.p_standard_error` (DeLong's variance of the
U-statistic) and that of the reproducibility the cell's own ``reproducibility_error`` (where the cell has that field;
else the binomial sqrt(r (1 - r) / rounds), which it states), each in quadrature with the exact engine's own stated
error (``p_error``, ``reproducibility_error``). Rows:

- coverage: the share of seeds whose value +- 1.96 stated errors holds the exact engine's value (nominal 0.95);
- spread / stated: the standard deviation of the seeds' values over the root mean square of their stated errors
  (1 when the error describes the spread across seeds);
- z (exact - mean of seeds) / sqrt(var / seeds + engine error^2), var the seeds' variance (p) or, for the
  reproducibility (a share of independent rounds), exact (1 - exact) / rounds: flagged beyond 3 (they disagree).

Minimal budget (:func:`nkcore.nk.grid.minimal_budget_search` by simulation, ``nk_search`` seeds, against
:func:`nkcore.nk.exact.search.min_budgets_on_grid` on the paper's grid): the share of seeds that find the exact
engine's budget and K, and the share whose answer has exact p < 0.05.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarks.coverage.table import Profile, Row, binomial_se
from nkcore.common.seeding import as_generator
from nkcore.nk.exact import exact_cell
from nkcore.nk.exact.search import min_budgets_on_grid
from nkcore.nk.grid import PAPER_BUDGETS, PAPER_KS, minimal_budget_search, simulate_cell
from nkcore.nk.pvalue import p_standard_error

FAMILY = "(N, K) engine: p, reproducibility, minimal budget"
TOXICITY = (1.37658107, 1.33054633)
EPS = 0.3
CELLS = ((1000, 50, "acc"), (1000, 5, "acc"), (500, 25, "tv"), (2000, 10, "tv"))
SEARCH_METRICS = ("acc", "tv")


def _rows_for(name: str, printed: str, cell: str, values: np.ndarray, errors: np.ndarray, truth: float,
              engine_error: float, rounds: int, method: str, share: bool = False) -> list[Row]:  # fmt: skip
    seeds = values.size
    total = np.sqrt(errors**2 + engine_error**2)
    covered = float(np.mean(np.abs(values - truth) <= 1.96 * total))
    rms = math.sqrt(float(np.mean(errors**2)))
    ratio = float(values.std(ddof=1)) / rms if rms > 0 else math.nan
    # a share over independent rounds (reproducibility): its variance if the exact value is right, truth (1 - truth)
    # / rounds per seed (a sample variance of 0, every seed at 1, would make any gap infinite); p: the seeds' own
    spread = truth * (1 - truth) / rounds if share else float(values.var(ddof=1))
    scale = math.sqrt(spread / seeds + engine_error**2)
    gap = truth - float(values.mean())
    z = gap / scale if scale > 0 else (0.0 if abs(gap) < 1e-12 else math.copysign(math.inf, gap))
    common = (cell, f"{rounds} rounds", f"exact {truth:.4f} ({method})")
    note = "(N, K): Toxicity prior, eps 0.3; truth = the exact engine (its method in the rate column)"
    return [
        Row(FAMILY, f"{name} +- 1.96 stated error", printed, *common, "coverage", 0.95, covered,
            binomial_se(covered, seeds), seeds, note),
        Row(FAMILY, f"{name}: spread across seeds / stated error", printed, *common, "ratio", 1.0, ratio,
            ratio / math.sqrt(2 * (seeds - 1)) if ratio > 0 else math.nan, seeds, note),
        Row(FAMILY, f"{name}: exact engine against the simulation", printed, *common, "z", 0.0, z, 1.0, seeds, note),
    ]  # fmt: skip


def cell_rows(profile: Profile) -> list[Row]:
    """p and reproducibility per cell."""
    rng = as_generator(profile.seed + 9)
    out = []
    for budget, k, metric in CELLS:
        (ex,) = exact_cell(TOXICITY, EPS, budget, k, [metric])
        seeds = profile.nk_seeds
        ps, pe, rs, re = np.empty(seeds), np.empty(seeds), np.empty(seeds), np.empty(seeds)
        r = profile.nk_rounds
        for i in range(seeds):
            (c,) = simulate_cell(TOXICITY, EPS, budget, k, [metric], r, int(rng.integers(2**31)), 1)
            ps[i], pe[i], rs[i] = c.p, p_standard_error(c.null, c.alt), c.reproducibility
            stated = float(getattr(c, "reproducibility_error", math.nan))  # the cell's own, where it states one
            re[i] = stated if math.isfinite(stated) else math.sqrt(rs[i] * (1 - rs[i]) / r)
        cell = f"N {budget // k}, K {k}, {metric}"
        p_err = 0.0 if math.isnan(ex.p_error) else float(ex.p_error)
        r_err = float(getattr(ex, "reproducibility_error", 0.0) or 0.0)
        out += _rows_for("paper's p", "Budget / Planner: p of a cell", cell, ps, pe, ex.p, p_err, r, ex.method)
        out += _rows_for("reproducibility", "Budget / Planner: reproducibility", cell, rs, re, ex.reproducibility,
                         r_err, r, ex.method, share=True)  # fmt: skip
    return out


def budget_rows(profile: Profile) -> list[Row]:
    """The minimal budget found by simulation against the exact engine's, on the paper's grid."""
    rng = as_generator(profile.seed + 10)
    exact = {m.metric: m for m in min_budgets_on_grid(TOXICITY, EPS, PAPER_BUDGETS, PAPER_KS, SEARCH_METRICS)}
    seeds = profile.nk_search
    same = {m: 0 for m in SEARCH_METRICS}
    same_budget = {m: 0 for m in SEARCH_METRICS}
    holds = {m: 0 for m in SEARCH_METRICS}
    for _ in range(seeds):
        found = minimal_budget_search(TOXICITY, EPS, metrics=SEARCH_METRICS, rounds=profile.nk_rounds,
                                      seed=int(rng.integers(2**31)), workers=1)  # fmt: skip
        for mb in found:
            ex = exact[mb.metric]
            same[mb.metric] += (mb.budget, mb.k) == (ex.budget, ex.k)
            same_budget[mb.metric] += mb.budget == ex.budget
            if mb.budget is not None and mb.k is not None:
                (c,) = exact_cell(TOXICITY, EPS, mb.budget, mb.k, [mb.metric])
                holds[mb.metric] += c.p < 0.05
    out = []
    for m in SEARCH_METRICS:
        ex = exact[m]
        common = (f"grid minimum: budget {ex.budget}, K {ex.k}", f"{profile.nk_rounds} rounds", f"{m}")
        note = "minimal budget: share of simulation seeds; the exact engine's answer is the truth"
        out += [
            Row(FAMILY, "minimal budget: simulation finds the exact budget", "Budget: minimal budget", *common,
                "share", math.nan, same_budget[m] / seeds, binomial_se(same_budget[m] / seeds, seeds), seeds, note),
            Row(FAMILY, "minimal budget: simulation finds the exact budget and K", "Budget: minimal budget", *common,
                "share", math.nan, same[m] / seeds, binomial_se(same[m] / seeds, seeds), seeds, note),
            Row(FAMILY, "minimal budget: the answer truly has p < 0.05", "Budget: minimal budget", *common,
                "share", math.nan, holds[m] / seeds, binomial_se(holds[m] / seeds, seeds), seeds, note),
        ]  # fmt: skip
    return out


def rows(profile: Profile) -> list[Row]:
    """Every row of this family."""
    return cell_rows(profile) + budget_rows(profile)
