"""The exact (N, K) engine against closed forms, brute force, the toolkit's p-value checks and the simulation."""

from __future__ import annotations

import json
from itertools import product
from typing import Any

import numpy as np
import pytest

from nkcore.cli import main
from nkcore.errors import DataError
from nkcore.nk import outcomes
from nkcore.nk.exact import best_k_for_budget, exact_cell, exact_grid, min_budget_continuous
from nkcore.nk.exact import convolve as cv
from nkcore.nk.exact.cells import cell_numbers, cell_p, plan
from nkcore.nk.exact.item_law import ItemLaw, law_from_units, symmetrised
from nkcore.nk.exact.laws import item_laws
from nkcore.nk.exact.search import smallest_n
from nkcore.nk.grid import best_k, configurations, simulate_cell
from nkcore.nk.priors import get_prior

TOX = get_prior("Toxicity").concentration
DICES = get_prior("DICES").concentration


def _acc_k1_closed_form(alpha: tuple[float, ...], eps: float) -> float:
    a = np.asarray(alpha)
    a0 = a.sum()
    return float(eps * ((a * (a + 1)).sum() / (a0 * (a0 + 1)) - 1 / a.size))


@pytest.mark.parametrize("name", ["Toxicity", "DICES", "JobsQ3", "balanced3"])
def test_k1_accuracy_gap_closed_form_and_wins_equal_accuracy(name: str) -> None:
    alpha = get_prior(name).concentration
    alt, _null = item_laws(alpha, 0.3, 1, ["acc", "wins"])
    assert alt["acc"].exact
    assert alt["acc"].mean / alt["acc"].scale == pytest.approx(_acc_k1_closed_form(alpha, 0.3), abs=1e-12)
    # at K = 1 Wins is Accuracy item by item: the same law, so the same cells
    np.testing.assert_array_equal(alt["acc"].values, alt["wins"].values)
    np.testing.assert_allclose(alt["acc"].prob, alt["wins"].prob, atol=1e-15)
    acc, wins = exact_cell(alpha, 0.3, 1000, 1, ["acc", "wins"])
    assert (acc.p, acc.delta, acc.ci_width) == pytest.approx((wins.p, wins.delta, wins.ci_width), abs=1e-12)


def test_toxicity_closed_form_value() -> None:
    (cell,) = exact_cell(TOX, 0.3, 100, 1, ["acc"])
    assert round(cell.delta, 4) == 0.0405 and cell.mean_gap > 0
    assert cell.method == "lattice" and cell.p_error == 0 and cell.delta_error == 0 and cell.rounds == 0


@pytest.mark.parametrize(("alpha", "k"), [(TOX, 1), (TOX, 4), (DICES, 2), ((1.0, 2.0, 3.0, 4.0), 1)])
def test_null_law_is_symmetric(alpha: tuple[float, ...], k: int) -> None:
    """Under the null A and B are exchangeable: the exact per-item null law is symmetric about 0."""
    _, null = item_laws(alpha, 0.3, k, ["acc", "tv", "wins", "kl"])
    for law in null.values():
        assert law.exact
        np.testing.assert_allclose(law.values, -law.values[::-1], atol=4.0)  # 2^32 units: rounding of the logs
        np.testing.assert_allclose(law.prob, law.prob[::-1], atol=1e-13)


