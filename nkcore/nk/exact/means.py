"""Exact means of the per-item gap for the metrics that add up over categories (TV and the log metrics).

For TV, KL (paper), smoothed KL and cross-entropy the per-item gap is a sum over categories m of a term that
depends only on (G_m, A_m, B_m), the three machines' counts of category m; given the item's beta_m and rho_m
these are independent binomials: G_m, A_m ~ Bin(K, beta_m), B_m ~ Bin(K, gamma_m), gamma_m = (1 - eps) beta_m +
eps rho_m, and beta_m ~ Beta(a_m, a0 - a_m), rho_m ~ Beta(1/M, 1 - 1/M) independently (the marginals of the
Dirichlets). So the mean gap is a sum of one- and two-dimensional integrals against Beta densities:
- TV (units: counts): E|B_m - G_m| - E|A_m - G_m|, with E|X - Y| = sum_{t < K} [F_X(t)(1 - F_Y(t)) +
  F_Y(t)(1 - F_X(t))] for independent X, Y (|X - Y| counts the t with min <= t < max);
- KL, smoothed KL, CE: E[w(G_m)] (E[ln q(A_m)] - E[ln q(B_m)]) (w, q: the metric's weights and smoothed shares).
The integrals are computed by Gauss-Jacobi quadrature (the Beta weight is exact, the integrand a polynomial of
degree <= 2K that is smooth on the scale of the Beta laws); the error estimate is the change from ``NODES_LOW`` to
``NODES`` nodes per axis (fewer on a concentrated beta axis: ``CONCENTRATED``). Every term is linear in B's pmf, so
rho is integrated out of it first (one mixture pmf per beta node), and each binomial pmf is computed on its band
(``_binom_mixture``). Used to pin the mean of an estimated per-item law (``laws``), the number that matters most for
p. Reference: Golub & Welsch (1969) for Gauss quadrature; Minka (2000) for Dirichlet marginals.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy.special import gammaln

from nkcore.nk.metrics import METRICS, with_flag
from nkcore.nk.score_kernels import UNIT

MEAN_METRICS: tuple[str, ...] = with_flag("exact_mean")
"""Metrics whose per-item mean is computed here (``Metric.exact_mean``): TV, and the KL family through its
per-count weights (``Metric.log_weights``)."""
NODES = 24
"""Gauss nodes per axis (beta_m, rho_m)."""
NODES_LOW = 12
"""Nodes of the coarser rule whose difference is the error estimate."""
CONCENTRATED = 0.6
"""A category's Beta(a_m, a0 - a_m) counts as concentrated at K when r = sqrt(K / (a0 + 1)) <= this: r is its sd
over the binomial's resolution in p, sqrt(p (1 - p) / K) (the same for every category). Every integrand in beta_m
varies on that resolution, so a concentrated axis needs few nodes: ``BETA_NODES`` / ``BETA_NODES_LOW`` there
(their error against 64 nodes: docs/benchmarks.md; the rho axis keeps ``NODES``: its error dominates the
estimate)."""
BETA_NODES = 8
BETA_NODES_LOW = 6


def _beta_nodes(a: float, b: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the n-point Gauss rule for the Beta(a, b) law on [0, 1] (weights sum to 1).

    Golub-Welsch on the Jacobi matrix of the weight (1 - t)^(b-1) (1 + t)^(a-1) on [-1, 1] (stable for the
    large parameters of concentrated priors, where the moment-based normalisation overflows).

    >>> x, w = _beta_nodes(2.0, 3.0, 4)
    >>> round(float(x @ w), 12), round(float(x**2 @ w), 12)  # Beta(2, 3): mean 0.4, E x^2 = 0.2
    (0.4, 0.2)
    """
    al, be = b - 1.0, a - 1.0
    k = np.arange(n, dtype=float)
    s = 2.0 * k + al + be
    with np.errstate(divide="ignore", invalid="ignore"):
        diag = (be**2 - al**2) / (s * (s + 2.0))
    diag[0] = (be - al) / (al + be + 2.0)
    j = np.arange(1, n, dtype=float)
    sj = 2.0 * j + al + be
    with np.errstate(divide="ignore", invalid="ignore"):
        off2 = 4.0 * j * (j + al) * (j + be) * (j + al + be) / (sj**2 * (sj + 1.0) * (sj - 1.0))
    if n > 1:
        off2[0] = 4.0 * (1.0 + al) * (1.0 + be) / ((al + be + 2.0) ** 2 * (al + be + 3.0))
    from scipy.linalg import eigh_tridiagonal  # on demand: scipy.linalg is slow to import (the CLI's start-up)

    t, vec = eigh_tridiagonal(diag, np.sqrt(np.maximum(off2, 0.0)))
    w = vec[0] ** 2
    return np.clip((1.0 + t) / 2.0, 0.0, 1.0), w / w.sum()


