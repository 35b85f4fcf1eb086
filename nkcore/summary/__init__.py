"""Dataset summaries a user expects to see after an upload, each number with a plain-language sentence.

One module per data kind, each summarising the object that kind's one parser produces:

- :mod:`nkcore.summary.ratings`: :class:`nkcore.ratings.Ratings` (from ``ratings_from_frame``, or
  ``ratings_from_counts`` for a label-count table) -> items (N),
  ratings, ratings per item (K) min / median / max, raters, label distribution, agreement (Krippendorff's alpha,
  nominal), share of items with a tied plurality;
- :mod:`nkcore.summary.predictions`: :class:`nkcore.ratings.Predictions` (from ``predictions_from_frame``) ->
  items, models, predictions per model, labels predicted, whether probabilities are given (and, against a ratings
  table, how many rated items each model covers);
- :mod:`nkcore.summary.paired`: :class:`nkcore.paired.PairedTable` (from ``parse_paired``) -> cases, configs,
  cases every config has, accuracy per config (:class:`nkcore.paired.ConfigAccuracy`);
- :mod:`nkcore.summary.samples`: :class:`nkcore.voting.SampleSet` (from ``parse_samples``) -> cases, samples per
  request (n) per case, share of correct samples, distinct answers per case, latency;
- :mod:`nkcore.summary.results`: the shared pieces (:class:`SummaryNumber`, :class:`LabelShare`, number formats).

:func:`validate_and_summarize` (and :func:`summarize`) take a canonical table of a kind (``nkcore.kinds``),
parse it with that kind's parser and summarise the result.
"""

from __future__ import annotations

import pandas as pd

from nkcore.errors import DataError
from nkcore.kinds import KINDS
from nkcore.paired import has_repeats, parse_cases, parse_paired
from nkcore.summary.paired import PairedSummary, summarize_cases, summarize_paired
from nkcore.summary.predictions import PredictionsSummary, summarize_parsed_predictions, summarize_predictions
from nkcore.summary.ratings import (
    RatingsSummary,
    agreement_sentence,
    is_count_table,
    krippendorff_alpha,
    ratings_of_table,
    summarize_ratings,
    summarize_ratings_frame,
    tied_plurality,
)
from nkcore.summary.results import LabelShare, SummaryNumber
from nkcore.summary.samples import SamplesSummary, summarize_samples
from nkcore.voting import parse_samples

__all__ = [
    "LabelShare",
    "PairedSummary",
    "PredictionsSummary",
    "RatingsSummary",
    "SamplesSummary",
    "Summary",
    "SummaryNumber",
    "agreement_sentence",
    "is_count_table",
    "krippendorff_alpha",
    "ratings_of_table",
    "summarize",
    "summarize_cases",
    "summarize_paired",
    "summarize_parsed_predictions",
    "summarize_predictions",
    "summarize_ratings",
    "summarize_ratings_frame",
    "summarize_samples",
    "tied_plurality",
    "validate_and_summarize",
]

Summary = RatingsSummary | PredictionsSummary | PairedSummary | SamplesSummary


def summarize(frame: pd.DataFrame, kind: str, min_k: int = 1) -> Summary:
    """Parse a canonical table of ``kind`` with that kind's one parser and summarise it.

    ratings: :func:`nkcore.ratings.ratings_from_frame`, or label counts by :func:`nkcore.ratings.ratings_from_counts` (``min_k``: keep items with at least that many ratings per
    item (K)); predictions: :func:`nkcore.ratings.predictions_from_frame`, on their own (use
    :func:`summarize_predictions` with a ratings table to check them against the ratings); paired:
    :func:`nkcore.paired.parse_paired`; samples: :func:`nkcore.voting.parse_samples`. Bad input is a DataError
    naming the rows or columns.

    >>> summarize(pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": ["x", "y"]}), "ratings").n_items
    2
    """
    if kind == "ratings":
        return summarize_ratings_frame(frame, min_k)
    if kind == "predictions":
        return summarize_predictions(frame)
    if kind == "paired":
        return summarize_cases(parse_cases(frame)) if has_repeats(frame) else summarize_paired(parse_paired(frame))
    if kind == "samples":
        return summarize_samples(parse_samples(frame))
    raise DataError(f"unknown data kind {kind!r}; choose one of {', '.join(KINDS)}")


def validate_and_summarize(table: pd.DataFrame, kind: str, ratings_frame: pd.DataFrame | None = None) -> Summary:
    """Accept or refuse a canonical table of ``kind`` with the parser the analysis pages use, then summarise it.

    As :func:`summarize`, except that predictions are checked against ``ratings_frame`` when it is given.

    >>> validate_and_summarize(pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": ["x", "y"]}), "ratings").kind
    'ratings'
    """
    if kind == "predictions" and ratings_frame is not None:
        return summarize_predictions(table, ratings_frame)
    return summarize(table, kind)
