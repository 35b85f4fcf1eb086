"""A/B timing of the exact engine: two versions of ``nkcore`` (two source trees), or one grid two ways.

One tool for the comparisons an engine change needs; every subcommand prints its lines and never asserts a time.
``--root`` / ``--old`` / ``--new`` name source trees to import ``nkcore`` from (e.g. ``git worktree add
/tmp/old_tree <commit>``; default this tree). Subcommands:

``cold PRESET``
    One cold exact grid in a fresh process: CPU (this process and its forked child) and wall seconds. Run it
    alternating the two trees (``--root /tmp/old_tree``, then without): a benchmark running many grids in one
    process would carry one grid's memory and caches into the next.
``sweep PRESETS``
    Some presets x eps 0.1-0.4, the seven item metrics, caches kept between grids (as ``bench_nk.py --sweep-only``):
    the wall seconds of each grid and of all.
``cold-ab PRESETS --old TREE [--reps R]``
    Cold grids in fresh processes (``cold``), the two trees alternating per preset and repetition (which goes first
    alternates too): each side's median wall and CPU seconds per preset, and the load average.
``warm-ab PRESETS --old TREE [--reps R]``
    Per preset, a fresh process per tree (alternating) computes the grid once (laws cached), then times the warm
    grid (median of 3) and one cell (budget 1000, K 120, the paper's four metrics: median of 20), as
    ``bench_nk.py --exact`` does, and both again with the cache of cells cleared before each call
    (``exact.cell_cache``: the cells computed again from the cached laws); medians over the reps.
``cli --old TREE [--reps R] [-- ARGS...]``
    The whole CLI from a cold process (``python -m nkcore ARGS``; default the JobsQ3 exact grid with ``--json``) and
    its start-up alone (``nk --help``), the two trees alternating: medians of the wall seconds.
``interleaved PRESETS --old TREE``
    The same grids on two persistent worker processes, one per tree, taken in turn (alternating which goes first),
    so both see the same machine within seconds: on the 2-core reference machine the speed of one computation
    moves by up to 40% within minutes, so two sweeps run one after the other can differ by more than the change.
    Prints each side's sum, their ratio and the median per-grid ratio.
``numbers [PRESETS] [--seeds S]``
    The statistical A/B of every number of the presets' exact grids (eps 0.3, the paper's four metrics, 282
    configurations): this engine against the reference (``engine_reference.old_engine``, the engine before issue 56)
    in one process. (1) Same seeds: how many numbers differ at all, and by how much. (2) Independent draws: the
    reference at its seeds against this engine with its three root seeds moved (``laws.ENGINE_SEED``,
    ``nested.NESTED_SEED``, ``pool.POOL_SEED`` + s, s = 1 .. S): for p, Delta, CI-width and reproducibility,
    z = (new - old) / sqrt(old error^2 + new error^2); max |z| against the largest of that many standard normals,
    and the sum of z^2 against chi-square(count) (numbers of one grid share laws, so they are not independent: the
    mean of z^2, about 1 when the errors are true, is the figure to read). (3) The stated errors against the spread
    over the S seeds: per kind of number, sqrt(mean s^2 / mean error^2) (1 when the errors say what the spread is).
``split [--presets P] [--reps R]``
    What splitting a grid over two processes costs (``nkcore/nk/exact/split.py``): CPU, system CPU and minor page
    faults, one process against two, alternating which goes first; medians and their ratio.

Usage::

    .venv/bin/python benchmarks/ab_engine.py cold JobsQ3 --root /tmp/old_tree
    .venv/bin/python benchmarks/ab_engine.py cold-ab Toxicity,JobsQ3 --old /tmp/old_tree --reps 3
    .venv/bin/python benchmarks/ab_engine.py cli --old /tmp/old_tree --reps 5
    .venv/bin/python benchmarks/ab_engine.py interleaved Toxicity,JobsQ3,balanced5 --old /tmp/old_tree
    .venv/bin/python benchmarks/ab_engine.py split --presets JobsQ3,balanced12,Toxicity --reps 3
    .venv/bin/python benchmarks/ab_engine.py numbers all --seeds 3
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = str(Path(__file__).resolve().parents[1])
EPS_SWEEP = ("0.1", "0.2", "0.3", "0.4")

# One worker per source tree: reads "preset eps" lines, answers each grid's wall seconds (caches kept).
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
    exact_grid(get_prior(name).concentration, float(eps), metrics=list(ITEM_METRICS))
    print(time.perf_counter() - start, flush=True)
"""


