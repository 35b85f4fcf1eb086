"""Rater quality (``nkcore.ratings.quality``) and its place on the Data page's "Who rated" section.

Oracles: hand counts for the plurality's quality; a simulated crowd whose poor raters are known (they answer at
random) for Dawid-Skene and one-coin; crowd-kit's own classes run here on the same table; the one-coin identity
q = (s - 1/M) / (1 - 1/M).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nkcore.errors import DataError
from nkcore.ratings.quality import aggregate_ratings, gold_accuracy, informative_share, quality_frame, quality_sentence
from nkcore.ratings.raters import rater_ratings, rater_ratings_from_frame
from tests.app.conftest import plain


def _crowd(seed: int = 0, items: int = 150, good: int = 6, poor: int = 3) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, items)
    rows = []
    for i, t in enumerate(truth):
        for r in range(good + poor):
            if r < good:
                lab = t if rng.random() < 0.85 else rng.integers(0, 3)
            else:
                lab = rng.integers(0, 3)
            rows.append({"item": f"i{i:03d}", "rater": f"r{r}", "label": f"L{int(lab)}"})
    return pd.DataFrame(rows), truth


def test_plurality_quality_is_agreement_with_the_plurality_by_hand() -> None:
    rr = rater_ratings([0, 0, 0, 1, 1, 1, 2, 2], [0, 1, 2, 0, 1, 2, 0, 1], [0, 0, 1, 1, 1, 0, 1, 0])
    agg = aggregate_ratings(rr, "plurality")
    # pluralities: item 0 -> 0, item 1 -> 1, item 2 -> tie (1, 1) -> 0 (lowest label)
    assert agg.labels.tolist() == [0, 1, 0]
    q = {r.rater: (r.quality, r.n_ratings) for r in agg.raters}
    assert q == {"0": (2 / 3, 3), "1": (1.0, 3), "2": (0.0, 2)}


@pytest.mark.parametrize("method", ["dawid-skene", "one-coin"])
def test_models_find_the_random_raters_and_equal_crowdkit(method: str) -> None:
    ck = pytest.importorskip("crowdkit.aggregation")
    frame, truth = _crowd()
    agg = quality_frame(frame, method)
    q = {r.rater: r.quality for r in agg.raters}
    assert max(q[f"r{r}"] for r in (6, 7, 8)) < min(q[f"r{r}"] for r in range(6))
    assert all(0.0 <= v <= 1.0 for v in q.values())
    # the labels are crowd-kit's own run on the raw table
    raw = frame.rename(columns={"item": "task", "rater": "worker"})
    model = ck.DawidSkene(n_iter=100) if method == "dawid-skene" else ck.OneCoinDawidSkene(n_iter=100)
    theirs = model.fit_predict(raw)
    ours = agg.label_of()
    assert all(ours[it] == theirs[it] for it in theirs.index)
    gold = pd.DataFrame({"item_id": [f"i{i:03d}" for i in range(truth.size)], "gold_label": [f"L{t}" for t in truth]})
    acc = gold_accuracy(agg, gold)
    assert acc.accuracy == pytest.approx(float(np.mean([ours[f"i{i:03d}"] == f"L{t}" for i, t in enumerate(truth)])))
    assert acc.accuracy >= acc.plurality_accuracy - 0.02 and acc.n_items == truth.size
    if method == "one-coin":  # a one-coin skill is an accuracy; a random rater's is about 1/3
        assert np.mean([q[f"r{r}"] for r in (6, 7, 8)]) == pytest.approx(1 / 3, abs=0.08)


def test_dawid_skene_quality_is_the_prior_weighted_diagonal() -> None:
    ck = pytest.importorskip("crowdkit.aggregation")
    frame, _ = _crowd(seed=2, items=80)
    rr = rater_ratings_from_frame(frame)
    agg = aggregate_ratings(rr, "dawid-skene")
    model = ck.DawidSkene(n_iter=100)
    model.fit(pd.DataFrame({"task": rr.item_codes, "worker": rr.rater_codes, "label": rr.label_codes}))
    e, p = model.errors_, model.priors_
    for w in range(rr.n_raters):  # every rater, term by term in the priors' order: the same float sum
        want = sum(p[m] * e.loc[w].loc[m, m] for m in p.index if m in e.loc[w].index)
        assert agg.raters[w].quality == float(want)


def test_gold_file_problems_and_sentences() -> None:
    agg = aggregate_ratings(rater_ratings([0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 1, 0]), "plurality")
    with pytest.raises(DataError, match="item_id and gold_label"):
        gold_accuracy(agg, pd.DataFrame({"x": [1]}))
    with pytest.raises(DataError, match="no item of the ratings"):
        gold_accuracy(agg, pd.DataFrame({"item_id": ["zz"], "gold_label": ["0"]}))
    with pytest.raises(DataError, match="--aggregate must be one of"):
        aggregate_ratings(rater_ratings([0], [0], [0]), "majority")
    assert gold_accuracy(agg, pd.DataFrame({"item_id": [0.0, 1.0], "gold_label": [0, 1]})).accuracy == 0.5
    assert informative_share(1 / 3, 3) == 0.0 and informative_share(1.0, 3) == 1.0
    frame, _ = _crowd(seed=1, items=60)
    text = quality_sentence(quality_frame(frame, "dawid-skene"))
    assert text.startswith("By the Dawid-Skene model, 3 raters of 9 are right on fewer than half of the items")


SCRIPT = """
import pandas as pd
from ui.common.datasets import Dataset
from ui.data.raters import raters_section
frame = pd.read_csv({path!r})
raters_section(Dataset("c" * 64, "crowd", "ratings", "fp-crowd-" + str(len(frame)), frame, False))
"""


def test_who_rated_shows_each_raters_quality(tmp_path: Path) -> None:
    pytest.importorskip("crowdkit")
    frame, _ = _crowd(seed=3, items=60)
    path = tmp_path / "crowd.csv"
    frame.to_csv(path, index=False)
    at = AppTest.from_string(SCRIPT.format(path=str(path)), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    texts = " ".join(plain(m.value) for m in at.markdown)
    assert "By the Dawid-Skene model, 3 raters of 9" in texts
    everyone = at.dataframe[-1].value
    assert "estimated quality (Dawid-Skene)" in everyone.columns
    q = dict(zip(everyone["rater"], everyone["estimated quality (Dawid-Skene)"], strict=True))
    want = {r.rater: 100 * r.quality for r in quality_frame(frame, "dawid-skene").raters}
    assert q == pytest.approx(want)
    assert max(q["r6"], q["r7"], q["r8"]) < 50 < min(q[f"r{r}"] for r in range(6))
