"""Benchmark: the Sampling page on 300 cases x 1,000 free-form samples (issue 52, "heavy views"; target: a usable
view in under 5 s and under 500 MiB peak resident memory for the server process).

Two files of 300 cases x 1,000 samples (300,000 rows, answers as text):

- ``distinct``: the issue's file (``tests/hostile_files.samples_distinct_answers(300, 1000)``): case c has
  1 + c % 40 gold samples and every other sample a different answer (free-form answers that never repeat, the most
  answer groups a case can have). Before: 60 s per view and 783-878 MiB, then refused by ``NKP_MAX_VOTE_WORK``
  (5.0e10 multiply-adds estimated).
- ``zipf``: free-form answers that repeat as real ones do: per case a right-answer rate p ~ Beta(1.5, 1) and wrong
  answers drawn from 3,000 answers with Zipf(1.1) weights (a few common wrong answers, a long tail of one-offs):
  300 distinct answer-group shapes, up to about 350 wrong answers per case.

Two measurements, each in fresh processes (3 runs; wall and CPU time are medians, peak memory the largest), the CSV
read before the clock starts (CPU time: ``time.process_time`` of the process, every thread, over the timed part):

- ``numbers``: a process that reads the file and builds every number the Sampling page opens on
  (:func:`nkcore.voting.sampling_numbers` under the default tie rule: the exact vote curve with its bootstrap
  bands, rho, the models, the default unfixable errors and model check, pass@k, pass^k, majority@k and the flaky
  cases; then the model curves the page draws). Peak memory: the process's VmHWM (the interpreter and imports
  included, about 150 MB).
- ``server``: a real server (``python -m ui.serve``) with the file stored; a websocket viewer opens the built-in
  example's Sampling page (imports, first run), then one opens ``/Sampling?samples=<id>``
  (``benchmarks/load_viewers.py``): that view's seconds to the end of its run, the server's CPU seconds over it and
  its peak resident memory (VmHWM): the figure the target is about.
- ``page``: the page itself through Streamlit's AppTest, which runs the page script in this process as the server
  does: the file is stored in a temporary ``NKP_DATA_DIR``, the built-in example is opened once (imports and
  Streamlit warm), then ``/Sampling?samples=<id>`` is opened and timed (caches cold: the first viewer of a stored
  file). Peak memory: the process's VmHWM, the server's own.

    .venv/bin/python benchmarks/bench_heavy_sampling.py            # both files, both measurements
    .venv/bin/python benchmarks/bench_heavy_sampling.py --quick    # one run each

Results: ``benchmarks/results/bench_heavy_sampling.txt``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "bench_heavy_sampling.txt"
CASES, PER_CASE = 300, 1000
TARGET_SECONDS, TARGET_MIB = 5.0, 500


def zipf_free_form(cases: int = CASES, per_case: int = PER_CASE, seed: int = 0) -> pd.DataFrame:
    """Free-form answers that repeat as real ones do (module docstring): gold "g", wrong answers "c<case>_<j>"."""
    rng = np.random.default_rng(seed)
    p = rng.beta(1.5, 1.0, size=cases)
    vocab = 3000
    weights = 1.0 / np.arange(1, vocab + 1) ** 1.1
    weights /= weights.sum()
    parts = []
    for c in range(cases):
        right = rng.random(per_case) < p[c]
        wrong = rng.permutation(vocab)[rng.choice(vocab, size=per_case, p=weights)]
        answer = np.where(right, "g", np.char.add(f"c{c}_", wrong.astype(str)))
        parts.append(pd.DataFrame({"case": c, "sample": np.arange(1, per_case + 1), "answer": answer, "gold": "g"}))
    return pd.concat(parts, ignore_index=True)


def write_files(folder: Path) -> dict[str, Path]:
    """The two CSV files of the module docstring."""
    sys.path.insert(0, str(ROOT))
    from tests.hostile_files import samples_distinct_answers

    paths = {"distinct": folder / "distinct.csv", "zipf": folder / "zipf.csv"}
    paths["distinct"].write_bytes(samples_distinct_answers(CASES, PER_CASE))
    zipf_free_form().to_csv(paths["zipf"], index=False)
    return paths


def _peak_mib() -> float:
    """This process's peak resident memory (VmHWM), MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_numbers(path: str) -> dict[str, object]:
    """Every number the Sampling page opens on, from the file (timed after the read)."""
    from nkcore import voting

    frame = pd.read_csv(path)
    start, cpu = time.perf_counter(), time.process_time()
    numbers = voting.sampling_numbers(frame, tie="first", n_boot=2000, seed=0)
    a = numbers.analysis
    p = a.curve.point(1).accuracy
    ns = tuple(pt.n for pt in a.curve.points)
    rho = max(a.rho.rho, 0.0) if np.isfinite(a.rho.rho) else 0.0
    models = [voting.independent_accuracy(p, n) for n in ns], voting.correlated_curve(p, ns, rho)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "seconds": seconds,
        "cpu": cpu,
        "peak_mib": _peak_mib(),
        "points": len(ns),
        "models": len(models[0]),
        "accuracy_at_max": a.curve.points[-1].accuracy,
    }