def _engine(root: str) -> Any:
    """Import the engine from ``root`` (before anything imports this tree's nkcore)."""
    sys.path.insert(0, root)
    import nkcore.nk.exact as exact
    import nkcore.nk.exact.laws as laws
    import nkcore.nk.metrics as metrics
    import nkcore.nk.priors as priors

    return exact.exact_grid, laws.clear_caches, metrics.ITEM_METRICS, priors.get_prior


def cold(args: argparse.Namespace) -> None:
    """One cold grid in this fresh process."""
    exact_grid, _, _, get_prior = _engine(args.root)
    alpha = get_prior(args.preset).concentration
    t0, w0 = os.times(), time.perf_counter()
    exact_grid(alpha, args.eps, metrics=args.metrics.split(","), processes=args.processes)
    wall, t1 = time.perf_counter() - w0, os.times()
    cpu = sum(getattr(t1, f) - getattr(t0, f) for f in ("user", "system", "children_user", "children_system"))
    print(f"{args.preset} {args.metrics} eps {args.eps} root {args.root}: cold {cpu:.2f} s CPU, {wall:.2f} s wall")


def _fresh(root: str, *argv: str) -> tuple[float, str]:
    """Wall seconds of ``python ARGV`` in a fresh process importing nkcore from ``root``, and its stdout. The process
    runs in ``root``: ``python -m`` and ``-c`` put the working directory first on the path, before PYTHONPATH, so run
    from another tree they would import that tree's nkcore."""
    env = {**os.environ, "PYTHONPATH": root}
    w0 = time.perf_counter()
    out = subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, check=True, cwd=root).stdout
    return time.perf_counter() - w0, out


def cold_ab(args: argparse.Namespace) -> None:
    """Cold grids, two trees alternating, medians per preset."""
    sides = {"old": args.old, "new": args.new}
    print(f"load average at start {os.getloadavg()[0]:.1f}; medians of {args.reps} cold runs per side")
    for name in args.presets.split(","):
        walls: dict[str, list[float]] = {"old": [], "new": []}
        cpus: dict[str, list[float]] = {"old": [], "new": []}
        for rep in range(args.reps):
            for side in ("old", "new") if rep % 2 == 0 else ("new", "old"):
                _, out = _fresh(sides[side], str(Path(__file__).resolve()), "cold", name, "--root", sides[side])
                cpu, wall = (float(x) for x in re.findall(r"([0-9.]+) s (?:CPU|wall)", out))
                walls[side].append(wall)
                cpus[side].append(cpu)
        mo, mn = statistics.median(walls["old"]), statistics.median(walls["new"])
        print(
            f"  {name:<12} old {mo:5.2f} s wall ({statistics.median(cpus['old']):5.2f} CPU)  new {mn:5.2f} s wall "
            f"({statistics.median(cpus['new']):5.2f} CPU)  ratio {mo / mn:4.2f}  load {os.getloadavg()[0]:.1f}",
            flush=True,
        )


WARM = """
import statistics, sys, time
sys.path.insert(0, sys.argv[1])
from nkcore.nk.exact import exact_cell, exact_grid
from nkcore.nk.metrics import PAPER_METRICS
from nkcore.nk.priors import get_prior
a = get_prior(sys.argv[2]).concentration
exact_grid(a, 0.3)
def med(fn, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return statistics.median(ts)
exact_cell(a, 0.3, 1000, 120, PAPER_METRICS)
try:  # a tree with a cache of cells: also the cells computed again from the cached laws
    from nkcore.nk.exact.cell_cache import clear_cells
except ImportError:
    clear_cells = lambda: None
def fresh(fn):
    def run():
        clear_cells(); fn()
    return run
grid, cell = (lambda: exact_grid(a, 0.3)), (lambda: exact_cell(a, 0.3, 1000, 120, PAPER_METRICS))
print(med(grid, 3), med(cell, 20), med(fresh(grid), 3), med(fresh(cell), 20))
"""


