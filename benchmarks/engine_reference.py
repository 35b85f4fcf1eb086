"""The exact engine as it was before issue 56 (commit da7d9d9), kept as the reference the benchmarks time and
compare against in the same process: ``old_engine()`` puts these functions back in place of the current ones.

What issue 56 changed, and what this module restores:
- two-label Accuracy laws (``means.accuracy_law_two_labels``): Gauss-Jacobi with 64 + 16 sqrt(K) nodes per axis,
  B's chance integrated over a 2-d grid for both sides (now 32 + 4 sqrt(K), rounded up to 8, rho integrated out
  of B's chance first: the same numbers to 1e-15);
- the reproducibility's standard error (``cells.reproducibility_error``) computed apart, with its own (N - 1)-fold
  power (now from the sums the cell already has), and the cell's numbers rebuilt with ``dataclasses.replace``;
- transforms through ``scipy.fft.rfft`` / ``irfft`` (now ``nkcore.nk.exact.fft``: the same routines without the
  dispatch, the same bits).
The functions below are copies of that commit's code (renamed ``old_*``), reading the current modules' helpers,
which issue 56 did not change. Not part of ``nkcore``: benchmarks only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache

import numpy as np
from scipy import fft as sfft

from nkcore.nk.exact import accuracy, cells, engine, fft, laws, real
from nkcore.nk.exact import convolve as cv
from nkcore.nk.exact.cells import (
    _U,
    INFLUENCE_MAX,
    NEAREST_MAX_N,
    NEGLIGIBLE_P,
    CellNumbers,
    _coarser,
    _edgeworth_numbers,
    _numbers,
    plan,
)
from nkcore.nk.exact.item_law import ItemLaw
from nkcore.nk.exact.lattice_p import ERROR_COARSEN, cdf, common_step, law_lattice, p_on_lattice, quantiles
from nkcore.nk.exact.lattice_p import untie as _untie
from nkcore.nk.exact.means import _nodes

OLD_ACC2_NODES = 64
OLD_ACC2_PER_SQRT_K = 16


def old_cell_numbers(alt: ItemLaw, null: ItemLaw, n: int) -> CellNumbers:
    """The paper's numbers for N items from the per-item laws of the alternative and the null (module doc)."""
    scale = alt.scale
    mean_gap = alt.mean / scale
    delta_err = alt.mean_se / scale
    h, exact_step, edge = plan(alt, null, n)
    if edge:
        out = _edgeworth_numbers(alt, null, n, h if exact_step else 0.0)
    else:
        near = not exact_step and n <= NEAREST_MAX_N
        out = old_lattice_numbers(alt, null, n, h, near, None if exact_step or near else common_step(alt, null))
        if not exact_step and not near:  # nearest points: their error is in ``_lattice_numbers`` (``_untie``)
            out = old_with_extra_error(out, accuracy.binning_error(alt, null, h, out.p), 0.0)
    full = _numbers(
        out.p,
        abs(mean_gap),
        out.ci_width,
        out.reproducibility,
        out.ties,
        mean_gap,
        out.method,
        out.p_error,
        delta_err,
        out.ci_width_error,
        out.alt,
        out.null,
    )
    near_points = not exact_step and n <= NEAREST_MAX_N
    return replace(full, reproducibility_error=old_reproducibility_error(alt, n, h, not edge, near_points))


def old_reproducibility_error(alt: ItemLaw, n: int, h: float, lattice: bool = True, near: bool = False) -> float:
    """One standard error of the reproducibility P(S1 > 0) of N items from the estimated alternative law (0 when the
    law is exact). On a lattice of at most ``INFLUENCE_MAX`` points the delta method: one item's influence is
    g(d) = P(S1' > -d), S1' a sum of N - 1 items, Var = N^2 Var_d[g(d)] / n (the part proportional to d removed
    when the mean is pinned); else the normal form, repro = Phi(sqrt(N) mu / sd): its change with the mean's
    standard error and with the spread's (sd's standard error sd sqrt((kurt + 2) / (4 n)))."""
    if alt.exact or alt.n_items <= 0 or alt.var <= 0:
        return 0.0
    if lattice and h > 0:
        l1 = law_lattice(alt, h, near)
        if l1.pmf.size * n <= INFLUENCE_MAX:
            rest = cv.power(l1, n - 1) if n > 1 else cv.Lattice(l1.h, 0, np.ones(1))
            var = accuracy.influence_var(l1, rest, np.array([1.0]), 1, "le", alt.pinned)  # h(s) = 1[s >= 1]
            return float(n * np.sqrt(var / alt.n_items))
    sd = float(np.sqrt(alt.var))
    z = np.sqrt(n) * alt.mean / sd
    spread = z * np.sqrt(max(alt.kurt + 2.0, 0.0) / (4.0 * alt.n_items))
    return float(cv.normal_density(z) * np.hypot(np.sqrt(n) * alt.mean_se / sd, spread))


