"""Rows for the judge-corrected mean (PPI++, :func:`nkcore.judge.ppi.ppi_mean_interval`), when ``nkcore.judge``
exists; otherwise one placeholder row "not measured yet".

Model: n human-labelled cases and 10 n judge-only cases; the human score Y ~ Bernoulli(rate); the judge agrees with
the human with probability 0.85 (else says the opposite), so it is biased whenever rate != 0.5; the truth is
``rate``. Coverage of the interval for the mean of Y.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarks.coverage.table import Profile, Row, binomial_se
from nkcore.common.seeding import as_generator

FAMILY = "Judge-corrected mean (PPI)"
RATES = (0.02, 0.5, 0.98)
AGREEMENT = 0.85
UNLABELLED = 10


def rows(profile: Profile) -> list[Row]:
    """PPI++ coverage per labelled size and rate (or the placeholder)."""
    try:
        from nkcore.judge.ppi import ppi_mean_interval
    except ImportError:
        return [
            Row(FAMILY, "judge-corrected mean (PPI): not measured yet", "Judge page", "-", "-", "-", "coverage",
                0.95, math.nan, math.nan, 0, "nkcore.judge.ppi.ppi_mean_interval was not found")
        ]  # fmt: skip
    rng = as_generator(profile.seed + 8)
    out = []
    for n in profile.sizes:
        for rate in RATES:
            reps = profile.reps
            hits = 0
            for _ in range(reps):
                y = (rng.random(n * (1 + UNLABELLED)) < rate).astype(float)
                agree = rng.random(y.size) < AGREEMENT
                yhat = np.where(agree, y, 1.0 - y)
                r = ppi_mean_interval(y[:n], yhat[:n], yhat[n:])
                hits += r.ci_low <= rate <= r.ci_high
            out.append(
                Row(FAMILY, "PPI++ mean interval", "Judge: the corrected score", f"{n} labelled", "1",
                    f"{rate:g}", "coverage", 0.95, hits / reps, binomial_se(hits / reps, reps), reps,
                    f"PPI: {UNLABELLED} judge-only cases per labelled case; the judge agrees with the human "
                    f"{AGREEMENT:g} of the time")
            )  # fmt: skip
    return out
