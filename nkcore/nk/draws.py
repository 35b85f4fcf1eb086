"""Drawing K of an item's ratings without replacement (the multivariate hypergeometric), fast, for every resampler.

Item-only resampling (:mod:`nkcore.nk.resample`), crossed resampling (:mod:`nkcore.nk.crossed`), the ordinal
engine and the exact engine's estimated real-data laws draw K ratings of each drawn item from its label counts c:
P(g) = prod_m C(c_m, g_m) / C(sum c, K). :func:`draw_k` does it label-major in float32 (a few array passes per
rating drawn), :func:`draw_without_replacement` is the plain reference (one-hot draws up to K = 40, then a chain
of hypergeometrics). Reference: Johnson, Kotz & Balakrishnan, "Discrete Multivariate Distributions" (1997),
ch. 39 (the multivariate hypergeometric).
"""

from __future__ import annotations

import numpy as np

from nkcore.nk.samplers import UNIFORM_MAX_K

__all__ = ["FLOAT32_WHOLE", "draw_from_cum", "draw_k", "draw_without_replacement"]

FLOAT32_WHOLE = 1 << 24
"""float32 holds every whole number below this: the label-major draw keeps its counts in float32."""


def draw_without_replacement(rng: np.random.Generator, counts: np.ndarray, k: int) -> np.ndarray:
    """K ratings per row drawn without replacement from the row's label counts (rows need >= K ratings).

    K <= 40: K sequential draws (a uniform against the remaining counts, then remove the drawn rating);
    larger K: the multivariate hypergeometric as a chain of hypergeometrics,
    c_j ~ Hypergeometric(x_j, remaining - x_j, K - sum_{l<j} c_l).
    """
    lead, m = counts.shape[:-1], counts.shape[-1]
    if k <= UNIFORM_MAX_K:
        rem = counts.astype(np.int64).copy()
        tot = rem.sum(axis=-1)
        out = np.zeros_like(rem)
        for _ in range(k):
            u = np.floor(rng.random(lead) * tot).astype(np.int64)  # a uniform position among the remaining ratings
            cum = np.cumsum(rem, axis=-1)
            cat = np.minimum(np.count_nonzero(u[..., None] >= cum, axis=-1), m - 1)
            onehot = np.eye(m, dtype=np.int64)[cat]
            out += onehot
            rem -= onehot
            tot -= 1
        return out
    out = np.empty(counts.shape, dtype=np.int64)
    rem_tot = counts.sum(axis=-1).astype(np.int64)
    left = np.full(lead, k, dtype=np.int64)
    for j in range(m - 1):
        good = counts[..., j].astype(np.int64)
        cj = rng.hypergeometric(good, rem_tot - good, left)
        out[..., j] = cj
        left -= cj
        rem_tot -= good
    out[..., m - 1] = left
    return out


def draw_k(rng: np.random.Generator, counts: np.ndarray, k: int) -> np.ndarray:
    """K ratings per row drawn without replacement from the row's label counts (rows (L, M) with >= K ratings each).

    The law of :func:`draw_without_replacement` (the multivariate hypergeometric), computed label-major for speed
    (:func:`draw_from_cum`: K sequential draws of a uniform position against the remaining cumulative counts, each
    followed by removing that rating); above K = 40, or with 2^24 ratings or more in a row, the chain of
    hypergeometrics of ``draw_without_replacement``.

    >>> draw_k(np.random.default_rng(0), np.array([[3, 0, 2], [0, 5, 0]]), 5).tolist()  # K = all ratings: all drawn
    [[3, 0, 2], [0, 5, 0]]
    """
    c = np.asarray(counts, dtype=np.int64)
    if k > UNIFORM_MAX_K or (c.size and int(c.sum(axis=-1).max()) >= FLOAT32_WHOLE):
        return draw_without_replacement(rng, c, k)
    return np.ascontiguousarray(_draw_major(rng, np.ascontiguousarray(c.T), k).T)


def _draw_major(rng: np.random.Generator, cmaj: np.ndarray, k: int) -> np.ndarray:
    """:func:`draw_k` on label-major counts (M, L): returns the drawn counts (M, L)."""
    if k > UNIFORM_MAX_K:
        return np.ascontiguousarray(draw_without_replacement(rng, cmaj.T, k).T)
    return draw_from_cum(rng, np.cumsum(cmaj, axis=0, dtype=np.float32), k).astype(np.int64)


def draw_from_cum(rng: np.random.Generator, cum0: np.ndarray, k: int) -> np.ndarray:
    """:func:`draw_k` on label-major cumulative counts (M, L) (float32, whole numbers): the drawn counts (M, L), float32.

    Each of the K steps draws x = r x T (r uniform in [0, 1) in float32, T the remaining ratings): the rating at
    position floor(x) has label c = #{j : floor(x) >= cum_j} = #{j : x >= cum_j} (cum_j whole), and removing it
    lowers cum_j by 1 exactly where x < cum_j. floor(x) < T always: r <= 1 - 2^-24 and T < 2^24 is a float32, so the
    correctly rounded r x T stays below T.
    """
    m = cum0.shape[0]
    if k > UNIFORM_MAX_K:
        counts = np.diff(cum0, axis=0, prepend=0).astype(np.int64)
        return np.ascontiguousarray(draw_without_replacement(rng, np.ascontiguousarray(counts.T), k).T, np.float32)
    cum = cum0.copy()
    n_rows = cum.shape[1]
    below = np.empty(n_rows, dtype=bool)
    for _ in range(k):
        x = rng.random(n_rows, dtype=np.float32)
        x *= cum[m - 1]
        for j in range(m - 1):
            np.less(x, cum[j], out=below)
            cum[j] -= below
        cum[m - 1] -= 1
    drawn = np.subtract(cum0, cum, out=cum)  # drawn ratings of labels 0..j
    drawn[1:] -= drawn[:-1]  # (numpy copies the overlapping operand)
    return drawn
