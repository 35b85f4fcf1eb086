"""Metrics, p-value rule and priors of the (N, K) engine against independent numbers.

Oracles: the spec's p-value unit checks, scipy (entropy, jensenshannon), brute-force F1, closed forms.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon
from scipy.stats import entropy

from nkcore.errors import DataError
from nkcore.nk import count_gaps as cg
from nkcore.nk import metrics as mt
from nkcore.nk import scores as sc
from nkcore.nk.priors import expected_accuracy_gap_k1, get_prior, parse_alpha, preset_names, resolve_prior
from nkcore.nk.pvalue import cell_stats, ci_width, delta, p_value, reproducibility


# ---- p-value: the four unit checks from the authors' toolkit (spec) ------------------------------------------
@pytest.mark.parametrize(
    ("null", "alt", "expected"),
    [
        (list(range(10)), [4.5] * 10, 0.5),
        (list(range(10)), list(range(10)), 0.55),
        ([0.5] * 10, [0.5] * 10, 1.0),
        ([100] + [1] * 9, [10] * 10, 0.1),
    ],
)
def test_p_value_unit_checks(null: list[float], alt: list[float], expected: float) -> None:
    assert p_value(null, alt) == pytest.approx(expected, abs=1e-12)


@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=30),
    st.lists(st.integers(-5, 5), min_size=1, max_size=30),
)
def test_p_value_equals_brute_force(null: list[int], alt: list[int]) -> None:
    n, a = np.array(null, float), np.array(alt, float)
    if np.median(n) > np.median(a):
        n, a = -n, -a
    brute = sum(1 for x in n for y in a if x >= y) / (n.size * a.size)
    assert p_value(null, alt) == pytest.approx(brute, abs=1e-12)


def test_delta_ci_width_reproducibility() -> None:
    alt = np.arange(-10.0, 91.0)  # 101 values, mean 40
    assert delta(alt) == pytest.approx(40.0)
    assert ci_width(alt) == pytest.approx(np.quantile(alt, 0.975) - np.quantile(alt, 0.025))
    assert reproducibility(alt) == pytest.approx(90 / 101)
    st_ = cell_stats(alt, np.zeros(5))
    assert st_.mean_gap == pytest.approx(40.0) and st_.ties == pytest.approx(1 / 101)
    with pytest.raises(DataError):
        p_value([], [1.0])


# ---- metrics against oracles ------------------------------------------------------------------------------------
def _rand_counts(rng: np.random.Generator, shape: tuple[int, ...], m: int, k: int) -> np.ndarray:
    return rng.multinomial(k, np.ones(m) / m, size=shape)


def test_kl_paper_matches_scipy_and_artifact() -> None:
    rng = np.random.default_rng(1)
    g, a = _rand_counts(rng, (50,), 3, 4), _rand_counts(rng, (50,), 3, 4)
    oracle = np.mean(entropy(g + 1e-12, a + 1e-12, axis=-1))
    assert float(sc.kl_paper(g, a)) == pytest.approx(oracle, rel=1e-10)
    # the artifact: one-hot mismatch at K = 1 costs ln(1e12) nats
    assert mt.kl_artifact_nats() == pytest.approx(math.log(1e12), rel=1e-9)
    assert mt.kl_artifact_nats() == pytest.approx(27.631, abs=1e-3)


def test_js_and_smoothed_kl_and_ce_match_oracles() -> None:
    rng = np.random.default_rng(2)
    g, a = _rand_counts(rng, (40,), 4, 6), _rand_counts(rng, (40,), 4, 6)
    assert float(sc.js_distance(g, a)) == pytest.approx(np.mean(jensenshannon(g, a, axis=-1)), rel=1e-9)
    gs, as_ = (g + 0.5) / (6 + 2.0), (a + 0.5) / (6 + 2.0)
    assert float(sc.kl_smoothed(g, a)) == pytest.approx(np.mean(entropy(gs, as_, axis=-1)), rel=1e-10)
    ce = np.mean(-np.sum(g / 6 * np.log(as_), axis=-1))
    assert float(sc.cross_entropy(g, a)) == pytest.approx(ce, rel=1e-10)
    q = rng.dirichlet(np.ones(4), size=40)
    assert float(sc.cross_entropy(g, q, machine_is_prob=True)) == pytest.approx(
        np.mean(-np.sum(g / 6 * np.log(q), axis=-1)), rel=1e-10
    )


def _f1_brute(gold: list[int], pred: list[int]) -> float:
    labels = sorted(set(gold) | set(pred))
    f1s = []
    for c in labels:
        tp = sum(1 for x, y in zip(gold, pred, strict=True) if x == c and y == c)
        fp = sum(1 for x, y in zip(gold, pred, strict=True) if x != c and y == c)
        fn = sum(1 for x, y in zip(gold, pred, strict=True) if x == c and y != c)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1s.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return float(np.mean(f1s))


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40))
def test_macro_f1_equals_brute_force(pairs: list[tuple[int, int]]) -> None:
    gold, pred = [p[0] for p in pairs], [p[1] for p in pairs]
    assert float(sc.macro_f1(np.array(gold), np.array(pred), 4)) == pytest.approx(_f1_brute(gold, pred), abs=1e-12)


def test_plurality_ties_go_to_lowest_index() -> None:
    c = np.array([[2, 2, 1], [0, 3, 3], [1, 1, 1]])
    assert sc.plurality(c).tolist() == [0, 1, 0]
    assert cg.plurality_cm(np.ascontiguousarray(c.T)).tolist() == [0, 1, 0]
    assert cg.plurality_cm(np.array([[1, 0, 2], [1, 2, 0]])).tolist() == [0, 1, 0]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.float64])
@pytest.mark.parametrize("m", [2, 3, 5, 12, 40])
def test_plurality_cm_is_argmax_with_lowest_index_ties(dtype: type, m: int) -> None:
    # oracle: a Python loop over each item's counts (first index of the largest count); small K makes many ties
    rng = np.random.default_rng(m)
    counts = np.stack([rng.multinomial(k, np.ones(m) / m, size=300) for k in (1, 2, 3, 7, 60, 127)], axis=1)
    want = [[int(np.flatnonzero(c == c.max())[0]) for c in row] for row in counts]
    got = cg.plurality_cm(np.ascontiguousarray(np.moveaxis(counts, -1, 0)).astype(dtype))
    assert got.dtype.kind == "i"
    assert got.tolist() == want


def test_tv_and_wins_by_hand() -> None:
    g = np.array([[3, 1], [0, 4]])  # K = 4
    a = np.array([[2, 2], [0, 4]])
    b = np.array([[4, 0], [2, 2]])
    # per item TV = L1 / M of the shares: A: (0.5/2, 0), B: (0.5/2, 1/2)
    assert float(sc.total_variation(g, a)) == pytest.approx((0.25 + 0.0) / 2)
    assert float(sc.total_variation(g, b)) == pytest.approx((0.25 + 0.5) / 2)
    assert float(sc.wins(g, a, b)) == pytest.approx(0.5)  # a tie on item 1, A wins item 2


@pytest.mark.parametrize(("m", "k"), [(2, 1), (2, 7), (3, 5), (5, 60), (12, 3)])
def test_fast_kernel_equals_generic_metrics(m: int, k: int) -> None:
    rng = np.random.default_rng(m * 100 + k)
    g, a, b = (rng.multinomial(k, rng.dirichlet(np.ones(m)), size=(6, 30)) for _ in range(3))
    fast = cg.gaps_from_counts(g, a, b, k, mt.ALL_METRICS)
    for name in mt.ALL_METRICS:
        slow = sc.score_gap(name, g, a, b)
        np.testing.assert_allclose(fast[name], slow, rtol=1e-9, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64])
@pytest.mark.parametrize(("m", "k"), [(2, 1), (2, 19), (3, 10), (12, 5), (5, 30)])
def test_coded_log_metrics_equal_the_gathers_bit_for_bit(
    m: int, k: int, dtype: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to ``CODED_MAX_K`` the log metrics read one (gold, A, B) table per category: the same integers as the
    three gathers per category that serve larger K (the same terms summed in the same order)."""
    rng = np.random.default_rng(m * 1000 + k)
    g, a, b = (
        np.moveaxis(rng.multinomial(k, rng.dirichlet(np.ones(m), size=(2, 4000))), -1, 0).astype(dtype)
        for _ in range(3)
    )
    logs = ["kl", "kl_smooth", "ce", "js"]
    coded = cg.item_units_cm(g, a, b, k, logs)
    monkeypatch.setattr(cg, "CODED_MAX_K", 0)
    gathered = cg.item_units_cm(g, a, b, k, logs)
    for name in logs:
        np.testing.assert_array_equal(coded[name][0], gathered[name][0], err_msg=name)
        assert coded[name][1] == gathered[name][1]


