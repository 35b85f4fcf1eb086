"""Count-based sampling of the paper's generative model (the alternative) and of its null.

Spec "Generative model" and "Null hypothesis", for each simulated dataset (redrawn every round):
    beta_i ~ Dirichlet(alpha), rho_i ~ Dirichlet([1/M] * M), gamma_i = (1 - eps) beta_i + eps rho_i
    alternative: G_i, A_i ~ Multinomial(K, beta_i), B_i ~ Multinomial(K, gamma_i)
    null:        G_i ~ Multinomial(K, beta_i), A_i, B_i ~ Multinomial(K, (beta_i + gamma_i) / 2)
The null's per-response fair coin (A: beta or gamma; B: the roles swapped; independent coins) makes every
response of A and of B an independent draw from the mixture (beta_i + gamma_i)/2, so drawing the counts from the
mixture is the same distribution. Null datasets are drawn independently of the alternative ones.
Every metric depends only on the per-item counts, so only counts are drawn, by one of three exact samplers
(the same distribution; a fixed rule on (N, K, M) picks the cheapest, so seeds stay reproducible):
- "types" (``nkcore.nk.outcomes``): when an item has fewer possible outcomes than it costs to draw the items,
  a whole dataset is the counts of outcome types, Multinomial(N, exact law of one item);
- "urn": beta and rho integrated out (Polya urns), for small K (no Dirichlet draw at all);
- "dirichlet": beta, rho and gamma drawn explicitly (gamma variates), then K <= 40: K uniforms per item
  against the cumulative probabilities (direct categorical draws); larger K: a chain of M - 1 binomials.
Every sampler is checked against the exact law and the spec's response-level transcription in
``tests/test_nk_simulate.py``. Arrays are category-major (M, rounds, N) inside the engine. Rounds are
vectorised; work is cut into chunks of rounds whose seeds come from ``SeedSequence(seed, spawn_key=(N, K,
side, chunk))``, so results do not depend on the number of worker threads (numpy's generators and ufuncs
release the GIL, so threads use both cores).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.nk import outcomes
from nkcore.nk.metrics import PAPER_METRICS, gaps_from_counts_cm
from nkcore.nk.priors import validate_alpha

ALT, NULL = 0, 1
_CHUNK_CELLS = 1 << 19  # cells (items x categories, or outcome types) x rounds per chunk: few Python calls (measured)
_UNIFORM_MAX_K = 40  # K at or below which direct categorical draws beat the binomial chain (measured)
_LOG_GAMMA_BELOW = 0.05  # largest alpha below which the Dirichlet is drawn in log space (no underflow)
_INT16_MAX_K = 16000  # counts fit int16 (and so do sums of |A - G| over categories, at most 2K)
_URN_MAX_K = ((2, 1), (7, 16), (100, 20))  # (largest M, largest K) of the urn sampler: measured break-even
_DIRICHLET_COST = 8  # a Dirichlet draw per item costs about as much as this many responses (task ordering only)
SAMPLERS: tuple[str, ...] = ("auto", "types", "urn", "dirichlet")


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


WORK_MAX_K = 40
"""K above which a machine's counts cost about the same whatever K (a chain of M binomials): the work cap of K."""
TASK_BYTES_PER_CELL = 64
"""Bytes one task holds per (round, item, category) cell at its peak: the Dirichlet or urn draws (float64), the
cumulative counts, the three machines' counts and the metrics' temporaries (measured with tracemalloc, rounded up)."""
TASK_BYTES_PER_TYPE = 32
"""Bytes one task of the outcome-types sampler holds per (round, outcome type): the multinomial counts and sums."""


