"""Every metric's minimal budget from the grid's rows up to each answer (issue 51: the every-metric table took 17 s):
the same answers as ``minimal_budgets`` of every metric's full grid, the oracle computed here."""

from __future__ import annotations

from types import SimpleNamespace as C

import numpy as np
import pytest

from nkcore.nk.best import minimal_budgets, minimal_budgets_by_rows
from nkcore.nk.exact import exact_grid
from nkcore.nk.exact import search as nk_search
from nkcore.nk.exact.search import min_budgets_on_grid
from nkcore.nk.metrics import ITEM_METRICS
from nkcore.nk.priors import get_prior

BUDGETS, KS = (100, 250, 500, 1000), (1, 2, 3, 5, 20, 40)


@pytest.mark.parametrize("concentration", [get_prior("Toxicity").concentration, (0.28, 0.37, 0.71)])
def test_rows_up_to_the_answers_give_the_full_grids_minimal_budgets(concentration: tuple[float, ...]) -> None:
    full = minimal_budgets(exact_grid(concentration, 0.3, BUDGETS, KS, ITEM_METRICS), list(ITEM_METRICS))
    assert min_budgets_on_grid(concentration, 0.3, BUDGETS, KS, ITEM_METRICS) == full


def test_no_row_above_every_answer_is_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows are read up to the last answer only, and full cells are computed only in the rows that answer."""
    asked: list[tuple[int, tuple[str, ...]]] = []
    real = nk_search.exact_grid

    def counting(prior: object, eps: float, budgets: list[int], ks: list[int], metrics: object) -> list:
        asked.append((budgets[0], tuple(metrics)))  # type: ignore[arg-type]
        return real(prior, eps, budgets, ks, metrics)  # type: ignore[arg-type]

    monkeypatch.setattr(nk_search, "exact_grid", counting)
    done: list[float] = []
    found = min_budgets_on_grid((0.28, 0.37, 0.71), 0.3, BUDGETS, KS, ("tv", "acc"), progress=done.append)
    answers = {mb.metric: mb.budget for mb in found}
    last = max(BUDGETS) if None in answers.values() else max(b for b in answers.values() if b is not None)
    assert done == [(i + 1) / len(BUDGETS) for i, b in enumerate(BUDGETS) if b <= last]
    assert all(answers[m] == b for b, metrics in asked for m in metrics)


@pytest.mark.parametrize("seed", range(20))
def test_by_rows_is_minimal_budgets_of_every_row(seed: int) -> None:
    """Random cells (p near the significance, ties in p, extrapolated cells): the row-by-row answer is the one of
    every cell at once."""
    rng = np.random.default_rng(seed)
    budgets, metrics = [100, 250, 500, 1000, 2500], ["acc", "tv", "kl"]
    cells = [
        C(budget=b, k=k, n=b // k, metric=m, p=float(rng.choice([0.01, 0.04, 0.05, 0.2, rng.uniform(0, 0.3)])),
          delta=float(rng.uniform(0, 1)), ci_width=float(rng.uniform(0.1, 1)), n_qualifying=int(rng.integers(20, 600)))
        for b in budgets for k in (1, 2, 5, 20) for m in metrics
    ]  # fmt: skip

    def row(b: int, wanted: object) -> list:
        return [c for c in cells if c.budget == b and c.metric in wanted]  # type: ignore[operator]

    assert minimal_budgets_by_rows(budgets, row, metrics) == minimal_budgets(cells, metrics)
