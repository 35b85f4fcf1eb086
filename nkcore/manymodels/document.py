"""``rank --nk``'s JSON key ``nk``: the (N, K) reproducibility of the ranking on a ratings file (one row per
rating: case, config, repeat, score), the grid and the minimal budget for a reproducible winner, with a sentence.
With ``--nk-gold CONFIG`` the other configs are models scored against that config's ratings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.manymodels.cube import rating_cube
from nkcore.manymodels.predictions import gold_index, prediction_full_scores
from nkcore.manymodels.reproduce import Reproducibility, minimal_budget, reproducibility_grid

__all__ = ["DEFAULT_DRAWS", "DEFAULT_TARGET", "default_items", "nk_doc", "nk_sentence", "parse_whole_list"]

DEFAULT_DRAWS = 1000
DEFAULT_TARGET = 0.95
METHOD = (
    "N items drawn with replacement from the data's items, K of each item's ratings of each config without "
    "replacement (capped by what it holds); winner agreement: the chance the draw's best config is the full data's "
    "(ties split); order agreement: every pair the full data orders ordered the same way"
)


def parse_whole_list(text: str | None, what: str) -> list[int] | None:
    """'10,20,40' -> [10, 20, 40]; None stays None; DataError on anything else.

    >>> parse_whole_list("10, 20", "items"), parse_whole_list(None, "items")
    ([10, 20], None)
    """
    if text is None:
        return None
    try:
        values = [int(v) for v in str(text).split(",") if v.strip()]
    except ValueError:
        raise DataError(f"{what} must be whole numbers separated by commas, e.g. 10,20,40; got {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise DataError(f"{what} must be whole numbers of at least 1, e.g. 10,20,40; got {text!r}")
    return values


def default_items(n_items: int) -> list[int]:
    """N from a tenth of the data's items to eight times them (past the data's own N: as if the study had more
    items like these).

    >>> default_items(96)
    [10, 24, 48, 96, 192, 384, 768]
    """
    fractions = (0.1, 0.25, 0.5, 1, 2, 4, 8)
    return sorted({max(2, round(n_items * f)) for f in fractions})


def nk_sentence(
    winner: str,
    n_items: int,
    most: int,
    grid: Sequence[Reproducibility],
    best: Reproducibility | None,
    target: float,
    gold: str | None = None,
) -> str:
    """The minimal budget for a reproducible winner, in words (budgets are ratings per config).

    >>> r = Reproducibility(2, 1, 2, 100, 1.0, 0.0, 1.0, 0.0, 1.0)
    >>> nk_sentence("A", 4, 2, [r], r, 0.95)
    'A wins on the full data (4 items, up to 2 ratings per item); 2 items with 1 rating per item (a budget of 2 ratings per config) already give the same winner in 100% of repeated studies (95% asked)'
    >>> nk_sentence("A", 4, 3, [r], None, 0.95, "human")[:77]
    'A is closest to the human ratings on the full data (4 items, up to 3 ratings '
    """
    wins = "wins" if gold is None else f"is closest to the {gold} ratings"
    head = f"{winner} {wins} on the full data ({plural(n_items, 'item')}, up to {plural(most, 'rating')} per item)"
    per = "per config" if gold is None else "of the gold"
    if best is None:
        top = max(grid, key=lambda r: (r.budget, r.p_winner))
        return (
            f"{head}; no budget tried gives the same winner in {100 * target:g}% of repeated studies: at the largest, "
            f"{plural(top.n_items, 'item')} with {plural(top.ratings_per_item, 'rating')} per item, "
            f"{100 * top.p_winner:.0f}%"
        )
    return (
        f"{head}; {plural(best.n_items, 'item')} with {plural(best.ratings_per_item, 'rating')} per item (a budget of "
        f"{plural(best.budget, 'rating')} {per}) already give the same winner in {100 * best.p_winner:.0f}% of "
        f"repeated studies ({100 * target:g}% asked)"
    )


def nk_doc(
    frame: pd.DataFrame,
    items: Sequence[int] | None = None,
    ratings: Sequence[int] | None = None,
    draws: int = DEFAULT_DRAWS,
    target: float = DEFAULT_TARGET,
    seed: int = 0,
    gold: str | None = None,
) -> dict[str, Any]:
    """The ``nk`` document: the grid (``items``, ``ratings_per_item``, ``budget``, ``p_winner``, ``p_winner_error``,
    ``p_order``, ``p_order_error``, ``kendall``), ``minimal_budget`` (a grid row or None) and ``sentence``."""
    if not (isinstance(target, float) and 0.0 < target <= 1.0):
        raise DataError(f"--nk-target must be a share above 0 and at most 1, e.g. 0.95; got {target}")
    cube = rating_cube(frame)
    n_list = list(items) if items is not None else default_items(cube.n_items)
    if gold is None:
        names, full, most = cube.configs, cube.full_scores(), cube.max_ratings
    else:
        g = gold_index(cube, gold)
        names = tuple(c for j, c in enumerate(cube.configs) if j != g)
        full, most = prediction_full_scores(cube, gold), int(cube.counts[:, g].max())
    k_list = list(ratings) if ratings is not None else list(range(1, most + 1))
    grid = reproducibility_grid(cube, n_list, k_list, draws, seed, gold)
    best = minimal_budget(grid, target)

    def row(r: Reproducibility) -> dict[str, Any]:
        return {
            "items": r.n_items,
            "ratings_per_item": r.ratings_per_item,
            "budget": r.budget,
            "p_winner": r.p_winner,
            "p_winner_error": r.p_winner_error,
            "p_order": r.p_order,
            "p_order_error": r.p_order_error,
            "kendall": r.kendall,
        }

    return {
        "full_winner": names[int(full.argmax())],
        "full_scores": dict(zip(names, (float(v) for v in full), strict=True)),
        "score": "mean rating" if gold is None else "minus the mean absolute error against the gold ratings' mean",
        "gold": gold,
        "items_available": cube.n_items,
        "ratings_available": most,
        "target": target,
        "draws": draws,
        "seed": seed,
        "method": METHOD,
        "grid": [row(r) for r in grid],
        "minimal_budget": row(best) if best is not None else None,
        "sentence": nk_sentence(names[int(full.argmax())], cube.n_items, most, grid, best, target, gold),
    }
