"""DataFrame-in entry points of the (N, K) engine, for the page (through ``ui.common.cache``) and the CLI.

Each function takes canonical frames (ratings: item, rater, label, or label counts: item + one ``count_<label>``
column per label; predictions: item, model, pred_label and/or p_<label>) plus plain hashable parameters, converts them with ``nkcore.ratings`` and calls the numpy engine.
Results are frozen dataclasses (picklable, so they can be cached).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.nk.exact.real import exact_resample_cells
from nkcore.nk.fit import DirichletFit, assess_alpha, fit_dirichlet
from nkcore.nk.grid import PAPER_KS, Config, configurations
from nkcore.nk.metrics import PAPER_METRICS, parse_metrics
from nkcore.nk.priors import DATASET_PRESETS, get_prior
from nkcore.nk.resample import (
    PairData,
    ResampleCell,
    full_gaps,
    prepare_pair,
    qualifying_items,
    resample_cells,
)
from nkcore.ratings import Ratings, predictions_from_frame, ratings_from_counts, ratings_from_frame


@dataclass(frozen=True, slots=True)
class FittedPrior:
    """A prior fitted to a ratings table: ``labels`` name the categories of ``fit.concentration`` in order.

    ratings_per_item: (min, median, max) ratings per item.
    """

    labels: tuple[str, ...]
    fit: DirichletFit
    n_items: int
    ratings_per_item: tuple[int, float, int]


@dataclass(frozen=True, slots=True)
class ResampleRun:
    """Real-data resampling of two models on a grid.

    models: (A, B); labels: categories; n_items: items with ratings and both predictions; uses_probabilities:
    distribution metrics used the models' probabilities (else their hard labels as one-hot); full_gaps: the
    gaps on the full data per metric; qualifying: items with at least K ratings per K; skipped_k: K values no
    item qualifies for; cells: one ``ResampleCell`` per (budget, K, metric).
    """

    models: tuple[str, str]
    labels: tuple[str, ...]
    n_items: int
    uses_probabilities: bool
    full_gaps: dict[str, float] = field(compare=False)
    qualifying: dict[int, int] = field(compare=False)
    skipped_k: tuple[int, ...]
    cells: tuple[ResampleCell, ...] = field(repr=False, compare=False)


def ratings_of(frame: pd.DataFrame) -> Ratings:
    """The ratings of a canonical table: one row per rating (item, rater, label) or label counts, kept as counts.

    A table without a ``rater`` column whose other columns are ``count_<label>`` counts is read by
    :func:`nkcore.ratings.ratings_from_counts` (the (N, K) engine only needs each item's label counts, so nothing is
    expanded to one row per rating); any other table by :func:`nkcore.ratings.ratings_from_frame`.

    >>> ratings_of(pd.DataFrame({"item": ["a", "b"], "count_x": [2, 0], "count_y": [1, 3]})).counts.tolist()
    [[2, 1], [0, 3]]
    """
    if "rater" not in frame.columns and any(str(c).startswith("count_") for c in frame.columns):
        return ratings_from_counts(frame, "item" if "item" in frame.columns else None)
    return ratings_from_frame(frame)


def fit_prior_frame(ratings: pd.DataFrame, method: str = "ml") -> FittedPrior:
    """Fit a Dirichlet prior to a ratings table (item, rater, label; or label counts): see ``fit_dirichlet``."""
    r = ratings_of(ratings)
    per = r.counts.sum(axis=1)
    return FittedPrior(
        r.labels, fit_dirichlet(r.counts, method), len(r.items), (int(per.min()), float(np.median(per)), int(per.max()))
    )


def model_names(predictions: pd.DataFrame) -> tuple[str, ...]:
    """The models of a predictions table, in order of first appearance."""
    if "model" not in predictions.columns:
        raise DataError("the predictions table needs a 'model' column")
    return tuple(str(m) for m in pd.unique(predictions["model"].dropna().astype(str)))


def pair_data(
    ratings: Ratings, predictions: pd.DataFrame, model_a: str, model_b: str, use_probabilities: bool = True
) -> PairData:
    """Two models' predictions aligned with parsed ratings: :func:`nkcore.nk.resample.prepare_pair` on their codes.

    The one place that checks the pair (two different models, both in the predictions) for every real-data entry
    point (item-only, exact and crossed resampling). Distribution metrics use both models' probabilities when
    ``use_probabilities`` and the predictions have them, else their hard labels as one-hot distributions.

    >>> r = ratings_of(pd.DataFrame({"item": ["a", "b"], "count_x": [2, 0], "count_y": [1, 3]}))
    >>> pf = pd.DataFrame({"item": ["a", "b", "a", "b"], "model": ["m", "m", "n", "n"], "pred_label": list("xyyy")})
    >>> pair_data(r, pf, "m", "n").labels_b.tolist()
    [1, 1]
    """
    p = predictions_from_frame(predictions, ratings)
    if model_a == model_b:
        raise DataError(f"choose two different models (both are {model_a!r})")
    for name in (model_a, model_b):
        if name not in p.models:
            raise DataError(f"model {name!r} is not in the predictions; models: {', '.join(p.models)}")
    ia, ib = p.models.index(model_a), p.models.index(model_b)
    probs = p.probs if (use_probabilities and p.probs is not None) else None
    return prepare_pair(
        ratings.counts,
        p.hard[ia],
        p.hard[ib],
        None if probs is None else probs[ia],
        None if probs is None else probs[ib],
    )


def _usable_ks(data: PairData, ks: Sequence[int]) -> tuple[dict[int, int], tuple[int, ...], tuple[int, ...]]:
    """Items with at least K ratings per K, the K values some item has, the K values no item has (or DataError)."""
    qual = qualifying_items(data.counts, ks)
    usable = tuple(int(k) for k in ks if qual.get(int(k), 0) > 0)
    skipped = tuple(int(k) for k in ks if qual.get(int(k), 0) == 0)
    if not usable:
        raise DataError(f"no item has {min(ks)} or more ratings: choose smaller ratings per item (K)")
    return qual, usable, skipped


def _run(
    ratings: pd.DataFrame,
    predictions: pd.DataFrame,
    models: tuple[str, str],
    budgets: Sequence[int],
    ks: Sequence[int],
    metrics: Sequence[str] | str | None,
    use_probabilities: bool,
    cells_of: Callable[[PairData, list[Config], tuple[str, ...]], Sequence[ResampleCell]],
) -> ResampleRun:
    """The frames-level run shared by the resampler and the exact engine: parse both tables, keep the K values
    some item has, compute the cells with ``cells_of(data, configurations, metrics)``, and gather them."""
    r = ratings_of(ratings)
    data = pair_data(r, predictions, models[0], models[1], use_probabilities)
    mts = parse_metrics(metrics)
    qual, usable, skipped = _usable_ks(data, ks)
    cells = cells_of(data, configurations(budgets, usable), mts)
    return ResampleRun(
        models,
        r.labels,
        int(data.counts.shape[0]),
        data.is_prob,
        full_gaps(data, mts),
        qual,
        skipped,
        tuple(cells),
    )


def resample_frames(
    ratings: pd.DataFrame,
    predictions: pd.DataFrame,
    model_a: str,
    model_b: str,
    budgets: Sequence[int] = (100, 250, 500, 1000, 2500),
    ks: Sequence[int] = PAPER_KS,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    rounds: int = 1000,
    seed: int = 0,
    significance: float = 0.05,
    use_probabilities: bool = True,
) -> ResampleRun:
    """Resample real ratings and compare two models' predictions on a grid of budgets x K.

    K values larger than every item's number of ratings are skipped (listed in ``skipped_k``). ``ratings`` may be
    label counts (:func:`ratings_of`): K ratings of an item are then drawn without replacement from its counts.
    """
    return _run(
        ratings,
        predictions,
        (model_a, model_b),
        budgets,
        ks,
        metrics,
        use_probabilities,
        lambda data, configs, mts: resample_cells(data, configs, mts, rounds, seed, significance),
    )


def exact_resample_frames(
    ratings: pd.DataFrame,
    predictions: pd.DataFrame,
    model_a: str,
    model_b: str,
    budgets: Sequence[int] = (100, 250, 500, 1000, 2500),
    ks: Sequence[int] = PAPER_KS,
    metrics: Sequence[str] | str | None = PAPER_METRICS,
    significance: float = 0.05,
    use_probabilities: bool = True,
    progress: Callable[[float], None] | None = None,
) -> ResampleRun:
    """:func:`resample_frames` from the exact engine: the resampler's numbers in the limit of infinitely many rounds.

    Same inputs (without rounds and seed), same :class:`ResampleRun`, same cells, ``skipped_k`` and ``qualifying``;
    each cell's ``method`` says how it was computed: the exact engine's ("lattice", "edgeworth", ...; ``rounds`` =
    0, ``p_error`` / ``delta_error`` / ``ci_width_error`` its accuracy) or "simulate" for macro F1 (not a mean over
    items), which the resampler computes (1,000 rounds, seed 0). Method: the per-item gap law is the mixture over
    the qualifying items of each item's law of d_i(g), g ~ MultiHypergeometric(counts_i, K) (exact enumeration
    where small), and the N-item gap its N-fold convolution (:mod:`nkcore.nk.exact.real`; docs/nk-method.md,
    "Exact engine"). Reference: spec "Real data" (the resampler it reproduces). ``progress``: as in
    :func:`nkcore.nk.exact.real.exact_resample_cells` (the share of K done; raising in it stops the run).

    >>> fr = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"), "label": list("xxyyxy")})
    >>> pf = pd.DataFrame({"item": [1, 2, 3] * 2, "model": ["a"] * 3 + ["b"] * 3, "pred_label": list("xyxyyy")})
    >>> cell = exact_resample_frames(fr, pf, "a", "b", budgets=(4,), ks=(1,), metrics="acc").cells[0]
    >>> cell.n, cell.rounds, round(cell.delta, 4)  # per-item Accuracy gap: item 1 +1, item 2 0, item 3 +1 or -1
    (4, 0, 0.3333)
    """
    if not (0 < significance < 1):
        raise DataError(f"alpha (significance level) must be between 0 and 1, got {significance}")
    return _run(
        ratings,
        predictions,
        (model_a, model_b),
        budgets,
        ks,
        metrics,
        use_probabilities,
        lambda data, configs, mts: exact_resample_cells(data, configs, mts, significance, progress),
    )


@dataclass(frozen=True, slots=True)
class PresetComparison:
    """A paper preset of the same number of labels, scored on the ratings a prior was fitted to.

    ``alpha``: the preset's values matched to the data's labels by rank (the largest value to the most common
    label; the preset's own label order is the authors'); ``log_likelihood`` and ``mab``: the Dirichlet-multinomial
    log-likelihood (nats) and mean absolute bias of that alpha on these ratings; ``per_item``: how many nats per item
    the ML fit beats it by (fit minus preset, divided by the items; >= 0 up to the optimiser's tolerance).
    """

    name: str
    source: str
    concentration: tuple[float, ...]
    alpha0: float
    log_likelihood: float
    mab: float
    per_item: float


def preset_comparisons(ratings: pd.DataFrame, method: str = "ml") -> tuple[PresetComparison, ...]:
    """The ML fit (:func:`fit_prior_frame`) against each of the paper's fitted presets with as many labels.

    Preset values are assigned to labels by rank of share (alpha_(j) of the preset to the label with the j-th
    largest share of ratings), since a user's label names need not match the authors'. The quality numbers are
    :func:`nkcore.nk.fit.assess_alpha` on the same counts; per_item = (LL_fit - LL_preset) / items.

    >>> frame = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "rater": list("abcabc"), "label": list("xxyyyz")})
    >>> [c.name for c in preset_comparisons(frame)]
    ['DICES']
    """
    r = ratings_of(ratings)
    counts = r.counts
    fit = fit_dirichlet(counts, method)
    m = counts.shape[1]
    share_rank = np.argsort(-counts.sum(axis=0), kind="stable")
    out = []
    for name in DATASET_PRESETS:
        prior = get_prior(name)
        if prior.m != m:
            continue
        matched = np.empty(m)
        matched[share_rank] = np.sort(np.asarray(prior.concentration))[::-1]
        q = assess_alpha(counts, matched)
        out.append(
            PresetComparison(
                name=prior.name,
                source=prior.source,
                concentration=tuple(float(v) for v in matched),
                alpha0=float(matched.sum()),
                log_likelihood=q.log_likelihood,
                mab=q.mab,
                per_item=(fit.log_likelihood - q.log_likelihood) / max(1, fit.n_items),
            )
        )
    return tuple(out)
