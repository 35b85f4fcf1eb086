"""``Monitor``: the anytime-valid paired comparison updated one case at a time, O(1) per case, plain floats.

Two kinds of data, fixed on the first case (or by ``kind``):

- ``"binary"``: one 0/1 result per case and config: the mixture SPRT on the discordant cases
  (:mod:`nkcore.sequential.mixture`), anytime p = min(1, 1 / max E), the band on the difference (accuracy of B
  minus A) from the confidence sequence on theta = P(B right | discordant) at level 1 - alpha and on the discordance
  rate at level 1 - alpha / 10 (:data:`DISCORDANCE_SHARE`): difference = discordance x (2 theta - 1);
- ``"scores"``: repeats (a list per config) or scores in [0, 1]: the empirical-Bernstein confidence sequence on the
  per-case differences of means (:mod:`nkcore.sequential.bounded`).

Every interval is the running intersection of the sequence so far (still a confidence sequence); when it would be
empty (only on the event the sequence has missed, probability <= alpha) both ends are its midpoint.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

from nkcore.common.checks import check_significance
from nkcore.errors import DataError
from nkcore.sequential.bounded import BET_CAP
from nkcore.sequential.mixture import PRIOR, lower_logit

__all__ = ["DISCORDANCE_SHARE", "KINDS", "Monitor", "SequentialState"]

KINDS = ("binary", "scores")
DISCORDANCE_SHARE = 0.1
"""The discordance rate's confidence sequence is at level 1 - DISCORDANCE_SHARE x alpha (Beta(1, 1) mixture): the band
on the difference covers it at every look with probability >= (1 - alpha)(1 - alpha / 10) (the two sequences use
independent parts of the data: which cases are discordant, and who wins them); its sign is the test's exactly."""

Score = float | int | bool | Sequence[float | int | bool]


@dataclass(frozen=True, slots=True)
class SequentialState:
    """The state after ``n`` cases: ``decided`` (the test has rejected "no difference" at some look so far; final),
    ``winner`` ("a", "b" or None), ``anytime_p`` (valid at any stopping time), ``low`` / ``high`` (the confidence
    sequence on the difference, B minus A, as a fraction), ``diff`` (the observed difference), ``decided_at`` (the
    number of cases at the decision, or None), ``kind`` ("binary" or "scores")."""

    n: int
    decided: bool
    winner: str | None
    anytime_p: float
    low: float
    high: float
    diff: float
    decided_at: int | None
    kind: str


def _sigmoid(u: float) -> float:
    if u == -math.inf:
        return 0.0
    if u >= 0:
        return 1.0 / (1.0 + math.exp(-u))
    e = math.exp(u)
    return e / (1.0 + e)


def _bit(x: object, side: str) -> int:
    if x == 1:  # True, 1, 1.0, numpy scalars
        return 1
    if x == 0:
        return 0
    raise DataError(
        f"config {side}'s result {x!r} is not 0 or 1: this monitor reads one 0/1 result per case (its kind is "
        "'binary', fixed on the first case); give Monitor(kind='scores') for scores in [0, 1] or repeats"
    )


def _mean(x: object, side: str) -> float:
    if isinstance(x, list | tuple):
        if not x:
            raise DataError(f"config {side}'s repeats are an empty list: give at least one score")
        total = 0.0
        for v in x:
            f = float(v)
            if not 0.0 <= f <= 1.0:
                raise DataError(f"config {side}'s score {v!r} is not between 0 and 1")
            total += f
        return total / len(x)
    try:
        f = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise DataError(f"config {side}'s score {x!r} is not a number between 0 and 1 (or a list of them)") from None
    if not 0.0 <= f <= 1.0:
        raise DataError(f"config {side}'s score {x!r} is not between 0 and 1")
    return f


