"""Ratings of M configs on the same items, every rating kept: the (items, configs, ratings per item) cube the
(N, K) reproducibility of a ranking resamples (:mod:`nkcore.manymodels.reproduce`).

Read from the long layout ``case, config, repeat, score`` (or ``correct``) that ``compare`` and ``rank`` read: the
case is the item, the repeat one rating of it (e.g. one human rater's score of one system's story, rescaled to
[0, 1]). Items some config lacks are left out (as :func:`nkcore.paired.parse_cases` does); an item may hold fewer
ratings for some config than for others (the cube pads with NaN).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore import paired
from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.kinds import to_text
from nkcore.kinds.columns import REPEAT_COLUMNS, SCORE_COLUMNS

__all__ = ["RatingCube", "cube_from_array", "rating_cube"]


@dataclass(frozen=True, slots=True, eq=False)
class RatingCube:
    """``values[i, j, r]``: rating r of config ``configs[j]`` on item ``items[i]`` (NaN past ``counts[i, j]``)."""

    items: np.ndarray
    configs: tuple[str, ...]
    values: np.ndarray
    counts: np.ndarray

    @property
    def n_items(self) -> int:
        """Items (N) in the full data."""
        return int(self.values.shape[0])

    @property
    def max_ratings(self) -> int:
        """The most ratings any item holds for a config (K of the full data)."""
        return int(self.counts.max())

    @property
    def min_ratings(self) -> int:
        """The fewest ratings any item holds for a config."""
        return int(self.counts.min())

    def full_scores(self) -> np.ndarray:
        """Each config's score on the full data: the mean over items of the item's mean rating."""
        return np.nanmean(self.values, axis=2).mean(axis=0)


def cube_from_array(values: np.ndarray, configs: tuple[str, ...] | list[str] | None = None) -> RatingCube:
    """A cube from an (items, configs, ratings) array, NaN for missing ratings (each item and config needs one).

    >>> c = cube_from_array(np.array([[[1.0, 0.0], [1.0, np.nan]], [[0.0, 0.0], [1.0, 1.0]]]))
    >>> c.configs, c.counts.tolist(), c.full_scores().tolist()
    (('c1', 'c2'), [[2, 1], [2, 2]], [0.25, 1.0])
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 3 or v.shape[0] < 1 or v.shape[1] < 2 or v.shape[2] < 1:
        raise DataError("ranking needs an (items, configs, ratings) array with two configs or more")
    ok = np.isfinite(v)
    counts = ok.sum(axis=2)
    if np.any(counts == 0):
        raise DataError("every item needs at least one rating of every config")
    # pack each cell's ratings to the front, NaN after them
    order = np.argsort(~ok, axis=2, kind="stable")
    packed = np.take_along_axis(v, order, axis=2)
    names = tuple(f"c{j + 1}" for j in range(v.shape[1])) if configs is None else tuple(str(c) for c in configs)
    if len(names) != v.shape[1]:
        raise DataError("one name per config is needed")
    return RatingCube(np.arange(v.shape[0]), names, packed, counts)


def _column(columns: list[object], names: tuple[str, ...]) -> object | None:
    for name in names:
        for c in columns:
            if isinstance(c, str) and c.strip().lower() == name:
                return c
    return None


def rating_cube(frame: pd.DataFrame) -> RatingCube:
    """The cube of a long paired-results frame (``case, config, repeat, score``), checked as ``rank`` checks it.

    >>> df = pd.DataFrame({"case": [1, 1, 1, 1, 2, 2, 2], "config": ["A", "A", "B", "B", "A", "B", "B"],
    ...                    "repeat": [1, 2, 1, 2, 1, 1, 2], "score": [1, 0, 1, 1, 0.5, 0, 1]})
    >>> c = rating_cube(df); c.configs, c.counts.tolist(), c.full_scores().tolist()
    (('A', 'B'), [[2, 2], [1, 2]], [0.5, 0.75])
    """
    table = paired.parse_cases(frame)  # every check of the rows (scores in [0, 1], duplicates, pairing)
    columns = list(frame.columns)
    case_col = _column(columns, ("case",))
    config_col = _column(columns, ("config",))
    score_col = _column(columns, SCORE_COLUMNS)
    repeat_col = _column(columns, REPEAT_COLUMNS)
    if config_col is None or case_col is None or score_col is None or repeat_col is None:
        raise DataError(
            "the (N, K) view of a ranking needs the long layout with one row per rating: case, config, repeat "
            "(the rating's number), score"
        )
    keep = to_text(frame[case_col]).isin(set(table.cases)).to_numpy()
    rows = pd.DataFrame(
        {
            "case": to_text(frame[case_col])[keep].to_numpy(),
            "config": frame[config_col][keep].astype("string").str.strip().to_numpy(),
            "score": pd.to_numeric(frame[score_col][keep], errors="coerce").to_numpy(dtype=float),
        }
    )
    rows["slot"] = rows.groupby(["case", "config"]).cumcount()
    k = int(rows["slot"].max()) + 1
    n, m = table.n_cases, len(table.configs)
    limits.check_memory(8.0 * n * m * k, "the ratings cube")
    case_index = {c: i for i, c in enumerate(table.cases)}
    config_index = {c: j for j, c in enumerate(table.configs)}
    values = np.full((n, m, k), np.nan)
    values[
        rows["case"].map(case_index).to_numpy(),
        rows["config"].map(config_index).to_numpy(),
        rows["slot"].to_numpy(),
    ] = rows["score"].to_numpy()
    return cube_from_array(values, table.configs)
