"""nkcore.summary: Krippendorff's alpha (textbook, brute force, package), tied pluralities, per-kind summaries of
the objects each kind's one parser produces."""

from __future__ import annotations

import math
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nkcore import paired, voting
from nkcore.errors import DataError
from nkcore.io import read_table
from nkcore.kinds import apply_mapping, detect_kind
from nkcore.ratings import ratings_from_frame
from nkcore.summary import (
    PairedSummary,
    RatingsSummary,
    SamplesSummary,
    agreement_sentence,
    krippendorff_alpha,
    summarize,
    summarize_paired,
    summarize_predictions,
    summarize_ratings,
    summarize_ratings_frame,
    summarize_samples,
    tied_plurality,
    validate_and_summarize,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def _paired(frame: pd.DataFrame) -> PairedSummary:
    return summarize_paired(paired.parse_paired(frame))


def _samples(frame: pd.DataFrame) -> SamplesSummary:
    return summarize_samples(voting.parse_samples(frame))


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12 units,
# nominal alpha = 0.743. Rows are observers A..D, columns units 1..12, None = not coded.
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def _k2011_long() -> pd.DataFrame:
    rows = [
        (f"unit{u + 1}", obs, v)
        for obs, values in zip("ABCD", K2011, strict=True)
        for u, v in enumerate(values)
        if v is not None
    ]
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def _alpha_brute_force(counts: np.ndarray) -> float:
    """Nominal alpha from the coincidence matrix, summing over ordered pairs of ratings within each unit."""
    m = counts.shape[1]
    o = np.zeros((m, m))
    for row in counts:
        mu = row.sum()
        if mu < 2:
            continue
        values = np.repeat(np.arange(m), row)
        for a in range(mu):
            for b in range(mu):
                if a != b:
                    o[values[a], values[b]] += 1.0 / (mu - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d_o = (o.sum() - np.trace(o)) / n
    d_e = (n * n - (n_c**2).sum()) / (n * (n - 1))
    return 1.0 - d_o / d_e


def test_krippendorff_2011_textbook_value() -> None:
    r = ratings_from_frame(_k2011_long())
    assert r.labels == ("1", "2", "3", "4", "5")
    assert round(krippendorff_alpha(r.counts), 3) == 0.743
    # the labels are the numbers 1-5, an ordered scale: the summary reports the ordinal alpha, the textbook's 0.815
    # (Krippendorff 2011, section E; interval 0.849), and names its level
    values = np.arange(1.0, 6.0)
    assert round(krippendorff_alpha(r.counts, "ordinal", values), 3) == 0.815
    assert round(krippendorff_alpha(r.counts, "interval", values), 3) == 0.849
    s = summarize_ratings(r)
    assert (s.alpha_level, round(s.alpha, 3)) == ("ordinal", 0.815)
    assert any(x.label == "agreement (Krippendorff's alpha, ordinal)" for x in s.numbers)
    assert _alpha_brute_force(r.counts) == pytest.approx(0.743421, abs=1e-6)
    # the same number from the package's own reliability-data interface
    data = np.array([[np.nan if v is None else v for v in row] for row in K2011], dtype=float)
    assert krippendorff.alpha(data, level_of_measurement="nominal") == pytest.approx(krippendorff_alpha(r.counts))


@settings(max_examples=40, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(2, 8), st.integers(2, 4)), elements=st.integers(0, 4)))
def test_alpha_matches_brute_force(counts: np.ndarray) -> None:
    pairable = counts[counts.sum(axis=1) >= 2]
    value = krippendorff_alpha(counts)
    if len(pairable) == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        assert math.isnan(value)
    else:
        assert value == pytest.approx(_alpha_brute_force(counts), abs=1e-9)


def test_alpha_limits() -> None:
    assert krippendorff_alpha(np.array([[3, 0], [0, 3], [2, 0]])) == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha(np.array([[1, 0], [0, 1]])))  # no item with two ratings
    assert "Raters agree well" in agreement_sentence(0.9)
    assert "tentative" in agreement_sentence(0.7)
    assert "disagree" in agreement_sentence(0.3)
    assert "cannot be computed" in agreement_sentence(float("nan"))


def test_tied_plurality_against_brute_force() -> None:
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 4, size=(300, 3))
    counts[counts.sum(axis=1) == 0, 0] = 1
    expected = [sorted(row, reverse=True)[0] == sorted(row, reverse=True)[1] for row in counts.tolist()]
    assert tied_plurality(counts).tolist() == expected