def child_page(path: str) -> dict[str, object]:
    """The page through AppTest, as the server runs it: the stored file opened by its link (timed)."""
    data = tempfile.mkdtemp(prefix="nkp_bench_")
    os.environ["NKP_DATA_DIR"] = data
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    from streamlit.testing.v1 import AppTest

    from nkcore import store

    ds_id = store.put(pd.read_csv(path), "samples", Path(path).name).id

    def run(query: dict[str, str]) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.switch_page("pages/4_Sampling.py")
        for key, value in query.items():
            at.query_params[key] = value
        return at.run()

    run({})  # the built-in example: imports and Streamlit warm, as on a running server
    start, cpu = time.perf_counter(), time.process_time()
    at = run({"samples": ds_id})
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    shown = " ".join(str(m.value) for m in at.markdown)
    return {
        "seconds": seconds,
        "cpu": cpu,
        "peak_mib": _peak_mib(),
        "exceptions": [str(e.value)[:300] for e in at.exception],
        "errors": [str(e.value)[:300] for e in at.error],
        "charts": len(at.get("vega_lite_chart")) + len(at.get("arrow_vega_lite_chart")),
        "grid_note": "grid of" in shown,
    }


def server_view(path: Path) -> dict[str, object]:
    """A real server (``python -m ui.serve``, started as ``benchmarks/load_viewers.py`` does): the file stored in a
    fresh data folder; one websocket viewer opens the built-in example's Sampling page first (the server's imports
    and first run, as on a server that is up), then one opens ``/Sampling?samples=<id>``: its seconds to the run's
    end, the server's CPU seconds over that view and its peak resident memory (VmHWM, from /proc)."""
    import asyncio

    sys.path.insert(0, str(ROOT))
    from benchmarks.load_viewers import _proc_cpu_seconds, _proc_peak_mib, crowd, server
    from nkcore import store

    with tempfile.TemporaryDirectory() as tmp:
        ds_id = store.put(pd.read_csv(path), "samples", path.name, root=tmp).id
        with server(Path(tmp), Path(tmp) / "computations.jsonl") as (base, pid):
            started = _proc_peak_mib(pid)
            asyncio.run(crowd(base, "/Sampling", 1, 600))
            before, cpu0 = _proc_peak_mib(pid), _proc_cpu_seconds(pid)
            view = asyncio.run(crowd(base, f"/Sampling?samples={ds_id}", 1, 600))[0]
            cpu, peak = _proc_cpu_seconds(pid) - cpu0, _proc_peak_mib(pid)
    return {
        "seconds": view.seconds,
        "cpu": cpu,
        "peak_mib": peak,
        "exceptions": list(view.exceptions),
        "errors": list(view.errors),
        "answered": int(view.finished and not view.exceptions and not view.errors),
        "started_mib": started,
        "before_mib": before,
    }


