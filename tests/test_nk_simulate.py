"""The count-based simulation against the spec: exact identities, closed forms, response-level sampling.

Oracles: Wins == Accuracy at K = 1 (exact, per dataset), the closed-form Accuracy gap at K = 1, the
response-level transcription of the spec (``nkcore.nk.reference``) compared in distribution (chi-square
homogeneity and Kolmogorov-Smirnov), and seeds / worker counts that must not change a number.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2_contingency, ks_2samp

from nkcore.errors import DataError
from nkcore.nk.grid import simulate_cell, simulate_grid
from nkcore.nk.metrics import ALL_METRICS, PAPER_METRICS
from nkcore.nk.priors import expected_accuracy_gap_k1, get_prior
from nkcore.nk.reference import reference_dataset, reference_gaps, response_counts
from nkcore.nk.simulate import draw_counts, draw_dirichlet, simulate_counts, simulate_gaps

TOX = get_prior("Toxicity").alpha


def test_wins_equals_accuracy_and_tv_is_scaled_accuracy_at_k1() -> None:
    for name in ("Toxicity", "DICES", "JobsQ3"):
        alpha = get_prior(name).alpha
        (s,) = simulate_gaps(alpha, 0.3, [(40, 1)], rounds=300, seed=3, metrics=ALL_METRICS)
        for side in (s.alt, s.null):
            np.testing.assert_array_equal(side["wins"], side["acc"])  # exactly, dataset by dataset
            np.testing.assert_allclose(side["tv"], side["acc"] * 2 / len(alpha), atol=1e-15)
            assert np.all(np.isfinite(side["f1"]))


@pytest.mark.parametrize(("name", "eps"), [("Toxicity", 0.3), ("DICES", 0.2), ("JobsQ1", 0.4), ("balanced5", 0.1)])
def test_closed_form_accuracy_gap_at_k1(name: str, eps: float) -> None:
    alpha = get_prior(name).alpha
    (s,) = simulate_gaps(alpha, eps, [(2000, 1)], rounds=200, seed=11, metrics=("acc",))
    alt = s.alt["acc"]
    se = alt.std(ddof=1) / np.sqrt(alt.size)
    assert abs(alt.mean() - expected_accuracy_gap_k1(alpha, eps)) < 4 * se
    # and under the null the expected gap is 0
    assert abs(s.null["acc"].mean()) < 4 * s.null["acc"].std(ddof=1) / np.sqrt(alt.size)


def test_toxicity_worked_number() -> None:
    (c,) = simulate_cell(TOX, 0.3, budget=2500, k=1, metrics="acc", rounds=1000, seed=0)
    se = np.std(c.alt, ddof=1) / np.sqrt(c.rounds)
    assert abs(c.mean_gap - 0.0405) < 4 * se
    assert c.delta == pytest.approx(abs(c.mean_gap))


def _joint_table(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Contingency table (2 samples x outcomes), outcomes with few expected counts pooled into one column."""
    values = np.union1d(x, y)
    tab = np.array([[np.sum(x == v) for v in values], [np.sum(y == v) for v in values]])
    small = tab.sum(axis=0) < 20
    if small.any():
        tab = np.column_stack([tab[:, ~small], tab[:, small].sum(axis=1)])
    return tab


