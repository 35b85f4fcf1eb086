"""Tail latency of fanning out samples per request (n): max-of-n quantiles, adaptive top-up, stalls, queueing.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``), "Putting the other costs on the same table": when a request waits
for all n samples its latency is the maximum of n single-call draws, and the q-quantile of that maximum is the
single-call quantile at q^(1/n) (p95 of n=3 is the single-call 98.3rd percentile; n=7: 99.3rd). The identity
assumes independent branches with one common distribution; branches that queue behind a few concurrent slots
break it (see :func:`queued_fanout`).

Modules, one idea each:
- ``model``     a single call's latency: lognormal from a typed p50 and p95, or the observed latencies; MAX_N
- ``fanout``    the slowest of n calls (the max-of-n identity), the adaptive rule's two fan-outs, fan-out rows
- ``stalls``    how often a request of n branches hits a rare stall
- ``queueing``  branches queued behind a few concurrent slots, against the max-of-n identity
"""

from __future__ import annotations

from nkcore.latency.fanout import (
    FanoutRow,
    adaptive_cdf,
    adaptive_quantile,
    fanout_quantile,
    fanout_rows,
    simulate_fanout,
)
from nkcore.latency.model import (
    MAX_N,
    MAX_P95_OVER_P50,
    MAX_TYPED_S,
    MIN_TYPED_S,
    LatencyModel,
    empirical_model,
    latency_model_from_frame,
    lognormal_from_p50_p95,
    model_from_inputs,
)
from nkcore.latency.queueing import QueuedFanout, queue_sentence, queued_fanout, queued_fanout_from_frame
from nkcore.latency.stalls import StallExposure, stall_exposure, stall_hits_per_hour, stall_sentence, stall_table

__all__ = [
    "MAX_N",
    "MAX_P95_OVER_P50",
    "MAX_TYPED_S",
    "MIN_TYPED_S",
    "FanoutRow",
    "LatencyModel",
    "QueuedFanout",
    "StallExposure",
    "adaptive_cdf",
    "adaptive_quantile",
    "empirical_model",
    "fanout_quantile",
    "fanout_rows",
    "latency_model_from_frame",
    "lognormal_from_p50_p95",
    "model_from_inputs",
    "queue_sentence",
    "queued_fanout",
    "queued_fanout_from_frame",
    "simulate_fanout",
    "stall_exposure",
    "stall_hits_per_hour",
    "stall_sentence",
    "stall_table",
]
