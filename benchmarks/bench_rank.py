"""Which config ships (issue 54): the ranking's guarantees measured by simulation, and its answer on real data.

Run: ``nice -n 10 .venv/bin/python benchmarks/bench_rank.py --reps 1000`` (``--quick``: 200 replications;
``--real-only``: only the shared datasets). Prints Markdown tables (kept in ``docs/rank.md``).

Simulation (:func:`nkcore.rank.simulate.simulate_case_means`): M configs on 200 cases, true means 0.80 - step x
(0, 1, ..., M - 1) with step 0.5 point ("close") or 2 points ("spread"), case difficulty shared by the configs
(rho = 0.5), 1 or 3 repeats per case. Per design, over the replications:

- could-be-best coverage: the share of runs whose set of configs that could be the best holds the true best;
- rank coverage: the share of runs where EVERY config's true rank lies in its simultaneous rank interval;
- the winner's curse: the naive winner's bias, mean over runs of (observed best mean - true mean of that config),
  the corrected estimate's bias against the same target, and the share of the bias removed (1 - corrected / naive);
- non-inferiority type I error at the margin: B's true mean exactly margin below A's; the share of runs the
  one-sided test at 5% calls B non-inferior (should be at most 5%).

Monte Carlo errors: sqrt(p (1 - p) / reps) for shares; the standard error over runs for biases; the share removed's
error by the delta method. Bootstrap resamples per run: 1,000 (the critical value's own Monte Carlo error is part of
what is measured).

Real data (never copied into the repository: converted on the fly into a temporary file the CLI reads):
``llmbar_judge_configs``: the 419 LLMBar items (Natural + Adversarial), 65 judge configs, each item judged twice
(outputs in order and swapped) read as 2 repeats (``case, config, repeat, correct``); and the first order only.
``hanna_story_eval``: 11 story sources on the same 96 prompts, the 3 human Coherence ratings (1-5) as 3 repeats,
scored (rating - 1) / 4 in [0, 1].
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nkcore.cli.rank import non_inferiority_doc, rank_doc
from nkcore.rank import non_inferiority, rank_means, winner_estimate
from nkcore.rank.simulate import simulate_case_means

DATA = Path(os.environ.get("NKP_SHARED_DATASETS", "/work/shared/datasets"))
CASES = 200
RESAMPLES = 1000


def _share(hits: int, reps: int) -> str:
    p = hits / reps
    return f"{p:.3f} ± {math.sqrt(max(p * (1 - p), 1e-12) / reps):.3f}"


def ranking_design(m: int, step: float, repeats: int, reps: int, seed: int) -> dict[str, str]:
    """One design's could-be-best and rank coverage and the winner's bias, naive and corrected."""
    p = 0.80 - step * np.arange(m)
    names = [f"c{j}" for j in range(m)]
    true_rank = np.arange(1, m + 1)
    rng = np.random.default_rng(seed)
    best_hits = rank_hits = 0
    naive_bias, corrected_bias, set_size = [], [], []
    for _ in range(reps):
        x = simulate_case_means(p, CASES, repeats=repeats, seed=rng)
        r = rank_means(x, names, resamples=RESAMPLES, seed=int(rng.integers(2**31)))
        best_hits += "c0" in r.could_be_best
        low = np.array([c.rank_low for c in sorted(r.configs, key=lambda c: int(c.config[1:]))])
        high = np.array([c.rank_high for c in sorted(r.configs, key=lambda c: int(c.config[1:]))])
        rank_hits += bool(np.all((low <= true_rank) & (true_rank <= high)))
        w = winner_estimate(r.means, r.boot, r.names, 0.95)
        target = p[names.index(w.config)]
        naive_bias.append(w.naive - target)
        corrected_bias.append(w.corrected - target)
        set_size.append(len(r.could_be_best))
    nb, cb = np.array(naive_bias), np.array(corrected_bias)
    nm, cm = nb.mean(), cb.mean()
    ns, cs = nb.std(ddof=1) / math.sqrt(reps), cb.std(ddof=1) / math.sqrt(reps)
    removed = 1 - cm / nm if nm != 0 else math.nan
    # delta method for 1 - cm / nm, the two means correlated across runs
    cov = np.cov(nb, cb)[0, 1] / reps
    var = (cs**2) / nm**2 + (cm**2) * ns**2 / nm**4 - 2 * cm * cov / nm**3
    return {
        "M": str(m),
        "spacing": "close (0.5 pt)" if step < 0.01 else "spread (2 pt)",
        "repeats": str(repeats),
        "could-be-best coverage": _share(best_hits, reps),
        "mean set size": f"{np.mean(set_size):.1f}",
        "rank coverage (all at once)": _share(rank_hits, reps),
        "naive bias (pt)": f"{100 * nm:+.2f} ± {100 * ns:.2f}",
        "corrected bias (pt)": f"{100 * cm:+.2f} ± {100 * cs:.2f}",
        "share of bias removed": f"{removed:.2f} ± {math.sqrt(max(var, 0)):.2f}",
    }


def ni_design(n: int, repeats: int, margin: float, reps: int, seed: int) -> dict[str, str]:
    """Type I error of the non-inferiority test when B is exactly ``margin`` below A."""
    rng = np.random.default_rng(seed)
    p = np.array([0.80, 0.80 - margin])
    hits = 0
    for _ in range(reps):
        x = simulate_case_means(p, n, repeats=repeats, seed=rng)
        hits += non_inferiority(x[:, 0], x[:, 1], margin, 0.05).non_inferior
    return {
        "cases": str(n),
        "repeats": str(repeats),
        "margin (pt)": f"{100 * margin:g}",
        "type I error at the margin (5% nominal)": _share(hits, reps),
    }


def table(rows: list[dict[str, str]]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(r[k] for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def llmbar_frames() -> dict[str, pd.DataFrame]:
    d = pd.read_csv(DATA / "llmbar_judge_configs" / "llmbar_verdicts_long.csv.gz")
    d = d[~d["subset"].str.startswith("Processed")]
    both = pd.concat([d.assign(repeat=1, correct=d["correct_noswap"]), d.assign(repeat=2, correct=d["correct_swap"])])[
        ["item_id", "config", "repeat", "correct", "subset"]
    ].rename(columns={"item_id": "case"})
    return {
        "llmbar (2 orders as repeats)": both.drop(columns="subset"),
        "llmbar (original order only)": both[both["repeat"] == 1].drop(columns=["repeat", "subset"]),
    }


def hanna_frame(criterion: str = "Coherence") -> pd.DataFrame:
    h = pd.read_csv(DATA / "hanna_story_eval" / "hanna_ratings_long.csv.gz")
    h = h[h["criterion"] == criterion]
    parts = [
        pd.DataFrame(
            {"case": h["prompt_index"], "config": h["system"], "repeat": k, "score": (h[f"human_{k}"] - 1) / 4}
        )
        for k in (1, 2, 3)
    ]
    return pd.concat(parts, ignore_index=True)


def real_data() -> str:
    out = []
    hanna = hanna_frame()
    frames = {
        **llmbar_frames(),
        "hanna Coherence (3 raters as repeats)": hanna,
        "hanna Coherence, the 10 generators only": hanna[hanna["config"] != "Human"],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, frame in frames.items():
            path = Path(tmp) / "paired.csv"
            frame.to_csv(path, index=False)
            t0 = time.perf_counter()
            doc = rank_doc(pd.read_csv(path), margin_points=2.0)
            secs = time.perf_counter() - t0
            top = doc["configs"][:5]
            out.append(f"### {name}: {doc['n_configs']} configs, {doc['n_cases']} cases ({secs:.1f} s)\n")
            out.append(f"verdict: {doc['verdict']}\n")
            out.append(
                f"winner: {json.dumps(doc['winner'], default=float)}; could be best ({len(doc['could_be_best'])}): "
                f"{', '.join(doc['could_be_best'])}\n"
            )
            out.append(
                table(
                    [
                        {
                            "config": c["config"],
                            "mean": f"{c['mean']:.3f}",
                            "95% CI": f"{c['ci_low']:.3f}-{c['ci_high']:.3f}",
                            "rank": f"{c['rank_low']}-{c['rank_high']}",
                        }
                        for c in top
                    ]
                )
                + "\n"
            )
            if name.startswith("llmbar (2"):
                ni = non_inferiority_doc(pd.read_csv(path), "GPT-4/Metrics_Reference", "GPT-4/Rating", 3.0, 0.05)
                out.append(f"compare --a GPT-4/Metrics_Reference --b GPT-4/Rating --margin 3: {ni['margin_verdict']}\n")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--real-only", action="store_true")
    a = ap.parse_args()
    reps = 200 if a.quick else a.reps
    print(
        f"command: {' '.join(sys.argv)}; date: {datetime.date.today()}; reps {reps}, {CASES} cases, "
        f"{RESAMPLES} resamples"
    )
    t0 = time.perf_counter()
    if not a.real_only:
        rows = [
            ranking_design(m, step, r, reps, seed=100 * m + 10 * r + int(step * 1000))
            for m in (3, 10, 20)
            for step in (0.005, 0.02)
            for r in (1, 3)
        ]
        print(table(rows), "\n")
        ni = [
            ni_design(n, r, margin, reps * 4, seed=n + r) for n in (50, 200, 1000) for r in (1, 3) for margin in (0.02,)
        ]
        print(table(ni), "\n")
        print(f"simulation: {time.perf_counter() - t0:.0f} s\n")
    print(real_data())


if __name__ == "__main__":
    main()