@pytest.mark.parametrize(("m", "k", "is_prob"), [(2, 1, True), (3, 10, True), (3, 7, False), (12, 4, True)])
def test_item_gaps_indexed_equals_item_gaps(m: int, k: int, is_prob: bool) -> None:
    """The shared-work kernel of the real-data engine gives item_gaps' numbers to the bit, for every item metric
    (rows on items in any order, repeated items, ties between the machines' labels)."""
    rng = np.random.default_rng(m * 10 + k)
    n_items, rows = 40, 500
    gold = rng.multinomial(k, rng.dirichlet(np.ones(m)), size=rows)
    if is_prob:
        ma, mb = rng.dirichlet(np.ones(m), size=n_items), rng.dirichlet(np.ones(m), size=n_items)
        mb[:5] = ma[:5]  # equal predictions: Wins' ties
    else:
        ma, mb = rng.multinomial(k, np.ones(m) / m, size=n_items), rng.multinomial(k, np.ones(m) / m, size=n_items)
    la, lb = ma.argmax(axis=1), rng.integers(0, m, n_items)
    idx = rng.integers(0, n_items, rows)
    mts = tuple(x for x in mt.ITEM_METRICS)
    got = sc.item_gaps_indexed(mts, gold, ma, mb, la, lb, idx, is_prob)
    assert set(got) == set(mts)
    for name in mts:
        want = sc.item_gaps(name, gold, ma[idx], mb[idx], la[idx], lb[idx], is_prob)
        assert np.array_equal(got[name], want), name


