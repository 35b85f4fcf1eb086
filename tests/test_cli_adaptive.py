"""``nk --adaptive POLICY`` and ``raters --aggregate ... [--gold G]``: the contract keys, ``fixed`` = no flag, and
the Dawid-Skene labels against crowd-kit's own run on the CrowdTruth datasets with gold.

Oracles: the same command without the flag (bit for bit), ``nkcore.nk.adaptive.simulate_policy`` called directly,
crowd-kit's own predictions (its fit watched, on the table coded here from the raw files), and the datasets' README
numbers.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from nkcore.cli import main
from nkcore.nk.adaptive import make_policy, simulate_policy

ROOT = Path(__file__).resolve().parents[1]
RATINGS = ROOT / "sample_data" / "ratings.csv"
PREDS = ROOT / "sample_data" / "predictions.csv"
CROWD = ROOT.parent / "shared" / "datasets" / "crowd_truth_inference"
ADAPTIVE_KEYS = {"policy", "mean_ratings_per_item", "max_ratings_per_item"}


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _as_list(x: Any) -> list[dict[str, Any]]:
    return x if isinstance(x, list) else [x]


@pytest.mark.parametrize(
    "args",
    [
        ["nk", "--prior", "Toxicity", "--budget", "500", "--k", "10", "--metric", "acc,tv"],
        ["nk", "--prior", "DICES", "--grid", "--budgets", "100,250", "--ks", "1,5,10", "--metric", "tv"],
        ["nk", "--prior", "Toxicity", "--budget", "250", "--k", "5", "--method", "simulate", "--rounds", "200"],
        ["nk", "--prior", "Toxicity", "--min-budget", "--budgets", "100,250,500", "--ks", "1,5", "--metric", "acc"],
        ["nk", "--ratings", str(RATINGS), "--predictions", str(PREDS), "--budget", "200", "--k", "3"],
        [
            *(
                "nk",
                "--ratings",
                str(RATINGS),
                "--predictions",
                str(PREDS),
                "--grid",
                "--budgets",
                "100",
                "--ks",
                "1,2",
            ),
            *("--method", "simulate", "--rounds", "100"),
        ],
    ],
)
def test_adaptive_fixed_prints_the_numbers_without_the_flag(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    plain = _as_list(_json([*args, "--json"], capsys))
    fixed = _as_list(_json([*args, "--adaptive", "fixed", "--json"], capsys))
    assert len(plain) == len(fixed)
    for a, b in zip(plain, fixed, strict=True):
        extra = set(b) - set(a)
        assert {k: b[k] for k in a} == a  # every number bit for bit (JSON round trip of the same floats)
        if "k" in a and "n" in a:
            assert extra == ADAPTIVE_KEYS
            assert b["policy"] == "fixed" and b["mean_ratings_per_item"] == a["k"] == b["max_ratings_per_item"]
        else:
            assert extra == {"policy"}


def test_adaptive_margin_cell_is_the_engine_call_with_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["nk", "--prior", "DICES", "--budget", "300", "--k", "6", "--metric", "acc,tv", "--rounds", "300"]
    got = _as_list(_json([*args, "--adaptive", "margin", "--seed", "4", "--json"], capsys))
    want = simulate_policy(
        (5.21765954, 0.85824731, 2.74833849), 0.3, 300, 6, make_policy("margin"), ["acc", "tv"], 300, 4
    )
    for g, w in zip(got, want, strict=True):
        assert {"budget", "k", "n", "metric", "p", "delta", "ci_width", "reproducibility"} | ADAPTIVE_KEYS <= set(g)
        assert g["policy"] == "margin" and g["p"] == w.p and g["delta"] == w.delta and g["ci_width"] == w.ci_width
        assert g["mean_ratings_per_item"] == 6.0 and g["max_ratings_per_item"] > 6 and g["method"] == "simulate"


def test_adaptive_sequential_text_grid_min_budget_and_real_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nk", "--prior", "Toxicity", "--budget", "200", "--k", "4", "--adaptive", "sequential"]) == 0
    text = capsys.readouterr().out
    assert "one more at a time" in text and "Policy: sequential" in text
    mb = _json(
        [
            *("nk", "--prior", "Toxicity", "--min-budget", "--budgets", "100,500", "--ks", "1,5", "--metric", "acc"),
            *("--adaptive", "sequential", "--rounds", "200", "--json"),
        ],
        capsys,
    )
    assert _as_list(mb)[0]["policy"] == "sequential" and set(_as_list(mb)[0]) == {
        "metric",
        "budget",
        "k",
        "p",
        "policy",
        "n",
        "extrapolated",
        "pool",
    }
    real = _as_list(
        _json(
            [
                *("nk", "--ratings", str(RATINGS), "--predictions", str(PREDS), "--grid", "--budgets", "100"),
                *("--ks", "2,4", "--adaptive", "margin", "--rounds", "100", "--metric", "acc", "--json"),
            ],
            capsys,
        )
    )
    assert [c["k"] for c in real] == [2, 4] and all(ADAPTIVE_KEYS <= set(c) for c in real)
    assert all(c["policy"] == "margin" and c["n_qualifying"] > 0 for c in real)


def test_adaptive_refuses_several_priors(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["nk", "--prior", "all", "--grid", "--adaptive", "margin"])
    assert code == 2 and "one prior and one eps" in capsys.readouterr().err


def _toy_ratings(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 40)
    rows = []
    for i, t in enumerate(truth):
        for r in range(5):
            good = r < 3  # raters 0-2 are right 90% of the time, 3-4 answer at random
            lab = t if (rng.random() < 0.9 if good else rng.random() < 0.5) else 1 - t
            rows.append({"item": f"i{i}", "rater": f"r{r}", "label": int(lab)})
    path = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    gold = tmp_path / "g.csv"
    pd.DataFrame({"item_id": [f"i{i}" for i in range(40)], "gold_label": truth}).to_csv(gold, index=False)
    return path, gold


@pytest.mark.slow  # out of make test-quick (the edit loop); make test runs it
def test_raters_aggregate_keys_and_quality_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, gold = _toy_ratings(tmp_path)
    for method in ("plurality", "dawid-skene", "one-coin", "mace", "glad"):
        out = _json(["raters", "--ratings", str(path), "--aggregate", method, "--gold", str(gold), "--json"], capsys)
        assert isinstance(out, dict)
        assert out["aggregate"]["method"] == method and out["aggregate"]["n_items"] == 40
        assert 0 <= out["aggregate"]["accuracy"] <= 1 and out["accuracy"] == out["aggregate"]["accuracy"]
        q = {row["rater"]: row for row in out["rater_quality"]}
        assert set(q) == {f"r{r}" for r in range(5)} and all(row["n_ratings"] == 40 for row in q.values())
        # the random raters come out below the good ones
        assert max(q["r3"]["quality"], q["r4"]["quality"]) < min(q[f"r{r}"]["quality"] for r in range(3))
    # plurality accuracy is the plurality's, whatever the aggregate
    counts = pd.read_csv(path).pivot_table(index="item", columns="label", aggfunc="size", fill_value=0)
    g = pd.read_csv(gold).set_index("item_id")["gold_label"]
    plur = (counts.idxmax(axis=1).reindex(g.index) == g).mean()
    assert out["plurality_accuracy"] == pytest.approx(plur)
    assert main(["raters", "--ratings", str(path), "--gold", str(gold)]) == 2
    assert "--gold goes with --aggregate" in capsys.readouterr().err
    assert main(["raters", "--ratings", str(path), "--aggregate", "plurality"]) == 0
    assert "lowest quality first" in capsys.readouterr().out


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize("method", ["dawid-skene", "one-coin", "mace", "glad"])
@pytest.mark.parametrize(("name", "plurality"), [("duck", 0.759), ("dog", 0.818), ("face", 0.630)])
def test_crowdtruth_aggregate_accuracy_equals_crowdkit(
    name: str, plurality: float, method: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each aggregate's accuracy against the CrowdTruth gold is that of crowd-kit's own predictions (one method per
    test, so the twelve fits spread over the workers), beside the plurality's.

    crowd-kit's fit is watched rather than run a second time (a fit of MACE or GLAD takes seconds whatever the
    data's size): the model's ``fit_predict`` is wrapped, and the test checks that the CLI fitted the model named
    here with the settings named here, on the table coded here from the raw file (items in natural order, raters in
    order of first appearance, labels in order: MACE's random restarts depend on the coding), then scores
    crowd-kit's own output against the gold itself. A second run on the same table with the same settings would
    repeat the same deterministic computation."""
    ann_path, gold_path = CROWD / f"{name}_annotations_long.csv", CROWD / f"{name}_gold.csv"
    if not ann_path.exists():
        pytest.skip("../shared/datasets/crowd_truth_inference is absent")
    agg = pytest.importorskip("crowdkit.aggregation")
    ann, gold = pd.read_csv(ann_path), pd.read_csv(gold_path).set_index("item_id")["gold_label"]
    models = {
        "dawid-skene": lambda: agg.DawidSkene(n_iter=100),
        "one-coin": lambda: agg.OneCoinDawidSkene(n_iter=100),
        "mace": lambda: agg.MACE(random_state=0),
        "glad": lambda: agg.GLAD(n_iter=100),
    }
    named = models[method]()
    cls = type(named)
    fits: list[tuple[Any, pd.DataFrame, pd.Series]] = []
    fit_predict = cls.fit_predict

    def watched(self: Any, data: pd.DataFrame, *args: Any, **kwargs: Any) -> pd.Series:
        given = data.copy()
        got = fit_predict(self, data, *args, **kwargs)
        fits.append((self, given, got.copy()))
        return got

    monkeypatch.setattr(cls, "fit_predict", watched)
    out = _json(
        ["raters", "--ratings", str(ann_path), "--aggregate", method, "--gold", str(gold_path), "--json"], capsys
    )
    [(model, given, got)] = fits
    assert type(model) is cls
    settings = [p for p in inspect.signature(cls).parameters if hasattr(named, p)]
    assert "n_iter" in settings and {p: getattr(model, p) for p in settings} == {p: getattr(named, p) for p in settings}
    items, labels = np.sort(ann["item_id"].unique()), np.sort(ann["label"].unique())
    coded = pd.DataFrame(
        {
            "task": np.searchsorted(items, ann["item_id"]),
            "worker": pd.factorize(ann["annotator_id"])[0],
            "label": np.searchsorted(labels, ann["label"]),
        }
    )
    pd.testing.assert_frame_equal(given.reset_index(drop=True), coded, check_dtype=False)
    theirs_labels = pd.Series(labels[got.to_numpy(dtype=int)], index=items[got.index.to_numpy(dtype=int)])
    theirs = float((theirs_labels.reindex(gold.index) == gold).mean())
    assert isinstance(out, dict)
    assert out["aggregate"]["accuracy"] == pytest.approx(theirs, abs=1e-12)
    assert out["aggregate"]["plurality_accuracy"] == pytest.approx(plurality, abs=5e-4)  # the README's table
    assert out["aggregate"]["n_gold_items"] == gold.size
    names = pd.unique(ann["annotator_id"])  # worker w of the coded table is names[w]
    mine = {q["rater"]: q["quality"] for q in out["rater_quality"]}
    if method == "mace":  # MACE's competence is its posterior share of not spamming, per rater
        for w, theta in zip(pd.unique(given["worker"]), model.spamming_[:, 1], strict=True):
            assert mine[str(names[w])] == pytest.approx(float(theta), abs=1e-12)
    if method == "glad":  # GLAD's ability: the mean over items of sigma(alpha_r exp(b_j)), computed here
        inv = np.exp(model.betas_.to_numpy(dtype=float))
        for w, a in model.alphas_.items():
            assert mine[str(names[w])] == pytest.approx(float(np.mean(1.0 / (1.0 + np.exp(-a * inv)))), abs=1e-12)


