"""nkcore.nk.priors: a typed or fitted alpha is accepted up to the fit's ceiling and refused in one line above it."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from nkcore.errors import DataError
from nkcore.nk.fit import MAX_ALPHA
from nkcore.nk.priors import MIN_ALPHA, parse_alpha, resolve_prior, validate_prior


@pytest.mark.parametrize("text", ["1e308,1e308", "1e8, 1", "1,10000001", "1.7976931348623157e308 2"])
def test_alpha_above_the_fits_ceiling_is_refused_naming_its_positions(text: str) -> None:
    """Above MAX_ALPHA (1e7) items do not differ at all, and alpha0 = sum(alpha) overflows to inf at 1e308."""
    values = [float(v) for v in text.replace(",", " ").split()]
    positions = [i + 1 for i, v in enumerate(values) if v > MAX_ALPHA]
    with pytest.raises(DataError) as err:
        parse_alpha(text)
    message = str(err.value)
    assert message.endswith(f"too large at position(s): {positions}") and "10,000,000" in message


def test_alpha_at_the_ceiling_is_accepted_as_the_fit_returns_it() -> None:
    """The fit's bound is log(1e7) in log space; exp of it is 1e7 plus a few ulps, and must pass as it is."""
    at_bound = float(np.exp(np.log(MAX_ALPHA)))
    assert at_bound != MAX_ALPHA  # the case the tolerance is for
    assert validate_prior([at_bound, 1.0]) == (at_bound, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prior = resolve_prior(concentration=(MAX_ALPHA, MAX_ALPHA))
    assert prior.alpha0 == 2 * MAX_ALPHA and math.isfinite(prior.alpha0)


@pytest.mark.parametrize("text", ["1e-20,1e-20", "1e-300 1e-300", "1, 1e-11"])
def test_alpha_below_the_floor_is_refused_naming_its_positions(text: str) -> None:
    """At alpha = 1e-17 per label the exact engine's Gauss-Jacobi rule divided by zero (a traceback from the CLI):
    such a prior is refused in one line instead."""
    values = [float(v) for v in text.replace(",", " ").split()]
    positions = [i + 1 for i, v in enumerate(values) if v < MIN_ALPHA]
    with pytest.raises(DataError) as err:
        parse_alpha(text)
    assert str(err.value).endswith(f"too small at position(s): {positions}")


def test_the_smallest_accepted_alpha_gets_numbers_from_the_exact_engine() -> None:
    """At the floor the engine still answers with finite numbers (TV and KL use the quadrature that failed)."""
    from nkcore.nk.exact import exact_cell

    cells = exact_cell((MIN_ALPHA, MIN_ALPHA), 0.3, 1000, 10, ["tv", "kl"])
    assert all(0.0 <= c.p <= 1.0 and math.isfinite(c.delta) and c.delta > 0 for c in cells)
