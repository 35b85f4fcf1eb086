"""Summary of model predictions: items, models, predictions per model, labels predicted, probabilities given.

The table is parsed by the one predictions parser, :func:`nkcore.ratings.predictions_from_frame`, against a ratings
table when one is given (then every check applies: items and labels must be the ratings' ones) or else against the
items and labels the predictions themselves name; the summary reads the resulting
:class:`nkcore.ratings.Predictions`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common.formatting import name_list
from nkcore.kinds.values import natural_order, to_text
from nkcore.ratings import Predictions, Ratings, need_columns, predictions_from_frame
from nkcore.summary.ratings import ratings_of_table
from nkcore.summary.results import LabelShare, SummaryNumber, label_shares, share_text, whole

__all__ = ["PredictionsSummary", "summarize_parsed_predictions", "summarize_predictions"]


@dataclass(frozen=True, slots=True)
class PredictionsSummary:
    """Summary of model predictions; the ``*_rated`` fields are filled only when checked against ratings."""

    kind: str
    n_rows: int
    n_items: int
    models: tuple[str, ...]
    per_model_min: int
    per_model_max: int
    has_hard: bool
    has_probs: bool
    labels: tuple[LabelShare, ...]
    n_items_rated: int | None
    covered_share: float | None
    numbers: tuple[SummaryNumber, ...]


def _named_items_and_labels(frame: pd.DataFrame) -> Ratings:
    """A ratings stand-in without ratings: every item and label the predictions name, so the same parser applies.

    Items and labels are read as the parser reads them (:func:`nkcore.kinds.values.to_text`); blanks are left for
    the parser to refuse with its own message.
    """
    need_columns(frame, ("item", "model"), "predictions")
    labels: set[str] = set()
    if "pred_label" in frame.columns:
        labels |= set(to_text(frame["pred_label"]).dropna().tolist())
    labels |= {str(c)[2:] for c in frame.columns if str(c).startswith("p_") and len(str(c)) > 2}
    items = [str(i) for i in to_text(frame["item"]).dropna().unique().tolist()]
    return Ratings(
        tuple(natural_order(items)),
        tuple(natural_order(sorted(labels))),
        np.zeros((len(items), len(labels)), dtype=np.int64),
        0,
        0,
    )


def summarize_parsed_predictions(
    pred: Predictions, has_hard: bool, ratings: Ratings | None = None
) -> PredictionsSummary:
    """Items predicted, models, predictions per model, labels predicted, and coverage of ``ratings`` when given.

    A prediction is a cell of ``pred.hard`` >= 0 (one per row of the file); an item counts when any model predicts
    it; label shares count the hard labels (the argmax of the probabilities when the file has no pred_label,
    which ``has_hard`` says). Coverage = items predicted / items (N) rated.

    >>> from nkcore.ratings import ratings_from_frame
    >>> r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2], "rater": list("aba"), "label": list("xyx")}))
    >>> p = predictions_from_frame(pd.DataFrame({"item": [1], "model": ["m"], "pred_label": ["y"]}), r)
    >>> s = summarize_parsed_predictions(p, has_hard=True, ratings=r)
    >>> s.n_items, s.covered_share, [(x.label, x.count) for x in s.labels]
    (1, 0.5, [('x', 0), ('y', 1)])
    """
    has = pred.hard >= 0
    per_model = has.sum(axis=1)
    n_items = int(has.any(axis=0).sum())
    labels = label_shares(pred.labels, np.bincount(pred.hard[has], minlength=len(pred.labels)))
    models = pred.models
    lo, hi = int(per_model.min()), int(per_model.max())
    numbers = [
        SummaryNumber("items (N)", n_items, whole(n_items), f"The models predicted labels for {n_items:,} items (N)."),
        SummaryNumber(
            "models",
            len(models),
            whole(len(models)),
            f"{len(models)} model{'s' if len(models) != 1 else ''}: {name_list(models)}.",
        ),
        SummaryNumber(
            "predictions per model",
            float(lo),
            f"{lo:,}" + (f" to {hi:,}" if hi != lo else ""),
            "Every model predicted the same items."
            if lo == hi == n_items
            else f"Models cover between {lo:,} and {hi:,} of the items.",
        ),
        SummaryNumber(
            "probabilities",
            float(pred.probs is not None),
            "yes" if pred.probs is not None else "no",
            "Each prediction comes with one probability per label (p_<label> columns), so calibration can be judged."
            if pred.probs is not None
            else "Only hard labels are given (no p_<label> columns).",
        ),
    ]
    n_rated = covered = None
    if ratings is not None:
        n_rated = len(ratings.items)
        covered = n_items / n_rated
        numbers.append(
            SummaryNumber(
                "rated items covered",
                covered,
                share_text(covered),
                f"The predictions cover {n_items:,} of the {n_rated:,} rated items (N), {share_text(covered)}.",
            )
        )
    return PredictionsSummary(
        "predictions",
        int(has.sum()),
        n_items,
        models,
        lo,
        hi,
        has_hard,
        pred.probs is not None,
        labels,
        n_rated,
        covered,
        tuple(numbers),
    )


def summarize_predictions(frame: pd.DataFrame, ratings_frame: pd.DataFrame | None = None) -> PredictionsSummary:
    """Parse a predictions table (against ``ratings_frame`` when given) and summarise it.

    Without ratings the checks are structural (columns, blanks, duplicate (item, model) rows, probabilities in
    [0, 1] summing to 1); with ratings every check of :func:`nkcore.ratings.predictions_from_frame` applies and the
    summary says how many rated items the predictions cover.

    >>> df = pd.DataFrame({"item": [1, 2, 1], "model": ["a", "a", "b"], "pred_label": ["x", "y", "x"]})
    >>> s = summarize_predictions(df)
    >>> s.models, s.per_model_min, s.per_model_max
    (('a', 'b'), 1, 2)
    """
    ratings = ratings_of_table(ratings_frame) if ratings_frame is not None else None
    pred = predictions_from_frame(frame, ratings if ratings is not None else _named_items_and_labels(frame))
    return summarize_parsed_predictions(pred, "pred_label" in frame.columns, ratings)
