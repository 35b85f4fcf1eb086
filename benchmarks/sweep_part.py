"""Part of the sweep in one fresh process: some presets x eps 0.1-0.4, the seven item metrics, caches kept between
grids (as in ``bench_nk.py --sweep-only``). For back-to-back comparisons of two versions of the engine, alternating
the two trees: ``.venv/bin/python benchmarks/sweep_part.py Toxicity,JobsQ3,balanced5 --root /tmp/old_tree`` and
``.venv/bin/python benchmarks/sweep_part.py Toxicity,JobsQ3,balanced5`` (``--root``: the source tree to import
``nkcore`` from, e.g. a ``git worktree`` of an older commit; default this one). Prints the wall seconds of each grid
and of all; never asserts a time. Its loop is ``bench_nk.sweep_bench``'s over fewer presets, written out: importing
bench_nk would import this tree's nkcore before ``--root``'s (as in ``cold_grid.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("presets", help="comma-separated preset names, e.g. Toxicity,JobsQ3,balanced5")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="source tree of nkcore")
    args = ap.parse_args()
    sys.path.insert(0, args.root)
    from nkcore.nk.exact import exact_grid
    from nkcore.nk.exact.laws import clear_caches
    from nkcore.nk.metrics import ITEM_METRICS
    from nkcore.nk.priors import get_prior

    clear_caches()
    start = time.perf_counter()
    for name in args.presets.split(","):
        for eps in (0.1, 0.2, 0.3, 0.4):
            w0 = time.perf_counter()
            exact_grid(get_prior(name).alpha, eps, metrics=list(ITEM_METRICS))
            print(f"  {name} eps {eps}: {time.perf_counter() - w0:.2f} s wall", flush=True)
    print(f"{args.presets} root {args.root}: {time.perf_counter() - start:.1f} s wall")


if __name__ == "__main__":
    main()
