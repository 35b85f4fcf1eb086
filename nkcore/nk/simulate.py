"""Count-based sampling of the paper's generative model (the alternative) and of its null.

Spec "Generative model" and "Null hypothesis", for each simulated dataset (redrawn every round):
    beta_i ~ Dirichlet(alpha), rho_i ~ Dirichlet([1/M] * M), gamma_i = (1 - eps) beta_i + eps rho_i
    alternative: G_i, A_i ~ Multinomial(K, beta_i), B_i ~ Multinomial(K, gamma_i)
    null:        G_i ~ Multinomial(K, beta_i), A_i, B_i ~ Multinomial(K, (beta_i + gamma_i) / 2)
The null's per-response fair coin (A: beta or gamma; B: the roles swapped; independent coins) makes every
response of A and of B an independent draw from the mixture (beta_i + gamma_i)/2, so drawing the counts from the
mixture is the same distribution (tested against response-level draws in ``tests/test_nk_simulate.py``).
Every metric depends only on the per-item counts, so only counts are drawn:
- K <= 40: K uniforms per item against the cumulative probabilities (direct categorical draws),
- larger K: a chain of M - 1 binomials (the multinomial's conditional decomposition).
Arrays are category-major (M, rounds, N) inside the engine, so every per-category operation is contiguous.
Rounds are vectorised; work is cut into chunks of rounds whose seeds come from
``SeedSequence(seed, spawn_key=(N, K, side, chunk))``, so results do not depend on the number of worker
threads (numpy's generators and ufuncs release the GIL, so threads use both cores).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from nkcore.errors import DataError
from nkcore.nk.metrics import PAPER_METRICS, gaps_from_counts_cm
from nkcore.nk.priors import validate_alpha

ALT, NULL = 0, 1
_CHUNK_CELLS = 1 << 17  # rounds x items x categories per chunk (keeps every array in cache-friendly sizes)
_UNIFORM_MAX_K = 40  # K at or below which direct categorical draws beat the binomial chain (measured)
_LOG_GAMMA_BELOW = 0.05  # largest alpha below which the Dirichlet is drawn in log space (no underflow)


@dataclass(frozen=True, slots=True)
class SimCounts:
    """Simulated datasets as counts: ``gold``, ``a``, ``b`` are (rounds, N, M) int arrays with K per item."""

    gold: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    k: int
    hypothesis: str


@dataclass(frozen=True, slots=True)
class GapSamples:
    """Score gaps of one (N, K) cell: ``alt[metric]`` and ``null[metric]`` are (rounds,) arrays."""

    n: int
    k: int
    alt: dict[str, np.ndarray] = field(repr=False, compare=False)
    null: dict[str, np.ndarray] = field(repr=False, compare=False)


def as_entropy(seed: int | np.random.Generator) -> int:
    """An integer seed from an int or a Generator (a Generator is advanced by one draw)."""
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise DataError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def default_workers() -> int:
    """Worker threads: the machine's cores, at most 8 (numpy releases the GIL in the heavy calls)."""
    return max(1, min(8, os.cpu_count() or 1))


