"""Caching at the UI boundary, in one place.

Every heavy nkcore call from a page goes through :func:`compute` (or :func:`compute_params`; long computations
with a progress bar and a Cancel button go through :func:`ui.common.progress.compute_with_progress`). The cache key is
the function's qualified name, the datasets' sha256 fingerprints and the plain parameters: never a big array or frame
(Streamlit hashes only a sample of large frames, so keying on them would be unsafe as well as slow).

The frames themselves travel as the cached function's ``_frames`` argument: Streamlit does not hash an argument
whose name starts with ``_``, so the fingerprints alone decide the key, and a frame is referenced only by the
calls running with it. Nothing outside Streamlit's cache keeps results or frames alive, so memory is bounded by
the cache's ``max_entries``.

One computation per key, across sessions: ``st.cache_data`` (Streamlit 1.67,
``runtime/caching/cache_utils.py``) takes a per-key ``compute_value_lock`` before it computes and looks the key up
again once it holds it, so a second session asking for the same key while the first computes waits for that
computation and then reads its result; the wait polls the session's stop/rerun check every 0.1 s, so a waiting
session can still be stopped. ``tests/test_ui_cache.py`` checks this with concurrent callers.

Computations actually run are counted in :data:`COMPUTED` (key digest -> count, the last few thousand keys) and,
when ``$NKP_CACHE_LOG`` names a file, appended to it as one JSON line each (``func``, ``key``, ``seconds``): the
load test reads that file to check that 20 viewers of one link cost one computation.

Chart specs are cached here too (:func:`chart_spec`): building an Altair chart and turning it into its Vega-Lite
spec costs more server time than the rest of most reruns, and a control that changes one part of a page leaves the
other charts' inputs as they were. Those inputs are small frames built from cached results, so the key is their
content (a hash of every cell, :func:`content_digest`), never their identity.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import pickle
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

__all__ = [
    "COMPUTED",
    "LOG_ENV",
    "HasFrame",
    "chart_spec",
    "compute",
    "compute_params",
    "content_digest",
    "key_digest",
    "record_computation",
]

T = TypeVar("T")

LOG_ENV = "NKP_CACHE_LOG"
MAX_ENTRIES = 512
_MAX_COUNTED = 4096

COMPUTED: Counter[str] = Counter()
"""Key digest (:func:`key_digest`) -> how many times that computation actually ran in this process."""
_COUNT_LOCK = threading.Lock()

Params = tuple[tuple[str, object], ...]


class HasFrame(Protocol):
    """Anything with a fingerprint and a frame (``ui.common.datasets.Dataset``)."""

    @property
    def fingerprint(self) -> str:
        """sha256 hex of the dataset's canonical table."""

    @property
    def frame(self) -> pd.DataFrame:
        """The table (never mutated by the computations)."""


def _resolve(name: str) -> Callable[..., Any]:
    module_name, _, qualname = name.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def freeze(value: object) -> object:
    """A hashable, order-stable form of a parameter: lists become tuples, dicts sorted tuples of pairs.

    >>> freeze({"b": [1, 2], "a": 0})
    (('a', 0), ('b', (1, 2)))
    """
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    return value


def key_digest(name: str, fingerprints: tuple[str, ...], params: Params) -> str:
    """A short stable id of one cache key: sha256 of (function name, dataset fingerprints, parameters), 16 hex.

    >>> len(key_digest("nkcore.voting:parse_samples", ("0" * 64,), ()))
    16
    """
    text = repr((name, fingerprints, params))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def record_computation(name: str, fingerprints: tuple[str, ...], params: Params, seconds: float) -> None:
    """Count one computation actually run (in :data:`COMPUTED`) and log it to ``$NKP_CACHE_LOG`` if set."""
    digest = key_digest(name, fingerprints, params)
    with _COUNT_LOCK:
        COMPUTED[digest] += 1
        while len(COMPUTED) > _MAX_COUNTED:
            del COMPUTED[next(iter(COMPUTED))]
        path = os.environ.get(LOG_ENV, "").strip()
        if path:
            line = json.dumps({"func": name, "key": digest, "seconds": round(seconds, 4), "pid": os.getpid()})
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")


@st.cache_data(show_spinner=False, max_entries=MAX_ENTRIES)
def _cached_call(name: str, fingerprints: tuple[str, ...], params: Params, _frames: tuple[pd.DataFrame, ...]) -> Any:
    """``name(*_frames, **params)``; the key is (name, fingerprints, params): ``_frames`` is not hashed."""
    func = _resolve(name)
    start = time.perf_counter()
    try:
        return func(*_frames, **dict(params))
    finally:
        record_computation(name, fingerprints, params, time.perf_counter() - start)


