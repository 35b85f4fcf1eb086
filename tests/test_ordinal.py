"""Ordinal metrics against scipy and by hand; binning; the MAE check of Homan et al. on planted models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore.errors import DataError
from nkcore.nk.ordinal import (
    bin_frames,
    homan_check,
    is_ordinal_frame,
    item_means,
    label_values,
    ordinal_frames,
    ordinal_scores,
    scale_values,
    spearman,
    wasserstein_items,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def test_wasserstein_matches_scipy_on_random_inputs() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        m = int(rng.integers(3, 8))
        values = np.sort(rng.choice(np.arange(-20, 21), m, replace=False)).astype(float)
        counts = rng.integers(0, 6, (4, m))
        counts[:, 0] += 1
        dist = rng.dirichlet(np.ones(m), 4)
        got = wasserstein_items(counts, dist, values)
        for i in range(4):
            assert got[i] == pytest.approx(stats.wasserstein_distance(values, values, counts[i], dist[i]), abs=1e-12)


def test_spearman_matches_scipy_with_ties() -> None:
    rng = np.random.default_rng(1)
    for _ in range(30):
        x = rng.integers(0, 5, 40).astype(float)  # many ties
        y = x + rng.normal(0, 2, 40)
        assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_mae_and_scores_by_hand() -> None:
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    counts = np.array([[2, 1, 0, 0, 1], [0, 0, 3, 0, 0], [0, 1, 1, 1, 1]])
    probs = np.array([[0.5, 0.5, 0, 0, 0], [0, 0, 0, 1.0, 0], [0.2, 0.2, 0.2, 0.2, 0.2]])
    human = [(2 * 1 + 2 + 5) / 4, 3.0, (2 + 3 + 4 + 5) / 4]
    model = [1.5, 4.0, 3.0]
    assert item_means(counts, values).tolist() == human
    s = ordinal_scores("m", counts, probs, values)
    assert s.mae == pytest.approx(np.mean([abs(a - h) for a, h in zip(model, human, strict=True)]))
    assert s.spearman == pytest.approx(stats.spearmanr(human, model).statistic)
    assert s.n_items == 3


def test_label_values_need_three_numbers() -> None:
    assert label_values(["1", "2", "3"]) is not None
    assert label_values(["0", "1"]) is None
    assert label_values(["low", "mid", "high"]) is None


def test_binning_states_the_bins_and_adds_up_probabilities() -> None:
    scale = np.arange(-50, 51, 5)  # 21 values: binned
    ratings = pd.DataFrame({"item": np.repeat([1, 2, 3], 7), "rater": list("abcdefg") * 3, "label": scale})
    preds = pd.DataFrame({"item": [1, 2, 3], "model": "m", "pred_label": [-50, 0, 50]})
    for v in scale:
        preds[f"p_{v}"] = 1.0 / scale.size
    br, bp, b = bin_frames(ratings, preds)
    assert b is not None and b.names == ("-40", "-20", "0", "20", "40")
    assert "-40 = [-50, -30)" in b.text and "40 = [30, 50]" in b.text
    expected = np.select([scale < -30, scale < -10, scale < 10, scale < 30], ["-40", "-20", "0", "20"], "40")
    assert br["label"].tolist() == expected.tolist()
    assert bp is not None and bp["pred_label"].tolist() == ["-40", "0", "40"]
    for name in b.names:
        assert bp[f"p_{name}"].iloc[0] == pytest.approx(np.sum(expected == name) / scale.size)
    small = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "label": [1, 5]})
    assert bin_frames(small)[2] is None


def _likert(seed: int, n: int = 1500, k: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    mu = rng.uniform(1.5, 4.5, n)
    ratings = np.clip(np.rint(mu[:, None] + rng.normal(0, 1.0, (n, k))), 1, 5).astype(int)
    counts = np.stack([(ratings == v).sum(axis=1) for v in range(1, 6)], axis=1)
    return counts, mu, np.arange(1.0, 6.0)


def test_check_finds_small_k_when_one_model_is_far_better() -> None:
    counts, _mu, values = _likert(2)
    close = item_means(counts, values)  # model A: the raters' own means
    far = close + 1.0  # model B: one point off everywhere
    c = homan_check(counts, values, close, far, n=1000, ks=(1, 2, 3), rounds=200, seed=0)
    assert c.smallest_k == 1 and c.holds is False
    assert c.full_gap == pytest.approx(1.0)
    assert "does not hold" in c.sentence and "1 rating per item" in c.sentence


def test_check_finds_nothing_for_identical_models_and_says_the_data_stop_short() -> None:
    counts, mu, values = _likert(3)
    same = np.full(mu.size, 3.0)
    c = homan_check(counts, values, same, same, n=1000, ks=(1, 4, 8, 30), rounds=100, seed=0)
    assert c.smallest_k is None and c.holds is None
    assert sorted(c.p_by_k) == [1, 4, 8]  # no item has 30 ratings
    assert all(p == 1.0 for p in c.p_by_k.values())  # every gap is exactly 0: ties count against
    assert "cannot test beyond K = 8" in c.sentence


def test_ordinal_frames_refuse_unordered_labels() -> None:
    frame = pd.DataFrame({"item": [1, 1, 2], "rater": list("aba"), "label": ["x", "y", "z"]})
    with pytest.raises(DataError, match="ordered numeric labels"):
        ordinal_frames(frame)


@pytest.mark.shared
def test_popquorn_scores_against_pandas() -> None:
    folder = SHARED / "popquorn_offensiveness"
    if not folder.exists():
        pytest.skip("../shared/datasets is absent")
    raw = pd.read_csv(folder / "annotations_long.csv.gz", dtype={"item_id": str, "annotator_id": str})
    ratings = raw.rename(columns={"item_id": "item", "annotator_id": "rater"})
    preds = pd.read_csv(folder / "predictions_generated_here_5fold_oof.csv.gz", dtype={"item_id": str})
    preds = preds.rename(columns={"item_id": "item"}).drop(columns=["cv_fold"])
    run = ordinal_frames(ratings, preds, "tfidf_char_lr", "prior", rounds=50)
    assert run.labels == ("1", "2", "3", "4", "5") and run.binning is None
    human = ratings.groupby("item")["label"].mean()
    p = preds[preds["model"] == "tfidf_char_lr"].set_index("item")
    model = sum(v * p[f"p_{v}"] for v in range(1, 6)) / p[[f"p_{v}" for v in range(1, 6)]].sum(axis=1)
    model = model.reindex(human.index)
    score = {s.model: s for s in run.scores}["tfidf_char_lr"]
    assert score.mae == pytest.approx(float((model - human).abs().mean()), rel=1e-9)
    assert score.spearman == pytest.approx(stats.spearmanr(human, model).statistic, rel=1e-9)
    assert run.check is not None and run.check.sentence == run.sentence


def test_binning_ignores_float_artefacts_at_the_ends_and_never_names_a_bin_minus_zero():
    """Pavlick's slider stores -50.0001 / 50.0001: the scale is still -50..50 (edges every 20), the middle bin '0'."""
    from nkcore.nk.ordinal import _binning

    b = _binning(np.array([-50.0001, -3.0, 0.0, 7.5, 50.0001]), 5)
    assert b.edges == (-50.0, -30.0, -10.0, 10.0, 30.0, 50.0)
    assert b.names == ("-40", "-20", "0", "20", "40")
    b7 = _binning(np.array([-51.0, 51.0]), 3)  # a midpoint at -0.0 exactly
    assert "-0" not in b7.names and "0" in b7.names


