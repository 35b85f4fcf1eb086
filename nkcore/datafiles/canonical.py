"""One part of an uploaded file as the canonical table the store keeps (the Data page's upload, part by part).

- A label-count file (an item column plus ``count_<label>`` columns: ChaosNLI, CIFAR-10H) is kept as counts:
  ``item`` + one ``count_<label>`` int column per label (:func:`counts_table`).
- Otherwise the column mapping is applied (:func:`nkcore.kinds.apply_mapping`), repeated (item, rater) rows of a
  ratings file are kept once when asked (``first`` / ``last``: :func:`nkcore.kinds.drop_duplicates`), and a wide
  numeric scale is cut into equal bins when ``bins`` is given (:func:`nkcore.nk.ordinal.bin_frames`).
The CLI reads files through :mod:`nkcore.datafiles` with the same rules.
"""

from __future__ import annotations

import pandas as pd

from nkcore.errors import DataError
from nkcore.kinds import KindGuess, apply_mapping, detect_kind, drop_duplicates
from nkcore.kinds.columns import normal_name
from nkcore.nk.ordinal import bin_frames
from nkcore.ratings import COUNT_PREFIX, ratings_from_counts


def counts_table(frame: pd.DataFrame, guess: KindGuess | None = None) -> tuple[pd.DataFrame, dict[str, str]] | None:
    """A label-count file as the canonical counts table (``item`` + ``count_<label>`` int columns) and its mapping.

    ``guess`` is the file's :func:`nkcore.kinds.detect_kind` (detected here when not given); None unless its layout
    is ``counts``. The counts are read by :func:`nkcore.ratings.ratings_from_counts` first, so a bad count, a
    repeated item or a total that disagrees is a DataError naming the rows; count columns that are empty in every
    row (another subset's labels) are left out; an empty cell is 0.

    >>> t, m = counts_table(pd.DataFrame({"uid": ["a", "b"], "count_x": [2, 0], "count_y": [1, 3], "count_z": [None, None]}))
    >>> t.columns.tolist(), t["count_y"].tolist(), m["item"]
    (['item', 'count_x', 'count_y'], [1, 3], 'uid')
    """
    guess = detect_kind(frame) if guess is None else guess
    if guess.layout != "counts" or guess.kind != "ratings":
        return None
    labels = {role[len(COUNT_PREFIX) :]: col for role, col in guess.mapping.items() if role != "item"}
    subset = [c for c in frame.columns if normal_name(c) in ("subset", "split", "dataset")]
    ratings_from_counts(frame.drop(columns=subset), guess.mapping["item"], labels)  # names bad rows, items, totals
    return apply_mapping(frame, "ratings", guess.mapping), dict(guess.mapping)


def canonical_table(
    part: pd.DataFrame, kind: str, mapping: dict[str, str], counts: bool, keep: str = "", bins: int = 0
) -> pd.DataFrame:
    """One part of a file as the canonical table: label counts kept as counts (``counts``), else the ``mapping``
    applied, repeated (item, rater) rows of ratings kept once (``keep`` = "first" or "last"; "" leaves them), and
    the labels of a wide numeric scale replaced by the names of ``bins`` equal bins (0: not binned).

    >>> part = pd.DataFrame({"id": ["a", "a", "b"], "who": ["r1", "r1", "r2"], "y": [1, 9, 5]})
    >>> canonical_table(part, "ratings", {"item": "id", "rater": "who", "label": "y"}, False, "last")["label"].tolist()
    ['9', '5']
    >>> canonical_table(pd.DataFrame({"uid": ["a", "b"], "count_x": [2, 0], "count_y": [1, 3]}), "ratings", {}, True).columns.tolist()
    ['item', 'count_x', 'count_y']
    """
    if counts:
        found = counts_table(part)
        if found is None:
            raise DataError("this part of the file has no label-count columns with values")
        return found[0]
    table = apply_mapping(part, kind, mapping)
    if kind == "ratings" and keep in ("first", "last"):
        table = drop_duplicates(table, keep)
    return binned_labels(table, bins) if bins else table


def binned_labels(table: pd.DataFrame, bins: int) -> pd.DataFrame:
    """A ratings table (item, rater, label) with its numeric labels replaced by the names of ``bins`` equal bins
    over their range (:func:`nkcore.nk.ordinal.bin_frames`).

    >>> binned_labels(pd.DataFrame({"item": ["a", "b"], "label": ["0", "10"]}), 2)["label"].nunique()
    2
    """
    return bin_frames(table, None, int(bins))[0]


__all__ = ["binned_labels", "canonical_table", "counts_table"]
