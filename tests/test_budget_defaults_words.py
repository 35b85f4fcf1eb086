"""The Budget page's words against the numbers they quote (issue 51): how often A came out ahead and what the paper's
test says are one sentence that does not contradict itself, and a p is called evidence only when the test rejects.

The cells are built from gap samples whose p, share ahead and mean gap come from the paper's own rule
(:mod:`nkcore.nk.pvalue`), one set with p above the significance and one below."""

from __future__ import annotations

from types import SimpleNamespace as S

import numpy as np
import pytest
from scipy import stats

from nkcore.nk import cell_words, sentences
from nkcore.nk.adaptive_sentences import adaptive_cell_sentence
from nkcore.nk.fit import fit_dirichlet
from nkcore.nk.pvalue import SIGNIFICANCE, ci_width, delta, p_value, reproducibility

U = (np.arange(2000) + 0.5) / 2000


def _cell(alt_mean: float, alt_sd: float, null_sd: float, **extra: object) -> S:
    """A cell whose alternative and null gaps are normal quantiles: its numbers by the paper's rule."""
    alt, null = stats.norm.ppf(U, alt_mean, alt_sd), stats.norm.ppf(U, 0.0, null_sd)
    fields = {"budget": 1000, "n": 111, "k": 9, "metric": "acc", "direction": 1, "policy": "fixed",
              "first_stage_k": 9, "mean_ratings_per_item": 9.0, "max_ratings_per_item": 9}  # fmt: skip
    fields.update(extra)
    return S(p=p_value(null, alt), reproducibility=reproducibility(alt), delta=delta(alt), mean_gap=float(alt.mean()),
             ci_width=ci_width(alt), **fields)  # fmt: skip


ABOVE = _cell(0.04, 0.0195, 0.0208)  # the issue's cell: A ahead in 98%, p about 0.08
BELOW = _cell(0.06, 0.0195, 0.0208)


def test_the_two_cells_fall_either_side_of_the_significance() -> None:
    assert ABOVE.reproducibility >= 0.97 and SIGNIFICANCE <= ABOVE.p < 0.2
    assert BELOW.p < SIGNIFICANCE


@pytest.mark.parametrize("cell", [ABOVE, BELOW], ids=["above", "below"])
def test_cell_sentence_quotes_its_share_and_p_in_one_reconciled_clause(cell: S) -> None:
    text = sentences.cell_sentence(cell)
    share = f"{cell.reproducibility:.0%}"
    assert f"A was ahead of B in {share} of repeated evaluations" in text
    if cell.p < SIGNIFICANCE:
        assert f", and the paper's test calls it reasonably repeatable at this budget (p = {cell.p:.3f} < 0.05)" in text
        assert "cannot" not in text
    else:
        assert f", but the paper's test cannot call it repeatable at this budget (p = {cell.p:.3f} ≥ 0.05)" in text
        assert "reasonably repeatable" not in text
    (said,) = [x for x in text.split(". ") if f"in {share} of" in x]  # one sentence holds the share and the p
    assert f"p = {cell.p:.3f}" in said


@pytest.mark.parametrize("cell", [ABOVE, BELOW], ids=["above", "below"])
def test_numbers_and_adaptive_sentences_agree_with_the_test(cell: S) -> None:
    words = cell_words.numbers_sentence(cell, "m1", "m2")
    adaptive = adaptive_cell_sentence(cell)
    share = f"{cell.reproducibility:.0%}"
    assert f"in {cell.p:.1%} of pairings" in words
    if cell.p < SIGNIFICANCE:
        assert '"m1 beats m2" is reasonably repeatable' in words and "although" not in words
        assert "and the paper's test calls it reasonably repeatable" in adaptive
    else:
        assert f'although m1 was ahead in {share} of the repeated evaluations, "m1 beats m2" is not reliably' in words
        assert f"A was ahead of B in {share} of repeated evaluations, but the paper's test cannot" in adaptive


@pytest.mark.parametrize("alt_mean", [-0.06, -0.03, -0.004, 0.004, 0.01, 0.03, 0.06])
@pytest.mark.parametrize("direction", [1, -1])
def test_a_p_is_evidence_only_when_the_test_rejects(alt_mean: float, direction: int) -> None:
    """'p = 0.39, evidence for tfidf_word_lr ahead' was printed: the phrase names a model as supported only when
    p < significance, and then the model the resampled gaps favour."""
    cell = _cell(alt_mean, 0.02, 0.02, direction=direction)
    phrase = cell_words.resample_p_phrase(cell, "lr", "nb")
    favoured = "lr" if cell.mean_gap > 0 else "nb"
    if cell.p < SIGNIFICANCE:
        assert f"evidence for {favoured} ahead" in phrase
    else:
        assert "evidence" not in phrase
        assert f"lean towards {favoured}" in phrase and "but the paper's test cannot call that repeatable" in phrase
        assert "≥ 0.05" in phrase
    same = (cell.mean_gap > 0) == (direction > 0)
    assert ("unlike the full data" in phrase) == (not same)


def test_the_issues_p_of_039_is_not_evidence() -> None:
    cell = _cell(0.0079, 0.02, 0.02)
    assert round(cell.p, 2) == 0.39
    phrase = cell_words.resample_p_phrase(cell, "tfidf_word_lr", "count_nb")
    assert (
        phrase.startswith("p = 0.39 ≥ 0.05: the resampled evaluations lean towards tfidf_word_lr")
        and "evidence" not in phrase
    )


def test_fit_warnings_short_names_each_warning_of_the_fit() -> None:
    rng = np.random.default_rng(0)
    e = rng.binomial(100, rng.choice([0.04, 0.5, 0.96], 300))
    neutral = rng.binomial(100 - e, 0.5)
    warnings = fit_dirichlet(np.c_[e, neutral, 100 - e - neutral]).warnings
    assert len(warnings) >= 1
    short = sentences.fit_warnings_short(warnings, resample=False)
    assert short.startswith("Fit warning: the numbers may not describe this data (")
    for w in warnings:
        assert w.split(":", 1)[0].split(" (", 1)[0] in short
    assert "Resample" not in short and "Resample" in sentences.fit_warnings_short(warnings, resample=True)
    assert sentences.fit_warnings_short((), resample=True) == ""