def test_ratings_summary_numbers() -> None:
    frame = pd.DataFrame(
        {
            "item": ["a"] * 3 + ["b"] * 2 + ["c"] * 4,
            "rater": ["r1", "r2", "r3", "r1", "r2", "r1", "r2", "r3", "r4"],
            "label": ["x", "x", "y", "x", "y", "y", "y", "y", "x"],
        }
    )
    s = summarize(frame, "ratings")
    assert isinstance(s, RatingsSummary)
    assert (s.n_items, s.n_ratings, s.n_raters) == (3, 9, 4)
    assert (s.k_min, s.k_median, s.k_max) == (2, 3.0, 4)
    assert [(x.label, x.count) for x in s.labels] == [("x", 4), ("y", 5)]
    assert s.n_tied == 1 and s.tied_share == pytest.approx(1 / 3)  # item b: 1 x 1
    labels = [n.label for n in s.numbers]
    assert "items (N)" in labels and "ratings per item (K), min / median / max" in labels
    k = next(n for n in s.numbers if n.label.startswith("ratings per item"))
    assert k.display == "2 / 3 / 4" and "between 2 and 4 ratings each (ratings per item, K)" in k.sentence
    alpha = next(n for n in s.numbers if n.label.startswith("agreement"))
    assert f"alpha {alpha.display} " in alpha.sentence  # the sentence quotes the number as shown
    assert all(n.sentence for n in s.numbers)


def test_predictions_summary_alone_and_against_ratings() -> None:
    ratings = pd.DataFrame({"item": ["1", "1", "2", "2", "3"], "rater": list("ababa"), "label": list("xyxxy")})
    preds = pd.DataFrame({"item": ["1", "2", "1"], "model": ["a", "a", "b"], "pred_label": ["x", "y", "y"]})
    alone = summarize(preds, "predictions")
    assert alone.models == ("a", "b") and alone.n_items == 2 and alone.n_items_rated is None
    checked = summarize_predictions(preds, ratings)
    assert checked.n_items_rated == 3 and checked.covered_share == pytest.approx(2 / 3)
    assert [(x.label, x.count) for x in checked.labels] == [("x", 1), ("y", 2)]
    with pytest.raises(DataError, match="never use"):
        summarize_predictions(preds.assign(pred_label=["x", "z", "y"]), ratings)


def test_paired_summary_long_and_wide_agree_with_groupby() -> None:
    rng = np.random.default_rng(3)
    long = pd.DataFrame(
        {"case": np.repeat(np.arange(50), 3).astype(str), "config": np.tile(["n1", "n3", "n5"], 50)}
    ).assign(correct=rng.integers(0, 2, 150))
    s = _paired(long)
    assert isinstance(s, PairedSummary) and s.layout == "long"
    expected = long.groupby("config")["correct"].mean()
    assert {c.config: c.accuracy for c in s.configs} == pytest.approx(expected.to_dict())
    wide = long.pivot(index="case", columns="config", values="correct").reset_index()
    sw = summarize(wide, "paired")
    assert sw.layout == "wide" and [c.accuracy for c in sw.configs] == pytest.approx([c.accuracy for c in s.configs])
    assert s.n_cases == sw.n_cases == s.n_complete == 50
    partial = _paired(long.iloc[:-1])
    assert (partial.n_cases, partial.n_complete) == (50, 49)
    on_paired = long[long["case"] != "49"].groupby("config")["correct"].mean()  # case 49 lacks n5
    assert {c.config: c.accuracy for c in partial.configs} == pytest.approx(on_paired.to_dict())


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (pd.DataFrame({"case": [1, 1], "config": ["a", "a"], "correct": [1, 0]}), ["duplicate", "1, 2"]),
        (pd.DataFrame({"case": [1, 2], "config": ["a", "a"], "correct": [1, 0]}), ["two configs", "'a'"]),
        (pd.DataFrame({"case": [1, 2], "config": ["a", None], "correct": [1, 0]}), ["missing config", "2"]),
        (pd.DataFrame({"case": [1, 2], "config": ["a", "b"], "correct": [1, 0]}), ["no case has results"]),
    ],
)
def test_bad_paired_is_refused_by_the_paired_parser(frame: pd.DataFrame, words: list[str]) -> None:
    with pytest.raises(DataError) as err:
        summarize(frame, "paired")
    for w in words:
        assert w in str(err.value)


