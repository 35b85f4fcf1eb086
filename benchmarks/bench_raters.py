"""Benchmark: crossed (items x raters) resampling on a Jobs-Q1-sized crowd over the grid, and the per-rater summary.

Run: ``.venv/bin/python benchmarks/bench_raters.py`` (``--quick``: 200 rounds, one repeat).

Data: the Jobs Q1 ratings of ``../shared/datasets/jobs`` (2,000 items, 1,185 raters, 10-13 ratings per item) when
present, else a synthetic crowd of the same shape (2,000 items x 10 ratings from 1,200 raters, a few of them busy).
The shared predictions cover only the 500 test items, so two models are made up for every item (seeded): A gives
the item's plurality label 80% of the time, B 70% (else a random label); the timing does not depend on them.

Grid: budgets 100, 250, 500, 1000, 2500 x K = 1..10 (50 cells), Accuracy, 1,000 rounds per side. Timed: the crossed
resampling alone (``nkcore.nk.crossed.crossed_cells(..., item_only=False)``); the reference in the same process is
item-only resampling of the same grid (``nkcore.nk.resample.resample_cells``), the numbers the page shows beside
it; then both at once, as the Budget page's crossed section asks for them. Wall and CPU seconds, medians of 3
repeats. Target (issue 14): crossed under 5 s. Output kept in
``benchmarks/results/bench_raters.txt``.

Per-rater part: ``nkcore.summary.raters.leave_one_rater_out_alpha`` for every rater against recomputing alpha
(``krippendorff`` package, value counts) for 50 raters, scaled to all raters.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from nkcore.nk.crossed import crossed_cells
from nkcore.nk.grid import configurations
from nkcore.nk.resample import PairData, prepare_pair, resample_cells
from nkcore.ratings.raters import RaterRatings, rater_ratings, rater_ratings_from_frame
from nkcore.summary.raters import leave_one_rater_out_alpha
from nkcore.summary.ratings import krippendorff_alpha

JOBS = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "jobs" / "annotations_q1_point_of_view.csv.gz"
BUDGETS = (100, 250, 500, 1000, 2500)
KS = tuple(range(1, 11))


def load_crowd() -> tuple[RaterRatings, str]:
    """Jobs Q1 when present, else a synthetic crowd of its shape."""
    if JOBS.exists():
        import pandas as pd

        frame = pd.read_csv(JOBS, dtype=str).rename(columns={"item_id": "item", "annotator_id": "rater"})
        return rater_ratings_from_frame(frame[["item", "rater", "label"]]), "Jobs Q1 (../shared/datasets/jobs)"
    rng = np.random.default_rng(0)
    n_items, n_raters, k, m = 2000, 1200, 10, 5
    busy = rng.pareto(1.2, n_raters) + 1
    items = np.repeat(np.arange(n_items), k)
    raters = np.concatenate([rng.choice(n_raters, k, replace=False, p=busy / busy.sum()) for _ in range(n_items)])
    truth = rng.dirichlet(np.full(m, 0.5), n_items)
    labels = np.array([rng.choice(m, p=truth[i]) for i in items])
    return rater_ratings(items, raters, labels, n_items, m), "synthetic crowd of Jobs Q1's shape"


def make_pair(rr: RaterRatings) -> PairData:
    """Two made-up models on every item: A right (plurality label) 80% of the time, B 70%."""
    rng = np.random.default_rng(1)
    counts = rr.ratings.counts
    n, m = counts.shape
    plur = np.argmax(counts, axis=1)
    a = np.where(rng.random(n) < 0.8, plur, rng.integers(0, m, n))
    b = np.where(rng.random(n) < 0.7, plur, rng.integers(0, m, n))
    return prepare_pair(counts, a, b)


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeats`` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 rounds, one repeat")
    args = parser.parse_args()
    rounds, repeats = (200, 1) if args.quick else (1000, 3)
    rr, source = load_crowd()
    data = make_pair(rr)
    cfgs = configurations(BUDGETS, KS)
    per_rater = np.bincount(rr.rater_codes)
    print(
        f"{source}: {len(rr.ratings.items):,} items, {rr.n_raters:,} raters ({per_rater.min()} to {per_rater.max()} "
        f"ratings each), {rr.item_codes.size:,} ratings; grid {len(cfgs)} cells, {rounds} rounds per side, "
        f"medians of {repeats}"
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load} (wall times stretch with the load; CPU times less)")
    cw, cc = timed(lambda: crossed_cells(rr, data, cfgs, ("acc",), rounds, 0, item_only=False), repeats)
    iw, ic = timed(lambda: resample_cells(data, cfgs, ("acc",), rounds, 0), repeats)
    print(f"crossed resampling   wall {cw:7.2f} s  cpu {cc:7.2f} s   (target < 5 s wall)")
    print(f"item-only (ref)      wall {iw:7.2f} s  cpu {ic:7.2f} s")
    print(f"ratio crossed / item-only: wall {cw / iw:.2f}, cpu {cc / ic:.2f}")
    pw, pc = timed(lambda: crossed_cells(rr, data, cfgs, ("acc",), rounds, 0), repeats)
    print(f"both, as the page runs them (crossed_cells with item_only=True): wall {pw:7.2f} s  cpu {pc:7.2f} s")

    lw, _lc = timed(lambda: leave_one_rater_out_alpha(rr), repeats)
    counts = rr.ratings.counts
    sample = np.arange(min(50, rr.n_raters))

    def naive() -> None:
        for r in sample:
            mine = rr.rater_codes == r
            reduced = counts.copy()
            np.subtract.at(reduced, (rr.item_codes[mine], rr.label_codes[mine]), 1)
            krippendorff_alpha(reduced)

    nw, _nc = timed(naive, repeats)
    scale = rr.n_raters / sample.size
    print(
        f"leave-one-rater-out alpha, all {rr.n_raters:,} raters: wall {lw:.3f} s; recomputing with krippendorff: "
        f"{nw:.3f} s for {sample.size} raters = {nw * scale:.1f} s for all (ratio {nw * scale / lw:,.0f}x)"
    )


if __name__ == "__main__":
    main()
