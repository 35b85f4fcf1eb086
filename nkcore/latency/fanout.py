"""Tail latency of fanning out samples per request (n): max-of-n quantiles and the adaptive rule's top-up.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``), "Putting the other costs on the same table": when a request waits
for all n samples its latency is the maximum of n single-call draws, and the q-quantile of that maximum is the
single-call quantile at q^(1/n) (p95 of n=3 is the single-call 98.3rd percentile; n=7: 99.3rd). The identity
assumes independent branches with one common distribution; branches that queue behind a few concurrent slots
break it (see :func:`nkcore.latency.queueing.queued_fanout`).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from nkcore.common import limits
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.latency.model import LatencyModel, check_n

__all__ = [
    "FanoutRow",
    "adaptive_cdf",
    "adaptive_quantile",
    "fanout_quantile",
    "fanout_rows",
    "simulate_fanout",
]

_U_POINTS = 1 << 14  # midpoints in u of the adaptive rule's convolution integral
_MAX_S = sys.float_info.max  # the largest latency a double holds; beyond it a quantile is inf


def fanout_quantile(model: LatencyModel, n: float, q: float | np.ndarray) -> np.ndarray:
    """q-quantile of the slowest of n independent calls: the single-call quantile at q^(1/n).

    Reference: the chapter (F^n = q, so F = q^(1/n)); p95 at n=3 reads the single-call 98.3rd percentile.

    >>> round(0.95 ** (1 / 3), 3), round(0.95 ** (1 / 7), 3)
    (0.983, 0.993)
    """
    check_n(n)
    return model.quantile(np.asarray(q, dtype=float) ** (1.0 / n))


def _check_rule(n0: int, m: int, share: float) -> None:
    if not 0.0 <= share <= 1.0:
        raise DataError(f"the share that tops up must be in [0, 1], got {share}")
    if n0 < 1 or m < 1:
        raise DataError(f"the adaptive rule needs n0 >= 1 and m >= 1, got {n0}+{m}")
    check_n(n0 + m, "the adaptive rule's n0 + m")


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

    >>> from nkcore.latency.model import lognormal_from_p50_p95
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
