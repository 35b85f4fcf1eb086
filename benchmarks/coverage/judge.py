"""Rows for the judge-corrected mean (PPI++, :func:`nkcore.judge.ppi.ppi_mean_interval`), when ``nkcore.judge``
exists; otherwise one placeholder row "not measured yet".

Model: n human-labelled cases and 10 n judge-only cases; the human score Y ~ Bernoulli(rate); the judge agrees with
the human with probability 0.85 (else says the opposite), so it is biased whenever rate != 0.5; the truth is
``rate``. Coverage of the interval for the mean of Y, for three intervals on the same draws: the one the product
prints ("auto": t below :data:`nkcore.judge.ppi.T_BELOW` human labels, normal from there, with the sparse 0/1
adjustment of :func:`nkcore.judge.ppi.sparse_binary`), the forced normal interval (``--interval normal``, same
adjustment), and the plain normal interval without the adjustment (ppi_py's ``ppi_mean_ci``, the table's old row).
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
METHODS = (
    ("PPI++ mean interval, printed (auto)", "Judge: the corrected score"),
    ("PPI++ mean interval, forced normal", "Judge: the corrected score with --interval normal"),
    ("PPI++ mean interval, plain normal (ppi-python, no sparse 0/1 adjustment)", "not printed (reference)"),
)


def rows(profile: Profile) -> list[Row]:
    """PPI++ coverage per labelled size and rate, per interval (or the placeholder)."""
    try:
        from nkcore.judge.ppi import ppi_mean_interval, sparse_binary, uses_t
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
            hits = [0, 0, 0]
            sparse = 0
            for _ in range(reps):
                y = (rng.random(n * (1 + UNLABELLED)) < rate).astype(float)
                agree = rng.random(y.size) < AGREEMENT
                yhat = np.where(agree, y, 1.0 - y)
                args = (y[:n], yhat[:n], yhat[n:])
                sparse += sparse_binary(y[:n], yhat[:n])
                for i, r in enumerate(
                    (
                        ppi_mean_interval(*args, small_sample=uses_t("auto", n)),
                        ppi_mean_interval(*args),
                        ppi_mean_interval(*args, sparse_adjust=False),
                    )
                ):
                    hits[i] += r.ci_low <= rate <= r.ci_high
            for (method, printed), h in zip(METHODS, hits, strict=True):
                out.append(
                    Row(FAMILY, method, printed, f"{n} labelled", "1", f"{rate:g}", "coverage", 0.95, h / reps,
                        binomial_se(h / reps, reps), reps,
                        f"PPI: {UNLABELLED} judge-only cases per labelled case; the judge agrees with the human "
                        f"{AGREEMENT:g} of the time; sparse 0/1 corner in {sparse / reps:.0%} of runs")
                )  # fmt: skip
    return out
