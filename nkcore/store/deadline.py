"""The deadline of a call to an object store, the bounded pool for filesystems without an event loop, and the
circuit breaker (see :mod:`nkcore.store.backends` for why a frozen store needs all three)."""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "DEADLINE_ENV_VAR",
    "DEADLINE_S",
    "POOL_WORKERS",
    "PROBE_WAIT_S",
    "RETRY_AFTER_S",
    "TABLE_DEADLINE_ENV_VAR",
    "TABLE_DEADLINE_S",
    "Breaker",
    "TimedOut",
    "Unreachable",
    "deadline",
    "in_pool",
    "seconds_text",
]

RETRY_AFTER_S = 3.0  # the breaker: a store that failed is not asked again for this long, then one probe asks
PROBE_WAIT_S = 0.5  # the call that starts a probe waits this long for its answer (others are refused at once)
DEADLINE_ENV_VAR = "NKP_STORE_DEADLINE_S"
TABLE_DEADLINE_ENV_VAR = "NKP_STORE_TABLE_DEADLINE_S"
DEADLINE_S = 5.0  # listing, a description, an existence check, a removal, a small write
TABLE_DEADLINE_S = 30.0  # reading or writing a table (its Parquet file)
_DEADLINE_RANGE = (0.1, 600.0)
POOL_WORKERS = 4  # worker threads for a filesystem without an event loop (calls beyond: refused at once)

T = TypeVar("T")


class Unreachable(ConnectionError):
    """The object store did not answer (refused, timed out, unknown host); the message says what was tried."""

    def again(self) -> Unreachable:
        """A fresh copy (the breaker raises the remembered failure in many threads)."""
        return type(self)(*self.args)


class TimedOut(Unreachable):
    """The object store did not answer a call within its deadline (``seconds``): frozen, overloaded or a network
    that drops packets; the call was cancelled."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message, seconds)
        self.seconds = seconds

    def __str__(self) -> str:
        return str(self.args[0])


def deadline(table: bool = False) -> float:
    """The overall deadline of one call to an object store, in seconds: ``$NKP_STORE_TABLE_DEADLINE_S`` (default
    30) for reading or writing a table, else ``$NKP_STORE_DEADLINE_S`` (default 5); a value that is not a number
    gives the default, and any value is kept within 0.1 to 600 s.

    >>> deadline(), deadline(table=True)
    (5.0, 30.0)
    """
    name, default = (TABLE_DEADLINE_ENV_VAR, TABLE_DEADLINE_S) if table else (DEADLINE_ENV_VAR, DEADLINE_S)
    try:
        value = float(os.environ.get(name, "").strip() or default)
    except ValueError:
        value = default
    if not math.isfinite(value):
        value = default
    return min(max(value, _DEADLINE_RANGE[0]), _DEADLINE_RANGE[1])


def seconds_text(value: float) -> str:
    """A deadline in words' digits: ``5``, ``2.5``, ``0.3``."""
    return f"{value:g}"


_POOL_SLOTS = threading.BoundedSemaphore(POOL_WORKERS)


def in_pool(action: Callable[[], T], seconds: float, location: str) -> T:
    """Run ``action`` in a worker thread (at most :data:`POOL_WORKERS` at once, daemon threads: a stuck one never
    holds up the server's exit) and wait for it at most ``seconds``: for a filesystem without an event loop, whose
    calls cannot be cancelled. A stuck call keeps its worker until it ends; a call finding every worker taken is
    refused at once, so stuck calls never pile up threads."""
    if not _POOL_SLOTS.acquire(blocking=False):
        raise TimedOut(f"{location}: every store worker is still waiting on the store", seconds)
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = action()
        except BaseException as exc:
            box["error"] = exc
        finally:
            _POOL_SLOTS.release()
            done.set()

    try:
        threading.Thread(target=run, name="nkp-store", daemon=True).start()
    except BaseException:
        _POOL_SLOTS.release()
        raise
    if not done.wait(seconds):
        raise TimeoutError(f"no answer within {seconds_text(seconds)} s")
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


class Breaker:
    """Refuse calls at once while the store is known to be down; ask it again after :data:`RETRY_AFTER_S` seconds
    with one probe in a background thread (never more than one), which closes the breaker when the store answers."""

    def __init__(self, probe: Callable[[], None]) -> None:
        self._probe = probe
        self._lock = threading.Lock()
        self._failure: Unreachable | None = None
        self._until = 0.0
        self._probing: threading.Event | None = None

    def check(self) -> None:
        """Return when calls may go to the store; else raise the remembered failure (fast)."""
        with self._lock:
            if self._failure is None:
                return
            if time.monotonic() < self._until:
                raise self._failure.again()
            if self._probing is not None:  # another call's probe is waiting on the store
                raise self._failure.again()
            probing = self._probing = threading.Event()
            threading.Thread(target=self._run_probe, args=(probing,), daemon=True).start()
        probing.wait(PROBE_WAIT_S)  # only the call that started the probe waits for it (briefly)
        with self._lock:
            if self._failure is not None:
                raise self._failure.again()

    def trip(self, failure: Unreachable) -> None:
        """The store failed: refuse calls for :data:`RETRY_AFTER_S` seconds."""
        with self._lock:
            self._failure = failure
            self._until = time.monotonic() + RETRY_AFTER_S

    def reset(self) -> None:
        """The store answered."""
        with self._lock:
            self._failure = None

    @property
    def down(self) -> bool:
        """Whether calls are refused now."""
        with self._lock:
            return self._failure is not None

    def _run_probe(self, done: threading.Event) -> None:
        try:
            self._probe()
        except Unreachable as exc:
            self.trip(exc)
        except BaseException:  # the store answered, with something else (credentials, a missing bucket...)
            self.reset()
        else:
            self.reset()
        finally:
            with self._lock:
                self._probing = None
            done.set()