def test_gap_orientation_positive_means_a_better() -> None:
    g = np.array([[[4, 0], [0, 4]]])
    a, b = g.copy(), np.array([[[0, 4], [4, 0]]])
    gaps = cg.gaps_from_counts(g, a, b, 4, mt.ALL_METRICS)
    assert all(float(v[0]) > 0 for v in gaps.values())


def test_parse_metrics() -> None:
    assert mt.parse_metrics("acc,TV, kl_smooth") == ("acc", "tv", "kl_smooth")
    assert mt.parse_metrics(None) == mt.PAPER_METRICS
    assert mt.parse_metrics("all") == mt.ALL_METRICS
    with pytest.raises(DataError, match="unknown metric 'auc'"):
        mt.parse_metrics("acc,auc")


# ---- priors -----------------------------------------------------------------------------------------------------
def test_presets_and_alpha_parsing() -> None:
    assert len(preset_names()) == 15
    assert get_prior("DICES").concentration == (5.21765954, 0.85824731, 2.74833849)
    assert get_prior("unbalanced12").concentration == (10.0,) + (3.0,) * 11
    assert get_prior("balanced_3").concentration == (3.0, 3.0, 3.0)
    assert parse_alpha("1.5; 2 3") == (1.5, 2.0, 3.0)
    assert resolve_prior(concentration="2,2").m == 2
    for bad in ("1", "1,-2", "a,b", "1,nan"):
        with pytest.raises(DataError):
            parse_alpha(bad)
    with pytest.raises(DataError, match="unknown prior"):
        get_prior("nope")


SPEC = Path(__file__).resolve().parents[1].parent / "shared" / "spec" / "forest-vs-tree-method.md"


@pytest.mark.shared
@pytest.mark.skipif(not SPEC.exists(), reason="../shared/spec is absent")
def test_presets_are_the_spec_alphas_to_the_digit() -> None:
    text = SPEC.read_text()
    fitted = text[text.index("## Priors") : text.index("Synthetic balanced")]
    for name in ("Toxicity", "DICES", "D3code", "JobsQ1", "JobsQ3"):
        start = fitted.index("- " + name)
        block = fitted[fitted.index("[", start) : fitted.index("]", start)]
        assert get_prior(name).concentration == tuple(float(v) for v in re.findall(r"[0-9.]+", block)), name


