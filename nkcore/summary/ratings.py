"""Summary of a ratings table: items (N), ratings, ratings per item (K), raters, labels, agreement, tied pluralities.

The table is parsed by the one ratings parser, :func:`nkcore.ratings.ratings_from_frame` (one row per rating), or,
for a label-count table (item + one ``count_<label>`` column per label, no rater column), by
:func:`nkcore.ratings.ratings_from_counts`; the summary reads the resulting :class:`nkcore.ratings.Ratings` (per-item
label counts). Label counts carry no rater ids: their summary says the raters are unknown and counts the ratings
from the counts, never "one row per rating".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.kinds.values import show_value
from nkcore.ratings import COUNT_PREFIX, Ratings, ratings_from_counts, ratings_from_frame, text_column
from nkcore.ratings.scale import label_values
from nkcore.summary.results import LabelShare, SummaryNumber, label_shares, number_text, share_text, whole

__all__ = [
    "RatingsSummary",
    "agreement_sentence",
    "alpha_level",
    "coincidences",
    "is_count_table",
    "krippendorff_alpha",
    "ratings_of_table",
    "scale_alpha",
    "summarize_ratings",
    "summarize_ratings_frame",
    "tied_plurality",
]


@dataclass(frozen=True, slots=True)
class RatingsSummary:
    """Summary of a ratings table (see :func:`summarize_ratings`)."""

    kind: str
    n_items: int
    n_ratings: int
    n_raters: int | None  # None for label counts: they carry no rater ids (the largest K is ``k_max``)
    k_min: int
    k_median: float
    k_max: int
    labels: tuple[LabelShare, ...]
    alpha: float  # Krippendorff's alpha at ``alpha_level``, the level the labels call for
    n_tied: int
    tied_share: float
    numbers: tuple[SummaryNumber, ...]
    k_hist: tuple[tuple[int, int], ...] = ()  # (ratings per item K, number of items with that K)
    min_k: int = 1  # items with fewer ratings were left out (see ``summarize_ratings_frame(..., min_k=)``)
    n_items_dropped: int = 0
    alpha_level: str = "nominal"  # "ordinal" for an ordered numeric scale (1-5), else "nominal"


def coincidences(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's (labels x labels) coincidence matrix of per-item label counts, without an items x labels x
    labels array: o = sum_u (n_u n_u^T - diag(n_u)) / (m_u - 1) over items u with m_u >= 2 ratings, computed as
    W^T C - diag(W^T 1) with C the pairable rows and W = C / (m - 1) (memory: two items x labels float arrays).

    Reference: K. Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), section C.

    >>> coincidences(np.array([[3, 0], [0, 3], [2, 1]])).tolist()
    [[4.0, 1.0], [1.0, 3.0]]
    """
    counts = np.asarray(counts)
    m = counts.sum(axis=1)
    pairable = counts[m >= 2].astype(np.float64)
    weighted = pairable / (m[m >= 2] - 1).astype(np.float64)[:, None]
    o = weighted.T @ pairable
    o[np.diag_indices_from(o)] -= weighted.sum(axis=0)
    return o


def _distances(n_v: np.ndarray, scale_level: str, values: np.ndarray | None) -> np.ndarray:
    """delta^2 between labels (in the order of ``n_v``): [c != k] (nominal), the squared rank distance
    (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 (ordinal) or (v_c - v_k)^2 (interval)."""
    size = len(n_v)
    if scale_level == "nominal":
        return 1.0 - np.eye(size)
    if scale_level == "interval":
        v = np.asarray(values, dtype=np.float64)
        return (v[:, None] - v[None, :]) ** 2
    cum = np.concatenate([[0.0], np.cumsum(n_v)])
    lo = np.minimum.outer(np.arange(size), np.arange(size))
    hi = np.maximum.outer(np.arange(size), np.arange(size))
    between = cum[hi + 1] - cum[lo]
    return (between - (n_v[:, None] + n_v[None, :]) / 2.0) ** 2


