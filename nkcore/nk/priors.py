"""Priors (alpha) of items' response distributions: the paper's fitted presets, synthetic ones, typed ones.

Reference: spec "Priors (alpha) fitted by the authors (MAP Dirichlet fit per dataset)".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nkcore.common import limits
from nkcore.errors import DataError

MAX_ALPHA = 1e7
"""Upper bound of each alpha_m: beyond it the data show no item-to-item spread (the fit, ``nkcore.nk.fit``, stops
there: maximum likelihood diverges)."""


@dataclass(frozen=True, slots=True)
class Prior:
    """A Dirichlet prior over items' response distributions (M categories)."""

    name: str
    concentration: tuple[float, ...]
    source: str

    @property
    def m(self) -> int:
        """Number of label categories M."""
        return len(self.concentration)

    @property
    def alpha0(self) -> float:
        """Concentration sum(alpha): large = raters agree with the population shares, small = items differ."""
        return float(sum(self.concentration))

    @property
    def mean(self) -> tuple[float, ...]:
        """Expected label shares alpha / sum(alpha)."""
        a0 = self.alpha0
        return tuple(a / a0 for a in self.concentration)


_FITTED: dict[str, tuple[tuple[float, ...], str]] = {
    "Toxicity": ((1.37658107, 1.33054633), "Kumar et al. 2021, M=2, the authors' MAP fit"),
    "DICES": ((5.21765954, 0.85824731, 2.74833849), "DICES-350, M=3, the authors' MAP fit"),
    "D3code": ((6.08113935, 2.88368607), "D3CODE, M=2, the authors' MAP fit"),
    "JobsQ1": (
        (1039.76103107, 38.24111517, 35.57247128, 310.28721781, 46.02098984),
        "Jobs Q1 (point of view), M=5, the authors' MAP fit",
    ),
    "JobsQ3": (
        (
            133.78853551,
            834.50565456,
            105.26820221,
            3669.04254686,
            206.7981077,
            293.44481515,
            585.58493554,
            1278.55683805,
            1874.82053825,
            1838.49315169,
            1576.10287767,
            989.22561734,
        ),
        "Jobs Q3 (job event), M=12, the authors' MAP fit",
    ),
}
SYNTHETIC_M: tuple[int, ...] = (2, 3, 4, 5, 12)
DATASET_PRESETS: tuple[str, ...] = tuple(_FITTED)


def _synthetic() -> dict[str, Prior]:
    out: dict[str, Prior] = {}
    for m in SYNTHETIC_M:
        out[f"balanced{m}"] = Prior(f"balanced{m}", (3.0,) * m, f"synthetic balanced prior [3] x {m}")
        out[f"unbalanced{m}"] = Prior(
            f"unbalanced{m}", (10.0,) + (3.0,) * (m - 1), f"synthetic unbalanced prior [10] + [3] x {m - 1}"
        )
    return out


PRESETS: dict[str, Prior] = {name: Prior(name, a, src) for name, (a, src) in _FITTED.items()} | _synthetic()


def preset_names() -> tuple[str, ...]:
    """Every preset name: the five fitted datasets, then balanced{M} / unbalanced{M} for M in {2, 3, 4, 5, 12}.

    >>> len(preset_names())
    15
    """
    return tuple(PRESETS)


def get_prior(name: str) -> Prior:
    """A preset by name (case-insensitive; "balanced3", "unbalanced_12" and "balanced-5" all work).

    >>> get_prior("toxicity").concentration
    (1.37658107, 1.33054633)
    """
    key = name.strip().lower().replace("_", "").replace("-", "").replace(" ", "")
    for preset in PRESETS.values():
        if preset.name.lower() == key:
            return preset
    raise DataError(f"unknown prior {name!r}: choose from {', '.join(PRESETS)} or type an alpha like 2,1,1")


MIN_ALPHA = 1e-10
"""Smallest alpha value accepted: below it a Dirichlet puts each item's every rating on one label, and the exact
engine's Gauss-Jacobi rule (1 + alpha_m - 1 + alpha0 - alpha_m - 1 rounds to 0 near 1e-17) breaks down; the fit's own
floor is 1e-4 (``fit``)."""


