"""``nkcore.nk.exact.fft``: the engine's transforms are scipy.fft's numbers to the bit (issue 56 calls the same
pocketfft routines without scipy.fft's per-call dispatch; the exact-grid reference test freezes the engine's bits, this
one the transforms' own, on lengths and paddings the engine uses and others)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import fft as sfft

from nkcore.nk.exact import fft


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 100, 1001, 4096, 30_000])
def test_rfft_and_irfft_equal_scipy_to_the_bit(size: int) -> None:
    rng = np.random.default_rng(size)
    x = rng.random(size)
    x /= x.sum()
    for n in {size, sfft.next_fast_len(size, real=True), 2 * size + 1, max(1, size // 2)}:
        spec = fft.rfft(x, n)
        assert np.array_equal(spec, sfft.rfft(x, n))
        for m in {n, n + 3, max(1, n - 1)}:
            assert np.array_equal(fft.irfft(spec, m), sfft.irfft(spec, m))
    powered = fft.rfft(x, 2 * size) ** 3  # a power of a spectrum, as convolve.powers takes
    assert np.array_equal(fft.irfft(powered, 2 * size), sfft.irfft(powered, 2 * size))
    real = rng.random(size // 2 + 1)  # a real spectrum: made complex first, as scipy does
    assert np.array_equal(fft.irfft(real, size), sfft.irfft(real, size))


def test_a_sum_law_by_transforms_is_the_direct_convolution() -> None:
    """Oracle: the 3-fold sum of a pmf by the transforms against np.convolve."""
    p = np.array([0.2, 0.5, 0.3])
    direct = np.convolve(np.convolve(p, p), p)
    n = direct.size
    assert np.allclose(fft.irfft(fft.rfft(p, n) ** 3, n), direct, atol=1e-15)
