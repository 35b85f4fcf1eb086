"""Benchmark: exact majority-vote curve for 10,000 cases x 31 samples, n = 1..31, against Monte Carlo; and
pass@k, pass^k and flaky cases on the same samples against a per-case reference.

Run: ``.venv/bin/python benchmarks/bench_voting.py`` (add ``--quick`` for a smaller run, ``--only passk`` or
``--only vote`` for one part).

Fast path: ``nkcore.voting.case_credit_exact`` (hypergeometric counting over answer groups, one computation per
distinct group-size signature) plus the mean over cases. Reference: Monte Carlo subset sampling in the same
process: for each replicate, a uniformly random order of every case's samples, and the split-credit plurality of
the first n for every n (an unbiased estimate of the same curve). Prints medians over repeats, the ratio, and
how far the two curves are apart in units of the Monte Carlo standard error. Target: exact curve under 2 s.

pass@k part: ``nkcore.voting.case_pass_at_k`` / ``case_pass_hat_k`` (one running product over k for all cases)
and ``nkcore.voting.flaky_cases``, against a reference in the same process: per case, Chen et al.'s numpy
estimator for every k and C(c, k) / C(n, k) with ``math.comb``, and the flaky test and answer counts with
``collections.Counter``. Medians of 5 repeats; the paired bootstrap (2,000 replicates) is timed on its own.
Target: pass@k, pass^k and flaky cases under 0.5 s.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from nkcore import voting
from nkcore.voting.exact import clear_curve_cache


def make_samples(n_cases: int, n_samples: int, seed: int = 0) -> voting.SampleSet:
    """Synthetic raw samples: per-case difficulty ~ Beta(1.5, 0.6), wrong answers spread over 1-5 distractors
    with Dirichlet(0.5) weights (some cases have one dominant wrong answer)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(1.5, 0.6, size=n_cases)
    n_wrong = rng.integers(1, 6, size=n_cases)
    correct = rng.random((n_cases, n_samples)) < p[:, None]
    answers = np.empty((n_cases, n_samples), dtype=object)
    for i in range(n_cases):
        w = rng.dirichlet(np.full(n_wrong[i], 0.5))
        wrong = rng.choice(n_wrong[i], size=n_samples, p=w)
        answers[i] = np.where(correct[i], "g", np.char.add("w", wrong.astype(str)))
    frame = pd.DataFrame(
        {
            "case": np.repeat(np.arange(n_cases), n_samples),
            "sample": np.tile(np.arange(1, n_samples + 1), n_cases),
            "answer": answers.ravel(),
            "gold": "g",
        }
    )
    return voting.parse_samples(frame)


def exact_curve(s: voting.SampleSet) -> np.ndarray:
    """The fast path: exact expected split-credit accuracy at every n (the curves kept from a former call are
    forgotten first, so every repeat computes them)."""
    clear_curve_cache()
    return np.nanmean(voting.case_credit_exact(s, "split"), axis=0)


