"""Reproducibility's stated error (issue 53) against the spread it claims to describe.

The exact engine states one standard error of P(S1 > 0) where the per-item law is estimated from drawn items; the
simulation states the binomial Monte Carlo error of its share. Both are checked against the spread of the number
itself over independent seeds: the engine's fixed seeds (``laws.ENGINE_SEED``, ``nested.NESTED_SEED``,
``pool.POOL_SEED``) replaced by others, the simulation's ``seed`` changed. With S seeds the sample standard
deviation s has s^2 (S - 1) / sigma^2 ~ chi-square(S - 1); the ratio s / stated must fall inside the central 99.9%
of that law (so a stated error half or twice too large fails). Also the Cell, the CLI JSON and text carry it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from nkcore.cli import main
from nkcore.nk.exact import cells, laws, nested, pool
from nkcore.nk.exact.cells import cell_numbers
from nkcore.nk.exact.laws import clear_caches, item_laws
from nkcore.nk.grid import simulate_cell
from nkcore.nk.number_words import fmt_share_error

DICES = (5.21765954, 0.85824731, 2.74833849)
SEEDS = 24


def _ratio_bounds(seeds: int, level: float = 0.999) -> tuple[float, float]:
    """Central ``level`` range of s / sigma for ``seeds`` normal draws: sqrt(chi2(seeds - 1) / (seeds - 1))."""
    lo, hi = stats.chi2.ppf([(1 - level) / 2, (1 + level) / 2], seeds - 1)
    return float(np.sqrt(lo / (seeds - 1))), float(np.sqrt(hi / (seeds - 1)))


@pytest.mark.parametrize(("k", "n", "metric"), [(50, 20, "acc"), (40, 100, "kl"), (9, 30, "wins")])
def test_engine_reproducibility_error_is_the_spread_over_seeds(
    k: int, n: int, metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    values, stated = [], []
    for s in range(SEEDS):
        monkeypatch.setattr(laws, "ENGINE_SEED", 7_000 + s)
        monkeypatch.setattr(nested, "NESTED_SEED", 8_000 + s)
        monkeypatch.setattr(pool, "POOL_SEED", 9_000 + s)
        clear_caches()
        alt, null = item_laws(DICES, 0.3, k, [metric])
        assert not alt[metric].exact
        got = cell_numbers(alt[metric], null[metric], n)
        values.append(got.reproducibility)
        stated.append(got.reproducibility_error)
    clear_caches()
    sd, err = float(np.std(values, ddof=1)), float(np.mean(stated))
    lo, hi = _ratio_bounds(SEEDS)
    assert err > 0 and lo < sd / err < hi, (values, stated)


def test_simulation_reproducibility_error_is_the_spread_over_seeds() -> None:
    values, stated = [], []
    for s in range(SEEDS):
        (c,) = simulate_cell(DICES, 0.3, 1000, 50, ["acc"], rounds=400, seed=100 + s, workers=1)
        values.append(c.reproducibility)
        stated.append(c.reproducibility_error)
    sd, err = float(np.std(values, ddof=1)), float(np.mean(stated))
    lo, hi = _ratio_bounds(SEEDS)
    assert err > 0 and lo < sd / err < hi, (values, stated)
    # the binomial error of each share by hand, Agresti-Coull's: r~ = (x + 2) / (rounds + 4)
    tilde = (values[0] * 400 + 2) / 404
    assert stated[0] == pytest.approx(np.sqrt(tilde * (1 - tilde) / 404))


def test_a_wrong_error_fails_the_check() -> None:
    """The check above can fail: a stated error off by a factor of 2 either way falls outside its range (24 seeds:
    0.55 to 1.50)."""
    lo, hi = _ratio_bounds(SEEDS)
    assert not lo < 2.0 < hi and not lo < 0.5 < hi


def test_exact_laws_state_no_error_and_the_lattice_form_matches_the_standalone_one() -> None:
    alt, null = item_laws(DICES, 0.3, 1, ["acc"])  # K = 1: the outcome law is enumerated
    assert alt["acc"].exact and cell_numbers(alt["acc"], null["acc"], 20).reproducibility_error == 0.0
    alt, null = item_laws(DICES, 0.3, 50, ["acc"])
    got = cell_numbers(alt["acc"], null["acc"], 20)
    h, _, _ = cells.plan(alt["acc"], null["acc"], 20)
    assert got.reproducibility_error == pytest.approx(cells.reproducibility_error(alt["acc"], 20, h), rel=1e-9)


def test_cli_json_and_text_carry_the_error(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["nk", "--alpha", ",".join(map(str, DICES)), "--eps", "0.3", "--budget", "1000", "--k", "50"]
    assert main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    alt, null = item_laws(DICES, 0.3, 50, ["acc"])
    want = cell_numbers(alt["acc"], null["acc"], 20)
    assert got["reproducibility"] == pytest.approx(want.reproducibility)
    assert got["reproducibility_error"] == pytest.approx(want.reproducibility_error) and got["p_error"] > 0
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert fmt_share_error(want.reproducibility, want.reproducibility_error) in out and "±" in out
    grid = [*argv[:5], "--grid", "--budgets", "1000", "--ks", "50", "--metric", "acc"]
    assert main([*grid, "--json"]) == 0
    (cell,) = json.loads(capsys.readouterr().out)
    assert cell["reproducibility_error"] == pytest.approx(want.reproducibility_error)
    assert main(grid) == 0
    assert f"{want.reproducibility_error:.1g}" in capsys.readouterr().out
