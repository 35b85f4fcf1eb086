"""The exact engine on real data against brute force (tiny data) and the resampler (a small real-like dataset)."""

from __future__ import annotations

from itertools import product
from math import comb

import numpy as np
import pytest
from scipy import stats

from nkcore.nk.exact import real
from nkcore.nk.exact.item_law import law_from_units
from nkcore.nk.exact.real import exact_resample_cells, real_item_laws, sign_test_share
from nkcore.nk.grid import Config
from nkcore.nk.resample import prepare_pair, resample_cells
from nkcore.nk.scores import item_gaps


def _tiny() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    counts = np.array([[3, 1], [2, 2], [0, 4], [1, 2]])
    a = np.array([0, 0, 1, 1])
    b = np.array([1, 0, 0, 1])
    return counts, a, b


def test_per_item_law_by_enumeration() -> None:
    """K = 2 of each item's ratings without replacement, items uniform: the law of the Accuracy gap by hand."""
    counts, a, b = _tiny()
    data = prepare_pair(counts, a, b)
    laws, n_qual = real_item_laws(data, 2, ("acc",))
    assert n_qual == 4
    brute: dict[float, float] = {}
    for i, c in enumerate(counts):
        total = comb(int(c.sum()), 2)
        for g0 in range(3):
            g = np.array([g0, 2 - g0])
            if np.any(g > c):
                continue
            pr = comb(int(c[0]), g0) * comb(int(c[1]), 2 - g0) / total / 4
            d = float(item_gaps("acc", g[None], np.eye(2)[[a[i]]], np.eye(2)[[b[i]]], a[[i]], b[[i]])[0])
            brute[d] = brute.get(d, 0.0) + pr
    law = laws["acc"]
    got = {float(v) / law.scale: float(p) for v, p in zip(law.values, law.prob, strict=True)}
    assert got.keys() == brute.keys()
    for d, pr in brute.items():
        assert got[d] == pytest.approx(pr, abs=1e-12)


def test_p_and_reproducibility_by_enumerating_rounds() -> None:
    """N = 3 items: p = P(S0 >= S1) over every pair of rounds, S0 the swap null (the law symmetrised)."""
    counts, a, b = _tiny()
    data = prepare_pair(counts, a, b)
    (cell,) = exact_resample_cells(data, [Config(6, 2, 3)], ["acc"])
    law = real_item_laws(data, 2, ("acc",))[0]["acc"]
    vals, probs = law.values / law.scale, law.prob
    s1: dict[float, float] = {}
    s0: dict[float, float] = {}
    for combo in product(range(vals.size), repeat=3):
        pr = float(np.prod(probs[list(combo)]))
        s = round(float(vals[list(combo)].sum()), 9)
        s1[s] = s1.get(s, 0.0) + pr
        for signs in product((1, -1), repeat=3):
            t = round(float((vals[list(combo)] * signs).sum()), 9)
            s0[t] = s0.get(t, 0.0) + pr / 8

    # sign rule: medians of the laws
    def med(d: dict[float, float]) -> float:
        acc = 0.0
        for v in sorted(d):
            acc += d[v]
            if acc >= 0.5 - 1e-12:
                return v
        return max(d)

    flip = med(s0) > med(s1)
    p = sum(p1 * p0 for v1, p1 in s1.items() for v0, p0 in s0.items() if (v0 <= v1 if flip else v0 >= v1))
    assert cell.p == pytest.approx(p, abs=1e-12)
    direction = int(np.sign(cell.full_gap))
    repro = sum(pr for v, pr in s1.items() if np.sign(v) == direction)
    assert cell.reproducibility == pytest.approx(repro, abs=1e-12)
    assert cell.method == "lattice" and cell.rounds == 0


def test_sign_test_share_by_brute_force() -> None:
    law = law_from_units(np.array([1, 0, -1]), np.array([0.5, 0.4, 0.1]), 1.0, True, 0)
    for n in (4, 12):
        brute = 0.0
        for plus in range(n + 1):
            for minus in range(n + 1 - plus):
                pr = stats.multinomial.pmf([plus, minus, n - plus - minus], n, [0.5, 0.1, 0.4])
                nd = plus + minus
                pv = 1.0 if nd == 0 else min(1.0, 2 * stats.binom.cdf(min(plus, minus), nd, 0.5))
                if pv < 0.05 and plus > minus:
                    brute += pr
        assert sign_test_share(law, n, 1, 0.05) == pytest.approx(brute, abs=1e-12)


def _real_like() -> tuple[np.ndarray, np.ndarray, np.random.Generator]:
    rng = np.random.default_rng(5)
    p = rng.dirichlet([2, 1, 1], size=200)
    nr = rng.integers(3, 25, size=200)
    return np.array([rng.multinomial(n, pp) for n, pp in zip(nr, p, strict=True)]), p, rng


