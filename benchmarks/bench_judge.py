"""Judges beside humans (issue 55): PPI++ interval coverage and the label planner, by simulation; the CLI on real data.

Run: ``nice -n 10 .venv/bin/python benchmarks/bench_judge.py`` (default: 1,500 replications per cell, about
minutes); ``--quick``: 300 replications and a reduced power grid (under a minute). Writes
``benchmarks/results/bench_judge.txt`` (Markdown tables, kept in ``docs/judge.md``).

Coverage. T = 1,500 cases, two configs A and B on the same cases. Human score of config c on case i:
h_ci = mu_c + u_i + e_ci (u_i ~ N(0, 0.5) shared by the configs, e_ci ~ N(0, 0.5): Var h = 1, paired correlation
0.5), mu_A = 3.2, mu_B = 3.0. Judge score j_ci = a_c + b h_ci + noise, b = 0.8, the noise's spread set so that
corr(j, h) = rho. Bias: "none" (a_A = a_B = 0), "shared" (a_A = a_B = +0.5: the judge is kinder to both), "by
config" (a_A = +0.5, a_B = -0.3: the judge favours A, the case where judge-only rankings flip). Binary family:
h_ci ~ Bernoulli(p_c) (p_A = 0.6, p_B = 0.5, shared case effect by a latent normal), judge = h flipped with
probability f_c (f = 0.35 / 0.2 / 0.03 for rho about 0.3 / 0.6 / 0.95; "by config": A's 0s become 1s 20% more often
than B's). Humans label a random share of the cases (the same cases for both configs). Per cell: the share of runs
whose 95% interval (``nkcore.judge.ppi.ppi_mean_interval``) holds mu_A (the mean) and mu_A - mu_B (the paired
difference by PPI on per-case differences), with the Monte Carlo error sqrt(c (1 - c) / reps), for the default
interval (equal to ppi_py's) and the small-sample t interval (``small_sample=True``), and first the one the product
prints by default (``interval="auto"``: t below 50 labels, else normal; in bold when under 93%); the judge-only
interval's coverage beside it; the mean effective human labels over n; the share of runs whose config A gets the
widened sparse-verdict interval (``nkcore.judge.ppi.sparse_binary``: 0/1 labels with fewer than 10 of one value or
of judge-human disagreements). The normal and t columns include that adjustment; outside the sparse corner the
normal one equals ppi_py's ``ppi_mean_ci``.

Planner. For rho in {0.3, 0.6, 0.9} and T = 2,000 cases: the labels :func:`nkcore.judge.labels_for_power` says a
two-sided 5% test of a mean needs to detect delta = 0.25 (sigma = 1) with 80% power, against the count found by
simulation (power at n = n_plan x {0.7, ..., 1.3}, linear interpolation at 80%, Monte Carlo error per point).
"""

from __future__ import annotations

import argparse
import datetime
import functools
import math
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nkcore.judge import judge_only_interval, labels_for_power, ppi_mean_interval
from nkcore.judge.ppi import sparse_binary, uses_t

RESULTS = Path(__file__).resolve().parent / "results" / "bench_judge.txt"
T_CASES = 1500
MU = (3.2, 3.0)
RHOS = (0.2, 0.5, 0.9)
FRACTIONS = (0.02, 0.10, 0.50)
BIASES = {"none": (0.0, 0.0), "shared": (0.5, 0.5), "by config": (0.5, -0.3)}
BINARY_FLIPS = {0.3: 0.35, 0.6: 0.2, 0.95: 0.03}


