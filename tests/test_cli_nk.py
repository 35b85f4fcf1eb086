"""``python -m nkcore nk --ratings FILE --predictions FILE``: the exact engine by default, the resampler with
``--method simulate``, files read as ``data`` reads them (--subset, --item-key, --keep), JSON keys kept.

Oracles: the frames-level functions called on the tables filtered by hand (pandas), the resampler at the same
seed, and the contract keys of issue 5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from nkcore.cli import main
from nkcore.nk.frames import exact_resample_frames, resample_frames

ROOT = Path(__file__).resolve().parents[1]
RATINGS = ROOT / "sample_data" / "ratings.csv"
PREDS = ROOT / "sample_data" / "predictions.csv"
CONTRACT = {"budget", "k", "n", "metric", "p", "delta", "ci_width", "reproducibility"}
ACCURACY = {"method", "p_error", "delta_error", "ci_width_error", "rounds"}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _two_datasets(tmp_path: Path) -> tuple[Path, Path, pd.DataFrame, pd.DataFrame]:
    """Two datasets in one file whose item ids repeat (1..n in each), as LeWiDi and Jobs ship them."""
    r = pd.read_csv(RATINGS)
    p = pd.read_csv(PREDS)
    items = sorted(r["item"].unique())[:60]
    r, p = r[r["item"].isin(items)], p[p["item"].isin(items)]
    half = {it: ("A" if i < 30 else "B") for i, it in enumerate(items)}
    renum = {it: (i % 30) + 1 for i, it in enumerate(items)}
    r = r.assign(dataset=r["item"].map(half), item=r["item"].map(renum))
    p = p.assign(dataset=p["item"].map(half), item=p["item"].map(renum))
    rp, pp = tmp_path / "ratings.csv", tmp_path / "preds.csv"
    r.to_csv(rp, index=False)
    p.to_csv(pp, index=False)
    return rp, pp, r, p


def test_exact_is_the_default_and_keeps_the_json_keys(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["nk", "--ratings", str(RATINGS), "--predictions", str(PREDS), "--grid", "--budgets", "100,500"]
    code, out, _ = _run([*argv, "--ks", "1,5", "--metric", "acc,tv,f1", "--json"], capsys)
    assert code == 0
    cells = json.loads(out)
    assert all(CONTRACT | ACCURACY | {"model_a", "model_b"} <= set(c) for c in cells)
    r, p = pd.read_csv(RATINGS), pd.read_csv(PREDS)
    want = exact_resample_frames(r, p, "model-a", "model-b", (100, 500), (1, 5), ("acc", "tv", "f1")).cells
    assert [(c["budget"], c["k"], c["metric"]) for c in cells] == [(c.budget, c.k, c.metric) for c in want]
    for got, ref in zip(cells, want, strict=True):
        assert got["p"] == pytest.approx(ref.p) and got["delta"] == pytest.approx(ref.delta)
        assert got["method"] == ref.method
        assert (got["method"] == "simulate") == (got["metric"] == "f1")  # macro F1 falls back and says so
        assert (got["rounds"] == 0) == (got["metric"] != "f1")


def test_simulate_is_the_resampler_at_the_given_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["nk", "--ratings", str(RATINGS), "--predictions", str(PREDS), "--budget", "500", "--k", "5"]
    code, out, _ = _run([*argv, "--method", "simulate", "--rounds", "300", "--seed", "7", "--json"], capsys)
    assert code == 0
    got = json.loads(out)
    ref = resample_frames(
        pd.read_csv(RATINGS), pd.read_csv(PREDS), "model-a", "model-b", (500,), (5,), ("acc",), 300, 7
    )
    assert got["method"] == "simulate" and got["rounds"] == 300
    assert got["p"] == ref.cells[0].p and got["reproducibility"] == ref.cells[0].reproducibility


def test_text_output_says_p_with_the_shared_phrase(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["nk", "--ratings", str(RATINGS), "--predictions", str(PREDS), "--budget", "2500", "--k", "5"]
    code, out, _ = _run([*argv, "--metric", "tv"], capsys)
    assert code == 0
    assert "p = <" not in out and ("p < 0.001" in out or "p = 0." in out)
    assert "items have at least 5 ratings" in out


def test_subset_and_item_key_read_the_files_as_data_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rp, pp, r, p = _two_datasets(tmp_path)
    base = ["nk", "--ratings", str(rp), "--predictions", str(pp), "--budget", "50", "--k", "3", "--json"]
    code, _, err = _run(base, capsys)  # item ids repeat across the two datasets: refused, with the way out
    assert code == 2 and "--subset" in err and "Traceback" not in err
    code, out, _ = _run([*base, "--subset", "dataset=B"], capsys)
    assert code == 0
    rb, pb = r[r["dataset"] == "B"], p[p["dataset"] == "B"]
    ref = exact_resample_frames(rb, pb, "model-a", "model-b", (50,), (3,), ("acc",)).cells[0]
    got = json.loads(out)
    assert got["p"] == pytest.approx(ref.p) and got["n_qualifying"] == ref.n_qualifying == 30
    code, out, _ = _run([*base, "--item-key", "dataset,item"], capsys)
    assert code == 0
    keyed = exact_resample_frames(
        r.assign(item=r["dataset"] + "/" + r["item"].astype(str)),
        p.assign(item=p["dataset"] + "/" + p["item"].astype(str)),
        "model-a",
        "model-b",
        (50,),
        (3,),
        ("acc",),
    ).cells[0]
    got = json.loads(out)
    assert (
        got["n_qualifying"] == 60 and got["p"] == pytest.approx(keyed.p) and got["delta"] == pytest.approx(keyed.delta)
    )


def test_keep_first_or_last_of_repeated_ratings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = pd.read_csv(RATINGS)
    again = r.iloc[:150].assign(label="unsure")
    rp = tmp_path / "ratings.csv"
    pd.concat([r, again]).to_csv(rp, index=False)  # 150 (item, rater) pairs rated twice, the second time "unsure"
    base = ["nk", "--ratings", str(rp), "--predictions", str(PREDS), "--budget", "500", "--k", "5", "--json"]
    code, _, err = _run([*base, "--metric", "tv"], capsys)
    assert code == 2 and "--keep" in err
    p = pd.read_csv(PREDS)
    refs = []
    for keep, table in (("first", r), ("last", pd.concat([again, r.iloc[150:]]))):
        code, out, _ = _run([*base, "--metric", "tv", "--keep", keep], capsys)
        assert code == 0
        ref = exact_resample_frames(table, p, "model-a", "model-b", (500,), (5,), ("tv",)).cells[0]
        assert json.loads(out)["p"] == pytest.approx(ref.p)
        assert json.loads(out)["full_gap"] == pytest.approx(ref.full_gap)
        refs.append(ref.full_gap)
    assert refs[0] != pytest.approx(refs[1])  # the two choices are different data


def test_file_flags_without_ratings_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["nk", "--prior", "DICES", "--budget", "100", "--k", "1", "--subset", "x"], capsys)
    assert code == 2 and "--subset goes with --ratings" in err


def test_a_cell_beyond_the_pool_is_called_an_extrapolation(capsys: pytest.CaptureFixture[str]) -> None:
    """N items drawn from fewer qualifying items repeat them: the text says so and the JSON marks it (the sample
    data's pool: pandas counts the items with at least K ratings that both models predict)."""
    r, p = pd.read_csv(RATINGS), pd.read_csv(PREDS)
    per_item = r.groupby("item").size()
    models = sorted(p["model"].unique())
    both = set.intersection(*(set(p.loc[p["model"] == m, "item"]) for m in models[:2]))
    pool = int(sum(1 for it, n in per_item.items() if n >= 5 and it in both))
    big = 5 * (pool + 50)  # N = pool + 50 items at K = 5: beyond the pool
    base = ["nk", "--ratings", str(RATINGS), "--predictions", str(PREDS), "--k", "5", "--metric", "acc"]
    code, out, _ = _run([*base, "--budget", str(big)], capsys)
    assert code == 0 and f"Extrapolation: the {pool + 50:,} items (N) are drawn from only {pool:,}" in out
    code, out, _ = _run([*base, "--budget", str(big), "--json"], capsys)
    assert code == 0 and json.loads(out)["extrapolated"] is True and json.loads(out)["n_qualifying"] == pool
    code, out, _ = _run([*base, "--budget", "50", "--json"], capsys)
    assert json.loads(out)["extrapolated"] is False


def test_the_text_grid_and_cells_explain_their_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """'p  Delta  CI-width  repro' came with no legend, and a cell's 'CI-width 0.2.' with no words."""
    code, out, _ = _run(["nk", "--prior", "Toxicity", "--grid", "--budgets", "100", "--ks", "1,5", "--metric", "acc"],
                        capsys)  # fmt: skip
    assert code == 0
    legend = out.strip().splitlines()[-1]
    assert legend.startswith("Columns: items (N) x ratings per item (K)")
    assert all(f"{w}:" in legend for w in ("p", "Delta", "CI-width", "repro"))
    code, out, _ = _run(["nk", "--prior", "Toxicity", "--budget", "100", "--k", "5", "--metric", "acc"], capsys)
    assert out.strip().splitlines()[-1].startswith("CI-width: the spread (2.5% to 97.5%) of the score gap")
