"""Empirical-Bayes shrinkage of M configs' means: each mean pulled towards the average of all M by as much as
their observed spread is noise. A Bayes estimate does not suffer from selection: the one of the config picked as
the best is not biased by having been picked (Dawid 1994; Efron 2011, "Tweedie's formula and selection bias",
JASA 106(496):1602), which is why :mod:`nkcore.rank.winner` reports it as the winner's corrected score.

Model (normal means, exchangeable configs): the observed means X = theta + e with e ~ N(0, Sigma), Sigma the
covariance of the M means (the case covariance / n: the configs share the cases, so their errors correlate), and
the true means theta_j = mu + u_j with u_j ~ N(0, tau^2). Centring with C = I - J / M (J all ones) removes the
common level mu and the common case difficulty: Y = C X has covariance tau^2 C + C Sigma C. tau^2 by the method of
moments, cut at 0 (the positive part):

    tau^2 = max(0, (|Y|^2 - tr(C Sigma C)) / (M - 1))

and the posterior means (the best linear predictor of theta given X with mu estimated by the mean of X):

    theta_hat = mean(X) 1 + tau^2 C (tau^2 C + C Sigma C)^+ Y

With Sigma = s^2 I this is X_bar + (1 - B)(X_j - X_bar), B = s^2 / (tau^2 + s^2): the Efron-Morris (1975,
JASA 70(350):311) estimator with the moment estimate of B. When the means spread no more than the noise would
(tau^2 = 0) every config gets the average: nothing tells the configs apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nkcore.errors import DataError

__all__ = ["Shrunk", "shrink_means"]


@dataclass(frozen=True, slots=True, eq=False)
class Shrunk:
    """The shrunken means (``means``, M) and the between-config variance ``tau2`` they used; ``factor`` is
    tau^2 / (tau^2 + mean noise variance of the centred means), 0 (all pulled to the average) to 1 (none)."""

    means: np.ndarray
    tau2: float
    factor: float


def shrink_means(means: np.ndarray, cov: np.ndarray) -> Shrunk:
    """Empirical-Bayes (normal prior, moment tau^2) shrinkage of ``means`` (M) with noise covariance ``cov`` (M x M).

    >>> s = shrink_means(np.array([0.70, 0.60, 0.50]), np.eye(3) * 0.0025)
    >>> round(s.tau2, 4), s.means.round(4).tolist()
    (0.0075, [0.675, 0.6, 0.525])
    >>> shrink_means(np.array([0.61, 0.60, 0.59]), np.eye(3) * 0.0025).means.round(4).tolist()
    [0.6, 0.6, 0.6]
    """
    x = np.asarray(means, dtype=float)
    s = np.asarray(cov, dtype=float)
    m = x.size
    if x.ndim != 1 or m < 2 or s.shape != (m, m) or not (np.all(np.isfinite(x)) and np.all(np.isfinite(s))):
        raise DataError("shrinking the means needs two configs or more and their covariance")
    c = np.eye(m) - 1.0 / m
    y = c @ x
    csc = c @ s @ c
    noise = float(np.trace(csc))
    tau2 = max(0.0, (float(y @ y) - noise) / (m - 1))
    if tau2 == 0.0:
        return Shrunk(np.full(m, x.mean()), 0.0, 0.0)
    a = tau2 * c + csc
    shrunk = x.mean() + tau2 * c @ np.linalg.pinv(a, hermitian=True) @ y
    return Shrunk(shrunk, tau2, tau2 / (tau2 + noise / (m - 1)))
