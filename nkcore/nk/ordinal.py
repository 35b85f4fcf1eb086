"""Ordered labels (Likert 1-5, 1-6, a -50..50 slider): metrics that use the order, and how many raters MAE needs.

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
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from nkcore.common import limits
from nkcore.common.formatting import plural
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.kinds.values import show_value
from nkcore.nk.draws import draw_k
from nkcore.nk.frames import ratings_of
from nkcore.nk.pvalue import SIGNIFICANCE, cell_stats, p_standard_error
from nkcore.nk.resample import RESAMPLE_WORK_FACTOR
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

HOMAN_N = 1000
"""Items (N) of Homan et al.'s claim."""
HOMAN_K = 25
"""Ratings per item (K) Homan et al. say MAE needs."""
MAX_LEVELS = 11
"""Scales with more distinct values than this are binned (a 0-10 scale is kept as it is)."""
DEFAULT_BINS = 5
CHECK_KS: tuple[int, ...] = (*range(1, 11), 15, 20, 25, 30, 40, 50)


@dataclass(frozen=True, slots=True)
class Binning:
    """Bins of a wide numeric scale: bin j holds values in [edges[j], edges[j + 1]) (the last bin closed), and is
    named by its midpoint ``names[j]``; ``text`` states the bins in words."""

    edges: tuple[float, ...]
    names: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class OrdinalScores:
    """One model against the raters on ordered labels: ``mae``, ``wasserstein`` (mean over items), ``spearman``
    (over items of the item means), ``n_items``."""

    model: str
    mae: float
    wasserstein: float
    spearman: float
    n_items: int


@dataclass(frozen=True, slots=True)
class HomanCheck:
    """Is MAE's comparison of two models reproducible at N items with K ratings per item, for each K tried?

    ``p_by_k``: the paper's p of the MAE gap per K (the items with at least K ratings are drawn from);
    ``smallest_k``: the smallest K with p < 0.05 (None: none tried); ``holds``: True when that K is at least 25 or
    no K up to at least 25 suffices, False when a K below 25 suffices, None when the data stop below 25 ratings per
    item and no K suffices (the claim cannot be tested); ``full_gap``: MAE_B - MAE_A on all ratings (``mae_a``,
    ``mae_b``); ``p_error_by_k``: each p's Monte Carlo standard error from its ``rounds``
    (:func:`nkcore.nk.pvalue.p_standard_error`). The verdict is about this pair of models only: a closer pair can
    need more ratings per item.
    """

    n: int
    rounds: int
    full_gap: float
    p_by_k: dict[int, float] = field(compare=False)
    smallest_k: int | None
    holds: bool | None
    sentence: str
    p_error_by_k: dict[int, float] = field(default_factory=dict, compare=False)
    mae_a: float = math.nan
    mae_b: float = math.nan


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


