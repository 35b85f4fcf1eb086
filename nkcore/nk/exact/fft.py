"""Real discrete Fourier transforms for the exact engine: ``scipy.fft.rfft`` / ``irfft``'s numbers, bit for bit,
without their per-call dispatch (float64 and complex128 arrays: the engine's).

A cold grid takes about 8,000 transforms, most of them short (a few hundred to a few thousand points), where
``scipy.fft``'s backend dispatch, argument checks and shape fixing cost more than the transform itself (about
15 us a call against 1-4 us). These functions call the same pocketfft routines scipy.fft calls, with the same
arguments (backward normalisation, one worker, zero-padding or truncation to ``n`` as ``scipy.fft`` does), so the
numbers are the same to the bit (tested); where scipy's internal module is not there they are ``scipy.fft``'s own.
Reference: Cooley & Tukey (1965); pocketfft (M. Reinecke), as shipped in scipy.fft.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import fft as sfft

try:  # the routines scipy.fft.rfft / irfft call (scipy.fft._pocketfft.basic.r2c / c2r)
    from scipy.fft._pocketfft import pypocketfft as _pocket
except ImportError:  # pragma: no cover - another scipy layout: scipy.fft itself
    _pocket = None

_POCKET: Any = _pocket


def rfft(x: np.ndarray, n: int) -> np.ndarray:
    """``scipy.fft.rfft(x, n)`` for a 1-d float array: X_j = sum_t x_t exp(-2 pi i j t / n), j = 0 .. n // 2 (x
    zero-padded or cut to n points).

    >>> x = np.array([1.0, 2.0, 0.5])
    >>> bool(np.array_equal(rfft(x, 8), sfft.rfft(x, 8))), bool(np.array_equal(rfft(x, 2), sfft.rfft(x, 2)))
    (True, True)
    """
    a = np.asarray(x, dtype=float)
    if _POCKET is None or a.ndim != 1:
        return np.asarray(sfft.rfft(a, n))
    if a.size >= n:
        tmp = a[:n]
    else:
        tmp = np.zeros(n)
        tmp[: a.size] = a
    return np.asarray(_POCKET.r2c(tmp, (-1,), True, 0, None, 1))


def irfft(spec: np.ndarray, n: int) -> np.ndarray:
    """``scipy.fft.irfft(spec, n)`` for a 1-d array: the real sequence of n points whose ``rfft`` is ``spec``
    (x_t = (1 / n) sum_j X_j exp(2 pi i j t / n) with Hermitian symmetry; spec padded or cut to n // 2 + 1).

    >>> s = sfft.rfft(np.array([1.0, 2.0, 0.5, 4.0]), 6)
    >>> bool(np.array_equal(irfft(s, 6), sfft.irfft(s, 6))), bool(np.array_equal(irfft(s, 3), sfft.irfft(s, 3)))
    (True, True)
    """
    c = np.asarray(spec)
    if _POCKET is None or c.ndim != 1:
        return np.asarray(sfft.irfft(c, n))
    if not np.iscomplexobj(c):
        c = c + 0.0j
    m = n // 2 + 1
    if c.size >= m:
        tmp = c[:m]
    else:
        tmp = np.zeros(m, dtype=c.dtype)
        tmp[: c.size] = c
    return np.asarray(_POCKET.c2r(tmp, (-1,), n, False, 2, None, 1))


__all__ = ["irfft", "rfft"]
