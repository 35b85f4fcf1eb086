"""The words beside one (N, K) cell: which model the p supports, and each number with its unit and meaning."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as S

import numpy as np
import pytest

from nkcore.cli import main
from nkcore.nk import cell_words
from nkcore.nk.pvalue import p_value

JOBS = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "jobs"


def test_the_p_is_evidence_for_the_model_the_alternative_gaps_favour() -> None:
    """The paper's p turns both samples so that the alternative's median is the larger: with B ahead in every
    resampled evaluation, a small p is evidence for B, whichever model won on the full data."""
    rng = np.random.default_rng(0)
    null = rng.normal(0.0, 0.01, 400)
    alt = rng.normal(-0.06, 0.01, 400)  # B ahead
    cell = S(p=p_value(null, alt), mean_gap=float(alt.mean()), direction=1)
    assert cell.p < 0.001
    assert cell_words.p_side(cell) == -1
    assert "evidence for B-model ahead" in cell_words.resample_p_phrase(cell, "A-model", "B-model")
    assert "unlike the full data" in cell_words.resample_p_phrase(cell, "A-model", "B-model")


def test_numbers_sentence_quotes_the_cell_in_its_units() -> None:
    cell = S(metric="tv", budget=500, n=50, k=10, p=0.2, delta=0.0123, ci_width=0.05, mean_gap=0.0123,
             reproducibility=0.7)  # fmt: skip
    text = cell_words.numbers_sentence(cell, "m1", "m2")
    assert "puts m1 ahead of m2 in 70% of repeated evaluations" in text
    assert "by 0.0123 on TV's 0-1 scale" in text and "spans 0.05 on TV's 0-1 scale" in text
    assert "in 20.0% of pairings" in text and '"m1 beats m2" is not reliably repeatable' in text
    acc = S(metric="acc", budget=500, n=50, k=10, p=0.01, delta=0.04, ci_width=0.05, mean_gap=-0.04,
            reproducibility=0.1)  # fmt: skip
    words = cell_words.numbers_sentence(acc, "m1", "m2")
    assert "puts m2 ahead of m1 in 90%" in words and "4 points on average" in words
    assert '"m2 beats m1" is reasonably repeatable' in words


@pytest.mark.shared
def test_nk_on_jobs_says_which_model_its_p_supports(capsys: pytest.CaptureFixture[str]) -> None:
    """Jobs Q1, TV at budget 500, K 1: the full data favour tfidf_word_lr but every resampled evaluation favours
    count_nb; the line used to end 'reach the same conclusion. p < 0.001' as if p backed the full data's winner."""
    ratings = JOBS / "annotations_q1_point_of_view.csv.gz"
    if not ratings.exists():
        pytest.skip("shared datasets absent")
    preds = JOBS / "predictions_generated_here_q1_point_of_view.csv.gz"
    args = ["nk", "--ratings", str(ratings), "--predictions", str(preds), "--models", "tfidf_word_lr,count_nb"]
    assert main([*args, "--metric", "tv", "--budget", "500", "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert "0% of resampled evaluations reach the same conclusion" in out
    assert "p < 0.001, evidence for count_nb ahead at this budget" in out