def _log_choose(k: int) -> np.ndarray:
    """ln C(K, x) for x = 0..K.

    >>> np.exp(_log_choose(4)).round(9).tolist()
    [1.0, 4.0, 6.0, 4.0, 1.0]
    """
    x = np.arange(k + 1.0)
    return gammaln(k + 1.0) - gammaln(x + 1.0) - gammaln(k - x + 1.0)


def _binom_pmf(k: int, p: np.ndarray) -> np.ndarray:
    """Bin(K, p) pmf for every p (rows) at 0..K (columns): exp(ln C(K, x) + x ln p + (K - x) ln(1 - p)) as an
    outer sum of precomputed logarithms (the same numbers as scipy's xlogy form, without its per-element work)."""
    x = np.arange(k + 1.0)
    logc = _log_choose(k)
    pp = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore"):
        lp, lq = np.log(pp), np.log1p(-pp)
    out = np.multiply.outer(lp, x)
    out += np.multiply.outer(lq, k - x)
    out += logc
    # 0 log 0 = 0 (p = 0 or 1 at the end points): the pmf there is the point mass
    out[pp == 0.0] = np.where(x == 0, 0.0, -np.inf)
    out[pp == 1.0] = np.where(x == k, 0.0, -np.inf)
    return np.exp(out, out=out)


BAND_SD = 9.5
"""A binomial pmf is computed on Kp +- (BAND_SD sd + ``BAND_PAD``) only: Bernstein's inequality bounds the mass
outside by exp(-45) (3e-20), far below the quadrature's error."""
BAND_PAD = 40
BAND_CHUNK = 64
"""Nodes per band width: the nodes sorted by their band, each chunk of this many computed on its widest band."""