def item_means(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mean rating per item: sum_m v_m c_im / sum_m c_im (counts or probabilities, last axis labels).

    >>> item_means(np.array([[1, 0, 1], [0, 2, 0]]), np.array([1.0, 2.0, 3.0])).tolist()
    [2.0, 2.0]
    """
    c = np.asarray(counts, dtype=float)
    return np.asarray((c @ np.asarray(values, dtype=float)) / c.sum(axis=-1))


def wasserstein_items(counts: np.ndarray, dist: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Wasserstein-1 per item between the raters' label shares and a model's distribution on the points ``values``.

    Formula: W_i = sum_{j < M} |F_h(j) - F_a(j)| (v_{j+1} - v_j), F the cumulative shares (values ascending).

    >>> wasserstein_items(np.array([[2, 0, 0]]), np.array([[0.0, 0.0, 1.0]]), np.array([1.0, 2.0, 4.0])).tolist()
    [3.0]
    """
    v = np.asarray(values, dtype=float)
    h = np.asarray(counts, dtype=float)
    h = h / h.sum(axis=-1, keepdims=True)
    a = np.asarray(dist, dtype=float)
    a = a / a.sum(axis=-1, keepdims=True)
    diff = np.abs(np.cumsum(h - a, axis=-1)[..., :-1])
    return np.asarray(diff @ np.diff(v))


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation: Pearson correlation of the average ranks (NaN when a side is constant).

    >>> spearman(np.array([1.0, 2.0, 3.0]), np.array([10.0, 30.0, 20.0]))
    0.5
    """
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = math.sqrt(float(np.sum(rx**2) * np.sum(ry**2)))
    return float(np.sum(rx * ry) / den) if den > 0 else float("nan")


def ordinal_scores(model: str, counts: np.ndarray, dist: np.ndarray, values: np.ndarray) -> OrdinalScores:
    """MAE of the item mean, mean Wasserstein-1 and Spearman of the item means, for one model's distributions.

    >>> s = ordinal_scores("m", np.array([[1, 1, 0], [0, 0, 2], [2, 0, 0]]), np.eye(3)[[1, 2, 0]], np.arange(3.0))
    >>> s.mae, s.wasserstein, s.spearman
    (0.16666666666666666, 0.16666666666666666, 1.0)
    """
    h, a = item_means(counts, values), item_means(dist, values)
    return OrdinalScores(
        model=model,
        mae=float(np.mean(np.abs(a - h))),
        wasserstein=float(np.mean(wasserstein_items(counts, dist, values))),
        spearman=spearman(h, a),
        n_items=int(h.size),
    )


def homan_check(
    counts: np.ndarray,
    values: np.ndarray,
    mean_a: np.ndarray,
    mean_b: np.ndarray,
    n: int = HOMAN_N,
    ks: Sequence[int] = CHECK_KS,
    rounds: int = 500,
    seed: int | np.random.Generator = 0,
    names: tuple[str, str] = ("A", "B"),
) -> HomanCheck:
    """The smallest K at which the MAE comparison of two models is reproducible at N items (see the module docstring).

    ``mean_a`` / ``mean_b``: each model's mean rating per item. K values no item has are not tried. Seeds:
    ``SeedSequence(seed, spawn_key=(K, side, chunk))``. Limits: rounds and work (``sim_work``) before any draw.
    """
    c = np.asarray(counts, dtype=np.int64)
    v = np.asarray(values, dtype=float)
    ma, mb = np.asarray(mean_a, dtype=float), np.asarray(mean_b, dtype=float)
    rounds, n = int(rounds), int(n)
    if rounds < 2:
        raise DataError(f"rounds must be at least 2, got {rounds}")
    if n < 1:
        raise DataError(f"items (N) must be at least 1, got {n}")
    tot = c.sum(axis=1)
    tried = sorted({int(k) for k in ks if 1 <= int(k) <= int(tot.max())})
    m = c.shape[1]
    limits.check("rounds", rounds, "the request")
    limits.check("sim_work", RESAMPLE_WORK_FACTOR * 2 * rounds * n * m * sum(min(k, 40) for k in tried), "the check")
    chunk = max(1, min(rounds, (1 << 18) // n))
    limits.check_memory(chunk * n * m * 8 * 12, "the MAE check at its peak")
    entropy = as_entropy(seed)
    h_full = item_means(c, v)
    mae_a, mae_b = float(np.mean(np.abs(ma - h_full))), float(np.mean(np.abs(mb - h_full)))
    full_gap = mae_b - mae_a
    p_by_k: dict[int, float] = {}
    p_err: dict[int, float] = {}
    for k in tried:
        qual = np.flatnonzero(tot >= k)
        sides: list[np.ndarray] = []
        for side in (0, 1):
            parts = []
            for ch, start in enumerate(range(0, rounds, chunk)):
                size = min(chunk, rounds - start)
                rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(k, side, ch)))
                idx = qual[rng.integers(0, qual.size, size=(size, n))]
                gold = draw_k(rng, c[idx.ravel()], k).reshape(size, n, m)
                h = gold @ v / k
                a, b = ma[idx], mb[idx]
                if side == 1:
                    swap = rng.random((size, n)) < 0.5
                    a, b = np.where(swap, b, a), np.where(swap, a, b)
                parts.append(np.mean(np.abs(b - h), axis=1) - np.mean(np.abs(a - h), axis=1))
            sides.append(np.concatenate(parts))
        p_by_k[k] = cell_stats(sides[0], sides[1]).p
        p_err[k] = p_standard_error(sides[1], sides[0])
    smallest = next((k for k in tried if p_by_k[k] < SIGNIFICANCE), None)
    most = tried[-1] if tried else 0
    if smallest is not None:
        holds: bool | None = smallest >= HOMAN_K
    else:
        holds = True if most >= HOMAN_K else None
    where = _Pair(names, mae_a, mae_b, rounds, p_by_k[smallest], p_err[smallest]) if smallest is not None else None
    sentence = _homan_sentence(n, smallest, holds, most, names, where)
    return HomanCheck(n, rounds, full_gap, p_by_k, smallest, holds, sentence, p_err, mae_a, mae_b)


@dataclass(frozen=True, slots=True)
class _Pair:
    """What the Homan sentence scopes its verdict to: the pair, its full-data MAEs, the deciding p and its error."""

    names: tuple[str, str]
    mae_a: float
    mae_b: float
    rounds: int
    p: float
    p_error: float

    def words(self) -> str:
        a, b = (show_value(x) for x in self.names)
        return (
            f" (p = {self.p:.3f} +/- {self.p_error:.3f}, the Monte Carlo standard error of {self.rounds:,} rounds, "
            f"below 0.05; MAE {self.mae_a:.2f} for {a} and {self.mae_b:.2f} for {b} on all ratings)"
        )


def _homan_sentence(
    n: int, smallest: int | None, holds: bool | None, most: int, names: tuple[str, str], pair: _Pair | None = None
) -> str:
    a, b = (show_value(x) for x in names)
    claim = f"Homan et al.'s claim that MAE needs at least {HOMAN_K} ratings per item even with {HOMAN_N:,} items"
    detail = pair.words() if pair is not None else " (p < 0.05)"
    if smallest is not None and not holds:
        return (
            f"With {n:,} items (N), {plural(smallest, 'rating')} per item (K) {'is' if smallest == 1 else 'are'} already "
            f"enough for a reproducible MAE comparison of {a} and {b}{detail}: for this pair, {claim} "
            "does not hold; a pair of models closer in MAE can need more ratings per item."
        )
    if smallest is not None:
        return (
            f"With {n:,} items (N), the MAE comparison of {a} and {b} first becomes reproducible at "
            f"{smallest} ratings per item (K){detail}: for this pair, {claim} holds."
        )
    if holds:
        return (
            f"With {n:,} items (N), no K up to {most} ratings per item makes the MAE comparison of {a} and {b} "
            f"reproducible (p < 0.05): on these data, {claim} holds (it needs even more)."
        )
    return (
        f"With {n:,} items (N), no K up to {most} ratings per item (all these data have) makes the MAE comparison of "
        f"{a} and {b} reproducible (p < 0.05): consistent with {claim}, which these data cannot test beyond K = {most}."
    )


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


def is_ordinal_frame(ratings: pd.DataFrame) -> bool:
    """Whether a ratings table's labels are an ordered numeric scale (at least 3 distinct numbers, every label one).

    >>> is_ordinal_frame(pd.DataFrame({"label": [1, 2, 5, 2]})), is_ordinal_frame(pd.DataFrame({"label": ["a", "b", "c"]}))
    (True, False)
    """
    if "label" not in ratings.columns:
        cols = [str(c) for c in ratings.columns if str(c).startswith("count_")]
        return label_values([c[len("count_") :] for c in cols]) is not None
    num = pd.to_numeric(ratings["label"].dropna().astype(str).str.strip(), errors="coerce").to_numpy(dtype=float)
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
        num = pd.to_numeric(frame["label"].astype(str).str.strip(), errors="coerce").to_numpy(dtype=float)
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