def _continuous(rng: np.random.Generator, rho: float, bias: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(human, judge), each of shape (2, T): rows config A and B."""
    u = rng.normal(0, math.sqrt(0.5), T_CASES)
    h = np.array([MU[c] + u + rng.normal(0, math.sqrt(0.5), T_CASES) for c in (0, 1)])
    b = 0.8
    noise_sd = b * math.sqrt(1 / rho**2 - 1)  # corr(b h + e, h) = b / sqrt(b^2 + s^2) = rho (Var h = 1)
    j = np.array([bias[c] + b * h[c] + rng.normal(0, noise_sd, T_CASES) for c in (0, 1)])
    return h, j


def _binary(rng: np.random.Generator, rho: float, by_config: bool) -> tuple[np.ndarray, np.ndarray]:
    u = rng.normal(0, math.sqrt(0.5), T_CASES)
    p = (0.6, 0.5)
    h = np.array([(u + rng.normal(0, math.sqrt(0.5), T_CASES) < stats.norm.ppf(p[c])).astype(float) for c in (0, 1)])
    f = BINARY_FLIPS[rho]
    j = np.empty_like(h)
    for c in (0, 1):
        up = f + (0.2 if by_config and c == 0 else 0.0)  # A's 0s judged 1 more often: the judge favours A
        r = rng.random(T_CASES)
        j[c] = np.where(h[c] == 1, np.where(r < f, 0.0, 1.0), np.where(r < up, 1.0, 0.0))
    return h, j


def _cell(
    draw: Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]],
    truth: tuple[float, float],
    fraction: float,
    reps: int,
    seed: int,
) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    n = max(2, round(fraction * T_CASES))
    hit_mean = hit_diff = hit_judge = hit_mean_t = hit_diff_t = flagged = 0
    eff = rho_seen = 0.0
    truth_a, truth_d = truth
    for _ in range(reps):
        h, j = draw(rng)
        lab = np.zeros(T_CASES, dtype=bool)
        lab[rng.choice(T_CASES, n, replace=False)] = True
        m = ppi_mean_interval(h[0][lab], j[0][lab], j[0][~lab])
        d_h, d_j = h[0] - h[1], j[0] - j[1]
        d = ppi_mean_interval(d_h[lab], d_j[lab], d_j[~lab])
        hit_mean += m.ci_low <= truth_a <= m.ci_high
        hit_diff += d.ci_low <= truth_d <= d.ci_high
        mt = ppi_mean_interval(h[0][lab], j[0][lab], j[0][~lab], small_sample=True)
        dt = ppi_mean_interval(d_h[lab], d_j[lab], d_j[~lab], small_sample=True)
        hit_mean_t += mt.ci_low <= truth_a <= mt.ci_high
        hit_diff_t += dt.ci_low <= truth_d <= dt.ci_high
        flagged += sparse_binary(h[0][lab], j[0][lab])
        jo = judge_only_interval(j[0])
        hit_judge += jo.ci_low <= truth_a <= jo.ci_high
        var0 = float(np.var(h[0][lab]))
        eff += var0 / m.se**2 / n if m.se > 0 else 1.0
        rho_seen += float(np.corrcoef(h[0], j[0])[0, 1])
    return {
        "n": n,
        "mean": hit_mean / reps,
        "diff": hit_diff / reps,
        "judge": hit_judge / reps,
        "mean_t": hit_mean_t / reps,
        "diff_t": hit_diff_t / reps,
        "eff": eff / reps,
        "flagged": flagged / reps,
        "rho": rho_seen / reps,
    }


def coverage_rows(reps: int, quick: bool) -> list[str]:
    """The coverage tables' rows (Markdown)."""
    mc = lambda c: math.sqrt(max(c * (1 - c), 1e-12) / reps)  # noqa: E731
    rows = [
        "| family | bias | rho | humans | n labels | mean: printed (auto) | paired diff: printed (auto) "
        "| mean: normal (ppi-python's outside the sparse 0/1 corner) | paired diff: normal | mean: t | paired diff: t | judge-only coverage "
        "| n_eff / n | sparse-verdict interval used |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    seed = 0
    fams: list[tuple[str, str, float, Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]]]] = []
    for bname, bias in BIASES.items():
        for rho in RHOS:
            fams.append(("normal", bname, rho, functools.partial(_continuous, rho=rho, bias=bias)))
    for rho in BINARY_FLIPS:
        for bname in ("none", "by config"):
            fams.append(("0/1", bname, rho, functools.partial(_binary, rho=rho, by_config=bname == "by config")))
    for family, bname, rho, draw in fams:
        truth = (MU[0], MU[0] - MU[1]) if family == "normal" else (0.6, 0.1)
        for frac in FRACTIONS:
            seed += 1
            r = _cell(draw, truth, frac, reps, seed)
            t = uses_t("auto", int(r["n"]))
            auto = [r["mean_t"] if t else r["mean"], r["diff_t"] if t else r["diff"]]
            flag = ["**" if a < 0.93 else "" for a in auto]
            rows.append(
                f"| {family} | {bname} | {rho:g} (seen {r['rho']:.2f}) | {100 * frac:g}% | {r['n']} | "
                f"{flag[0]}{100 * auto[0]:.1f}% ± {100 * mc(auto[0]):.1f} ({'t' if t else 'normal'}){flag[0]} | "
                f"{flag[1]}{100 * auto[1]:.1f}% ± {100 * mc(auto[1]):.1f}{flag[1]} | "
                f"{100 * r['mean']:.1f}% ± {100 * mc(r['mean']):.1f} | {100 * r['diff']:.1f}% ± "
                f"{100 * mc(r['diff']):.1f} | {100 * r['mean_t']:.1f}% ± {100 * mc(r['mean_t']):.1f} | "
                f"{100 * r['diff_t']:.1f}% ± {100 * mc(r['diff_t']):.1f} | {100 * r['judge']:.1f}% | {r['eff']:.2f} | {100 * r['flagged']:.0f}% |"
            )
    return rows