def old_with_extra_error(c: CellNumbers, p_extra: float, ci_extra: float) -> CellNumbers:
    return _numbers(
        c.p,
        c.delta,
        c.ci_width,
        c.reproducibility,
        c.ties,
        c.mean_gap,
        c.method,
        float(np.hypot(c.p_error, p_extra)),
        c.delta_error,
        float(np.hypot(c.ci_width_error, ci_extra)),
        c.alt,
        c.null,
    )


def old_lattice_numbers(
    alt: ItemLaw, null: ItemLaw, n: int, h: float, near: bool = False, binned_step: float | None = None
) -> CellNumbers:
    """The cell's numbers on the lattice h Z (``near``: nearest points; ``binned_step`` not None: a linearly binned
    lattice whose laws live on that integer step (0: on none), for ``_p_lattice``)."""
    l1 = law_lattice(alt, h, near)
    l0 = law_lattice(null, h, near)
    want = not (alt.exact and null.exact)
    small = max(l1.pmf.size, l0.pmf.size) * n <= INFLUENCE_MAX  # influence on the lattice, else the normal form
    fine_rest = want and small and not near  # nearest points: the error terms on the coarser lattice
    s1, rest1 = cv.powers(l1, n, fine_rest and not alt.exact)
    s0, rest0 = cv.powers(l0, n, fine_rest and not null.exact)
    c1, c0 = cdf(s1), cdf(s0)
    med1 = int(quantiles(s1, c1, np.array([0.5]))[0])
    med0 = int(quantiles(s0, c0, np.array([0.5]))[0])
    flip = med0 > med1
    p = p_on_lattice(s1, s0, flip, c0, binned_step)
    scale = alt.scale
    unit = h / (scale * n)
    q = quantiles(s1, c1, np.array([0.025, 0.975]))
    ci = float((q[1] - q[0]) * unit)
    first = max(0, -s1.lo + 1)  # index of the first positive sum
    repro = float(s1.pmf[first:].sum())
    ties = float(s1.pmf[-s1.lo]) if s1.lo <= 0 <= s1.hi else 0.0
    alt_pts = quantiles(s1, c1, _U) * unit
    null_pts = quantiles(s0, c0, _U) * unit
    p_err = ci_err = p_near = ci_near = 0.0
    if near:  # the ties the rounding made (``_untie``) and the error terms, on the coarser lattice
        hc = h * ERROR_COARSEN
        l1, l0 = _coarser(alt, l1, n), _coarser(null, l0, n)
        c_s1, rest1 = cv.powers(l1, n, want and not alt.exact)
        c_s0, rest0 = cv.powers(l0, n, want and not null.exact)
        p, p_near = _untie(p, s1, s0, c_s1, c_s0)
        s1, s0 = c_s1, c_s0
        c1, c0 = cdf(s1), cdf(s0)
        q = quantiles(s1, c1, np.array([0.025, 0.975]))
        # the CI-width's change when the step doubles (first order in the step), at least one step per quantile
        ci_near = max(abs(float((q[1] - q[0]) * hc / (scale * n)) - ci), 2.0 * unit)
        h = hc
    if want and min(p, 1.0 - p) > NEGLIGIBLE_P and not small:
        p_err = accuracy.normal_p_error(alt, null, n)
    elif want and min(p, 1.0 - p) > NEGLIGIBLE_P:  # a p within 1e-9 of 0 or 1 has no error that matters
        var = 0.0
        if not alt.exact:
            var += (
                n * n * accuracy.influence_var(l1, rest1, c0, s0.lo, "le" if flip else "ge", alt.pinned) / alt.n_items
            )
        if not null.exact:
            var += n * n * accuracy.null_influence_var(l0, rest0, s1, flip, c1) / null.n_items
        p_err = float(np.sqrt(var))
    if want:
        ci_err = accuracy.ci_error(alt, ci)
        if small and not alt.exact:  # a quantile on an atom can jump to the next one if the law is a bit off
            rest_cdf = cdf(rest1)
            jumps = [
                accuracy.quantile_jump(l1, rest1, c1, s1.lo, int(qi), u, n, alt.n_items, rest_cdf)
                for qi, u in zip(q, (0.025, 0.975), strict=True)
            ]
            ci_err = float(np.hypot(ci_err, float(np.hypot(jumps[0], jumps[1])) * h / (scale * n)))
    p_err, ci_err = float(np.hypot(p_err, p_near)), float(np.hypot(ci_err, ci_near))
    return _numbers(p, 0.0, ci, repro, ties, 0.0, "lattice", p_err, 0.0, ci_err, alt_pts, null_pts)