def test_fft_power_equals_direct_enumeration() -> None:
    """Tiny N: the N-fold law by enumerating every N-tuple of items equals the FFT power."""
    alt, _ = item_laws(TOX, 0.3, 2, ["tv"])
    law = alt["tv"]
    h = law.step
    lat = cv.on_lattice(law.values, law.prob, h)
    for n in (1, 2, 3, 4):
        direct: dict[int, float] = {}
        for combo in product(range(law.values.size), repeat=n):
            s = int(sum(law.values[list(combo)]) // h)
            direct[s] = direct.get(s, 0.0) + float(np.prod(law.prob[list(combo)]))
        got = cv.power(lat, n)
        for s, pr in direct.items():
            assert got.pmf[s - got.lo] == pytest.approx(pr, abs=1e-14)
        assert got.pmf.sum() == pytest.approx(1.0)


def test_cell_p_equals_brute_force_over_datasets() -> None:
    """p = P(S0 >= S1) (sign rule applied) by enumerating every pair of datasets of N = 3 items."""
    alt, null = item_laws(DICES, 0.3, 1, ["acc", "kl"])
    for mt in ("acc", "kl"):
        a, b = alt[mt], null[mt]
        n = 3
        sums: list[dict[float, float]] = []
        for law in (a, b):
            d: dict[float, float] = {}
            for combo in product(range(law.values.size), repeat=n):
                s = float(sum(law.values[list(combo)]))
                d[s] = d.get(s, 0.0) + float(np.prod(law.prob[list(combo)]))
            sums.append(d)
        s1, s0 = sums

        def median(d: dict[float, float]) -> float:
            acc = 0.0
            for v in sorted(d):
                acc += d[v]
                if acc >= 0.5 - 1e-12:
                    return v
            return max(d)

        flip = median(s0) > median(s1)
        brute = sum(p1 * p0 for v1, p1 in s1.items() for v0, p0 in s0.items() if (v0 <= v1 if flip else v0 >= v1))
        assert cell_numbers(a, b, n).p == pytest.approx(brute, abs=1e-12)
        assert cell_p(a, b, n) == pytest.approx(brute, abs=1e-12)


def _law(values: list[float], scale: float = 1.0) -> ItemLaw:
    return law_from_units(np.rint(np.asarray(values) * scale).astype(np.int64), None, scale, True, 0)


@pytest.mark.parametrize(
    ("null", "alt", "expected"),
    [
        (list(range(10)), [4.5] * 10, 0.5),
        (list(range(10)), list(range(10)), 0.55),
        ([0.5] * 10, [0.5] * 10, 1.0),
        ([100] + [1] * 9, [10] * 10, 0.1),
    ],
)
def test_toolkit_p_value_unit_checks(null: list[float], alt: list[float], expected: float) -> None:
    """The authors' four unit checks: laws equal to the toolkit's samples, one item (N = 1)."""
    c = cell_numbers(_law(alt, 2.0), _law(null, 2.0), 1)
    assert c.p == pytest.approx(expected, abs=1e-12)


def test_cells_follow_the_simulation() -> None:
    """Two cells against 2000 + 2000 simulated rounds, |z| < 4 with the simulation's Monte Carlo error."""
    for budget, k, mt in ((1000, 120, "tv"), (2500, 1, "acc")):
        (c,) = exact_cell(TOX, 0.3, budget, k, [mt])
        (s,) = simulate_cell(TOX, 0.3, budget, k, [mt], rounds=2000, seed=11)
        se_p = np.sqrt(2 * max(c.p * (1 - c.p), 1e-4) / 2000)
        assert abs(s.p - c.p) < 4 * np.hypot(se_p, c.p_error)
        se_d = float(np.std(c.alt)) / np.sqrt(2000)
        assert abs(s.delta - c.delta) < 4 * np.hypot(se_d, c.delta_error)


def test_gap_points_are_the_laws_quantiles() -> None:
    (c,) = exact_cell(TOX, 0.3, 1000, 1, ["acc"])
    assert c.alt.shape == (1000,) and c.null.shape == (1000,)
    assert np.all(np.diff(c.alt) >= 0) and np.all(np.diff(c.null) >= 0)
    assert np.mean(c.alt) == pytest.approx(c.mean_gap, abs=2e-3)  # quantile points: the mean up to the grid
    assert abs(np.median(c.null)) < 1e-12  # the null is symmetric about 0


def test_grid_order_and_fields_match_the_simulation() -> None:
    budgets, ks, mts = [100, 250], [1, 2, 20], ["acc", "tv"]
    cells = exact_grid(TOX, 0.3, budgets, ks, mts)
    # a prior's exact cells: an engine method, no real-data, policy or crossed part
    assert all(
        c.method in ("lattice", "edgeworth", "normal") and (c.real, c.allocation, c.crossed) == (None,) * 3
        for c in cells
    )
    assert [(c.budget, c.k, c.metric) for c in cells] == [
        (cfg.budget, cfg.k, mt) for cfg in configurations(budgets, ks) for mt in mts
    ]
    assert {"method", "p_error", "delta_error", "ci_width_error"} <= set(cells[0].summary())
    sim = simulate_cell(TOX, 0.3, 100, 1, ["acc"], rounds=20)[0]
    assert sim.method == "simulate" and np.isnan(sim.p_error)


def test_macro_f1_falls_back_to_the_simulation() -> None:
    cells = exact_grid(TOX, 0.3, [100], [1], ["acc", "f1"])
    assert [c.method for c in cells] == ["lattice", "simulate"]


def test_p_is_monotone_in_items_up_to_lattice_effects() -> None:
    """For a fixed K, p falls with N (measured: any rise is a lattice effect below 0.01)."""
    for mt, k in (("acc", 1), ("tv", 20), ("acc", 3)):
        alt, null = item_laws(TOX, 0.3, k, [mt])
        ps = np.array([cell_p(alt[mt], null[mt], n) for n in range(1, 200)])
        assert np.max(np.diff(ps)) < 0.01
        assert ps[-1] < ps[0]


def test_smallest_n_by_scanning() -> None:
    alt, null = item_laws(TOX, 0.3, 20, ["tv"])
    n = smallest_n(TOX, 0.3, "tv", 20, 0.05, 2500)
    assert n is not None
    scan = next(m for m in range(1, 2501) if cell_p(alt["tv"], null["tv"], m) < 0.05)
    assert n == scan


def test_min_budget_continuous_and_best_k() -> None:
    mb = min_budget_continuous(TOX, 0.3, "tv", ks=[1, 20, 120])
    assert mb.budget is not None and mb.k is not None and mb.p is not None and mb.p < 0.05
    n = mb.budget // mb.k
    alt, null = item_laws(TOX, 0.3, mb.k, ["tv"])
    assert cell_p(alt["tv"], null["tv"], n - 1) >= 0.05  # one item fewer does not reach it
    # no K reaches it with a smaller budget
    for k in (1, 20, 120):
        a, b = item_laws(TOX, 0.3, k, ["tv"])
        m = (mb.budget - 1) // k
        assert m < 1 or cell_p(a["tv"], b["tv"], m) >= 0.05
    bk = best_k_for_budget(TOX, 0.3, "tv", 1000, [1, 20, 120])
    (ref,) = best_k(exact_grid(TOX, 0.3, [1000], [1, 20, 120], ["tv"]), "tv")
    assert (bk.k, bk.p) == (ref.k, ref.p)
    assert min_budget_continuous(TOX, 0.0, "acc", ks=[1], max_budget=500).budget is None
    with pytest.raises(DataError, match="not a mean over items"):
        min_budget_continuous(TOX, 0.3, "f1")


def test_bad_input() -> None:
    with pytest.raises(DataError):
        exact_cell(TOX, 1.5, 100, 1)
    with pytest.raises(DataError, match="larger than the budget"):
        exact_cell(TOX, 0.3, 100, 120)
    with pytest.raises(DataError):
        exact_grid((1.0, -1.0), 0.3, [100], [1])


def test_symmetrised_law() -> None:
    law = symmetrised(law_from_units(np.array([3, -1, 3]), None, 1.0, False, 3))
    assert law.mean == 0 and law.mean_se == 0
    np.testing.assert_allclose(law.prob, law.prob[::-1])


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Any:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_method(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["nk", "--prior", "Toxicity", "--budget", "1000", "--k", "1", "--metric", "acc", "--json"]
    exact = _json(capsys, base)
    assert exact["method"] == "lattice" and exact["rounds"] == 0 and exact["p_error"] == 0
    for key in ("budget", "k", "n", "metric", "p", "delta", "ci_width", "reproducibility", "ties", "mean_gap"):
        assert key in exact
    sim = _json(capsys, [*base, "--method", "simulate", "--rounds", "50"])
    assert sim["method"] == "simulate" and sim["rounds"] == 50 and sim["p_error"] is None
    assert set(exact) == set(sim)
    grid = _json(capsys, ["nk", "--prior", "JobsQ1", "--grid", "--budgets", "100,250", "--ks", "1,20", "--json"])
    assert len(grid) == 4 * 4 and {g["method"] for g in grid} <= {"lattice", "edgeworth"}
    mb = _json(capsys, ["nk", "--prior", "JobsQ1", "--min-budget", "--budgets", "100,250", "--ks", "1,20", "--json"])
    # the contract's keys, and the engine's answer between the grid's budgets (the Budget page's number)
    assert [set(x) for x in mb] == [{"metric", "budget", "k", "p", "any_budget"}] * 4
    for x in mb:
        want = min_budget_continuous(get_prior("JobsQ1").concentration, 0.3, x["metric"], [1, 20], max_budget=50_000)
        assert x["any_budget"] == {"budget": want.budget, "k": want.k, "p": want.p}


def test_exact_outcome_law_fits_where_the_engine_says_exact() -> None:
    alt, _ = item_laws(DICES, 0.3, 3, ["acc"])
    assert alt["acc"].exact == outcomes.law_fits(3, 3)
    alt, _ = item_laws(DICES, 0.3, 40, ["acc"])
    assert not alt["acc"].exact and alt["acc"].n_items > 0 and alt["acc"].mean_se > 0


def test_windowed_power_is_the_binomial() -> None:
    """Sum of N Bernoulli(0.3) items = Binomial(N, 0.3): the window keeps all but < 1e-15 of the mass."""
    from scipy import stats

    lat = cv.Lattice(1.0, 0, np.array([0.7, 0.3]))
    for n in (10, 5000, 200_000):
        s = cv.power(lat, n)
        if n > 10:
            assert s.pmf.size < n + 1  # a window, not the whole support
        ref = stats.binom.pmf(np.arange(s.lo, s.hi + 1), n, 0.3)
        np.testing.assert_allclose(s.pmf, ref, atol=1e-13)
        assert 1.0 - ref.sum() < 1e-15


def test_chernoff_window_of_a_skewed_law_is_the_full_convolution() -> None:
    """A rare large value (the log metrics' shape): Bernstein's range term would keep the whole support, Chernoff's
    bound keeps a short window, and the window holds the full convolution's numbers (direct np.convolve) to
    round-off, with less than 1e-15 of the mass outside it."""
    pmf = np.zeros(401)
    pmf[:5] = [0.5, 0.3, 0.15, 0.04, 0.0098]
    pmf[400] = 0.0002
    lat = cv.Lattice(1.0, -2, pmf / pmf.sum())
    n = 60
    full = np.ones(1)
    for _ in range(n):
        full = np.convolve(full, lat.pmf)
    s, rest = cv.powers(lat, n)
    assert s.pmf.size < full.size / 4  # a window of the 24,001-point support
    assert s.lo >= lat.lo * n and s.hi <= lat.hi * n
    inside = full[s.lo - lat.lo * n : s.hi - lat.lo * n + 1]
    assert 1.0 - inside.sum() < 1e-15
    np.testing.assert_allclose(s.pmf, inside / inside.sum(), atol=1e-15)
    full_rest = np.ones(1)
    for _ in range(n - 1):
        full_rest = np.convolve(full_rest, lat.pmf)
    inside = full_rest[rest.lo - lat.lo * (n - 1) : rest.hi - lat.lo * (n - 1) + 1]
    np.testing.assert_allclose(rest.pmf, inside / inside.sum(), atol=1e-15)


@pytest.mark.parametrize("factor", [2, 3])
def test_a_coarser_lattices_window_from_the_fine_one_is_the_full_convolution(factor: int) -> None:
    """``convolve.coarse_extent`` gives a coarser lattice of the same law (nearest points) the window of its N-fold
    sum from the fine lattice's tail bound: the coarse sum on that window is the full convolution of the coarse law
    (np.convolve) to round-off, with < 1e-15 of the mass outside it, and the window is a fraction of the support."""
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.gamma(2.0, 1.0, 400), [400.0]])  # a rare large value (the log metrics' shape)
    prob = np.concatenate([np.full(400, 0.9998 / 400), [0.0002]])
    fine = cv.on_lattice(values, prob, 0.05, True)
    coarse = cv.on_lattice(values, prob, 0.05 * factor, True)
    n = 25
    cv.coarse_extent(fine, coarse, n)
    full = np.ones(1)
    for _ in range(n):
        full = np.convolve(full, coarse.pmf)
    s = cv.power(coarse, n)
    assert s.pmf.size < full.size / 4
    inside = full[s.lo - coarse.lo * n : s.hi - coarse.lo * n + 1]
    assert full.sum() - inside.sum() < 1e-15
    np.testing.assert_allclose(s.pmf, inside / inside.sum(), atol=1e-15)


