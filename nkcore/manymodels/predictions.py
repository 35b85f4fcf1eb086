"""(N, K) for M models' predictions against gold ratings: the paper's own setting (two models' predictions scored
against K gold ratings per item, docs/nk-method.md) with M models.

One config of the ratings file is the gold (e.g. the human raters, one rating per repeat); every other config is a
model whose prediction for an item is the mean of its rows for that item (one row: the prediction itself). A model's
score on N items with K gold ratings each is minus its mean absolute error against the mean of the item's K gold
ratings (higher is better, so the winner is the model closest to the gold):

    score_j = - (1 / N) sum_i | p_ij - mean(g_i1, ..., g_iK) |

One resampled study draws N items with replacement and, for each drawn item, K of its gold ratings without
replacement (capped by what it holds); every model is scored against the same draw (the models are paired, as the
paper's two are). The full data's score uses every item and every gold rating.
"""

from __future__ import annotations

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.manymodels.cube import RatingCube

__all__ = ["gold_index", "prediction_full_scores", "prediction_scores"]

_CHUNK_CELLS = 3_000_000


def gold_index(cube: RatingCube, gold: str) -> int:
    """The column of the gold config; DataError naming the configs when it is not one of them, or when fewer than two
    models are left.

    >>> from nkcore.manymodels.cube import cube_from_array
    >>> gold_index(cube_from_array(np.ones((2, 3, 1)), ["h", "a", "b"]), "h")
    0
    """
    if gold not in cube.configs:
        raise DataError(
            f"no config {gold!r} to use as the gold ratings; the configs are {', '.join(repr(c) for c in cube.configs)}"
        )
    if len(cube.configs) < 3:
        raise DataError("ranking models against the gold ratings needs the gold and at least two models")
    return cube.configs.index(gold)


def _split(cube: RatingCube, gold: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = gold_index(cube, gold)
    models = [j for j in range(len(cube.configs)) if j != g]
    predictions = np.nanmean(cube.values[:, models, :], axis=2)  # (N, M): each model's mean row per item
    return cube.values[:, g, :], np.isfinite(cube.values[:, g, :]), predictions


def prediction_full_scores(cube: RatingCube, gold: str) -> np.ndarray:
    """Minus each model's mean absolute error against the mean of all of an item's gold ratings (models in the
    cube's order, the gold left out).

    >>> from nkcore.manymodels.cube import cube_from_array
    >>> c = cube_from_array(np.array([[[0.0, 1.0], [0.5, 0.5], [1.0, 1.0]], [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]]),
    ...                     ["gold", "a", "b"])
    >>> prediction_full_scores(c, "gold").tolist()
    [-0.0, -0.75]
    """
    values, ok, predictions = _split(cube, gold)
    gold_mean = np.where(ok, values, 0.0).sum(axis=1) / ok.sum(axis=1)
    return -np.abs(predictions - gold_mean[:, None]).mean(axis=0)


def prediction_scores(
    cube: RatingCube, gold: str, n_items: int, k: int, draws: int, seed: int | np.random.Generator = 0
) -> np.ndarray:
    """(draws x M models) scores of D resampled studies: N items with replacement, K gold ratings per item without
    replacement (capped), every model against the same draw.

    >>> from nkcore.manymodels.cube import cube_from_array
    >>> c = cube_from_array(np.array([[[0.0, 1.0], [0.5, 0.5], [1.0, 1.0]]] * 2), ["gold", "a", "b"])
    >>> prediction_scores(c, "gold", 2, 2, 2).tolist()
    [[-0.0, -0.5], [-0.0, -0.5]]
    """
    values, ok, predictions = _split(cube, gold)
    rng = as_generator(seed)
    limits.check("rounds", draws, "the (N, K) resampling", counted="draws")
    full_n, kmax = values.shape
    m = predictions.shape[1]
    filled = np.where(ok, values, 0.0)
    out = np.empty((draws, m))
    step = max(1, _CHUNK_CELLS // max(1, n_items * max(m, kmax)))
    for start in range(0, draws, step):
        d = min(step, draws - start)
        idx = rng.integers(0, full_n, size=(d, n_items))
        v, valid = filled[idx], ok[idx]
        if k >= kmax:
            chosen = valid
        else:
            keys = np.where(valid, rng.random(valid.shape), np.inf)
            chosen = valid & (np.argsort(np.argsort(keys, axis=2), axis=2) < k)
        gold_mean = (v * chosen).sum(axis=2) / chosen.sum(axis=2)
        out[start : start + d] = -np.abs(predictions[idx] - gold_mean[..., None]).mean(axis=1)
    return out
