"""Ratings with who gave them: each rating's item, rater and label as integer codes beside the per-item counts.

The one parser of rater ids (raters.py in ``nkcore.ratings``): crossed resampling (:mod:`nkcore.nk.crossed`),
the per-rater summary (:mod:`nkcore.summary.raters`) and the ordinal engine read ratings with rater identity
through it. The per-item label counts come from :func:`nkcore.ratings.ratings_from_frame` (blank cells,
duplicates, limits); this module adds the codes. Reference: Krippendorff, "Content Analysis" (2004), ch. 11
(the reliability data matrix: raters x items, one value per cell).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.ratings.parse import ratings_from_frame
from nkcore.ratings.tables import Ratings, text_column

__all__ = ["RaterRatings", "rater_ratings", "rater_ratings_from_frame"]


@dataclass(frozen=True, slots=True, eq=False)
class RaterRatings:
    """Ratings with who gave them: one entry per rating in ``item_codes``, ``rater_codes``, ``label_codes``.

    ``ratings``: the per-item label counts (:class:`nkcore.ratings.Ratings`, items and labels in natural order);
    codes index ``ratings.items``, ``raters`` and ``ratings.labels``.
    """

    ratings: Ratings
    raters: tuple[str, ...]
    item_codes: np.ndarray = field(repr=False)
    rater_codes: np.ndarray = field(repr=False)
    label_codes: np.ndarray = field(repr=False)

    @property
    def n_raters(self) -> int:
        """Distinct raters."""
        return len(self.raters)


def rater_ratings(
    item_codes: object,
    rater_codes: object,
    label_codes: object,
    n_items: int | None = None,
    n_labels: int | None = None,
) -> RaterRatings:
    """Ratings with rater identity from integer codes (items 0..I-1, raters 0..R-1, labels 0..M-1).

    Names are the codes as text. DataError when the code arrays differ in length, hold a negative code, or a
    rater rates an item twice.

    >>> rr = rater_ratings([0, 0, 1], [0, 1, 0], [1, 0, 1])
    >>> rr.ratings.counts.tolist(), rr.n_raters
    ([[1, 1], [0, 1]], 2)
    """
    it, ra, la = (np.asarray(x, dtype=np.int64).ravel() for x in (item_codes, rater_codes, label_codes))
    if not (it.size == ra.size == la.size) or it.size == 0:
        raise DataError("item, rater and label codes must be non-empty and of the same length")
    if min(int(it.min()), int(ra.min()), int(la.min())) < 0:
        raise DataError("item, rater and label codes must be >= 0")
    ni = int(it.max()) + 1 if n_items is None else int(n_items)
    nl = int(la.max()) + 1 if n_labels is None else int(n_labels)
    nr = int(ra.max()) + 1
    key = it * nr + ra
    if np.unique(key).size != key.size:
        raise DataError("a rater rates the same item more than once: keep one label per rater and item")
    counts = np.bincount(it * nl + la, minlength=ni * nl).reshape(ni, nl).astype(np.int64)
    r = Ratings(tuple(str(i) for i in range(ni)), tuple(str(m) for m in range(nl)), counts, int(it.size), nr)
    return RaterRatings(r, tuple(str(i) for i in range(nr)), it, ra, la)


def rater_ratings_from_frame(frame: pd.DataFrame) -> RaterRatings:
    """A ratings table (item, rater, label; one row per rating) with its rater ids kept.

    Parsed and validated by :func:`nkcore.ratings.ratings_from_frame` (the one parser: blank cells, duplicates and
    limits); this adds each rating's item, rater and label code. A label-count table has no rater ids: DataError.

    >>> rr = rater_ratings_from_frame(pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "label": ["x", "y", "y"]}))
    >>> rr.raters, rr.rater_codes.tolist(), rr.label_codes.tolist()
    (('a', 'b'), [0, 1, 0], [0, 1, 1])
    """
    if "rater" not in frame.columns:
        raise DataError(
            "these ratings have no rater column (label counts carry no rater ids): rater identity needs one row per "
            "rating with item, rater and label"
        )
    r = ratings_from_frame(frame)
    items = text_column(frame, "item", "item id")
    labels = text_column(frame, "label", "label")
    raters = text_column(frame, "rater", "rater id")
    rcodes, runiq = pd.factorize(raters)
    it = pd.Index(r.items).get_indexer(items).astype(np.int64)
    la = pd.Index(r.labels).get_indexer(labels).astype(np.int64)
    return RaterRatings(r, tuple(str(x) for x in runiq), it, rcodes.astype(np.int64), la)