@pytest.mark.parametrize("alpha", [(0.2, 3.0, 200.0), DICES, (1.0, 1.0, 1.0, 1.0, 300.0)])
def test_exact_means_equal_the_enumerated_outcome_law(alpha: tuple[float, ...]) -> None:
    """The quadrature means (``means.exact_mean``: TV, KL, smoothed KL, CE) against the mean of the exact outcome
    law (every outcome of gold, A and B enumerated with its probability, ``outcomes``), within the quadrature's
    own error estimate plus the 2^-32 rounding of the log metrics' units: a concentrated prior (few nodes on its
    beta axis, ``means.CONCENTRATED``), a wide one, and a mixed one."""
    from nkcore.nk.exact.means import MEAN_METRICS, exact_mean

    m = len(alpha)
    ks = [k for k in range(1, 9) if outcomes.law_fits(k, m)]
    assert len(ks) >= 2
    for k, eps in product(ks, (0.1, 0.4)):
        alt, _ = item_laws(alpha, eps, k, list(MEAN_METRICS))
        for mt in MEAN_METRICS:
            assert alt[mt].exact
            got = exact_mean(alpha, eps, k, mt)
            assert got is not None
            mean, err = got
            assert abs(mean - alt[mt].mean) <= err + 1.0 + 1e-9 * abs(alt[mt].mean), (k, eps, mt, mean, alt[mt].mean)
            assert err <= 1e-6 * max(abs(alt[mt].mean), 1.0) + 1.0, (k, eps, mt, err)


