"""The real-data resampler on small synthetic sets whose answer is known exactly."""

from __future__ import annotations

from itertools import product
from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, hypergeom, ttest_1samp

from nkcore.errors import DataError
from nkcore.nk.frames import model_names, resample_frames
from nkcore.nk.grid import Config
from nkcore.nk.resample import (
    _paired_significant,
    draw_without_replacement,
    full_gaps,
    prepare_pair,
    qualifying_items,
    resample_cells,
)


def test_without_replacement_small_k_exact_law() -> None:
    rng = np.random.default_rng(0)
    counts = np.tile([3, 2], (60000, 1))
    got = draw_without_replacement(rng, counts, 2)
    freq = np.bincount(got[:, 0], minlength=3) / got.shape[0]
    exact = np.array([comb(2, 2) * comb(3, 0), comb(2, 1) * comb(3, 1), comb(3, 2)]) / comb(5, 2)  # c0 = 0, 1, 2
    np.testing.assert_allclose(freq, exact, atol=0.01)
    assert np.all(got.sum(axis=1) == 2) and np.all(got <= counts)


def test_without_replacement_large_k_hypergeometric_chain() -> None:
    rng = np.random.default_rng(1)
    counts = np.tile([30, 20, 10], (40000, 1))
    got = draw_without_replacement(rng, counts, 45)  # K > 40: the hypergeometric chain
    assert np.all(got.sum(axis=1) == 45) and np.all(got <= counts)
    law = hypergeom(60, 30, 45)  # category 0: 30 of the 60 ratings
    assert got[:, 0].mean() == pytest.approx(law.mean(), abs=0.05)
    assert got[:, 0].var() == pytest.approx(law.var(), rel=0.05)
    # the whole item: every rating taken when K = all
    np.testing.assert_array_equal(draw_without_replacement(rng, counts[:5], 60), counts[:5])


def _unanimous_pair() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """10 unanimous items (5 ratings each); A right on items 0-7, B right on items 0-2 and 8-9 (wrong elsewhere)."""
    gold = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1])
    counts = np.zeros((10, 2), dtype=int)
    counts[np.arange(10), gold] = 5
    a = gold.copy()
    a[8:] = 1 - gold[8:]
    b = gold.copy()
    b[3:8] = 1 - gold[3:8]
    return counts, a, b


def test_known_answer_reproducibility_and_significance() -> None:
    counts, a, b = _unanimous_pair()
    # per item d = 1[A right] - 1[B right]: +1 on 3..7 (5 items), -1 on 8..9 (2 items), 0 on 0..2 (3 items)
    d_values, d_probs = np.array([1, -1, 0]), np.array([0.5, 0.2, 0.3])
    n = 4
    p_ahead = p_sig = 0.0
    for combo in product(range(3), repeat=n):  # exact law of a round: N = 4 items drawn with replacement
        pr = np.prod(d_probs[list(combo)])
        d = d_values[list(combo)]
        if d.sum() > 0:
            p_ahead += pr
        plus, minus = int((d > 0).sum()), int((d < 0).sum())
        if plus + minus and plus > minus and binomtest(plus, plus + minus).pvalue < 0.05:
            p_sig += pr
    data = prepare_pair(counts, a, b)
    assert full_gaps(data, ["acc"])["acc"] == pytest.approx(0.3)
    rounds = 4000
    (cell,) = resample_cells(data, [Config(12, 3, n)], ["acc"], rounds=rounds, seed=1)
    se = np.sqrt(p_ahead * (1 - p_ahead) / rounds)
    assert cell.direction == 1 and cell.n_qualifying == 10
    assert abs(cell.reproducibility - p_ahead) < 4 * se
    assert abs(cell.significant_share - p_sig) < 4 * np.sqrt(p_sig * (1 - p_sig) / rounds) + 1e-9
    assert cell.mean_gap == pytest.approx(0.3, abs=4 * 0.8 / np.sqrt(n * rounds))
    # under the swap null the gap is symmetric around 0
    assert abs(np.mean(cell.null)) < 4 * np.std(cell.null) / np.sqrt(rounds)


