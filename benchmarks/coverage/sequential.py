"""Rows for the anytime-valid comparison: its test's type I error and its band's coverage with a look after every case.

Each replication is one run of ``cases`` cases fed to the product's own path functions (what the Compare page and
``nkcore.sequential.Monitor`` compute): :func:`nkcore.sequential.binary_path` for one 0/1 result per case,
:func:`nkcore.sequential.scores_path` for repeats (per-case differences of case means). Type I error: the share of
runs under "no difference" that ever decide (a look after every case, up to ``cases``). Band coverage: the share of
runs whose band holds the true difference at every look (the anytime claim), at no difference and at a difference.

0/1 data: two configs with accuracy ``rate`` correlated 0.5 within a case (discordance q = rate (1 - rate)); a
discordant case is B's with probability theta (0.5, or 0.7 for a difference q (2 theta - 1)). Repeats: case means
from :func:`nkcore.rank.simulate.simulate_case_means` at means (rate, rate) and (rate - 0.01, rate + 0.01).
"""

from __future__ import annotations

import numpy as np

from benchmarks.coverage.table import Profile, Row, binomial_se
from nkcore.common.seeding import as_generator
from nkcore.rank.simulate import simulate_case_means
from nkcore.sequential import binary_path, scores_path

RATES = (0.02, 0.5, 0.98)
SHIFT = 0.01
FAMILY = "Sequential (anytime-valid) comparison"


def binary_run(rng: np.random.Generator, n: int, rate: float, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """One run's 0/1 results (a, b) for ``n`` cases."""
    q = rate * (1 - rate)
    disc = rng.random(n) < q
    bwins = rng.random(n) < theta
    both = rng.random(n) < rate  # concordant cases: both right with the accuracy's chance
    a = np.where(disc, ~bwins, both)
    b = np.where(disc, bwins, both)
    return a.astype(float), b.astype(float)


def _covered(low: np.ndarray, high: np.ndarray, truth: float) -> bool:
    return bool(np.all((low <= truth + 1e-12) & (truth - 1e-12 <= high)))


def binary_rows(profile: Profile) -> list[Row]:
    """The mixture SPRT's type I error and its band's coverage (0/1 results)."""
    rng = as_generator(profile.seed + 4)
    out = []
    for n in profile.sizes:
        for rate in RATES:
            reps = profile.reps
            q = rate * (1 - rate)
            decided = cover0 = cover1 = 0
            for _ in range(reps):
                path = binary_path(*binary_run(rng, n, rate, 0.5))
                decided += path.decided_at is not None
                cover0 += _covered(path.low, path.high, 0.0)
                path = binary_path(*binary_run(rng, n, rate, 0.7))
                cover1 += _covered(path.low, path.high, q * 0.4)
            common = (str(n), "1", f"{rate:g}")
            note = "sequential 0/1: accuracy = rate, discordance rate (1 - rate); difference: theta 0.7"
            out += [
                Row(FAMILY, "mixture SPRT, look after every case", "Compare: sequential verdict, 0/1 results",
                    *common, "type I", 0.05, decided / reps, binomial_se(decided / reps, reps), reps, note),
                Row(FAMILY, "Beta-mixture band, every look, no difference", "Compare: sequential band, 0/1",
                    *common, "coverage", 0.95, cover0 / reps, binomial_se(cover0 / reps, reps), reps, note),
                Row(FAMILY, "Beta-mixture band, every look, theta 0.7", "Compare: sequential band, 0/1",
                    *common, "coverage", 0.95, cover1 / reps, binomial_se(cover1 / reps, reps), reps, note),
            ]  # fmt: skip
    return out


def scores_rows(profile: Profile) -> list[Row]:
    """The empirical-Bernstein sequence's type I error and coverage (repeats)."""
    rng = as_generator(profile.seed + 5)
    out = []
    for n in profile.sizes:
        for r in profile.repeats:
            for rate in RATES:
                reps = profile.reps
                decided = cover0 = cover1 = 0
                for _ in range(reps):
                    x = simulate_case_means(np.array([rate, rate]), n, r, 0.5, rng)
                    path = scores_path(x[:, 1] - x[:, 0])
                    decided += path.decided_at is not None
                    cover0 += _covered(path.low, path.high, 0.0)
                    y = simulate_case_means(np.array([rate - SHIFT, rate + SHIFT]), n, r, 0.5, rng)
                    path = scores_path(y[:, 1] - y[:, 0])
                    cover1 += _covered(path.low, path.high, 2 * SHIFT)
                common = (str(n), str(r), f"{rate:g}")
                note = f"sequential repeats: case means as in the case-level rows (difference {2 * SHIFT:g})"
                out += [
                    Row(FAMILY, "empirical-Bernstein test, every look", "Compare: sequential verdict, repeats",
                        *common, "type I", 0.05, decided / reps, binomial_se(decided / reps, reps), reps, note),
                    Row(FAMILY, "empirical-Bernstein band, every look, no difference",
                        "Compare: sequential band, repeats", *common, "coverage", 0.95, cover0 / reps,
                        binomial_se(cover0 / reps, reps), reps, note),
                    Row(FAMILY, f"empirical-Bernstein band, every look, difference {2 * SHIFT:g}",
                        "Compare: sequential band, repeats", *common, "coverage", 0.95, cover1 / reps,
                        binomial_se(cover1 / reps, reps), reps, note),
                ]  # fmt: skip
    return out


def rows(profile: Profile) -> list[Row]:
    """Every row of this family."""
    return binary_rows(profile) + scores_rows(profile)