@pytest.mark.parametrize(("name", "k", "n"), [("Toxicity", 20, 31), ("Toxicity", 20, 100), ("DICES", 20, 50)])
def test_a_binned_lattices_p_is_its_limit_as_the_step_shrinks(name: str, k: int, n: int) -> None:
    """KL's laws are off every integer lattice; from N = 31 on the cells put them on a lattice by linear binning,
    whose spurious ties would bias p up by about f(0) h / 2 (+0.0015 at Toxicity, K 20, N 31). The cell's p against
    the limit h -> 0 by Richardson extrapolation of the uncorrected lattice p at h / 4 and h / 8 (the bias is
    linear in h): within 2e-4."""
    from nkcore.nk.exact.cells import _lattice_numbers

    alt, null = (law["kl"] for law in item_laws(get_prior(name).concentration, 0.3, k, ["kl"]))
    h, exact_step, edge = plan(alt, null, n)
    assert not exact_step and not edge
    p4, p8 = (_lattice_numbers(alt, null, n, h / f).p for f in (4, 8))
    limit = 2 * p8 - p4
    assert abs(p4 - limit) > 1.5e-5  # the uncorrected bias is there, and shrinks with h
    (c,) = exact_cell(get_prior(name).concentration, 0.3, n * k, k, ["kl"])
    assert c.method == "lattice"
    assert abs(c.p - limit) < 2e-4, (c.p, limit)
    assert abs(cell_p(alt, null, n) - c.p) < 1e-12