def test_identical_models_give_p_one_and_no_direction() -> None:
    counts, a, _ = _unanimous_pair()
    data = prepare_pair(counts, a, a)
    cells = resample_cells(data, [Config(20, 2, 10)], ["acc", "tv", "kl"], rounds=50, seed=0)
    for c in cells:
        assert c.direction == 0 and c.p == 1.0 and c.significant_share == 0.0
        assert np.all(c.alt == 0)


def test_paired_tests_match_scipy() -> None:
    rng = np.random.default_rng(4)
    d = rng.normal(0.1, 1.0, size=(30, 25))
    sig = _paired_significant(d, "tv", +1, 0.05)
    expected = [(ttest_1samp(row, 0.0).pvalue < 0.05) and row.mean() > 0 for row in d]
    np.testing.assert_array_equal(sig, expected)
    s = rng.choice([-1.0, 0.0, 1.0], p=[0.2, 0.3, 0.5], size=(30, 25))
    sig = _paired_significant(s, "acc", +1, 0.05)
    exp = []
    for row in s:
        plus, minus = int((row > 0).sum()), int((row < 0).sum())
        exp.append(plus > minus and binomtest(plus, plus + minus).pvalue < 0.05)
    np.testing.assert_array_equal(sig, exp)


def test_k_capped_by_items_ratings_and_qualifying_count() -> None:
    counts = np.array([[3, 1], [1, 0], [5, 5], [2, 2]])
    assert qualifying_items(counts, [1, 4, 10, 11]) == {1: 4, 4: 3, 10: 1, 11: 0}
    data = prepare_pair(counts, np.array([0, 0, 1, 0]), np.array([1, 0, 0, 1]))
    cells = resample_cells(data, [Config(40, 4, 10), Config(40, 11, 3)], ["acc"], rounds=20, seed=0)
    assert [(c.k, c.n_qualifying) for c in cells] == [(4, 3)]  # K = 11: no item qualifies, cell left out


def test_probabilities_used_for_distribution_metrics() -> None:
    counts = np.array([[8, 2], [5, 5], [1, 9]])
    pa = counts / 10.0  # A predicts the raters' shares exactly
    pb = np.array([[0.5, 0.5]] * 3)
    data = prepare_pair(counts, probs_a=pa, probs_b=pb)
    assert data.is_prob
    g = full_gaps(data, ["tv", "ce", "acc"])
    assert g["tv"] == pytest.approx(np.mean(np.abs(pb - pa)))  # A's TV is 0
    assert g["ce"] > 0


def test_reproducible_with_seed_and_workers() -> None:
    counts, a, b = _unanimous_pair()
    data = prepare_pair(counts, a, b)
    one = resample_cells(data, [Config(30, 3, 10)], ["acc", "tv"], rounds=100, seed=3, workers=1)
    two = resample_cells(data, [Config(30, 3, 10)], ["acc", "tv"], rounds=100, seed=3, workers=2)
    for x, y in zip(one, two, strict=True):
        np.testing.assert_array_equal(x.alt, y.alt)
        np.testing.assert_array_equal(x.null, y.null)


def test_bad_inputs_raise() -> None:
    counts, a, b = _unanimous_pair()
    with pytest.raises(DataError, match="one entry per item"):
        prepare_pair(counts, a[:5], b)
    with pytest.raises(DataError, match="label codes"):
        prepare_pair(counts, a + 5, b)
    with pytest.raises(DataError, match="hard labels or probabilities"):
        prepare_pair(counts, a, None)


def test_frames_entry_point_on_tiny_tables() -> None:
    ratings = pd.DataFrame(
        [(f"i{i}", f"r{j}", "yes" if (i + j) % 3 else "no") for i in range(30) for j in range(6)],
        columns=["item", "rater", "label"],
    )
    preds = pd.DataFrame(
        [(f"i{i}", m, "yes" if (m == "good" or i % 2) else "no") for i in range(30) for m in ("good", "bad")],
        columns=["item", "model", "pred_label"],
    )
    assert model_names(preds) == ("good", "bad")
    run = resample_frames(ratings, preds, "good", "bad", budgets=(60,), ks=(1, 3, 10), metrics="acc", rounds=30)
    assert run.skipped_k == (10,) and run.qualifying[3] == 30 and not run.uses_probabilities
    assert {c.k for c in run.cells} == {1, 3}
    with pytest.raises(DataError, match="not in the predictions"):
        resample_frames(ratings, preds, "good", "nope")
