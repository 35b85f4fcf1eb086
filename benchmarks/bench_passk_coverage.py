"""Coverage study: 95% intervals for pass@k and pass^k against the population value, by simulation.

Run: ``.venv/bin/python benchmarks/bench_passk_coverage.py`` (``--reps 2000`` replications per design by
default; ``--quick`` for 300). Output kept in ``benchmarks/results/bench_passk_coverage.txt``.

Each replication draws ``cases`` per-case success probabilities p_i ~ F, then c_i ~ Binomial(n, p_i) right samples
of n per case, takes the per-case unbiased estimate x_i (:func:`nkcore.voting.pass_at_k` / ``pass_hat_k``) and
builds three intervals for the mean: the former paired percentile bootstrap
(:func:`nkcore.voting.passk.case_bootstrap_bands`, 2,000 replicates), the new score interval
(:func:`nkcore.common.bounded_mean.bounded_mean_intervals`, what ``pass_k_curves`` now reports) and, as a
reference, the betting interval of Waudby-Smith & Ramdas (2023, JRSSB 86:1, "Estimating means of bounded random
variables by betting"; hedged capital, theta = 1/2, predictable plug-in bets for a fixed n with c = 3/4, running
intersection), which holds its level for every n but is wider. Coverage is of the TRUE value: E_F[1 - (1-p)^k]
(pass@k) or E_F[p^k] (pass^k), in closed form for F = Beta(a, b): E[p^k] = prod_{j<k} (a + j) / (a + b + j).
Replications are the columns of one cases x reps matrix, so every interval is computed by the library code itself.
The Monte Carlo standard error of a coverage near 0.95 is sqrt(0.95 * 0.05 / reps) (0.005 at 2,000).
"""

from __future__ import annotations

import argparse
import math
import platform
import subprocess
import time
from dataclasses import dataclass

import numpy as np

from nkcore.common.bounded_mean import bounded_mean_intervals
from nkcore.voting.passk import case_bootstrap_bands, pass_at_k, pass_hat_k

LEVEL = 0.95


@dataclass(frozen=True, slots=True)
class Design:
    """``cases`` cases of ``n`` samples, p ~ Beta(a, b) (a = None: p = 1 for every case), estimand at k."""

    cases: int
    n: int
    a: float | None
    b: float | None
    k: int
    estimand: str  # "pass@k" or "pass^k"

    @property
    def family(self) -> str:
        return "p = 1" if self.a is None else f"Beta({self.a:g}, {self.b:g})"

    def truth(self) -> float:
        if self.a is None or self.b is None:
            return 1.0
        a, b = self.a, self.b
        if self.estimand == "pass^k":
            return math.prod((a + j) / (a + b + j) for j in range(self.k))
        return 1.0 - math.prod((b + j) / (a + b + j) for j in range(self.k))

    def values(self, reps: int, rng: np.random.Generator) -> np.ndarray:
        """cases x reps per-case estimates."""
        if self.a is None or self.b is None:
            p = np.ones((self.cases, reps))
        else:
            p = rng.beta(self.a, self.b, size=(self.cases, reps))
        c = rng.binomial(self.n, p)
        est = pass_at_k if self.estimand == "pass@k" else pass_hat_k
        table = np.array([est(self.n, int(x), self.k) for x in range(self.n + 1)])
        return table[c]


def designs() -> list[Design]:
    out: list[Design] = []
    for k in (1, 3, 5, 10):
        out += [Design(60, 10, 3, 0.3, k, "pass@k"), Design(60, 10, 3, 0.3, k, "pass^k")]
    out += [Design(20, 10, 3, 0.3, 10, "pass^k"), Design(20, 10, 3, 0.3, 10, "pass@k")]
    out += [Design(20, 10, 3, 0.3, 3, "pass@k"), Design(20, 10, 3, 0.3, 3, "pass^k")]
    out += [Design(60, 10, None, None, k, "pass@k") for k in (1, 5, 10)]
    out += [Design(20, 10, None, None, 10, "pass^k")]
    for k in (1, 5, 10):
        out += [Design(200, 10, 2, 2, k, "pass@k"), Design(200, 10, 2, 2, k, "pass^k")]
    for k in (1, 3, 10):
        out += [Design(60, 10, 0.3, 3, k, "pass@k"), Design(60, 10, 0.3, 3, k, "pass^k")]
    out += [Design(20, 10, 0.3, 3, 1, "pass@k"), Design(20, 10, 0.3, 3, 3, "pass@k")]
    out += [Design(1000, 10, 3, 0.3, 5, "pass@k"), Design(10, 10, 3, 0.3, 1, "pass@k")]
    return out