def test_a_cell_with_p_zero_on_a_binned_lattice_has_a_finite_p_error() -> None:
    """JS at Toxicity, K 440, N 56 (budget 25,000): p is 0 to double precision on a linearly binned lattice; the
    binning term of p_error is phi(z) |z| h^2 / ..., whose limit is 0, not 0 x inf (it was NaN in the grid's JSON)."""
    from nkcore.nk.exact.accuracy import binning_error

    alt, null = (law["js"] for law in item_laws(TOX, 0.3, 440, ["js"]))
    h, exact_step, edge = plan(alt, null, 56)
    assert not exact_step and not edge
    assert binning_error(alt, null, h, 0.0) == 0.0
    (c,) = exact_cell(TOX, 0.3, 25_000, 440, ["js"])
    assert c.p == 0.0 and np.isfinite(c.p_error)


def test_each_metric_draws_the_items_its_own_p_values_need() -> None:
    """Close models at K = 2 (balanced12): Accuracy's p stays in play to large N, so its law rests on many items;
    TV's mean is exact, so its law rests on the pilot (MIN_ITEMS); Accuracy's law is the same asked alone or with TV
    (the same first items of one stream), and TV asked alone draws no more than the pilot."""
    from nkcore.nk.exact.laws import MIN_ITEMS, clear_caches

    alpha = get_prior("balanced12").concentration
    clear_caches()
    alt, _ = item_laws(alpha, 0.3, 2, ["acc", "tv"])
    assert alt["tv"].n_items == MIN_ITEMS and alt["tv"].pinned
    assert alt["acc"].n_items > 4 * MIN_ITEMS
    acc_with_tv = alt["acc"]
    clear_caches()
    (alone,) = item_laws(alpha, 0.3, 2, ["acc"])[0].values()
    assert alone.n_items == acc_with_tv.n_items
    np.testing.assert_array_equal(alone.values, acc_with_tv.values)
    np.testing.assert_array_equal(alone.prob, acc_with_tv.prob)


