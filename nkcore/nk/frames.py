"""DataFrame-in entry points of the (N, K) engine, for the page (through ``ui.cache``) and the CLI.

Each function takes canonical frames (ratings: item, rater, label, or label counts: item + one ``count_<label>``
column per label; predictions: item, model, pred_label and/or p_<label>) plus plain hashable parameters, converts them with ``nkcore.ratings`` and calls the numpy engine.
Results are frozen dataclasses (picklable, so they can be cached).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.nk.fit import DirichletFit, fit_dirichlet
from nkcore.nk.grid import PAPER_KS, configurations
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.resample import ResampleCell, full_gaps, prepare_pair, qualifying_items, resample_cells
from nkcore.ratings import Ratings, predictions_from_frame, ratings_from_counts, ratings_from_frame


@dataclass(frozen=True, slots=True)
class FittedPrior:
    """A prior fitted to a ratings table: ``labels`` name the categories of ``fit.alpha`` in order.

    ratings_per_item: (min, median, max) ratings per item.
    """

    labels: tuple[str, ...]
    fit: DirichletFit
    n_items: int
    ratings_per_item: tuple[int, float, int]


@dataclass(frozen=True, slots=True)
class ResampleRun:
    """Real-data resampling of two models on a grid.

    models: (A, B); labels: categories; n_items: items with ratings and both predictions; uses_probabilities:
    distribution metrics used the models' probabilities (else their hard labels as one-hot); full_gaps: the
    gaps on the full data per metric; qualifying: items with at least K ratings per K; skipped_k: K values no
    item qualifies for; cells: one ``ResampleCell`` per (budget, K, metric).
    """

    models: tuple[str, str]
    labels: tuple[str, ...]
    n_items: int
    uses_probabilities: bool
    full_gaps: dict[str, float] = field(compare=False)
    qualifying: dict[int, int] = field(compare=False)
    skipped_k: tuple[int, ...]
    cells: tuple[ResampleCell, ...] = field(repr=False, compare=False)


def ratings_of(frame: pd.DataFrame) -> Ratings:
    """The ratings of a canonical table: one row per rating (item, rater, label) or label counts, kept as counts.

    A table without a ``rater`` column whose other columns are ``count_<label>`` counts is read by
    :func:`nkcore.ratings.ratings_from_counts` (the (N, K) engine only needs each item's label counts, so nothing is
    expanded to one row per rating); any other table by :func:`nkcore.ratings.ratings_from_frame`.

    >>> ratings_of(pd.DataFrame({"item": ["a", "b"], "count_x": [2, 0], "count_y": [1, 3]})).counts.tolist()
    [[2, 1], [0, 3]]
    """
    if "rater" not in frame.columns and any(str(c).startswith("count_") for c in frame.columns):
        return ratings_from_counts(frame, "item" if "item" in frame.columns else None)
    return ratings_from_frame(frame)


def fit_prior_frame(ratings: pd.DataFrame, method: str = "ml") -> FittedPrior:
    """Fit a Dirichlet prior to a ratings table (item, rater, label; or label counts): see ``fit_dirichlet``."""
    r = ratings_of(ratings)
    per = r.counts.sum(axis=1)
    return FittedPrior(
        r.labels, fit_dirichlet(r.counts, method), len(r.items), (int(per.min()), float(np.median(per)), int(per.max()))
    )


def model_names(predictions: pd.DataFrame) -> tuple[str, ...]:
    """The models of a predictions table, in order of first appearance."""
    if "model" not in predictions.columns:
        raise DataError("the predictions table needs a 'model' column")
    return tuple(str(m) for m in pd.unique(predictions["model"].dropna().astype(str)))


def resample_frames(
    ratings: pd.DataFrame,
    predictions: pd.DataFrame,
    model_a: str,
    model_b: str,
    budgets: Sequence[int] = (100, 250, 500, 1000, 2500),
    ks: Sequence[int] = PAPER_KS,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    use_probabilities: bool = True,
) -> ResampleRun:
    """Resample real ratings and compare two models' predictions on a grid of budgets x K.

    K values larger than every item's number of ratings are skipped (listed in ``skipped_k``). ``ratings`` may be
    label counts (:func:`ratings_of`): K ratings of an item are then drawn without replacement from its counts.
    """
    r = ratings_of(ratings)
    p = predictions_from_frame(predictions, r)
    if model_a == model_b:
        raise DataError(f"choose two different models (both are {model_a!r})")
    for name in (model_a, model_b):
        if name not in p.models:
            raise DataError(f"model {name!r} is not in the predictions; models: {', '.join(p.models)}")
    ia, ib = p.models.index(model_a), p.models.index(model_b)
    probs = p.probs if (use_probabilities and p.probs is not None) else None
    data = prepare_pair(
        r.counts,
        p.hard[ia],
        p.hard[ib],
        None if probs is None else probs[ia],
        None if probs is None else probs[ib],
    )
    mts = parse_metrics(metrics)
    qual = qualifying_items(data.counts, ks)
    usable = tuple(k for k in ks if qual.get(int(k), 0) > 0)
    skipped = tuple(int(k) for k in ks if qual.get(int(k), 0) == 0)
    if not usable:
        raise DataError(f"no item has {min(ks)} or more ratings: choose smaller ratings per item (K)")
    cells = resample_cells(data, configurations(budgets, usable), mts, rounds, seed, alpha)
    return ResampleRun(
        (model_a, model_b),
        r.labels,
        int(data.counts.shape[0]),
        data.is_prob,
        full_gaps(data, mts),
        qual,
        skipped,
        tuple(cells),
    )