def test_closed_form_accuracy_gap_value() -> None:
    # spec: Toxicity at eps = 0.3 gives 0.0405
    assert expected_accuracy_gap_k1(get_prior("Toxicity").concentration, 0.3) == pytest.approx(0.0405, abs=5e-5)
    # uniform beta over 2 categories (alpha = 1, 1): E sum beta^2 = 2/3, gap = eps (2/3 - 1/2)
    assert expected_accuracy_gap_k1((1.0, 1.0), 0.6) == pytest.approx(0.1)


def test_the_registry_holds_what_the_engines_used_to_list() -> None:
    """The registry's flags give the lists the engines kept by name before (issue 32): the item-mean metrics, the
    exact means (TV and the KL family), the sign-test metrics, the log metrics, and every kernel where it is due."""
    assert mt.ITEM_METRICS == ("acc", "tv", "wins", "kl", "kl_smooth", "js", "ce")
    assert mt.with_flag("exact_mean") == ("tv", "kl", "kl_smooth", "ce")
    assert mt.with_flag("sign_test") == ("acc", "wins")
    assert mt.with_flag("takes_logs") == ("kl", "kl_smooth", "js", "ce")
    assert mt.with_flag("labels_only") == ("acc", "f1")
    for name, info in mt.METRICS.items():
        assert info.name == name and info.unit in ("points", "scale", "nats")
        assert (info.count_units is not None) == info.per_item
        assert info.item_score is not None or info.pair_gap is not None or info.label_gap is not None
        assert info.log_weights is None or info.exact_mean
    with pytest.raises(DataError, match="unknown metric"):
        mt.metric("nope")


def test_a_new_metric_is_one_registry_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A metric registered with TV's kernels under another name is served by every engine without further code, and
    gives TV's numbers: the float and count kernels, the simulation, real-data resampling and the exact engine."""
    import dataclasses

    from nkcore.nk.exact import exact_cell
    from nkcore.nk.exact.means import clear_means
    from nkcore.nk.grid import Config, simulate_cell
    from nkcore.nk.resample import prepare_pair, resample_cells

    monkeypatch.setitem(mt.METRICS, "tv_copy", dataclasses.replace(mt.METRICS["tv"], name="tv_copy", label="TV copy"))
    clear_means()
    assert mt.parse_metrics("tv, tv_copy") == ("tv", "tv_copy")
    rng = np.random.default_rng(3)
    g, a, b = (rng.multinomial(5, [0.5, 0.3, 0.2], size=(4, 30)) for _ in range(3))
    got = cg.gaps_from_counts(g, a, b, 5, ["tv", "tv_copy"])
    np.testing.assert_array_equal(got["tv"], got["tv_copy"])
    np.testing.assert_array_equal(sc.score_gap("tv", g, a, b), sc.score_gap("tv_copy", g, a, b))
    tox = get_prior("Toxicity").concentration
    sims = simulate_cell(tox, 0.3, 200, 4, ["tv", "tv_copy"], rounds=50, seed=1)
    assert sims[0].p == sims[1].p and sims[0].ci_width == sims[1].ci_width
    counts = rng.multinomial(6, [0.6, 0.4], size=40)
    data = prepare_pair(counts, rng.integers(0, 2, 40), rng.integers(0, 2, 40))
    real = resample_cells(data, [Config(40, 2, 20)], ["tv", "tv_copy"], rounds=40, seed=2)
    assert real[0].p == real[1].p and real[0].significant_share == real[1].significant_share
    (ex,) = exact_cell(tox, 0.3, 120, 3, ["tv"])
    (ex2,) = exact_cell(tox, 0.3, 120, 3, ["tv_copy"])
    assert ex2.metric == "tv_copy" and ex2.method == ex.method
    assert ex2.p == pytest.approx(ex.p, abs=1e-12) and ex2.delta == pytest.approx(ex.delta, abs=1e-12)
    monkeypatch.undo()
    clear_means()
