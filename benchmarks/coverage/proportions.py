"""Rows for one proportion (Wilson, Clopper-Pearson) and 0/1 paired results (McNemar, the exact paired bootstrap).

Every number here is an exact enumeration over the binomial / multinomial outcomes (no Monte Carlo error; the
left-out tail mass is below 1e-9), with the product's own functions computing each outcome's interval or p:

- one proportion: coverage(p) = sum_k Binom(k; n, p) 1[lo(k) <= p <= hi(k)] at rates 0.02, 0.5, 0.98 and its
  minimum over p = 0.001, 0.002, ..., 0.999 (Brown, Cai & DasGupta 2001, Stat. Sci. 16:101, Figs. 4-5);
- McNemar: under "no difference" the discordant count m ~ Binom(n, q) and B's wins k | m ~ Binom(m, 1/2);
  type I = sum_m P(m) P(p(k, m - k) < alpha | m). The discordance q = p (1 - p) at accuracy p (two configs with
  accuracy p correlated 0.5 within a case);
- the exact paired bootstrap: (A only, B only) ~ Multinomial(n, (q (1 - theta), q theta)), truth q (2 theta - 1),
  coverage = sum P(a, b) 1[truth in interval(a, b, n)], theta = 0.5 (no difference) and 0.7.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import stats

from benchmarks.coverage.table import Profile, Row
from nkcore.common.intervals import clopper_pearson, wilson_exact_ends
from nkcore.paired import exact_paired_bootstrap, interval_reliable, mcnemar

Interval = Callable[[int, int, float], tuple[float, float]]
RATES = (0.02, 0.5, 0.98)
GRID = np.round(np.arange(1, 1000) / 1000, 3)
_TAIL = 1e-10
FAMILY = "One proportion and 0/1 paired results"


def binomial_coverage(interval: Interval, n: int, p: np.ndarray, confidence: float = 0.95) -> np.ndarray:
    """Exact coverage at every truth in ``p`` of ``interval(k, n, confidence)`` for k ~ Binomial(n, p)."""
    ends = np.array([interval(k, n, confidence) for k in range(n + 1)])
    pmf = stats.binom.pmf(np.arange(n + 1)[:, None], n, np.asarray(p)[None, :])
    inside = (ends[:, :1] <= p[None, :] + 1e-15) & (p[None, :] <= ends[:, 1:] + 1e-15)
    return np.asarray((pmf * inside).sum(axis=0))


def proportion_rows(profile: Profile, interval: Interval, method: str, printed_for: str) -> list[Row]:
    """One proportion: coverage at each size and rate, and the worst rate on the 0.001 grid."""
    rows = []
    for n in profile.sizes:
        cov = binomial_coverage(interval, n, np.array(RATES))
        for rate, c in zip(RATES, cov, strict=True):
            rows.append(Row(FAMILY, method, printed_for, str(n), "1", f"{rate:g}", "coverage", 0.95, float(c), 0.0, 0))
        grid = binomial_coverage(interval, n, GRID)
        j = int(np.argmin(grid))
        rows.append(
            Row(FAMILY, method, printed_for, str(n), "1", f"worst of 0.001..0.999: {GRID[j]:g}", "coverage", 0.95,
                float(grid[j]), 0.0, 0, "worst: the lowest exact coverage over truths 0.001, 0.002, ..., 0.999")
        )  # fmt: skip
    return rows


def _reject_given_m(m_max: int, alpha: float) -> dict[str, np.ndarray]:
    """P(McNemar's p < alpha | m discordant, no difference), m = 0..m_max, for the exact, mid-p and chi-square p,
    from the product's :func:`nkcore.paired.mcnemar` (called for k <= m / 2; the law is symmetric)."""
    which = ("p_exact", "p_midp", "p_chi2_cc")
    out = {w: np.zeros(m_max + 1) for w in which}
    for m in range(1, m_max + 1):
        half = np.arange(m // 2 + 1)
        res = [mcnemar(int(k), int(m - k)) for k in half]
        pmf = stats.binom.pmf(half, m, 0.5) * np.where(2 * half == m, 1.0, 2.0)  # k and m - k
        for w in which:
            p = np.array([getattr(r, w) for r in res])
            out[w][m] = float(pmf[p < alpha].sum())
    return out


def mcnemar_rows(profile: Profile, alpha: float = 0.05) -> list[Row]:
    """McNemar's exact, mid-p and chi-square type I error at accuracy p (discordance p (1 - p))."""
    m_max = max(profile.sizes)
    tables = _reject_given_m(m_max, alpha)
    names = {"p_exact": "McNemar exact", "p_midp": "McNemar mid-p", "p_chi2_cc": "McNemar chi-square (cc)"}
    rows = []
    for which, table in tables.items():
        for n in profile.sizes:
            for rate in RATES:
                q = rate * (1 - rate)
                pm = stats.binom.pmf(np.arange(n + 1), n, q)
                t1 = float((pm * table[: n + 1]).sum())
                rows.append(
                    Row(FAMILY, names[which], "Compare: the verdict (p) on two configs, 0/1 results", str(n), "1",
                        f"{rate:g}", "type I", alpha, t1, 0.0, 0,
                        "McNemar: two configs with accuracy = rate, correlated 0.5 within a case (discordance "
                        "rate (1 - rate)); exact sum over the discordant counts")
                )  # fmt: skip
    return rows


def bootstrap_coverage(n: int, q: float, theta: float, confidence: float = 0.95) -> tuple[float, float, float]:
    """Exact coverage of :func:`nkcore.paired.exact_paired_bootstrap` for the difference q (2 theta - 1): overall,
    among the outcomes the product does not flag (:func:`nkcore.paired.interval_reliable`), and the chance of those."""
    truth = q * (2 * theta - 1)
    pm = stats.binom.pmf(np.arange(n + 1), n, q)
    total = kept = kept_cover = 0.0
    for m in np.flatnonzero(pm > _TAIL):
        pb = stats.binom.pmf(np.arange(m + 1), m, theta)
        reliable = interval_reliable(int(m), int(n - m))
        for b in np.flatnonzero(pb > _TAIL):
            r = exact_paired_bootstrap(int(m - b), int(b), n, confidence)
            w = float(pm[m] * pb[b])
            kept += w if reliable else 0.0
            if r.low - 1e-12 <= truth <= r.high + 1e-12:
                total += w
                kept_cover += w if reliable else 0.0
    return total, (kept_cover / kept if kept > 0 else float("nan")), kept


def paired_bootstrap_rows(profile: Profile) -> list[Row]:
    """The exact paired bootstrap's coverage of the true difference at no difference and at theta = 0.7: over all
    outcomes, and over those the page prints without the "less reliable" flag (25+ discordant, 10+ concordant)."""
    rows = []
    for n in profile.sizes:
        for rate in RATES:
            q = rate * (1 - rate)
            for theta in (0.5, 0.7):
                cov, unflagged, share = bootstrap_coverage(n, q, theta)
                rows.append(
                    Row(FAMILY, f"exact paired bootstrap, theta {theta:g}",
                        f"Compare: the interval on B minus A, 0/1 results (flagged 'less reliable' in {1 - share:.0%} of outcomes)", str(n), "1", f"{rate:g}", "coverage",
                        0.95, cov, 0.0, 0,
                        "paired bootstrap: discordance rate (1 - rate), a discordant case B's with probability "
                        "theta (truth rate (1 - rate)(2 theta - 1)); exact sum over the 2x2 counts; the page flags the interval 'less "
                        "reliable' below 25 discordant or 10 concordant cases")
                )  # fmt: skip
                if share >= 0.01:
                    rows.append(
                        Row(FAMILY, f"exact paired bootstrap, theta {theta:g}, where not flagged",
                            "Compare: the interval on B minus A, printed without the flag", str(n), "1", f"{rate:g}",
                            "coverage", 0.95, unflagged, 0.0, 0,
                            f"coverage among the outcomes with 25+ discordant and 10+ concordant cases ({share:.0%} "
                            "of outcomes); the rest carry 'this interval is less reliable' beside the interval")
                    )  # fmt: skip
    return rows


def rows(profile: Profile) -> list[Row]:
    """Every row of this family."""
    out = proportion_rows(
        profile,
        wilson_exact_ends,
        "Wilson, Clopper-Pearson ends near 0/100% and n < 40",
        "Compare: each config's accuracy (default)",
    )
    out += proportion_rows(profile, clopper_pearson, "Clopper-Pearson", "Compare: each config's accuracy (exact)")
    return out + mcnemar_rows(profile) + paired_bootstrap_rows(profile)
