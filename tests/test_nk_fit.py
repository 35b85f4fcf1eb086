"""Dirichlet-multinomial fit of a prior: recovery of a known alpha, scipy's likelihood as oracle, warnings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import dirichlet_multinomial

from nkcore.errors import DataError
from nkcore.nk.fit import MAX_ALPHA, assess_alpha, dm_log_likelihood, fit_dirichlet
from nkcore.nk.frames import fit_prior_frame


def _synthetic(alpha: tuple[float, ...], items: int, seed: int, k_range: tuple[int, int] = (5, 30)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    beta = rng.dirichlet(alpha, size=items)
    n = rng.integers(k_range[0], k_range[1] + 1, size=items)
    return np.array([rng.multinomial(k, b) for k, b in zip(n, beta, strict=True)])


def test_likelihood_matches_scipy() -> None:
    x = _synthetic((2.0, 1.0, 0.5), 50, 1)
    a = np.array([1.5, 0.7, 0.9])
    oracle = sum(dirichlet_multinomial.logpmf(row, a, row.sum()) for row in x)
    assert dm_log_likelihood(x, a) == pytest.approx(oracle, rel=1e-10)


@pytest.mark.parametrize("alpha", [(2.0, 1.0, 0.5), (1.38, 1.33), (10.0, 3.0, 3.0, 3.0)])
def test_fit_recovers_known_alpha(alpha: tuple[float, ...]) -> None:
    x = _synthetic(alpha, 4000, 7)
    fit = fit_dirichlet(x)
    assert fit.converged and not fit.poor, fit.warnings
    np.testing.assert_allclose(fit.concentration, alpha, rtol=0.12)
    # the ML optimum is at least as likely as the truth, and the gradient vanishes there
    assert fit.log_likelihood >= dm_log_likelihood(x, np.array(alpha)) - 1e-6
    assert fit.mab < 0.01


def test_mab_by_hand() -> None:
    x = np.array([[3, 1], [2, 2], [4, 0]])  # theta = (9/12, 3/12)
    q = assess_alpha(x, (1.0, 1.0))  # mean (0.5, 0.5)
    assert q.mab == pytest.approx(0.25)
    assert q.empirical == pytest.approx((0.75, 0.25))


def test_poor_fit_is_flagged() -> None:
    # two kinds of items (all label 0, or all label 1): not one Dirichlet's spread at these shares
    x = np.array([[10, 0, 0]] * 300 + [[0, 10, 0]] * 100 + [[3, 3, 4]] * 100)
    fit = fit_dirichlet(x)
    assert fit.poor and any("spread" in w for w in fit.warnings)


def test_no_spread_between_items_does_not_settle_but_map_is_finite() -> None:
    rng = np.random.default_rng(3)
    x = rng.multinomial(20, [0.6, 0.4], size=400)  # plain multinomial: alpha0 -> infinity under ML
    ml = fit_dirichlet(x)
    assert ml.poor and ml.spread_lr < 1.92 and any("look alike" in w for w in ml.warnings)
    mp = fit_dirichlet(x, method="map", prior_rate=0.01)
    assert mp.alpha0 < MAX_ALPHA and mp.mean[0] == pytest.approx(0.6, abs=0.02)


def test_bad_counts_raise() -> None:
    with pytest.raises(DataError, match="at least 2 categories"):
        fit_dirichlet(np.ones((5, 1)))
    with pytest.raises(DataError, match="whole numbers"):
        fit_dirichlet(np.array([[1.5, 2], [1, 1]]))
    with pytest.raises(DataError, match="single rating"):
        fit_dirichlet(np.array([[1, 0], [0, 1], [1, 0]]))
    with pytest.raises(DataError, match="no ratings at all"):
        fit_dirichlet(np.array([[2, 0], [3, 0]]))
    with pytest.raises(DataError, match="method"):
        fit_dirichlet(np.array([[2, 1], [3, 0]]), method="em")


def test_fit_from_ratings_frame() -> None:
    x = _synthetic((3.0, 1.0), 300, 5, (8, 8))
    rows = [
        (f"i{i}", f"r{j}", lab)
        for i, row in enumerate(x)
        for lab, c in zip(("no", "yes"), row, strict=True)
        for j in range(c)
    ]
    df = pd.DataFrame(rows, columns=["item", "rater", "label"])
    df["rater"] = df["rater"] + df.groupby("item").cumcount().astype(str)
    fp = fit_prior_frame(df)
    assert fp.labels == ("no", "yes") and fp.n_items == 300 and fp.ratings_per_item == (8, 8.0, 8)
    np.testing.assert_allclose(fp.fit.concentration, fit_dirichlet(x).concentration, rtol=1e-6)