def old_acc2(prior: tuple[float, ...], eps: float, k: int, null: bool, nodes: int) -> tuple[float, float]:
    """(P(d = -1), P(d = +1)) of one item's Accuracy gap at M = 2 with ``nodes`` Gauss nodes per axis."""
    from scipy.special import betainc  # on demand (import time of the CLI)

    a0, a1 = float(prior[0]), float(prior[1])
    bx, bw = _nodes(a0, a1, nodes)  # beta_0 ~ Beta(a_0, a_1): category 0's share
    rx, rw = _nodes(0.5, 0.5, nodes)  # rho_0 ~ Beta(1/M, 1 - 1/M)
    t = -(-k // 2)  # the plurality is category 0 when its count >= K / 2 (ties to the lowest index)

    def first(p: np.ndarray) -> np.ndarray:  # P(plurality = category 0) = P(Bin(K, p) >= t)
        return betainc(t, k - t + 1.0, np.clip(p, 0.0, 1.0))

    x, r = bx[:, None], rx[None, :]
    g = first(x)
    if null:  # A and B both from (beta + gamma) / 2 = (1 - eps / 2) beta + (eps / 2) rho, independently
        a = b = first((1.0 - 0.5 * eps) * x + 0.5 * eps * r)
    else:
        a, b = first(x) + 0.0 * r, first((1.0 - eps) * x + eps * r)
    w = bw[:, None] * rw[None, :]
    plus = g * a * (1.0 - b) + (1.0 - g) * (1.0 - a) * b  # A agrees with the gold plurality, B does not
    minus = g * (1.0 - a) * b + (1.0 - g) * a * (1.0 - b)
    return float((w * minus).sum()), float((w * plus).sum())


@lru_cache(maxsize=1024)
def old_accuracy_law_two_labels(prior: tuple[float, ...], eps: float, k: int, null: bool) -> tuple[float, float, float]:
    """Two labels (M = 2): the exact law of one item's Accuracy gap d in {-1, 0, +1} at K ratings per item.

    Given the item's beta and rho, gold, A and B's pluralities are independent: category 0 with chances g, a, b
    (P(Bin(K, p) >= K / 2), p = beta_0, beta_0 and gamma_0 = (1 - eps) beta_0 + eps rho_0 under the alternative;
    under the null A and B both from (beta_0 + gamma_0) / 2). So P(d = +1) = E[g a (1 - b) + (1 - g)(1 - a) b],
    P(d = -1) = E[g (1 - a) b + (1 - g) a (1 - b)], a two-dimensional integral against Beta(a_0, a_1) x
    Beta(1/2, 1/2) by Gauss-Jacobi quadrature. Returns (P(-1), P(+1), error): the error is the change from half the
    nodes. Replaces the estimated law (its items' sampling error: issue 53, Toxicity N = 20, K = 50).

    """
    n = OLD_ACC2_NODES + OLD_ACC2_PER_SQRT_K * int(np.ceil(np.sqrt(k)))
    hi = old_acc2(prior, eps, k, null, n)
    lo = old_acc2(prior, eps, k, null, n // 2)
    return hi[0], hi[1], float(max(abs(hi[0] - lo[0]), abs(hi[1] - lo[1])))


@contextlib.contextmanager
def old_engine() -> Iterator[None]:
    """Within: the engine of commit da7d9d9 (module doc); every cache of laws, means and cells cleared on the way in
    and out (their contents depend on the engine)."""
    saved = (
        engine.cell_numbers,
        real.cell_numbers,
        cells.cell_numbers,
        laws.accuracy_law_two_labels,
        fft.rfft,
        fft.irfft,
    )
    laws.clear_caches()
    old_accuracy_law_two_labels.cache_clear()
    engine.cell_numbers = real.cell_numbers = cells.cell_numbers = old_cell_numbers  # type: ignore[assignment]
    laws.accuracy_law_two_labels = old_accuracy_law_two_labels  # type: ignore[assignment]
    fft.rfft, fft.irfft = sfft.rfft, sfft.irfft  # type: ignore[assignment]
    try:
        yield
    finally:
        (
            engine.cell_numbers,
            real.cell_numbers,
            cells.cell_numbers,
            laws.accuracy_law_two_labels,
            fft.rfft,
            fft.irfft,
        ) = saved
        laws.clear_caches()
        old_accuracy_law_two_labels.cache_clear()


__all__ = ["old_engine"]
