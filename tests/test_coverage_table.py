"""The coverage table (issue 53, ``benchmarks/coverage``): its smoke profile runs, its table has the promised
structure, its exact machinery agrees with an independent oracle, and a deliberately broken interval is flagged."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchmarks.coverage.__main__ import FAMILIES, header, measure
from benchmarks.coverage.proportions import binomial_coverage, proportion_rows
from benchmarks.coverage.table import PROFILES, Row, render
from nkcore.common.intervals import clopper_pearson, wilson

SMOKE = PROFILES["smoke"]
KINDS = {"coverage", "type I", "z", "ratio", "share"}


@pytest.fixture(scope="module")
def smoke() -> tuple[list[Row], list[str]]:
    return measure(SMOKE)


def test_smoke_profile_covers_every_family_and_size(smoke: tuple[list[Row], list[str]]) -> None:
    rows, timings = smoke
    assert len(timings) == len(FAMILIES)
    families = {r.family for r in rows}
    assert len(families) >= 7  # proportions, case level, pass@k, sequential, ranking, (N, K), judge
    for r in rows:
        assert r.kind in KINDS, r
        if r.kind in ("coverage", "type I") and not math.isnan(r.measured):
            assert 0.0 <= r.measured <= 1.0, r
            assert r.nominal == (0.95 if r.kind == "coverage" else 0.05)
            assert r.mc_error >= 0.0 and (r.mc_error == 0.0) == (r.reps == 0), r  # exact rows have no replications
    sizes = {r.cases for r in rows if r.family == "Case-level inference with repeats"}
    assert sizes == {str(n) for n in SMOKE.sizes}
    repeats = {r.repeats for r in rows if r.family == "Case-level inference with repeats"}
    assert repeats == {str(n) for n in SMOKE.repeats}
    methods = " ".join(r.method for r in rows)
    for word in ("Wilson", "Clopper-Pearson", "McNemar", "paired bootstrap", "sign-flip", "pass@", "pass^",
                 "majority@", "mixture SPRT", "empirical-Bernstein", "rank intervals", "could be the best",
                 "non-inferiority", "paper's p", "reproducibility", "minimal budget", "PPI"):  # fmt: skip
        assert word.lower() in methods.lower(), word


def test_markdown_page_has_header_and_eleven_columns(smoke: tuple[list[Row], list[str]]) -> None:
    rows, timings = smoke
    page = render(rows, header(SMOKE, "python -m benchmarks.coverage --profile smoke", timings, 1.0))
    assert "profile **smoke**" in page and "cores" in page and "Date (UTC)" in page
    table_lines = [x for x in page.splitlines() if x.startswith("|")]
    assert table_lines and all(x.count("|") == 12 for x in table_lines)
    flagged = [r for r in rows if r.flagged]
    assert f"## Flagged cells ({len(flagged)})" in page


def test_exact_coverage_matches_an_independent_oracle() -> None:
    """binomial_coverage of Clopper-Pearson against scipy's own exact interval, summed by hand."""
    n, p = 15, np.array([0.3, 0.5])
    ours = binomial_coverage(clopper_pearson, n, p)
    for j, pj in enumerate(p):
        total = 0.0
        for k in range(n + 1):
            ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
            total += stats.binom.pmf(k, n, pj) * (ci.low <= pj <= ci.high)
        assert ours[j] == pytest.approx(total, abs=1e-12)


def test_a_too_narrow_interval_is_flagged_and_a_sound_one_is_not() -> None:
    def too_narrow(k: int, n: int, confidence: float) -> tuple[float, float]:
        lo, hi = wilson(k, n, confidence)
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        return mid - 0.5 * half, mid + 0.5 * half

    broken = [r for r in proportion_rows(SMOKE, too_narrow, "half-width Wilson", "test") if r.rate == "0.5"]
    sound = [r for r in proportion_rows(SMOKE, clopper_pearson, "Clopper-Pearson", "test") if r.rate == "0.5"]
    assert broken and all(r.flagged and r.flag == "LOW" and r.measured < 0.8 for r in broken)
    assert sound and not any(r.flagged for r in sound)


def test_flag_rule_reads_the_monte_carlo_error() -> None:
    def row(kind: str, measured: float, se: float) -> Row:
        return Row("f", "m", "p", "15", "1", "0.5", kind, 0.95 if kind == "coverage" else 0.05, measured, se, 100)

    assert row("coverage", 0.925, 0.01).flag == "LOW (within MC error)"
    assert row("coverage", 0.90, 0.01).flag == "LOW"
    assert row("coverage", 0.93, 0.01).flag == ""
    assert row("type I", 0.06, 0.001).flag == "HIGH"
    assert row("type I", 0.056, 0.001).flag == "HIGH (within MC error)"
    assert row("type I", 0.055, 0.001).flag == ""
    assert row("z", -3.5, 1.0).flagged and not row("z", 2.0, 1.0).flagged
