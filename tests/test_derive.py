"""Derived datasets: predictions + gold -> paired results, runs -> raw samples, checked against pandas by hand."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore.cli import main
from nkcore.derive import derive_paired, derive_samples, paired_from_predictions, run_column, samples_from_runs
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import apply_mapping, detect_kind
from nkcore.paired import parse_paired
from nkcore.ratings import predictions_from_frame, ratings_from_counts, ratings_from_frame
from nkcore.voting import parse_samples

CHAOS = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "chaosnli"
LABELS = ("a", "b", "c")


def _world(seed: int, n_items: int = 60, runs: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random ratings (3 raters per item: ties happen) and predictions of ``runs`` runs, some missing."""
    rng = np.random.default_rng(seed)
    ratings = pd.DataFrame(
        [(f"i{i}", f"r{j}", LABELS[rng.integers(3)]) for i in range(n_items) for j in range(rng.integers(2, 5))],
        columns=["item", "rater", "label"],
    )
    rows = []
    for run in range(runs):
        for i in range(n_items):
            if rng.random() < 0.05:
                continue  # this run has no prediction for the item
            model = "big" if run % 2 else "small"
            rows.append((f"i{i}", model, run // 2, f"{model}_s{run // 2}", LABELS[rng.integers(3)]))
    preds = pd.DataFrame(rows, columns=["uid", "model", "seed", "model_run", "prediction"])
    return ratings, preds.sample(frac=1, random_state=seed).reset_index(drop=True)


def _plurality_by_hand(ratings: pd.DataFrame) -> tuple[dict[str, str], set[str]]:
    """Item -> its single most common label; and the set of items whose top count is shared."""
    counts = ratings.groupby(["item", "label"]).size().unstack(fill_value=0)
    top = counts.max(axis=1)
    n_top = counts.eq(top, axis=0).sum(axis=1)
    tied = set(counts.index[n_top > 1])
    gold = {item: str(counts.loc[item].idxmax()) for item in counts.index if item not in tied}
    return gold, tied


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paired_equals_a_hand_computation(seed: int) -> None:
    ratings, preds = _world(seed)
    d = derive_paired(preds, ratings=ratings_from_frame(ratings))
    gold, tied = _plurality_by_hand(ratings)
    runs = preds["model_run"].unique()
    per_item = preds.groupby("uid")["model_run"].nunique()
    complete = set(per_item.index[per_item == len(runs)])
    kept = sorted(set(gold) & complete)
    want = preds[preds["uid"].isin(kept)].assign(correct=lambda f: (f["prediction"] == f["uid"].map(gold)).astype(int))
    want = want.rename(columns={"uid": "case", "model_run": "config"})[["case", "config", "correct"]]
    got = d.frame.sort_values(["case", "config"]).reset_index(drop=True)
    assert got.equals(want.sort_values(["case", "config"]).reset_index(drop=True))
    assert d.kind == "paired" and set(d.configs) == set(runs)
    assert d.items_kept == len(kept)
    assert dict(d.dropped) == {
        k: v
        for k, v in {"tied plurality": len(tied), "not predicted by every model": len(set(gold) - complete)}.items()
        if v
    }
    assert d.items_kept + d.items_dropped == ratings["item"].nunique()
    # the derived table is a paired dataset the paired parser reads, and its id is the store's fingerprint
    table = parse_paired(d.frame)
    assert table.n_cases == len(kept)
    assert d.id == fingerprint(d.frame)


def test_ties_any_counts_a_tied_label_right() -> None:
    ratings = pd.DataFrame({"item": ["1", "1", "2", "2", "3"], "rater": list("ababa"), "label": list("xyxxy")})
    r = ratings_from_frame(ratings)
    preds = pd.DataFrame({"item": ["1", "2", "3"] * 2, "model": ["m"] * 3 + ["n"] * 3, "pred_label": list("xxyyyy")})
    p = predictions_from_frame(preds, r)
    drop = paired_from_predictions(p, r)
    assert drop.frame["case"].tolist() == ["2", "2", "3", "3"] and dict(drop.dropped) == {"tied plurality": 1}
    anyof = paired_from_predictions(p, r, ties="any")
    assert anyof.frame["correct"].tolist() == [1, 1, 1, 0, 1, 1]  # item 1 tied x/y: both x and y are right
    assert anyof.dropped == ()
    with pytest.raises(DataError, match="ties must be one of"):
        paired_from_predictions(p, r, ties="first")


def test_gold_column() -> None:
    preds = pd.DataFrame(
        {
            "example_id": ["q1", "q1", "q2", "q2", "q3"],
            "system": ["A", "B", "A", "B", "A"],
            "pred_label": ["4", "5", "x", "x", "7"],
            "gold": ["4", "4", "x", None, "7"],
        }
    )
    d = derive_paired(preds, gold_column="gold")
    assert d.frame.values.tolist() == [["q1", "A", 1], ["q1", "B", 0], ["q2", "A", 1], ["q2", "B", 1]]
    assert dict(d.dropped) == {"not predicted by every model": 1}
    clash = preds.assign(gold=["4", "5", "x", "x", "7"])
    with pytest.raises(DataError, match="item 'q1' has different gold labels"):
        derive_paired(clash, gold_column="gold")
    with pytest.raises(DataError, match="one way"):
        derive_paired(preds)


def test_run_column_prefers_the_column_that_makes_rows_unique() -> None:
    _, preds = _world(3)
    assert run_column(preds, "uid", ["prediction"]) == "model_run"  # model repeats across seeds, seed across models
    pair = preds.drop(columns="model_run")
    assert run_column(pair, "uid", ["prediction"]) == "model+seed"
    d = derive_paired(pair.assign(gold="a"), gold_column="gold")
    assert set(d.configs) == {"small / 0", "small / 1", "big / 0", "big / 1"}
    with pytest.raises(DataError, match="no column tells the model runs apart"):
        run_column(pd.DataFrame({"uid": [1, 1], "model": ["m", "m"], "x": ["a", "a"]}), "uid")


def test_too_few_models_or_items() -> None:
    r = ratings_from_frame(pd.DataFrame({"item": ["1", "1", "2"], "rater": list("aba"), "label": list("xyx")}))
    one = predictions_from_frame(pd.DataFrame({"item": ["1", "2"], "model": ["m", "m"], "pred_label": ["x", "x"]}), r)
    with pytest.raises(DataError, match="at least 2 models"):
        paired_from_predictions(one, r)
    with pytest.raises(DataError, match="no item is left: 1 item tied plurality; 1 item not predicted"):
        paired_from_predictions(
            predictions_from_frame(
                pd.DataFrame({"item": ["1", "2", "1"], "model": ["m", "m", "n"], "pred_label": list("xxx")}), r
            ),
            r,
        )


@pytest.mark.parametrize("seed", [0, 4])
def test_samples_equal_a_hand_computation(seed: int) -> None:
    ratings, preds = _world(seed)
    d = derive_samples(preds, ratings=ratings_from_frame(ratings), model="big")
    gold, _ = _plurality_by_hand(ratings)
    big = preds[preds["model"] == "big"]
    runs = sorted(big["model_run"].unique())
    per_item = big.groupby("uid")["model_run"].nunique()
    kept = sorted(set(gold) & set(per_item.index[per_item == len(runs)]))
    assert list(d.configs) == runs  # runs numbered in natural order: big_s0 is sample 1
    sample_of = {run: j + 1 for j, run in enumerate(d.configs)}
    want = big[big["uid"].isin(kept)].assign(
        case=lambda f: f["uid"],
        sample=lambda f: f["model_run"].map(sample_of).astype(np.int64),
        answer=lambda f: f["prediction"],
        gold=lambda f: f["uid"].map(gold),
    )[["case", "sample", "answer", "gold"]]
    got = d.frame.sort_values(["case", "sample"]).reset_index(drop=True)
    assert got.equals(want.sort_values(["case", "sample"]).reset_index(drop=True))
    # a samples dataset the sampling analysis reads
    assert len(parse_samples(d.frame).cases) == len(kept)


def test_samples_need_one_model() -> None:
    ratings, preds = _world(1)
    with pytest.raises(DataError, match=r"2 models \(big, small\); name the one"):
        derive_samples(preds, ratings=ratings_from_frame(ratings))
    with pytest.raises(DataError, match="no predictions of model 'huge'"):
        derive_samples(preds, ratings=ratings_from_frame(ratings), model="huge")
    r = ratings_from_frame(ratings)
    p = predictions_from_frame(
        preds.rename(columns={"uid": "item", "model_run": "run"})
        .drop(columns="model")
        .rename(columns={"run": "model", "prediction": "pred_label"})[["item", "model", "pred_label"]],
        r,
    )
    assert samples_from_runs(p, r, runs=["big_s0"]).configs == ("big_s0",)


def _write(path: Path, frame: pd.DataFrame) -> Path:
    path.write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    return path


def test_cli_derive_paired_then_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ratings, preds = _world(7)
    rp, pp, out = _write(tmp_path / "r.csv.gz", ratings), _write(tmp_path / "p.csv.gz", preds), tmp_path / "d.csv"
    argv = ["data", "derive", "paired", "--predictions", str(pp), "--ratings", str(rp), "--out", str(out), "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    want = derive_paired(preds, ratings=ratings_from_frame(ratings))
    assert summary["n_rows"] == len(want.frame) and summary["items_kept"] == want.items_kept
    assert summary["items_dropped"] == want.items_dropped and summary["configs"] == list(want.configs)
    assert summary["kind"] == "paired" and summary["notes"] and len(summary["source_ids"]) == 2
    assert summary["source_ids"][0] == fingerprint(read_table(pp))
    written = pd.read_csv(out, dtype={"case": str, "config": str})
    assert written.equals(want.frame.astype({"case": str, "config": str}))
    assert main(["compare", str(out), "--a", "small_s0", "--b", "big_s0", "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    acc = want.frame.pivot(index="case", columns="config", values="correct")
    assert cmp["n_cases"] == want.items_kept
    assert cmp["a"]["correct"] == int(acc["small_s0"].sum()) and cmp["b"]["correct"] == int(acc["big_s0"].sum())


def test_cli_derive_samples_and_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ratings, preds = _world(8)
    rp, pp = _write(tmp_path / "r.csv.gz", ratings), _write(tmp_path / "p.csv.gz", preds)
    assert main(["data", "derive", "samples", "--predictions", str(pp), "--ratings", str(rp), "--model", "small"]) == 0
    assert "derived samples data" in capsys.readouterr().out
    for argv, message in (
        (["data", "derive", "samples", "--predictions", str(pp), "--ratings", str(rp)], "name the one"),
        (["data", "derive", "paired", "--ratings", str(rp)], "needs --predictions"),
        (["data", "derive", "paired", "--predictions", str(pp)], "--ratings FILE"),
        (["data", "derive"], "what to derive"),
        (["data", str(rp), "paired"], "only follows derive"),
        (["data", str(rp), "--predictions", str(pp)], "only work with data derive"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (argv, err)
    # plain data FILE is unchanged
    assert main(["data", str(rp), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kind"] == "ratings"


@pytest.mark.shared
def test_chaosnli_snli_paired_from_predictions_and_label_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = pd.read_csv(CHAOS / "predictions_snli_mnli_baan2022.csv.gz")
    counts = pd.read_csv(CHAOS / "label_counts.csv.gz")
    d = derive_paired(preds, ratings=ratings_from_counts(counts, subset="snli"), subset="snli")
    # by hand: the plurality of each snli item's counts, ties left out
    snli = counts[counts["subset"] == "snli"].set_index("uid")[["count_e", "count_n", "count_c"]]
    top = snli.max(axis=1)
    single = snli.eq(top, axis=0).sum(axis=1) == 1
    gold = snli[single].idxmax(axis=1).str.removeprefix("count_")
    snli_preds = preds[preds["subset"] == "snli"]
    assert snli_preds.groupby("model_run")["uid"].nunique().to_dict() == dict.fromkeys(d.configs, 1514)
    assert len(d.configs) == 5 and d.items_kept == int(single.sum())
    assert dict(d.dropped) == {"tied plurality": 1514 - int(single.sum())}
    r0 = snli_preds[snli_preds["model_run"] == "roberta-base_seed0"].set_index("uid")["pred_label"]
    hand = int((r0.reindex(gold.index) == gold).sum())
    got = d.frame[d.frame["config"] == "roberta-base_seed0"]["correct"]
    assert int(got.sum()) == hand and len(got) == len(gold)
    # through the CLI: derive, then compare two runs
    out = tmp_path / "snli_paired.csv"
    argv = ["data", "derive", "paired", "--predictions", str(CHAOS / "predictions_snli_mnli_baan2022.csv.gz")]
    argv += ["--ratings", str(CHAOS / "label_counts.csv.gz"), "--subset", "snli", "--out", str(out), "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["items_kept"] == d.items_kept
    assert main(["compare", str(out), "--a", "roberta-base_seed0", "--b", "roberta-base_seed2", "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    r2 = snli_preds[snli_preds["model_run"] == "roberta-base_seed2"].set_index("uid")["pred_label"]
    assert cmp["n_cases"] == len(gold)
    assert cmp["a"]["correct"] == hand
    assert cmp["b"]["correct"] == int((r2.reindex(gold.index) == gold).sum())
    # the derived table is recognised as paired data by the kind detection
    frame = read_table(out)
    guess = detect_kind(frame)
    assert guess.kind == "paired" and len(apply_mapping(frame, "paired", guess.mapping)) == len(d.frame)


def test_run_column_reads_cells_holding_lists_as_text() -> None:
    """A JSONL column of lists is compared as text (it once raised TypeError: unhashable type: 'list')."""
    from nkcore.derive import run_column

    frame = pd.DataFrame({"item": [1, 1, 2, 2], "run": [["a"], ["b"], ["a"], ["b"]]})
    assert run_column(frame, "item") == "run"


def test_cli_derive_with_an_item_key_and_a_subset_over_two_datasets_whose_ids_repeat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two datasets in one pair of files (item ids repeat across them, as in LeWiDi 2023): --item-key keeps both,
    each item named by dataset and id; --subset dataset=B keeps one. Oracle: each dataset derived on its own."""
    parts = {name: _world(seed, n_items=30) for name, seed in (("A", 11), ("B", 12))}
    ratings = pd.concat([r.assign(dataset=name) for name, (r, _) in parts.items()], ignore_index=True)
    preds = pd.concat([p.assign(dataset=name) for name, (_, p) in parts.items()], ignore_index=True)
    rp, pp = _write(tmp_path / "r.csv.gz", ratings), _write(tmp_path / "p.csv.gz", preds)
    base = ["data", "derive", "paired", "--predictions", str(pp), "--ratings", str(rp), "--json"]
    alone = {name: derive_paired(p, ratings=ratings_from_frame(r)) for name, (r, p) in parts.items()}
    assert main([*base, "--item-key", "dataset,item"]) == 2  # the predictions name their item uid, not item
    assert "no column 'item' for the item key" in capsys.readouterr().err
    preds_keyed = preds.rename(columns={"uid": "item"})
    pp = _write(tmp_path / "p2.csv.gz", preds_keyed)
    base = ["data", "derive", "paired", "--predictions", str(pp), "--ratings", str(rp), "--json"]
    assert main([*base, "--item-key", "dataset,item"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert both["items_kept"] == sum(d.items_kept for d in alone.values())
    assert main([*base, "--subset", "dataset=B"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert (one["items_kept"], one["configs"]) == (alone["B"].items_kept, list(alone["B"].configs))