def test_samples_summary() -> None:
    frame = pd.DataFrame(
        {
            "case": ["q1"] * 3 + ["q2"] * 2,
            "sample": [0, 1, 2, 0, 1],
            "answer": ["4", "4", "5", "x", "y"],
            "gold": ["4", "4", "4", "y", "y"],
            "latency_s": [1.0, 2.0, 3.0, 4.0, 5.0],
        }
    )
    s = summarize(frame, "samples")
    assert isinstance(s, SamplesSummary) and s == _samples(frame)
    assert (s.n_cases, s.n_samples, s.n_min, s.n_median, s.n_max) == (2, 5, 2, 2.5, 3)
    assert s.correct_share == pytest.approx(3 / 5)
    assert s.answers_median == 2.0
    assert s.latency_p50 == pytest.approx(np.quantile([1, 2, 3, 4, 5], 0.5))
    assert s.latency_p95 == pytest.approx(np.quantile([1, 2, 3, 4, 5], 0.95))
    with pytest.raises(DataError, match="more than once"):
        summarize(frame.assign(sample=[0, 0, 1, 0, 1]), "samples")


def test_minimum_ratings_per_item_keeps_only_items_with_enough_ratings() -> None:
    frame = pd.DataFrame(
        {
            "item": ["a"] * 3 + ["b"] * 2 + ["c"] * 4 + ["d"],
            "rater": ["r1", "r2", "r3", "r1", "r5", "r1", "r2", "r3", "r4", "r9"],
            "label": ["x", "x", "y", "x", "y", "y", "y", "y", "x", "x"],
        }
    )
    s = summarize(frame, "ratings", min_k=3)
    assert (s.n_items, s.n_items_dropped, s.min_k, s.k_min, s.n_ratings) == (2, 2, 3, 3, 7)
    assert s.n_raters == 4  # r5 and r9 rated only the dropped items
    assert s.numbers[-1].label == "items left out" and "fewer than 3 ratings per item (K)" in s.numbers[-1].sentence
    assert s.k_hist == ((3, 1), (4, 1))
    assert summarize(frame, "ratings").k_hist == ((1, 1), (2, 1), (3, 1), (4, 1))
    with pytest.raises(DataError, match="only 1 of 4 items have at least 4 ratings per item"):
        summarize(frame, "ratings", min_k=4)


def test_wide_paired_with_empty_cells_means_no_result() -> None:
    raw = pd.DataFrame({"case": ["q1", "q2", "q3"], "A": [1, 0, None], "B": [1, 1, 1]})
    table = apply_mapping(raw, "paired", detect_kind(raw).mapping)
    s = summarize(table, "paired")
    # accuracies over the 2 paired cases (q1, q2), as the Compare page tests them; q3 has no result for A
    assert [(c.config, c.n, c.correct) for c in s.configs] == [("A", 2, 1), ("B", 2, 2)]
    assert (s.n_cases, s.n_complete, s.cases_per_config) == (3, 2, (2, 3))
    every = next(n for n in s.numbers if n.label == "cases every config has")
    assert every.sentence.startswith("Only 2 of 3 cases") and "A: 2, B: 3" in every.sentence
    assert next(n for n in s.numbers if n.label == "accuracy of B").sentence.startswith("B got 2 of 2 paired cases")


def test_validate_and_summarize_uses_the_analysis_parsers() -> None:
    one_sample = pd.DataFrame({"case": [1, 2], "sample": [1, 1], "answer": ["a", "b"], "gold": ["a", "a"]})
    with pytest.raises(DataError, match="at least 2 samples per request"):
        validate_and_summarize(one_sample, "samples")
    with pytest.raises(DataError, match="at least 2 samples per request"):
        summarize(one_sample, "samples")  # the summary reads the same parsed samples
    no_shared = pd.DataFrame({"case": [1, 2], "config": ["a", "b"], "correct": [1, 0]})
    with pytest.raises(DataError, match="no case has results for every config"):
        validate_and_summarize(no_shared, "paired")
    ratings = pd.DataFrame({"item": [1, 1, 2], "rater": list("aba"), "label": list("xyx")})
    preds = pd.DataFrame({"item": [3], "model": ["m"], "pred_label": ["x"]})
    assert validate_and_summarize(preds, "predictions").n_items == 1
    with pytest.raises(DataError, match="not in the ratings"):
        validate_and_summarize(preds, "predictions", ratings)


def test_unknown_kind() -> None:
    with pytest.raises(DataError, match="unknown data kind"):
        summarize(pd.DataFrame({"a": [1]}), "nope")