def draw_work(n: int, k: int, m: int, rounds: int, sampler: str = "auto") -> int:
    """The work of one cell, both sides: what ``limits`` calls ``sim_work`` (category draws).

    Formula: 2 (alternative and null) x rounds x per-round cost, the per-round cost being 3 machines (gold, A, B)
    x N items x M labels x min(K, 40) for the item samplers, or 10 x the T outcome types for the types sampler
    (one multinomial over T cells per round, about 10 draws' cost per type, measured). The same formula bounds
    the real-data resampler.

    >>> draw_work(100, 1, 2, 1000)  # the types sampler: T = C(2, 1)^3 = 8 outcome types per round
    160000
    >>> draw_work(100, 10, 2, 1000)  # items: 2 x 1000 rounds x 3 machines x 100 items x 2 labels x K
    12000000
    >>> draw_work(2000, 50, 100, 100)
    4800000000
    """
    if _types_for(n, k, m, sampler):
        return 2 * rounds * 10 * outcomes.n_types(k, m)
    return 2 * rounds * 3 * n * m * min(k, WORK_MAX_K)


def check_request(
    cells: Sequence[tuple[int, int]], m: int, rounds: int, n_metrics: int, workers: int, sampler: str = "auto"
) -> None:
    """Refuse a simulation over the limits before any draw: rounds, configurations, budget of each cell, total
    work (``draw_work`` summed over the cells) and memory (the ``workers`` largest tasks running at once, a task
    being one side's chunk of rounds of a cell, plus the gap samples kept: 2 sides x rounds x metrics x 8 bytes
    per cell, twice while they are joined).

    >>> check_request([(100, 10)], 2, 1000, 4, 2)
    >>> check_request([(1_000_000, 1)], 100, 2, 4, 2)
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: the simulation at its peak needs 12,800,000,000 bytes of memory; the limit is 1,073,741,824 bytes of memory (server setting NKP_MAX_MEMORY_BYTES): ask for a smaller computation
    """
    limits.check("rounds", rounds, "the request")
    limits.check("configs", len(cells), "the request")
    for n, k in cells:
        limits.check("budget", n * k, f"the cell with K = {k:,}")
    limits.check("sim_work", sum(draw_work(n, k, m, rounds, sampler) for n, k in cells), "the simulation")
    peaks = sorted(
        (
            _chunks(n, k, m, rounds, sampler)[0][1]
            * (
                _round_cost(n, k, m, sampler) * TASK_BYTES_PER_TYPE
                if _types_for(n, k, m, sampler)
                else n * m * TASK_BYTES_PER_CELL
            )
            for n, k in cells
            for _side in (ALT, NULL)
        ),
        reverse=True,
    )
    limits.check_memory(sum(peaks[: max(1, workers)]), "the simulation at its peak")
    limits.check_memory(len(cells) * rounds * 2 * n_metrics * 8 * 2, "keeping the gap samples")


def default_workers() -> int:
    """Worker threads: the machine's cores, at most 8 (numpy releases the GIL in the heavy calls)."""
    return max(1, min(8, os.cpu_count() or 1))


