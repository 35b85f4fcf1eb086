"""The exact engine's cells already computed, by the per-item laws they came from (``engine``).

A cell's numbers are a function of its two per-item laws (alternative and null) and its budget and K alone
(``cells.cell_numbers``), and the laws are cached objects (``laws``): while a law lives in that cache it is the same
object, so a cell asked again with the same law objects (the same grid redrawn, another metric added, one cell of a
grid just computed) is the cell computed before, number for number. Each entry holds its two laws, so their ids stay
their own while it lives. Callers get a copy of the cell's quantile arrays, so no caller's change reaches the cache.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from nkcore.nk.cell import Cell

CELLS_KEPT = 4096
"""Most cells kept (a cell's 2 x 1,000 quantile points are 16 kB: at most about 64 MB; the paper's full grid with
four metrics has 1,128 cells). Past it the cache starts again empty."""
_CELLS: dict[tuple[int, int, int, int, str], tuple[Any, Any, Cell]] = {}


def _copy(cell: Cell) -> Cell:
    return replace(cell, alt=cell.alt.copy(), null=cell.null.copy())


def _entry(alt: object, null: object, budget: int, k: int, metric: str) -> Cell | None:
    got = _CELLS.get((id(alt), id(null), int(budget), int(k), metric))
    return None if got is None or got[0] is not alt or got[1] is not null else got[2]


def cached_cell(alt: object, null: object, budget: int, k: int, metric: str) -> Cell | None:
    """The cell (budget, K, metric) computed before from these two law objects (a copy), or None."""
    got = _entry(alt, null, budget, k, metric)
    return None if got is None else _copy(got)


def known_cell(alt: object, null: object, budget: int, k: int, metric: str) -> bool:
    """Is the cell (budget, K, metric) of these two law objects cached?"""
    return _entry(alt, null, budget, k, metric) is not None


def keep_cell(alt: object, null: object, cell: Cell) -> Cell:
    """Remember a cell computed from these two law objects; returns a copy for the caller (the cache keeps its own)."""
    if len(_CELLS) >= CELLS_KEPT:
        _CELLS.clear()
    _CELLS[(id(alt), id(null), int(cell.budget), int(cell.k), cell.metric)] = (alt, null, cell)
    return _copy(cell)


def clear_cells() -> None:
    """Forget every cell (with the laws: ``laws.clear_caches``, or when the law cache starts again)."""
    _CELLS.clear()


__all__ = ["CELLS_KEPT", "cached_cell", "clear_cells", "keep_cell", "known_cell"]