@pytest.mark.parametrize(
    "source",
    [
        ["--ratings", str(RATINGS), "--predictions", str(PREDS), "--budgets", "20000", "--ks", "2"],
        ["--prior", "Toxicity", "--budgets", "5000", "--ks", "5"],
    ],
)
def test_adaptive_min_budget_n_extrapolated_pool_as_without_the_flag(
    source: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The adaptive ``--min-budget`` JSON's ``n``, ``extrapolated`` and ``pool`` mean what the non-adaptive ones mean:
    the policy ``fixed`` run through the adaptive code path (``run_adaptive``, which the CLI reaches only for margin
    and sequential) lands on the same cell as the engine without the flag (budgets where p is far below 0.05), and
    the three keys are identical (sample data: 500 items of 40 ratings, so K = 2 at 20,000 draws 10,000 items from a
    pool of 500: extrapolated)."""
    from nkcore.cli import build_parser
    from nkcore.cli.nk_adaptive import run_adaptive
    from nkcore.nk.grid import parse_int_list

    common = ["nk", *source, "--min-budget", "--metric", "acc,tv", "--rounds", "200", "--json"]
    plain = _as_list(_json([*common, "--method", "simulate"], capsys))
    args = build_parser().parse_args([*common, "--adaptive", "fixed"])
    args.eps = 0.3
    assert run_adaptive(args, parse_int_list(args.budgets, "b"), parse_int_list(args.ks, "k")) == 0
    adaptive = _as_list(json.loads(capsys.readouterr().out))
    assert [r["metric"] for r in adaptive] == [r["metric"] for r in plain] == ["acc", "tv"]
    for a, f in zip(plain, adaptive, strict=True):
        assert f["policy"] == "fixed" and a["budget"] is not None
        # on a prior the non-adaptive JSON has no n / extrapolated / pool: N = budget // K, no pool to run out of
        want = a if "pool" in a else a | {"n": a["budget"] // a["k"], "extrapolated": False, "pool": None}
        keys = ("budget", "k", "n", "extrapolated", "pool")
        assert {k: f[k] for k in keys} == {k: want[k] for k in keys}
    if "pool" in plain[0]:
        assert plain[0]["extrapolated"] is True and plain[0]["pool"] == 500  # K = 2: 10,000 items from 500