def test_edgeworth_p_error_counts_the_estimated_spread_of_a_pinned_law() -> None:
    """A law pinned to its exact mean still has an estimated variance: on the Edgeworth path p_error includes it
    (the normal form's term, phi(z) z se(var) / (2 var)), so it is not the quadrature's error alone. Checked where
    the Edgeworth path is taken for KL (balanced12, budget 2,500, K = 5: N = 500)."""
    from nkcore.nk.exact import accuracy

    alt, null = item_laws(get_prior("balanced12").concentration, 0.3, 5, ["kl"])
    a, z = alt["kl"], null["kl"]
    assert a.pinned and a.mean_se < 1e-3 * np.sqrt(a.var / a.n_items)
    c = cell_numbers(a, z, 500)
    assert c.method == "edgeworth"
    spread = accuracy.normal_p_error(a, z, 500)
    assert spread > 1e-5 and c.p_error >= spread


def test_a_cells_numbers_do_not_depend_on_what_else_is_asked() -> None:
    """Same (prior, eps, budget, K, metric), same numbers, alone or inside a grid with other metrics and budgets."""
    from nkcore.nk.exact.laws import clear_caches

    clear_caches()
    (alone,) = exact_cell(DICES, 0.3, 1000, 40, ["tv"])
    clear_caches()
    grid = exact_grid(DICES, 0.3, [250, 1000], [20, 40], ["acc", "tv", "kl"])
    (inside,) = [c for c in grid if (c.budget, c.k, c.metric) == (1000, 40, "tv")]
    assert (alone.p, alone.delta, alone.ci_width, alone.p_error) == (
        inside.p,
        inside.delta,
        inside.ci_width,
        inside.p_error,
    )


def test_error_terms_on_the_coarser_lattice_match_a_finer_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nearest-point cells (KL, N <= 30) compute their error terms on a lattice ``ERROR_COARSEN`` times coarser than
    p's: p_error within 5% and the CI-width's error within 10% of those of a lattice 4 times finer everywhere
    (``NEAREST_POINTS`` x 4), and p within its p_error of that lattice's."""
    from nkcore.nk.exact import cells

    alt, null = item_laws(DICES, 0.3, 60, ["kl"])
    for n in (2, 10, 25):
        got = cell_numbers(alt["kl"], null["kl"], n)
        monkeypatch.setattr(cells, "NEAREST_POINTS", cells.NEAREST_POINTS * 4)
        cells._LATTICES.clear()
        fine = cell_numbers(alt["kl"], null["kl"], n)
        monkeypatch.undo()
        assert abs(got.p - fine.p) < got.p_error
        assert got.p_error == pytest.approx(fine.p_error, rel=0.05) and fine.p_error > 0
        assert got.ci_width_error == pytest.approx(fine.ci_width_error, rel=0.10) and fine.ci_width_error > 0


