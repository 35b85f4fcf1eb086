"""Ordered labels (Likert 1-5, 1-6, a -50..50 slider): reading and binning the scale, and the ordinal view of a
dataset (the metrics that use the order and Homan et al.'s check are in ``nkcore.nk.ordinal_scores``).

When every label is a number (at least 3 distinct values), the labels are points on a line and a model can be
judged by how far it is from the raters, not only whether it picks the same label:

- MAE of the item mean rating: mean_i |a_i - h_i|, h_i = sum_m v_m c_im / sum_m c_im (the raters' mean on item i),
  a_i = sum_m v_m q_im (the model's mean: its probabilities q, or its label as a point mass);
- Wasserstein-1 between the raters' and the model's rating distributions on item i, averaged over items:
  W_i = sum_{j < M} |F_h(j) - F_a(j)| (v_{j+1} - v_j), F the cumulative shares (Villani 2009, the 1-D formula);
- Spearman correlation over items of the item means (h_i, a_i): Pearson correlation of their ranks (ties averaged).

A wide scale is binned into stated bins (equal widths over the values seen, each bin named by its midpoint so that
the bins keep their order); the (N, K) engine and the prior fit then work on the bins as ordered categories.

Homan et al. (arXiv 2412.02968) report that MAE needs many raters per item ("even with 1,000 items, >= 25
raters"). :func:`homan_check` tests that on a dataset: at N = 1,000 items it resamples items with replacement and
K ratings per item without replacement (as :mod:`nkcore.nk.resample`), scores the MAE gap of two models (positive:
A is closer to the raters), and finds the smallest K whose comparison is reproducible by the paper's rule
(p < 0.05 against the null of each item's two predictions swapped by a fair coin, :func:`nkcore.nk.pvalue.cell_stats`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.kinds.values import show_value
from nkcore.nk.frames import ratings_of
from nkcore.nk.ordinal_scores import (
    CHECK_KS,
    HOMAN_K,
    HOMAN_N,
    HomanCheck,
    OrdinalScores,
    homan_check,
    item_means,
    ordinal_scores,
    spearman,
    wasserstein_items,
)
from nkcore.ratings import COUNT_PREFIX, predictions_from_frame, text_column
from nkcore.ratings.scale import label_values

__all__ = [
    "HOMAN_K",
    "HOMAN_N",
    "Binning",
    "HomanCheck",
    "OrdinalRun",
    "OrdinalScores",
    "bin_frames",
    "homan_check",
    "is_ordinal_frame",
    "item_mean_values",
    "item_means",
    "label_values",
    "ordinal_frames",
    "ordinal_scores",
    "scale_values",
    "spearman",
    "wasserstein_items",
]

MAX_LEVELS = 11
"""Scales with more distinct values than this are binned (a 0-10 scale is kept as it is)."""
DEFAULT_BINS = 5


@dataclass(frozen=True, slots=True)
class Binning:
    """Bins of a wide numeric scale: bin j holds values in [edges[j], edges[j + 1]) (the last bin closed), and is
    named by its midpoint ``names[j]``; ``text`` states the bins in words."""

    edges: tuple[float, ...]
    names: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class OrdinalRun:
    """Ordinal metrics of a ratings table (and two models): label ``values`` (ordered), ``binning`` (None when the
    scale was kept), ``n_items``, the raters' ``k_max``, per-model ``scores``, the Homan ``check`` (None without
    two models) and a ``sentence``."""

    labels: tuple[str, ...]
    values: tuple[float, ...]
    binning: Binning | None
    n_items: int
    k_max: int
    models: tuple[str, ...]
    scores: tuple[OrdinalScores, ...]
    check: HomanCheck | None
    sentence: str


def _binning(values: np.ndarray, n_bins: int) -> Binning:
    # whole-number ends (-50..50); rounded first so that a float artefact (50.0001) does not widen the scale by one
    lo, hi = math.floor(round(float(values.min()), 2)), math.ceil(round(float(values.max()), 2))
    edges = np.linspace(lo, hi, int(n_bins) + 1)
    mids = (edges[:-1] + edges[1:]) / 2
    names = tuple(f"{x:g}" for x in np.round(mids, 6) + 0.0)  # + 0.0: a midpoint of -0.0 is named "0"
    parts = [
        f"{names[j]} = [{edges[j]:g}, {edges[j + 1]:g}{']' if j == n_bins - 1 else ')'}" for j in range(int(n_bins))
    ]
    return Binning(
        tuple(float(e) for e in edges), names, f"{n_bins} equal bins, each named by its midpoint: " + "; ".join(parts)
    )


def _bin_of(x: np.ndarray, b: Binning) -> np.ndarray:
    edges = np.asarray(b.edges)
    return np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(b.names) - 1)


def bin_frames(
    ratings: pd.DataFrame, predictions: pd.DataFrame | None = None, n_bins: int = DEFAULT_BINS
) -> tuple[pd.DataFrame, pd.DataFrame | None, Binning | None]:
    """Bin a wide numeric scale (more than 11 distinct values) into ``n_bins`` equal bins named by their midpoints.

    Ratings' labels and predictions' ``pred_label`` map to their bin; ``p_<value>`` columns are added up per bin.
    A scale of at most 11 values, or non-numeric labels, is returned unchanged with ``None``.

    >>> r = pd.DataFrame({"item": [1] * 13 + [2] * 13, "rater": list("abcdefghijklm") * 2, "label": range(-50, 51, 4)})
    >>> br, _, b = bin_frames(r)
    >>> br["label"].tolist()[:6], b.names
    (['-40', '-40', '-40', '-40', '-40', '-20'], ('-40', '-20', '0', '20', '40'))
    """
    if not (2 <= int(n_bins) <= 50):
        raise DataError(f"bins must be between 2 and 50, got {n_bins}")
    if "label" not in ratings.columns:  # label counts: the scale is in the count columns' names, never binned here
        return ratings, predictions, None
    labels = text_column(ratings, "label", "label")
    num = pd.to_numeric(labels, errors="coerce").to_numpy(dtype=float)
    uniq = np.unique(num[np.isfinite(num)])
    if not np.all(np.isfinite(num)) or uniq.size <= MAX_LEVELS:
        return ratings, predictions, None
    b = _binning(uniq, int(n_bins))
    out = ratings.copy()
    out["label"] = np.asarray(b.names, dtype=object)[_bin_of(num, b)]
    if predictions is None:
        return out, None, b
    pred = predictions.copy()
    if "pred_label" in pred.columns:
        pl = pd.to_numeric(pred["pred_label"], errors="coerce").to_numpy(dtype=float)
        if not np.all(np.isfinite(pl)):
            raise DataError("pred_label must be a number on every row to bin it with the ratings' scale")
        pred["pred_label"] = np.asarray(b.names, dtype=object)[_bin_of(pl, b)]
    pcols = [str(col) for col in pred.columns if str(col).startswith("p_")]
    if pcols:
        try:
            at = np.array([float(col[2:]) for col in pcols])
        except ValueError as exc:
            raise DataError("probability columns must be named p_<number> to bin them with the ratings") from exc
        which = _bin_of(at, b)
        probs = pred[pcols].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
        pred = pred.drop(columns=pcols)
        for j, name in enumerate(b.names):
            pred[f"p_{name}"] = probs[:, which == j].sum(axis=1)
    return out, pred, b


def ordinal_frames(
    ratings: pd.DataFrame,
    predictions: pd.DataFrame | None = None,
    model_a: str | None = None,
    model_b: str | None = None,
    n_bins: int = DEFAULT_BINS,
    n: int = HOMAN_N,
    rounds: int = 500,
    seed: int = 0,
) -> OrdinalRun:
    """Ordinal metrics of every model in ``predictions`` against the raters, and :func:`homan_check` for A and B.

    ``ratings``: item, rater, label (or label counts); labels must be numbers (at least 3 values); wide scales are
    binned (:func:`bin_frames`). Without predictions only the labels, bins and items are reported.
    """
    rf, pf, binning = bin_frames(ratings, predictions, n_bins)
    r = ratings_of(rf)
    values = label_values(r.labels)
    if values is None:
        raise DataError(
            "ordinal metrics need ordered numeric labels (at least 3, e.g. 1-5); these labels are "
            + ", ".join(show_value(x) for x in r.labels[:6])
        )
    counts = r.counts
    k_max = int(counts.sum(axis=1).max())
    scores: list[OrdinalScores] = []
    models: tuple[str, ...] = ()
    check = None
    sentence = f"Labels are read as an ordered scale: {', '.join(r.labels)}" + (
        f" ({binning.text})." if binning is not None else "."
    )
    if pf is not None:
        p = predictions_from_frame(pf, r)
        models = p.models
        dists = []
        for i in range(len(p.models)):
            if p.probs is not None and np.all(np.isfinite(p.probs[i])):
                dist = p.probs[i]
            else:
                dist = np.where(p.hard[i][:, None] >= 0, np.eye(len(r.labels))[np.maximum(p.hard[i], 0)], np.nan)
            dists.append(dist)
        have = np.all([np.all(np.isfinite(d), axis=1) for d in dists], axis=0) & (counts.sum(axis=1) > 0)
        for name, dist in zip(p.models, dists, strict=True):
            scores.append(ordinal_scores(name, counts[have], dist[have], values))
        if model_a is not None or model_b is not None:
            if model_a is None or model_b is None or model_a == model_b:
                raise DataError("the MAE check needs two different models A and B")
            for name in (model_a, model_b):
                if name not in p.models:
                    raise DataError(
                        f"model {show_value(name)} is not in the predictions; models: {', '.join(p.models)}"
                    )
            ia, ib = p.models.index(model_a), p.models.index(model_b)
            check = homan_check(
                counts[have],
                values,
                item_means(dists[ia][have], values),
                item_means(dists[ib][have], values),
                n,
                CHECK_KS,
                rounds,
                seed,
                (model_a, model_b),
            )
            sentence = check.sentence
    return OrdinalRun(
        labels=r.labels,
        values=tuple(float(x) for x in values),
        binning=binning,
        n_items=len(r.items),
        k_max=k_max,
        models=models,
        scores=tuple(scores),
        check=check,
        sentence=sentence,
    )


_ONE_TYPE = frozenset({"string", "boolean", "integer", "floating", "mixed-integer-float", "empty"})
"""Inferred dtypes of an object column in which the values ``pd.unique`` merges read as the same number (not so
``True`` and ``1``: "True" is no number, "1" is)."""


def _label_numbers(labels: pd.Series) -> np.ndarray:
    """Each distinct label as a number (its text stripped; NaN where it is not one): read once per distinct label,
    not once per rating (a million ratings have a handful of labels). A column of mixed Python types is made text
    first (``True`` and ``1`` are one value to ``pd.unique`` but not as text)."""
    if labels.dtype == object and pd.api.types.infer_dtype(labels, skipna=True) not in _ONE_TYPE:
        labels = labels.astype(str)
    distinct = pd.Series(pd.unique(labels), dtype=object)
    return np.asarray(pd.to_numeric(distinct.astype(str).str.strip(), errors="coerce"), dtype=float)


def is_ordinal_frame(ratings: pd.DataFrame) -> bool:
    """Whether a ratings table's labels are an ordered numeric scale (at least 3 distinct numbers, every label one).

    >>> is_ordinal_frame(pd.DataFrame({"label": [1, 2, 5, 2]})), is_ordinal_frame(pd.DataFrame({"label": ["a", "b", "c"]}))
    (True, False)
    """
    if "label" not in ratings.columns:
        cols = [str(c) for c in ratings.columns if str(c).startswith("count_")]
        return label_values([c[len("count_") :] for c in cols]) is not None
    num = _label_numbers(ratings["label"].dropna())
    return bool(num.size) and bool(np.all(np.isfinite(num))) and np.unique(num).size >= 3


def scale_values(frame: pd.DataFrame) -> np.ndarray:
    """The distinct numbers of an ordered scale, ascending: the labels of a table with one row per rating, or the
    values in the ``count_<value>`` column names of a label-count table (what is not a number is left out).

    >>> scale_values(pd.DataFrame({"label": ["3", " 1", "3", "x"]})).tolist()
    [1.0, 3.0]
    >>> scale_values(pd.DataFrame({"item": ["a"], "count_5": [1], "count_1": [2]})).tolist()
    [1.0, 5.0]
    """
    if "label" in frame.columns:
        num = _label_numbers(frame["label"])
    else:
        cols = [str(c) for c in frame.columns if str(c).startswith(COUNT_PREFIX)]
        num = pd.to_numeric(pd.Series([c[len(COUNT_PREFIX) :] for c in cols]), errors="coerce").to_numpy(dtype=float)
    return np.unique(num[np.isfinite(num)])


def item_mean_values(frame: pd.DataFrame, min_k: int = 1) -> pd.Series:
    """Each item's mean rating on the unbinned scale (items with at least ``min_k`` ratings), indexed by item.

    Formula: h_i = sum_m v_m c_im / sum_m c_im (:func:`item_means`); one row per rating or label counts
    (``count_<value>`` columns).

    >>> item_mean_values(pd.DataFrame({"item": ["a", "a", "b"], "label": [1, 4, 2]})).to_dict()
    {'a': 2.5, 'b': 2.0}
    >>> item_mean_values(pd.DataFrame({"item": ["a", "b"], "count_1": [1, 0], "count_4": [1, 1]}), 2).to_dict()
    {'a': 2.5}
    """
    if "label" in frame.columns:
        values = pd.to_numeric(frame["label"].astype(str).str.strip(), errors="coerce")
        grouped = values.groupby(frame["item"].astype(str), sort=False)
        stats = grouped.agg(["mean", "size"])
        return stats.loc[stats["size"] >= min_k, "mean"].astype(float)
    cols = [str(c) for c in frame.columns if str(c).startswith(COUNT_PREFIX)]
    at = np.array([float(c[len(COUNT_PREFIX) :]) for c in cols])
    counts = frame[cols].apply(pd.to_numeric, errors="coerce").fillna(0).to_numpy(dtype=float)
    keep = counts.sum(axis=1) >= max(1, min_k)
    items = frame["item"].astype(str) if "item" in frame.columns else pd.Series(range(len(frame))).astype(str)
    return pd.Series(item_means(counts[keep], at), index=items[keep].to_numpy(), dtype=float)