def _power(n: int, rho: float, delta: float, reps: int, rng: np.random.Generator, t_cases: int) -> float:
    b = 0.8
    noise_sd = b * math.sqrt(1 / rho**2 - 1)
    rej = 0
    for _ in range(reps):
        h = delta + rng.normal(0, 1, t_cases)
        j = 0.3 + b * h + rng.normal(0, noise_sd, t_cases)
        lab = np.zeros(t_cases, dtype=bool)
        lab[rng.choice(t_cases, n, replace=False)] = True
        r = ppi_mean_interval(h[lab], j[lab], j[~lab])
        rej += r.ci_low > 0 or r.ci_high < 0
    return rej / reps


def planner_rows(reps: int, quick: bool) -> list[str]:
    """The planner table's rows: planned labels vs the simulated count for 80% power."""
    rows = [
        "| rho | planned labels | simulated labels for 80% power | ratio planned / simulated | power at the plan |",
        "|---|---|---|---|---|",
    ]
    t_cases, delta = 2000, 0.25
    factors = (0.8, 0.9, 1.0, 1.1, 1.2) if quick else (0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3)
    rng = np.random.default_rng(55)
    for rho in (0.3, 0.6, 0.9):
        plan = labels_for_power(delta, 1.0, rho, 0.05, 0.8, t_cases)
        assert plan.ppi_labels is not None
        ns = [max(4, round(plan.ppi_labels * f)) for f in factors]
        pw = [_power(n, rho, delta, reps, rng, t_cases) for n in ns]
        sim = _crossing(ns, pw, 0.8)
        at_plan = pw[factors.index(1.0)]
        mc = math.sqrt(at_plan * (1 - at_plan) / reps)
        rows.append(
            f"| {rho:g} | {plan.ppi_labels} (humans only {plan.human_only_labels}) | {sim:.0f} | "
            f"{plan.ppi_labels / sim:.3f} | {100 * at_plan:.1f}% ± {100 * mc:.1f} |"
        )
    return rows


def _crossing(ns: list[int], pw: list[float], target: float) -> float:
    """n where the power curve crosses ``target`` (linear interpolation between the points around it; the power
    curve is made monotone by a running maximum first)."""
    p = np.maximum.accumulate(np.asarray(pw))
    for i in range(1, len(ns)):
        if p[i - 1] < target <= p[i]:
            return ns[i - 1] + (target - p[i - 1]) * (ns[i] - ns[i - 1]) / (p[i] - p[i - 1])
    return float(ns[0] if p[0] >= target else ns[-1])


