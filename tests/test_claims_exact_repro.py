"""Issue 53, claim 2: the exact engine's reproducibility at Toxicity, N = 20, K = 50, Accuracy.

Before the fix the engine said 0.757 (an Accuracy law estimated from about 43,000 drawn items whose mean was 1.5
standard errors low) with no error stated; the simulation and a brute-force quadrature say 0.768.
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import roots_jacobi

from nkcore.nk.exact import exact_cell
from nkcore.nk.exact.cells import cell_numbers
from nkcore.nk.exact.laws import item_laws
from nkcore.nk.grid import simulate_cell

TOXICITY = (1.37658107, 1.33054633)
DICES = (5.21765954, 0.85824731, 2.74833849)


def _brute_reproducibility(prior: tuple[float, float], eps: float, k: int, n: int) -> float:
    """P(S1 > 0) by a plain tensor-product Gauss-Jacobi rule (scipy's, 600 nodes) and a plain convolution."""
    t, w = roots_jacobi(600, prior[1] - 1.0, prior[0] - 1.0)
    x, w = (1.0 + t) / 2.0, w / w.sum()
    u, v = roots_jacobi(600, -0.5, -0.5)
    r, v = (1.0 + u) / 2.0, v / v.sum()
    first = lambda p: stats.binom.sf(-(-k // 2) - 1, k, p)  # noqa: E731  (category 0 wins ties)
    g = first(x)[:, None]
    a = g + 0.0 * r[None, :]
    b = first((1.0 - eps) * x[:, None] + eps * r[None, :])
    ww = w[:, None] * v[None, :]
    plus = float((ww * (g * a * (1 - b) + (1 - g) * (1 - a) * b)).sum())
    minus = float((ww * (g * (1 - a) * b + (1 - g) * a * (1 - b))).sum())
    s = np.array([1.0])
    for _ in range(n):
        s = np.convolve(s, [minus, 1.0 - minus - plus, plus])
    return float(s[n + 1 :].sum())


def test_toxicity_n20_k50_accuracy_reproducibility_matches_simulation() -> None:
    (cell,) = exact_cell(TOXICITY, 0.3, 1000, 50, ["acc"])
    assert cell.n == 20
    brute = _brute_reproducibility(TOXICITY, 0.3, 50, 20)
    assert abs(brute - 0.7677) < 5e-4
    assert abs(cell.reproducibility - brute) < 1e-6
    rounds = 40_000
    (sim,) = simulate_cell(TOXICITY, 0.3, 1000, 50, ["acc"], rounds=rounds, seed=53, workers=1)
    se = np.sqrt(sim.reproducibility * (1.0 - sim.reproducibility) / rounds)  # about 0.0021
    assert abs(cell.reproducibility - sim.reproducibility) < 4.0 * se


def test_reproducibility_carries_its_error_where_the_law_is_estimated() -> None:
    # DICES (three labels): Accuracy's law at K = 50 is estimated from drawn items, so its reproducibility has an
    # error, and the simulation lands within 4 of them (engine and simulation errors combined)
    alt, null = item_laws(DICES, 0.3, 50, ["acc"])
    assert not alt["acc"].exact
    got = cell_numbers(alt["acc"], null["acc"], 20)
    assert 0.002 < got.reproducibility_error < 0.02
    rounds = 40_000
    (sim,) = simulate_cell(DICES, 0.3, 1000, 50, ["acc"], rounds=rounds, seed=53, workers=1)
    se = np.hypot(got.reproducibility_error, np.sqrt(sim.reproducibility * (1 - sim.reproducibility) / rounds))
    assert abs(got.reproducibility - sim.reproducibility) < 4.0 * se
    # an exact law: no error
    alt2, null2 = item_laws(TOXICITY, 0.3, 50, ["acc"])
    assert cell_numbers(alt2["acc"], null2["acc"], 20).reproducibility_error == 0.0


def test_two_label_accuracy_cells_match_brute_force_across_k() -> None:
    """The cells the exact-grid reference no longer freezes (Toxicity, Accuracy, K whose law is a quadrature now):
    reproducibility against the brute-force rule above at several (budget, K)."""
    for budget, k in ((100, 20), (250, 40), (1000, 100), (1000, 20)):
        (cell,) = exact_cell(TOXICITY, 0.3, budget, k, ["acc"])
        assert abs(cell.reproducibility - _brute_reproducibility(TOXICITY, 0.3, k, budget // k)) < 1e-6


def test_two_label_accuracy_law_with_fewer_nodes_matches_a_fine_rule() -> None:
    """Issue 56: the two-label Accuracy law takes 32 + 4 sqrt(K) nodes per axis (was 64 + 16 sqrt(K)) and integrates
    rho out of B's chance first. Oracle: the plain tensor-product rule of ``_brute_reproducibility`` (scipy's
    Gauss-Jacobi, 600 nodes) for P(d = -1), P(d = +1) under the alternative, and under the null (A and B from
    (beta + gamma) / 2), at K up to 500 on two priors."""
    from nkcore.nk.exact.means import accuracy_law_two_labels

    def fine(prior: tuple[float, float], eps: float, k: int, null: bool) -> tuple[float, float]:
        t, w = roots_jacobi(600, prior[1] - 1.0, prior[0] - 1.0)
        x, w = (1.0 + t) / 2.0, w / w.sum()
        u, v = roots_jacobi(600, -0.5, -0.5)
        r, v = (1.0 + u) / 2.0, v / v.sum()
        first = lambda p: stats.binom.sf(-(-k // 2) - 1, k, p)  # noqa: E731
        g = first(x)[:, None] + 0.0 * r[None, :]
        if null:
            a = b = first((1.0 - eps / 2) * x[:, None] + (eps / 2) * r[None, :])
        else:
            a, b = g, first((1.0 - eps) * x[:, None] + eps * r[None, :])
        ww = w[:, None] * v[None, :]
        plus = float((ww * (g * a * (1 - b) + (1 - g) * (1 - a) * b)).sum())
        minus = float((ww * (g * (1 - a) * b + (1 - g) * a * (1 - b))).sum())
        return minus, plus

    for prior in (TOXICITY, (10.0, 3.0)):
        for k in (9, 50, 200, 500):
            for null in (False, True):
                minus, plus, err = accuracy_law_two_labels(prior, 0.3, k, null)
                want = fine(prior, 0.3, k, null)
                assert abs(minus - want[0]) < 1e-9 and abs(plus - want[1]) < 1e-9 and err < 1e-5