@pytest.mark.shared
@pytest.mark.skipif(not (SHARED / "datasets").is_dir(), reason="../shared/datasets is absent")
def test_shared_datasets_through_the_whole_data_layer() -> None:
    """Jobs Q1 and LeWiDi-2023 HS-Brexit: numbers quoted in their READMEs."""
    base = SHARED / "datasets"
    jobs = read_table(base / "jobs" / "annotations_q1_point_of_view.csv.gz")
    guess = detect_kind(jobs)
    assert guess.kind == "ratings" and guess.mapping == {"item": "item_id", "rater": "annotator_id", "label": "label"}
    r = ratings_from_frame(apply_mapping(jobs, "ratings", guess.mapping))
    s = summarize_ratings(r)
    assert (s.n_items, s.n_ratings, s.k_min, s.k_median, s.k_max) == (2000, 20125, 10, 10.0, 13)
    assert len(r.labels) == 5 and round(s.tied_share, 3) == 0.039  # README: ties 3.9%
    assert s.alpha == pytest.approx(_alpha_brute_force(r.counts), abs=1e-9)
    preds = read_table(base / "jobs" / "predictions_generated_here_q1_point_of_view.csv.gz")
    pg = detect_kind(preds)
    assert pg.kind == "predictions"
    ps = summarize_predictions(
        apply_mapping(preds, "predictions", pg.mapping), apply_mapping(jobs, "ratings", guess.mapping)
    )
    assert ps.models == ("tfidf_word_lr", "tfidf_char_lr", "count_nb", "prior") and ps.n_items == 500
    lewidi = read_table(base / "lewidi2023" / "annotations_long.csv.gz")
    brexit = lewidi[lewidi["dataset"] == "HS-Brexit"]
    g2 = detect_kind(brexit)
    s2 = summarize_ratings(ratings_from_frame(apply_mapping(brexit, "ratings", g2.mapping)))
    assert (s2.n_items, s2.n_raters, s2.k_min, s2.k_max) == (1120, 6, 6, 6)
    assert round(s2.tied_share, 3) == 0.075  # README: ties 7.5%
    q3 = read_table(base / "jobs" / "annotations_q3_event_multiselect.csv.gz")
    with pytest.raises(DataError, match="duplicate ratings"):  # multi-select: several labels per rater and item
        ratings_from_frame(apply_mapping(q3, "ratings", detect_kind(q3).mapping))


def test_bad_values_in_a_wide_paired_table_name_their_own_data_row() -> None:
    # empty cells ("no result") come before the bad value: its data row is 3, whatever was skipped
    frame = pd.DataFrame({"case": ["a", "b", "c"], "A": [np.nan, np.nan, 1.0], "B": [1.0, 1.0, 2.0]})
    with pytest.raises(DataError, match=r"'B' must hold 0 or 1.*rows? 3\b"):
        summarize(frame, "paired")
    long = pd.DataFrame({"case": [1, 2, 3, 3], "config": ["a", "b", "a", "a"], "correct": [1, 0, 1, 1]})
    with pytest.raises(DataError, match=r"duplicate.*case '3'.*config 'a'.*rows? 3, 4\b"):
        summarize(long, "paired")


def test_long_user_names_are_cut_in_labels_and_sentences() -> None:
    name = "config-" + "x" * 300
    frame = pd.DataFrame({"case": [1, 1, 2, 2], "config": [name, "b", name, "b"], "correct": [1, 0, 1, 1]})
    s = _paired(frame)
    assert s.configs[0].config == name  # the data keeps the full name
    assert all(len(n.label) < 80 and len(n.sentence) < 400 for n in s.numbers)


def test_the_highest_accuracy_is_named_and_ties_are_said_as_ties() -> None:
    frame = pd.DataFrame(
        {"case": [1, 1, 1, 2, 2, 2], "config": list("abcabc"), "correct": [1, 1, 0, 1, 1, 1]}
    )  # a and b: 2 of 2, c: 1 of 2
    sentences = {n.label: n.sentence for n in _paired(frame).numbers}
    assert sentences["accuracy of a"].endswith("(tied for the highest with 1 other config).")
    assert sentences["accuracy of b"].endswith("(tied for the highest with 1 other config).")
    assert sentences["accuracy of c"] == "c got 1 of 2 cases right."
    alone = _paired(frame.assign(correct=[1, 0, 0, 1, 1, 1]))
    assert [n.sentence.endswith("(the highest).") for n in alone.numbers[3:]] == [True, False, False]


