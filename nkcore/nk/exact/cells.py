"""The paper's numbers of one cell in the limit of infinitely many rounds, from the per-item gap laws.

For a cell (N items, K ratings per item) and a metric, with S1 (alternative) and S0 (null) the sums of N
independent per-item gaps (``laws``), independent of each other (spec "p-value, effect size, interval"):
- sign rule: negate both when median(S0) > median(S1);
- p = P(S0 >= S1) (ties count against the alternative; after the sign rule P(S0 <= S1));
- Delta = |E d1| / scale (exact from the per-item law); mean_gap = E d1 / scale;
- CI-width = q97.5 - q2.5 of S1 / N; reproducibility = P(S1 > 0); ties = P(S1 = 0).
S1 and S0 come from ``convolve`` (exact lattice, binned lattice, nearest-point lattice or Edgeworth); on a
linearly binned or nearest-point lattice the ties it makes count by halves (``binned_ties``, ``_untie``). Accuracy
(one standard error): where a law was estimated from n items, its sampling error propagated by the delta method
(the influence of one item on p: Var(p_hat) = N^2 Var_d[g(d)] / n, g(d) = P(S0 >= d + S1') with S1' a sum of
N - 1 items, and likewise for the null); plus, on a binned lattice, a bound on the change of p by the binning; on
a nearest-point lattice, the tie correction itself and the CI-width's change when the step doubles; for
Edgeworth, the size of its 1/N terms. Reference: docs/nk-method.md, "Exact engine".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nkcore.nk.exact import accuracy
from nkcore.nk.exact import convolve as cv
from nkcore.nk.exact.item_law import LAW_BINS, ItemLaw
from nkcore.nk.exact.lattice_p import (
    _LATTICES,  # noqa: F401  (the cache, cleared by tests through this module)
    ERROR_COARSEN,
    cdf,
    common_step,
    law_lattice,
    p_on_lattice,
    quantiles,
)
from nkcore.nk.exact.lattice_p import untie as _untie
from nkcore.nk.pvalue import Stats

EDGEWORTH_MIN_N = 30
"""Fewest items (N) for which the Edgeworth expansion is considered at all."""
EDGEWORTH_MAX_CI = 2e-3
"""... and when the Cornish-Fisher 1/N terms move the CI-width by less than this share of it."""
EDGEWORTH_MAX_ERROR = 5e-4
"""The Edgeworth expansion replaces the lattice when the size of its 1/N terms at the p-value is below this."""
NEAREST_MAX_N = 30
"""Up to this many items a law off the integer lattice is rounded to the nearest lattice point (ties between the
two laws' atoms, which weigh on p when N is small, stay ties; linear binning splits atoms and overstates p there:
docs/nk-method.md, "N-fold laws"); beyond, linear binning."""
NEAREST_POINTS = 1 << 15
"""Points of that lattice (its N-fold support). Rounding to it makes S0 and S1 tie where they differ by less than
about a step (p counts ties against the alternative), so p is biased up by about half those ties, a bias linear in
the step: the ties the rounding made are the growth of P(S0 = S1) from this lattice to one ``ERROR_COARSEN`` times
coarser, divided by ``ERROR_COARSEN`` - 1 (``_untie``), and half of them come off p and go into ``p_error``.
The CI-width's change when the step doubles (at least one step per quantile) goes into its error (the check against
a lattice of 2^19 points: docs/nk-method.md, "N-fold laws"; tests/test_nk_exact.py)."""
BIN_SD = 0.05
"""Step of a binned lattice, in per-item standard deviations (the smaller of the two laws')."""
CHEAP_LATTICE = 1 << 15
"""Lattices up to this many points are always convolved (cheap); Edgeworth is only considered beyond."""
INFLUENCE_MAX = 1 << 17
"""Lattices up to this many points get the delta method's influence terms on the lattice (any N); longer ones
the normal form (``_normal_p_error``)."""
NEGLIGIBLE_P = 1e-9
"""A p this close to 0 or 1 gets no sampling-error term (it cannot move across any threshold that matters)."""
POINTS = 1000
"""Quantile points of S1 / N and S0 / N kept per cell (the gap-distribution chart), at (i + 0.5) / POINTS."""
_U = (np.arange(POINTS) + 0.5) / POINTS


@dataclass(frozen=True, slots=True)
class CellNumbers(Stats):
    """A cell's numbers from the engine: :class:`nkcore.nk.pvalue.Stats` with ``method``, the three errors and the
    quantile points ``alt`` / ``null`` set, plus ``reproducibility_error``: one standard error of the
    reproducibility P(S1 > 0) (0 where the alternative's law is exact; else the delta method over the items the
    law rests on, ``reproducibility_error``). Issue 53: the reproducibility had no stated error, and an estimated
    law 1.5 standard errors off moved it by 0.01 at N = 20."""

    reproducibility_error: float = 0.0


def _numbers(
    p: float,
    delta: float,
    ci_width: float,
    reproducibility: float,
    ties: float,
    mean_gap: float,
    method: str,
    p_error: float,
    delta_error: float,
    ci_width_error: float,
    alt: np.ndarray | None,
    null: np.ndarray | None,
    reproducibility_error: float = 0.0,
) -> CellNumbers:
    return CellNumbers(
        p,
        delta,
        ci_width,
        reproducibility,
        ties,
        mean_gap,
        method=method,
        p_error=p_error,
        delta_error=delta_error,
        ci_width_error=ci_width_error,
        alt=alt,
        null=null,
        reproducibility_error=reproducibility_error,
    )


def plan(alt: ItemLaw, null: ItemLaw, n: int) -> tuple[float, bool, bool]:
    """How a cell is computed: (lattice step h, h is the laws' exact integer step, use Edgeworth).

    The exact integer lattice when its N-fold support fits ``cv.LATTICE_MAX`` points; else a binned lattice of
    step max(``BIN_SD`` sd, range / ``LAW_BINS``, N range / ``cv.LATTICE_MAX``), or for N <= ``NEAREST_MAX_N``
    the nearest points of a lattice of ``NEAREST_POINTS`` (ties stay ties). Edgeworth instead when the
    lattice has more than ``CHEAP_LATTICE`` points, N >= ``EDGEWORTH_MIN_N`` and ``edgeworth_ok``.
    """
    lo = min(alt.values[0], null.values[0])
    hi = max(alt.values[-1], null.values[-1])
    span = float(hi - lo)
    if span == 0:
        return 1.0, True, False
    h, exact_step = common_step(alt, null), False
    if h > 0:
        exact_step = span / h * n + 1 <= cv.LATTICE_MAX
    if not exact_step:
        sd = float(np.sqrt(max(min(alt.var, null.var), 1e-300)))
        if n <= NEAREST_MAX_N:  # few items: ties between the laws' atoms matter; nearest points, fine lattice
            h = span * n / (NEAREST_POINTS - 1)
        else:
            h = max(BIN_SD * sd, span / LAW_BINS, span * n / (cv.LATTICE_MAX - 1))
    big = n >= EDGEWORTH_MIN_N and span / h * n > CHEAP_LATTICE
    return h, exact_step, big and edgeworth_ok(alt, null, n, h if exact_step else 0.0)


def cell_numbers(alt: ItemLaw, null: ItemLaw, n: int) -> CellNumbers:
    """The paper's numbers for N items from the per-item laws of the alternative and the null (module doc)."""
    scale = alt.scale
    mean_gap = alt.mean / scale
    delta_err = alt.mean_se / scale
    h, exact_step, edge = plan(alt, null, n)
    if edge:
        out = _edgeworth_numbers(alt, null, n, h if exact_step else 0.0)
    else:
        near = not exact_step and n <= NEAREST_MAX_N
        out = _lattice_numbers(alt, null, n, h, near, None if exact_step or near else common_step(alt, null))
    p_error = out.p_error
    if not edge and not exact_step and n > NEAREST_MAX_N:  # binned (nearest points: in ``_lattice_numbers``)
        p_error = float(np.hypot(p_error, accuracy.binning_error(alt, null, h, out.p)))
    if not edge and out.reproducibility_error >= 0:  # computed on the lattice, from the sums it had at hand
        sampling = out.reproducibility_error
    else:
        sampling = reproducibility_error(alt, n, h, not edge, not exact_step and n <= NEAREST_MAX_N)
    return _numbers(
        out.p,
        abs(mean_gap),
        out.ci_width,
        out.reproducibility,
        out.ties,
        mean_gap,
        out.method,
        p_error,
        delta_err,
        out.ci_width_error,
        out.alt,
        out.null,
        float(np.hypot(sampling, _repro_method_error(alt, n, h, edge, exact_step))),
    )


def _repro_method_error(alt: ItemLaw, n: int, h: float, edge: bool, exact_step: bool) -> float:
    """The approximation's part of the reproducibility's error: for Edgeworth the size of its 1/N terms at 0 (as for
    p), on a linearly binned lattice the change binning can cause (each item's variance grows by at most h^2 / 4:
    phi(z) |z| h^2 / (4 v1), z = sqrt(N) mu1 / sd1); 0 on the exact lattice or nearest points (their step is far
    finer than the law's spread)."""
    if alt.var <= 0:
        return 0.0
    if edge:
        s1 = cv.sum_moments(cv.Moments(alt.mean, alt.var, alt.skew, alt.kurt), n)
        z = (0.5 * h * float(exact_step) - s1.mean) / np.sqrt(s1.var)
        he3, he5 = z**3 - 3 * z, z**5 - 10 * z**3 + 15 * z
        return float(cv.normal_density(z) * abs(s1.kurt / 24 * he3 + s1.skew**2 / 72 * he5))
    if exact_step or n <= NEAREST_MAX_N:
        return 0.0
    z = float(np.sqrt(n) * alt.mean / np.sqrt(alt.var))
    return float(cv.normal_density(z) * abs(z) * h * h / (4.0 * alt.var))


def _repro_influence(alt: ItemLaw, l1: cv.Lattice, rest: cv.Lattice, n: int) -> float:
    """The delta method's standard error of P(S1 > 0) from one item's influence g(d) = P(S1' > -d) on the lattice
    (``rest`` = S1', the sum of N - 1 items): N sqrt(Var_d[g(d)] / n_items)."""
    var = accuracy.influence_var(l1, rest, np.array([1.0]), 1, "le", alt.pinned)  # h(s) = 1[s >= 1]
    return float(n * np.sqrt(var / alt.n_items))


def reproducibility_error(alt: ItemLaw, n: int, h: float, lattice: bool = True, near: bool = False) -> float:
    """One standard error of the reproducibility P(S1 > 0) of N items from the estimated alternative law (0 when the
    law is exact). On a lattice of at most ``INFLUENCE_MAX`` points the delta method: one item's influence is
    g(d) = P(S1' > -d), S1' a sum of N - 1 items, Var = N^2 Var_d[g(d)] / n (the part proportional to d removed
    when the mean is pinned); else the normal form, repro = Phi(sqrt(N) mu / sd): its change with the mean's
    standard error and with the spread's (sd's standard error sd sqrt((kurt + 2) / (4 n))).
    (``cell_numbers`` computes the lattice form from the sums the cell already has; this function stands alone.)"""
    if alt.exact or alt.n_items <= 0 or alt.var <= 0:
        return 0.0
    if lattice and h > 0:
        l1 = law_lattice(alt, h, near)
        if l1.pmf.size * n <= INFLUENCE_MAX:
            rest = cv.power(l1, n - 1) if n > 1 else cv.Lattice(l1.h, 0, np.ones(1))
            return _repro_influence(alt, l1, rest, n)
    sd = float(np.sqrt(alt.var))
    z = np.sqrt(n) * alt.mean / sd
    spread = z * np.sqrt(max(alt.kurt + 2.0, 0.0) / (4.0 * alt.n_items))
    return float(cv.normal_density(z) * np.hypot(np.sqrt(n) * alt.mean_se / sd, spread))


def cell_p(alt: ItemLaw, null: ItemLaw, n: int) -> float:
    """Only the p-value of ``cell_numbers`` (same plan, no quantiles, no error terms): for searches over N."""
    h, exact_step, edge = plan(alt, null, n)
    if edge:
        s1m, s0m, t = _sum_moments(alt, null, n)
        flip = float(cv.cornish_fisher(0.5, s0m)) > float(cv.cornish_fisher(0.5, s1m))
        at = 0.5 * h if exact_step else 0.0
        f0 = float(cv.edgeworth_cdf(at if flip else -at, t))
        return f0 if flip else 1.0 - f0
    near = not exact_step and n <= NEAREST_MAX_N
    s1 = cv.power(law_lattice(alt, h, near), n)
    s0l = cv.power(law_lattice(null, h, near), n)
    med1 = int(quantiles(s1, cdf(s1), np.array([0.5]))[0])
    med0 = int(quantiles(s0l, cdf(s0l), np.array([0.5]))[0])
    p = p_on_lattice(s1, s0l, med0 > med1, None, None if exact_step or near else common_step(alt, null))
    if near:
        c1, c0 = (cv.power(_coarser(law, law_lattice(law, h, True), n), n) for law in (alt, null))
        p = _untie(p, s1, s0l, c1, c0)[0]
    return p


def _coarser(law: ItemLaw, fine: cv.Lattice, n: int) -> cv.Lattice:
    """The law's nearest points on the lattice ``ERROR_COARSEN`` times coarser than ``fine`` (put from its values: a
    symmetric law stays symmetric there, which the null's influence term needs), its sums' window from the fine
    lattice's (``convolve.coarse_extent``)."""
    coarse = law_lattice(law, fine.h * ERROR_COARSEN, True)
    cv.coarse_extent(fine, coarse, n)
    return coarse


def _lattice_numbers(
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
    # the reproducibility's error from the sums at hand (S1' of the lattice the error terms use); -1: not computed
    # here (``cell_numbers`` then calls ``reproducibility_error``)
    rep_err = 0.0
    if not (alt.exact or alt.n_items <= 0 or alt.var <= 0):
        rep_err = _repro_influence(alt, l1, rest1, n) if want and small and (near or fine_rest) else -1.0
    return _numbers(p, 0.0, ci, repro, ties, 0.0, "lattice", p_err, 0.0, ci_err, alt_pts, null_pts, rep_err)


def _sum_moments(alt: ItemLaw, null: ItemLaw, n: int) -> tuple[cv.Moments, cv.Moments, cv.Moments]:
    """Moments of S1, S0 and T = S0 - S1 (cumulants add over items and over the two independent sides)."""
    s1 = cv.sum_moments(cv.Moments(alt.mean, alt.var, alt.skew, alt.kurt), n)
    s0 = cv.sum_moments(cv.Moments(null.mean, null.var, null.skew, null.kurt), n)
    var_t = s0.var + s1.var
    if var_t <= 0:
        return s1, s0, cv.Moments(s0.mean - s1.mean, 0.0, 0.0, 0.0)
    k3 = s0.skew * s0.var**1.5 - s1.skew * s1.var**1.5
    k4 = s0.kurt * s0.var**2 + s1.kurt * s1.var**2
    return s1, s0, cv.Moments(s0.mean - s1.mean, var_t, k3 / var_t**1.5, k4 / var_t**2)


def edgeworth_ok(alt: ItemLaw, null: ItemLaw, n: int, h: float = 0.0) -> bool:
    """Is the Edgeworth expansion accurate enough for this cell? Both: its 1/N terms at the p-value are below
    ``EDGEWORTH_MAX_ERROR`` (absolute, on p), and the Cornish-Fisher 1/N terms at the 2.5% and 97.5% quantiles
    of S1 are below ``EDGEWORTH_MAX_CI`` of the CI-width (relative). The terms dropped are of order N^(-3/2)."""
    s1, _, t = _sum_moments(alt, null, n)
    if t.var <= 0 or s1.var <= 0:
        return False
    z = (0.5 * h - abs(t.mean)) / np.sqrt(t.var)
    he3, he5 = z**3 - 3 * z, z**5 - 10 * z**3 + 15 * z
    p_term = float(cv.normal_density(z) * abs(t.kurt / 24 * he3 + t.skew**2 / 72 * he5))
    zq = 1.959963984540054
    ci_term = abs(s1.kurt / 24 * (zq**3 - 3 * zq) - s1.skew**2 / 36 * (2 * zq**3 - 5 * zq)) / zq
    return p_term <= EDGEWORTH_MAX_ERROR and ci_term <= EDGEWORTH_MAX_CI


def _edgeworth_numbers(alt: ItemLaw, null: ItemLaw, n: int, h: float = 0.0) -> CellNumbers:
    """Edgeworth / Cornish-Fisher numbers; ``h`` > 0: the sums live on the lattice h Z (continuity correction)."""
    m1 = cv.Moments(alt.mean, alt.var, alt.skew, alt.kurt)
    m0 = cv.Moments(null.mean, null.var, null.skew, null.kurt)
    s1, s0 = cv.sum_moments(m1, n), cv.sum_moments(m0, n)
    flip = float(cv.cornish_fisher(0.5, s0)) > float(cv.cornish_fisher(0.5, s1))
    var_t = s0.var + s1.var
    if var_t <= 0:
        return _numbers(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, "edgeworth", 1.0, 0.0, 0.0, np.zeros(POINTS), np.zeros(POINTS))
    k3 = s0.skew * s0.var**1.5 - s1.skew * s1.var**1.5
    k4 = s0.kurt * s0.var**2 + s1.kurt * s1.var**2
    t = cv.Moments(s0.mean - s1.mean, var_t, k3 / var_t**1.5, k4 / var_t**2)
    half = 0.5 * h
    # P(T >= 0) = 1 - P(T <= -h/2) on the lattice h Z (continuity correction); flip: P(T <= 0)
    at = half if flip else -half
    f0 = float(cv.edgeworth_cdf(at, t))
    p = f0 if flip else 1.0 - f0
    scale = alt.scale
    unit = 1.0 / (scale * n)
    q = cv.cornish_fisher(np.array([0.025, 0.975]), s1)
    ci = float((q[1] - q[0]) * unit)
    repro = float(1.0 - cv.edgeworth_cdf(half, s1))
    ties = float(cv.edgeworth_cdf(half, s1) - cv.edgeworth_cdf(-half, s1)) if h > 0 else 0.0
    z = (at - t.mean) / np.sqrt(var_t)
    # the 1/N terms of the expansion at the p-value: their size is the approximation's error estimate
    he3, he5 = z**3 - 3 * z, z**5 - 10 * z**3 + 15 * z
    approx = float(cv.normal_density(z) * abs(t.kurt / 24 * he3 + t.skew**2 / 72 * he5))
    # the estimated laws' sampling error: their mean's (none when pinned to the exact mean) and their spread's (an
    # estimated variance moves z as much as a mean does)
    sampling = accuracy.normal_p_error(alt, null, n)
    p_err = float(np.hypot(approx, sampling))
    ci_err = accuracy.ci_error(alt, ci)
    alt_pts = cv.cornish_fisher(_U, s1) * unit
    null_pts = cv.cornish_fisher(_U, s0) * unit
    return _numbers(p, 0.0, ci, repro, ties, 0.0, "edgeworth", p_err, 0.0, ci_err, alt_pts, null_pts)


__all__ = ["POINTS", "CellNumbers", "cell_numbers", "reproducibility_error"]
