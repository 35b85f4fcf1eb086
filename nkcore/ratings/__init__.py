"""Ratings (item, rater, label) and model predictions as count matrices, validated with precise messages.

``Ratings.counts[i, m]`` is how many raters gave item ``i`` label ``m``; this is the input of the (N, K) engine,
of agreement (Krippendorff's alpha) and of the plurality label. ``Predictions`` aligns each model's hard label
and (optionally) its probabilities with the same items and labels.

Modules: ``tables`` (the Ratings and Predictions objects, column helpers), ``parse`` (per-rating and prediction
files), ``counts`` (label-count files such as ChaosNLI's and CIFAR-10H's, kept as counts), ``raters`` (ratings
with rater identity: each rating's item, rater and label codes), ``quality`` (a rater-quality model fitted to
ratings with rater ids: plurality, Dawid-Skene, one-coin Dawid-Skene via crowd-kit, imported when asked for).
"""

from nkcore.ratings.counts import COUNT_PREFIX, CountColumns, count_columns, ratings_from_counts
from nkcore.ratings.parse import predictions_from_frame, ratings_from_frame
from nkcore.ratings.quality import AGGREGATES, aggregate_ratings, gold_accuracy
from nkcore.ratings.raters import RaterRatings, rater_ratings, rater_ratings_from_frame
from nkcore.ratings.tables import (
    COUNT_TABLE_BYTES_PER_CELL,
    PROB_TOLERANCE,
    Predictions,
    Ratings,
    need_columns,
    text_column,
)

__all__ = [
    "AGGREGATES",
    "COUNT_PREFIX",
    "COUNT_TABLE_BYTES_PER_CELL",
    "PROB_TOLERANCE",
    "CountColumns",
    "Predictions",
    "RaterRatings",
    "Ratings",
    "aggregate_ratings",
    "count_columns",
    "gold_accuracy",
    "need_columns",
    "predictions_from_frame",
    "rater_ratings",
    "rater_ratings_from_frame",
    "ratings_from_counts",
    "ratings_from_frame",
    "text_column",
]
