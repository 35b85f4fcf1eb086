"""``frames.exact_resample_frames``: the exact engine on ratings + predictions tables, against the resampler.

Oracle: ``frames.resample_frames`` (the Monte Carlo resampler of the same question) at many rounds; the two must
agree within the resampler's own Monte Carlo error (|z| < 4; standard error from six seeds' spread, floored at the
pooled rounds' sampling error), and they must flag the same extrapolations (items (N) beyond the pool of items
with K ratings, K beyond every item's ratings) and fall back to the resampler for macro F1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nkcore.errors import DataError
from nkcore.nk.frames import exact_resample_frames, resample_frames
from nkcore.nk.grid import extrapolated

LABELS = ("x", "y", "z")


def _pool(n_items: int = 40, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A small generated pool: 2 to 7 ratings per item from a Dirichlet item law; A predicts near it, B noisier."""
    rng = np.random.default_rng(seed)
    rows, preds = [], []
    for i in range(n_items):
        share = rng.dirichlet([1.5, 1.0, 0.7])
        for r in range(int(rng.integers(2, 8))):
            rows.append((f"i{i}", f"r{r}", LABELS[rng.choice(3, p=share)]))
        pa = 0.7 * share + 0.3 * rng.dirichlet([1, 1, 1])
        pb = 0.4 * share + 0.6 * rng.dirichlet([1, 1, 1])
        for name, p in (("A", pa), ("B", pb)):
            preds.append(
                {"item": f"i{i}", "model": name, "pred_label": LABELS[int(np.argmax(p))]}
                | {f"p_{lab}": float(v) for lab, v in zip(LABELS, p, strict=True)}
            )
    return pd.DataFrame(rows, columns=["item", "rater", "label"]), pd.DataFrame(preds)


def test_exact_agrees_with_the_resampler_within_monte_carlo_error() -> None:
    ratings, preds = _pool()
    budgets, ks, metrics = (20, 60), (1, 2, 5), ("acc", "tv", "wins", "kl")
    ex = exact_resample_frames(ratings, preds, "A", "B", budgets, ks, metrics)
    seeds, rounds = range(6), 3000
    runs = [resample_frames(ratings, preds, "A", "B", budgets, ks, metrics, rounds=rounds, seed=s) for s in seeds]
    sim = {}
    for run in runs:
        for c in run.cells:
            sim.setdefault((c.budget, c.k, c.metric), []).append(c)
    assert {(c.budget, c.k, c.metric) for c in ex.cells} == set(sim)
    worst = 0.0
    for c in ex.cells:
        assert c.rounds == 0 and c.method != "simulate"
        reps = sim[(c.budget, c.k, c.metric)]
        total = rounds * len(reps)
        sd_gap = float(np.std(np.concatenate([r.alt for r in reps])))
        p_bar = float(np.mean([r.p for r in reps]))
        # Monte Carlo error of the mean over seeds: from the seeds' spread, and never below the sampling error of
        # the pooled rounds (a spread estimated from a few seeds can come out far too small)
        floor = {
            "p": np.sqrt(max(p_bar * (1 - p_bar), 1.0 / rounds) / total),
            "delta": sd_gap / np.sqrt(total),
            "ci_width": 2.0 * sd_gap / np.sqrt(total),
        }
        for field in ("p", "delta", "ci_width"):
            vals = np.array([getattr(r, field) for r in reps])
            se = max(vals.std(ddof=1) / np.sqrt(len(vals)), float(floor[field]))
            se = float(np.hypot(se, getattr(c, f"{field}_error") if np.isfinite(getattr(c, f"{field}_error")) else 0))
            z = abs(getattr(c, field) - vals.mean()) / se
            worst = max(worst, z)
            assert z < 4, (c.budget, c.k, c.metric, field, getattr(c, field), vals.mean(), se)
        assert c.n_qualifying == reps[0].n_qualifying and c.direction == reps[0].direction
        assert c.full_gap == pytest.approx(reps[0].full_gap)
    print(f"worst |z| = {worst:.2f}")


def test_same_extrapolation_flags_and_skipped_k_as_the_resampler() -> None:
    ratings, preds = _pool(n_items=12)
    per_item = ratings.groupby("item").size()
    most = int(per_item.max())
    ks = (1, most, 50)  # 50: more than any item has; the most ratings: only a few items qualify
    ex = exact_resample_frames(ratings, preds, "A", "B", (60,), ks, ("acc",))
    sim = resample_frames(ratings, preds, "A", "B", (60,), ks, ("acc",), rounds=50)
    assert ex.skipped_k == sim.skipped_k == (50,)
    assert ex.qualifying == sim.qualifying == {k: int((per_item >= k).sum()) for k in ks}
    assert ex.n_items == sim.n_items == 12 and ex.labels == sim.labels and ex.uses_probabilities
    flags = {(c.k, extrapolated(c)) for c in ex.cells}
    assert flags == {(c.k, extrapolated(c)) for c in sim.cells}
    assert (1, True) in flags  # N = 60 items from a pool of 12


def test_macro_f1_falls_back_to_the_resampler_and_says_so() -> None:
    ratings, preds = _pool(n_items=15)
    ex = exact_resample_frames(ratings, preds, "A", "B", (30,), (1, 2), ("acc", "f1"))
    methods = {c.metric: c.method for c in ex.cells}
    assert methods["f1"] == "simulate" and methods["acc"] != "simulate"
    assert all(c.rounds > 0 for c in ex.cells if c.metric == "f1")


def test_bad_pairs_are_refused_with_a_message() -> None:
    ratings, preds = _pool(n_items=5)
    with pytest.raises(DataError, match="two different models"):
        exact_resample_frames(ratings, preds, "A", "A")
    with pytest.raises(DataError, match="not in the predictions"):
        exact_resample_frames(ratings, preds, "A", "C")
    with pytest.raises(DataError, match="ratings per item"):
        exact_resample_frames(ratings, preds, "A", "B", ks=(100,))
