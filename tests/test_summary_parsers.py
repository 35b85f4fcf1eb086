"""nkcore.summary reads what each kind's one parser produces: no local re-parsing, one ConfigAccuracy.

Oracles: plain pandas counts on the raw rows, the chapter's worked numbers (paired: 142, 156, 158, 158 of 200
cases right at n = 1, 3, 5, 7), and the parsers' own results.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nkcore.summary
from nkcore import paired, voting
from nkcore.errors import DataError
from nkcore.kinds import apply_mapping, detect_kind
from nkcore.ratings import predictions_from_frame, ratings_from_frame
from nkcore.summary import (
    PairedSummary,
    SamplesSummary,
    summarize,
    summarize_parsed_predictions,
    summarize_predictions,
    validate_and_summarize,
)


def _samples_with_correct(words: tuple[str, str]) -> pd.DataFrame:
    yes, no = words
    return pd.DataFrame(
        {
            "case": ["q1"] * 3 + ["q2"] * 3,
            "sample": [1, 2, 3] * 2,
            "answer": ["4", "4", "5", "x", "y", "y"],
            "correct": [yes, yes, no, no, yes, yes],
        }
    )


@pytest.mark.parametrize("words", [("yes", "no"), ("YES", "No"), ("true", "false"), ("1", "0")])
def test_correct_words_give_the_share_of_correct_samples(words: tuple[str, str]) -> None:
    """A samples table with correct = "yes" / "no" passes the samples parser, so its summary counts it (4 of 6)."""
    s = summarize(_samples_with_correct(words), "samples")
    assert isinstance(s, SamplesSummary)
    assert s.correct_share == pytest.approx(4 / 6)
    assert next(n for n in s.numbers if n.label == "correct samples").display == "66.7%"
    assert validate_and_summarize(_samples_with_correct(words), "samples").numbers == s.numbers


def test_correct_only_samples_are_binary() -> None:
    frame = _samples_with_correct(("1", "0")).drop(columns="answer").assign(correct=[1, 1, 0, 0, 0, 1])
    s = summarize(frame, "samples")
    assert s.correct_share == pytest.approx(3 / 6)
    assert s.answers_median == 2.0  # right and wrong


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 6), st.lists(st.sampled_from("abc"), min_size=1, max_size=2)),
        min_size=1,
        max_size=6,
    ),
    st.integers(0, 2**31 - 1),
)
def test_samples_summary_matches_pandas_counts(cases: list[tuple[int, list[str]]], seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = []
    for c, (n, _) in enumerate(cases):
        gold = "abc"[c % 3]
        for j in range(max(n, 2) if c == 0 else n):  # the parser needs one case with 2 samples
            rows.append((f"c{c}", j, str(rng.choice(list("abcd"))), gold, float(rng.uniform(0, 5))))
    frame = pd.DataFrame(rows, columns=["case", "sample", "answer", "gold", "latency_s"])
    s = summarize(frame, "samples")
    per_case = frame.groupby("case").size()
    assert (s.n_cases, s.n_samples) == (len(per_case), len(frame))
    assert (s.n_min, s.n_median, s.n_max) == (per_case.min(), float(per_case.median()), per_case.max())
    assert s.correct_share == pytest.approx((frame["answer"] == frame["gold"]).mean())
    assert s.answers_median == float(frame.groupby("case")["answer"].nunique().median())
    assert s.latency_p50 == pytest.approx(np.quantile(frame["latency_s"], 0.5))
    assert s.latency_p95 == pytest.approx(np.quantile(frame["latency_s"], 0.95))


def test_worked_samples_through_the_mapping_and_the_parser(worked_frame: pd.DataFrame) -> None:
    table = apply_mapping(worked_frame, "samples", detect_kind(worked_frame).mapping)
    s = summarize(table, "samples")
    assert (s.n_cases, s.n_samples, s.n_min, s.n_max) == (200, 1400, 7, 7)
    assert s.correct_share == pytest.approx((worked_frame["answer"] == worked_frame["gold"]).mean())
    assert s == nkcore.summary.summarize_samples(voting.parse_samples(worked_frame))


def test_one_config_accuracy_the_paired_one(worked_paired_frame: pd.DataFrame) -> None:
    s = summarize(worked_paired_frame, "paired")
    assert isinstance(s, PairedSummary)
    assert not hasattr(nkcore.summary, "ConfigAccuracy")
    assert all(isinstance(c, paired.ConfigAccuracy) for c in s.configs)
    expected = paired.config_accuracy(paired.parse_paired(worked_paired_frame))
    fields = ("config", "correct", "n", "accuracy", "ci_low", "ci_high", "method")
    assert [tuple(getattr(c, f) for f in fields) for c in s.configs] == [
        tuple(getattr(c, f) for f in fields) for c in expected
    ]
    # the chapter: 142, 156, 158 and 158 of the 200 cases right at n = 1, 3, 5, 7
    assert [(c.config, c.correct, c.n) for c in s.configs] == [
        ("n=1", 142, 200),
        ("n=3", 156, 200),
        ("n=5", 158, 200),
        ("n=7", 158, 200),
    ]
    assert [(c.n_cases, c.n_correct) for c in s.configs] == [(c.n, c.correct) for c in s.configs]  # older names
    shown = {n.label: (n.display, n.sentence) for n in s.numbers}
    assert shown["accuracy of n=1"] == ("71.0%", "n=1 got 142 of 200 cases right.")
    assert shown["accuracy of n=7"][1].endswith("(tied for the highest with 1 other config).")
    assert (s.n_cases, s.n_complete, s.layout) == (200, 200, "long")


def test_paired_summary_of_a_wide_table_with_true_false_words() -> None:
    wide = pd.DataFrame({"Case": ["a", "b", "c", "d"], "A": ["yes", "no", "TRUE", "0"], "B": [1, 1, 0, 1]})
    s = summarize(wide, "paired")
    assert s.layout == "wide" and [(c.config, c.correct) for c in s.configs] == [("A", 2), ("B", 3)]


def test_predictions_summary_reads_the_parsed_predictions() -> None:
    ratings = pd.DataFrame({"item": [1, 1, 2, 2, 3], "rater": list("ababa"), "label": list("xyxxy")})
    preds = pd.DataFrame({"item": [1, 2, 2], "model": ["m", "m", "k"], "p_x": [0.2, 0.9, 0.6], "p_y": [0.8, 0.1, 0.4]})
    r = ratings_from_frame(ratings)
    direct = summarize_parsed_predictions(predictions_from_frame(preds, r), has_hard=False, ratings=r)
    s = summarize_predictions(preds, ratings)
    assert s == direct
    assert (s.n_rows, s.n_items, s.has_hard, s.has_probs) == (3, 2, False, True)
    assert [(x.label, x.count) for x in s.labels] == [("x", 2), ("y", 1)]  # argmax of the probabilities
    assert s.covered_share == pytest.approx(2 / 3)
    with pytest.raises(DataError, match="need the columns item, model"):
        summarize_predictions(preds.drop(columns="model"))


def test_summarize_is_cached_by_its_public_name() -> None:
    """ui.common.cache resolves ``module:qualname``; the page's functions must resolve back to themselves."""
    for func in (nkcore.summary.summarize, nkcore.summary.summarize_predictions):
        module = __import__(func.__module__, fromlist=["_"])
        assert getattr(module, func.__qualname__) is func
