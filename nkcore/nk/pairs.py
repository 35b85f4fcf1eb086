"""Real data as the (N, K) engine reads it: gold rating counts and two models' predictions, aligned per item.

:func:`prepare_pair` checks and aligns gold counts (items, M) with two models' hard labels and/or probabilities
(:class:`PairData`); :func:`full_gaps` scores them on the full data (every usable item, all its ratings: the
direction resampling rounds should find); :func:`qualifying_items` counts the items a round can draw from at each
K. Reference: spec "Real data".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from nkcore.errors import DataError
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.scores import plurality, score_gap


@dataclass(frozen=True, slots=True)
class PairData:
    """Validated inputs: gold ``counts`` (items, M) and the two models as ``dist_*`` (items, M) + ``labels_*``.

    ``is_prob``: the distributions are the models' probabilities (else one-hot hard labels, a K = 1 machine).
    ``used``: indices of the items kept (ratings and both predictions present) into the caller's arrays.
    """

    counts: np.ndarray = field(repr=False)
    dist_a: np.ndarray = field(repr=False)
    dist_b: np.ndarray = field(repr=False)
    labels_a: np.ndarray = field(repr=False)
    labels_b: np.ndarray = field(repr=False)
    is_prob: bool
    used: np.ndarray = field(repr=False)


def prepare_pair(
    counts: object,
    hard_a: object | None = None,
    hard_b: object | None = None,
    probs_a: object | None = None,
    probs_b: object | None = None,
) -> PairData:
    """Check and align gold counts (items, M) with two models' hard labels (items,) and/or probabilities (items, M).

    Hard labels are int codes into the M categories, -1 (or NaN probabilities) where a model has no prediction.
    Distribution metrics use the probabilities when both models have them, else the one-hot hard labels.
    Items without ratings or without a prediction from both models are left out.
    """
    c = np.asarray(counts)
    if c.ndim != 2 or c.shape[1] < 2:
        raise DataError(f"ratings counts must be items x labels with at least 2 labels, got shape {c.shape}")
    if not np.issubdtype(c.dtype, np.number) or np.any(c < 0) or np.any(c != np.round(c)):
        raise DataError("ratings counts must be whole numbers >= 0")
    c = c.astype(np.int64)
    n_items, m = c.shape

    def side(hard: object | None, probs: object | None, name: str) -> tuple[np.ndarray | None, np.ndarray | None]:
        h = p = None
        if hard is not None:
            h = np.asarray(hard)
            if h.shape != (n_items,):
                raise DataError(f"model {name}: hard labels must have one entry per item ({n_items}), got {h.shape}")
            if np.any((h < -1) | (h >= m)):
                raise DataError(f"model {name}: label codes must be -1 (missing) or 0..{m - 1}")
            h = h.astype(np.int64)
        if probs is not None:
            p = np.asarray(probs, dtype=float)
            if p.shape != (n_items, m):
                raise DataError(f"model {name}: probabilities must be items x labels {(n_items, m)}, got {p.shape}")
        if h is None and p is None:
            raise DataError(f"model {name}: give hard labels or probabilities")
        return h, p

    ha, pa = side(hard_a, probs_a, "A")
    hb, pb = side(hard_b, probs_b, "B")
    is_prob = pa is not None and pb is not None

    def present(h: np.ndarray | None, p: np.ndarray | None) -> np.ndarray:
        ok = np.ones(n_items, dtype=bool)
        if h is not None:
            ok &= h >= 0
        if p is not None and (h is None or is_prob):
            ok &= np.all(np.isfinite(p), axis=1)
        return ok

    used = np.flatnonzero((c.sum(axis=1) > 0) & present(ha, pa) & present(hb, pb))
    if used.size < 2:
        raise DataError("fewer than 2 items have ratings and a prediction from both models")
    c = c[used]

    def finish(h: np.ndarray | None, p: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        if p is not None:
            p = np.clip(p[used], 0.0, None)
            tot = p.sum(axis=1, keepdims=True)
            if np.any(tot <= 0):
                raise DataError("a model's probabilities sum to 0 on some items")
            p = p / tot
        if h is not None:
            lab = h[used]
        else:
            assert p is not None  # side() refuses a model with neither
            lab = plurality(p)
        dist = p if is_prob and p is not None else np.eye(m)[lab]
        return dist, lab

    da, la = finish(ha, pa)
    db, lb = finish(hb, pb)
    return PairData(c, da, db, la, lb, is_prob, used)


def full_gaps(data: PairData, metrics: Sequence[str] = PAPER_METRICS) -> dict[str, float]:
    """Score gaps on the full data (every usable item, all its ratings): the direction the rounds should find."""
    mts = parse_metrics(metrics)
    return {
        mt: float(score_gap(mt, data.counts, data.dist_a, data.dist_b, data.labels_a, data.labels_b, data.is_prob))
        for mt in mts
    }


def qualifying_items(counts: np.ndarray, ks: Sequence[int]) -> dict[int, int]:
    """How many items have at least K ratings, for each K (the items a round can draw from).

    >>> qualifying_items(np.array([[3, 1], [1, 0], [5, 5]]), [1, 4, 10])
    {1: 3, 4: 2, 10: 1}
    """
    tot = np.asarray(counts).sum(axis=1)
    return {int(k): int(np.count_nonzero(tot >= k)) for k in ks}


__all__ = ["PairData", "full_gaps", "prepare_pair", "qualifying_items"]