def warm_ab(args: argparse.Namespace) -> None:
    """Warm grids and one cell, two trees alternating, medians per preset."""
    sides = {"old": args.old, "new": args.new}
    print(f"load average at start {os.getloadavg()[0]:.1f}; medians over {args.reps} processes per side")
    for name in args.presets.split(","):
        got: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
        for rep in range(args.reps):
            for side in ("old", "new") if rep % 2 == 0 else ("new", "old"):
                _, out = _fresh(sides[side], "-c", WARM, sides[side], name)
                grid, cell, grid_fresh, cell_fresh = (float(x) for x in out.split())
                got[side].append((grid, cell, grid_fresh, cell_fresh))
        med = {s: [statistics.median(g[i] for g in got[s]) for i in range(4)] for s in got}
        print(
            f"  {name:<12} warm grid old {med['old'][0]:5.2f} s, new {med['new'][0]:5.2f} s; one cell old "
            f"{med['old'][1] * 1e3:5.1f} ms, new {med['new'][1] * 1e3:5.1f} ms; cells computed again (cell cache "
            f"cleared, laws cached): grid old {med['old'][2]:5.2f} s, new {med['new'][2]:5.2f} s, one cell old "
            f"{med['old'][3] * 1e3:5.1f} ms, new {med['new'][3] * 1e3:5.1f} ms  load {os.getloadavg()[0]:.1f}",
            flush=True,
        )


def cli(args: argparse.Namespace) -> None:
    """The CLI from cold processes, two trees alternating."""
    sides = {"old": args.old, "new": args.new}
    command = args.argv or ["nk", "--prior", "JobsQ3", "--grid", "--json"]
    for label, argv in (("start-up (nk --help)", ["nk", "--help"]), (" ".join(command), command)):
        walls: dict[str, list[float]] = {"old": [], "new": []}
        outs: dict[str, str] = {}
        for rep in range(args.reps):
            for side in ("old", "new") if rep % 2 == 0 else ("new", "old"):
                wall, outs[side] = _fresh(sides[side], "-m", "nkcore", *argv)
                walls[side].append(wall)
        same = "identical output" if outs["old"] == outs["new"] else "OUTPUT DIFFERS"
        mo, mn = statistics.median(walls["old"]), statistics.median(walls["new"])
        print(
            f"  {label}: old {mo:5.2f} s, new {mn:5.2f} s wall (medians of {args.reps}; best {min(walls['old']):5.2f} "
            f"and {min(walls['new']):5.2f} s; {same}; load {os.getloadavg()[0]:.1f})",
            flush=True,
        )


def sweep(args: argparse.Namespace) -> None:
    """Presets x eps 0.1-0.4, seven item metrics, caches kept."""
    exact_grid, clear_caches, item_metrics, get_prior = _engine(args.root)
    clear_caches()
    start = time.perf_counter()
    for name in args.presets.split(","):
        for eps in EPS_SWEEP:
            w0 = time.perf_counter()
            exact_grid(get_prior(name).concentration, float(eps), metrics=list(item_metrics))
            print(f"  {name} eps {eps}: {time.perf_counter() - w0:.2f} s wall", flush=True)
    print(f"{args.presets} root {args.root}: {time.perf_counter() - start:.1f} s wall")