@pytest.mark.slow
def test_real_data_engine_agrees_with_the_resampler() -> None:
    counts, p, rng = _real_like()
    pa = np.clip(p + rng.normal(0, 0.05, p.shape), 0.01, None)
    pb = np.clip(p + rng.normal(0, 0.2, p.shape), 0.01, None)
    data = prepare_pair(counts, probs_a=pa, probs_b=pb)
    cfgs = [Config(100, 1, 100), Config(100, 5, 20), Config(500, 10, 50), Config(500, 20, 25)]
    mts = ["acc", "tv", "wins", "kl"]
    engine = exact_resample_cells(data, cfgs, mts)
    runs = [resample_cells(data, cfgs, mts, rounds=1000, seed=s) for s in range(3)]
    worst = 0.0
    for i, c in enumerate(engine):
        for field in ("p", "delta", "reproducibility"):
            v = np.array([getattr(r[i], field) for r in runs])
            x = float(getattr(c, field))
            # a 1000-round run's error in theory (the larger of it and the seeds' spread: 3 seeds say little)
            theory = {
                "p": np.sqrt(2 * x * (1 - x) / 1000),
                "delta": float(np.std(c.alt)) / np.sqrt(1000),
                "reproducibility": np.sqrt(x * (1 - x) / 1000),
            }[field]
            se = max(float(v.std(ddof=1)), theory) / np.sqrt(len(v))
            err = 0.0 if field == "reproducibility" else float(getattr(c, f"{field}_error"))
            z = abs(x - float(v.mean())) / max(np.hypot(se, err), 1e-12)
            worst = max(worst, z)
            assert z < 4, (c.budget, c.k, c.metric, field, getattr(c, field), v)
        if c.metric in ("acc", "wins"):
            v = np.array([r[i].significant_share for r in runs])
            sh = c.significant_share
            se = max(float(v.std(ddof=1)), np.sqrt(sh * (1 - sh) / 1000)) / np.sqrt(len(v))
            assert abs(sh - v.mean()) < 4 * max(se, 1e-12), (c.budget, c.k, c.metric, sh, v)
        else:
            assert np.isnan(c.significant_share)
    print(f"\nreal data: worst |z| = {worst:.2f}")


def test_progress_reports_each_k_and_stops_the_run_when_it_raises() -> None:
    """``progress`` gets the share of K done after each K (the same numbers as without it); raising stops the run."""
    counts, a, b = _tiny()
    data = prepare_pair(counts, a, b)
    cfgs = [Config(8, 1, 8), Config(8, 2, 4), Config(9, 3, 3), Config(8, 4, 2)]
    seen: list[float] = []
    got = exact_resample_cells(data, cfgs, ["acc", "tv"], progress=seen.append, processes=1)
    plain = exact_resample_cells(data, cfgs, ["acc", "tv"], processes=1)
    assert seen == [0.25, 0.5, 0.75, 1.0]  # oracle: four K on one process, one report each
    assert [(c.k, c.metric, c.p, c.delta) for c in got] == [(c.k, c.metric, c.p, c.delta) for c in plain]

    class Stop(Exception):
        pass

    def stop(fraction: float) -> None:
        raise Stop

    with pytest.raises(Stop):
        exact_resample_cells(data, cfgs, ["acc"], progress=stop)


def test_two_processes_give_the_numbers_of_one_and_fill_the_cache() -> None:
    counts, a, b = _tiny()
    data = prepare_pair(counts, a, b)
    cfgs = [Config(8, 1, 8), Config(8, 2, 4), Config(9, 3, 3), Config(8, 4, 2), Config(10, 5, 2)]
    real.clear_real_caches()
    one = exact_resample_cells(data, cfgs, ["acc", "tv", "kl"], processes=1)
    real.clear_real_caches()
    seen: list[float] = []
    two = exact_resample_cells(data, cfgs, ["acc", "tv", "kl"], progress=seen.append, processes=2)
    fields = ("budget", "k", "metric", "p", "delta", "ci_width", "p_error", "reproducibility", "significant_share")
    assert len(two) == len(one) == 12  # K = 5: no item has 5 ratings, left out as the resampler does
    np.testing.assert_equal(
        [[getattr(c, f) for f in fields] for c in two], [[getattr(c, f) for f in fields] for c in one]
    )
    assert seen and seen == sorted(seen) and seen[-1] <= 1.0
    for k in (1, 2, 3, 4):  # every K's laws cached here, the child's included
        assert (real._fingerprint(data), k, ("acc", "tv", "kl")) in real._CACHE
