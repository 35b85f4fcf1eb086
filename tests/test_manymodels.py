"""(N, K) for many models (nkcore.manymodels) against brute force: every item draw and every choice of K ratings of
each cell enumerated on a small cube gives the exact winner and order agreement, which the resampling estimate must
match within 4 Monte Carlo errors; the cube read from a long file against the case means ``rank`` uses; the CLI."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore.cli import main as cli_main
from nkcore.errors import DataError
from nkcore.manymodels.cube import cube_from_array, rating_cube
from nkcore.manymodels.reproduce import minimal_budget, reproducibility, reproducibility_grid
from nkcore.paired import parse_cases

# 3 items x 3 configs x up to 3 ratings (NaN: the cell holds fewer); the full winner is config 1 (B) by 5.6 points
CUBE = np.array(
    [
        [[1.0, 0.5, 1.0], [1.0, 1.0, np.nan], [0.0, 0.5, 0.5]],
        [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [1.0, 0.0, np.nan]],
        [[1.0, 1.0, 0.5], [0.5, 1.0, 1.0], [0.5, 0.5, 0.0]],
    ]
)


def _brute(values: np.ndarray, n: int, k: int) -> tuple[float, float]:
    """Exact (winner agreement, order agreement): every item sequence and every K-subset of every drawn cell."""
    full_n, m, _ = values.shape
    full = np.array([np.mean([np.nanmean(values[i, j]) for i in range(full_n)]) for j in range(m)])
    top_full = [j for j in range(m) if abs(full[j] - full.max()) <= 1e-12]
    win = order = 0.0
    seqs = list(itertools.product(range(full_n), repeat=n))
    for seq in seqs:  # each item sequence equally likely; within it, each choice of ratings equally likely
        seq_win = seq_order = combos = 0.0
        cells = [(i, j) for i in seq for j in range(m)]
        choices = []
        for i, j in cells:
            r = [v for v in values[i, j] if not math.isnan(v)]
            choices.append([float(np.mean(c)) for c in itertools.combinations(r, min(k, len(r)))])
        for pick in itertools.product(*choices):
            s = np.array(pick).reshape(n, m).mean(axis=0)
            top = [j for j in range(m) if abs(s[j] - s.max()) <= 1e-12]
            seq_win += len(set(top) & set(top_full)) / len(top) / len(top_full)
            ok = all(
                (s[a] - s[b] > 1e-12) if full[a] > full[b] else (s[b] - s[a] > 1e-12)
                for a, b in itertools.combinations(range(m), 2)
                if abs(full[a] - full[b]) > 1e-12
            )
            seq_order += ok
            combos += 1
        win += seq_win / combos / len(seqs)
        order += seq_order / combos / len(seqs)
    return win, order


@pytest.mark.parametrize(("n", "k"), [(2, 1), (2, 2), (3, 1), (1, 3)])
def test_agreement_matches_brute_force(n: int, k: int) -> None:
    exact_win, exact_order = _brute(CUBE, n, k)
    r = reproducibility(cube_from_array(CUBE), n, k, draws=20_000, seed=n * 10 + k)
    assert abs(r.p_winner - exact_win) < 4 * r.p_winner_error + 1e-9, (r.p_winner, exact_win)
    err = math.sqrt(exact_order * (1 - exact_order) / r.draws)
    assert abs(r.p_order - exact_order) < 4 * err + 1e-9, (r.p_order, exact_order)


# gold (3 ratings per item, one missing) and 3 models' predictions on 3 items
GOLD = np.array([[0.0, 0.5, 1.0], [0.25, 0.75, np.nan], [1.0, 1.0, 0.5]])
PRED = np.array([[0.5, 0.25, 0.75], [0.5, 0.5, 0.25], [0.75, 1.0, 0.5]])


def _brute_gold(n: int, k: int) -> tuple[float, float]:
    """Exact agreements of the predictions against K gold ratings: every item sequence, every K-subset of gold."""
    full_n, m = PRED.shape
    gm = np.array([np.nanmean(g) for g in GOLD])
    full = -np.abs(PRED - gm[:, None]).mean(axis=0)
    top_full = {j for j in range(m) if abs(full[j] - full.max()) <= 1e-12}
    win = order = 0.0
    seqs = list(itertools.product(range(full_n), repeat=n))
    for seq in seqs:
        subsets = [
            [
                float(np.mean(c))
                for c in itertools.combinations(
                    [v for v in GOLD[i] if v == v], min(k, 3 - int(np.isnan(GOLD[i]).sum()))
                )
            ]
            for i in seq
        ]
        sw = so = 0.0
        combos = list(itertools.product(*subsets))
        for means in combos:
            s = -np.mean([np.abs(PRED[i] - g) for i, g in zip(seq, means, strict=True)], axis=0)
            top = {j for j in range(m) if abs(s[j] - s.max()) <= 1e-12}
            sw += len(top & top_full) / len(top) / len(top_full)
            so += all(
                (s[a] - s[b] > 1e-12) if full[a] > full[b] else (s[b] - s[a] > 1e-12)
                for a, b in itertools.combinations(range(m), 2)
                if abs(full[a] - full[b]) > 1e-12
            )
        win += sw / len(combos) / len(seqs)
        order += so / len(combos) / len(seqs)
    return win, order


@pytest.mark.parametrize(("n", "k"), [(2, 1), (3, 2), (1, 1)])
def test_models_against_gold_match_brute_force(n: int, k: int) -> None:
    values = np.full((3, 4, 3), np.nan)
    values[:, 0, :] = GOLD
    values[:, 1:, 0] = PRED
    cube = cube_from_array(values, ["gold", "m1", "m2", "m3"])
    exact_win, exact_order = _brute_gold(n, k)
    r = reproducibility(cube, n, k, draws=20_000, seed=n + 7 * k, gold="gold")
    assert abs(r.p_winner - exact_win) < 4 * r.p_winner_error + 1e-9, (r.p_winner, exact_win)
    err = math.sqrt(exact_order * (1 - exact_order) / r.draws)
    assert abs(r.p_order - exact_order) < 4 * err + 1e-9, (r.p_order, exact_order)
    with pytest.raises(DataError, match="no config 'human'"):
        reproducibility(cube, n, k, draws=10, gold="human")


def test_cube_from_a_long_file_matches_the_case_means() -> None:
    rng = np.random.default_rng(2)
    rows = [
        (i, f"m{j}", r, float(rng.integers(0, 5)) / 4)
        for i in range(30)
        for j in range(4)
        for r in range(1, 2 + (i + j) % 3)
    ]
    df = pd.DataFrame(rows, columns=["case", "config", "repeat", "score"])
    cube = rating_cube(df)
    table = parse_cases(df)
    assert cube.configs == table.configs
    np.testing.assert_allclose(cube.full_scores(), table.means.mean(axis=0))
    assert cube.counts.tolist() == table.repeats.astype(int).tolist()


def test_grid_and_minimal_budget() -> None:
    cube = cube_from_array(CUBE)
    grid = reproducibility_grid(cube, [1, 2, 4, 8], [1, 3], draws=400, seed=1)
    assert [r.budget for r in grid] == sorted(r.budget for r in grid)
    for target in (0.5, 0.8, 0.99):
        best = minimal_budget(grid, target)
        passing = [r for r in grid if r.p_winner >= target]
        assert (best is None) == (not passing)
        if best is not None:
            assert best.budget == min(r.budget for r in passing)
    # one seed, one answer
    again = reproducibility_grid(cube, [1, 2, 4, 8], [1, 3], draws=400, seed=1)
    assert [r.p_winner for r in again] == [r.p_winner for r in grid]


def test_refusals() -> None:
    with pytest.raises(DataError, match="two configs"):
        cube_from_array(np.ones((3, 1, 2)))
    with pytest.raises(DataError, match="at least one rating"):
        cube_from_array(np.full((2, 2, 2), np.nan))
    with pytest.raises(DataError, match="ratings per item"):
        reproducibility(cube_from_array(CUBE), 2, 0)
    wide = pd.DataFrame({"case": [1, 2, 3], "A": [1, 0, 1], "B": [0, 0, 1]})
    with pytest.raises(DataError, match="one row per rating"):
        rating_cube(wide)


def test_cli_rank_nk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [(i, c, r, v) for i in range(3) for j, c in enumerate("ABC") for r, v in enumerate(CUBE[i, j], 1) if v == v]
    path = tmp_path / "ratings.csv"
    pd.DataFrame(rows, columns=["case", "config", "repeat", "score"]).to_csv(path, index=False)
    code = cli_main(
        ["rank", str(path), "--nk", "--nk-items", "2,3", "--nk-ratings", "1,2", "--nk-draws", "300", "--json"]
    )
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    for key in ("configs", "could_be_best", "winner", "verdict"):
        assert key in doc
    nk = doc["nk"]
    assert nk["full_winner"] == "ABC"[int(np.nanmean(CUBE, axis=2).mean(axis=0).argmax())] == "B"
    assert len(nk["grid"]) == 4
    assert {"items", "ratings_per_item", "budget", "p_winner", "p_order"} <= set(nk["grid"][0])
    assert cli_main(["rank", str(path), "--nk", "--nk-items", "two"]) == 2
    capsys.readouterr()
    code = cli_main(["rank", str(path), "--nk", "--nk-gold", "A", "--nk-items", "3", "--nk-draws", "200", "--json"])
    assert code == 0
    nk = json.loads(capsys.readouterr().out)["nk"]
    assert nk["gold"] == "A" and set(nk["full_scores"]) == {"B", "C"}
    assert [g["ratings_per_item"] for g in nk["grid"]] == [1, 2, 3]
    assert cli_main(["rank", str(path), "--nk", "--nk-gold", "Z"]) == 2


HANNA = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "datasets"
    / "hanna_story_eval"
    / "hanna_ratings_long.csv.gz"
)


@pytest.mark.shared
@pytest.mark.skipif(not HANNA.is_file(), reason="../shared/datasets is absent")
def test_hanna_cube_and_its_clear_winner() -> None:
    """HANNA Coherence: 96 prompts x 11 sources x 3 ratings; the cube's full scores are pandas' means of the
    rescaled ratings by source; Human (28 points ahead) is the winner of every resampled study of 96 x 3."""
    h = pd.read_csv(HANNA)
    h = h[h["criterion"] == "Coherence"]
    long = pd.concat(
        [
            pd.DataFrame(
                {"case": h["prompt_index"], "config": h["system"], "repeat": k, "score": (h[f"human_{k}"] - 1) / 4}
            )
            for k in (1, 2, 3)
        ]
    )
    cube = rating_cube(long)
    assert cube.values.shape == (96, 11, 3)
    want = long.groupby("config")["score"].mean()
    np.testing.assert_allclose(cube.full_scores(), want[list(cube.configs)].to_numpy())
    r = reproducibility(cube, 96, 3, draws=200, seed=0)
    assert r.p_winner == 1.0
