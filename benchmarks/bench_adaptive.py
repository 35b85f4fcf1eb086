"""Best adaptive policy against best fixed K at equal budget: the 15 presets and three real datasets.

Run: ``.venv/bin/python benchmarks/bench_adaptive.py`` (``--quick``: 200 rounds, three presets, one real dataset).
Output kept in ``benchmarks/results/bench_adaptive.txt``.

For each prior (eps 0.3) or real dataset, each metric (Accuracy, TV) and each budget (100, 250, 500, 1000), every
candidate is simulated (priors: ``nkcore.nk.adaptive.simulate_policy``; real data: ``resample_policy``, extra
ratings drawn without replacement from the item's pool) with seed 0 over K (the average ratings per item) in
{2, 3, 5, 10, 20} (real data: the K its items have): fixed K (through the same adaptive code path, so both sides
carry the same Monte Carlo noise); margin with the first stage at 50% of K and 20% or 50% of the items contested;
sequential (first 50% of K, a lead of 2, cap 3 K). The best of each family (largest reproducibility, then
smallest p) is then run again with seed 1, and those numbers are reported (so picking the best of many noisy
candidates does not flatter the family with more of them). Reproducibility = the share of repeated evaluations in
which A comes out ahead (priors) or the full data's direction is found (real data). The minimal budget per family
is the smallest budget where the best candidate's re-run has p < 0.05.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nkcore.nk.adaptive import Policy, make_policy, simulate_policy  # noqa: E402
from nkcore.nk.adaptive_resample import resample_policy  # noqa: E402
from nkcore.nk.grid import Config  # noqa: E402
from nkcore.nk.priors import get_prior, preset_names  # noqa: E402
from nkcore.nk.resample import PairData, prepare_pair  # noqa: E402

DATA = ROOT.parent / "shared" / "datasets"
BUDGETS = (100, 250, 500, 1000)
KS: tuple[int, ...] = (2, 3, 5, 10, 20)
METRICS = ("acc", "tv")
FAMILIES: dict[str, list[Policy]] = {
    "fixed": [make_policy("fixed")],
    "adaptive": [
        make_policy("margin", contested=0.2),
        make_policy("margin", contested=0.5),
        make_policy("sequential"),
    ],
}


def _short(p: Policy) -> str:
    return {"fixed": "fixed", "margin": f"margin{p.contested:.0%}", "sequential": "seq"}[p.name]


def _prior_cells(alpha: tuple[float, ...], b: int, k: int, policy: Policy, rounds: int, seed: int) -> dict[str, Any]:
    return {c.metric: c for c in simulate_policy(alpha, 0.3, b, k, policy, METRICS, rounds, seed)}


def _real_cells(data: PairData, b: int, k: int, policy: Policy, rounds: int, seed: int) -> dict[str, Any]:
    return {c.metric: c for c in resample_policy(data, [Config(b, k, b // k)], policy, METRICS, rounds, seed)}


def _best(run: Any, ks: tuple[int, ...], budget: int, family: str, metric: str, rounds: int) -> tuple[Any, str]:
    pick: tuple[float, float, int, Policy] | None = None
    for policy in FAMILIES[family]:
        for k in ks:
            if k > budget or budget // k < 2:
                continue
            c = run(budget, k, policy, rounds, 0)[metric]
            key = (-c.reproducibility, c.p)
            if pick is None or key < (pick[0], pick[1]):
                pick = (key[0], key[1], k, policy)
    assert pick is not None
    again = run(budget, pick[2], pick[3], rounds, 1)[metric]
    return again, _short(pick[3])


def _chaos(subset: str, a: str, b: str) -> PairData:
    counts = pd.read_csv(DATA / "chaosnli" / "label_counts.csv.gz")
    c = counts[counts["subset"] == subset].set_index("uid")
    preds = pd.read_csv(DATA / "chaosnli" / "predictions_snli_mnli_baan2022.csv.gz")
    preds = preds[preds["subset"] == subset]
    uids = list(c.index)

    def model(run: str) -> tuple[np.ndarray, np.ndarray]:
        p = preds[preds["model_run"] == run].set_index("uid").reindex(uids)
        hard = p["pred_label"].map({"e": 0, "n": 1, "c": 2}).fillna(-1).to_numpy().astype(int)
        return hard, p[["p_e", "p_n", "p_c"]].to_numpy(float)

    (ha, pa), (hb, pb) = model(a), model(b)
    return prepare_pair(c[["count_e", "count_n", "count_c"]].to_numpy(int), ha, hb, pa, pb)


def _jobs(a: str, b: str) -> PairData:
    ann = pd.read_csv(DATA / "jobs" / "annotations_q1_point_of_view.csv.gz", dtype={"item_id": str})
    labels = ["1st_person", "2nd_person", "3rd_person", "not_jobrelated", "unclear"]
    preds = pd.read_csv(DATA / "jobs" / "predictions_generated_here_q1_point_of_view.csv.gz", dtype={"item_id": str})
    items = sorted(set(preds["item_id"]))
    counts = pd.crosstab(ann["item_id"], ann["label"]).reindex(index=items, columns=labels, fill_value=0).to_numpy()

    def model(name: str) -> tuple[np.ndarray, np.ndarray]:
        p = preds[preds["model"] == name].set_index("item_id").reindex(items)
        hard = p["pred_label"].map({lab: i for i, lab in enumerate(labels)}).fillna(-1).to_numpy().astype(int)
        return hard, p[[f"p_{lab}" for lab in labels]].to_numpy()

    (ha, pa), (hb, pb) = model(a), model(b)
    return prepare_pair(counts, ha, hb, pa, pb)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=500)
    args = ap.parse_args()
    rounds = 200 if args.quick else args.rounds
    sources: list[tuple[str, Any, tuple[int, ...]]] = []
    names = list(preset_names())[: 3 if args.quick else None]
    for name in names:
        alpha = tuple(get_prior(name).concentration)
        sources.append((name, lambda b, k, p, r, s, alpha=alpha: _prior_cells(alpha, b, k, p, r, s), KS))
    if (DATA / "chaosnli").exists():
        reals: list[tuple[str, Any, tuple[int, ...]]] = [
            ("ChaosNLI SNLI", lambda: _chaos("snli", "bert-base-uncased_seed1", "bert-base-uncased_seed0"), KS)
        ]
        if not args.quick:
            reals += [
                ("ChaosNLI MNLI", lambda: _chaos("mnli_m", "roberta-base_seed0", "roberta-base_seed1"), KS),
                ("Jobs Q1", lambda: _jobs("tfidf_word_lr", "count_nb"), (2, 3, 5, 10)),
            ]
        for name, make, ks in reals:
            data = make()
            sources.append((name, lambda b, k, p, r, s, data=data: _real_cells(data, b, k, p, r, s), ks))
    print(f"rounds per side {rounds}; budgets {BUDGETS}; eps 0.3 for the priors; best of each family re-run (seed 1)")
    head = (
        f"{'source':<14} {'metric':<4} {'budget':>6} | {'fixed K':>7} {'repro':>6} {'p':>6} | "
        f"{'adaptive':>10} {'K':>3} {'repro':>6} {'p':>6} | {'gain':>6}"
    )
    rows_min: list[str] = []
    t0 = time.perf_counter()
    for name, run, ks in sources:
        print(head)
        for mt in METRICS:
            mins: dict[str, int | None] = {"fixed": None, "adaptive": None}
            for b in BUDGETS:
                fx, _ = _best(run, ks, b, "fixed", mt, rounds)
                ad, label = _best(run, ks, b, "adaptive", mt, rounds)
                for fam, c in (("fixed", fx), ("adaptive", ad)):
                    if mins[fam] is None and c.p < 0.05:
                        mins[fam] = b
                print(
                    f"{name:<14} {mt:<4} {b:>6} | {fx.k:>7} {fx.reproducibility:>6.3f} {fx.p:>6.3f} | "
                    f"{label:>10} {ad.k:>3} {ad.reproducibility:>6.3f} {ad.p:>6.3f} | "
                    f"{ad.reproducibility - fx.reproducibility:>+6.3f}",
                    flush=True,
                )
            rows_min.append(
                f"{name:<14} {mt:<4} minimal budget: fixed {mins['fixed']}, best adaptive {mins['adaptive']}"
            )
    print()
    print("\n".join(rows_min))
    print(f"wall {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
