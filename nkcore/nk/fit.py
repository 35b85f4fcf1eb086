"""Fit a Dirichlet prior (alpha) to real ratings: Dirichlet-multinomial maximum likelihood or MAP.

Input: an items x categories count matrix (items may have different numbers of ratings). The fitted alpha
feeds the simulation exactly as the paper's presets do. Reference: spec "Priors (alpha)" (the authors used a
MAP Dirichlet fit; fit quality = mean absolute bias MAB); Minka (2000), "Estimating a Dirichlet distribution",
for the Dirichlet-multinomial likelihood and its gradient.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.nk.priors import MAX_ALPHA  # its home: the priors' check, which must not load scipy

MAB_WARN = 0.02
"""MAB above which the fitted label shares are called a poor match for the data's shares."""
SUPPORT_CHUNK = 2**14
"""Most points x of the beta-binomial support 0..K the spread check holds at once: its memory is bounded by this, not
by a count (the whole support of every real dataset, K <= 100, and of the default K limit, 10,000, is one chunk)."""


@dataclass(frozen=True, slots=True)
class DirichletFit:
    """A fitted prior with its quality.

    alpha: fitted Dirichlet parameters; alpha0: their sum (large = items alike, small = items differ);
    mean: alpha / alpha0; empirical: each category's share of all ratings (theta); mab: mean absolute bias
    (1/M) sum |theta_m - alpha_m / alpha0| (spec); marginal_tv: how far the observed histogram of per-item
    label counts is from the fitted beta-binomial (items with the most common number of ratings, averaged over
    categories, total variation); marginal_tv_allowance: the sampling noise expected in that TV;
    log_likelihood: Dirichlet-multinomial log-likelihood at alpha (nats); spread_lr: its excess over one
    multinomial for all items (alpha0 -> infinity; below 1.92 = no detectable spread); n_items, n_ratings: data used;
    method: "ml" or "map"; converged: the optimiser converged inside the bounds; poor: a warning applies;
    warnings: plain-language warnings.
    """

    concentration: tuple[float, ...]
    alpha0: float
    mean: tuple[float, ...]
    empirical: tuple[float, ...]
    mab: float
    marginal_tv: float
    marginal_tv_allowance: float
    log_likelihood: float
    spread_lr: float
    n_items: int
    n_ratings: int
    method: str
    converged: bool
    poor: bool
    warnings: tuple[str, ...]