def test_summaries_do_not_depend_on_the_frame_index() -> None:
    samples = pd.DataFrame(
        {
            "case": ["q1", "q1", "q2", "q2"],
            "sample": [0, 1, 0, 1],
            "answer": list("abcc"),
            "gold": list("aacc"),
            "latency_s": [1.0, 2, 3, 4],
        }
    )
    shuffled = samples.set_axis([7, 3, 9, 1])  # e.g. a filtered frame
    assert _samples(shuffled) == _samples(samples)
    table = pd.DataFrame({"case": [1, 1, 2, 2], "config": list("abab"), "correct": [1, 0, 1, 1]})
    assert _paired(table.set_axis([10, 20, 30, 40])) == _paired(table)


def _expand(counts_frame: pd.DataFrame) -> pd.DataFrame:
    """One row per rating (item, rater, label) from a label-count table; raters numbered within each item."""
    rows = []
    for _, r in counts_frame.iterrows():
        k = 0
        for col in [c for c in counts_frame.columns if c.startswith("count_")]:
            for _ in range(int(r[col])):
                rows.append({"item": r["item"], "rater": f"r{k}", "label": col[len("count_") :]})
                k += 1
    return pd.DataFrame(rows)


def test_label_counts_summarise_like_one_row_per_rating_except_raters() -> None:
    counts = pd.DataFrame(
        {"item": ["a", "b", "c", "d"], "count_x": [3, 0, 2, 1], "count_y": [0, 4, 2, 1], "count_z": [1, 0, 0, 2]}
    )
    by_counts = summarize(counts, "ratings")
    by_rows = summarize(_expand(counts), "ratings")
    for field in ("n_items", "n_ratings", "k_min", "k_median", "k_max", "n_tied", "k_hist"):
        assert getattr(by_counts, field) == getattr(by_rows, field), field
    assert [(s.label, s.count) for s in by_counts.labels] == [(s.label, s.count) for s in by_rows.labels]
    # Krippendorff's alpha from value counts = the krippendorff package on the expanded reliability data
    assert by_counts.alpha == pytest.approx(by_rows.alpha, abs=1e-12)
    rel = np.full((4, 4), np.nan)  # raters x items reliability data
    codes = {"x": 0.0, "y": 1.0, "z": 2.0}
    expanded = _expand(counts)
    for i, item in enumerate(["a", "b", "c", "d"]):
        labels = expanded.loc[expanded["item"] == item, "label"].map(codes).to_numpy()
        rel[: len(labels), i] = labels
    assert by_counts.alpha == pytest.approx(krippendorff.alpha(rel, level_of_measurement="nominal"), abs=1e-12)
    sentences = {n.label: n.sentence for n in by_counts.numbers}
    assert "one row of the file each" not in sentences["ratings"] and "label counts" in sentences["ratings"]
    raters = next(n for n in by_counts.numbers if n.label == "raters")
    assert raters.display == "not recorded" and np.isnan(raters.value) and "no rater ids" in raters.sentence
    assert "different raters gave them" in {n.label: n.sentence for n in by_rows.numbers}["raters"]


def test_label_counts_with_a_minimum_ratings_per_item() -> None:
    counts = pd.DataFrame({"item": ["a", "b", "c"], "count_x": [3, 1, 2], "count_y": [1, 0, 2]})
    s = summarize_ratings_frame(counts, min_k=2)
    assert (s.n_items, s.n_items_dropped, s.n_ratings) == (2, 1, 8)
    with pytest.raises(DataError, match="only 0 of 3 items"):
        summarize_ratings_frame(counts, min_k=5)


def test_predictions_checked_against_label_counts() -> None:
    counts = pd.DataFrame({"item": ["a", "b", "c"], "count_x": [3, 1, 2], "count_y": [1, 0, 2]})
    preds = pd.DataFrame({"item": ["a", "b"], "model": ["m", "m"], "pred_label": ["x", "y"]})
    s = summarize_predictions(preds, counts)
    assert s.n_items == 2 and s.covered_share == pytest.approx(2 / 3)
    with pytest.raises(DataError):
        summarize_predictions(pd.DataFrame({"item": ["a"], "model": ["m"], "pred_label": ["w"]}), counts)


def test_label_counts_have_no_rater_count_and_keep_the_largest_k_under_its_own_key() -> None:
    """Label counts carry no rater ids: n_raters is None (it was the largest K, 63 on ChaosNLI, beside a sentence
    saying raters are not recorded); the largest K is k_max."""
    frame = pd.DataFrame({"item": ["a", "b", "c"], "count_x": [3, 0, 60], "count_y": [2, 5, 3]})
    s = summarize(frame, "ratings")
    assert s.n_raters is None and s.k_max == 63 and s.k_min == 5
    raters = next(x for x in s.numbers if x.label == "raters")
    assert raters.display == "not recorded"
