"""Anytime-valid paired comparison: null false-positive rate over 2,000 looks, naive peeking beside it, power and
stopping time against the fixed-n test, and the speed of ``Monitor.update`` from a plain Python loop.

Run: ``NKP_MAX_CASES=100000000 .venv/bin/python benchmarks/bench_sequential.py`` (long profile: 10,000 null runs per kind, 2,000 runs per
effect size; ``--quick`` for 1,000 / 300). Output kept in ``benchmarks/results/bench_sequential.txt``.

Null runs: 2,000 cases each, looked at after every case. 0/1 cases: 20% discordant, a discordant case B's with
probability 1/2 (:func:`nkcore.sequential.simulate`); cases with 3 repeats: difficulty p_i ~ Beta(2, 2), each
config's repeats Binomial(3, p_i). Naive peeking: the fixed-n test (exact McNemar; the sign-flip test's normal form)
after every case, or every 10th, stopping at the first p < alpha. The Monte Carlo standard error of a rate near 0.05
at 10,000 runs is 0.0022. Speed: Monitor.update over 200,000 cases (0/1 and 3 repeats), median of 5 timings, as a
ratio against a reference loop in the same run (the same loop calling a function that only adds the two scores),
so the number does not depend on how busy the machine is.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

from nkcore.resolution import cases_for_power_exact
from nkcore.sequential import Monitor, simulate


def _reference(a: int, b: int, acc: list[float]) -> None:
    acc[0] += b - a


def _speed(kind: str, n: int, reps: int = 5) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    if kind == "binary":
        pairs = list(zip(rng.integers(0, 2, n).tolist(), rng.integers(0, 2, n).tolist(), strict=True))
    else:
        pairs = [
            (x, y)
            for x, y in zip(rng.integers(0, 2, (n, 3)).tolist(), rng.integers(0, 2, (n, 3)).tolist(), strict=True)
        ]
    mon_times, ref_times = [], []
    for _ in range(reps):
        acc = [0.0]
        t0 = time.perf_counter()
        for a, b in pairs:
            _reference(a if kind == "binary" else a[0], b if kind == "binary" else b[0], acc)
        ref_times.append(time.perf_counter() - t0)
        mon = Monitor(0.05, kind=kind)
        t0 = time.perf_counter()
        for a, b in pairs:
            mon.update(a, b)
        mon_times.append(time.perf_counter() - t0)
    return n / statistics.median(mon_times), n / statistics.median(ref_times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    null_runs, alt_runs, looks = (1_000, 300, 2_000) if args.quick else (10_000, 2_000, 2_000)
    print(f"python {platform.python_version()}, numpy {np.__version__}; looks per run {looks:,}; alpha 0.05")
    print()
    print(f"Null (no difference): share of runs ever declared different over {looks:,} looks")
    print(f"{'data':<28}{'runs':>8}{'anytime-valid':>15}{'MC se':>8}{'naive, every case':>19}{'naive, every 10':>17}")
    for kind, label in (("binary", "0/1 cases (20% discordant)"), ("scores", "3 repeats per case")):
        t0 = time.perf_counter()
        r1 = simulate(kind, null_runs, looks, 0.0, 0.05, seed=1)
        r10 = simulate(kind, null_runs, looks, 0.0, 0.05, every=10, seed=1)
        print(
            f"{label:<28}{r1.runs:>8,}{r1.rejected:>15.4f}{r1.rejected_se:>8.4f}{r1.naive:>19.3f}{r10.naive:>17.3f}"
            f"   ({time.perf_counter() - t0:.0f} s)"
        )
    print()
    print(f"Power and stopping time ({alt_runs:,} runs each, stopping at the first decision, at most {looks:,} cases)")
    print(
        f"{'data':<20}{'true diff':>10}{'decided':>9}{'median stop':>13}{'quartiles':>14}{'mean (cap)':>12}"
        f"{'fixed-n power':>15}{'fixed-n cases @80%':>20}"
    )
    for kind, label in (("binary", "0/1, 20% discordant"), ("scores", "3 repeats")):
        for diff in (0.02, 0.04, 0.06):
            r = simulate(kind, alt_runs, looks, diff, 0.05, seed=2)
            plan = cases_for_power_exact(diff, 0.2, 0.05, 0.8) if kind == "binary" else None
            quart = f"{r.stop_q1:,.0f}-{r.stop_q3:,.0f}" if r.stop_q1 is not None else "-"
            med = f"{r.stop_median:,.0f}" if r.stop_median is not None else "-"
            print(
                f"{label:<20}{100 * diff:>+9.0f}p{r.rejected:>9.3f}{med:>13}{quart:>14}{r.stop_mean_capped:>12,.0f}"
                f"{r.fixed_n:>15.3f}{(f'{plan:,}' if plan else '-'):>20}"
            )
    print()
    print("Monitor.update from a plain Python loop (200,000 cases, median of 5)")
    for kind in ("binary", "scores"):
        mon, ref = _speed(kind, 200_000)
        print(f"  {kind:<7}: {mon:>10,.0f} cases/s; reference loop {ref:>12,.0f} calls/s; ratio {ref / mon:.1f}x")


if __name__ == "__main__":
    main()