def krippendorff_alpha(counts: np.ndarray, scale_level: str = "nominal", values: np.ndarray | None = None) -> float:
    """Krippendorff's alpha from per-item label counts, at ``scale_level`` (nominal, or ordinal / interval with the labels'
    numeric ``values``, one per column).

    alpha = 1 - D_o / D_e, with the coincidence matrix o_ck = sum_u n_uc (n_uk - [c = k]) / (m_u - 1) over items u
    with m_u >= 2 ratings (:func:`coincidences`), n_c = sum_k o_ck, n = sum_c n_c, the expected coincidences
    e_ck = n_c (n_k - [c = k]) / (n - 1), D_o = sum_{c, k} o_ck delta^2_ck, D_e = sum_{c, k} e_ck delta^2_ck,
    with delta^2 = [c != k] (nominal), the squared rank distance through the marginals (ordinal) or (v_c - v_k)^2
    (interval). Returns NaN when it is undefined (no item with two ratings, or a single label among the pairable
    ratings). The same numbers as the ``krippendorff`` package (the tests' oracle), whose items x labels x labels
    array would take gigabytes for a million ratings.

    Reference: K. Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), sections C (nominal) and E
    (ordinal, interval); its 4-observer x 12-unit example gives 0.743 (nominal).

    >>> round(krippendorff_alpha(np.array([[3, 0], [0, 3], [2, 1]])), 4)  # by hand: 1 - (2/9) / (5/9)
    0.6
    """
    counts = np.asarray(counts, dtype=np.int64)
    m = counts.sum(axis=1)
    if not (m >= 2).any() or np.count_nonzero(counts[m >= 2].sum(axis=0)) < 2:
        return float("nan")
    if scale_level != "nominal":
        if values is None or len(values) != counts.shape[1]:
            raise DataError(f"{scale_level} agreement needs one number per label")
        order = np.argsort(np.asarray(values, dtype=float), kind="stable")
        counts = counts[:, order]
        values = np.asarray(values, dtype=float)[order]
    o = coincidences(counts)
    n_v = o.sum(axis=0)
    e = (np.outer(n_v, n_v) - np.diag(n_v)) / (n_v.sum() - 1)
    d = _distances(n_v, scale_level, values)
    expected = float((e * d).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(1.0 - float((o * d).sum()) / expected) if expected else float("nan")


def alpha_level(labels: tuple[str, ...]) -> str:
    """The level of measurement the labels call for: ``ordinal`` for an ordered numeric scale (at least three
    numbers, e.g. 1-5; :func:`nkcore.ratings.scale.label_values`), else ``nominal``.

    >>> alpha_level(("1", "2", "3", "4", "5")), alpha_level(("yes", "no")), alpha_level(("0", "1"))
    ('ordinal', 'nominal', 'nominal')
    """
    return "ordinal" if label_values(labels) is not None else "nominal"


def scale_alpha(ratings: Ratings) -> tuple[float, str]:
    """(alpha, scale_level): Krippendorff's alpha at the level the labels call for (:func:`alpha_level`)."""
    scale_level = alpha_level(tuple(ratings.labels))
    values = label_values(ratings.labels) if scale_level != "nominal" else None
    return krippendorff_alpha(ratings.counts, scale_level, values), scale_level


def agreement_sentence(alpha: float, scale_level: str = "nominal") -> str:
    """Plain words for Krippendorff's alpha, using Krippendorff's own thresholds (0.667 and 0.8).

    Reference: K. Krippendorff, "Content Analysis: An Introduction to Its Methodology" (2nd ed., 2004), the
    standards for data reliability: rely on alpha >= 0.8, draw only tentative conclusions for 0.667 <= alpha < 0.8.

    >>> agreement_sentence(0.85).startswith("Raters agree well")
    True
    """
    if not math.isfinite(alpha):
        return "Agreement cannot be computed: no item has two ratings with different possible labels."
    scale = "(1 = perfect agreement, 0 = no better than chance)"
    if scale_level != "nominal":
        scale = f"({scale_level} alpha, for ordered labels: a near miss counts less than a far one; {scale[1:]}"
    if alpha >= 0.8:
        return f"Raters agree well: alpha {alpha:.3f} is at least 0.8, Krippendorff's bar for reliable data {scale}."
    if alpha >= 0.667:
        return (
            f"Raters agree moderately: alpha {alpha:.3f} is between 0.667 and 0.8, enough only for tentative "
            f"conclusions by Krippendorff's standard {scale}."
        )
    if alpha > 0:
        return (
            f"Raters often disagree: alpha {alpha:.3f} is below 0.667 {scale}. The labels are subjective or noisy, "
            "so each item needs several ratings per item (K) to pin down its label distribution."
        )
    return f"Raters agree no more than chance would: alpha {alpha:.3f} {scale}."


def tied_plurality(counts: np.ndarray) -> np.ndarray:
    """Boolean per item: the largest label count is shared by two or more labels (no single plurality label).

    >>> tied_plurality(np.array([[2, 2, 0], [3, 1, 0]])).tolist()
    [True, False]
    """
    counts = np.asarray(counts)
    top = counts.max(axis=1, keepdims=True)
    return np.asarray((counts == top).sum(axis=1) >= 2)


def _alpha_text(alpha: float) -> str:
    return "n/a" if not math.isfinite(alpha) else f"{alpha:.3f}"


def summarize_ratings(ratings: Ratings) -> RatingsSummary:
    """Items (N), ratings, ratings per item (K) min / median / max, raters, labels, agreement, tied pluralities.

    K_i = sum_m counts[i, m]; alpha is :func:`krippendorff_alpha` of the counts; an item's plurality is tied when
    :func:`tied_plurality` holds for it.

    >>> r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"), "label": list("xxxy")}))
    >>> s = summarize_ratings(r)
    >>> s.n_items, s.k_median, s.n_tied
    (2, 2.0, 1)
    """
    counts = ratings.counts
    k = counts.sum(axis=1)
    labels = label_shares(ratings.labels, counts.sum(axis=0))
    alpha, scale_level = scale_alpha(ratings)
    n_tied = int(tied_plurality(counts).sum())
    n = len(ratings.items)
    tied_share = n_tied / n
    top = max(labels, key=lambda s: s.count)
    k_min, k_med, k_max = int(k.min()), float(np.median(k)), int(k.max())
    k_sentence = (
        f"Every item has {plural(k_min, 'rating')}: ratings per item (K) = {k_min:,}."
        if k_min == k_max
        else f"Items have between {k_min:,} and {k_max:,} ratings each (ratings per item, K); the median item has "
        f"{number_text(k_med)}."
    )
    if ratings.from_counts:
        rows_sentence = f"{ratings.n_ratings:,} ratings in total, added up from the label counts (one row per item)."
        raters = SummaryNumber(
            "raters",
            float("nan"),
            "not recorded",
            "Label counts carry no rater ids, so how many different raters gave them is not known.",
        )
    else:
        rows_sentence = f"{ratings.n_ratings:,} ratings in total, one row of the file each."
        raters = SummaryNumber(
            "raters",
            ratings.n_raters,
            whole(ratings.n_raters),
            "1 rater gave them." if ratings.n_raters == 1 else f"{ratings.n_raters:,} different raters gave them.",
        )
    numbers = (
        SummaryNumber("items (N)", n, whole(n), f"{n:,} distinct items (N) were rated."),
        SummaryNumber("ratings", ratings.n_ratings, whole(ratings.n_ratings), rows_sentence),
        SummaryNumber(
            "ratings per item (K), min / median / max",
            k_med,
            f"{k_min:,} / {number_text(k_med)} / {k_max:,}",
            k_sentence,
        ),
        raters,
        SummaryNumber(
            "labels",
            len(labels),
            whole(len(labels)),
            f"{len(labels)} label classes; the most common is {show_value(top.label)} "
            f"({share_text(top.share)} of all ratings).",
        ),
        SummaryNumber(
            f"agreement (Krippendorff's alpha, {scale_level})",
            alpha,
            _alpha_text(alpha),
            agreement_sentence(alpha, scale_level),
        ),
        SummaryNumber(
            "items with a tied plurality",
            tied_share,
            share_text(tied_share),
            f"{n_tied:,} of {n:,} items ({share_text(tied_share)}) have a tie for the most common label, so their "
            "majority label is not defined.",
        ),
    )
    k_values, k_counts = np.unique(k, return_counts=True)
    return RatingsSummary(
        "ratings",
        n,
        ratings.n_ratings,
        None if ratings.from_counts else ratings.n_raters,
        k_min,
        k_med,
        k_max,
        labels,
        alpha,
        n_tied,
        tied_share,
        numbers,
        tuple((int(a), int(b)) for a, b in zip(k_values, k_counts, strict=True)),
        alpha_level=scale_level,
    )


def is_count_table(frame: pd.DataFrame) -> bool:
    """Whether a canonical ratings table holds label counts (no ``rater`` column, ``count_<label>`` columns).

    >>> is_count_table(pd.DataFrame({"item": [1], "count_x": [2], "count_y": [0]}))
    True
    >>> is_count_table(pd.DataFrame({"item": [1], "rater": ["a"], "label": ["x"]}))
    False
    """
    return "rater" not in frame.columns and any(str(c).lower().startswith(COUNT_PREFIX) for c in frame.columns)


def ratings_of_table(frame: pd.DataFrame) -> Ratings:
    """The :class:`Ratings` of a canonical ratings table: label counts (:func:`is_count_table`) kept as counts by
    :func:`nkcore.ratings.ratings_from_counts`, else one row per rating by :func:`nkcore.ratings.ratings_from_frame`.

    >>> ratings_of_table(pd.DataFrame({"item": ["a", "b"], "count_x": [2, 0], "count_y": [1, 3]})).counts.tolist()
    [[2, 1], [0, 3]]
    """
    if is_count_table(frame):
        return ratings_from_counts(frame, "item" if "item" in frame.columns else None)
    return ratings_from_frame(frame)


def summarize_ratings_frame(frame: pd.DataFrame, min_k: int = 1) -> RatingsSummary:
    """:func:`summarize_ratings` of a ratings table, keeping only items with at least ``min_k`` ratings per item (K).

    The whole table is parsed first (:func:`ratings_of_table`: one row per rating, or label counts); the rows of
    the kept items (item ids read by the parser's own rule, :func:`nkcore.ratings.text_column`) are parsed again, so
    raters and labels are recounted. DataError when fewer than 2 items are kept.

    >>> df = pd.DataFrame({"item": [1, 1, 2, 3, 3], "rater": list("ababa"), "label": list("xyxyy")})
    >>> s = summarize_ratings_frame(df, min_k=2)
    >>> s.n_items, s.n_items_dropped, s.numbers[-1].label
    (2, 1, 'items left out')
    """
    full = ratings_of_table(frame)
    min_k = int(min_k)
    if min_k <= 1:
        return summarize_ratings(full)
    k = full.ratings_per_item
    keep = np.asarray(full.items, dtype=object)[k >= min_k]
    if len(keep) < 2:
        raise DataError(
            f"only {len(keep)} of {len(full.items):,} items have at least {min_k} ratings per item (K); "
            f"the most any item has is {int(k.max())}. Lower the minimum."
        )
    kept = frame[text_column(frame, "item", "item id").isin(set(keep.tolist())).to_numpy()]
    s = summarize_ratings(ratings_of_table(kept.reset_index(drop=True)))
    dropped = len(full.items) - len(keep)
    note = SummaryNumber(
        "items left out",
        dropped,
        whole(dropped),
        f"{dropped:,} of {len(full.items):,} items have fewer than {min_k} ratings per item (K) and are left out "
        "of every number above.",
    )
    return replace(s, numbers=(*s.numbers, note), min_k=min_k, n_items_dropped=dropped)
