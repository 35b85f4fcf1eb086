"""The simulation driver: alternative and null score gaps of many (N, K) cells, in reproducible chunks on threads.

For each cell, ``rounds`` datasets are drawn under the alternative and ``rounds`` under the null (independently)
by the exact samplers of ``nkcore.nk.samplers`` (spec "Generative model" / "Null hypothesis"), and each
dataset's score gaps come from the integer kernel ``nkcore.nk.count_gaps``. Rounds are vectorised; work is cut
into chunks of rounds whose seeds come from ``SeedSequence(seed, spawn_key=(N, K, side, chunk))``, so results do
not depend on the number of worker threads (numpy's generators and ufuncs release the GIL, so threads use both
cores). Every request is checked against ``nkcore.common.limits`` (rounds, configurations, budget, work, memory)
before any draw.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from nkcore.common import limits
from nkcore.common.seeding import as_entropy
from nkcore.errors import DataError
from nkcore.nk import outcomes
from nkcore.nk.count_gaps import gaps_from_counts_cm
from nkcore.nk.metrics import PAPER_METRICS
from nkcore.nk.priors import validate_prior
from nkcore.nk.samplers import SAMPLERS, draw_dataset

ALT, NULL = 0, 1
_CHUNK_CELLS = 1 << 19  # cells (items x categories, or outcome types) x rounds per chunk: few Python calls
_DIRICHLET_COST = 8  # a Dirichlet draw per item costs about as much as this many responses (task ordering only)


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
cumulative counts, the three machines' counts and the metrics' temporaries (tracemalloc, rounded up: docs/benchmarks.md)."""
TASK_BYTES_PER_TYPE = 32
"""Bytes one task of the outcome-types sampler holds per (round, outcome type): the multinomial counts and sums."""


def draw_work(n: int, k: int, m: int, rounds: int, sampler: str = "auto") -> int:
    """The work of one cell, both sides: what ``limits`` calls ``sim_work`` (category draws).

    Formula: 2 (alternative and null) x rounds x per-round cost, the per-round cost being 3 machines (gold, A, B)
    x N items x M labels x min(K, 40) for the item samplers, or 10 x the T outcome types for the types sampler
    (one multinomial over T cells per round, about 10 draws' cost per type: docs/benchmarks.md). The same formula bounds
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


def simulate_counts(
    prior: Sequence[float],
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
    ``sampler``: "auto", "urn" or "dirichlet" (see ``samplers.draw_dataset``; same distribution).
    Reference: spec "Generative model" / "Null hypothesis".

    >>> s = simulate_counts((1.0, 1.0), 0.3, n=4, k=3, rounds=2, seed=0)
    >>> s.gold.shape, int(s.gold.sum(axis=-1).max())
    ((2, 4, 2), 3)
    """
    a = np.asarray(validate_prior(prior))
    _check(eps, n, k, rounds)
    if hypothesis not in ("alternative", "null"):
        raise DataError(f"hypothesis must be 'alternative' or 'null', got {hypothesis!r}")
    _check_sampler(sampler, int(k), a.size)
    limits.check("rounds", rounds, "the request")
    limits.check_memory(
        int(rounds) * int(n) * a.size * (TASK_BYTES_PER_CELL + 3 * 8), "the simulated counts (rounds x items x labels)"
    )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(as_entropy(seed))
    drawn = draw_dataset(rng, a, eps, n, k, rounds, hypothesis == "null", sampler)
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


def _round_cost(n: int, k: int, m: int, sampler: str) -> int:
    """Array cells one round of a cell touches: outcome types (types path), else items x categories."""
    return outcomes.n_types(k, m) if _types_for(n, k, m, sampler) else n * m


def _chunks(n: int, k: int, m: int, rounds: int, sampler: str = "auto") -> list[tuple[int, int]]:
    """Fixed chunks of rounds for a cell: a function of (N, K, M, rounds, sampler), never of the worker count."""
    per = max(1, min(rounds, _CHUNK_CELLS // _round_cost(n, k, m, sampler)))
    return [(s, min(per, rounds - s)) for s in range(0, rounds, per)]


def _task(
    entropy: int,
    prior: np.ndarray,
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
    if _types_for(n, k, prior.size, sampler):  # whole datasets as counts of outcome types: exact, and cheaper
        law = outcomes.outcome_law(prior, eps, k, side == NULL)
        return outcomes.type_gaps(law, outcomes.draw_type_counts(rng, law, n, size), n, metrics)
    gold, a, b = draw_dataset(rng, prior, eps, n, k, size, side == NULL, sampler)
    return gaps_from_counts_cm(gold, a, b, k, metrics)


def _types_for(n: int, k: int, m: int, sampler: str) -> bool:
    """Draw datasets as counts of outcome types? "auto": when ``outcomes.use_types``; "types": always."""
    return sampler == "types" or (sampler == "auto" and outcomes.use_types(n, k, m))


def simulate_gaps(
    prior: Sequence[float],
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
    memory) raises ``DataError`` before any draw. ``progress`` (optional) receives the done fraction in [0, 1];
    an exception it raises stops the run (the tasks not yet started are cancelled) and propagates. ``sampler``:
    "auto", "types", "urn" or "dirichlet" (same distribution; "auto" picks the faster one for each cell).
    Reference: spec "p-value, effect size, interval" (R alternative and R null datasets).
    """
    _check_sampler(sampler)
    a = np.asarray(validate_prior(prior))
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
            futures: dict[int, Future[dict[str, np.ndarray]]] = {
                i: pool.submit(_task, *tasks[i][5], metrics) for i in order
            }
            done = 0.0
            try:
                for i in order:
                    ci, side, start, _, w, _ = tasks[i]
                    results[(ci, side, start)] = futures[i].result()
                    done += w
                    if progress is not None:
                        progress(done / total)
            except BaseException:
                # a failed task or a progress callback that stops the run (a cancelled page): the tasks not yet
                # started are dropped, so only the running ones finish before the cores are free
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    out: list[GapSamples] = []
    for ci, (n, k) in enumerate(cells):
        sides = []
        for side in (ALT, NULL):
            parts = [results[(ci, side, start)] for start, _ in _chunks(n, k, a.size, rounds, sampler)]
            sides.append({mt: np.concatenate([p[mt] for p in parts]) for mt in metrics})
        out.append(GapSamples(n, k, sides[0], sides[1]))
    return out
