"""Caching at the UI boundary, in one place.

Every heavy nkcore call from a page goes through :func:`compute` (or :func:`compute_params`). The cache key is the
function's qualified name, the datasets' sha256 fingerprints and the plain parameters: never a big array or frame
(Streamlit hashes only a sample of large frames, so keying on them would be unsafe as well as slow).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import pandas as pd
import streamlit as st

T = TypeVar("T")


class HasFrame(Protocol):
    """Anything with a fingerprint and a frame (``ui.bootstrap.Dataset``)."""

    fingerprint: str
    frame: pd.DataFrame


@st.cache_resource(show_spinner=False)
def _frames() -> dict[str, pd.DataFrame]:
    """Process-wide registry: dataset fingerprint -> frame (frames are shared, never mutated by pages)."""
    return {}


def register_frame(fingerprint: str, frame: pd.DataFrame) -> None:
    """Make ``frame`` reachable by its fingerprint for the cached computations."""
    _frames()[fingerprint] = frame


def _resolve(name: str) -> Callable[..., Any]:
    module_name, _, qualname = name.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


@st.cache_data(show_spinner=False, max_entries=512)
def _cached_call(name: str, fingerprints: tuple[str, ...], params: tuple[tuple[str, Any], ...]) -> Any:
    func = _resolve(name)
    registry = _frames()
    frames = [registry[fp] for fp in fingerprints]
    return func(*frames, **dict(params))


def _name_of(func: Callable[..., Any]) -> str:
    module = getattr(func, "__module__", "")
    if not module.startswith("nkcore"):
        raise TypeError(f"cache.compute takes nkcore functions, not {module}.{func.__qualname__}")
    return f"{module}:{func.__qualname__}"


def compute(func: Callable[..., T], *datasets: HasFrame, **params: Any) -> T:
    """``func(*[d.frame for d in datasets], **params)``, cached on (name, fingerprints, params).

    ``func`` must be a module-level nkcore function; ``params`` plain hashable values (lists are frozen to tuples).
    Exceptions (e.g. ``DataError``) are not cached: they propagate to the page, which shows them.
    """
    for d in datasets:
        register_frame(d.fingerprint, d.frame)
    frozen = tuple(sorted((k, _freeze(v)) for k, v in params.items()))
    return _cached_call(_name_of(func), tuple(d.fingerprint for d in datasets), frozen)


def compute_params(func: Callable[..., T], **params: Any) -> T:
    """``func(**params)`` cached on (name, params): for computations that need no dataset."""
    return compute(func, **params)
