"""What splitting a grid over two processes costs: CPU, system CPU and page faults, one process against two.

The exact engine splits a large grid over the parent and a forked child (``nkcore/nk/exact/split.py``): the
fastest way to one grid, paid for in CPU (the pool's low blocks drawn by both, the child's laws handed over, and
the pages a fork makes both processes fault on again). ``exact_grids`` (several grids at once) therefore runs whole
grids on one process each. This prints, for the same grids computed both ways in turn (``--reps`` times,
alternating which goes first), the CPU seconds (user + system, the child's included), the system share, the minor
page faults and the wall seconds, and the medians' ratio; never asserts a time. Usage::

    .venv/bin/python benchmarks/split_cost.py [--presets JobsQ3,balanced12,Toxicity] [--reps 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nkcore.nk.exact import exact_grid
from nkcore.nk.exact.laws import clear_caches
from nkcore.nk.metrics import ITEM_METRICS
from nkcore.nk.priors import get_prior


def _usage() -> tuple[float, float, int]:
    """(CPU seconds, system CPU seconds, minor page faults) of this process and its ended children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    system = own.ru_stime + kids.ru_stime
    return own.ru_utime + kids.ru_utime + system, system, own.ru_minflt + kids.ru_minflt


def _run(presets: list[str], processes: int) -> tuple[float, float, int, float]:
    """The grids (each preset at eps 0.1 and 0.3, the seven item metrics, cold) on ``processes`` processes."""
    cpu0, sys0, flt0 = _usage()
    wall0 = time.perf_counter()
    for name in presets:
        for eps in (0.1, 0.3):
            clear_caches()
            exact_grid(get_prior(name).alpha, eps, metrics=ITEM_METRICS, processes=processes, workers=1)
    cpu1, sys1, flt1 = _usage()
    return cpu1 - cpu0, sys1 - sys0, flt1 - flt0, time.perf_counter() - wall0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--presets", default="JobsQ3,balanced12,Toxicity", help="comma-separated preset names")
    ap.add_argument("--reps", type=int, default=3, help="runs of each way (default 3)")
    args = ap.parse_args()
    presets = args.presets.split(",")
    got: dict[int, list[tuple[float, float, int, float]]] = {1: [], 2: []}
    for rep in range(args.reps):
        for processes in (1, 2) if rep % 2 == 0 else (2, 1):
            got[processes].append(_run(presets, processes))
            cpu, system, faults, wall = got[processes][-1]
            print(
                f"  {processes} process{'es' if processes > 1 else ''}: {cpu:.2f} s CPU ({system:.2f} system), "
                f"{faults:,} minor page faults, {wall:.2f} s wall",
                flush=True,
            )
    med = {p: [statistics.median(r[i] for r in runs) for i in range(4)] for p, runs in got.items()}
    print(
        f"{len(presets) * 2} grids, medians of {args.reps}: one process {med[1][0]:.2f} s CPU ({med[1][1]:.2f} system, "
        f"{med[1][2]:,.0f} faults, {med[1][3]:.2f} s wall); two {med[2][0]:.2f} s CPU ({med[2][1]:.2f} system, "
        f"{med[2][2]:,.0f} faults, {med[2][3]:.2f} s wall): CPU x {med[2][0] / med[1][0]:.3f}, "
        f"wall x {med[2][3] / med[1][3]:.3f}"
    )


if __name__ == "__main__":
    main()