def name_of(func: Callable[..., object]) -> str:
    """``module:qualname`` of a module-level nkcore function; TypeError for anything else (a page's bug)."""
    module = getattr(func, "__module__", "") or ""
    if not module.startswith("nkcore"):
        raise TypeError(f"cache.compute takes nkcore functions, not {module}.{func.__qualname__}")
    return f"{module}:{func.__qualname__}"


def frozen_params(params: dict[str, object]) -> Params:
    """The parameters as a sorted tuple of (name, frozen value) pairs: the hashed part of a cache key."""
    return tuple(sorted((k, freeze(v)) for k, v in params.items()))


def compute(func: Callable[..., T], *datasets: HasFrame, **params: object) -> T:
    """``func(*[d.frame for d in datasets], **params)``, cached on (name, fingerprints, params).

    ``func`` must be a module-level nkcore function; ``params`` plain hashable values (lists are frozen to tuples).
    Exceptions (e.g. ``DataError``) are not cached: they propagate to the page, which shows them. Two sessions
    asking for the same key at once share one computation (see the module docstring).
    """
    result = _cached_call(
        name_of(func),
        tuple(d.fingerprint for d in datasets),
        frozen_params(params),
        _frames=tuple(d.frame for d in datasets),
    )
    return result


def compute_params(func: Callable[..., T], **params: object) -> T:
    """``func(**params)`` cached on (name, params): for computations that need no dataset."""
    return compute(func, **params)


SPEC_ENTRIES = 256


def _content(value: object) -> object:
    """A hashable stand-in for one argument of a chart builder: a frame, series or array by a hash of its content
    (values, index, columns, dtypes), anything else by :func:`freeze` and ``repr``."""
    if isinstance(value, pd.DataFrame | pd.Series):
        try:
            cells = pd.util.hash_pandas_object(value, index=True).to_numpy().tobytes()
        except TypeError:  # unhashable cells (lists, dicts): their pickle
            cells = pickle.dumps(value, protocol=5)
        shape = (list(value.columns), [str(t) for t in value.dtypes]) if isinstance(value, pd.DataFrame) else None
        return ("frame", hashlib.sha256(cells).hexdigest(), repr(shape), repr(getattr(value, "name", None)))
    if isinstance(value, np.ndarray):
        return (
            "array",
            hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest(),
            value.dtype.str,
            value.shape,
        )
    if isinstance(value, list | tuple):
        return tuple(_content(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _content(v)) for k, v in value.items()))
    return repr(freeze(value))


def content_digest(*args: object, **kwargs: object) -> str:
    """sha256 of the arguments' content (:func:`_content`): equal frames give equal digests whatever their
    identity, and one changed cell a different one.

    >>> a = pd.DataFrame({"n": [1, 3], "accuracy": [0.7, 0.8]})
    >>> content_digest(a) == content_digest(a.copy()), content_digest(a) == content_digest(a.assign(n=[1, 5]))
    (True, False)
    """
    text = repr((tuple(_content(a) for a in args), tuple(sorted((k, _content(v)) for k, v in kwargs.items()))))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _builder_name(builder: Callable[..., object]) -> str:
    module = getattr(builder, "__module__", "") or ""
    if not module.startswith("ui.charts"):
        raise TypeError(f"cache.chart_spec takes builders of ui.charts*, not {module}.{builder.__qualname__}")
    return f"{module}:{builder.__qualname__}"


@st.cache_data(show_spinner=False, max_entries=SPEC_ENTRIES)
def _cached_spec(name: str, digest: str, _args: tuple[Any, ...], _kwargs: dict[str, Any]) -> dict[str, Any]:
    """The spec of ``name(*_args, **_kwargs)``; the key is (name, digest of the arguments' content)."""
    from ui import charts

    return charts.spec(_resolve(name)(*_args, **_kwargs))


def chart_spec(builder: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """``ui.charts.spec(builder(*args, **kwargs))``, cached on the builder's name and the arguments' content
    (:func:`content_digest`): draw it with ``ui.charts.draw``. ``builder`` must be a module-level function of a
    ``ui.charts*`` module (pure: its chart depends on its arguments only)."""
    name = _builder_name(builder)
    return _cached_spec(name, content_digest(*args, **kwargs), _args=args, _kwargs=kwargs)
