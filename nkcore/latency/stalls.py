"""Rare stalls: a request of n branches waits for its slowest, so it hits a stall about n times as often as one call.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``), "Putting the other costs on the same table".
"""

from __future__ import annotations

from dataclasses import dataclass

from nkcore.errors import DataError
from nkcore.latency.model import check_n

__all__ = ["StallExposure", "stall_exposure", "stall_hits_per_hour", "stall_sentence", "stall_table"]


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
    check_n(n)
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
