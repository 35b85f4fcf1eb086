"""Validation of the (N, K) engine on real multi-annotator data in ../shared/datasets (skipped when absent).

Independent numbers: the dataset README's accuracies (ties=wrong <= ours <= ties=any) and mean cross-entropy
against the human distribution (q clipped at 1e-12), and the authors' Jobs Q1 prior as a likelihood benchmark.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore.nk.fit import assess_alpha, fit_dirichlet
from nkcore.nk.grid import Config
from nkcore.nk.priors import get_prior
from nkcore.nk.resample import prepare_pair, resample_cells
from nkcore.nk.scores import score

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATA = SHARED / "datasets"
pytestmark = pytest.mark.shared


def _chaos_snli() -> tuple[np.ndarray, pd.DataFrame, list[str]]:
    counts = pd.read_csv(DATA / "chaosnli" / "label_counts.csv.gz")
    snli = counts[counts["subset"] == "snli"].set_index("uid")
    preds = pd.read_csv(DATA / "chaosnli" / "predictions_snli_mnli_baan2022.csv.gz")
    preds = preds[preds["subset"] == "snli"]
    return snli[["count_e", "count_n", "count_c"]].to_numpy(int), preds, list(snli.index)


def _model(preds: pd.DataFrame, run: str, uids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    p = preds[preds["model_run"] == run].set_index("uid").reindex(uids)
    hard = p["pred_label"].map({"e": 0, "n": 1, "c": 2}).to_numpy()
    return hard.astype(int), p[["p_e", "p_n", "p_c"]].to_numpy(float)


@pytest.mark.parametrize(
    ("run", "acc_wrong", "acc_any", "ce"),
    [("bert-base-uncased_seed0", 0.717, 0.726, 1.216), ("roberta-base_seed2", 0.748, 0.757, 1.144)],
)
def test_chaosnli_full_data_metrics_match_readme(run: str, acc_wrong: float, acc_any: float, ce: float) -> None:
    counts, preds, uids = _chaos_snli()
    hard, probs = _model(preds, run, uids)
    acc = float(score("acc", counts, probs, labels=hard))
    assert acc_wrong - 5e-4 <= acc <= acc_any + 5e-4
    assert float(score("ce", counts, probs, labels=hard, machine_is_prob=True)) == pytest.approx(ce, abs=6e-4)


def test_chaosnli_resampling_converges_to_the_full_data_direction() -> None:
    counts, preds, uids = _chaos_snli()
    ha, pa = _model(preds, "bert-base-uncased_seed1", uids)  # README: acc 0.748, CE 1.022
    hb, pb = _model(preds, "bert-base-uncased_seed0", uids)  # README: acc 0.717, CE 1.216
    data = prepare_pair(counts, ha, hb, pa, pb)
    cells = resample_cells(
        data,
        [Config(100, 1, 100), Config(1000, 100, 10), Config(2500, 1, 2500), Config(5000, 50, 100)],
        ["acc", "ce"],
        rounds=300,
        seed=0,
    )
    by = {(c.budget, c.k, c.metric): c for c in cells}
    for c in cells:
        assert c.direction == 1 and c.n_qualifying == 1514  # A (seed 1) is better on both metrics
    # more budget, more rounds agree with the full data
    assert by[(2500, 1, "acc")].reproducibility > by[(100, 1, "acc")].reproducibility
    assert by[(5000, 50, "ce")].reproducibility > 0.9 and by[(5000, 50, "ce")].p < 0.05


def test_jobs_q1_fit_beats_the_paper_prior_in_likelihood() -> None:
    ann = pd.read_csv(DATA / "jobs" / "annotations_q1_point_of_view.csv.gz")
    labels = ["1st_person", "2nd_person", "3rd_person", "not_jobrelated", "unclear"]
    counts = pd.crosstab(ann["item_id"], ann["label"]).reindex(columns=labels, fill_value=0).to_numpy()
    fit = fit_dirichlet(counts)
    paper = assess_alpha(counts, get_prior("JobsQ1").concentration)  # same label order as the spec's alpha
    assert fit.converged and fit.log_likelihood > paper.log_likelihood
    assert int(np.argmax(fit.concentration)) == 0  # 1st_person is the most common label
    assert fit.mab < paper.mab


def test_jobs_q1_fitted_prior_and_the_paper_preset_are_told_apart() -> None:
    """Jobs Q1: ML on the public ratings gives alpha0 about 4.5, the paper's preset about 1,470; the page's sentence
    names both, where each comes from, and how much better the fit explains these ratings."""
    from nkcore.nk.frames import fit_prior_frame, preset_comparisons
    from nkcore.nk.sentences import fit_source_sentence

    ann = pd.read_csv(DATA / "jobs" / "annotations_q1_point_of_view.csv.gz")
    frame = ann.rename(columns={"item_id": "item"}).assign(rater=np.arange(len(ann)).astype(str))[
        ["item", "rater", "label"]
    ]
    fitted = fit_prior_frame(frame)
    comps = preset_comparisons(frame)
    assert [c.name for c in comps] == ["JobsQ1"]
    assert fitted.fit.alpha0 == pytest.approx(4.5, abs=0.5) and comps[0].alpha0 == pytest.approx(1470, abs=1)
    # the rank matching gives the preset its best label order here: 1st_person is the most common label for both
    labels = ["1st_person", "2nd_person", "3rd_person", "not_jobrelated", "unclear"]
    counts = pd.crosstab(ann["item_id"], ann["label"]).reindex(columns=labels, fill_value=0).to_numpy()
    paper = assess_alpha(counts, get_prior("JobsQ1").concentration)
    assert comps[0].log_likelihood >= paper.log_likelihood - 1e-6
    assert comps[0].per_item > 0
    text = fit_source_sentence(fitted, comps, "Jobs Q1")
    assert "maximum likelihood" in text and "alpha0 = 4." in text and "alpha0 = 1,470" in text
    assert "not public" in text
