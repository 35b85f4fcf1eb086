"""Label counts as ratings: ratings_from_counts against the per-rating parser, agreement, prior fit, resampling."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from itertools import permutations
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore.cli import main
from nkcore.errors import DataError
from nkcore.nk.fit import fit_dirichlet
from nkcore.nk.frames import fit_prior_frame, ratings_of, resample_frames
from nkcore.nk.resample import draw_without_replacement
from nkcore.ratings import count_columns, ratings_from_counts, ratings_from_frame
from nkcore.summary.ratings import krippendorff_alpha

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
CHAOS = SHARED / "chaosnli"
CIFAR = SHARED / "cifar10h"


def _random_counts(rng: np.random.Generator, n_items: int, labels: list[str]) -> pd.DataFrame:
    counts = rng.integers(0, 6, size=(n_items, len(labels)))
    counts[counts.sum(axis=1) == 0, 0] = 1
    frame = pd.DataFrame(counts, columns=[f"count_{lab}" for lab in labels])
    frame.insert(0, "item", [f"q{i}" for i in rng.permutation(n_items)])
    return frame


def _expand(frame: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """One row per rating, by hand: item i's count_<label> copies of label; raters numbered within the item."""
    rows = []
    for _, row in frame.iterrows():
        r = 0
        for lab in labels:
            value = row[f"count_{lab}"]
            for _ in range(0 if pd.isna(value) else int(value)):
                rows.append((row["item"], f"r{r}", lab))
                r += 1
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_counts_equal_the_per_rating_parser(seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = ["10", "2", "b", "a"]  # natural order: 2, 10, a, b
    frame = _random_counts(rng, 40, labels)
    got = ratings_from_counts(frame)
    want = ratings_from_frame(_expand(frame, labels))
    assert got.items == want.items
    assert got.labels == want.labels == ("2", "10", "a", "b")
    assert np.array_equal(got.counts, want.counts)
    assert got.n_ratings == want.n_ratings == int(frame.filter(like="count_").to_numpy().sum())
    assert got.n_raters == want.n_raters  # the expansion numbers raters within an item: max K distinct ids
    assert got.from_counts and not want.from_counts


def test_empty_cells_are_zero_and_all_empty_columns_are_dropped() -> None:
    frame = pd.DataFrame(
        {
            "uid": ["a", "b", "c"],
            "count_e": [3, None, 1],
            "count_n": [0, 2, 1],
            "count_1": [None, None, None],
            "n_annotations": [3, 2, 2],
        }
    )
    r = ratings_from_counts(frame)
    assert r.labels == ("e", "n")
    assert r.counts.tolist() == [[3, 0], [0, 2], [1, 1]]


def test_columns_named_by_the_labels() -> None:
    frame = pd.DataFrame({"image_id": [7, 8], "cat": [4, 1], "dog": [0, 3], "total": [4, 4]})
    found = count_columns(frame)
    assert found is not None
    assert (found.item, found.labels, found.total) == ("image_id", {"cat": "cat", "dog": "dog"}, "total")
    assert ratings_from_counts(frame).counts.tolist() == [[4, 0], [1, 3]]
    # explicit columns, as a list (count_ prefix stripped) or a mapping
    assert ratings_from_counts(frame, "image_id", ["cat", "dog"]).labels == ("cat", "dog")
    assert ratings_from_counts(frame, "image_id", {"c": "cat", "d": "dog"}).labels == ("c", "d")


def test_not_counts() -> None:
    assert count_columns(pd.DataFrame({"item": [1], "rater": ["a"], "label": ["x"]})) is None
    assert count_columns(pd.DataFrame({"item": [1, 2], "count_x": ["a", "b"], "count_y": [1, 1]})) is None


@pytest.mark.parametrize("bad", [0.5, -1, float("inf")])
def test_a_bad_count_is_named_not_taken_for_another_kind(bad: float) -> None:
    """count_<label> columns are counts by their names: one fractional, negative or infinite value made the table
    unrecognised ('cannot use this file as predictions data: no column found for model'); now the row is named."""
    frame = pd.DataFrame({"item": [1, 2], "count_x": [bad, 1], "count_y": [1, 1]})
    assert count_columns(frame) is not None
    with pytest.raises(
        DataError, match=r"column count_x must hold whole numbers >= 0 \(label counts\); data row 1 does not"
    ):
        ratings_from_counts(frame)


def _mixed() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "subset": ["snli", "snli", "anli", "anli"],
            "uid": ["s1", "s2", "a1", "a2"],
            "count_e": [2, 0, None, None],
            "count_c": [1, 3, None, None],
            "count_1": [None, None, 2, 1],
            "count_2": [None, None, 1, 2],
        }
    )