def betting_interval(x: np.ndarray, level: float = LEVEL, c: float = 0.75, iters: int = 50) -> np.ndarray:
    """Waudby-Smith & Ramdas (2023) hedged-capital interval for each column of ``x`` (cases x reps), in case order.

    K_t^+(m) = prod_{i<=t} (1 + min(l_i, c/m) (x_i - m)), K_t^-(m) = prod (1 - min(l_i, c/(1-m)) (x_i - m)),
    l_i = sqrt(2 log(2/alpha) / (n s2_{i-1})), s2_t = (1/4 + sum_{j<=t} (x_j - mu_{j-1})^2) / (t + 1),
    mu_t = (1/2 + sum_{j<=t} x_j) / (t + 1); m is out when max_t K_t^+(m) / 2 or max_t K_t^-(m) / 2 reaches
    1/alpha. K^+ falls and K^- rises with m, so each end is found by bisection. Returns reps x 2.
    """
    alpha = 1.0 - level
    n, reps = x.shape
    t = np.arange(1, n + 1)[:, None]
    mu = (0.5 + np.cumsum(x, axis=0)) / (t + 1)
    mu_prev = np.vstack([np.full((1, reps), 0.5), mu[:-1]])
    s2 = (0.25 + np.cumsum((x - mu_prev) ** 2, axis=0)) / (t + 1)
    s2_prev = np.vstack([np.full((1, reps), 0.25), s2[:-1]])
    lam = np.sqrt(2 * math.log(2 / alpha) / (n * s2_prev))
    thr = math.log(2 / alpha)

    def log_capital(m: np.ndarray, sign: int) -> np.ndarray:
        if sign > 0:
            terms = np.log1p(np.minimum(lam, c / m) * (x - m))
        else:
            terms = np.log1p(-np.minimum(lam, c / (1 - m)) * (x - m))
        return np.cumsum(terms, axis=0).max(axis=0)

    xbar = x.mean(axis=0)
    eps = 1e-12
    lo_out, lo_in = np.full(reps, eps), np.clip(xbar, eps, 1 - eps)
    hi_in, hi_out = np.clip(xbar, eps, 1 - eps), np.full(reps, 1 - eps)
    for _ in range(iters):
        mid = (lo_out + lo_in) / 2
        rej = log_capital(mid, +1) >= thr
        lo_out, lo_in = np.where(rej, mid, lo_out), np.where(rej, lo_in, mid)
        mid = (hi_in + hi_out) / 2
        rej = log_capital(mid, -1) >= thr
        hi_out, hi_in = np.where(rej, mid, hi_out), np.where(rej, hi_in, mid)
    lo = np.where(log_capital(np.full(reps, eps), +1) >= thr, lo_in, 0.0)
    hi = np.where(log_capital(np.full(reps, 1 - eps), -1) >= thr, hi_in, 1.0)
    return np.stack([lo, hi], axis=1)


def coverage(lo: np.ndarray, hi: np.ndarray, truth: float) -> tuple[float, float]:
    return float(np.mean((lo <= truth) & (truth <= hi))), float(np.mean(hi - lo))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000, help="replications per design (default 2000)")
    ap.add_argument("--quick", action="store_true", help="300 replications per design")
    ap.add_argument("--n-boot", type=int, default=2000, help="bootstrap replicates of the old interval")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()
    reps = 300 if args.quick else args.reps
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = "?"
    print(f"pass@k / pass^k 95% interval coverage of the population value; {reps} replications per design")
    print(f"seed {args.seed}, old = percentile bootstrap over cases ({args.n_boot} replicates), new = score interval")
    print(f"(nkcore.common.bounded_mean), betting = Waudby-Smith & Ramdas 2023 (reference); commit {commit}, ")
    print(
        f"python {platform.python_version()}, numpy {np.__version__}; MC s.e. of 0.95 = {math.sqrt(0.0475 / reps):.4f}"
    )
    head = (
        f"{'cases':>5} {'n':>3} {'F':<14} {'k':>3} {'estimand':<8} {'truth':>8} | {'old cov':>7} {'width':>6} | "
        f"{'new cov':>7} {'width':>6} | {'bet cov':>7} {'width':>6}"
    )
    print(head)
    print("-" * len(head))
    rng = np.random.default_rng(args.seed)
    worst = 1.0
    t0 = time.process_time()
    for d in designs():
        x = d.values(reps, rng)
        truth = d.truth()
        old = case_bootstrap_bands(x, args.n_boot, rng)
        new = bounded_mean_intervals(x, LEVEL)
        bet = betting_interval(x)
        c_old, w_old = coverage(old.low, old.high, truth)
        c_new, w_new = coverage(new.low, new.high, truth)
        c_bet, w_bet = coverage(bet[:, 0], bet[:, 1], truth)
        worst = min(worst, c_new)
        print(
            f"{d.cases:>5} {d.n:>3} {d.family:<14} {d.k:>3} {d.estimand:<8} {truth:>8.5f} | {c_old:>7.3f} "
            f"{w_old:>6.4f} | {c_new:>7.3f} {w_new:>6.4f} | {c_bet:>7.3f} {w_bet:>6.4f}",
            flush=True,
        )
    print(f"lowest coverage of the new interval: {worst:.3f}; CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
