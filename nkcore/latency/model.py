"""A single call's latency distribution (seconds): lognormal from a typed p50 and p95, or the observed latencies.

The cap on samples per request (:data:`MAX_N`) and its check are here too, shared by the fan-out, stall and queue
modules of :mod:`nkcore.latency`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from nkcore.common.rows import rows_where
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.kinds import show_names

__all__ = [
    "MAX_N",
    "MAX_P95_OVER_P50",
    "MAX_TYPED_S",
    "MIN_TYPED_S",
    "LatencyModel",
    "check_n",
    "empirical_model",
    "latency_model_from_frame",
    "lognormal_from_p50_p95",
    "model_from_inputs",
]

_Z95 = float(stats.norm.ppf(0.95))
MAX_N = 1000  # samples per request (n) beyond this are a typo, not a plan (as for the vote curve's samples per case)


def check_n(n: float, what: str = "samples per request n") -> None:
    """Raise DataError unless 1 <= n <= :data:`MAX_N` (samples per request, or the adaptive rule's n0 + m)."""
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
