"""Branches that queue behind a few concurrent slots: the request's latency becomes partly a sum, and the max-of-n
identity (:func:`nkcore.latency.fanout_quantile`) understates its tail (seeded simulation)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.latency.fanout import fanout_quantile
from nkcore.latency.model import LatencyModel, check_n, model_from_inputs

__all__ = ["QueuedFanout", "queue_sentence", "queued_fanout", "queued_fanout_from_frame"]


@dataclass(frozen=True, slots=True)
class QueuedFanout:
    """n branches sharing ``slots`` concurrent slots (simulated) against the independent-branch identity."""

    n: int
    slots: int
    p50: float
    p95: float
    p99: float
    identity_p50: float
    identity_p95: float
    identity_p99: float
    draws: int


def queued_fanout(
    model: LatencyModel, n: int, slots: int, draws: int = 200_000, seed: int | np.random.Generator = 0
) -> QueuedFanout:
    """Latency of n branches that queue behind ``slots`` concurrent slots (seeded simulation).

    Each branch starts when a slot frees (first come, first served) and the request ends with the last branch:
    the makespan of list scheduling. With slots >= n this is the max of n; with fewer, part of the latency is a
    sum, and the max-of-n identity understates the tail.
    """
    check_n(n)
    if slots < 1:
        raise DataError(f"need at least 1 concurrent slot, got {slots}")
    limits.check_memory(8 * draws * (min(slots, n) + 3), "the queue simulation")
    rng = as_generator(seed)
    free = np.zeros((draws, min(slots, n)))
    rows = np.arange(draws)
    for _ in range(n):
        k = free.argmin(axis=1)
        free[rows, k] += model.sample(draws, rng)
    t = free.max(axis=1)
    p50, p95, p99 = (float(v) for v in np.quantile(t, [0.5, 0.95, 0.99]))
    i50, i95, i99 = (float(v) for v in fanout_quantile(model, n, np.array([0.5, 0.95, 0.99])))
    return QueuedFanout(n, slots, p50, p95, p99, i50, i95, i99, draws)


def queued_fanout_from_frame(
    frame: pd.DataFrame | None,
    n: int,
    slots: int,
    latency: str = "data",
    p50_s: float | None = None,
    p95_s: float | None = None,
    draws: int = 200_000,
    seed: int = 0,
) -> QueuedFanout:
    """:func:`queued_fanout` with the single-call model of :func:`model_from_inputs` (an entry point for the cache)."""
    return queued_fanout(model_from_inputs(frame, latency, p50_s, p95_s), n, slots, draws, seed)


def queue_sentence(r: QueuedFanout) -> str:
    """Plain-language reading of :class:`QueuedFanout`."""
    if r.slots >= r.n:
        return (
            f"With {r.slots} concurrent slots all {r.n} branches run at once: p95 {r.p95:.1f} s, as the max-of-n "
            f"identity says ({r.identity_p95:.1f} s)."
        )
    return (
        f"With only {r.slots} concurrent slot(s) for {r.n} branches, branches wait for each other and p95 is "
        f"{r.p95:.1f} s (p99 {r.p99:.1f} s); the max-of-n identity says {r.identity_p95:.1f} s, so it understates "
        f"the tail by {r.p95 - r.identity_p95:.1f} s: the latency is then partly a sum, not a maximum."
    )