def _check_counts(counts: object) -> np.ndarray:
    try:
        c = np.asarray(counts, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError("counts must be a numeric items x categories matrix") from exc
    if c.ndim != 2 or c.shape[1] < 2:
        raise DataError(f"counts must be an items x categories matrix with at least 2 categories, got shape {c.shape}")
    bad = np.flatnonzero(~np.all(np.isfinite(c) & (c >= 0) & (c == np.round(c)), axis=1))
    if bad.size:
        raise DataError(f"counts must be whole numbers >= 0; bad item rows (0-based): {bad[:10].tolist()}")
    return c


def dm_log_likelihood(counts: np.ndarray, prior: np.ndarray) -> float:
    """Dirichlet-multinomial log-likelihood of the items' counts (the multinomial coefficient included).

    Formula: sum_i [ln n_i! - sum_m ln x_im! + ln G(a0) - ln G(n_i + a0) + sum_m (ln G(x_im + a_m) - ln G(a_m))].
    Same as ``scipy.stats.dirichlet_multinomial.logpmf`` summed over items.

    >>> round(dm_log_likelihood(np.array([[1, 1]]), np.array([1.0, 1.0])), 6)  # 2! * B(2,2)/B(1,1) = 1/3
    -1.098612
    """
    c = np.asarray(counts, dtype=float)
    a = np.asarray(prior, dtype=float)
    n = c.sum(axis=1)
    a0 = a.sum()
    coef = special.gammaln(n + 1) - special.gammaln(c + 1).sum(axis=1)
    ll = (
        coef + special.gammaln(a0) - special.gammaln(n + a0) + (special.gammaln(c + a) - special.gammaln(a)).sum(axis=1)
    )
    return float(ll.sum())


def fit_dirichlet(counts: object, method: str = "ml", prior_rate: float = 1e-3) -> DirichletFit:
    """Fit alpha to an items x categories count matrix by Dirichlet-multinomial ML (or MAP).

    ML maximises the log-likelihood (``dm_log_likelihood``) over ln(alpha) with L-BFGS-B and the exact gradient
    d/da_m = sum_i [psi(a0) - psi(n_i + a0) + psi(x_im + a_m) - psi(a_m)]. MAP adds an exponential prior
    alpha_m ~ Exp(prior_rate) (log prior -prior_rate * a_m), which keeps alpha finite when the data show no
    item-to-item spread. Items without ratings are ignored; items with one rating inform only the mean.
    Reference: Minka (2000); spec "Priors (alpha)" (MAB).

    >>> rng = np.random.default_rng(0)
    >>> x = rng.multinomial(20, [0.5, 0.5], size=5)  # no spread between items: alpha0 is not pinned down
    >>> f = fit_dirichlet(x)
    >>> f.poor, f.warnings[0][:20]
    (True, 'the items look alike')
    """
    if method not in ("ml", "map"):
        raise DataError(f"method must be 'ml' or 'map', got {method!r}")
    c = _check_counts(counts)
    n = c.sum(axis=1)
    c = c[n > 0]
    n = n[n > 0]
    if c.shape[0] < 2:
        raise DataError("need at least 2 items with ratings to fit a prior")
    _modal_k(n)  # refused here, before the optimiser, when the spread check's support 0..K is over the limit
    if np.all(n < 2):
        raise DataError("every item has a single rating: the spread between items cannot be estimated (need K >= 2)")
    m = c.shape[1]
    theta = c.sum(axis=0) / n.sum()
    if np.any(theta == 0):
        empty = np.flatnonzero(theta == 0).tolist()
        raise DataError(f"categories {empty} (0-based) have no ratings at all: drop them before fitting")
    rate = prior_rate if method == "map" else 0.0

    # method-of-moments start: share of the variance of per-item shares explained by the items
    multi = n >= 2
    shares = c[multi] / n[multi, None]
    var = shares.var(axis=0).mean()
    binom_var = np.mean(theta * (1 - theta)) * np.mean(1.0 / n[multi])
    between = max(var - binom_var, 1e-6)
    a0_start = float(np.clip(np.mean(theta * (1 - theta)) / between - 1.0, 0.05, 1e4))
    x0 = np.log(theta * a0_start)

    def neg(logs: np.ndarray) -> tuple[float, np.ndarray]:
        a = np.exp(logs)
        a0 = a.sum()
        ll = (
            c.shape[0] * special.gammaln(a0)
            - special.gammaln(n + a0).sum()
            + (special.gammaln(c + a) - special.gammaln(a)).sum()
        )
        g = c.shape[0] * special.digamma(a0) - special.digamma(n + a0).sum()
        grad_a = g + (special.digamma(c + a) - special.digamma(a)).sum(axis=0)
        ll -= rate * a0
        grad_a = grad_a - rate
        return -float(ll), -(grad_a * a)

    from scipy import optimize  # on demand: the engine's start-up (priors imports MAX_ALPHA) skips it

    bounds = [(np.log(1e-4), np.log(MAX_ALPHA))] * m
    res = optimize.minimize(neg, x0, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": 2000})
    prior = np.exp(res.x)
    at_bound = bool(np.any(res.x > np.log(MAX_ALPHA) - 1e-6))
    converged = bool(res.success) and not at_bound
    return _assess(c, n, prior, theta, method, converged)


def _assess(
    c: np.ndarray, n: np.ndarray, prior: np.ndarray, theta: np.ndarray, method: str, converged: bool
) -> DirichletFit:
    a0 = float(prior.sum())
    mean = prior / a0
    mab = float(np.mean(np.abs(theta - mean)))
    # beta-binomial check of the per-item spread, on the items with the most common number of ratings
    k_mode = _modal_k(n)
    marginal_tv, allowance = _marginal_check(c[n == k_mode], k_mode, prior)
    warnings: list[str] = []
    if mab > MAB_WARN:
        warnings.append(f"the fitted label shares are off by {mab:.3f} on average (MAB > {MAB_WARN})")
    if marginal_tv > 0.05 + 2 * allowance:
        warnings.append(
            f"the spread of labels between items is not Dirichlet-like: the per-item label counts differ from the "
            f"fitted model by {marginal_tv:.2f} (total variation; sampling noise alone gives about {allowance:.2f})"
        )
    # likelihood ratio against the alpha0 -> infinity limit (one multinomial for every item, pooled shares)
    with np.errstate(divide="ignore", invalid="ignore"):
        multinomial = float(
            np.sum(special.gammaln(n + 1) - special.gammaln(c + 1).sum(axis=1))
            + np.sum(np.where(c > 0, c * np.log(np.where(theta > 0, theta, 1.0)), 0.0))
        )
    spread_lr = dm_log_likelihood(c, prior) - multinomial
    if not converged or spread_lr < 1.92:
        warnings.append(
            "the items look alike: the data show no clear spread of labels between items, so alpha0 (the sum of "
            "alpha) is not pinned down; any larger value fits as well"
        )
    return DirichletFit(
        concentration=tuple(float(v) for v in prior),
        alpha0=a0,
        mean=tuple(float(v) for v in mean),
        empirical=tuple(float(v) for v in theta),
        mab=mab,
        marginal_tv=marginal_tv,
        marginal_tv_allowance=allowance,
        log_likelihood=dm_log_likelihood(c, prior),
        spread_lr=spread_lr,
        n_items=int(c.shape[0]),
        n_ratings=int(n.sum()),
        method=method,
        converged=converged,
        poor=bool(warnings),
        warnings=tuple(warnings),
    )


def _modal_k(n: np.ndarray) -> int:
    """The most common number of ratings per item (K), refused over ``limits.get("ratings_per_item")``.

    ``n`` holds each item's ratings as float64 (a count past 2**63 stays a number until this check). The spread check
    (:func:`_marginal_check`) works over the support 0..K, so its time grows with K: a count file is refused at that
    limit when it is read (:func:`nkcore.ratings.ratings_from_counts`); this refuses any other way in.

    >>> _modal_k(np.array([3.0, 5.0, 5.0]))
    5
    """
    vals, freq = np.unique(n, return_counts=True)
    k = float(vals[np.argmax(freq)])
    limits.check(
        "ratings_per_item",
        k,
        f"each of the {int(freq.max()):,} items with the most common number of ratings (K)",
        counted="ratings",
    )
    return int(k)


def _marginal_check(sub: np.ndarray, k: int, prior: np.ndarray) -> tuple[float, float]:
    """Total variation between the observed and the fitted beta-binomial law of one label's count, and its allowance.

    ``sub``: the items that have K = ``k`` ratings (rows) by label. For label m, with obs_m(x) the share of those items
    whose count of m is x and p_m(x) = BetaBinomial(x; K, a_m, a0 - a_m):
    TV_m = (1/2) sum_{x=0..K} |obs_m(x) - p_m(x)| and allowance_m = (1/2) sum_x sqrt(2 p_m(x) (1 - p_m(x)) / (pi S))
    (S items: the expected |obs - p| of a binomial share, sqrt(2/pi) standard deviations). Returns the means over
    labels. The support is walked in chunks of :data:`SUPPORT_CHUNK` points (memory bounded whatever K; the time is
    O(K M), K bounded by :func:`_modal_k`). Reference: the beta-binomial marginal of the Dirichlet-multinomial
    (Minka 2000).

    >>> tv, allow = _marginal_check(np.array([[0, 2], [1, 1], [2, 0]]), 2, np.array([1.0, 1.0]))
    >>> round(tv, 6), round(allow, 4)  # uniform on 0, 1, 2, seen exactly; 3 * sqrt(2 (1/3) (2/3) / (3 pi)) / 2
    (0.0, 0.3257)
    """
    from scipy import stats  # on demand, as optimize above

    a0 = float(prior.sum())
    size = sub.shape[0]
    tvs, allow = [], []
    for j in range(sub.shape[1]):
        seen = np.sort(sub[:, j])
        tv = spread = 0.0
        for lo in range(0, k + 1, SUPPORT_CHUNK):
            x = np.arange(lo, min(lo + SUPPORT_CHUNK, k + 1))
            pmf = stats.betabinom.pmf(x, k, prior[j], a0 - prior[j])
            part = seen[np.searchsorted(seen, lo) : np.searchsorted(seen, x[-1], side="right")]
            obs = np.bincount((part - lo).astype(np.int64), minlength=x.size) / size
            tv += 0.5 * float(np.abs(obs - pmf).sum())
            spread += 0.5 * float(np.sum(np.sqrt(2 * pmf * (1 - pmf) / (np.pi * size))))
        tvs.append(tv)
        allow.append(spread)
    return float(np.mean(tvs)), float(np.mean(allow))


def assess_alpha(counts: object, prior: object) -> DirichletFit:
    """The same quality numbers for a given alpha (e.g. a paper preset) on these counts (method "given")."""
    c = _check_counts(counts)
    n = c.sum(axis=1)
    c, n = c[n > 0], n[n > 0]
    a = np.asarray(prior, dtype=float)
    if a.size != c.shape[1]:
        raise DataError(f"alpha has {a.size} values but the counts have {c.shape[1]} categories")
    return _assess(c, n, a, c.sum(axis=0) / n.sum(), "given", True)