def real_rows() -> list[str]:
    """The CLI on the three shared datasets (benchmarks/judge_shapes.py), one row per config."""
    import contextlib
    import io
    import json

    from benchmarks.judge_shapes import BUILDERS, DATASETS
    from nkcore.cli import main as cli

    if not DATASETS.is_dir():
        return ["(the shared datasets are absent)"]
    rows: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for build in BUILDERS:
            jf = build(Path(tmp))
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                cli(["judge", str(jf.path), *jf.args, "--json", "--price-human", "1", "--price-judge", "0.01"])
            doc = json.loads(buf.getvalue())
            import pandas as pd

            raw = pd.read_csv(jf.path)
            pairwise = "pairwise" in jf.args
            truth = raw["human_all"].map({1: 1.0, 2: 0.0, 0: 0.5}) if pairwise else raw["human_all"].astype(float)
            allmean = truth.groupby(raw["config"]).mean()
            rows += [f"**{jf.name}** (judge {doc['judge']}): {doc['verdict']}", ""]
            rows += [
                "| config | cases | human labels | corrected (95% CI) | humans only (95% CI) | judge only | bias "
                "| worth labels | mean of all human labels | covered | interval |",
                "|---|---|---|---|---|---|---|---|---|---|---|",
            ]
            for c in doc["configs"]:
                t = float(allmean[c["config"]])
                rows.append(
                    f"| {c['config']} | {c['n_cases']} | {c['n_human']} | {c['ppi_mean']:.3f} ({c['ci_low']:.3f} to "
                    f"{c['ci_high']:.3f}) | {c['human_only_mean']:.3f} ({c['human_only_ci_low']:.3f} to "
                    f"{c['human_only_ci_high']:.3f}) | {c['judge_only_mean']:.3f} | {c['bias']:+.3f} | "
                    f"{c['effective_human_labels']:.1f} | {t:.3f} | {'yes' if c['ci_low'] <= t <= c['ci_high'] else 'NO'} | "
                    f"{c['interval']}{' (widened: ' + c['sparse_note'] + ')' if c['sparse_note'] else ''} |"
                )
            p = doc["panel"]
            rows += [
                "",
                f"Judges: mean error correlation {p['mean_error_correlation']:.2f}, effective independent judges "
                f"{p['effective_judges']:.2f} of {len(p['judges'])}; best judge {p['best_judge']}; the judges' mean "
                f"worth {p['combined_effective_human_labels']:.0f} labels against "
                + ", ".join(f"{j['judge']} {j['effective_human_labels']:.0f}" for j in p["judges"])
                + (
                    f"; Dawid-Skene accuracy vs humans {p['dawid_skene']['accuracy']:.3f} (plurality "
                    f"{p['dawid_skene']['plurality_accuracy']:.3f}, best judge "
                    f"{p['dawid_skene']['best_judge_accuracy']:.3f})"
                    if p["dawid_skene"] and p["dawid_skene"]["accuracy"] is not None
                    else "; " + "; ".join(n for n in doc["notes"] if "Dawid-Skene" in n)
                    if not p["dawid_skene"]
                    else "; Dawid-Skene not compared with the humans (their scores are not on the judges' labels)"
                )
                + ".",
                "",
            ]
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="300 replications, a smaller power grid (< 1 minute)")
    ap.add_argument("--reps", type=int, default=None, help="replications per coverage cell (default 1500)")
    args = ap.parse_args(argv)
    reps = args.reps or (300 if args.quick else 1500)
    start = time.perf_counter()
    lines = [
        f"# bench_judge ({'quick' if args.quick else 'default'} profile, {reps} replications per coverage cell), "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        "",
        "## Coverage of the 95% PPI++ interval (target 93-97%)",
        "",
        *coverage_rows(reps, args.quick),
        "",
        "## Planner: human labels for 80% power (delta = 0.25 sd, 2,000 judged cases, 5% two-sided)",
        "",
        *planner_rows(max(200, reps // 2) if not args.quick else 200, args.quick),
        "",
        "## Real data (python -m nkcore judge, 25% of the human labels kept, seed 55)",
        "",
        *real_rows(),
    ]
    lines.append(f"elapsed {time.perf_counter() - start:.0f} s")
    text = "\n".join(lines) + "\n"
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