def test_label_counts_are_returned_unbinned():
    """A label-count table (item + count_<label>) has no label column: bin_frames leaves it as it is."""
    counts = pd.DataFrame({"item": ["a", "b"], "count_1": [2, 0], "count_5": [1, 3]})
    out, pred, binning = bin_frames(counts)
    assert out is counts and pred is None and binning is None


def test_check_scopes_its_verdict_to_the_pair_and_gives_the_p_its_simulation_error() -> None:
    """The verdict rested on one pair and a p from a few hundred rounds: it now names the pair's MAEs, scopes the
    claim to it, and gives p's Monte Carlo standard error, which matches the spread of p over seeds."""
    counts, _mu, values = _likert(4)
    close = item_means(counts, values)
    near = close + 0.08
    checks = [homan_check(counts, values, close, near, n=300, ks=(2,), rounds=200, seed=s) for s in range(40)]
    c = checks[0]
    assert "for this pair" in c.sentence or "cannot test" in c.sentence or "holds" in c.sentence
    assert c.mae_b - c.mae_a == pytest.approx(c.full_gap)
    errors = [x.p_error_by_k[2] for x in checks]
    spread = float(np.std([x.p_by_k[2] for x in checks], ddof=1))
    assert 0.7 * spread < float(np.mean(errors)) < 1.4 * spread  # 40 seeds: the spread itself is known to ~11%
    far = homan_check(counts, values, close, close + 1.0, n=1000, ks=(1,), rounds=200, seed=0)
    assert "for this pair" in far.sentence and f"+/- {far.p_error_by_k[1]:.3f}" in far.sentence
    assert f"MAE {far.mae_a:.2f} for 'A' and {far.mae_b:.2f} for 'B'" in far.sentence


LABEL_COLUMNS = [
    [1, 2, 3],
    ["1", " 2", "3 ", "x"],
    [1.0, np.nan, 2, 3],
    ["a", "b", "c"],
    [1, "1", 2, 3.0],
    [True, False, 1],
    [True, False, 0, 1, 2],
    [np.inf, 1, 2, 3],
    ["1e3", "5", "7"],
    [None, 1, 2, 3],
    [1, 2, 3, "1.0"],
    [np.nan],
    [],
]


@pytest.mark.parametrize("labels", LABEL_COLUMNS, ids=range(len(LABEL_COLUMNS)))
def test_scale_read_per_distinct_label_equals_reading_every_rating(labels: list[object]) -> None:
    """is_ordinal_frame and scale_values read each distinct label once; the oracle reads every rating's text."""
    frames = [pd.DataFrame({"label": pd.Series(labels * 3, dtype=object)})]
    if labels and all(isinstance(v, str) for v in labels):
        frames += [
            pd.DataFrame({"label": pd.Series(labels, dtype="string")}),
            pd.DataFrame({"label": pd.Categorical(labels)}),
        ]
    for frame in frames:
        every = pd.to_numeric(frame["label"].astype(str).str.strip(), errors="coerce").to_numpy(dtype=float)
        rated = pd.to_numeric(frame["label"].dropna().astype(str).str.strip(), errors="coerce").to_numpy(dtype=float)
        ordered = rated.size > 0 and bool(np.all(np.isfinite(rated))) and np.unique(rated).size >= 3
        assert is_ordinal_frame(frame) == ordered
        assert scale_values(frame).tolist() == np.unique(every[np.isfinite(every)]).tolist()