@pytest.mark.parametrize(
    ("name", "eps", "k", "n"), [("Toxicity", 0.1, 60, 1), ("Toxicity", 0.1, 100, 25), ("DICES", 0.3, 60, 2)]
)
def test_a_nearest_point_lattices_p_is_its_limit_as_the_step_shrinks(
    name: str, eps: float, k: int, n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rounding KL's values to the nearest of ``NEAREST_POINTS`` points makes ties (biasing p up by about half of
    them); the cell takes half the ties the rounding made off p (``cells._untie``). Against the limit (2^19 points,
    Richardson-extrapolated from 2^18: the bias is linear in the step) the corrected p is within its p_error, and
    closer than the uncorrected p (Toxicity at eps 0.1, K 100, N 25: 0.010 too high on 2^14 points uncorrected)."""
    from nkcore.nk.exact import cells

    alt, null = (law["kl"] for law in item_laws(get_prior(name).concentration, eps, k, ["kl"]))
    _, exact_step, edge = plan(alt, null, n)
    assert not exact_step and not edge and n <= cells.NEAREST_MAX_N
    got = cell_numbers(alt, null, n)
    monkeypatch.setattr(cells, "_untie", lambda p, *_: (p, 0.0))
    raw = cell_numbers(alt, null, n).p
    lim = []
    for points in (1 << 18, 1 << 19):
        monkeypatch.setattr(cells, "NEAREST_POINTS", points)
        cells._LATTICES.clear()
        lim.append(cell_numbers(alt, null, n).p)
    monkeypatch.undo()
    cells._LATTICES.clear()
    limit = 2 * lim[1] - lim[0]
    assert abs(got.p - limit) <= got.p_error, (got.p, limit, got.p_error)
    assert abs(got.p - limit) < abs(raw - limit), (got.p, raw, limit)
    assert cell_p(alt, null, n) == got.p


def test_a_point_mass_at_zero_takes_the_other_laws_lattice() -> None:
    """Two models that agree on every item (the per-item gap always 0) beside an integer law: the cell is computed
    on the exact integer lattice, and p equals the sum's law by repeated np.convolve (after the sign rule)."""
    from nkcore.nk.exact.cells import plan

    zero = law_from_units(np.array([0, 0]), None, 1.0, True, 0)
    other = law_from_units(np.array([-1, 0, 1, 1]), None, 1.0, True, 0)
    assert plan(zero, other, 100)[:2] == (1.0, True)
    pmf = np.array([1.0])
    for _ in range(100):
        pmf = np.convolve(pmf, [0.25, 0.25, 0.5])  # values -100 .. 100
    got = cell_numbers(zero, other, 100)
    assert got.p == pytest.approx(pmf[: 100 + 1].sum(), abs=1e-12)  # median(S0) > 0: p = P(S0 <= 0)


def test_integer_step_and_moments_against_numpy() -> None:
    """``integer_step`` (the gcd read from its first 64 values first) is numpy's gcd over all values, also where the
    first 64 share a factor the rest does not; ``moments`` (products, not powers) are scipy.stats' moments."""
    from scipy import stats

    rng = np.random.default_rng(7)
    cases = [
        rng.integers(-(2**32), 2**32, 5000),
        6 * rng.integers(-50, 50, 300),
        np.concatenate([10 * rng.integers(1, 9, 64), [15]]),
        np.zeros(70, dtype=np.int64),
        np.array([4]),
    ]
    for v in cases:
        assert cv.integer_step(v) == int(np.gcd.reduce(np.abs(v)))
    v = rng.gamma(0.5, 2.0, 2000)
    m = cv.moments(v, np.full(v.size, 1.0 / v.size))
    assert m.mean == pytest.approx(v.mean(), rel=1e-12)
    assert m.var == pytest.approx(v.var(), rel=1e-12)
    assert m.skew == pytest.approx(stats.skew(v), rel=1e-10)
    assert m.kurt == pytest.approx(stats.kurtosis(v), rel=1e-10)


@pytest.mark.parametrize(
    ("name", "k", "n"), [("balanced3", 9, 27), ("balanced3", 10, 25), ("DICES", 60, 25), ("JobsQ3", 40, 12)]
)
def test_a_nearest_point_cells_p_error_agrees_with_the_normal_form(name: str, k: int, n: int) -> None:
    """The delta method on the lattice (nearest points, error terms on the coarser lattice) against the same in the
    normal form (``accuracy.normal_p_error``): within a factor of 2 where p is mid-range. The null's influence is
    symmetrised only on a lattice symmetric about 0; a coarser lattice summed from the fine one's pairs was not,
    and its p_error came out 20 times the normal form's (balanced3, K 9, N 27: 0.0108 against 0.00055)."""
    from nkcore.nk.exact.accuracy import normal_p_error

    alt, null = (law["kl"] for law in item_laws(get_prior(name).concentration, 0.3, k, ["kl"]))
    c = cell_numbers(alt, null, n)
    assert 0.05 < c.p < 0.95
    ref = normal_p_error(alt, null, n)
    assert ref / 2 < c.p_error < 2 * ref, (c.p_error, ref)
