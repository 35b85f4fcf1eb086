"""Exact paired bootstrap vs the chapter's pure-Python ``paired_bootstrap`` and ``scipy.stats.bootstrap(paired=True)``.

Run: ``.venv/bin/python benchmarks/bench_paired.py``. Same data for every method, one process, several repeats;
prints median wall times, the intervals (so the methods can be seen to agree) and the speed ratios.
Targets: 200 cases in under 1 ms, 1,000,000 cases in under 50 ms for the exact bootstrap.
Skipped on purpose: the pure-Python reference at 1,000,000 cases (20,000 x 1,000,000 Python-level draws would take
hours), and a full 20,000-resample scipy run at 1,000,000 cases (2 x 10^10 index draws); scipy is timed there on
100 resamples and its time is scaled linearly to 20,000 (marked "extrapolated"). Last, the hardest input for the FFT
(every case discordant, the widest window) against Monte Carlo drawn straight from the multinomial counts: that
shortcut is about as fast, so the exact method's gain there is determinism (no Monte Carlo noise), not speed.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from statistics import mean
from typing import TypeVar

import numpy as np
from scipy import stats

from nkcore.paired import exact_paired_bootstrap, paired_bootstrap_mc, paired_table_from_counts

REPS = 20_000
T = TypeVar("T")


def paired_bootstrap(a: list[bool], b: list[bool], reps: int = REPS) -> tuple[float, float]:
    """The chapter's reference implementation, verbatim: 95% interval on acc(b) - acc(a), resampling cases."""
    n = len(a)
    diffs = []
    for _ in range(reps):
        idx = [random.randrange(n) for _ in range(n)]
        diffs.append(mean(b[i] for i in idx) - mean(a[i] for i in idx))
    diffs.sort()
    return diffs[int(0.025 * reps)], diffs[int(0.975 * reps)]


def exact_from_arrays(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """The fast path as the app runs it: count the discordant cases, then the exact interval."""
    a_only = int(np.count_nonzero(a & ~b))
    b_only = int(np.count_nonzero(b & ~a))
    r = exact_paired_bootstrap(a_only, b_only, a.size)
    return r.low, r.high


def scipy_bootstrap(a: np.ndarray, b: np.ndarray, reps: int = REPS, batch: int | None = None) -> tuple[float, float]:
    """scipy.stats.bootstrap on (a, b) paired, percentile method, statistic mean(b) - mean(a)."""
    res = stats.bootstrap(
        (a.astype(np.int8), b.astype(np.int8)),
        lambda x, y, axis=-1: y.mean(axis=axis) - x.mean(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=reps,
        confidence_level=0.95,
        method="percentile",
        batch=batch,
        random_state=np.random.default_rng(0),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def mc_from_counts(a_only: int, b_only: int, n: int, reps: int) -> tuple[float, float]:
    """Monte Carlo straight from the counts: (A*, B*, rest*) ~ Multinomial(n, ...), read as the chapter reads."""
    rng = np.random.default_rng(0)
    draws = rng.multinomial(n, [a_only / n, b_only / n, (n - a_only - b_only) / n], size=reps)
    diffs = np.sort((draws[:, 1] - draws[:, 0]) / n)
    return float(diffs[int(0.025 * reps)]), float(diffs[int(0.975 * reps)])


def timeit(func: Callable[[], T], repeats: int) -> tuple[float, T]:
    """Median wall time (seconds) over ``repeats`` runs (at least one), and the last result."""
    times = []
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    out = func()
    times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def show(label: str, seconds: float, interval: tuple[float, float], note: str = "") -> None:
    """One line: the method, its median time and its interval."""
    lo, hi = interval
    print(f"  {label:<44} {seconds * 1e3:>12.3f} ms   interval ({lo:+.4f}, {hi:+.4f}) {note}")


def main() -> None:
    random.seed(0)
    # ---- 200 cases: the chapter's n=1 -> n=3 (12 only n=1, 26 only n=3)
    t = paired_table_from_counts("n=1", "n=3", 130, 12, 26, 32)
    a, b = t.column("n=1"), t.column("n=3")
    print("200 cases (the chapter's n=1 -> n=3: 12 vs 26 discordant)")
    ex_counts, r_counts = timeit(lambda: exact_paired_bootstrap(12, 26, 200), 200)
    show("exact, from the counts", ex_counts, (r_counts.low, r_counts.high))
    ex, r_ex = timeit(lambda: exact_from_arrays(a, b), 200)
    show("exact, from the 0/1 arrays", ex, r_ex)
    mc, r_mc = timeit(lambda: paired_bootstrap_mc(a, b, reps=REPS, seed=0), 5)
    show("numpy Monte Carlo (20,000 resamples)", mc, (r_mc.low, r_mc.high))
    sp, r_sp = timeit(lambda: scipy_bootstrap(a, b), 5)
    show("scipy.stats.bootstrap paired (20,000)", sp, r_sp)
    al, bl = a.tolist(), b.tolist()
    py, r_py = timeit(lambda: paired_bootstrap(al, bl), 3)
    show("chapter pure-Python paired_bootstrap (20,000)", py, r_py)
    print(
        f"  ratios: pure Python / exact = {py / ex:,.0f}x; scipy / exact = {sp / ex:,.0f}x; numpy MC / exact = {mc / ex:,.0f}x"
    )

    # ---- 1,000,000 cases, the same shares of discordant cases
    n = 1_000_000
    t = paired_table_from_counts("A", "B", 650_000, 60_000, 130_000, 160_000)
    a, b = t.column("A"), t.column("B")
    print("1,000,000 cases (6% only A, 13% only B)")
    ex_counts, r_counts = timeit(lambda: exact_paired_bootstrap(60_000, 130_000, n), 20)
    show("exact, from the counts", ex_counts, (r_counts.low, r_counts.high))
    ex, r_ex = timeit(lambda: exact_from_arrays(a, b), 20)
    show("exact, from the 0/1 arrays", ex, r_ex)
    small = 100
    sp, r_sp = timeit(lambda: scipy_bootstrap(a, b, reps=small, batch=10), 3)
    sp_full = sp * REPS / small
    show("scipy.stats.bootstrap paired (100 resamples)", sp, r_sp, "(noisy: 100 resamples)")
    print(f"  scipy at 20,000 resamples, extrapolated: {sp_full:,.1f} s")
    print("  pure-Python paired_bootstrap: skipped at 1,000,000 cases (hours)")
    print(f"  ratios: scipy (extrapolated to 20,000) / exact = {sp_full / ex:,.0f}x")

    # ---- the largest FFT: every case discordant (the characteristic function has modulus ~1 near t = pi too)
    print("1,000,000 cases, every one discordant (49.9% only A, 50.1% only B): the largest FFT window")
    ex_counts, r_counts = timeit(lambda: exact_paired_bootstrap(499_000, 501_000, n), 20)
    show("exact, from the counts", ex_counts, (r_counts.low, r_counts.high))
    mc_c, r_mc_c = timeit(lambda: mc_from_counts(499_000, 501_000, n, reps=REPS), 3)
    show("numpy Monte Carlo on the counts (20,000)", mc_c, r_mc_c, "(multinomial draws of the counts)")
    print(f"  ratios: numpy Monte Carlo on the counts (20,000) / exact = {mc_c / ex_counts:,.2f}x")


if __name__ == "__main__":
    main()
