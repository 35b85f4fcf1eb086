"""Exact samplers of the paper's generative model (the alternative) and of its null, as per-item counts.

Spec "Generative model" and "Null hypothesis", for each simulated dataset (redrawn every round):
    beta_i ~ Dirichlet(alpha), rho_i ~ Dirichlet([1/M] * M), gamma_i = (1 - eps) beta_i + eps rho_i
    alternative: G_i, A_i ~ Multinomial(K, beta_i), B_i ~ Multinomial(K, gamma_i)
    null:        G_i ~ Multinomial(K, beta_i), A_i, B_i ~ Multinomial(K, (beta_i + gamma_i) / 2)
The null's per-response fair coin (A: beta or gamma; B: the roles swapped; independent coins) makes every
response of A and of B an independent draw from the mixture (beta_i + gamma_i)/2, so drawing the counts from the
mixture is the same distribution. Every metric depends only on the per-item counts, so only counts are drawn,
by one of three exact samplers (the same distribution; a fixed rule on (N, K, M) picks the cheapest, so seeds
stay reproducible):
- "types" (``nkcore.nk.outcomes``): when an item has fewer possible outcomes than it costs to draw the items,
  a whole dataset is the counts of outcome types, Multinomial(N, exact law of one item);
- "urn": beta and rho integrated out (Polya urns), for small K (no Dirichlet draw at all);
- "dirichlet": beta, rho and gamma drawn explicitly (gamma variates), then K <= 40: K uniforms per item
  against the cumulative probabilities (direct categorical draws); larger K: a chain of M - 1 binomials.
Every sampler is checked against the exact law and the spec's response-level transcription in
``tests/test_nk_simulate.py``. Arrays are category-major (M, ...): each category's slice is contiguous.
The driver (chunks of rounds, seeds, threads, limits) is ``nkcore.nk.simulate``.
"""

from __future__ import annotations

import numpy as np

from nkcore.nk import outcomes

UNIFORM_MAX_K = 40
"""K at or below which K direct categorical draws per item beat a chain of binomials (or hypergeometrics, for
draws without replacement in ``nkcore.nk.resample``): the break-even in docs/benchmarks.md."""
_LOG_GAMMA_BELOW = 0.05  # largest alpha below which the Dirichlet is drawn in log space (no underflow)
_INT16_MAX_K = 16000  # counts fit int16 (and so do sums of |A - G| over categories, at most 2K)
_URN_MAX_K = ((2, 1), (7, 16), (100, 20))  # (largest M, largest K) of the urn sampler: the timed break-even
SAMPLERS: tuple[str, ...] = ("auto", "types", "urn", "dirichlet")
"""Sampler names: "auto" picks by a fixed rule on (N, K, M); the others force one sampler."""


