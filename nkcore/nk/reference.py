"""A literal, slow transcription of the spec: response-level draws, one simulated dataset per Python loop turn.

It exists as an oracle: the tests check that the fast count-based engine (``simulate``) draws the same
distribution, and ``benchmarks/bench_nk.py`` times the two on the same cells. Nothing here is optimised.
Reference: spec "Generative model" and "Null hypothesis" (per-response fair coins, as the authors' toolkit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from nkcore.nk.metrics import PAPER_METRICS
from nkcore.nk.priors import validate_prior
from nkcore.nk.scores import score_gap


@dataclass(frozen=True, slots=True)
class Responses:
    """One simulated dataset at the response level: (N, K) label codes for gold, A and B."""

    gold: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)


def _categorical(rng: np.random.Generator, p: np.ndarray, k: int) -> np.ndarray:
    """K categorical draws per row of ``p`` (N, M) by inverting the cumulative distribution: (N, K) codes."""
    cum = np.cumsum(p, axis=1)
    u = rng.random((p.shape[0], k))
    return np.minimum((u[:, :, None] >= cum[:, None, :]).sum(axis=2), p.shape[1] - 1)


def reference_dataset(
    rng: np.random.Generator, prior: Sequence[float], eps: float, n: int, k: int, null: bool
) -> Responses:
    """One dataset, response by response, exactly as the spec states it.

    beta_i ~ Dir(alpha), rho_i ~ Dir(1/M), gamma_i = (1 - eps) beta_i + eps rho_i; gold: K draws from beta_i;
    alternative: A from beta_i, B from gamma_i; null: each response of A flips a fair coin between beta_i and
    gamma_i, B an independent coin with the roles swapped.
    """
    a = np.asarray(prior, dtype=float)
    m = a.size
    beta = rng.dirichlet(a, size=n)
    rho = rng.dirichlet(np.full(m, 1.0 / m), size=n)
    gamma = (1.0 - eps) * beta + eps * rho
    gold = _categorical(rng, beta, k)
    if not null:
        return Responses(gold, _categorical(rng, beta, k), _categorical(rng, gamma, k))
    from_beta, from_gamma = _categorical(rng, beta, k), _categorical(rng, gamma, k)
    coin_a = rng.integers(0, 2, size=(n, k))
    resp_a = np.where(coin_a == 0, from_beta, from_gamma)
    from_beta2, from_gamma2 = _categorical(rng, beta, k), _categorical(rng, gamma, k)
    coin_b = rng.integers(0, 2, size=(n, k))
    resp_b = np.where(coin_b == 0, from_gamma2, from_beta2)
    return Responses(gold, resp_a, resp_b)


def response_counts(responses: np.ndarray, m: int) -> np.ndarray:
    """Per-item label counts (N, M) from response codes (N, K)."""
    return np.stack([(responses == c).sum(axis=1) for c in range(m)], axis=1)


def reference_gaps(
    prior: Sequence[float],
    eps: float,
    n: int,
    k: int,
    rounds: int,
    seed: int,
    metrics: Sequence[str] = PAPER_METRICS,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Alternative and null score gaps from ``rounds`` response-level datasets each (a Python loop over rounds).

    Metrics use the generic float implementations in ``nkcore.nk.scores`` (not the fast kernel).
    """
    a = validate_prior(prior)
    m = len(a)
    rng = np.random.default_rng(seed)
    sides: list[dict[str, np.ndarray]] = []
    for null in (False, True):
        gaps = {mt: np.empty(rounds) for mt in metrics}
        for r in range(rounds):
            d = reference_dataset(rng, a, eps, n, k, null)
            g, ca, cb = (response_counts(x, m) for x in (d.gold, d.a, d.b))
            for mt in metrics:
                gaps[mt][r] = float(score_gap(mt, g, ca, cb))
        sides.append(gaps)
    return sides[0], sides[1]