def test_mixed_subsets_must_be_chosen() -> None:
    with pytest.raises(DataError, match=r"mixes 2 subsets in column 'subset' \(anli, snli\)"):
        ratings_from_counts(_mixed())
    snli = ratings_from_counts(_mixed(), subset="snli")
    assert (snli.items, snli.labels, snli.counts.tolist()) == (("s1", "s2"), ("c", "e"), [[1, 2], [3, 0]])
    anli = ratings_from_counts(_mixed(), subset="anli")
    assert (anli.labels, anli.counts.tolist()) == (("1", "2"), [[2, 1], [1, 2]])
    with pytest.raises(DataError, match="no rows of subset 'x'"):
        ratings_from_counts(_mixed(), subset="x")


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"item": [1, 2], "count_x": [1, -1], "count_y": [1, 1]}), "whole numbers >= 0"),
        (pd.DataFrame({"item": [1, 1], "count_x": [1, 2], "count_y": [1, 1]}), "more than one row"),
        (pd.DataFrame({"item": [1, 2], "count_x": [0, 2], "count_y": [0, 1]}), "no ratings"),
        (pd.DataFrame({"item": [1, 2], "count_x": [1, 2], "count_y": [1, 1], "n_annotations": [2, 4]}), "add up to 3"),
        (pd.DataFrame({"item": [1], "count_x": [1], "count_y": [1]}), "only one item"),
        (pd.DataFrame({"item": [1, 2], "label": ["x", "y"]}), "no label-count columns"),
        (pd.DataFrame({"item": [], "count_x": [], "count_y": []}), "no rows"),
    ],
)
def test_refusals(frame: pd.DataFrame, message: str) -> None:
    with pytest.raises(DataError, match=message):
        ratings_from_counts(frame)


def test_label_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_LABELS", "3")
    frame = pd.DataFrame({"item": [1, 2], **{f"count_{c}": [1, 1] for c in "abcd"}})
    with pytest.raises(DataError, match="NKP_MAX_LABELS"):
        ratings_from_counts(frame)


@pytest.mark.parametrize("seed", [0, 1])
def test_alpha_from_value_counts_equals_alpha_from_expanded_ratings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = ["x", "y", "z"]
    frame = _random_counts(rng, 30, labels)
    r = ratings_from_counts(frame)
    # oracle: reliability data (raters x items, NaN where a rater did not rate), one rater per rating position
    long = _expand(frame, labels)
    reliability = long.pivot(index="rater", columns="item", values="label").replace({"x": 0, "y": 1, "z": 2})
    want = krippendorff.alpha(reliability_data=reliability.to_numpy(dtype=float), level_of_measurement="nominal")
    assert krippendorff.alpha(value_counts=r.counts, level_of_measurement="nominal") == pytest.approx(want, abs=1e-12)
    assert krippendorff_alpha(r.counts) == pytest.approx(want, abs=1e-12)


def test_prior_fit_and_frames_read_counts() -> None:
    rng = np.random.default_rng(5)
    labels = ["a", "b", "c"]
    frame = _random_counts(rng, 60, labels)
    by_counts = fit_prior_frame(frame)
    by_rows = fit_prior_frame(_expand(frame, labels))
    assert by_counts.labels == by_rows.labels
    assert np.allclose(by_counts.fit.concentration, by_rows.fit.concentration)
    assert np.allclose(by_counts.fit.concentration, fit_dirichlet(ratings_of(frame).counts).concentration)


def test_resampling_k_without_replacement_small_k_exact() -> None:
    """K = 2 of the multiset {x, x, x, y, y, z}: the exact law by enumerating ordered pairs of distinct ratings."""
    multiset = ["x"] * 3 + ["y"] * 2 + ["z"]
    exact = Counter(
        tuple(sum(1 for i in pair if multiset[i] == lab) for lab in "xyz") for pair in permutations(range(6), 2)
    )
    total = sum(exact.values())
    r = ratings_from_counts(pd.DataFrame({"item": [1, 2], "count_x": [3, 1], "count_y": [2, 1], "count_z": [1, 1]}))
    draws = 40_000
    rows = np.repeat(r.counts[:1], draws, axis=0)
    got = draw_without_replacement(np.random.default_rng(0), rows, 2)
    assert (got <= rows).all() and (got.sum(axis=1) == 2).all()
    seen = Counter(map(tuple, got.tolist()))
    assert set(seen) <= set(exact)
    for outcome, ways in exact.items():
        p = ways / total
        sd = np.sqrt(p * (1 - p) / draws)
        assert abs(seen[outcome] / draws - p) < 5 * sd, outcome