def draw_dirichlet(rng: np.random.Generator, prior: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Dirichlet(alpha) draws, CATEGORY-MAJOR: shape (M, *shape) (each category slice contiguous).

    Formula: g_m ~ Gamma(alpha_m, 1), beta_m = g_m / sum(g) (float64 gamma draws written in place, batched over
    rounds and items). When every alpha_m < 0.05, the gammas are drawn in log space
    (ln Gamma(a) = ln Gamma(a + 1) + ln(U) / a) so that they cannot all underflow to 0.
    For alpha = (1/2, 1/2) (the noise rho at M = 2) this is Beta(1/2, 1/2): sin^2(pi U / 2), the arcsine law.
    """
    m = prior.size
    if m == 2 and prior[0] == 0.5 and prior[1] == 0.5:
        r1 = np.sin(rng.random(shape) * (np.pi / 2)) ** 2
        return np.stack([r1, 1.0 - r1])
    g = np.empty((m, *shape))
    if prior.max() < _LOG_GAMMA_BELOW:
        for j, a in enumerate(prior):
            g[j] = np.log(rng.standard_gamma(a + 1.0, shape)) + np.log(rng.random(shape)) / a
        g -= g.max(axis=0)
        np.exp(g, out=g)
    else:
        for j, a in enumerate(prior):
            rng.standard_gamma(a, out=g[j])
    g /= g.sum(axis=0)
    return g


def draw_noise(rng: np.random.Generator, m: int, shape: tuple[int, ...]) -> np.ndarray:
    """rho ~ Dirichlet([1/M] * M), category-major (M, *shape)."""
    return draw_dirichlet(rng, np.full(m, 1.0 / m), shape)


def count_dtype(k: int) -> type:
    """Integer type of the counts: int16 while sums of two machines' differences (at most 2K) fit, else int64."""
    return np.int16 if k <= _INT16_MAX_K else np.int64


def cumulative_to_counts(cum: np.ndarray, k: int) -> np.ndarray:
    """Counts (M, ...) from cumulative counts C_j = #{responses with category <= j}, j < M - 1 (shape (M-1, ...))."""
    m1 = cum.shape[0]
    if cum.dtype.kind == "f":  # urn thresholds minus their prior: whole numbers up to rounding
        cum = np.rint(cum)
    out = np.empty((m1 + 1, *cum.shape[1:]), dtype=count_dtype(k))
    out[0] = cum[0]
    if m1 > 1:
        np.subtract(cum[1:], cum[:-1], out=out[1:m1], casting="unsafe")
    np.subtract(k, cum[m1 - 1], out=out[m1], casting="unsafe")
    return out


def _cumsum_rows(p: np.ndarray) -> np.ndarray:
    """np.cumsum(p, axis=0) of a category-major array, row by row (each row a contiguous vector add: the same sums
    in the same order, so the same numbers; numpy's cumsum along the first axis walks the long rows with a stride,
    much slower: docs/benchmarks.md).

    >>> x = np.random.default_rng(0).random((5, 7))
    >>> bool(np.array_equal(_cumsum_rows(x), np.cumsum(x, axis=0)))
    True
    """
    out = np.array(p, dtype=float, copy=True)
    for j in range(1, out.shape[0]):
        out[j] += out[j - 1]
    return out


def _draw_counts_many(rng: np.random.Generator, p: np.ndarray, k: int, copies: int) -> list[np.ndarray]:
    """``copies`` independent Multinomial(K, p) count arrays for the same probabilities ``p`` (M, ...)."""
    m = p.shape[0]
    lead = p.shape[1:]
    if k <= UNIFORM_MAX_K:
        cum = _cumsum_rows(p[: m - 1])  # computed once for every copy
        u = np.empty(lead)
        ind = np.empty(cum.shape, dtype=bool)
        out = []
        for _ in range(copies):
            below = np.zeros(cum.shape, dtype=np.int8)  # K <= 40 fits
            for _ in range(k):
                rng.random(out=u)
                np.less(u, cum, out=ind)
                below += ind.view(np.int8)
            out.append(cumulative_to_counts(below, k))
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        # conditional probabilities of the binomial chain, shared by every copy
        mass = 1.0 - np.concatenate([np.zeros((1, *lead)), _cumsum_rows(p[: m - 2])])
        q = np.clip(np.where(mass > 0, p[: m - 1] / mass, 1.0), 0.0, 1.0)
    out = []
    for _ in range(copies):
        c = np.empty((m, *lead), dtype=count_dtype(k))
        left = np.full(lead, k, dtype=np.int64)
        for j in range(m - 1):
            cj = rng.binomial(left, q[j])
            c[j] = cj
            left -= cj
        c[m - 1] = left
        out.append(c)
    return out


def draw_counts(rng: np.random.Generator, p: np.ndarray, k: int) -> np.ndarray:
    """Multinomial(K, p) counts for every item; ``p`` and the result are category-major (M, ...).

    K <= 40: K direct categorical draws per item (a uniform U against the cumulative probabilities;
    count_m = #{U in [P_{m-1}, P_m)}). Larger K: the binomial chain
    c_j ~ Binomial(K - sum_{l<j} c_l, p_j / (1 - sum_{l<j} p_l)), the last category takes the rest.
    Both are exact draws of the multinomial.
    """
    return _draw_counts_many(rng, p, k, 1)[0]


def _urn_draws(
    rng: np.random.Generator,
    thr: np.ndarray,
    total: float | np.ndarray,
    steps: int,
    drawn: np.ndarray,
    active: np.ndarray | None = None,
) -> None:
    """``steps`` draws per item from a Polya urn, updating its thresholds ``thr`` (M-1, L) in place.

    thr_j = prior mass of the categories <= j + earlier draws of the item with category <= j; ``total`` is the
    urn's whole mass before the first of these draws (a number, or one per item). With U uniform, the draw is a
    category <= j exactly when U * (total + t) < thr_j, and then every thr_j from its category on grows by 1.
    ``drawn`` (M-1, L) small integers: the machine's cumulative counts, incremented in place.
    ``active`` (one per item): how many of the ``steps`` draws the item makes (the rest are skipped).
    """
    u = np.empty(thr.shape[1:])
    ind = np.empty(thr.shape, dtype=bool)
    small = drawn.view(np.int8) if drawn.dtype == np.int8 else None
    for t in range(steps):
        rng.random(out=u)
        u *= total + t
        np.less(u, thr, out=ind)
        if active is not None:
            np.logical_and(ind, t < active, out=ind)
        thr += ind
        if small is not None:
            small += ind.view(np.int8)  # same-type add: much cheaper than adding booleans
        else:
            drawn += ind


def urn_thresholds(prior: np.ndarray, size: int) -> np.ndarray:
    """Fresh urn thresholds (M-1, size): the prior's cumulative mass for every item."""
    thr = np.empty((prior.size, size))
    thr[...] = prior[:, None]
    return thr


def _urn_dataset(
    rng: np.random.Generator, prior: np.ndarray, eps: float, size: int, k: int, null: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold, A and B counts (M, size) with beta and rho integrated out (Polya urns): exact, no Dirichlet draw.

    Given the earlier draws of an item, a response from beta_i ~ Dir(alpha) is category m with probability
    (alpha_m + n_m) / (alpha0 + n) (n_m: the item's earlier beta draws of category m, in any machine), and one
    from rho_i ~ Dir(1/M) with probability (1/M + r_m) / (1 + r). Which responses come from rho: B's under the
    alternative with probability eps each (gamma = (1 - eps) beta + eps rho), A's and B's under the null with
    probability eps/2 each (a fair coin between beta and gamma); so per machine c ~ Binomial(K, eps or eps/2)
    responses go to the rho urn and K - c to the beta urn that gold also draws from.
    """
    m = prior.size
    a0 = float(prior.sum())
    cum_dtype = np.int8 if k <= 127 else np.int64
    cum_g, cum_a, cum_b = (np.zeros((m - 1, size), dtype=cum_dtype) for _ in range(3))
    thr = urn_thresholds(np.cumsum(prior)[: m - 1], size)
    _urn_draws(rng, thr, a0, k, cum_g)  # gold: K draws from beta
    p_rho = 0.5 * eps if null else eps
    rho_a = rng.binomial(k, p_rho, size) if null else np.zeros(size, dtype=np.int64)
    rho_b = rng.binomial(k, p_rho, size)
    _urn_draws(rng, thr, a0 + k, k, cum_a, k - rho_a if null else None)  # A's responses from beta
    _urn_draws(rng, thr, a0 + 2 * k - rho_a, k, cum_b, k - rho_b)  # B's responses from beta
    idx = np.flatnonzero(rho_a + rho_b)  # items with a response from rho: only they need the rho urn
    if idx.size:
        dense = idx.size * 3 > size  # most items: work on all of them (masked) rather than gather and scatter
        ra, rb = (rho_a, rho_b) if dense else (rho_a[idx], rho_b[idx])
        thr_r = urn_thresholds(np.arange(1, m) / m, ra.size)
        for machine, before, count in ((cum_a, 1.0, ra), (cum_b, 1.0 + ra, rb)):
            if machine is cum_a and not null:
                continue  # under the alternative only B draws from rho
            drawn = machine if dense else np.zeros((m - 1, ra.size), dtype=cum_dtype)
            _urn_draws(rng, thr_r, before, int(count.max()), drawn, count)
            if not dense:
                machine[:, idx] += drawn
    return cumulative_to_counts(cum_g, k), cumulative_to_counts(cum_a, k), cumulative_to_counts(cum_b, k)


def _dirichlet_dataset(
    rng: np.random.Generator, prior: np.ndarray, eps: float, size: int, k: int, null: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold, A and B counts (M, size) from explicit draws of beta, rho and gamma (the spec step by step)."""
    beta = draw_dirichlet(rng, prior, (size,))
    rho = draw_noise(rng, prior.size, (size,))
    if null:
        rho *= 0.5 * eps  # the mixture (beta + gamma) / 2 = (1 - eps/2) beta + (eps/2) rho
        rho += (1.0 - 0.5 * eps) * beta
        (gold,) = _draw_counts_many(rng, beta, k, 1)
        a, b = _draw_counts_many(rng, rho, k, 2)
        return gold, a, b
    rho *= eps  # gamma = (1 - eps) beta + eps rho
    rho += (1.0 - eps) * beta
    gold, a = _draw_counts_many(rng, beta, k, 2)
    (b,) = _draw_counts_many(rng, rho, k, 1)
    return gold, a, b


def urn_max_k(m: int) -> int:
    """Largest K drawn by the Polya-urn sampler for M categories (the timed break-even; larger K: Dirichlet draws).

    A fixed function of (K, M): which sampler runs never depends on the seed or the number of workers.

    >>> urn_max_k(2), urn_max_k(3), urn_max_k(12)
    (1, 16, 20)
    """
    return next(k for top, k in _URN_MAX_K if m <= top)


def draw_dataset(
    rng: np.random.Generator,
    prior: np.ndarray,
    eps: float,
    n: int,
    k: int,
    rounds: int,
    null: bool,
    sampler: str = "auto",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold, A and B counts, category-major (M, rounds, N), in a fixed order of draws (reproducible).

    ``sampler``: "urn" (beta and rho integrated out), "dirichlet" (explicit beta, rho, gamma), "types" (each
    item's outcome drawn from its exact law, ``nkcore.nk.outcomes``) or "auto" (the urn for
    K <= ``urn_max_k(M)``, else Dirichlet): the same distribution either way (tested against the spec's
    response-level transcription), only the speed differs.
    """
    if sampler == "types":
        law = outcomes.outcome_law(prior, eps, k, null)
        idx = outcomes.draw_item_types(rng, law, n, rounds)
        gold, a, b = (np.moveaxis(x[idx], -1, 0) for x in (law.gold, law.a, law.b))
        return gold, a, b
    use_urn = k <= urn_max_k(prior.size) if sampler == "auto" else sampler == "urn"
    draw = _urn_dataset if use_urn else _dirichlet_dataset
    counts = draw(rng, prior, float(eps), rounds * n, k, null)
    return tuple(c.reshape(c.shape[0], rounds, n) for c in counts)  # type: ignore[return-value]


__all__ = [
    "SAMPLERS",
    "UNIFORM_MAX_K",
    "count_dtype",
    "cumulative_to_counts",
    "draw_counts",
    "draw_dataset",
    "draw_dirichlet",
    "draw_noise",
    "urn_max_k",
    "urn_thresholds",
]