def draw_dirichlet(rng: np.random.Generator, alpha: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Dirichlet(alpha) draws, CATEGORY-MAJOR: shape (M, *shape) (each category slice contiguous).

    Formula: g_m ~ Gamma(alpha_m, 1), beta_m = g_m / sum(g) (float64 gamma draws written in place, batched over
    rounds and items). When every alpha_m < 0.05, the gammas are drawn in log space
    (ln Gamma(a) = ln Gamma(a + 1) + ln(U) / a) so that they cannot all underflow to 0.
    For alpha = (1/2, 1/2) (the noise rho at M = 2) this is Beta(1/2, 1/2): sin^2(pi U / 2), the arcsine law.
    """
    m = alpha.size
    if m == 2 and alpha[0] == 0.5 and alpha[1] == 0.5:
        r1 = np.sin(rng.random(shape) * (np.pi / 2)) ** 2
        return np.stack([r1, 1.0 - r1])
    g = np.empty((m, *shape))
    if alpha.max() < _LOG_GAMMA_BELOW:
        for j, a in enumerate(alpha):
            g[j] = np.log(rng.standard_gamma(a + 1.0, shape)) + np.log(rng.random(shape)) / a
        g -= g.max(axis=0)
        np.exp(g, out=g)
    else:
        for j, a in enumerate(alpha):
            rng.standard_gamma(a, out=g[j])
    g /= g.sum(axis=0)
    return g


def draw_noise(rng: np.random.Generator, m: int, shape: tuple[int, ...]) -> np.ndarray:
    """rho ~ Dirichlet([1/M] * M), category-major (M, *shape)."""
    return draw_dirichlet(rng, np.full(m, 1.0 / m), shape)


def count_dtype(k: int) -> type:
    """Integer type of the counts: int16 while sums of two machines' differences (at most 2K) fit, else int64."""
    return np.int16 if k <= _INT16_MAX_K else np.int64


def _cumulative_to_counts(cum: np.ndarray, k: int) -> np.ndarray:
    """Counts (M, ...) from cumulative counts C_j = #{responses with category <= j}, j < M - 1 (shape (M-1, ...))."""
    m1 = cum.shape[0]
    if cum.dtype.kind == "f":  # urn thresholds minus their prior: whole numbers up to rounding
        cum = np.rint(cum)
    out = np.empty((m1 + 1, *cum.shape[1:]), dtype=count_dtype(k))
    out[0] = cum[0]
    if m1 > 1:
        np.subtract(cum[1:], cum[:-1], out=out[1:m1], casting="unsafe")
    np.subtract(k, cum[m1 - 1], out=out[m1], casting="unsafe")
    return out


def _draw_counts_many(rng: np.random.Generator, p: np.ndarray, k: int, copies: int) -> list[np.ndarray]:
    """``copies`` independent Multinomial(K, p) count arrays for the same probabilities ``p`` (M, ...)."""
    m = p.shape[0]
    lead = p.shape[1:]
    if k <= _UNIFORM_MAX_K:
        cum = np.cumsum(p[: m - 1], axis=0)  # computed once for every copy
        u = np.empty(lead)
        ind = np.empty(cum.shape, dtype=bool)
        out = []
        for _ in range(copies):
            below = np.zeros(cum.shape, dtype=np.int8)  # K <= 40 fits
            for _ in range(k):
                rng.random(out=u)
                np.less(u, cum, out=ind)
                below += ind.view(np.int8)
            out.append(_cumulative_to_counts(below, k))
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        # conditional probabilities of the binomial chain, shared by every copy
        mass = 1.0 - np.concatenate([np.zeros((1, *lead)), np.cumsum(p[: m - 2], axis=0)])
        q = np.clip(np.where(mass > 0, p[: m - 1] / mass, 1.0), 0.0, 1.0)
    out = []
    for _ in range(copies):
        c = np.empty((m, *lead), dtype=count_dtype(k))
        left = np.full(lead, k, dtype=np.int64)
        for j in range(m - 1):
            cj = rng.binomial(left, q[j])
            c[j] = cj
            left -= cj
        c[m - 1] = left
        out.append(c)
    return out


def draw_counts(rng: np.random.Generator, p: np.ndarray, k: int) -> np.ndarray:
    """Multinomial(K, p) counts for every item; ``p`` and the result are category-major (M, ...).

    K <= 40: K direct categorical draws per item (a uniform U against the cumulative probabilities;
    count_m = #{U in [P_{m-1}, P_m)}). Larger K: the binomial chain
    c_j ~ Binomial(K - sum_{l<j} c_l, p_j / (1 - sum_{l<j} p_l)), the last category takes the rest.
    Both are exact draws of the multinomial.
    """
    return _draw_counts_many(rng, p, k, 1)[0]


def _urn_draws(
    rng: np.random.Generator,
    thr: np.ndarray,
    total: float | np.ndarray,
    steps: int,
    drawn: np.ndarray,
    active: np.ndarray | None = None,
) -> None:
    """``steps`` draws per item from a Polya urn, updating its thresholds ``thr`` (M-1, L) in place.

    thr_j = prior mass of the categories <= j + earlier draws of the item with category <= j; ``total`` is the
    urn's whole mass before the first of these draws (a number, or one per item). With U uniform, the draw is a
    category <= j exactly when U * (total + t) < thr_j, and then every thr_j from its category on grows by 1.
    ``drawn`` (M-1, L) small integers: the machine's cumulative counts, incremented in place.
    ``active`` (one per item): how many of the ``steps`` draws the item makes (the rest are skipped).
    """
    u = np.empty(thr.shape[1:])
    ind = np.empty(thr.shape, dtype=bool)
    small = drawn.view(np.int8) if drawn.dtype == np.int8 else None
    for t in range(steps):
        rng.random(out=u)
        u *= total + t
        np.less(u, thr, out=ind)
        if active is not None:
            np.logical_and(ind, t < active, out=ind)
        thr += ind
        if small is not None:
            small += ind.view(np.int8)  # same-type add: much cheaper than adding booleans
        else:
            drawn += ind


def _urn_thresholds(prior: np.ndarray, size: int) -> np.ndarray:
    """Fresh urn thresholds (M-1, size): the prior's cumulative mass for every item."""
    thr = np.empty((prior.size, size))
    thr[...] = prior[:, None]
    return thr


def _urn_dataset(
    rng: np.random.Generator, alpha: np.ndarray, eps: float, size: int, k: int, null: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold, A and B counts (M, size) with beta and rho integrated out (Polya urns): exact, no Dirichlet draw.

    Given the earlier draws of an item, a response from beta_i ~ Dir(alpha) is category m with probability
    (alpha_m + n_m) / (alpha0 + n) (n_m: the item's earlier beta draws of category m, in any machine), and one
    from rho_i ~ Dir(1/M) with probability (1/M + r_m) / (1 + r). Which responses come from rho: B's under the
    alternative with probability eps each (gamma = (1 - eps) beta + eps rho), A's and B's under the null with
    probability eps/2 each (a fair coin between beta and gamma); so per machine c ~ Binomial(K, eps or eps/2)
    responses go to the rho urn and K - c to the beta urn that gold also draws from.
    """
    m = alpha.size
    a0 = float(alpha.sum())
    cum_dtype = np.int8 if k <= 127 else np.int64
    cum_g, cum_a, cum_b = (np.zeros((m - 1, size), dtype=cum_dtype) for _ in range(3))
    thr = _urn_thresholds(np.cumsum(alpha)[: m - 1], size)
    _urn_draws(rng, thr, a0, k, cum_g)  # gold: K draws from beta
    p_rho = 0.5 * eps if null else eps
    rho_a = rng.binomial(k, p_rho, size) if null else np.zeros(size, dtype=np.int64)
    rho_b = rng.binomial(k, p_rho, size)
    _urn_draws(rng, thr, a0 + k, k, cum_a, k - rho_a if null else None)  # A's responses from beta
    _urn_draws(rng, thr, a0 + 2 * k - rho_a, k, cum_b, k - rho_b)  # B's responses from beta
    idx = np.flatnonzero(rho_a + rho_b)  # items with a response from rho: only they need the rho urn
    if idx.size:
        dense = idx.size * 3 > size  # most items: work on all of them (masked) rather than gather and scatter
        ra, rb = (rho_a, rho_b) if dense else (rho_a[idx], rho_b[idx])
        thr_r = _urn_thresholds(np.arange(1, m) / m, ra.size)
        for machine, before, count in ((cum_a, 1.0, ra), (cum_b, 1.0 + ra, rb)):
            if machine is cum_a and not null:
                continue  # under the alternative only B draws from rho
            drawn = machine if dense else np.zeros((m - 1, ra.size), dtype=cum_dtype)
            _urn_draws(rng, thr_r, before, int(count.max()), drawn, count)
            if not dense:
                machine[:, idx] += drawn
    return _cumulative_to_counts(cum_g, k), _cumulative_to_counts(cum_a, k), _cumulative_to_counts(cum_b, k)


def _dirichlet_dataset(
    rng: np.random.Generator, alpha: np.ndarray, eps: float, size: int, k: int, null: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold, A and B counts (M, size) from explicit draws of beta, rho and gamma (the spec step by step)."""
    beta = draw_dirichlet(rng, alpha, (size,))
    rho = draw_noise(rng, alpha.size, (size,))
    if null:
        rho *= 0.5 * eps  # the mixture (beta + gamma) / 2 = (1 - eps/2) beta + (eps/2) rho
        rho += (1.0 - 0.5 * eps) * beta
        (gold,) = _draw_counts_many(rng, beta, k, 1)
        a, b = _draw_counts_many(rng, rho, k, 2)
        return gold, a, b
    rho *= eps  # gamma = (1 - eps) beta + eps rho
    rho += (1.0 - eps) * beta
    gold, a = _draw_counts_many(rng, beta, k, 2)
    (b,) = _draw_counts_many(rng, rho, k, 1)
    return gold, a, b


def urn_max_k(m: int) -> int:
    """Largest K drawn by the Polya-urn sampler for M categories (measured break-even; larger K: Dirichlet draws).

    A fixed function of (K, M): which sampler runs never depends on the seed or the number of workers.

    >>> urn_max_k(2), urn_max_k(3), urn_max_k(12)
    (1, 16, 20)
    """
    return next(k for top, k in _URN_MAX_K if m <= top)


def simulate_counts(
    alpha: Sequence[float],
    eps: float,
    n: int,
    k: int,
    rounds: int,
    seed: int | np.random.Generator,
    hypothesis: str = "alternative",
    sampler: str = "auto",
) -> SimCounts:
    """Draw ``rounds`` datasets of N items x K responses (gold, A, B) as counts, single-threaded.

    ``hypothesis``: "alternative" (A is the ideal machine, B is pulled towards noise by eps) or "null".
    ``sampler``: "auto", "urn" or "dirichlet" (see ``_draw_dataset``; same distribution).
    Reference: spec "Generative model" / "Null hypothesis".

    >>> s = simulate_counts((1.0, 1.0), 0.3, n=4, k=3, rounds=2, seed=0)
    >>> s.gold.shape, int(s.gold.sum(axis=-1).max())
    ((2, 4, 2), 3)
    """
    a = np.asarray(validate_alpha(alpha))
    _check(eps, n, k, rounds)
    if hypothesis not in ("alternative", "null"):
        raise DataError(f"hypothesis must be 'alternative' or 'null', got {hypothesis!r}")
    _check_sampler(sampler, int(k), a.size)
    limits.check("rounds", rounds, "the request")
    limits.check_memory(
        int(rounds) * int(n) * a.size * (TASK_BYTES_PER_CELL + 3 * 8), "the simulated counts (rounds x items x labels)"
    )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(as_entropy(seed))
    drawn = _draw_dataset(rng, a, eps, n, k, rounds, hypothesis == "null", sampler)
    gold, ma, mb = (np.moveaxis(x, 0, -1).astype(np.int64) for x in drawn)
    return SimCounts(gold, ma, mb, k, hypothesis)


def _check_sampler(sampler: str, k: int | None = None, m: int | None = None) -> None:
    if sampler not in SAMPLERS:
        raise DataError(f"sampler must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
    if sampler == "types" and k is not None and m is not None and not outcomes.law_fits(k, m):
        raise DataError(f"the exact outcome law of K = {k}, M = {m} is too large: use another sampler")


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
    rng: np.random.Generator,
    alpha: np.ndarray,
    eps: float,
    n: int,
    k: int,
    rounds: int,
    null: bool,
    sampler: str = "auto",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold, A and B counts, category-major (M, rounds, N), in a fixed order of draws (reproducible).

    ``sampler``: "urn" (beta and rho integrated out), "dirichlet" (explicit beta, rho, gamma), "types" (each
    item's outcome drawn from its exact law, ``nkcore.nk.outcomes``) or "auto" (the urn for
    K <= ``urn_max_k(M)``, else Dirichlet): the same distribution either way (tested against the spec's
    response-level transcription), only the speed differs.
    """
    if sampler == "types":
        law = outcomes.outcome_law(alpha, eps, k, null)
        idx = outcomes.draw_item_types(rng, law, n, rounds)
        gold, a, b = (np.moveaxis(x[idx], -1, 0) for x in (law.gold, law.a, law.b))
        return gold, a, b
    use_urn = k <= urn_max_k(alpha.size) if sampler == "auto" else sampler == "urn"
    draw = _urn_dataset if use_urn else _dirichlet_dataset
    counts = draw(rng, alpha, float(eps), rounds * n, k, null)
    return tuple(c.reshape(c.shape[0], rounds, n) for c in counts)  # type: ignore[return-value]


def _round_cost(n: int, k: int, m: int, sampler: str) -> int:
    """Array cells one round of a cell touches: outcome types (types path), else items x categories."""
    return outcomes.n_types(k, m) if _types_for(n, k, m, sampler) else n * m


def _chunks(n: int, k: int, m: int, rounds: int, sampler: str = "auto") -> list[tuple[int, int]]:
    """Fixed chunks of rounds for a cell: a function of (N, K, M, rounds, sampler), never of the worker count."""
    per = max(1, min(rounds, _CHUNK_CELLS // _round_cost(n, k, m, sampler)))
    return [(s, min(per, rounds - s)) for s in range(0, rounds, per)]


def _task(
    entropy: int,
    alpha: np.ndarray,
    eps: float,
    n: int,
    k: int,
    side: int,
    chunk: int,
    size: int,
    sampler: str,
    metrics: tuple,
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(n, k, side, chunk)))
    if _types_for(n, k, alpha.size, sampler):  # whole datasets as counts of outcome types: exact, and cheaper
        law = outcomes.outcome_law(alpha, eps, k, side == NULL)
        return outcomes.type_gaps(law, outcomes.draw_type_counts(rng, law, n, size), n, metrics)
    gold, a, b = _draw_dataset(rng, alpha, eps, n, k, size, side == NULL, sampler)
    return gaps_from_counts_cm(gold, a, b, k, metrics)


def _types_for(n: int, k: int, m: int, sampler: str) -> bool:
    """Draw datasets as counts of outcome types? "auto": when ``outcomes.use_types``; "types": always."""
    return sampler == "types" or (sampler == "auto" and outcomes.use_types(n, k, m))


def simulate_gaps(
    alpha: Sequence[float],
    eps: float,
    cells: Sequence[tuple[int, int]],
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    metrics: Sequence[str] = PAPER_METRICS,
    workers: int | None = None,
    progress: Callable[[float], None] | None = None,
    sampler: str = "auto",
) -> list[GapSamples]:
    """Alternative and null score gaps for every (N, K) cell, ``rounds`` datasets each, on worker threads.

    The same (seed, N, K) always gives the same numbers, whatever ``workers`` and whatever other cells are
    computed alongside. A request over the limits (``check_request``: rounds, configurations, budget, work,
    memory) raises ``DataError`` before any draw. ``progress`` (optional) receives the done fraction in [0, 1]. ``sampler``: "auto",
    "urn" or "dirichlet" (same distribution; "auto" picks the faster one for each K).
    Reference: spec "p-value, effect size, interval" (R alternative and R null datasets).
    """
    _check_sampler(sampler)
    a = np.asarray(validate_alpha(alpha))
    metrics = tuple(metrics)
    entropy = as_entropy(seed)
    cells = [(int(n), int(k)) for n, k in cells]
    for n, k in cells:
        _check(eps, n, k, rounds)
        _check_sampler(sampler, k, a.size)
    workers = default_workers() if workers is None else min(max(1, int(workers)), 64)
    check_request(cells, a.size, int(rounds), len(metrics), workers, sampler)
    tasks = []
    for ci, (n, k) in enumerate(cells):
        for side in (ALT, NULL):
            per_round = _round_cost(n, k, a.size, sampler) * (k + _DIRICHLET_COST)
            for chunk, (start, size) in enumerate(_chunks(n, k, a.size, rounds, sampler)):
                work = size * per_round  # rough cost: orders the tasks, paces the progress
                tasks.append((ci, side, start, size, work, (entropy, a, float(eps), n, k, side, chunk, size, sampler)))
    results: dict[tuple[int, int, int], dict[str, np.ndarray]] = {}
    total = float(sum(t[4] for t in tasks)) or 1.0
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
            parts = [results[(ci, side, start)] for start, _ in _chunks(n, k, a.size, rounds, sampler)]
            sides.append({mt: np.concatenate([p[mt] for p in parts]) for mt in metrics})
        out.append(GapSamples(n, k, sides[0], sides[1]))
    return out
