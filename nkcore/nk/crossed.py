"""Who rated matters: two-way (crossed) resampling of items AND raters, beside item-only resampling.

Real-data resampling (:mod:`nkcore.nk.resample`) draws items with replacement and K of each item's ratings
without replacement: the raters are treated as interchangeable, so a rater who labels many items and leans
towards one label is assumed away. The crossed (pigeonhole) bootstrap draws both random factors:

1. draw R raters with replacement from the R raters of the data (rater r drawn w_r times, w ~ Multinomial(R, 1/R));
2. every rating of rater r is kept w_r times, so item i's label counts become c'_im = sum_{ratings j of i with
   label m} w_{rater(j)};
3. draw N items with replacement among the items with at least K kept ratings, and K of each drawn item's kept
   ratings without replacement (multivariate hypergeometric on c'_i, :func:`nkcore.nk.draws.draw_k`);
   items with fewer than K kept ratings cannot be drawn (as in item-only resampling) and their share is reported.

Both models are scored against those K ratings; the null is the same resampling with each drawn item's two
predictions swapped by a fair coin. p, Delta, CI-width come from :func:`nkcore.nk.pvalue.cell_stats`;
reproducibility is the share of rounds with the full data's direction (as in ``resample``). Each cell is shown
beside the item-only numbers of :func:`nkcore.nk.resample.resample_cells` on the same pair data, so a page can say
"ignoring who rated narrows the interval by x".

The rater draw of a round is shared by every cell of the grid (common random numbers): each cell's numbers have the
right distribution, and differences between cells are less noisy.

References: Owen, "The pigeonhole bootstrap", Annals of Applied Statistics 1(2), 2007 (resampling rows and columns
of a crossed random-effects design independently); Pandita et al., arXiv 2605.13801 (ignoring rater identity
understates the uncertainty of an evaluation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.nk.cell import Cell
from nkcore.nk.crossed_resample import crossed_cells, crossed_work, pair_ratings
from nkcore.nk.draws import draw_k
from nkcore.nk.frames import pair_data
from nkcore.nk.grid import PAPER_KS, configurations
from nkcore.nk.metrics import METRICS, parse_metrics
from nkcore.nk.pairs import full_gaps
from nkcore.ratings.raters import RaterRatings, rater_ratings, rater_ratings_from_frame

__all__ = [
    "CrossedCell",
    "CrossedRun",
    "RaterRatings",
    "crossed_cells",
    "crossed_frames",
    "crossed_sentence",
    "crossed_work",
    "draw_k",
    "rater_ratings",
    "rater_ratings_from_frame",
]


CrossedCell = Cell
"""The former name of :class:`nkcore.nk.cell.Cell` (a crossed cell: its ``crossed`` and ``real`` parts set)."""


@dataclass(frozen=True, slots=True)
class CrossedRun:
    """Crossed against item-only resampling of two models on a grid.

    models: (A, B); labels; n_items: items with ratings and both predictions; n_raters / n_ratings: raters and
    ratings of those items; ratings_per_rater: (min, median, max); cells: one :class:`CrossedCell` per
    (budget, K, metric); skipped_k: K values no item has; sentence: the headline for the first metric.
    """

    models: tuple[str, str]
    labels: tuple[str, ...]
    n_items: int
    n_raters: int
    n_ratings: int
    ratings_per_rater: tuple[int, float, int]
    rounds: int
    skipped_k: tuple[int, ...]
    full_gaps: dict[str, float] = field(compare=False)
    cells: tuple[CrossedCell, ...] = field(repr=False, compare=False)
    sentence: str = ""


def crossed_sentence(cells: Sequence[CrossedCell], metric: str) -> str:
    """One sentence: how much wider (or narrower) the interval of ``metric``'s gap is when raters are resampled too.

    Rule: the median of ci_width / item_ci_width over the metric's cells; "about the same" within 10%.

    >>> from nkcore.nk.cell import CrossedPart, RealPart
    >>> part = CrossedPart(-0.1, 0.2, 0.02, 0.1, 0.2, -0.05, 0.15, 0.95, 1.5, 0.0, 0.0, 10, np.empty(0))
    >>> c = Cell(100, 1, 100, "acc", 0.01, 0.1, 0.3, 0.9, 0.0, 0.1, 10, np.empty(0), np.empty(0),
    ...          real=RealPart(0.1, 1), crossed=part)
    >>> crossed_sentence([c], "acc")[:101]
    'Counting who gave the ratings widens the 95% interval of the Accuracy (plurality vote) gap by 1.50x: '
    """
    label = METRICS[metric].label if metric in METRICS else metric
    every = [c for c in cells if c.metric == metric]
    mine = [c for c in every if np.isfinite(c.ci_width_ratio)]
    if not mine:
        if every and all(c.ci_width == 0 and c.item_ci_width == 0 for c in every):
            return (
                f"The two models score the same {label} on every resampled dataset (the gap is always 0), so there "
                "is no interval to compare: choose another metric."
            )
        return f"No cell of the grid could be resampled both ways for {label}."
    ratio = float(np.median([c.ci_width_ratio for c in mine]))
    big = max(mine, key=lambda c: (c.budget, c.k))
    example = (
        f"At budget {big.budget:,} with {big.k} ratings per item (K) it is {big.ci_width:.3g} wide instead of "
        f"{big.item_ci_width:.3g} (median ratio over {plural(len(mine), 'cell')})."
    )
    if abs(ratio - 1.0) < 0.1:
        return (
            f"Counting who gave the ratings leaves the 95% interval of the {label} gap about as wide ({ratio:.2f}x): "
            f"rater identity adds little uncertainty here. {example}"
        )
    if ratio > 1.0:
        return (
            f"Counting who gave the ratings widens the 95% interval of the {label} gap by {ratio:.2f}x: resampling "
            f"items alone understates the uncertainty, because the same raters label many items. {example}"
        )
    return (
        f"Counting who gave the ratings narrows the 95% interval of the {label} gap to {ratio:.2f}x: items left with "
        f"fewer than K ratings once raters are drawn drop out, and the rest agree more. {example}"
    )


def crossed_frames(
    ratings: pd.DataFrame,
    predictions: pd.DataFrame,
    model_a: str,
    model_b: str,
    budgets: Sequence[int] = (100, 250, 500, 1000, 2500),
    ks: Sequence[int] = PAPER_KS,
    metrics: Sequence[str] | str | None = ("acc",),
    rounds: int = 1000,
    seed: int = 0,
    use_probabilities: bool = True,
) -> CrossedRun:
    """Crossed against item-only resampling of two models' predictions on a ratings table with rater ids.

    ``ratings``: item, rater, label (one row per rating); ``predictions``: item, model, pred_label and/or p_<label>.
    K values above every item's number of ratings are skipped (``skipped_k``). See :func:`crossed_cells`.
    """
    rr = rater_ratings_from_frame(ratings)
    data = pair_data(rr.ratings, predictions, model_a, model_b, use_probabilities)
    mts = parse_metrics(metrics)
    most = int(data.counts.sum(axis=1).max())
    usable = tuple(int(k) for k in ks if int(k) <= most)
    skipped = tuple(int(k) for k in ks if int(k) > most)
    if not usable:
        raise DataError(f"no item has {min(ks)} or more ratings: choose smaller ratings per item (K)")
    cells = crossed_cells(rr, data, configurations(budgets, usable), mts, rounds, seed)
    it, ra, _, n_raters = pair_ratings(rr, data)
    per_rater = np.bincount(ra, minlength=n_raters)
    return CrossedRun(
        models=(model_a, model_b),
        labels=rr.ratings.labels,
        n_items=int(data.used.size),
        n_raters=n_raters,
        n_ratings=int(it.size),
        ratings_per_rater=(int(per_rater.min()), float(np.median(per_rater)), int(per_rater.max())),
        rounds=int(rounds),
        skipped_k=skipped,
        full_gaps=full_gaps(data, mts),
        cells=tuple(cells),
        sentence=crossed_sentence(cells, mts[0]),
    )
