"""The parsed ratings and predictions: count matrices over items and labels, and column helpers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nkcore.common.rows import format_rows
from nkcore.errors import DataError
from nkcore.kinds import show_names, to_text

# How far a row of probabilities may be from summing to 1 (files often round to 6 decimals).
PROB_TOLERANCE = 1e-3
# Bytes per cell of the items x labels count table while it is built and used (int64 tally, the table, the float
# copies and temporaries of a prior fit): checked against the memory limit before the table is made. Measured: a
# fresh ``nk --ratings`` on 111,848 items x 100 labels peaks about 700 MB above the interpreter (about 62 bytes a
# cell), so 96 keeps the largest accepted table (11 million cells at the 1 GiB default) under 1 GiB in all.
COUNT_TABLE_BYTES_PER_CELL = 96


@dataclass(frozen=True, slots=True, eq=False)
class Ratings:
    """Per-item label counts.

    ``items``: item ids in natural order; ``labels``: label names in natural order (numeric labels by value);
    ``counts``: (items (N), labels (M)) int64, ``counts[i, m]`` = ratings of item i with label m;
    ``n_ratings`` = counts.sum(); ``n_raters``: distinct raters (for label counts, which carry no rater ids, the
    largest ratings per item (K): a lower bound); ``from_counts``: True when read from a label-count table (no
    rater ids, one row per item).
    """

    items: tuple[str, ...]
    labels: tuple[str, ...]
    counts: np.ndarray
    n_ratings: int
    n_raters: int
    from_counts: bool = False

    @property
    def ratings_per_item(self) -> np.ndarray:
        """Ratings per item (K_i), shape (N,)."""
        return self.counts.sum(axis=1)


@dataclass(frozen=True, slots=True, eq=False)
class Predictions:
    """Each model's predictions on the rated items.

    ``models``: model names in order of first appearance; ``labels``: the ratings' labels; ``hard``: (models, items)
    int64 label codes into ``labels``, -1 where the model has no prediction for the item; ``probs``:
    (models, items, labels) float64 (NaN where missing) or None when the file has no p_<label> columns;
    ``items``: the ratings' items (the second axis).
    """

    models: tuple[str, ...]
    labels: tuple[str, ...]
    hard: np.ndarray
    probs: np.ndarray | None
    items: tuple[str, ...] = field(default=())


def need_columns(df: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    """DataError naming the canonical ``columns`` that ``df`` lacks (and the columns it has)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        have = show_names(df.columns)
        raise DataError(
            f"{what} need the columns {', '.join(columns)}; missing: {', '.join(missing)} (the table has: {have}). "
            "Map the file's columns first."
        )


def text_column(df: pd.DataFrame, col: str, what: str) -> pd.Series:
    """Stripped text values of ``col`` (RangeIndex); DataError naming the rows that are missing or blank."""
    text = to_text(df[col]).reset_index(drop=True)
    blank = (text.isna() | (text == "")).to_numpy()
    if blank.any():
        rows = np.flatnonzero(blank)
        raise DataError(f"missing or blank {what} in {format_rows(rows)} (column {col!r}); every row needs one")
    return text