def _child(mode: str, path: Path) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=900,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} on {path.name} failed:\n{proc.stderr[-3000:]}")
    out: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each measurement")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--only", choices=("numbers", "page", "server"), help="one measurement only")
    args = parser.parse_args()
    if args.child:
        mode, path = args.child
        result = child_numbers(path) if mode == "numbers" else child_page(path)
        print(json.dumps(result))
        return
    runs = 1 if args.quick else 3
    modes = [args.only] if args.only else ["numbers", "page", "server"]
    lines = [
        f"bench_heavy_sampling: the Sampling page on {CASES} cases x {PER_CASE:,} free-form samples "
        f"(target under {TARGET_SECONDS:.0f} s and {TARGET_MIB} MiB)",
        f"machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work), Python "
        f"{platform.python_version()}; {runs} fresh process(es) per row: median wall time, largest peak memory",
        "",
        f"{'file':10s} {'measurement':12s} {'wall s (median)':>16s} {'runs':>22s} {'CPU s (median)':>15s} "
        f"{'peak MiB':>9s}  notes",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_files(Path(tmp))
        for name, path in paths.items():
            for mode in modes:
                results = [server_view(path) if mode == "server" else _child(mode, path) for _ in range(runs)]
                secs = [float(r["seconds"]) for r in results]  # type: ignore[arg-type]
                cpus = [float(r["cpu"]) for r in results]  # type: ignore[arg-type]
                peak = max(float(r["peak_mib"]) for r in results)  # type: ignore[arg-type]
                last = results[-1]
                if mode == "numbers":
                    note = f"{last['points']} points on the curve"
                elif mode == "server":
                    note = (
                        f"answered {last['answered']}, exceptions {len(last['exceptions'])}, error boxes "  # type: ignore[arg-type]
                        f"{len(last['errors'])}; server peak {float(last['started_mib']):.0f} MiB started, "  # type: ignore[arg-type]
                        f"{float(last['before_mib']):.0f} MiB after the built-in example"  # type: ignore[arg-type]
                    )
                else:
                    note = (
                        f"exceptions {len(last['exceptions'])}, error boxes {len(last['errors'])}, "  # type: ignore[arg-type]
                        f"charts {last['charts']}"
                    )
                    if last["exceptions"] or last["errors"]:
                        note += f": {last['exceptions'] or last['errors']}"
                row = (
                    f"{name:10s} {mode:12s} {statistics.median(secs):16.2f} "
                    f"{', '.join(f'{s:.2f}' for s in secs):>22s} {statistics.median(cpus):15.2f} {peak:9.0f}  {note}"
                )
                print(row, flush=True)
                lines.append(row)
    lines += [
        "",
        f"load average when written: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores "
        "(wall time on a busy machine is CPU time stretched by the other work; CPU time is what the view costs;",
        "the page's CPU includes AppTest's own start, about 1.3 s of scanning installed packages, not the server's)",
        "numbers: nkcore.voting.sampling_numbers (curve, bands, rho, models, unfixable, model check, pass@k, flaky)",
        "page: AppTest of pages/4_Sampling.py?samples=<id> in the process that runs it (the server's role), first",
        "view of the stored file after the built-in example warmed imports; peak = that process's VmHWM.",
        "server: python -m ui.serve with the file stored; one websocket viewer of /Sampling (the built-in example:",
        "imports and first run), then one of /Sampling?samples=<id> (benchmarks/load_viewers.py): that view's seconds",
        "to the run's end, the server's CPU seconds over it and the server's VmHWM.",
        "Command: .venv/bin/python benchmarks/bench_heavy_sampling.py",
    ]
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"written {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