def _binom_mixture(k: int, gam: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_r w_r Bin(K, gam[b, r]) at 0..K for every row b: the rho-mixture of B's count given beta's node.

    Each pmf is exp(ln C(K, x) + x ln p + (K - x) ln(1 - p)) on its band (``BAND_SD``) only, its nodes grouped
    by band width; the mixture adds them up by ``np.bincount``.

    >>> gam, w = np.array([[0.2, 0.7]]), np.array([0.25, 0.75])
    >>> from scipy.stats import binom
    >>> ref = 0.25 * binom.pmf(np.arange(31), 30, 0.2) + 0.75 * binom.pmf(np.arange(31), 30, 0.7)
    >>> bool(np.allclose(_binom_mixture(30, gam, w)[0], ref, rtol=1e-12, atol=1e-300))
    True
    """
    rows, cols = gam.shape
    g = np.clip(gam.ravel(), 1e-300, 1.0 - 1e-16)  # an end point: its pmf is the point mass, to 1e-14
    row = np.repeat(np.arange(rows), cols)
    weight = np.tile(np.asarray(w, dtype=float), rows)
    half = BAND_SD * np.sqrt(k * g * (1.0 - g)) + BAND_PAD
    lo = np.clip(np.floor(k * g - half), 0, k).astype(np.int64)
    hi = np.clip(np.ceil(k * g + half), 0, k).astype(np.int64)
    logc = _log_choose(k)
    lp, lq = np.log(g), np.log1p(-g)
    out = np.zeros(rows * (k + 1))
    order = np.argsort(hi - lo, kind="stable")
    for chunk in np.array_split(order, max(1, -(-order.size // BAND_CHUNK))):
        band = int((hi[chunk] - lo[chunk]).max()) + 1
        xi = np.minimum(lo[chunk, None] + np.arange(band), k)
        e = logc[xi] + xi * lp[chunk, None] + (k - xi) * lq[chunk, None]
        np.exp(e, out=e)
        e *= weight[chunk, None]
        e[lo[chunk, None] + np.arange(band) > k] = 0.0  # past K: clipped indices, no mass
        out += np.bincount((row[chunk, None] * (k + 1) + xi).ravel(), weights=e.ravel(), minlength=out.size)
    return out.reshape(rows, k + 1)


@lru_cache(maxsize=256)
def _nodes(a: float, b: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``_beta_nodes``, cached: the same Beta laws serve every K and eps of a prior."""
    x, w = _beta_nodes(a, b, n)
    x.flags.writeable = False
    w.flags.writeable = False
    return x, w


def _means(prior: tuple[float, ...], eps: float, k: int, nodes: int, beta_nodes: int) -> dict[str, float]:
    """Every metric of ``MEAN_METRICS`` at once, with ``nodes`` on the rho axis and ``beta_nodes`` on the beta axis:
    the binomial pmfs at the Gauss nodes (the costly part) are shared by the metrics, and by the categories with
    the same alpha_m (their terms are equal); the distinct alpha_m are computed together (their beta nodes are the
    rows of one array)."""
    a = np.asarray(prior)
    m = a.size
    a0 = float(a.sum())
    rx, rw = _nodes(1.0 / m, 1.0 - 1.0 / m, nodes)
    flagged = with_flag("exact_mean")  # read at call time: a metric registered later is served too
    wl = {mt: w(k, m) for mt in flagged if (w := METRICS[mt].log_weights) is not None}
    names = list(wl)
    lqs = np.stack([wl[mt][1] for mt in names], axis=1)  # (K + 1, metrics)
    ws = np.stack([wl[mt][0] for mt in names], axis=1)
    x = np.arange(k + 1.0)
    values, repeats = np.unique(a, return_counts=True)
    got = [_nodes(float(aj), a0 - float(aj), beta_nodes) for aj in values.tolist()]
    bx = np.concatenate([g[0] for g in got])  # (V B,): the beta nodes of every distinct alpha_m
    bw = np.concatenate([g[1] * t for g, t in zip(got, repeats.tolist(), strict=True)])  # weights x categories
    gam = (1.0 - eps) * bx[:, None] + eps * rx[None, :]
    pb = _binom_pmf(k, bx)
    mix = _binom_mixture(k, gam, rw)  # B's count given beta's node, rho integrated out (everything is linear in it)
    fb = np.cumsum(pb, axis=1)[:, :k]
    e_ag = 2.0 * (fb * (1.0 - fb)).sum(axis=1)  # E|A - G| given beta
    # E|B - G| = sum_{t<K} [F_G(t) + F_B(t) - 2 F_G(t) F_B(t)], linear in B's pmf: sum_t F_B(t) = E(K - B) and
    # sum_t F_G(t) F_B(t) = sum_x P(B = x) R(x), R(x) = sum_{x <= t < K} F_G(t)
    rev = np.zeros((bx.size, k + 1))
    rev[:, :k] = np.cumsum(fb[:, ::-1], axis=1)[:, ::-1]
    e_bg = fb.sum(axis=1) + np.einsum("bx,x->b", mix, k - x) - 2.0 * np.einsum("bx,bx->b", mix, rev)
    total = dict.fromkeys(flagged, 0.0)
    tv = float(np.sum(bw * (e_bg - e_ag)))
    for mt in flagged:
        if METRICS[mt].log_weights is None:  # TV: E|B - G| - E|A - G| per category, in counts
            total[mt] = tv
    if names:
        ew, elq = np.einsum("bx,xq->bq", pb, ws), np.einsum("bx,xq->bq", pb, lqs)  # no BLAS (class doc)
        elq_b = np.einsum("bx,xq->bq", mix, lqs)
        contrib = (bw[:, None] * ew * (elq - elq_b)).sum(axis=0)
        for i, mt in enumerate(names):
            total[mt] = float(contrib[i])
    return {mt: v * (1.0 if METRICS[mt].log_weights is None else UNIT) for mt, v in total.items()}


@lru_cache(maxsize=1024)
def _cached(prior: tuple[float, ...], eps: float, k: int) -> dict[str, tuple[float, float]]:
    concentrated = np.sqrt(k / (sum(prior) + 1.0)) <= CONCENTRATED
    hi = _means(prior, eps, k, NODES, BETA_NODES if concentrated else NODES)
    lo = _means(prior, eps, k, NODES_LOW, BETA_NODES_LOW if concentrated else NODES_LOW)
    return {mt: (hi[mt], abs(hi[mt] - lo[mt])) for mt in hi}


def clear_means() -> None:
    """Forget the cached exact means, two-label Accuracy laws and Gauss nodes."""
    _cached.cache_clear()
    _nodes.cache_clear()
    accuracy_law_two_labels.cache_clear()


def exact_mean(prior: Sequence[float], eps: float, k: int, metric: str) -> tuple[float, float] | None:
    """The mean per-item gap in the metric's units (``count_gaps.item_units_cm``) and its quadrature error.

    None for metrics that do not add up over categories (Accuracy, Wins, JS). Units: counts for TV (scale M K),
    2^-32 nats for the log metrics.

    >>> mean, err = exact_mean((1.37658107, 1.33054633), 0.3, 1, "tv")
    >>> round(mean / 2, 4), err < 1e-9  # TV at K = 1, M = 2: 2 units per disagreement, as Accuracy's gap
    (0.0405, True)
    """
    info = METRICS.get(metric)
    if info is None or not info.exact_mean:
        return None
    return _cached(tuple(float(x) for x in prior), float(eps), int(k))[metric]


__all__ = ["MEAN_METRICS", "NODES", "accuracy_law_two_labels", "clear_means", "exact_mean"]


ACC2_NODES = 32
"""Two labels, Accuracy: Gauss nodes per axis at K = 1; ``ACC2_PER_SQRT_K`` more per sqrt(K) (the plurality's
chance P(Bin(K, p) >= K / 2) steps from 0 to 1 over a width of about 1 / sqrt(K) in p), rounded up to a multiple
of 8 (the nodes are cached per count). Against 800 nodes on the four two-label presets, eps 0.1 and 0.3, K = 9-500:
within 1e-15 (issue 56: the rule was 64 + 16 sqrt(K), 432 nodes at K = 500, 1.6 s of a Toxicity grid's 3.4 s)."""
ACC2_PER_SQRT_K = 4


def _acc2(prior: tuple[float, ...], eps: float, k: int, null: bool, nodes: int) -> tuple[float, float]:
    """(P(d = -1), P(d = +1)) of one item's Accuracy gap at M = 2 with ``nodes`` Gauss nodes per axis."""
    from scipy.special import betainc  # on demand (import time of the CLI)

    a0, a1 = float(prior[0]), float(prior[1])
    bx, bw = _nodes(a0, a1, nodes)  # beta_0 ~ Beta(a_0, a_1): category 0's share
    rx, rw = _nodes(0.5, 0.5, nodes)  # rho_0 ~ Beta(1/M, 1 - 1/M)
    t = -(-k // 2)  # the plurality is category 0 when its count >= K / 2 (ties to the lowest index)

    def first(p: np.ndarray) -> np.ndarray:  # P(plurality = category 0) = P(Bin(K, p) >= t)
        return betainc(t, k - t + 1.0, np.clip(p, 0.0, 1.0))

    x, r = bx[:, None], rx[None, :]
    g = first(bx)
    if null:  # A and B both from (beta + gamma) / 2 = (1 - eps / 2) beta + (eps / 2) rho, independently given rho:
        # P(+1) = P(-1) = E[g a (1 - a) + (1 - g)(1 - a) a] = E[a - a^2] (a = b)
        a = first((1.0 - 0.5 * eps) * x + 0.5 * eps * r)
        both = float(bw @ ((a - a * a) @ rw))
        return both, both
    # A's chance depends on beta only (g = a), B's on rho too: integrate rho out of B's first (everything is linear
    # in it): plus = E[g^2 (1 - b) + (1 - g)^2 b]; minus = E[g (1 - g) b + (1 - g) g (1 - b)] = E[g (1 - g)]
    b = first((1.0 - eps) * x + eps * r) @ rw
    plus = g * g * (1.0 - b) + (1.0 - g) * (1.0 - g) * b  # A agrees with the gold plurality, B does not
    return float(bw @ (g * (1.0 - g))), float(bw @ plus)


@lru_cache(maxsize=1024)
def accuracy_law_two_labels(prior: tuple[float, ...], eps: float, k: int, null: bool) -> tuple[float, float, float]:
    """Two labels (M = 2): the exact law of one item's Accuracy gap d in {-1, 0, +1} at K ratings per item.

    Given the item's beta and rho, gold, A and B's pluralities are independent: category 0 with chances g, a, b
    (P(Bin(K, p) >= K / 2), p = beta_0, beta_0 and gamma_0 = (1 - eps) beta_0 + eps rho_0 under the alternative;
    under the null A and B both from (beta_0 + gamma_0) / 2). So P(d = +1) = E[g a (1 - b) + (1 - g)(1 - a) b],
    P(d = -1) = E[g (1 - a) b + (1 - g) a (1 - b)], a two-dimensional integral against Beta(a_0, a_1) x
    Beta(1/2, 1/2) by Gauss-Jacobi quadrature. Returns (P(-1), P(+1), error): the error is the change from half the
    nodes. Replaces the estimated law (its items' sampling error: issue 53, Toxicity N = 20, K = 50).

    >>> m, p, err = accuracy_law_two_labels((1.37658107, 1.33054633), 0.3, 1, False)
    >>> round(p - m, 4), err < 1e-9  # K = 1: the spec's closed form, eps (sum a(a+1) / (a0 (a0+1)) - 1/M)
    (0.0405, True)
    """
    n = -(-(ACC2_NODES + ACC2_PER_SQRT_K * int(np.ceil(np.sqrt(k)))) // 8) * 8
    hi = _acc2(prior, eps, k, null, n)
    lo = _acc2(prior, eps, k, null, n // 2)
    return hi[0], hi[1], float(max(abs(hi[0] - lo[0]), abs(hi[1] - lo[1])))
