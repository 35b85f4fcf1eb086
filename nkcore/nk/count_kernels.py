"""The metrics' count kernels: one metric's per-item gap from integer counts, as exact integers times a scale.

Gold, A and B counts with the same K per item, CATEGORY-MAJOR (M, rounds, N), held by :class:`CountInputs`, which
keeps what several metrics share (the per-count lookup tables, the (gold, A, B) codes, TV's count differences,
the log tables' differences) so that asking many metrics at once costs little more than the costliest. Each
``*_units`` kernel returns (units, scale): gap_i = units_i / scale. The registry (``nkcore.nk.metrics``) names
them; ``nkcore.nk.count_gaps`` dispatches on it. Log-based metrics read per-count lookup tables instead of taking
a logarithm per cell. Same numbers as the float kernels (``nkcore.nk.score_kernels``) on the same counts (tested).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nkcore.common import limits
from nkcore.nk.score_kernels import JEFFREYS, KL_EPS, UNIT


@dataclass(frozen=True, slots=True)
class _Tables:
    """Per-count lookup tables for one (K, M): the log-based metrics become gathers instead of logs."""

    k: int
    m: int
    kl_p: np.ndarray  # (K+1,) (c + 1e-12) / (K + M 1e-12)
    kl_log: np.ndarray  # (K+1,) ln of the above
    js_p: np.ndarray  # (K+1,) (c + 1/2) / (K + M/2)
    js_log: np.ndarray  # (K+1,) ln of the above
    share: np.ndarray  # (K+1,) c / K
    jsd: np.ndarray | None  # ((K+1)^2,) per-cell JSD term T[g, a]


_TABLE_CACHE: dict[tuple[int, int, bool], _Tables] = {}


def tables(k: int, m: int, need_js: bool) -> _Tables:
    """The lookup tables of (K, M), cached (the Jensen-Shannon table only when ``need_js``)."""
    key = (k, m, need_js)
    t = _TABLE_CACHE.get(key)
    if t is not None:
        return t
    c = np.arange(k + 1, dtype=float)
    kl_p = (c + KL_EPS) / (k + m * KL_EPS)
    sm_p = (c + JEFFREYS) / (k + m * JEFFREYS)
    share = c / k
    jsd = None
    if need_js:
        limits.check_memory(6 * 8 * (k + 1) ** 2, f"the Jensen-Shannon table of K = {k:,}")
        g, a = share[:, None], share[None, :]
        mid = 0.5 * (g + a)
        with np.errstate(divide="ignore", invalid="ignore"):
            tg = np.where(g > 0, g * np.log(g / mid), 0.0)
            ta = np.where(a > 0, a * np.log(a / mid), 0.0)
        jsd = (0.5 * (tg + ta)).ravel()
    t = _Tables(k, m, kl_p, np.log(kl_p), sm_p, np.log(sm_p), share, jsd)
    if len(_TABLE_CACHE) > 512:
        _TABLE_CACHE.clear()
    _TABLE_CACHE[key] = t
    return t


# --- per-count weights of the KL family: gap of B less A = sum_m w(G_m) [ln q(A_m) - ln q(B_m)] ----------------


def kl_weights(k: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The paper's KL: w = q = (c + 1e-12) / (K + M 1e-12) per count c; and ln q."""
    c = np.arange(k + 1.0)
    q = (c + KL_EPS) / (k + m * KL_EPS)
    return q, np.log(q)


