"""Which config ships (issue 54): the ranking's guarantees measured by simulation, and its answer on real data.

Run: ``nice -n 10 .venv/bin/python benchmarks/bench_rank.py --reps 1000`` (``--quick``: 200 replications;
``--real-only``: only the shared datasets; ``--sections ranking,noninferiority,planner,nk,real``: some of them).
Prints Markdown tables (kept in ``docs/rank.md`` and ``benchmarks/results/bench_rank.txt``). Sections beyond the
ranking: the planner's claimed power against ``rank``'s own procedure at the planned cases (``planner_rows``), and
(N, K) for many models on HANNA (``nk_section``: the 11 story sources, and the 20 LLM judges against the human
ratings).

Simulation (:func:`nkcore.rank.simulate.simulate_case_means`): M configs on 200 cases, true means 0.80 - step x
(0, 1, ..., M - 1) with step 0.5 point ("close") or 2 points ("spread"), case difficulty shared by the configs
(rho = 0.5), 1 or 3 repeats per case. Per design, over the replications:

- could-be-best coverage: the share of runs whose set of configs that could be the best holds the true best;
- rank coverage: the share of runs where EVERY config's true rank lies in its simultaneous rank interval;
- the winner's curse: the naive winner's bias, mean over runs of (observed best mean - true mean of that config),
  the corrected estimate's bias against the same target (empirical-Bayes shrinkage, the product's; and the earlier
  bootstrap bias correction beside it), the share of the bias removed (1 - corrected / naive), and how often the
  winner's interval holds the winner's true mean;
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
from nkcore.manymodels.document import nk_doc
from nkcore.rank import non_inferiority, rank_means, winner_estimate
from nkcore.rank.plan import non_inferiority_cases, separation_cases
from nkcore.rank.simulate import simulate_case_means

DATA = Path(os.environ.get("NKP_SHARED_DATASETS", "/work/shared/datasets"))
CASES = 200
RESAMPLES = 1000


def _share(hits: int, reps: int) -> str:
    p = hits / reps
    return f"{p:.3f} ± {math.sqrt(max(p * (1 - p), 1e-12) / reps):.3f}"


def _removed(nb: np.ndarray, cb: np.ndarray) -> str:
    """1 - mean(cb) / mean(nb) with its delta-method error (the two means correlated across runs)."""
    reps = nb.size
    nm, cm = nb.mean(), cb.mean()
    if nm == 0:
        return "-"
    ns2, cs2 = nb.var(ddof=1) / reps, cb.var(ddof=1) / reps
    cov = np.cov(nb, cb)[0, 1] / reps
    var = cs2 / nm**2 + cm**2 * ns2 / nm**4 - 2 * cm * cov / nm**3
    return f"{1 - cm / nm:.2f} ± {math.sqrt(max(var, 0)):.2f}"


def _bias(v: np.ndarray) -> str:
    return f"{100 * v.mean():+.2f} ± {100 * v.std(ddof=1) / math.sqrt(v.size):.2f}"


def ranking_design(m: int, step: float, repeats: int, reps: int, seed: int) -> dict[str, str]:
    """One design's could-be-best and rank coverage and the winner's bias: naive, empirical-Bayes corrected (the
    product's), bootstrap corrected (the earlier method), and the winner interval's coverage.

    Errors of the biases use a control variate: each run's mean over the configs of (observed - true) has
    expectation 0, and subtracting it from every bias (naive and corrected alike) removes the cases' common
    difficulty from the Monte Carlo error without changing what is estimated."""
    p = 0.80 - step * np.arange(m)
    names = [f"c{j}" for j in range(m)]
    true_rank = np.arange(1, m + 1)
    rng = np.random.default_rng(seed)
    best_hits = rank_hits = win_hits = 0
    naive_bias, corrected_bias, boot_bias, set_size = [], [], [], []
    for _ in range(reps):
        x = simulate_case_means(p, CASES, repeats=repeats, seed=rng)
        r = rank_means(x, names, resamples=RESAMPLES, seed=int(rng.integers(2**31)))
        best_hits += "c0" in r.could_be_best
        low = np.array([c.rank_low for c in sorted(r.configs, key=lambda c: int(c.config[1:]))])
        high = np.array([c.rank_high for c in sorted(r.configs, key=lambda c: int(c.config[1:]))])
        rank_hits += bool(np.all((low <= true_rank) & (true_rank <= high)))
        w = winner_estimate(r.means, r.boot, r.names, 0.95, np.cov(x, rowvar=False) / x.shape[0])
        target = p[names.index(w.config)]
        control = float(np.mean(r.means - p))
        naive_bias.append(w.naive - target - control)
        corrected_bias.append(w.corrected - target - control)
        boot_bias.append(w.bootstrap_corrected - target - control)
        win_hits += w.ci_low <= target <= w.ci_high
        set_size.append(len(r.could_be_best))
    nb, cb, bb = np.array(naive_bias), np.array(corrected_bias), np.array(boot_bias)
    return {
        "M": str(m),
        "spacing": "close (0.5 pt)" if step < 0.01 else "spread (2 pt)",
        "repeats": str(repeats),
        "could-be-best coverage": _share(best_hits, reps),
        "mean set size": f"{np.mean(set_size):.1f}",
        "rank coverage (all at once)": _share(rank_hits, reps),
        "naive bias (pt)": _bias(nb),
        "corrected bias (pt)": _bias(cb),
        "share of bias removed": _removed(nb, cb),
        "bootstrap-corrected bias (pt)": _bias(bb),
        "bootstrap share removed": _removed(nb, bb),
        "winner interval coverage": _share(win_hits, reps),
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


def pilot_variances(p: np.ndarray, seed: int) -> tuple[float, float]:
    """(between_var, within_var) of the difference of configs 0 and 1 under the simulation, from two large pilots:
    Var(one repeat's difference) = sigma_b^2 + sigma_w^2 and Var(mean of 2 repeats' difference) = sigma_b^2 +
    sigma_w^2 / 2 (400,000 cases each; independent of the code under test)."""
    v1 = float(np.var(np.diff(simulate_case_means(p[:2], 400_000, 1, seed=seed), axis=1)[:, 0], ddof=1))
    v2 = float(np.var(np.diff(simulate_case_means(p[:2], 400_000, 2, seed=seed + 1), axis=1)[:, 0], ddof=1))
    within = 2.0 * (v1 - v2)
    return max(v1 - within, 0.0), within


def _versus(hits: int, reps: int, claimed: float) -> tuple[str, str]:
    got = hits / reps
    mc = math.sqrt(claimed * (1 - claimed) / reps)
    return _share(hits, reps), f"{(got - claimed) / mc:+.1f}"


def planner_rows(reps: int) -> list[dict[str, str]]:
    """The planner's claimed power against ``rank``'s own procedure run at the planned cases (and the t test at the
    planned cases for non-inferiority)."""
    rows = []
    designs = [("separate", 3, 0.03, 1), ("separate", 3, 0.03, 3), ("separate", 10, 0.03, 1), ("separate", 10, 0.05, 3)]
    designs += [("non-inferior", 2, 0.02, 1), ("non-inferior", 2, 0.02, 3), ("non-inferior", 2, 0.05, 1)]
    for kind, m, size, repeats in designs:
        rng = np.random.default_rng(7 * m + repeats + int(1000 * size))
        if kind == "separate":
            p = np.array([0.80, 0.80 - size] + [0.80 - size - 0.05] * (m - 2))
            between, within = pilot_variances(p, int(rng.integers(2**31)))
            plan = separation_cases(size, between, within, repeats, m, 0.05, 0.8)
            hits = sole = 0
            for _ in range(reps):
                x = simulate_case_means(p, plan.cases, repeats, seed=rng)
                r = rank_means(x, [f"c{j}" for j in range(m)], resamples=RESAMPLES, seed=int(rng.integers(2**31)))
                hits += r.pairs.above(0, 1)
                sole += r.could_be_best == ("c0",)
            got, z = _versus(hits, reps, plan.power)
            what = f"best {100 * size:g} pt above the runner-up, {m} configs"
            extra = _share(sole, reps)
        else:
            p = np.array([0.80, 0.80])
            between, within = pilot_variances(p, int(rng.integers(2**31)))
            plan_ni = non_inferiority_cases(size, between, within, repeats, 0.0, 0.05, 0.8)
            hits = 0
            for _ in range(reps * 4):
                x = simulate_case_means(p, plan_ni.cases, repeats, seed=rng)
                hits += non_inferiority(x[:, 0], x[:, 1], size, 0.05).non_inferior
            got, z = _versus(hits, reps * 4, plan_ni.power)
            what, extra = f"equal configs, margin {100 * size:g} pt", "-"
        planned = plan if kind == "separate" else plan_ni
        rows.append(
            {
                "question": kind,
                "design": what,
                "repeats": str(repeats),
                "planned cases": f"{planned.cases:,}",
                "claimed power": f"{planned.power:.3f}",
                "simulated power": got,
                "(simulated - claimed) / MC error": z,
                "best alone could be best": extra,
            }
        )
    return rows


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


def nk_section(reps: int, draws: int = 1000) -> str:
    """(N, K) for many models on HANNA: for every criterion, with and without the human stories, the full data's
    winner, how often (96 prompts, 3 ratings) and (96 prompts, 1 rating) reproduce it, and the minimal budget for a
    reproducible winner (95%) on N from 10 to 768 prompts (past 96: as if the study had more prompts like these),
    K = 1..3; then Coherence's whole grid for the 10 generators. ``rank FILE --nk`` gives the same numbers."""
    del reps  # the resampled studies per cell are fixed (1,000): a Monte Carlo error of at most 0.016 per share
    rows = []
    grids = {}
    for criterion in ("Coherence", "Relevance", "Empathy", "Surprise", "Engagement", "Complexity"):
        h = hanna_frame(criterion)
        for who, frame in (("11 sources", h), ("10 generators", h[h["config"] != "Human"])):
            doc = nk_doc(frame, draws=draws, seed=0)
            grid = {(g["items"], g["ratings_per_item"]): g for g in doc["grid"]}
            grids[(criterion, who)] = doc
            best = doc["minimal_budget"]
            runner = sorted(doc["full_scores"].values())[-2]
            rows.append(
                {
                    "criterion": criterion,
                    "configs": who,
                    "full winner": doc["full_winner"],
                    "lead over the runner-up (pt)": f"{100 * (max(doc['full_scores'].values()) - runner):.1f}",
                    "same winner at 96 x 3": f"{grid[(96, 3)]['p_winner']:.3f}",
                    "same winner at 96 x 1": f"{grid[(96, 1)]['p_winner']:.3f}",
                    "same order at 96 x 3": f"{grid[(96, 3)]['p_order']:.3f}",
                    "minimal budget for 95% (N x K)": "none up to 768 x 3"
                    if best is None
                    else f"{best['items']} x {best['ratings_per_item']} = {best['budget']:,}",
                }
            )
    out = [table(rows), ""]
    doc = grids[("Coherence", "10 generators")]
    out.append(f"Coherence, the 10 generators: {doc['sentence']}\n")
    out.append(
        table(
            [
                {
                    "N (prompts)": f"{g['items']:,}",
                    "K (ratings per story)": str(g["ratings_per_item"]),
                    "budget N x K per config": f"{g['budget']:,}",
                    "same winner": f"{g['p_winner']:.3f} ± {g['p_winner_error']:.3f}",
                    "same order": f"{g['p_order']:.3f} ± {g['p_order_error']:.3f}",
                    "Kendall agreement": f"{g['kendall']:.2f}",
                }
                for g in doc["grid"]
            ]
        )
    )
    out.append("")
    out.append(judges_section(draws))
    return "\n".join(out)


JUDGES = [
    f"{llm}_p{k}" for llm in ("beluga13b", "orcaplatypus13b", "mistral7b", "llama13b", "chatgpt") for k in (1, 2, 3, 4)
]


def judges_frame(criterion: str) -> pd.DataFrame:
    """HANNA's 20 LLM judges (5 LLMs x 4 prompts) as models predicting the 3 human ratings of each story: config
    ``human`` with one row per rater, each judge one row per story (its rating, a mean over generations; below 1 is
    missing, as the README says), all rescaled (rating - 1) / 4. Stories some judge lacks are left out."""
    h = pd.read_csv(DATA / "hanna_story_eval" / "hanna_ratings_long.csv.gz")
    h = h[h["criterion"] == criterion]
    parts = [
        pd.DataFrame({"case": h["story_id"], "config": "human", "repeat": k, "score": (h[f"human_{k}"] - 1) / 4})
        for k in (1, 2, 3)
    ]
    for j in JUDGES:
        ok = h[j] >= 1
        parts.append(pd.DataFrame({"case": h["story_id"][ok], "config": j, "repeat": 1, "score": (h[j][ok] - 1) / 4}))
    return pd.concat(parts, ignore_index=True)


def judges_section(draws: int) -> str:
    """The paper's setting with M models: 20 LLM judges' ratings against K of the 3 human ratings per story, N
    stories; the winner is the judge with the smallest mean absolute error against the humans' mean."""
    rows = []
    docs = {}
    for criterion in ("Coherence", "Relevance", "Empathy", "Surprise", "Engagement", "Complexity"):
        frame = judges_frame(criterion)
        doc = nk_doc(frame, items=[25, 50, 100, 200, 400, 800], draws=draws, seed=0, gold="human")
        docs[criterion] = doc
        grid = {(g["items"], g["ratings_per_item"]): g for g in doc["grid"]}
        scores = sorted(doc["full_scores"].values())
        best = doc["minimal_budget"]
        rows.append(
            {
                "criterion": criterion,
                "stories": str(doc["items_available"]),
                "closest judge": doc["full_winner"],
                "its error (pt)": f"{-100 * scores[-1]:.1f}",
                "runner-up's (pt)": f"{-100 * scores[-2]:.1f}",
                "same winner at 800 x 3": f"{grid[(800, 3)]['p_winner']:.3f}",
                "same winner at 800 x 1": f"{grid[(800, 1)]['p_winner']:.3f}",
                "same order at 800 x 3": f"{grid[(800, 3)]['p_order']:.3f}",
                "minimal budget for 95% (N x K)": "none up to 800 x 3"
                if best is None
                else f"{best['items']} x {best['ratings_per_item']} = {best['budget']:,}",
            }
        )
    out = [
        "20 LLM judges against the 3 human ratings per story (`rank FILE --nk --nk-gold human`): the judge closest "
        "to the humans' mean (mean absolute error, points of the 0-100 scale)",
        "",
        table(rows),
        "",
        f"Coherence: {docs['Coherence']['sentence']}",
    ]
    return "\n".join(out)


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


SECTIONS = ("ranking", "noninferiority", "planner", "nk", "real")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--real-only", action="store_true")
    ap.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS))
    a = ap.parse_args()
    reps = 200 if a.quick else a.reps
    chosen = ["real"] if a.real_only else [x.strip() for x in a.sections.split(",")]
    print(
        f"command: {' '.join(sys.argv)}; date: {datetime.date.today()}; reps {reps}, {CASES} cases, "
        f"{RESAMPLES} resamples"
    )
    for section in chosen:
        t0 = time.perf_counter()
        if section == "ranking":
            rows = [
                ranking_design(m, step, r, reps, seed=100 * m + 10 * r + int(step * 1000))
                for m in (3, 10, 20)
                for step in (0.005, 0.02)
                for r in (1, 3)
            ]
            print(table(rows), "\n")
        elif section == "noninferiority":
            ni = [ni_design(n, r, 0.02, reps * 4, seed=n + r) for n in (50, 200, 1000) for r in (1, 3)]
            print(table(ni), "\n")
        elif section == "planner":
            print(table(planner_rows(reps)), "\n")
        elif section == "nk":
            print(nk_section(reps), "\n")
        elif section == "real":
            print(real_data())
        else:
            raise SystemExit(f"unknown section {section!r}; the sections are {', '.join(SECTIONS)}")
        print(f"{section}: {time.perf_counter() - t0:.0f} s\n", flush=True)


if __name__ == "__main__":
    main()