def interleaved(args: argparse.Namespace) -> None:
    """Two trees' workers take the same grids in turn."""
    sides = {"old": args.old, "new": args.new}
    workers = {
        side: subprocess.Popen(
            [sys.executable, "-c", WORKER, root], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for side, root in sides.items()
    }
    totals = dict.fromkeys(sides, 0.0)
    ratios = []
    grids = [(name, eps) for name in args.presets.split(",") for eps in EPS_SWEEP]
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


def _usage() -> tuple[float, float, int]:
    """(CPU seconds, system CPU seconds, minor page faults) of this process and its ended children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    system = own.ru_stime + kids.ru_stime
    return own.ru_utime + kids.ru_utime + system, system, own.ru_minflt + kids.ru_minflt


def split(args: argparse.Namespace) -> None:
    """The same grids (each preset at eps 0.1 and 0.3, seven item metrics, cold) on one process and on two."""
    exact_grid, clear_caches, item_metrics, get_prior = _engine(HERE)
    presets = args.presets.split(",")

    def run(processes: int) -> tuple[float, float, int, float]:
        cpu0, sys0, flt0 = _usage()
        wall0 = time.perf_counter()
        for name in presets:
            for eps in (0.1, 0.3):
                clear_caches()
                exact_grid(get_prior(name).concentration, eps, metrics=item_metrics, processes=processes, workers=1)
        cpu1, sys1, flt1 = _usage()
        return cpu1 - cpu0, sys1 - sys0, flt1 - flt0, time.perf_counter() - wall0

    got: dict[int, list[tuple[float, float, int, float]]] = {1: [], 2: []}
    for rep in range(args.reps):
        for processes in (1, 2) if rep % 2 == 0 else (2, 1):
            got[processes].append(run(processes))
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


NUMBERS = (("p", "p_error"), ("delta", "delta_error"), ("ci_width", "ci_width_error"))
NUMBERS += (("reproducibility", "reproducibility_error"),)


def _grid_numbers(name: str, offset: int = 0, old: bool = False) -> Any:
    """(values, errors) arrays (cells x 4) of a preset's exact grid; ``offset``: the engine's root seeds moved."""
    import numpy as np

    sys.path.insert(0, HERE)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from engine_reference import old_engine

    from nkcore.nk.exact import exact_grid, laws, nested, pool
    from nkcore.nk.priors import get_prior

    seeds = (laws.ENGINE_SEED, nested.NESTED_SEED, pool.POOL_SEED)
    laws.ENGINE_SEED, nested.NESTED_SEED, pool.POOL_SEED = (x + offset for x in seeds)
    laws.clear_caches()
    try:
        if old:
            with old_engine():
                cells = exact_grid(get_prior(name).concentration, 0.3, processes=1)
        else:
            cells = exact_grid(get_prior(name).concentration, 0.3, processes=1)
    finally:
        laws.ENGINE_SEED, nested.NESTED_SEED, pool.POOL_SEED = seeds
        laws.clear_caches()
    vals = np.array([[getattr(c, v) for v, _ in NUMBERS] for c in cells], dtype=float)
    errs = np.array([[getattr(c, e) for _, e in NUMBERS] for c in cells], dtype=float)
    return vals, errs, np.array([c.metric for c in cells])


TAIL = 1e-3
"""p and reproducibility within this of 0 or 1 are reported apart from the others: every page reads them as
"< 0.001" (or 1.000), and there the error's delta method (normal form on long lattices) does not model how the far
tail of S0 - S1 moves with the estimated law's shape, nor the transforms' round-off (about 1e-16 of the mass)."""


def numbers(args: argparse.Namespace) -> None:
    """The statistical A/B of every number (module doc, ``numbers``)."""
    import numpy as np
    from scipy import stats

    names = args.presets.split(",")
    print(
        f"{len(names)} presets x 282 configurations x 4 metrics, eps 0.3; numbers {', '.join(v for v, _ in NUMBERS)}; "
        f"{args.seeds} moved seeds; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    same_diff, same_max, same_total = 0, 0.0, 0
    zs: list[Any] = [[] for _ in NUMBERS]
    tail_z: list[Any] = [[] for _ in NUMBERS]
    fields: dict[str, int] = {}
    spread: dict[tuple[int, str], list[float]] = {}
    stated: dict[tuple[int, str], list[float]] = {}
    zero_moved: dict[str, int] = {}
    tails = 0
    for name in names:
        ov, oe, mts = _grid_numbers(name, old=True)
        nv, ne, _ = _grid_numbers(name)
        same_total += nv.size + ne.size
        for a, b, kind in ((ov, nv, ""), (oe, ne, " error")):
            moved = ~((a == b) | (np.isnan(a) & np.isnan(b)))
            same_diff += int(moved.sum())
            same_max = max(same_max, float(np.nanmax(np.abs(a - b), initial=0.0)))
            for j, (what, _) in enumerate(NUMBERS):
                for mt in mts[moved[:, j]]:
                    key = f"{what}{kind} {mt}"
                    fields[key] = fields.get(key, 0) + 1
        runs = [_grid_numbers(name, offset=s)[:2] for s in range(1, args.seeds + 1)]
        for j, (what, _) in enumerate(NUMBERS):
            inner = np.ones(len(ov), dtype=bool)
            if what in ("p", "reproducibility"):
                inner = np.all([(v[:, j] > TAIL) & (v[:, j] < 1 - TAIL) for v in [ov] + [r[0] for r in runs]], axis=0)
                tails += int(np.sum(~inner))
            for rv, re_ in runs:
                both = np.hypot(oe[:, j], re_[:, j])
                ok = np.isfinite(both) & (both > 0) & inner
                zs[j].extend(((rv[ok, j] - ov[ok, j]) / both[ok]).tolist())
                far = np.isfinite(both) & (both > 0) & ~inner & (np.abs(rv[:, j] - ov[:, j]) > 0)
                tail_z[j].extend(((rv[far, j] - ov[far, j]) / both[far]).tolist())
                off = (both == 0) & inner & (np.abs(rv[:, j] - ov[:, j]) > 1e-12)
                for mt in mts[off]:
                    key = f"{what} {mt}"
                    zero_moved[key] = zero_moved.get(key, 0) + 1
            vals = np.stack([rv[:, j] for rv, _ in runs])
            errs = np.stack([re_[:, j] for _, re_ in runs])
            ok = np.all(errs > 0, axis=0) & np.all(np.isfinite(errs), axis=0) & inner
            for mt in sorted(set(mts.tolist())):
                sel = ok & (mts == mt)
                spread.setdefault((j, mt), []).extend(np.var(vals[:, sel], axis=0, ddof=1).tolist())
                stated.setdefault((j, mt), []).extend(np.mean(errs[:, sel] ** 2, axis=0).tolist())
        print(f"  {name}: done (load {os.getloadavg()[0]:.1f})", flush=True)
    print(
        f"(1) same seeds: {same_diff:,} of {same_total:,} numbers differ (p, Delta, CI-width, reproducibility and "
        f"their errors), the largest by {same_max:.2g}; by number and metric: {fields or 'none'}"
    )
    print(f"(2) independent draws (reference at its seeds, this engine at {args.seeds} moved seeds):")
    every = np.concatenate([np.asarray(z) for z in zs])
    for (what, _), z in [*zip(NUMBERS, zs, strict=True), (("all", ""), every)]:
        z = np.asarray(z)
        m = z.size
        big = float(np.max(np.abs(z))) if m else 0.0
        p_max = 1.0 - (1.0 - 2.0 * stats.norm.sf(big)) ** m if m else float("nan")
        chi = float(np.sum(z**2))
        print(
            f"  {what:<16} {m:>7,} numbers with an error: max |z| {big:5.2f} (P(max of {m:,} |N(0,1)| >= it) = "
            f"{p_max:.3f}); sum z^2 {chi:10.1f} on {m:,} degrees of freedom (mean z^2 {chi / max(m, 1):.3f}; "
            f"chi-square upper tail {stats.chi2.sf(chi, max(m, 1)):.3g}); |z| > 4: {int(np.sum(np.abs(z) > 4))}"
        )
    for (what, _), z in zip(NUMBERS, tail_z, strict=True):
        z = np.abs(np.asarray(z))
        if z.size:
            print(
                f"  {what} within {TAIL:g} of 0 or 1 (read '< 0.001'; apart, ``TAIL``): {z.size:,} moved; |z| median "
                f"{np.median(z):.2f}, > 4 in {int(np.sum(z > 4)):,}, largest {z.max():.3g}"
            )
    print(
        f"  {tails:,} p / reproducibility values within {TAIL:g} of 0 or 1 in all; numbers stated exact (error 0) "
        f"that moved by more than 1e-12 with the seeds: {zero_moved or 'none'}"
    )
    print(
        f"(3) stated error against the spread over {args.seeds} seeds, per number and metric: sqrt(mean variance / "
        "mean error^2) (1: the error says what the spread is; below 1: the error is larger, e.g. where it holds an "
        "approximation's bound that the seeds do not move) and its 95% range from the seeds alone"
    )
    for (j, mt), sv in sorted(spread.items()):
        sv_, st_ = np.asarray(sv), np.asarray(stated[(j, mt)])
        if not st_.size:
            continue
        ratio = float(np.sqrt(np.mean(sv_) / np.mean(st_)))
        dof = st_.size * (args.seeds - 1)  # each number's variance on S - 1 degrees of freedom (pooled: an upper bound)
        lo, hi = (float(np.sqrt(x / dof)) for x in stats.chi2.ppf([0.025, 0.975], dof))
        print(
            f"  {NUMBERS[j][0]:<16} {mt:<5} {st_.size:>6,} numbers: ratio {ratio:.3f} (seeds alone: {lo:.2f}-{hi:.2f})"
        )


def _two_trees(p: argparse.ArgumentParser) -> None:
    """The A/B subcommands' two source trees: ``--old`` (required) and ``--new`` (default: this tree)."""
    p.add_argument("--old", required=True, help="source tree of the version to compare against")
    p.add_argument("--new", default=HERE, help="source tree (default: this one)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("cold", help="one cold grid in a fresh process")
    p.add_argument("preset", help="a preset prior's name, e.g. JobsQ3")
    p.add_argument("--metrics", default="acc,tv,wins,kl", help="comma-separated (default: the paper's four)")
    p.add_argument("--eps", type=float, default=0.3)
    p.add_argument("--processes", type=int, default=None, help="default: the engine's own choice")
    p.add_argument("--root", default=HERE, help="source tree of nkcore")
    p.set_defaults(run=cold)
    p = sub.add_parser("sweep", help="presets x eps 0.1-0.4, caches kept")
    p.add_argument("presets", help="comma-separated preset names, e.g. Toxicity,JobsQ3,balanced5")
    p.add_argument("--root", default=HERE, help="source tree of nkcore")
    p.set_defaults(run=sweep)
    p = sub.add_parser("cold-ab", help="cold grids in fresh processes, two trees alternating")
    p.add_argument("presets", help="comma-separated preset names, or 'all'")
    _two_trees(p)
    p.add_argument("--reps", type=int, default=3, help="cold runs of each side per preset (default 3)")
    p.set_defaults(run=cold_ab)
    p = sub.add_parser("warm-ab", help="warm grids and one cell, two trees alternating")
    p.add_argument("presets", help="comma-separated preset names, or 'all'")
    _two_trees(p)
    p.add_argument("--reps", type=int, default=1, help="processes of each side per preset (default 1)")
    p.set_defaults(run=warm_ab)
    p = sub.add_parser("cli", help="the CLI from cold processes, two trees alternating")
    p.add_argument("argv", nargs="*", help="the CLI's arguments (default: nk --prior JobsQ3 --grid --json)")
    _two_trees(p)
    p.add_argument("--reps", type=int, default=5, help="runs of each side (default 5)")
    p.set_defaults(run=cli)
    p = sub.add_parser("interleaved", help="two trees on the same grids, in turn")
    p.add_argument("presets", help="comma-separated preset names, e.g. Toxicity,JobsQ3,balanced5")
    _two_trees(p)
    p.set_defaults(run=interleaved)
    p = sub.add_parser("numbers", help="statistical A/B of every number against the reference engine")
    p.add_argument("presets", nargs="?", default="all", help="comma-separated preset names, or 'all' (default)")
    p.add_argument("--seeds", type=int, default=3, help="moved seeds of this engine (default 3)")
    p.set_defaults(run=numbers)
    p = sub.add_parser("split", help="one process against two on the same grids")
    p.add_argument("--presets", default="JobsQ3,balanced12,Toxicity", help="comma-separated preset names")
    p.add_argument("--reps", type=int, default=3, help="runs of each way (default 3)")
    p.set_defaults(run=split)
    args = ap.parse_args()
    if getattr(args, "presets", None) == "all":
        sys.path.insert(0, HERE)
        from nkcore.nk.priors import preset_names

        args.presets = ",".join(preset_names())
    args.run(args)


if __name__ == "__main__":
    main()
