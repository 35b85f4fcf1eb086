"""A small-sample-safe standard error for a mean of paired differences in [-1, 1]: the pseudo-case adjustment.

Before the standard error of the mean of the case differences d_1..d_n is taken, pseudo-cases are added:
d = +1 and d = -1 with weight w each and d = 0 with weight 2w (n + 4w cases in all). With w = 1/2 and 0/1 results
without repeats this is adding 1/2 to each cell of the paired 2 x 2 table (Agresti & Min 2005, "Simple improved
confidence intervals for comparing matched proportions", Statistics in Medicine 24(5):729); w = 1 adds a whole
case to each, as Agresti & Caffo 2000 (The American Statistician 54(4):280) add one success and one failure to
each sample. With S1 = sum d_i, S2 = sum d_i^2 and N = n + 4w:

    var+ = (S2 - S1^2 / N + 2w) / (N - 1),     se+ = sqrt(var+ / N)

se+ is never 0 (at least sqrt(2w / (N (N - 1)))), so cases that all agree, or a handful of discordant cases,
cannot make a difference look exact. The estimate itself stays the raw mean: only its error is smoothed.
Non-inferiority (:mod:`nkcore.rank.noninferiority`) uses w = 1/2, the simultaneous intervals
(:mod:`nkcore.rank.simultaneous`) w = 1 (their coverage at 60-120 sparse cases needed it: docs/coverage.md).
"""

from __future__ import annotations

import numpy as np

__all__ = ["pseudo_se"]


def pseudo_se(sum_d: np.ndarray | float, sum_d2: np.ndarray | float, n: int, weight: float = 0.5) -> np.ndarray:
    """se+ from the sums S1 = sum d_i and S2 = sum d_i^2 of n case differences (elementwise on arrays), pseudo
    weight ``weight`` (w).

    >>> float(pseudo_se(0.0, 0.0, 15)).__round__(4)  # 15 equal cases: 1 / sqrt(16 * 17)
    0.0606
    """
    s1 = np.asarray(sum_d, dtype=float)
    s2 = np.asarray(sum_d2, dtype=float)
    total = n + 4.0 * weight
    var = (np.maximum(s2 - s1 * s1 / total, 0.0) + 2.0 * weight) / (total - 1.0)
    return np.asarray(np.sqrt(var / total))
