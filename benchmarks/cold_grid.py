"""One cold exact grid in a fresh process: its CPU (this process and its forked child) and wall seconds.

For back-to-back comparisons of two versions of the engine, where a benchmark that runs many grids in one process
would carry one grid's memory and caches into the next. Run, alternating the two trees:
``.venv/bin/python benchmarks/cold_grid.py JobsQ3 --root /tmp/old_tree`` and
``.venv/bin/python benchmarks/cold_grid.py JobsQ3`` (``--root``: the source tree to import ``nkcore`` from,
e.g. a ``git worktree`` of an older commit; default this one). Prints one line; never asserts a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("preset", help="a preset prior's name, e.g. JobsQ3")
    ap.add_argument("--metrics", default="acc,tv,wins,kl", help="comma-separated (default: the paper's four)")
    ap.add_argument("--eps", type=float, default=0.3)
    ap.add_argument("--processes", type=int, default=None, help="default: the engine's own choice")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="source tree of nkcore")
    args = ap.parse_args()
    sys.path.insert(0, args.root)
    from nkcore.nk.exact import exact_grid
    from nkcore.nk.priors import get_prior

    alpha = get_prior(args.preset).alpha
    t0, w0 = os.times(), time.perf_counter()
    exact_grid(alpha, args.eps, metrics=args.metrics.split(","), processes=args.processes)
    wall, t1 = time.perf_counter() - w0, os.times()
    # bench_nk.cpu_now's sum, written out: importing bench_nk would import this tree's nkcore before --root's
    cpu = sum(getattr(t1, f) - getattr(t0, f) for f in ("user", "system", "children_user", "children_system"))
    print(f"{args.preset} {args.metrics} eps {args.eps} root {args.root}: cold {cpu:.2f} s CPU, {wall:.2f} s wall")


if __name__ == "__main__":
    main()