def validate_prior(prior: object) -> tuple[float, ...]:
    """Check a Dirichlet parameter vector: at least 2 finite values, all >= :data:`MIN_ALPHA` (1e-10) and at most
    :data:`MAX_ALPHA` (1e7), at most ``limits.get("labels")`` categories; return it as a tuple of
    floats.

    >>> validate_prior([1, 2.5])
    (1.0, 2.5)
    """
    try:
        arr = np.asarray(prior, dtype=float).ravel()
    except (TypeError, ValueError) as exc:
        raise DataError(f"alpha must be numbers, got {prior!r}") from exc
    if arr.size < 2:
        raise DataError(f"alpha needs at least 2 categories (M >= 2), got {arr.size}")
    limits.check("labels", arr.size, "the prior (alpha)")
    bad = [i + 1 for i, v in enumerate(arr) if not np.isfinite(v) or v <= 0]
    if bad:
        raise DataError(f"alpha values must be finite and > 0; bad position(s): {bad}")
    tiny = [i + 1 for i, v in enumerate(arr) if v < MIN_ALPHA]
    if tiny:
        raise DataError(
            f"alpha values must be at least {MIN_ALPHA:g} (smaller ones put every rating of an item on a single "
            f"label, and the computation's arithmetic underflows); too small at position(s): {tiny}"
        )
    big = [i + 1 for i, v in enumerate(arr) if v > MAX_ALPHA * (1 + 1e-9)]  # a fit at its bound: exp(log(1e7))
    if big:
        raise DataError(
            f"alpha values must be at most {MAX_ALPHA:,.0f} (the fit's ceiling: beyond it items do not differ at all, "
            f"and sums of alpha overflow); too large at position(s): {big}"
        )
    return tuple(float(v) for v in arr)


def parse_alpha(text: str) -> tuple[float, ...]:
    """Parse a typed alpha such as "1.38, 1.33" or "[3 3 3]" (commas, spaces or semicolons).

    >>> parse_alpha("[10, 3 3]")
    (10.0, 3.0, 3.0)
    """
    cleaned = text.strip().strip("[]()").replace(";", ",").replace(" ", ",")
    parts = [p for p in cleaned.split(",") if p.strip()]
    values: list[float] = []
    for p in parts:
        try:
            values.append(float(p))
        except ValueError as exc:
            raise DataError(f"alpha: {p!r} is not a number (type values like 1.38,1.33)") from exc
    return validate_prior(values)


def resolve_prior(name: str | None = None, concentration: str | tuple[float, ...] | None = None) -> Prior:
    """A preset by ``name``, or a typed ``concentration`` (the Dirichlet vector alpha, as a string or numbers),
    exactly one of the two."""
    if (name is None) == (concentration is None):
        raise DataError("give either a preset prior name or an alpha, not both or neither")
    if name is not None:
        return get_prior(name)
    vals = parse_alpha(concentration) if isinstance(concentration, str) else validate_prior(concentration)
    return Prior("custom", vals, "typed alpha")


def expected_accuracy_gap_k1(prior: tuple[float, ...] | np.ndarray, eps: float) -> float:
    """Closed-form expected Accuracy gap at K = 1: eps * (sum_m a_m (a_m + 1) / (a0 (a0 + 1)) - 1/M).

    Derivation: P(A_i = G_i) = E sum_m beta_m^2; P(B_i = G_i) = (1 - eps) E sum beta_m^2 + eps/M,
    E beta_m^2 = a_m (a_m + 1) / (a0 (a0 + 1)). Reference: spec "Two facts a correct implementation shows".

    >>> round(expected_accuracy_gap_k1((1.37658107, 1.33054633), 0.3), 4)
    0.0405
    """
    a = np.asarray(prior, dtype=float)
    a0 = a.sum()
    return float(eps * (np.sum(a * (a + 1)) / (a0 * (a0 + 1)) - 1.0 / a.size))
