"""The exact (N, K) engine: the paper's numbers in the limit of infinitely many rounds, without Monte Carlo noise.

Every item metric is a mean over items of a per-item gap, and items are independent and identically
distributed under the alternative and the null; so the score gap of N items is the mean of N draws from a
per-item law that depends on (prior, eps, K, metric) only (``item_law``). The law is computed once per K (``laws``:
exact from the outcome law where it is small, else estimated from many drawn items), the N-fold law by convolution
(``convolve``: exact lattice FFT, or Edgeworth for large N), and the paper's p, Delta, CI-width from them
(``cells``). ``engine`` gives the grid API (``exact_cell``, ``exact_grid``), ``search`` the minimal budget and
best K on the continuous budget axis, ``real`` the same numbers for real data. Method and validation:
docs/nk-method.md, "Exact engine".
"""

from __future__ import annotations

from nkcore.nk.exact.engine import exact_cell, exact_grid
from nkcore.nk.exact.search import best_k_for_budget, min_budget_continuous

__all__ = ["best_k_for_budget", "exact_cell", "exact_grid", "min_budget_continuous"]