def test_resampling_large_k_matches_the_hypergeometric() -> None:
    """K = 60 of 100 ratings (the chained-hypergeometric path): label x's count follows Hypergeometric(100, 30, 60)."""
    counts = np.array([[30, 50, 20]])
    draws = 40_000
    got = draw_without_replacement(np.random.default_rng(1), np.repeat(counts, draws, axis=0), 60)
    assert (got.sum(axis=1) == 60).all() and (got <= counts).all()
    law = stats.hypergeom(100, 30, 60)
    assert got[:, 0].mean() == pytest.approx(law.mean(), abs=5 * law.std() / np.sqrt(draws))
    for value in (16, 18, 20):
        p = law.pmf(value)
        assert abs(np.mean(got[:, 0] == value) - p) < 5 * np.sqrt(p * (1 - p) / draws)


def test_cli_data_reads_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "counts.csv.gz"
    path.write_bytes(gzip.compress(_mixed().to_csv(index=False).encode()))
    assert main(["data", str(path), "--json"]) == 2
    assert "choose one" in capsys.readouterr().err
    assert main(["data", str(path), "--subset", "anli", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["kind"], out["n_rows"], out["summary"]["n_items"], out["summary"]["n_ratings"]) == ("ratings", 2, 2, 6)
    assert out["mapping"] == {"item": "uid", "count_1": "count_1", "count_2": "count_2"}


def _jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


@pytest.mark.shared
def test_chaosnli_counts_equal_the_original_jsonl() -> None:
    frame = pd.read_csv(CHAOS / "label_counts.csv.gz")
    for subset, jsonl, labels in (
        ("snli", "chaosNLI_snli.jsonl.gz", ("e", "n", "c")),
        ("alphanli", "chaosNLI_alphanli.jsonl.gz", ("1", "2")),
    ):
        r = ratings_from_counts(frame, subset=subset)
        records = {rec["uid"]: rec["label_count"] for rec in _jsonl(CHAOS / jsonl)}
        assert len(r.items) == len(records)
        order = [r.labels.index(lab) for lab in labels]
        got = {item: r.counts[i, order].tolist() for i, item in enumerate(r.items)}
        assert got == records
        assert set(r.ratings_per_item.tolist()) == {100}


@pytest.mark.shared
def test_cifar10h_counts() -> None:
    r = ratings_from_counts(pd.read_csv(CIFAR / "label_counts.csv.gz"))
    assert (len(r.items), len(r.labels), r.n_ratings) == (10_000, 10, 511_000)
    k = r.ratings_per_item
    assert (int(k.min()), int(np.median(k)), int(k.max())) == (47, 51, 63)
    assert r.items[:3] == ("0", "1", "2")


def test_cli_data_per_rating_file_with_count_columns_stays_per_rating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.DataFrame(
        {"item": [1, 1, 2, 2], "rater": list("abab"), "label": list("xyxx"), "count_a": [1] * 4, "count_b": [2] * 4}
    )
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    assert main(["data", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["kind"], out["n_rows"], out["summary"]["n_ratings"]) == ("ratings", 4, 4)


def test_real_data_resampling_from_counts_equals_resampling_from_rows() -> None:
    """The same counts give the same resampled cells, whether the table is label counts or one row per rating."""
    rng = np.random.default_rng(11)
    labels = ["a", "b", "c"]
    frame = _random_counts(rng, 30, labels)
    frame[[f"count_{lab}" for lab in labels]] += 2  # every item has at least 3 ratings
    preds = pd.DataFrame(
        {
            "item": list(frame["item"]) * 2,
            "model": ["m1"] * 30 + ["m2"] * 30,
            "pred_label": [labels[i] for i in rng.integers(0, 3, 60)],
        }
    )
    by_counts, by_rows = (
        resample_frames(table, preds, "m1", "m2", budgets=(30,), ks=(1, 3), metrics=("acc",), rounds=30, seed=3)
        for table in (frame, _expand(frame, labels))
    )
    assert by_counts.n_items == by_rows.n_items == 30
    assert by_counts.full_gaps == by_rows.full_gaps
    assert len(by_counts.cells) == 2 and by_counts.cells == by_rows.cells
