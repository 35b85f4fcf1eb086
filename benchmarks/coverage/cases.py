"""Rows for per-case values: case-level inference with repeats, pass@k / pass^k, the vote curve's intervals.

- Case level (:func:`nkcore.paired.sign_flip_test`, :func:`nkcore.paired.case_bootstrap`, what
  :func:`nkcore.paired.compare_cases` reports): case means from :func:`nkcore.rank.simulate.simulate_case_means`
  (a latent-threshold model, within-case correlation 0.5, config j's true mean exactly p_j). Type I error at equal
  means (p, p); coverage of the true difference at means (p - 0.01, p + 0.01) and at equal means.
- pass@k / pass^k (:func:`nkcore.common.bounded_mean.bounded_mean_intervals`, the default ``interval="score"`` of
  :func:`nkcore.voting.pass_k_curves`, on the per-case estimates :func:`nkcore.voting.pass_at_k` /
  :func:`nkcore.voting.pass_hat_k`): 10 samples per case, per-case chance p ~ Beta(a, b); truth in closed form,
  E[p^k] = prod_{j<k} (a + j) / (a + b + j).
- The vote curve: majority@k of 5 samples per case, right or one wrong answer, the case credit
  :func:`nkcore.voting.exact.exact_case_curve`; its band is :func:`nkcore.common.bounded_mean.bounded_mean_intervals`
  (what :func:`nkcore.voting.vote_curve` prints since issue 53), truth E[P(Binomial(k, p) > k / 2)] (beta-binomial,
  odd k); its step n - 2 -> n is the paired percentile bootstrap :func:`nkcore.voting.passk.case_bootstrap_bands`
  of the per-case step (2,000 replicates), truth the difference of the two.
Replications are independent draws (the case-level ones one call per replication; pass@k and the vote curve's as
the columns of one cases x replications matrix, each column its own data set).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from benchmarks.coverage.table import Profile, Row, binomial_se
from nkcore.common.bounded_mean import bounded_mean_intervals
from nkcore.common.seeding import as_generator
from nkcore.paired import case_bootstrap, interval_reliable, sign_flip_test
from nkcore.rank.simulate import simulate_case_means
from nkcore.voting import pass_at_k, pass_hat_k
from nkcore.voting.exact import exact_case_curve
from nkcore.voting.passk import case_bootstrap_bands

CASE_RATES = (0.02, 0.5, 0.98)
SHIFT = 0.01
BETAS = {"0.05": (0.5, 9.5), "0.5": (2.0, 2.0), "0.95": (9.5, 0.5)}  # mean per-sample chance -> Beta(a, b)
CASE_FAMILY = "Case-level inference with repeats"
PASSK_FAMILY = "pass@k, pass^k and the vote curve"


def case_level_rows(profile: Profile) -> list[Row]:
    """Sign-flip type I error, case-bootstrap coverage at no difference and at a difference of 0.02: over every
    replication, and over those the page prints without the "less reliable" flag (25+ cases whose mean differs,
    :func:`nkcore.paired.interval_reliable`)."""
    rng = as_generator(profile.seed + 1)
    out = []
    for n in profile.sizes:
        for r in profile.repeats:
            for rate in CASE_RATES:
                null_means = np.array([rate, rate])
                alt_means = np.array([rate - SHIFT, rate + SHIFT])
                reject = cover0 = cover1 = 0
                kept = [0, 0]  # unflagged replications at no difference, at the difference
                kept_cover = [0, 0]
                for _ in range(profile.reps):
                    x = simulate_case_means(null_means, n, r, 0.5, rng)
                    d = x[:, 1] - x[:, 0]
                    p, _, _ = sign_flip_test(d, rng)
                    reject += p < 0.05
                    lo, hi, _, err = case_bootstrap(d)
                    hit = lo - err <= 0.0 <= hi + err
                    cover0 += hit
                    if interval_reliable(int(np.count_nonzero(np.abs(d) > 1e-12))):
                        kept[0] += 1
                        kept_cover[0] += hit
                    y = simulate_case_means(alt_means, n, r, 0.5, rng)
                    dy = y[:, 1] - y[:, 0]
                    lo, hi, _, err = case_bootstrap(dy)
                    hit = lo - err <= 2 * SHIFT <= hi + err
                    cover1 += hit
                    if interval_reliable(int(np.count_nonzero(np.abs(dy) > 1e-12))):
                        kept[1] += 1
                        kept_cover[1] += hit
                reps = profile.reps
                common = (str(n), str(r), f"{rate:g}")
                note = (
                    "case level: latent-threshold cases (within-case correlation 0.5), equal means for type I, "
                    f"means rate -+ {SHIFT:g} for 'difference {2 * SHIFT:g}'"
                )
                out += [
                    Row(CASE_FAMILY, "sign-flip test on the case means", "Compare (repeats): the verdict's p",
                        *common, "type I", 0.05, reject / reps, binomial_se(reject / reps, reps), reps, note),
                    Row(CASE_FAMILY, "case bootstrap, no difference",
                        f"Compare (repeats): interval on B minus A (flagged in {1 - kept[0] / reps:.0%})",
                        *common, "coverage", 0.95, cover0 / reps, binomial_se(cover0 / reps, reps), reps,
                        f"{note}; the page flags the interval 'less reliable' below 25 cases whose mean differs"),
                    Row(CASE_FAMILY, f"case bootstrap, difference {2 * SHIFT:g}",
                        f"Compare (repeats): interval on B minus A (flagged in {1 - kept[1] / reps:.0%})", *common,
                        "coverage", 0.95, cover1 / reps,
                        binomial_se(cover1 / reps, reps), reps,
                        f"{note}; the page flags the interval 'less reliable' below 25 cases whose mean differs"),
                ]  # fmt: skip
                for which, label in enumerate(("no difference", f"difference {2 * SHIFT:g}")):
                    if kept[which] >= 20:
                        c = kept_cover[which] / kept[which]
                        out.append(
                            Row(CASE_FAMILY, f"case bootstrap, {label}, where not flagged",
                                "Compare (repeats): interval on B minus A, printed without the flag", *common,
                                "coverage", 0.95, c, binomial_se(c, kept[which]), kept[which],
                                f"{note}; only the replications with 25+ cases whose mean differs")
                        )  # fmt: skip
    return out


def _moment(a: float, b: float, k: int) -> float:
    """E[p^k] for p ~ Beta(a, b)."""
    return math.prod((a + j) / (a + b + j) for j in range(k))


def passk_rows(profile: Profile, samples: int = 10) -> list[Row]:
    """Score-interval coverage of pass@1, pass@5, pass@10, pass^5 and pass^10 (10 samples per case)."""
    rng = as_generator(profile.seed + 2)
    readings = [("pass@k", 1), ("pass@k", 5), ("pass@k", 10), ("pass^k", 5), ("pass^k", 10)]
    tables = {
        (name, k): np.array(
            [(pass_at_k if name == "pass@k" else pass_hat_k)(samples, c, k) for c in range(samples + 1)]
        )
        for name, k in readings
    }
    out = []
    for n in profile.sizes:
        for label, (a, b) in BETAS.items():
            reps = profile.big
            c = rng.binomial(samples, rng.beta(a, b, size=(n, reps)))
            for name, k in readings:
                truth = _moment(a, b, k) if name == "pass^k" else 1.0 - _moment(b, a, k)
                iv = bounded_mean_intervals(tables[(name, k)][c])
                cov = float(np.mean((iv.low <= truth) & (truth <= iv.high)))
                out.append(
                    Row(PASSK_FAMILY, f"{name.replace('k', str(k))} score interval",
                        "Vote page: pass@k / pass^k curves (default interval)", str(n), f"{samples} samples",
                        f"{label} (truth {truth:.3g})", "coverage", 0.95, cov, binomial_se(cov, reps), reps,
                        "pass@k: per-sample chance p ~ Beta(0.5, 9.5), Beta(2, 2), Beta(9.5, 0.5) per case (mean "
                        "0.05, 0.5, 0.95); the rate column gives that mean and the reading's true value")
                )  # fmt: skip
    return out


def _majority_truth(a: float, b: float, k: int) -> float:
    """E[P(Binomial(k, p) > k/2)] for p ~ Beta(a, b): the beta-binomial upper tail (odd k)."""
    x = np.arange(k // 2 + 1, k + 1)
    logpmf = special.gammaln(k + 1) - special.gammaln(x + 1) - special.gammaln(k - x + 1)
    logpmf = logpmf + special.betaln(x + a, k - x + b) - special.betaln(a, b)
    return float(np.exp(logpmf).sum())


def vote_rows(profile: Profile, samples: int = 5, n_boot: int = 2000) -> list[Row]:
    """The vote curve's band at k = 1, 3, 5 of 5 samples per case, and its steps' paired bootstrap (3 -> 1, 5 -> 3)."""
    rng = as_generator(profile.seed + 3)
    credit = np.array([exact_case_curve(c, (samples - c,) if c < samples else (), "first") for c in range(samples + 1)])
    out = []
    for n in profile.sizes:
        for label, (a, b) in BETAS.items():
            reps = profile.reps
            c = rng.binomial(samples, rng.beta(a, b, size=(n, reps)))
            for k in (1, 3, 5):
                truth = _majority_truth(a, b, k)
                band = bounded_mean_intervals(credit[c, k])  # what vote_curve prints as ci_low / ci_high
                cov = float(np.mean((band.low <= truth) & (truth <= band.high)))
                out.append(
                    Row(PASSK_FAMILY, f"majority@{k} vote-curve band",
                        "Sampling page: the vote curve's band; `vote --json` curve ci_low/ci_high; majority@k",
                        str(n), f"{samples} samples", f"{label} (truth {truth:.3g})", "coverage", 0.95, cov,
                        binomial_se(cov, reps), reps,
                        "vote curve: Clopper-Pearson on the effective cases (bounded_mean_intervals of the exact "
                        "case credit), the same band as majority@k in the pass@k curves")
                )  # fmt: skip
            for k in (3, 5):
                truth = _majority_truth(a, b, k) - _majority_truth(a, b, k - 2)
                steps = case_bootstrap_bands(credit[c, k] - credit[c, k - 2], n_boot, rng)
                cov = float(np.mean((steps.low <= truth) & (truth <= steps.high)))
                out.append(
                    Row(PASSK_FAMILY, f"step majority@{k - 2} -> @{k} paired bootstrap",
                        "Sampling page: the step sentence; `vote --json` curve diff_ci_low/diff_ci_high",
                        str(n), f"{samples} samples", f"{label} (truth {truth:+.3g})", "coverage", 0.95, cov,
                        binomial_se(cov, reps), reps,
                        "vote curve's step n - 2 -> n: paired percentile bootstrap of the per-case step (what "
                        "vote_curve prints when every case has n samples); replications share one set of bootstrap "
                        "draws per size (columns of one call), each column its own data set")
                )  # fmt: skip
    return out


def rows(profile: Profile) -> list[Row]:
    """Every row of these two families."""
    return case_level_rows(profile) + passk_rows(profile) + vote_rows(profile)