@pytest.mark.parametrize(("alpha", "k", "null"), [(TOX, 3, False), (TOX, 3, True), ((2.0, 1.0, 0.5), 2, True)])
def test_count_sampling_matches_response_level_joint_law(alpha: tuple[float, ...], k: int, null: bool) -> None:
    """One item, small K: the joint law of (gold, A, B) counts, count-based vs response-level (chi-square)."""
    rounds, m = 6000, len(alpha)
    hyp = "null" if null else "alternative"
    fast = simulate_counts(alpha, 0.4, n=1, k=k, rounds=rounds, seed=5, hypothesis=hyp)
    rng = np.random.default_rng(6)
    ref = [reference_dataset(rng, alpha, 0.4, 1, k, null) for _ in range(rounds)]
    base = (k + 1) ** np.arange(3 * m)

    def code(g: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.concatenate([g, a, b], axis=-1) @ base

    x = code(fast.gold[:, 0], fast.a[:, 0], fast.b[:, 0])
    y = np.array([code(*(response_counts(v, m)[0] for v in (d.gold, d.a, d.b))) for d in ref])
    p = chi2_contingency(_joint_table(x, y)).pvalue
    assert p > 1e-3


@pytest.mark.parametrize(("k", "null"), [(60, False), (60, True), (8, False)])
def test_gap_distribution_matches_response_level(k: int, null: bool) -> None:
    """Many items: the TV and KL gap samples of both implementations agree (two-sample KS), both K paths."""
    alpha, n, rounds = (3.0, 1.0, 2.0), 6, 1500
    (s,) = simulate_gaps(alpha, 0.3, [(n, k)], rounds=rounds, seed=21, metrics=("tv", "kl_smooth"))
    ref_alt, ref_null = reference_gaps(alpha, 0.3, n, k, rounds, seed=22, metrics=("tv", "kl_smooth"))
    fast, ref = (s.null, ref_null) if null else (s.alt, ref_alt)
    for name in ("tv", "kl_smooth"):
        # the same rational gap computed two ways differs in the last bits: compare rounded values
        assert ks_2samp(np.round(fast[name], 9), np.round(ref[name], 9)).pvalue > 1e-3, name


def test_binomial_and_categorical_paths_agree() -> None:
    rng = np.random.default_rng(0)
    p = np.array([0.5, 0.3, 0.2])[:, None] * np.ones((1, 40000))
    small = draw_counts(rng, p, 40)  # categorical draws (K <= 40)
    large = draw_counts(rng, p, 41)  # binomial chain
    assert small.shape == (3, 40000) and np.all(small.sum(axis=0) == 40) and np.all(large.sum(axis=0) == 41)
    for counts, k in ((small, 40), (large, 41)):
        np.testing.assert_allclose(counts.mean(axis=1), k * np.array([0.5, 0.3, 0.2]), rtol=0.01)
        np.testing.assert_allclose(counts.var(axis=1), k * np.array([0.25, 0.21, 0.16]), rtol=0.05)


def test_dirichlet_moments_and_tiny_alpha_is_finite() -> None:
    rng = np.random.default_rng(0)
    alpha = np.array([2.0, 1.0, 0.5])
    d = draw_dirichlet(rng, alpha, (200000,))
    np.testing.assert_allclose(d.mean(axis=1), alpha / 3.5, atol=0.003)
    np.testing.assert_allclose(d.var(axis=1), alpha / 3.5 * (1 - alpha / 3.5) / 4.5, rtol=0.03)
    tiny = draw_dirichlet(rng, np.array([0.001, 0.002]), (10000,))
    assert np.all(np.isfinite(tiny)) and np.allclose(tiny.sum(axis=0), 1.0)
    half = draw_dirichlet(rng, np.array([0.5, 0.5]), (200000,))  # the arcsine shortcut: Beta(1/2, 1/2)
    assert half[0].var() == pytest.approx(1 / 8, rel=0.02)


def test_reproducible_and_independent_of_workers_and_neighbours() -> None:
    a1 = simulate_cell(TOX, 0.3, 1000, 120, PAPER_METRICS, rounds=300, seed=7, workers=1)
    a2 = simulate_cell(TOX, 0.3, 1000, 120, PAPER_METRICS, rounds=300, seed=7, workers=2)
    grid = simulate_grid(TOX, 0.3, [500, 1000], [1, 120], PAPER_METRICS, rounds=300, seed=7, workers=2)
    in_grid = [c for c in grid if c.budget == 1000 and c.k == 120]
    for x, y, z in zip(a1, a2, in_grid, strict=True):
        np.testing.assert_array_equal(x.alt, y.alt)
        np.testing.assert_array_equal(x.null, z.null)
        assert x.p == y.p == z.p
    other = simulate_cell(TOX, 0.3, 1000, 120, "acc", rounds=300, seed=8)
    assert not np.array_equal(other[0].alt, a1[0].alt)


def test_bad_parameters_raise_data_error() -> None:
    with pytest.raises(DataError, match="eps"):
        simulate_cell(TOX, 1.5, 100, 1)
    with pytest.raises(DataError, match="larger than the budget"):
        simulate_cell(TOX, 0.3, 100, 120)
    with pytest.raises(DataError, match="rounds"):
        simulate_cell(TOX, 0.3, 100, 1, rounds=1)
    with pytest.raises(DataError, match="seed"):
        simulate_cell(TOX, 0.3, 100, 1, seed=-1)