def draw_dirichlet(rng: np.random.Generator, alpha: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Dirichlet(alpha) draws, CATEGORY-MAJOR: shape (M, *shape) (each category slice contiguous).

    Formula: g_m ~ Gamma(alpha_m, 1), beta_m = g_m / sum(g). When every alpha_m < 0.05, the gammas are drawn in
    log space (ln Gamma(a) = ln Gamma(a + 1) + ln(U) / a) so that they cannot all underflow to 0.
    For alpha = (1/2, 1/2) (the noise rho at M = 2) this is Beta(1/2, 1/2): sin^2(pi U / 2), the arcsine law.
    """
    m = alpha.size
    if m == 2 and alpha[0] == 0.5 and alpha[1] == 0.5:
        r1 = np.sin(rng.random(shape) * (np.pi / 2)) ** 2
        return np.stack([r1, 1.0 - r1])
    if alpha.max() < _LOG_GAMMA_BELOW:
        lg = np.stack([np.log(rng.standard_gamma(a + 1.0, shape)) + np.log(rng.random(shape)) / a for a in alpha])
        lg -= lg.max(axis=0)
        g = np.exp(lg)
    else:
        g = np.stack([rng.standard_gamma(a, shape) for a in alpha])
    g /= g.sum(axis=0)
    return g


def draw_noise(rng: np.random.Generator, m: int, shape: tuple[int, ...]) -> np.ndarray:
    """rho ~ Dirichlet([1/M] * M), category-major (M, *shape)."""
    return draw_dirichlet(rng, np.full(m, 1.0 / m), shape)


def draw_counts(rng: np.random.Generator, p: np.ndarray, k: int) -> np.ndarray:
    """Multinomial(K, p) counts for every item; ``p`` and the result are category-major (M, ...).

    K <= 40: K direct categorical draws per item (a uniform U against the cumulative probabilities;
    count_m = #{U in [P_{m-1}, P_m)}). Larger K: the binomial chain
    c_j ~ Binomial(K - sum_{l<j} c_l, p_j / (1 - sum_{l<j} p_l)), the last category takes the rest.
    Both are exact draws of the multinomial.
    """
    m = p.shape[0]
    lead = p.shape[1:]
    if k <= _UNIFORM_MAX_K:
        cum = np.cumsum(p[: m - 1], axis=0)
        below = np.zeros((m - 1, *lead), dtype=np.int16 if k < 32000 else np.int64)
        for _ in range(k):
            below += rng.random(lead) < cum
        out = np.empty((m, *lead), dtype=np.int64)
        out[0] = below[0]
        if m > 2:
            np.subtract(below[1:], below[:-1], out=out[1 : m - 1])
        np.subtract(k, below[m - 2], out=out[m - 1])
        return out
    out = np.empty((m, *lead), dtype=np.int64)
    left = np.full(lead, k, dtype=np.int64)
    mass = np.ones(lead)
    for j in range(m - 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.clip(np.where(mass > 0, p[j] / mass, 1.0), 0.0, 1.0)
        c = rng.binomial(left, q)
        out[j] = c
        left -= c
        mass -= p[j]
    out[m - 1] = left
    return out


def simulate_counts(
    alpha: Sequence[float],
    eps: float,
    n: int,
    k: int,
    rounds: int,
    seed: int | np.random.Generator,
    hypothesis: str = "alternative",
) -> SimCounts:
    """Draw ``rounds`` datasets of N items x K responses (gold, A, B) as counts, single-threaded.

    ``hypothesis``: "alternative" (A is the ideal machine, B is pulled towards noise by eps) or "null".
    Reference: spec "Generative model" / "Null hypothesis".

    >>> s = simulate_counts((1.0, 1.0), 0.3, n=4, k=3, rounds=2, seed=0)
    >>> s.gold.shape, int(s.gold.sum(axis=-1).max())
    ((2, 4, 2), 3)
    """
    a = np.asarray(validate_alpha(alpha))
    _check(eps, n, k, rounds)
    if hypothesis not in ("alternative", "null"):
        raise DataError(f"hypothesis must be 'alternative' or 'null', got {hypothesis!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(as_entropy(seed))
    gold, ma, mb = (np.moveaxis(x, 0, -1) for x in _draw_dataset(rng, a, eps, n, k, rounds, hypothesis == "null"))
    return SimCounts(gold, ma, mb, k, hypothesis)


def _check(eps: float, n: int, k: int, rounds: int) -> None:
    if not (0.0 <= float(eps) <= 1.0):
        raise DataError(f"eps must be between 0 and 1, got {eps}")
    if int(n) < 1:
        raise DataError(f"items (N) must be at least 1, got {n}")
    if int(k) < 1:
        raise DataError(f"ratings per item (K) must be at least 1, got {k}")
    if int(rounds) < 2:
        raise DataError(f"rounds must be at least 2, got {rounds}")


def _draw_dataset(
    rng: np.random.Generator, alpha: np.ndarray, eps: float, n: int, k: int, rounds: int, null: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold, A and B counts, category-major (M, rounds, N), in a fixed order of draws (reproducible)."""
    m = alpha.size
    beta = draw_dirichlet(rng, alpha, (rounds, n))
    rho = draw_noise(rng, m, (rounds, n))
    gamma = (1.0 - eps) * beta + eps * rho
    gold = draw_counts(rng, beta, k)
    if null:
        mix = 0.5 * (beta + gamma)
        return gold, draw_counts(rng, mix, k), draw_counts(rng, mix, k)
    return gold, draw_counts(rng, beta, k), draw_counts(rng, gamma, k)


def _chunks(n: int, k: int, m: int, rounds: int) -> list[tuple[int, int]]:
    """Fixed chunks of rounds for a cell: a function of (N, K, M, rounds) only, never of the worker count."""
    per = max(1, min(rounds, _CHUNK_CELLS // (n * m)))
    return [(s, min(per, rounds - s)) for s in range(0, rounds, per)]


def _task(
    entropy: int, alpha: np.ndarray, eps: float, n: int, k: int, side: int, chunk: int, size: int, metrics: tuple
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(n, k, side, chunk)))
    gold, a, b = _draw_dataset(rng, alpha, eps, n, k, size, side == NULL)
    return gaps_from_counts_cm(gold, a, b, k, metrics)


def simulate_gaps(
    alpha: Sequence[float],
    eps: float,
    cells: Sequence[tuple[int, int]],
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    metrics: Sequence[str] = PAPER_METRICS,
    workers: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> list[GapSamples]:
    """Alternative and null score gaps for every (N, K) cell, ``rounds`` datasets each, on worker threads.

    The same (seed, N, K) always gives the same numbers, whatever ``workers`` and whatever other cells are
    computed alongside. ``progress`` (optional) receives the done fraction in [0, 1].
    Reference: spec "p-value, effect size, interval" (R alternative and R null datasets).
    """
    a = np.asarray(validate_alpha(alpha))
    metrics = tuple(metrics)
    entropy = as_entropy(seed)
    cells = [(int(n), int(k)) for n, k in cells]
    for n, k in cells:
        _check(eps, n, k, rounds)
    tasks = []
    for ci, (n, k) in enumerate(cells):
        for side in (ALT, NULL):
            for chunk, (start, size) in enumerate(_chunks(n, k, a.size, rounds)):
                tasks.append((ci, side, start, size, n * k * size, (entropy, a, float(eps), n, k, side, chunk, size)))
    results: dict[tuple[int, int, int], dict[str, np.ndarray]] = {}
    total = float(sum(t[4] for t in tasks)) or 1.0
    workers = default_workers() if workers is None else max(1, int(workers))
    if workers == 1 or len(tasks) == 1:
        done = 0.0
        for ci, side, start, _, w, args in tasks:
            results[(ci, side, start)] = _task(*args, metrics)
            done += w
            if progress is not None:
                progress(done / total)
    else:
        # largest tasks first keeps both cores busy to the end
        order = sorted(range(len(tasks)), key=lambda i: -tasks[i][4])
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {i: pool.submit(_task, *tasks[i][5], metrics) for i in order}
            done = 0.0
            for i in order:
                ci, side, start, _, w, _ = tasks[i]
                results[(ci, side, start)] = futures[i].result()
                done += w
                if progress is not None:
                    progress(done / total)
    out: list[GapSamples] = []
    for ci, (n, k) in enumerate(cells):
        sides = []
        for side in (ALT, NULL):
            parts = [results[(ci, side, start)] for start, _ in _chunks(n, k, a.size, rounds)]
            sides.append({mt: np.concatenate([p[mt] for p in parts]) for mt in metrics})
        out.append(GapSamples(n, k, sides[0], sides[1]))
    return out