class Monitor:
    """An anytime-valid paired comparison of configs A and B, one case at a time: stop whenever it is decided.

    ``update(a, b)`` takes one case's result for each config (0/1, a score in [0, 1], or a list of repeats) and
    returns the :class:`SequentialState`. Valid at every stopping time: looking after every case and stopping at the
    first ``decided`` keeps the chance of a false "better" at most ``significance`` (Ville's inequality), unlike a fixed-n
    p-value checked after every batch. ``kind``: "binary" (one 0/1 result per case: the mixture SPRT on the
    discordant cases), "scores" (repeats or partial scores: the empirical-Bernstein sequence), or None (fixed by the
    first case: a list or a score strictly between 0 and 1 means "scores").

    A plain loop:

    >>> mon = Monitor(significance=0.05)
    >>> for a, b in [(0, 1)] * 12:
    ...     state = mon.update(a, b)
    ...     if state.decided:
    ...         break
    >>> state.decided, state.winner, state.n, round(state.anytime_p, 4)
    (True, 'b', 11, 0.0427)

    Repeats:

    >>> mon = Monitor(significance=0.05)
    >>> s = mon.update([1, 0, 1], [1, 1, 1])
    >>> s.kind, round(s.diff, 4), s.decided
    ('scores', 0.3333, False)
    """

    __slots__ = (
        "_a_k",
        "_a_m",
        "_big_l",
        "_decided_at",
        "_dh",
        "_dl",
        "_dul",
        "_duu",
        "_hi",
        "_kind",
        "_ld",
        "_lo",
        "_log_delta_inv",
        "_log_e",
        "_log_inv",
        "_max_log",
        "_mu_hat",
        "_n",
        "_prior",
        "_s_lam",
        "_s_lamx",
        "_s_psi",
        "_s_sq",
        "_s_x",
        "_sig2",
        "_significance",
        "_sum_d",
        "_th",
        "_tl",
        "_ul",
        "_uu",
        "_winner",
    )

    def __init__(self, significance: float = 0.05, kind: str | None = None, prior: float = PRIOR) -> None:
        self._significance = check_significance(significance)
        if kind is not None and kind not in KINDS:
            raise DataError(f"kind must be one of {', '.join(KINDS)} (or None: fixed by the first case); got {kind!r}")
        if not (isinstance(prior, int | float) and math.isfinite(prior) and prior > 0):
            raise DataError(f"prior (a of the Beta(a, a) mixture) must be a positive number; got {prior!r}")
        self._kind = kind
        self._prior = float(prior)
        self._log_inv = math.log(1.0 / self._significance)
        self._log_delta_inv = math.log(1.0 / (DISCORDANCE_SHARE * self._significance))
        self._big_l = math.log(2.0 / self._significance)
        self._n = 0
        self._a_k = 0  # binary: discordant cases B won
        self._a_m = 0  # binary: discordant cases
        self._log_e = 0.0  # binary: log E; scores: unused
        self._ld = 0.0  # binary: log of the Beta(1, 1) mixture of the discordance rate
        self._max_log = -math.inf  # the largest log e-value so far (scores: of max(M+, M-))
        self._ul, self._uu, self._dul, self._duu = -math.inf, -math.inf, -math.inf, -math.inf
        self._tl, self._th, self._dl, self._dh = 0.0, 1.0, 0.0, 1.0
        self._lo, self._hi = 0.0, 1.0  # scores: the running intersection on mu
        self._mu_hat, self._sig2 = 0.5, 0.25
        self._s_lam = self._s_lamx = self._s_psi = self._s_x = self._s_sq = self._sum_d = 0.0
        self._winner: str | None = None
        self._decided_at: int | None = None

    @property
    def significance(self) -> float:
        """The significance level."""
        return self._significance

    @property
    def kind(self) -> str | None:
        """ "binary", "scores", or None before the first case when not given."""
        return self._kind

    def update(self, a: Score, b: Score) -> SequentialState:
        """Add one case (config A's result, config B's result) and return the state after it."""
        if self._kind is None:
            self._kind = "binary"
            for x in (a, b):
                if isinstance(x, list | tuple) or (isinstance(x, numbers.Real) and 0.0 < float(x) < 1.0):
                    self._kind = "scores"
        if self._kind == "binary":
            return self._update_binary(_bit(a, "A"), _bit(b, "B"))
        return self._update_scores(_mean(b, "B") - _mean(a, "A"))

    # ------------------------------------------------------------------ one 0/1 result per case
    def _update_binary(self, a: int, b: int) -> SequentialState:
        n0, m, k = self._n, self._a_m, self._a_k
        self._n = n = n0 + 1
        if a != b:
            p = self._prior
            if b:
                self._log_e += math.log(2.0 * (p + k) / (2.0 * p + m))
                k += 1
            else:
                self._log_e += math.log(2.0 * (p + m - k) / (2.0 * p + m))
            self._ld += math.log((1.0 + m) / (2.0 + n0))
            m += 1
            self._a_m, self._a_k = m, k
            c = self._log_e - m * math.log(2.0) - self._log_inv
            self._ul = lower_logit(k, m, c, self._ul)
            self._uu = lower_logit(m - k, m, c, self._uu)
            self._tl = max(self._tl, _sigmoid(self._ul))
            self._th = min(self._th, 1.0 - _sigmoid(self._uu))
            if self._log_e > self._max_log:
                self._max_log = self._log_e
                if self._decided_at is None and self._log_e >= self._log_inv:
                    self._decided_at = n
                    self._winner = "b" if 2 * k > m else "a"
        else:
            self._ld += math.log((1.0 + n0 - m) / (2.0 + n0))
        cd = self._ld - self._log_delta_inv
        self._dul = lower_logit(m, n, cd, self._dul)
        self._duu = lower_logit(n - m, n, cd, self._duu)
        self._dl = max(self._dl, _sigmoid(self._dul))
        self._dh = min(self._dh, 1.0 - _sigmoid(self._duu))
        tl, th = (self._tl, self._th) if self._tl <= self._th else ((self._tl + self._th) / 2,) * 2
        dl, dh = (self._dl, self._dh) if self._dl <= self._dh else ((self._dl + self._dh) / 2,) * 2
        lo_t, hi_t = 2.0 * tl - 1.0, 2.0 * th - 1.0
        low = dl * lo_t if lo_t > 0 else dh * lo_t
        high = dh * hi_t if hi_t > 0 else dl * hi_t
        p_any = min(1.0, math.exp(-self._max_log)) if m else 1.0
        return SequentialState(
            n, self._decided_at is not None, self._winner, p_any, low, high, (2 * k - m) / n, self._decided_at, "binary"
        )

    # ------------------------------------------------------------------ repeats or scores in [0, 1]
    def _update_scores(self, d: float) -> SequentialState:
        x = (d + 1.0) / 2.0
        self._n = t = self._n + 1
        lam = math.sqrt(2.0 * self._big_l / (self._sig2 * t * math.log1p(t)))
        if lam > BET_CAP:
            lam = BET_CAP
        dev = x - self._mu_hat
        self._s_psi += 4.0 * (dev * dev) * ((-math.log1p(-lam) - lam) / 4.0)
        self._s_lam += lam
        self._s_lamx += lam * x
        self._s_x += x
        self._sum_d += d
        self._mu_hat = (0.5 + self._s_x) / (t + 1.0)
        dev = x - self._mu_hat
        self._s_sq += dev * dev
        self._sig2 = (0.25 + self._s_sq) / (t + 1.0)
        drift = self._s_lamx - 0.5 * self._s_lam
        top = abs(drift) - self._s_psi
        center = self._s_lamx / self._s_lam
        half = (self._big_l + self._s_psi) / self._s_lam
        self._lo = max(self._lo, center - half)
        self._hi = min(self._hi, center + half)
        if top > self._max_log:
            self._max_log = top
            if self._decided_at is None and top >= self._big_l:
                self._decided_at = t
                self._winner = "b" if drift > 0 else "a"
        lo, hi = (self._lo, self._hi) if self._lo <= self._hi else ((self._lo + self._hi) / 2,) * 2
        p_any = min(1.0, 2.0 * math.exp(-self._max_log))
        return SequentialState(
            t,
            self._decided_at is not None,
            self._winner,
            p_any,
            2.0 * lo - 1.0,
            2.0 * hi - 1.0,
            self._sum_d / t,
            self._decided_at,
            "scores",
        )
