"""Per-rater summary: leave-one-rater-out alpha against the krippendorff package, agreement by brute force."""

from __future__ import annotations

from collections import Counter

import krippendorff
import numpy as np
import pandas as pd
import pytest

from nkcore.errors import DataError
from nkcore.ratings.raters import rater_ratings
from nkcore.summary.raters import (
    alpha_from_parts,
    alpha_parts,
    leave_one_out_agreement,
    leave_one_rater_out_alpha,
    raters_frame,
    summarize_raters,
)


def _crowd(seed: int, n_items: int = 80, n_raters: int = 12, m: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A sparse crowd: 1 to 5 raters per item (so some items have 1 or 2 ratings), two raters biased to label 0."""
    rng = np.random.default_rng(seed)
    items, raters, labels = [], [], []
    for i in range(n_items):
        truth = rng.integers(0, m)
        for r in rng.choice(n_raters, int(rng.integers(1, 6)), replace=False):
            lab = 0 if (r < 2 and rng.random() < 0.8) else (truth if rng.random() < 0.7 else rng.integers(0, m))
            items.append(i)
            raters.append(int(r))
            labels.append(int(lab))
    return np.array(items), np.array(raters), np.array(labels)


def _package_alpha(items: np.ndarray, raters: np.ndarray, labels: np.ndarray, n_raters: int, n_items: int) -> float:
    """krippendorff.alpha on the raters x items reliability matrix (NaN = not rated): an independent path."""
    data = np.full((n_raters, n_items), np.nan)
    data[raters, items] = labels
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_leave_one_rater_out_alpha_matches_the_package_on_reduced_data(seed: int) -> None:
    items, raters, labels = _crowd(seed)
    rr = rater_ratings(items, raters, labels, 80, 3)
    loo = leave_one_rater_out_alpha(rr)
    n_c, d = alpha_parts(rr.ratings.counts)
    assert float(alpha_from_parts(n_c, d)) == pytest.approx(_package_alpha(items, raters, labels, 12, 80), abs=1e-12)
    for r in (0, 1, 5, 11):
        keep = raters != r
        expected = _package_alpha(items[keep], raters[keep], labels[keep], 12, 80)
        assert loo[r] == pytest.approx(expected, abs=1e-12), r


def test_agreement_with_the_other_ratings_by_brute_force() -> None:
    items, raters, labels = _crowd(4)
    rr = rater_ratings(items, raters, labels, 80, 3)
    agree, ok = leave_one_out_agreement(rr)
    for j in range(items.size):
        others = Counter(int(labels[x]) for x in np.flatnonzero(items == items[j]) if x != j)
        if not others:
            assert not ok[j]
            continue
        top = max(others.values())
        tied = [lab for lab, c in others.items() if c == top]
        assert ok[j] and agree[j] == pytest.approx((labels[j] in tied) / len(tied))


def test_summary_counts_and_order_against_pandas() -> None:
    items, raters, labels = _crowd(7)
    frame = pd.DataFrame({"item": items, "rater": [f"r{r:02d}" for r in raters], "label": labels})
    s = raters_frame(frame, top=4)
    per = frame.groupby("rater").size()
    assert s.n_raters == per.size and s.n_ratings == len(frame)
    assert {row.rater: row.ratings for row in s.raters} == per.to_dict()
    assert [row.ratings for row in s.raters] == sorted(per.tolist(), reverse=True)
    changes = sorted((abs(row.alpha_change) for row in s.raters), reverse=True)
    assert [abs(row.alpha_change) for row in s.top_changers] == pytest.approx(changes[:4])
    top = s.top_changers[0]
    assert top.alpha_change == pytest.approx(top.alpha_without - s.alpha)
    assert s.ratings_per_rater == (int(per.min()), float(per.median()), int(per.max()))
    assert "Krippendorff's" in s.sentence and "alpha the most" in s.sentence and repr(top.rater) in s.sentence


def test_planted_biased_raters_agree_least_and_move_alpha() -> None:
    items, raters, labels = _crowd(11, n_items=400)
    s = summarize_raters(rater_ratings(items, raters, labels, 400, 3), top=3)
    worst = sorted(s.raters, key=lambda row: row.agreement)[:2]
    assert {row.rater for row in worst} == {"0", "1"}
    assert {row.rater for row in s.top_changers[:2]} == {"0", "1"}
    assert all(row.alpha_change > 0 for row in s.top_changers[:2])


def test_counts_table_is_refused() -> None:
    with pytest.raises(DataError, match="no rater column"):
        raters_frame(pd.DataFrame({"item": [1, 2], "count_x": [1, 2], "count_y": [2, 0]}))


def test_cli_json_keys_and_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from nkcore.cli import main
    from tests.conftest import ROOT

    ratings, preds = ROOT / "sample_data" / "ratings.csv", ROOT / "sample_data" / "predictions.csv"
    args = ["raters", "--ratings", str(ratings), "--predictions", str(preds), "--models", "model-a,model-c"]
    code = main([*args, "--crossed", "--budgets", "500", "--ks", "1,5", "--rounds", "50", "--top", "3", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    frame = pd.read_csv(ratings)
    r = out["raters"]
    assert r["n_raters"] == frame["rater"].nunique() and r["n_ratings"] == len(frame)
    assert len(r["top_alpha_changers"]) == 3 and len(r["per_rater"]) == r["n_raters"]
    assert set(r["per_rater"][0]) == {"rater", "ratings", "scored", "agreement", "alpha_without", "alpha_change"}
    assert r["alpha"] == pytest.approx(raters_frame(frame).alpha)
    c = out["crossed"]
    assert c["models"] == ["model-a", "model-c"] and [(x["budget"], x["k"]) for x in c["cells"]] == [(500, 1), (500, 5)]
    for key in ("p", "delta", "ci_width", "item_p", "item_ci_width", "ci_width_ratio", "short_share"):
        assert key in c["cells"][0]
    assert "ordinal" not in out
    assert main(["raters", "--ratings", str(ratings), "--crossed"]) == 2
    assert "--crossed needs --predictions" in capsys.readouterr().err
    assert main([*args[:3], "--ordinal"]) == 2  # safe / unsure / unsafe are not numbers
    assert "ordered numeric labels" in capsys.readouterr().err
    # predictions that nothing reads, and --top 0, were accepted silently (and dropped the headline)
    assert main(args) == 2 and "--predictions is read by --crossed" in capsys.readouterr().err
    assert main([*args[:3], "--top", "0"]) == 2 and "--top must be at least 1" in capsys.readouterr().err


def test_cli_subset_reads_one_dataset_of_a_file_as_data_does(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two datasets in one file sharing item and rater ids: whole, every (item, rater) repeats and is refused; with
    --subset the summary is raters_frame's on that dataset's rows, cut by pandas."""
    import json
    from pathlib import Path

    from nkcore.cli import main

    items, raters, labels = _crowd(3, n_items=30, n_raters=6)
    one = pd.DataFrame({"item": items, "rater": raters, "label": labels})
    two = one.assign(label=(one["label"] + 1) % 3)
    frame = pd.concat([one.assign(dataset="a"), two.assign(dataset="b")], ignore_index=True)
    path = Path(str(tmp_path)) / "two.csv"
    frame.to_csv(path, index=False)
    assert main(["raters", "--ratings", str(path), "--json"]) == 2
    assert "repeat" in capsys.readouterr().err.lower()
    assert main(["raters", "--ratings", str(path), "--subset", "dataset=b", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["raters"]
    want = raters_frame(frame[frame["dataset"] == "b"][["item", "rater", "label"]].astype(str))
    assert got["n_ratings"] == len(two) and got["n_raters"] == want.n_raters
    assert got["alpha"] == pytest.approx(want.scale_alpha) and got["agreement"] == pytest.approx(want.agreement)
    assert (got["alpha_level"], got["alpha_nominal"]) == (want.scale_level, pytest.approx(want.alpha))
    assert main(["raters", "--ratings", str(path), "--keep", "last", "--json"]) == 0  # the last of each: dataset b
    assert json.loads(capsys.readouterr().out)["raters"]["alpha"] == pytest.approx(want.scale_alpha)


def test_cli_ordinal_bins_a_scale_wider_than_the_label_limit(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 items x 5 raters on a 0-100 scale (101 values, over the limit of 100 labels): refused before, although
    --bins is there to bin it. Binned first, the raters' agreement is raters_frame's on the binned labels (pandas
    cut by hand: 5 equal bins of 20)."""
    import json
    from pathlib import Path

    from nkcore.cli import main

    rng = np.random.default_rng(3)
    base = rng.integers(0, 101, 200)
    rows = [(i, f"r{r}", int(np.clip(base[i] + rng.integers(-8, 9), 0, 100))) for i in range(200) for r in range(5)]
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    frame.loc[0, "label"], frame.loc[1, "label"] = 0, 100  # every value 0..100 may occur: the range is fixed
    frame.loc[2:102, "label"] = np.arange(101)  # 101 distinct labels
    path = Path(str(tmp_path)) / "wide.csv"
    frame.to_csv(path, index=False)
    assert main(["raters", "--ratings", str(path), "--json"]) == 2  # without --ordinal: the label limit
    capsys.readouterr()
    assert main(["raters", "--ratings", str(path), "--ordinal", "--bins", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ordinal"]["labels"] == ["10", "30", "50", "70", "90"] and "5 equal bins" in out["ordinal"]["bins"]
    binned = frame.assign(label=(np.minimum(frame["label"] // 20, 4) * 20 + 10).astype(str))
    assert out["raters"]["alpha"] == pytest.approx(raters_frame(binned).scale_alpha)
    assert out["raters"]["alpha_nominal"] == pytest.approx(raters_frame(binned).alpha)


def test_raters_report_the_alpha_the_scale_calls_for_and_name_its_level() -> None:
    """1-5 labels: the headline alpha is ordinal (Krippendorff 2011's example: 0.815; the nominal 0.743 is what the
    leave-one-rater-out changes are measured on, and is named so)."""
    from nkcore.summary.raters import raters_frame
    from tests.test_summary import _k2011_long

    s = raters_frame(_k2011_long())
    assert (s.scale_level, round(s.scale_alpha, 3), round(s.alpha, 3)) == ("ordinal", 0.815, 0.743)
    assert "Krippendorff's nominal alpha" in s.sentence and "the ordinal alpha is the one to read: 0.815" in s.sentence