def kl_smooth_weights(k: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Smoothed KL: w = q = (c + 1/2) / (K + M / 2); and ln q."""
    c = np.arange(k + 1.0)
    sm = (c + JEFFREYS) / (k + m * JEFFREYS)
    return sm, np.log(sm)


def ce_weights(k: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Cross-entropy: w = c / K (gold's shares), q = (c + 1/2) / (K + M / 2); and ln q."""
    c = np.arange(k + 1.0)
    sm = (c + JEFFREYS) / (k + m * JEFFREYS)
    return c / k, np.log(sm)


_TRIPLE_CACHE: dict[tuple[int, int, str], tuple[np.ndarray, ...]] = {}


def plurality_cm(counts: np.ndarray) -> np.ndarray:
    """Plurality labels of category-major counts (M, ...), ties to the lowest index (same as ``plurality``).

    One running maximum of the key count x M + (M - 1 - m), unique per category, whose largest value names the
    plurality (the larger count, then the lower index): M - 1 - key mod M (about 3 times faster than tracking the
    label beside the count, and the arrays stay 2 bytes wide for int8 counts).

    >>> plurality_cm(np.array([[2, 0, 1], [2, 3, 1], [0, 0, 1]])).tolist()
    [0, 1, 0]
    """
    m = counts.shape[0]
    if m == 2:
        return (counts[1] > counts[0]).astype(np.int64)
    if counts.dtype.kind not in "iu":
        return np.argmax(counts, axis=0)
    wide = np.int16 if counts.dtype.itemsize == 1 else np.int32 if counts.dtype.itemsize == 2 else np.int64
    best = np.multiply(counts[0], m, dtype=wide)
    best += m - 1
    key = np.empty_like(best)
    for j in range(1, m):
        np.multiply(counts[j], m, out=key, dtype=wide)
        key += m - 1 - j
        np.maximum(best, key, out=best)
    return ((m - 1) - best % m).astype(np.int64)


class CountInputs:
    """Category-major counts (M, R, N) of gold, A and B with K per item, and the work the metrics share (memoised).

    ``coded``: the log metrics read one table per (gold, A, B) code of a category (codes
    (g (K + 1) + a) (K + 1) + b fit int16 up to K = ``coded_max_k``); else per-count tables with intp indices.
    """

    def __init__(self, gold: np.ndarray, a: np.ndarray, b: np.ndarray, k: int, coded_max_k: int) -> None:
        self.gold, self.a, self.b, self.k = gold, a, b, k
        self.m = gold.shape[0]
        self.tables = tables(k, self.m, False)
        self.coded = k <= coded_max_k and gold.dtype.kind in "iu"
        self._codes: list[np.ndarray] | None = None
        self._indices: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._diff: np.ndarray | None = None
        self._log_diffs: dict[str, list[np.ndarray]] = {}

    def jsd(self) -> np.ndarray:
        """The per-cell Jensen-Shannon table T[g, a], flat ((K + 1)^2,) (built once per (K, M))."""
        jsd = tables(self.k, self.m, True).jsd
        assert jsd is not None
        return jsd

    def codes(self) -> list[np.ndarray]:
        """Per category, the gather indices (g (K + 1) + a) (K + 1) + b (computed in int16)."""
        if self._codes is None:
            s = self.k + 1
            out = []
            for j in range(self.m):
                c = np.multiply(self.gold[j], s, dtype=np.int16)
                c += self.a[j]
                c *= s
                c += self.b[j]
                out.append(c.astype(np.intp))
            self._codes = out
        return self._codes

    def indices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The counts as intp gather indices (converted once: fancy indexing with int16 converts per gather)."""
        if self._indices is None:
            gi, ai, bi = (x.astype(np.intp) for x in (self.gold, self.a, self.b))
            self._indices = (gi, ai, bi)
        return self._indices

    def tv_diff(self) -> np.ndarray:
        """sum_m |B - G| - sum_m |A - G| in counts, per item (shared by TV and Wins)."""
        if self._diff is None:
            gold, a, b = self.gold, self.a, self.b
            wide = np.int32 if gold.dtype.itemsize < 4 else gold.dtype  # differences of int16 counts stay exact
            da = np.abs(a[0] - gold[0]).astype(wide)
            db = np.abs(b[0] - gold[0]).astype(wide)
            for j in range(1, self.m):
                da += np.abs(a[j] - gold[j])
                db += np.abs(b[j] - gold[j])
            self._diff = db - da
        return self._diff

    def log_diff(self, table: str) -> list[np.ndarray]:
        """Per category ln q(A) - ln q(B) from the per-count log table ``table`` ("kl" or "js")."""
        if table not in self._log_diffs:
            t = self.tables
            logq = t.kl_log if table == "kl" else t.js_log
            _, ai, bi = self.indices()
            self._log_diffs[table] = [np.take(logq, ai[j]) - np.take(logq, bi[j]) for j in range(self.m)]
        return self._log_diffs[table]

    def triple(self, name: str, make: Callable[[_Tables], tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
        """The (gold, A, B) code tables of a metric, cached per (K, M, metric): ``make(tables)``."""
        key = (self.k, self.m, name)
        got = _TRIPLE_CACHE.get(key)
        if got is None:
            got = make(self.tables)
            if len(_TRIPLE_CACHE) > 256:
                _TRIPLE_CACHE.clear()
            _TRIPLE_CACHE[key] = got
        return got

    def gather_sums(self, lookups: tuple[np.ndarray, ...]) -> list[np.ndarray]:
        """sum over categories of each lookup table at the (gold, A, B) codes (same order as the gathers)."""
        sums = [np.zeros(self.gold.shape[1:]) for _ in lookups]
        for j in range(self.m):
            for total, lookup in zip(sums, lookups, strict=True):
                total += np.take(lookup, self.codes()[j])
        return sums


def _codes_grid(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = k + 1
    g, a, b = (x.ravel() for x in np.indices((s, s, s)))
    return g, a, b


# --- per-metric count kernels: CountInputs -> (units, scale) --------------------------------------------------


def acc_units(x: CountInputs) -> tuple[np.ndarray, float]:
    """1[pl(A) = pl(G)] - 1[pl(B) = pl(G)] (scale 1)."""
    lg = plurality_cm(x.gold)
    return (plurality_cm(x.a) == lg).view(np.int8) - (plurality_cm(x.b) == lg).view(np.int8), 1.0


def tv_units(x: CountInputs) -> tuple[np.ndarray, float]:
    """sum_m |B - G| - sum_m |A - G| in counts (scale M K)."""
    return x.tv_diff(), float(x.m * x.k)


def wins_units(x: CountInputs) -> tuple[np.ndarray, float]:
    """The sign of TV's count difference (scale 1)."""
    return np.sign(x.tv_diff()), 1.0


def _kl_family(x: CountInputs, name: str, table: str, weight: np.ndarray) -> tuple[np.ndarray, float]:
    """sum_m w(G_m) [ln q(A_m) - ln q(B_m)], rounded to multiples of 2^-32 (scale 2^32)."""
    t = x.tables
    logq = t.kl_log if table == "kl" else t.js_log
    if x.coded:

        def make(t: _Tables) -> tuple[np.ndarray, ...]:
            g, a, b = _codes_grid(t.k)
            return (np.take(weight, g) * (np.take(logq, a) - np.take(logq, b)),)

        d = x.gather_sums(x.triple(name, make))[0]
    else:
        gi = x.indices()[0]
        diffs = x.log_diff(table)
        d = np.zeros(x.gold.shape[1:])
        for j in range(x.m):
            d += np.take(weight, gi[j]) * diffs[j]
    return np.rint(d * UNIT).astype(np.int64), UNIT


def kl_units(x: CountInputs) -> tuple[np.ndarray, float]:
    """The paper's KL gap (B's less A's) per item, 2^-32 nats."""
    return _kl_family(x, "kl", "kl", x.tables.kl_p)


def kl_smooth_units(x: CountInputs) -> tuple[np.ndarray, float]:
    """The smoothed KL gap per item, 2^-32 nats."""
    return _kl_family(x, "kl_smooth", "js", x.tables.js_p)


def ce_units(x: CountInputs) -> tuple[np.ndarray, float]:
    """The cross-entropy gap per item, 2^-32 nats."""
    return _kl_family(x, "ce", "js", x.tables.share)


def js_units(x: CountInputs) -> tuple[np.ndarray, float]:
    """sqrt(JSD_B) - sqrt(JSD_A) per item from the per-cell JSD table T[g, a], 2^-32 units."""
    jsd = x.jsd()
    if x.coded:

        def make(t: _Tables) -> tuple[np.ndarray, ...]:
            g, a, b = _codes_grid(t.k)
            s = t.k + 1
            return (np.take(jsd, g * s + a), np.take(jsd, g * s + b))

        sa, sb = x.gather_sums(x.triple("js", make))
    else:
        gi, ai, bi = x.indices()
        sa = np.zeros(x.gold.shape[1:])
        sb = np.zeros(x.gold.shape[1:])
        for j in range(x.m):
            base = gi[j] * (x.k + 1)  # flat index into the (K+1)^2 table
            sa += np.take(jsd, base + ai[j])
            sb += np.take(jsd, base + bi[j])
    d = np.sqrt(np.maximum(sb, 0.0)) - np.sqrt(np.maximum(sa, 0.0))
    return np.rint(d * UNIT).astype(np.int64), UNIT
