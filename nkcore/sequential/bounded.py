"""The predictable-plug-in empirical-Bernstein confidence sequence for a mean in [0, 1] (per-case differences).

With repeats or scores in [0, 1], each case gives one difference d_i = (B's mean over its repeats) - (A's mean) in
[-1, 1]; x_i = (d_i + 1) / 2 lies in [0, 1] with mean mu = (D + 1) / 2, D the difference of the two configs' mean
scores, and "no difference" is mu = 1/2. Waudby-Smith & Ramdas (2023), "Estimating means of bounded random
variables by betting", J. R. Stat. Soc. B 86(1), Theorem 2 (PrPl-EB), with c = 1/2:

    mu_hat_t = (1/2 + sum_{i<=t} x_i) / (t + 1),   sigma2_t = (1/4 + sum_{i<=t} (x_i - mu_hat_i)^2) / (t + 1),
    lambda_t = min(sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t))), 1/2)     (mu_hat_0 = 1/2, sigma2_0 = 1/4)
    v_t = 4 (x_t - mu_hat_{t-1})^2,   psi(lambda) = (-log(1 - lambda) - lambda) / 4
    C_t = sum lambda_i x_i / sum lambda_i  +-  (log(2/alpha) + sum v_i psi(lambda_i)) / sum lambda_i

covers mu at every t at once with probability >= 1 - alpha. Its two sides are the processes
M_t^{+-}(m) = exp(+-sum lambda_i (x_i - m) - sum v_i psi(lambda_i)), each a nonnegative supermartingale under mu = m,
and C_t is exactly {m : M_t^+(m) < 2/alpha and M_t^-(m) < 2/alpha}; so the test of mu = 1/2 rejects (the sequence
excludes 1/2) exactly when max(M^+, M^-) at m = 1/2 reaches 2/alpha, and the anytime p is
min(1, 2 / max_{s <= t} max(M_s^+, M_s^-)) (one-sided e-processes at alpha/2, Bonferroni). Every quantity is a
running sum: O(1) per case, closed form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["BET_CAP", "EBPath", "eb_path"]

BET_CAP = 0.5
"""c, the cap on the bet lambda_t (Waudby-Smith & Ramdas 2023 use 1/2 or 3/4)."""


@dataclass(frozen=True, slots=True, eq=False)
class EBPath:
    """Running sums of the empirical-Bernstein sequence along the last axis of the x array (one entry per case).

    ``log_m_plus`` / ``log_m_minus``: log M^+-(1/2); ``center``, ``half``: the sequence C_t = center +- half
    (before clipping to [0, 1] and before the running intersection).
    """

    log_m_plus: np.ndarray
    log_m_minus: np.ndarray
    center: np.ndarray
    half: np.ndarray


def eb_path(x: np.ndarray, significance: float) -> EBPath:
    """The PrPl-EB running quantities for x in [0, 1] along the last axis (any leading shape: runs of a simulation).

    >>> p = eb_path(np.array([1.0, 1.0, 1.0, 0.5]), 0.05)
    >>> round(float(p.center[-1]), 4), round(float(p.half[-1]), 3)
    (0.875, 1.891)
    """
    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    t = np.arange(1, n + 1, dtype=float)
    big_l = math.log(2.0 / significance)
    mu_hat = (0.5 + np.cumsum(x, axis=-1)) / (t + 1.0)
    mu_prev = np.concatenate([np.full((*x.shape[:-1], 1), 0.5), mu_hat[..., :-1]], axis=-1)
    sig2 = (0.25 + np.cumsum((x - mu_hat) ** 2, axis=-1)) / (t + 1.0)
    sig_prev = np.concatenate([np.full((*x.shape[:-1], 1), 0.25), sig2[..., :-1]], axis=-1)
    lam = np.minimum(np.sqrt(2.0 * big_l / (sig_prev * t * np.log1p(t))), BET_CAP)
    v = 4.0 * (x - mu_prev) ** 2
    psi = (-np.log1p(-lam) - lam) / 4.0
    s_lam = np.cumsum(lam, axis=-1)
    s_lamx = np.cumsum(lam * x, axis=-1)
    s_psi = np.cumsum(v * psi, axis=-1)
    drift = s_lamx - 0.5 * s_lam
    return EBPath(
        log_m_plus=drift - s_psi,
        log_m_minus=-drift - s_psi,
        center=s_lamx / s_lam,
        half=(big_l + s_psi) / s_lam,
    )
