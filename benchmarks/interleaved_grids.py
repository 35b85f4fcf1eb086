"""Two versions of the exact engine timed on the same grids, interleaved, so that the machine's drift cannot bias
the comparison.

On the 2-core reference machine the speed of the same computation moves by up to 40% within minutes, so two sweeps
run one after the other (``sweep_part.py``) can differ by more than the change under test. Here two persistent
worker processes, one per source tree, take the same grids in turn (preset x eps 0.1-0.4, the seven item metrics,
caches kept between grids as in ``bench_nk.py --sweep-only``), alternating which goes first, so both see the same
machine within seconds. Prints the sum of each side's wall seconds, their ratio and the median of the per-grid
ratios; never asserts a time. Usage::

    git worktree add /tmp/old_tree <commit>
    .venv/bin/python benchmarks/interleaved_grids.py Toxicity,JobsQ3,balanced5 --old /tmp/old_tree

``--new`` (default this tree) and ``--old`` are source trees to import ``nkcore`` from.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

WORKER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from nkcore.nk.exact import exact_grid
from nkcore.nk.exact.laws import clear_caches
from nkcore.nk.metrics import ITEM_METRICS
from nkcore.nk.priors import get_prior
clear_caches()
for line in sys.stdin:
    name, eps = line.split()
    start = time.perf_counter()
    exact_grid(get_prior(name).alpha, float(eps), metrics=list(ITEM_METRICS))
    print(time.perf_counter() - start, flush=True)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("presets", help="comma-separated preset names, e.g. Toxicity,JobsQ3,balanced5")
    ap.add_argument("--old", required=True, help="source tree of the version to compare against")
    ap.add_argument("--new", default=str(Path(__file__).resolve().parents[1]), help="source tree (default: this one)")
    args = ap.parse_args()
    sides = {"old": args.old, "new": args.new}
    workers = {
        side: subprocess.Popen(
            [sys.executable, "-c", WORKER, root], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for side, root in sides.items()
    }
    totals = dict.fromkeys(sides, 0.0)
    ratios = []
    grids = [(name, eps) for name in args.presets.split(",") for eps in ("0.1", "0.2", "0.3", "0.4")]
    for i, (name, eps) in enumerate(grids):
        took = {}
        for side in ("old", "new") if i % 2 == 0 else ("new", "old"):
            proc = workers[side]
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(f"{name} {eps}\n")
            proc.stdin.flush()
            took[side] = float(proc.stdout.readline())
            totals[side] += took[side]
        ratios.append(took["new"] / took["old"])
        print(f"  {name} eps {eps}: old {took['old']:.2f} s, new {took['new']:.2f} s", flush=True)
    for proc in workers.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    print(
        f"{len(grids)} grids: old {totals['old']:.1f} s, new {totals['new']:.1f} s wall; new / old: "
        f"{totals['new'] / totals['old']:.3f} of the sums, median per grid {statistics.median(ratios):.3f}"
    )


if __name__ == "__main__":
    main()