def monte_carlo_curve(s: voting.SampleSet, reps: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Reference: mean over ``reps`` random orders of each case's samples of the first-n split credit."""
    rng = np.random.default_rng(seed)
    c, m = s.codes.shape
    g = int(s.codes.max()) + 1
    per_rep = []
    gold = np.clip(s.gold_code, 0, None)
    for _ in range(reps):
        order = np.argsort(rng.random((c, m)), axis=1)
        codes = np.take_along_axis(s.codes, order, axis=1)
        cnt = np.cumsum(codes[:, :, None] == np.arange(g)[None, None, :], axis=1, dtype=np.int16)
        top = cnt.max(axis=2)
        n_top = (cnt == top[:, :, None]).sum(axis=2)
        gc = np.take_along_axis(cnt, np.broadcast_to(gold[:, None, None], (c, m, 1)), axis=2)[:, :, 0]
        credit = np.where((s.gold_code[:, None] >= 0) & (gc == top), 1.0 / n_top, 0.0)
        per_rep.append(credit.mean(axis=0))
    arr = np.array(per_rep)
    return arr.mean(axis=0), arr.std(axis=0, ddof=1) / np.sqrt(reps)


def timed(func: Callable[..., Any], *args: Any, repeats: int) -> tuple[float, Any]:
    """Median wall time of ``repeats`` calls and the last result."""
    times: list[float] = []
    out: Any = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = func(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def passk_fast(s: voting.SampleSet) -> tuple[np.ndarray, np.ndarray, voting.FlakyCases]:
    """The fast path: per-case pass@k and pass^k for every k, their means over cases, and the flaky cases."""
    at, hat = voting.case_pass_at_k(s), voting.case_pass_hat_k(s)
    return np.nanmean(at, axis=0), np.nanmean(hat, axis=0), voting.flaky_cases(s)


def _chen_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. 2021, Figure 3: the numpy estimator, as published."""
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def passk_reference(s: voting.SampleSet) -> tuple[np.ndarray, np.ndarray, int]:
    """Reference: a per-case loop (Chen's estimator and math.comb for every k; Counter for the flaky cases)."""
    m = s.max_n
    at_sum, hat_sum, count = np.zeros(m), np.zeros(m), np.zeros(m)
    flaky = 0
    for i in range(s.n_cases):
        n = int(s.n_samples[i])
        codes = s.codes[i, :n].tolist()
        c = codes.count(int(s.gold_code[i])) if s.gold_code[i] >= 0 else 0
        for k in range(1, n + 1):
            at_sum[k - 1] += _chen_pass_at_k(n, c, k)
            hat_sum[k - 1] += math.comb(c, k) / math.comb(n, k)
            count[k - 1] += 1
        if 0 < c < n:
            flaky += 1
            Counter(s.labels[i][x] for x in codes).most_common()
    return at_sum / count, hat_sum / count, flaky


def timed_cpu(func: Callable[..., Any], *args: Any, repeats: int) -> tuple[float, float, Any]:
    """Median wall time and median CPU time (this process) of ``repeats`` calls, and the last result: on a shared
    machine the CPU time is what the code costs, the wall time what a user waits."""
    wall: list[float] = []
    cpu: list[float] = []
    out: Any = None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = func(*args)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu), out


def bench_passk(s: voting.SampleSet, repeats: int) -> None:
    """Time the pass@k fast path against the per-case reference; check they agree."""
    t_fast, c_fast, (at, hat, fl) = timed_cpu(passk_fast, s, repeats=repeats)
    t_ref, c_ref, (ref_at, ref_hat, ref_flaky) = timed_cpu(passk_reference, s, repeats=repeats)
    t_boot, c_boot, _ = timed_cpu(voting.pass_k_curves, s, "first", 2000, 0, False, repeats=repeats)
    print("                                         wall (s)   CPU (s)")
    print(f"pass@k, pass^k and flaky cases:          {t_fast:8.3f}  {c_fast:8.3f}")
    print(f"per-case reference (Chen, math.comb):    {t_ref:8.3f}  {c_ref:8.3f}")
    print(f"ratio reference / fast:                  {t_ref / t_fast:8.1f}x {c_ref / c_fast:8.1f}x")
    print(f"with the paired bootstrap (2,000 reps, no majority@k): {t_boot:.3f} s wall, {c_boot:.3f} s CPU")
    diff = max(np.max(np.abs(at - ref_at)), np.max(np.abs(hat - ref_hat)))
    print(f"max |fast - reference| = {diff:.2e}; flaky cases {fl.flaky:,} (reference {ref_flaky:,})")
    verdict = "met" if c_fast < 0.5 else "NOT met"
    print(
        f"target: pass@k, pass^k and flaky under 0.5 s -> {verdict} in CPU time ({c_fast:.3f} s; wall {t_fast:.3f} s)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--samples", type=int, default=31)
    ap.add_argument("--reps", type=int, default=20, help="Monte Carlo replicates (random orders per case)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="2,000 cases, 5 replicates")
    ap.add_argument("--only", choices=("all", "vote", "passk"), default="all", help="run one part (default: both)")
    ap.add_argument("--passk-repeats", type=int, default=5, help="repeats of the pass@k timings (median)")
    a = ap.parse_args()
    if a.quick:
        a.cases, a.reps = 2000, 5
    s = make_samples(a.cases, a.samples)
    if a.only in ("all", "passk"):
        print(f"{a.cases:,} cases x {a.samples} samples per case, k = 1..{a.samples}; median of {a.passk_repeats}")
        bench_passk(s, a.passk_repeats)
        if a.only == "passk":
            return
    print(f"{a.cases:,} cases x {a.samples} samples per case, n = 1..{a.samples}; median of {a.repeats} repeats")
    # warm the binomial table once so neither side pays for it
    voting.exact_case_curve(1, (1,), "split")
    t_exact, exact = timed(exact_curve, s, repeats=a.repeats)
    t_mc, (mc, se) = timed(monte_carlo_curve, s, a.reps, repeats=a.repeats)
    exact = np.asarray(exact)
    z = np.abs(exact - mc) / np.where(se > 1e-9, se, np.inf)  # n = all samples: no sampling noise at all
    print(f"exact curve (hypergeometric counting):   {t_exact:8.3f} s")
    print(f"Monte Carlo reference ({a.reps} orders/case): {t_mc:8.3f} s")
    print(f"ratio reference / exact:                 {t_mc / t_exact:8.1f}x")
    print(f"max |exact - MC| = {np.max(np.abs(exact - mc)):.5f} (max {np.max(z):.2f} MC standard errors)")
    print("n: " + "  ".join(f"{n}:{acc:.3f}" for n, acc in zip(range(1, a.samples + 1, 5), exact[::5], strict=False)))
    print(f"target: exact under 2 s -> {'met' if t_exact < 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
