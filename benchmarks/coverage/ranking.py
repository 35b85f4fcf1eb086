"""Rows for ranking M configs (issue 54): simultaneous intervals, rank intervals, could-be-best, non-inferiority.

Case means from :func:`nkcore.rank.simulate.simulate_case_means` (within-case correlation 0.5), four configs with
true means ``rate`` + (-0.03, -0.01, +0.01, +0.03) (all distinct, so every true rank is defined; rate 0.04, 0.5,
0.96 for near 0, 0.5, near 1), ranked by the product's :func:`nkcore.rank.rank_means` (2,000 bootstrap resamples,
the default). Per replication: do the simultaneous pairwise intervals hold every true difference at once; do the
rank intervals hold every true rank at once; does "could be the best" hold the true best.
Non-inferiority (:func:`nkcore.rank.non_inferiority`): type I error at the margin, B's true mean exactly
``margin`` = 0.01 below A's (means rate + 0.005 and rate - 0.005), alpha 0.05.
"""

from __future__ import annotations

import numpy as np

from benchmarks.coverage.table import Profile, Row, binomial_se
from nkcore.common.seeding import as_generator
from nkcore.rank import non_inferiority, rank_means
from nkcore.rank.simulate import simulate_case_means

RANK_RATES = (0.04, 0.5, 0.96)
OFFSETS = np.array([-0.03, -0.01, 0.01, 0.03])
MARGIN = 0.01
NI_RATES = (0.02, 0.5, 0.98)
FAMILY = "Ranking and non-inferiority"
NAMES = ("c1", "c2", "c3", "c4")


def rank_rows(profile: Profile) -> list[Row]:
    """Simultaneous pairwise, rank-interval and could-be-best coverage."""
    rng = as_generator(profile.seed + 6)
    out = []
    for n in profile.sizes:
        for r in profile.rank_repeats:
            for rate in RANK_RATES:
                truth = rate + OFFSETS
                true_diff = truth[:, None] - truth[None, :]
                true_rank = 1 + (truth[None, :] > truth[:, None]).sum(axis=1)
                best = NAMES[int(np.argmax(truth))]
                reps = profile.rank
                pair_ok = rank_ok = best_ok = 0
                for _ in range(reps):
                    x = simulate_case_means(truth, n, r, 0.5, rng)
                    res = rank_means(x, NAMES, seed=int(rng.integers(2**31)))
                    pair_ok += bool(
                        np.all((res.pairs.low <= true_diff + 1e-12) & (true_diff - 1e-12 <= res.pairs.high))
                    )
                    ranks = {c.config: (c.rank_low, c.rank_high) for c in res.configs}
                    rank_ok += all(ranks[NAMES[j]][0] <= true_rank[j] <= ranks[NAMES[j]][1] for j in range(4))
                    best_ok += best in res.could_be_best
                common = (str(n), str(r), f"{rate:g} (means {rate - 0.03:g}..{rate + 0.03:g})")
                note = "ranking: four configs 0.02 apart, every replication its own bootstrap seed"
                out += [
                    Row(FAMILY, "simultaneous pairwise intervals (all pairs)", "Compare: which config ships",
                        *common, "coverage", 0.95, pair_ok / reps, binomial_se(pair_ok / reps, reps), reps, note),
                    Row(FAMILY, "rank intervals (all configs)", "Compare: which config ships, rank column",
                        *common, "coverage", 0.95, rank_ok / reps, binomial_se(rank_ok / reps, reps), reps, note),
                    Row(FAMILY, "could be the best holds the true best", "Compare: which config ships",
                        *common, "coverage", 0.95, best_ok / reps, binomial_se(best_ok / reps, reps), reps, note),
                ]  # fmt: skip
    return out


def noninferiority_rows(profile: Profile) -> list[Row]:
    """The non-inferiority test's type I error at the margin (Tango's score test for 0/1 results, else the one-sided
    t with the pseudo-case standard error)."""
    rng = as_generator(profile.seed + 7)
    out = []
    for n in profile.sizes:
        for r in profile.repeats:
            for rate in NI_RATES:
                means = np.array([rate + MARGIN / 2, rate - MARGIN / 2])
                reps = profile.reps
                hits = 0
                for _ in range(reps):
                    x = simulate_case_means(means, n, r, 0.5, rng)
                    hits += non_inferiority(x[:, 0], x[:, 1], MARGIN).non_inferior
                out.append(
                    Row(FAMILY, f"non-inferiority at the margin ({100 * MARGIN:g} point)",
                        "Compare: within the margin of the best", str(n), str(r), f"{rate:g}", "type I", 0.05,
                        hits / reps, binomial_se(hits / reps, reps), reps,
                        "non-inferiority: B's true mean exactly the margin below A's")
                )  # fmt: skip
    return out


def rows(profile: Profile) -> list[Row]:
    """Every row of this family."""
    return rank_rows(profile) + noninferiority_rows(profile)
