"""The coverage table's rows, profiles, flag rule and Markdown rendering (no simulation here).

A row is one cell of one method: what the product prints it for, the sizes (cases, repeats, rate), the nominal
level, the measured coverage (or type I error, or another named quantity), its Monte Carlo standard error and the
number of replications. A coverage row is flagged when it is below 0.93, a type I row when it is above 0.055 (at
alpha = 0.05); "within MC error" is added when the threshold lies within two Monte Carlo standard errors of the
measured value, so a flag can be told from noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

COVERAGE_FLOOR = 0.93
TYPE1_CEILING = 0.055
Z_LIMIT = 3.0
SIZES = (15, 30, 60, 120, 500)
REPEATS = (1, 3, 10)


@dataclass(frozen=True, slots=True)
class Profile:
    """How much simulation: ``reps`` replications per cell (``big`` for cheap vectorised cells, ``rank`` for the
    bootstrap-heavy ranking cells), the case sizes and repeats, the NK seeds and rounds."""

    name: str
    reps: int
    big: int
    rank: int
    sizes: tuple[int, ...] = SIZES
    repeats: tuple[int, ...] = REPEATS
    rank_repeats: tuple[int, ...] = REPEATS
    nk_seeds: int = 300
    nk_rounds: int = 200
    nk_search: int = 16
    seed: int = 20261207


PROFILES = {
    "smoke": Profile(
        "smoke",
        reps=60,
        big=400,
        rank=10,
        sizes=(15, 60),
        repeats=(1, 3),
        rank_repeats=(1,),
        nk_seeds=20,
        nk_rounds=100,
        nk_search=1,
    ),
    "short": Profile("short", reps=500, big=4000, rank=80, rank_repeats=(1, 10), nk_seeds=300, nk_search=12),
    "long": Profile("long", reps=2500, big=20000, rank=400, nk_seeds=1500, nk_rounds=500, nk_search=40),
}


@dataclass(frozen=True, slots=True)
class Row:
    """One measured cell. ``kind``: "coverage" (flag below 0.93), "type I" (flag above 0.055), "z" (flag beyond
    +-3), or "ratio" / "share" (a quantity with its own reading, never flagged). ``mc_error`` is 0 for exact
    enumerations."""

    family: str
    method: str
    printed_for: str
    cases: str
    repeats: str
    rate: str
    kind: str
    nominal: float
    measured: float
    mc_error: float
    reps: int
    note: str = ""
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        """Below 0.93 coverage or above 0.055 type I error (the point estimate)."""
        if math.isnan(self.measured):
            return False
        if self.kind == "coverage":
            return self.measured < COVERAGE_FLOOR
        if self.kind == "type I":
            return self.measured > TYPE1_CEILING
        if self.kind == "z":
            return abs(self.measured) > Z_LIMIT
        return False

    @property
    def flag(self) -> str:
        """ "" or "LOW" / "HIGH", with "(within MC error)" when the threshold is within 2 standard errors."""
        if not self.flagged:
            return ""
        if self.kind == "z":
            return "DISAGREE"
        word = "LOW" if self.kind == "coverage" else "HIGH"
        limit = COVERAGE_FLOOR if self.kind == "coverage" else TYPE1_CEILING
        return f"{word} (within MC error)" if abs(self.measured - limit) <= 2 * self.mc_error else word


def binomial_se(share: float, reps: int) -> float:
    """Monte Carlo standard error of a share from ``reps`` independent replications, sqrt(s (1 - s) / reps)
    (floored at the error of one replication in either direction, so 0 or 1 hits are not reported exact)."""
    if reps <= 0:
        return math.nan
    s = min(max(share, 0.5 / reps), 1.0 - 0.5 / reps)
    return math.sqrt(s * (1.0 - s) / reps)


def _num(x: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(x) else f"{x:.{digits}f}"


def render(rows: list[Row], header: list[str]) -> str:
    """The Markdown page: ``header`` lines, the flagged cells first, then one table per family."""
    out = list(header)
    flagged = [r for r in rows if r.flagged]
    out += ["", f"## Flagged cells ({len(flagged)})", ""]
    if flagged:
        out += _table(flagged)
    else:
        out.append("None: every coverage is at least 0.93 and every type I error at most 0.055.")
    families: list[str] = []
    for r in rows:
        if r.family not in families:
            families.append(r.family)
    for fam in families:
        out += ["", f"## {fam}", ""]
        out += _table([r for r in rows if r.family == fam])
        notes = sorted({r.note for r in rows if r.family == fam and r.note})
        if notes:
            out.append("")
            out += [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"


def _table(rows: list[Row]) -> list[str]:
    head = "| method | printed for | cases | repeats | rate | measures | nominal | measured | MC error | reps | flag |"
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        nominal = "-" if math.isnan(r.nominal) else f"{r.nominal:g}"
        mc = "exact" if r.mc_error == 0.0 else _num(r.mc_error, 4)
        lines.append(
            f"| {r.method} | {r.printed_for} | {r.cases} | {r.repeats} | {r.rate} | {r.kind} | {nominal} | "
            f"{_num(r.measured)} | {mc} | {r.reps or '-'} | {r.flag} |"
        )
    return lines
