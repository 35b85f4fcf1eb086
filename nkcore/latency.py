"""Tail latency of fanning out samples per request (n): max-of-n quantiles, adaptive top-up, stalls, queueing.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``), "Putting the other costs on the same table": when a request waits
for all n samples its latency is the maximum of n single-call draws, and the q-quantile of that maximum is the
single-call quantile at q^(1/n) (p95 of n=3 is the single-call 98.3rd percentile; n=7: 99.3rd). The identity
assumes independent branches with one common distribution; branches that queue behind a few concurrent slots
break it (see :func:`queued_fanout`).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import optimize, stats

from nkcore.common import limits
from nkcore.common.rows import rows_where
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.kinds import show_names

__all__ = [
    "MAX_N",
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

_Z95 = float(stats.norm.ppf(0.95))
MAX_N = 1000  # samples per request (n) beyond this are a typo, not a plan (as for the vote curve's samples per case)
_U_POINTS = 1 << 14  # midpoints in u of the adaptive rule's convolution integral
_MAX_S = sys.float_info.max  # the largest latency a double holds; beyond it a quantile is inf


def _check_n(n: float, what: str = "samples per request n") -> None:
    if not 1 <= n <= MAX_N:
        raise DataError(f"{what} must be between 1 and {MAX_N}, got {n}")


@dataclass(frozen=True, slots=True)
class LatencyModel:
    """Single-call latency distribution (seconds).

    ``kind`` "lognormal": log latency ~ Normal(mu, sigma). ``kind`` "empirical": the observed latencies
    (sorted), read through the linear-interpolation quantile function (numpy's default, Hyndman-Fan type 7), so
    quantile(q) = np.quantile(values, q) and draws are inverse-transform draws from that continuous distribution.
    """

    kind: Literal["empirical", "lognormal"]
    mu: float = math.nan
    sigma: float = math.nan
    values: tuple[float, ...] = ()

    def quantile(self, q: float | np.ndarray) -> np.ndarray:
        """Single-call q-quantile (seconds); inf where a lognormal quantile is beyond the largest double (1.8e308)."""
        q = np.asarray(q, dtype=float)
        if self.kind == "lognormal":
            with np.errstate(over="ignore"):  # exp overflows to inf exactly when the quantile exceeds 1.8e308 s
                return np.exp(self.mu + self.sigma * stats.norm.ppf(q))
        v = np.asarray(self.values)
        # type 7 on sorted values: linear interpolation between v[k] at probability k / (len - 1)
        return np.interp(np.clip(q, 0.0, 1.0), np.linspace(0.0, 1.0, len(v)), v)

    def cdf(self, x: float | np.ndarray) -> np.ndarray:
        """Single-call P(latency <= x)."""
        x = np.asarray(x, dtype=float)
        if self.kind == "lognormal":
            with np.errstate(divide="ignore"):
                return stats.norm.cdf((np.log(np.maximum(x, 1e-300)) - self.mu) / self.sigma) * (x > 0)
        v = np.asarray(self.values)
        probs = np.linspace(0.0, 1.0, len(v))
        uniq, last = np.unique(v[::-1], return_index=True)
        p_at = probs[len(v) - 1 - last]  # the largest probability at each distinct value
        return np.interp(x, uniq, p_at, left=0.0, right=1.0)

    def sample(self, size: int | tuple[int, ...], seed: int | np.random.Generator = 0) -> np.ndarray:
        """Seeded single-call draws (inverse transform)."""
        rng = as_generator(seed)
        if self.kind == "lognormal":
            with np.errstate(over="ignore"):  # a draw beyond 1.8e308 s is inf, as in quantile
                return np.exp(self.mu + self.sigma * rng.standard_normal(size))
        return self.quantile(rng.random(size))


MIN_TYPED_S = 1e-6
"""Smallest typed latency taken (a microsecond)."""
MAX_TYPED_S = 86_400.0
"""Largest typed latency taken (a day)."""
MAX_P95_OVER_P50 = 1000.0
"""Largest p95 / p50 ratio of typed latencies (sigma = ln 1000 / 1.645 = 4.2: p99 is then 17.5 times p95; real
tails reach p95 = 150 p50)."""


def lognormal_from_p50_p95(p50_s: float, p95_s: float) -> LatencyModel:
    """Lognormal single-call latency with the typed median and 95th percentile.

    mu = ln p50, sigma = (ln p95 - ln p50) / z_0.95 (z_0.95 = 1.645).

    >>> m = lognormal_from_p50_p95(1.9, 4.6); round(float(m.quantile(0.5)), 2), round(float(m.quantile(0.95)), 2)
    (1.9, 4.6)
    """
    if not math.isfinite(p50_s) or p50_s <= 0:
        raise DataError(f"p50 must be a positive number of seconds, got {p50_s}")
    if not math.isfinite(p95_s):
        raise DataError(f"p95 must be a finite number of seconds, got {p95_s}")
    if p95_s <= p50_s:
        raise DataError(f"p95 ({p95_s} s) must be larger than p50 ({p50_s} s)")
    if not (MIN_TYPED_S <= p50_s and p95_s <= MAX_TYPED_S):
        raise DataError(
            f"typed latencies must lie between {MIN_TYPED_S:g} s and {MAX_TYPED_S:,.0f} s (a day); got p50 {p50_s:g} s, "
            f"p95 {p95_s:g} s"
        )
    if p95_s / p50_s > MAX_P95_OVER_P50:
        raise DataError(
            f"p95 is {p95_s / p50_s:,.0f} times p50; at most {MAX_P95_OVER_P50:,.0f} times is taken (beyond it the "
            "lognormal's tail, and so p99 and every fan-out percentile, is meaningless): measure the latencies instead"
        )
    mu = math.log(p50_s)
    return LatencyModel(kind="lognormal", mu=mu, sigma=(math.log(p95_s) - mu) / _Z95)


def empirical_model(latencies: np.ndarray | list[float] | tuple[float, ...]) -> LatencyModel:
    """Empirical single-call latency from observed per-call seconds (at least 20 values, all >= 0).

    >>> round(float(empirical_model(list(range(1, 101))).quantile(0.5)), 2)
    50.5
    """
    v = np.asarray(latencies, dtype=float).ravel()
    v = v[~np.isnan(v)]
    if len(v) < 20:
        raise DataError(f"an empirical latency distribution needs at least 20 latencies, got {len(v)}")
    bad = ~np.isfinite(v) | (v < 0)
    if bad.any():
        raise DataError(
            f"latencies must be finite, non-negative seconds; {int(bad.sum())} are not (the first: {v[bad][0]:g})"
        )
    return LatencyModel(kind="empirical", values=tuple(float(x) for x in np.sort(v)))


def latency_model_from_frame(frame: pd.DataFrame) -> LatencyModel:
    """Empirical model from a samples table with ``latency_s`` or a one-column table of latencies (seconds)."""
    cols = [str(c).strip().lower() for c in frame.columns]
    if "latency_s" in cols:
        col = frame.columns[cols.index("latency_s")]
    elif frame.shape[1] == 1:
        col = frame.columns[0]
    else:
        raise DataError(
            f"no latency_s column: give a samples table with latency_s or a one-column file of latencies "
            f"(found columns {show_names(frame.columns)})"
        )
    values = pd.to_numeric(frame[col], errors="coerce").reset_index(drop=True)
    if values.isna().any():
        raise DataError(
            f"latencies must be numbers (seconds); bad or missing values in column '{col}', "
            f"{rows_where(values.isna().to_numpy(), limit=5)}"
        )
    return empirical_model(values.to_numpy())


def model_from_inputs(
    frame: pd.DataFrame | None, latency: str = "data", p50_s: float | None = None, p95_s: float | None = None
) -> LatencyModel:
    """The single-call model a page or CLI asked for: ``latency`` "data" (the frame's latencies, empirical) or
    "lognormal" (fitted to ``p50_s`` and ``p95_s``)."""
    if latency == "data":
        if frame is None:
            raise DataError("latency from data needs a table with latency_s")
        return latency_model_from_frame(frame)
    if latency == "lognormal":
        if p50_s is None or p95_s is None:
            raise DataError("a lognormal latency needs both p50 and p95 (seconds)")
        return lognormal_from_p50_p95(p50_s, p95_s)
    raise DataError(f"latency must be 'data' or 'lognormal', got {latency!r}")


def fanout_quantile(model: LatencyModel, n: float, q: float | np.ndarray) -> np.ndarray:
    """q-quantile of the slowest of n independent calls: the single-call quantile at q^(1/n).

    Reference: the chapter (F^n = q, so F = q^(1/n)); p95 at n=3 reads the single-call 98.3rd percentile.

    >>> round(0.95 ** (1 / 3), 3), round(0.95 ** (1 / 7), 3)
    (0.983, 0.993)
    """
    _check_n(n)
    return model.quantile(np.asarray(q, dtype=float) ** (1.0 / n))


def _check_rule(n0: int, m: int, share: float) -> None:
    if not 0.0 <= share <= 1.0:
        raise DataError(f"the share that tops up must be in [0, 1], got {share}")
    if n0 < 1 or m < 1:
        raise DataError(f"the adaptive rule needs n0 >= 1 and m >= 1, got {n0}+{m}")
    _check_n(n0 + m, "the adaptive rule's n0 + m")


def _sum_cdf(model: LatencyModel, n0: int, m: int, x: float, points: int = _U_POINTS) -> float:
    """P(T1 + T2 <= x), T1 the slowest of n0 calls, T2 the slowest of m more drawn after them.

    = integral_0^G1(x) F(x - Q1(u))^m du with G1 = F^n0 and Q1(u) = Q(u^(1/n0)) (T1 = Q1(U), U uniform; for
    u > G1(x) the first fan-out alone exceeds x). Midpoint rule in u on (0, G1(x)): the integrand is monotone and
    bounded, so the rule needs no latency grid and works for any scale or tail (heavy lognormals, stalls).
    """
    if x == math.inf:
        return 1.0
    g1 = float(model.cdf(x)) ** n0
    if g1 <= 0.0:
        return 0.0
    u = g1 * (np.arange(points) + 0.5) / points
    t = model.quantile(u ** (1.0 / n0))
    return g1 * float(np.mean(model.cdf(x - t) ** m))


def adaptive_cdf(model: LatencyModel, n0: int, m: int, share: float, x: float | np.ndarray) -> np.ndarray:
    """CDF of the adaptive rule's latency: the slowest of n0 calls, plus (for ``share`` of requests) the slowest
    of m more, drawn in sequence after the first fan-out.

    P(T <= x) = (1 - s) F(x)^n0 + s * P(T1 + T2 <= x), with P(T1 + T2 <= x) = integral F^m(x - t) dF^n0(t)
    evaluated in probability space (:func:`_sum_cdf`). Reference: the chapter ("the 19% that top up pay two
    fan-outs in sequence").

    >>> m = lognormal_from_p50_p95(1.9, 4.6)
    >>> float(adaptive_cdf(m, 3, 2, 0.0, 5.0)) == float(m.cdf(5.0)) ** 3
    True
    """
    _check_rule(n0, m, share)
    xs = np.atleast_1d(np.asarray(x, dtype=float))
    out = np.array([(1.0 - share) * float(model.cdf(v)) ** n0 + share * _sum_cdf(model, n0, m, v) for v in xs])
    return out.reshape(np.shape(x))


def adaptive_quantile(model: LatencyModel, n0: int, m: int, share: float, q: float | np.ndarray) -> np.ndarray:
    """q-quantile of the adaptive rule's latency: the root of :func:`adaptive_cdf` = q (Brent's method).

    Bracket: T >= T1 gives the flat-n0 quantile Q1(q) as a lower end; P(T1 + T2 <= a + b) >= G1(a) G2(b) gives
    Q1(sqrt q) + Q2(sqrt q) as an upper end. share = 0 is flat n0 exactly. A quantile beyond the largest double
    (1.8e308 s, a lognormal with an absurd spread) is inf, as in :meth:`LatencyModel.quantile`.
    """
    _check_rule(n0, m, share)
    qs = np.atleast_1d(np.asarray(q, dtype=float))
    if ((qs <= 0) | (qs >= 1)).any():
        raise DataError(f"quantiles must be strictly between 0 and 1, got {q}")
    out = []
    for qi in qs:
        lo = float(fanout_quantile(model, n0, qi))
        if share == 0.0 or lo == math.inf:
            out.append(lo)
            continue
        hi = min(
            float(fanout_quantile(model, n0, math.sqrt(qi))) + float(fanout_quantile(model, m, math.sqrt(qi))), _MAX_S
        )

        def f(x: float, qi: float = qi) -> float:
            return float(adaptive_cdf(model, n0, m, share, x)) - qi

        while f(hi) < 0 and hi < _MAX_S:  # the bound holds exactly; this only guards the quadrature's last digits
            hi = min(hi * 1.5, _MAX_S)
        if f(hi) < 0:  # beyond the largest double
            out.append(math.inf)
            continue
        out.append(lo if f(lo) >= 0 else optimize.brentq(f, lo, hi, xtol=1e-9 * hi, rtol=1e-10))
    return np.array(out).reshape(np.shape(q))


@dataclass(frozen=True, slots=True)
class FanoutRow:
    """Latency of one row: flat n (``label`` "n=3") or the adaptive rule (``label`` "3+2", ``topup_share``)."""

    label: str
    n: int | str
    calls: float
    p50: float
    p95: float
    p99: float
    adaptive: bool
    topup_share: float


def fanout_rows(
    model: LatencyModel, ns: tuple[int, ...], adaptive: tuple[int, int, float] | None = None
) -> tuple[FanoutRow, ...]:
    """p50 / p95 / p99 for each flat n and, optionally, the adaptive rule (n0, m, share that tops up)."""
    rows = []
    for n in ns:
        q = fanout_quantile(model, int(n), np.array([0.5, 0.95, 0.99]))
        p50, p95, p99 = (float(v) for v in q)
        rows.append(FanoutRow(f"n={n}", int(n), float(n), p50, p95, p99, adaptive=False, topup_share=0.0))
    if adaptive is not None:
        n0, m, share = adaptive
        q = adaptive_quantile(model, n0, m, share, np.array([0.5, 0.95, 0.99]))
        p50, p95, p99 = (float(v) for v in q)
        rows.append(
            FanoutRow(f"{n0}+{m}", f"{n0}+{m}", n0 + m * share, p50, p95, p99, adaptive=True, topup_share=float(share))
        )
    return tuple(rows)


def simulate_fanout(
    model: LatencyModel,
    n: int,
    draws: int = 1_000_000,
    seed: int | np.random.Generator = 0,
    topup: tuple[int, float] | None = None,
) -> np.ndarray:
    """Seeded simulated request latencies: the max of n single-call draws (plus, for a share, the max of m more).

    ``topup`` = (m, share). A check of :func:`fanout_quantile` and :func:`adaptive_quantile`, not used by them.
    """
    limits.check_memory(8 * draws * 5, "the fan-out simulation")
    rng = as_generator(seed)

    def slowest(k: int) -> np.ndarray:
        out = np.zeros(draws)
        for _ in range(k):
            np.maximum(out, model.sample(draws, rng), out=out)
        return out

    t = slowest(n)
    if topup is not None:
        m, share = topup
        t = t + np.where(rng.random(draws) < share, slowest(m), 0.0)
    return t


@dataclass(frozen=True, slots=True)
class StallExposure:
    """How often a rare stall is hit: per call ``per_call``, per request of n branches ``per_request``."""

    n: int
    per_call: float
    per_request: float
    times_as_often: float


def stall_exposure(per_call: float, n: int) -> StallExposure:
    """P(a request of n branches hits a stall) = 1 - (1 - s)^n against s at n = 1 (about n times as often).

    >>> round(stall_exposure(1 / 3600, 7).times_as_often, 2)
    6.99
    """
    if not 0.0 < per_call < 1.0:
        raise DataError(f"the stall share per call must be in (0, 1), got {per_call}")
    _check_n(n)
    per_request = 1.0 - (1.0 - per_call) ** n
    return StallExposure(n=int(n), per_call=per_call, per_request=per_request, times_as_often=per_request / per_call)


def stall_hits_per_hour(n: int, requests_per_hour: float, hits_per_hour_at_1: float = 1.0) -> float:
    """Stalls seen per hour at n when a flat n = 1 deployment sees ``hits_per_hour_at_1`` (s = hits / requests).

    >>> round(stall_hits_per_hour(7, 3600), 2)
    6.99
    """
    if requests_per_hour <= hits_per_hour_at_1 or hits_per_hour_at_1 <= 0:
        raise DataError("requests per hour must exceed the stalls per hour at n = 1 (both positive)")
    return requests_per_hour * stall_exposure(hits_per_hour_at_1 / requests_per_hour, n).per_request


def stall_table(per_call: float, ns: tuple[int, ...]) -> tuple[StallExposure, ...]:
    """:func:`stall_exposure` at every n in ``ns``."""
    return tuple(stall_exposure(per_call, int(n)) for n in ns)


def stall_sentence(e: StallExposure) -> str:
    """Plain-language reading of :class:`StallExposure`."""
    return (
        f"A stall you see once in {1 / e.per_call:,.0f} calls at samples per request n = 1 hits "
        f"{e.per_request:.3%} of requests at n = {e.n}: {e.times_as_often:.1f} times as often, because a request "
        "waits for its slowest branch."
    )


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
    _check_n(n)
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
