"""Benchmark: exact majority-vote curve for 10,000 cases x 31 samples, n = 1..31, against Monte Carlo.

Run: ``.venv/bin/python benchmarks/bench_voting.py`` (add ``--quick`` for a smaller run).

Fast path: ``nkcore.voting.case_credit_exact`` (hypergeometric counting over answer groups, one computation per
distinct group-size signature) plus the mean over cases. Reference: Monte Carlo subset sampling in the same
process: for each replicate, a uniformly random order of every case's samples, and the split-credit plurality of
the first n for every n (an unbiased estimate of the same curve). Prints medians over repeats, the ratio, and
how far the two curves are apart in units of the Monte Carlo standard error. Target: exact curve under 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from nkcore import voting


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
    """The fast path: exact expected split-credit accuracy at every n."""
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--samples", type=int, default=31)
    ap.add_argument("--reps", type=int, default=20, help="Monte Carlo replicates (random orders per case)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="2,000 cases, 5 replicates")
    a = ap.parse_args()
    if a.quick:
        a.cases, a.reps = 2000, 5
    s = make_samples(a.cases, a.samples)
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
