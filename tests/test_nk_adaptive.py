"""Adaptive allocation of ratings (``nkcore.nk.adaptive``, ``nkcore.nk.adaptive_resample``).

Oracles: an independent, literal response-level simulation of each policy written here (Python loops, one
``Generator.choice`` per rating, items ranked with ``sorted``, draws without replacement by shuffling the item's
list of ratings), the exact engine for ``fixed``, scipy's multinomial and hypergeometric laws for the samplers,
and budget accounting by hand. Comparisons are |z| < 4 on Monte Carlo errors of both sides.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from nkcore.errors import DataError
from nkcore.nk.adaptive import (
    RaterMix,
    allocate,
    hypergeometric_rows,
    make_policy,
    multinomial_rows,
    plurality_margin,
    simulate_policy,
)
from nkcore.nk.adaptive_resample import resample_policy
from nkcore.nk.exact import exact_cell
from nkcore.nk.grid import Config
from nkcore.nk.resample import prepare_pair

TOX = (1.37658107, 1.33054633)
DICES = (5.21765954, 0.85824731, 2.74833849)


# ---------------------------------------------------------------- the independent reference (response level)
def _ref_counts(labels: list[int], m: int) -> np.ndarray:
    return np.bincount(np.asarray(labels, dtype=int), minlength=m)


def _ref_margin(c: np.ndarray) -> int:
    s = sorted(c.tolist(), reverse=True)
    return int(s[0] - s[1])


def _ref_allocate(rng: np.random.Generator, policy: str, n: int, k: int, rate: list) -> list[list[int]]:
    """The policies' rules written out item by item: ``rate[i]()`` returns one more rating of item i."""
    pol = make_policy(policy)
    k0 = pol.first_stage(k)
    ratings = [[rate[i]() for _ in range(k0)] for i in range(n)]
    left = n * k - n * k0
    m = 1 + max(max(r) for r in ratings)
    if policy == "margin" and k0 < k:
        n_c = max(1, min(n, math.ceil(pol.contested * n - 1e-9)))
        keys = [(_ref_margin(_ref_counts(ratings[i], 12)), rng.random(), i) for i in range(n)]
        order = [i for _, _, i in sorted(keys)]
        per, rem = divmod(left, n_c)
        for rank, i in enumerate(order[:n_c]):
            for _ in range(per + (1 if rank < rem else 0)):
                ratings[i].append(rate[i]())
    elif policy == "sequential":
        cap = pol.cap(k)
        while left > 0:
            open_ = [
                i
                for i in range(n)
                if _ref_margin(_ref_counts(ratings[i], 12)) < pol.clear_margin and len(ratings[i]) < cap
            ]
            if not open_:
                break
            if len(open_) > left:
                open_ = [
                    i for _, _, i in sorted((_ref_margin(_ref_counts(ratings[i], 12)), rng.random(), i) for i in open_)
                ][:left]
            for i in open_:
                ratings[i].append(rate[i]())
            left -= len(open_)
    del m
    return ratings


def _ref_gaps(
    alpha: tuple[float, ...], eps: float, policy: str, n: int, k: int, rounds: int, seed: int, null: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accuracy and TV gaps (A better > 0) and ratings per item, one dataset at a time, one rating at a time."""
    rng = np.random.default_rng(seed)
    m = len(alpha)
    acc, tv, ks = [], [], []
    for _ in range(rounds):
        beta = [rng.dirichlet(alpha) for _ in range(n)]
        rho = [rng.dirichlet([1.0 / m] * m) for _ in range(n)]
        gamma = [(1 - eps) * b + eps * r for b, r in zip(beta, rho, strict=True)]
        rate = [lambda b=b: int(rng.choice(m, p=b)) for b in beta]
        gold = _ref_allocate(rng, policy, n, k, rate)
        da = dt = 0.0
        for i in range(n):
            ki = len(gold[i])
            ks.append(ki)
            pa, pb = (beta[i], gamma[i]) if not null else ((beta[i] + gamma[i]) / 2,) * 2
            g = _ref_counts(gold[i], m)
            a = _ref_counts([int(rng.choice(m, p=pa)) for _ in range(ki)], m)
            b = _ref_counts([int(rng.choice(m, p=pb)) for _ in range(ki)], m)
            pg = int(np.argmax(g))
            da += float(int(np.argmax(a)) == pg) - float(int(np.argmax(b)) == pg)
            dt += (np.abs(b / ki - g / ki).sum() - np.abs(a / ki - g / ki).sum()) / m
        acc.append(da / n)
        tv.append(dt / n)
    return np.array(acc), np.array(tv), np.array(ks)


def _z(x: np.ndarray, y: np.ndarray) -> float:
    se = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    return abs(float(x.mean() - y.mean())) / se if se > 0 else abs(float(x.mean() - y.mean())) * 1e9


@pytest.mark.slow
@pytest.mark.parametrize(("policy", "alpha", "k"), [("margin", TOX, 6), ("sequential", TOX, 4), ("margin", DICES, 4)])
def test_policy_simulation_matches_an_independent_response_level_simulation(
    policy: str, alpha: tuple[float, ...], k: int
) -> None:
    n, rounds = 15, 500
    cells = simulate_policy(alpha, 0.3, n * k, k, make_policy(policy), ["acc", "tv"], rounds=2000, seed=3)
    by = {c.metric: c for c in cells}
    ref_acc, ref_tv, ref_k = _ref_gaps(alpha, 0.3, policy, n, k, rounds, seed=11, null=False)
    assert _z(by["acc"].alt, ref_acc) < 4 and _z(by["tv"].alt, ref_tv) < 4
    # the spread too (it sets p): the gap's standard deviation within 15%
    assert by["tv"].alt.std() == pytest.approx(ref_tv.std(), rel=0.15)
    # how the ratings were spread: the realised mean and the largest count
    assert by["acc"].mean_ratings_per_item == pytest.approx(ref_k.mean(), abs=4 * ref_k.std() / math.sqrt(ref_k.size))
    assert by["acc"].max_ratings_per_item >= ref_k.max() - 2
    # the null: mean 0 in both
    null_acc, null_tv, _ = _ref_gaps(alpha, 0.3, policy, n, k, rounds, seed=12, null=True)
    assert _z(by["tv"].null, null_tv) < 4 and _z(by["acc"].null, null_acc) < 4


def test_fixed_policy_simulated_agrees_with_the_exact_engine() -> None:
    """The adaptive code path with ``fixed`` (K per item) is the paper's model: Delta and reproducibility as the
    exact engine's, within the simulation's error."""
    sim = {c.metric: c for c in simulate_policy(TOX, 0.3, 200, 5, make_policy("fixed"), ["acc", "tv"], 4000, seed=1)}
    ex = {c.metric: c for c in exact_cell(TOX, 0.3, 200, 5, ["acc", "tv"])}
    for mt in ("acc", "tv"):
        se = sim[mt].alt.std() / math.sqrt(sim[mt].alt.size)
        assert abs(sim[mt].delta - ex[mt].delta) < 4 * se + 4 * ex[mt].delta_error
        r = ex[mt].reproducibility
        assert abs(sim[mt].reproducibility - r) < 4 * math.sqrt(r * (1 - r) / 4000) + 1e-9
        assert abs(sim[mt].p - ex[mt].p) < 0.03
    assert sim["acc"].mean_ratings_per_item == 5.0 and sim["acc"].max_ratings_per_item == 5


def test_margin_spends_the_budget_exactly_and_sequential_never_more() -> None:
    rng = np.random.default_rng(0)
    beta = rng.dirichlet((1.0, 1.0, 1.0), size=(30, 40))

    def draw(extra: np.ndarray, _so_far: np.ndarray | None) -> np.ndarray:
        return multinomial_rows(rng, beta, extra)

    g = allocate(rng, make_policy("margin", contested=0.3), 7, 40, 30, draw)
    assert (g.sum(axis=(1, 2)) == 40 * 7).all()
    k = g.sum(axis=-1)
    assert (k >= 4).all() and ((k > 4).sum(axis=1) == 12).all()  # K0 = round(3.5) = 4; 30% of 40 items
    # the contested items are the ones with the smallest first-stage margin: the most contested got more
    s = allocate(rng, make_policy("sequential", cap_factor=2.0), 7, 40, 30, draw)
    ks = s.sum(axis=-1)
    assert (s.sum(axis=(1, 2)) <= 40 * 7).all() and ks.max() <= 14 and ks.min() >= 4
    # an item stops once clear or capped: every item below the cap with ratings to spare is clear
    clear = plurality_margin(s) >= 2
    spare = s.sum(axis=(1, 2)) < 40 * 7
    assert (clear | (ks >= 14))[spare].all()


def test_first_stage_margins_decide_who_gets_more() -> None:
    """With K0 ratings drawn, the contested items (margin 0) get the second stage, the unanimous ones not."""
    first = np.array([[[3, 3], [6, 0], [4, 2], [6, 0]]])
    calls: list[np.ndarray] = []

    def draw(extra: np.ndarray, so_far: np.ndarray | None) -> np.ndarray:
        calls.append(extra.copy())
        if so_far is None:
            return first.copy()
        return np.stack([extra, np.zeros_like(extra)], axis=-1)

    g = allocate(np.random.default_rng(0), make_policy("margin", contested=0.5), 12, 4, 1, draw)
    assert calls[1].tolist() == [[12, 0, 12, 0]]  # 4 x (12 - 6) = 24 ratings to the two contested items
    assert g.sum() == 48


def test_samplers_follow_the_multinomial_and_hypergeometric_laws() -> None:
    rng = np.random.default_rng(5)
    p = np.array([0.2, 0.5, 0.3])
    c = multinomial_rows(rng, np.broadcast_to(p, (20000, 3)), np.full(20000, 4))
    seen = {tuple(r): 0 for r in c.tolist()}
    for r in c.tolist():
        seen[tuple(r)] += 1
    exp = np.array([stats.multinomial.pmf(list(x), 4, p) * 20000 for x in seen])
    chi = float(((np.array(list(seen.values())) - exp) ** 2 / exp).sum())
    assert stats.chi2.sf(chi, len(seen) - 1) > 1e-4
    pool = np.array([5, 3, 2])
    h = hypergeometric_rows(rng, np.broadcast_to(pool, (20000, 3)), np.full(20000, 4))
    assert (h <= pool).all() and (h.sum(axis=1) == 4).all()
    assert h[:, 0].mean() == pytest.approx(4 * 5 / 10, abs=4 * math.sqrt(stats.hypergeom(10, 5, 4).var() / 20000))


def test_same_seed_same_numbers_whatever_the_workers() -> None:
    a = simulate_policy(DICES, 0.3, 300, 6, make_policy("sequential"), ["tv"], rounds=300, seed=9, workers=1)[0]
    b = simulate_policy(DICES, 0.3, 300, 6, make_policy("sequential"), ["tv"], rounds=300, seed=9, workers=2)[0]
    assert np.array_equal(a.alt, b.alt) and np.array_equal(a.null, b.null) and a.p == b.p


def test_bad_settings_are_data_errors() -> None:
    with pytest.raises(DataError, match="policy must be one of"):
        make_policy("greedy")
    with pytest.raises(DataError, match="share of contested"):
        make_policy("margin", contested=0.0)
    with pytest.raises(DataError, match="between 1 and the budget"):
        simulate_policy(TOX, 0.3, 10, 20, make_policy("margin"))
    with pytest.raises(DataError, match="qualities"):
        simulate_policy(TOX, 0.3, 100, 5, make_policy("fixed"), mix=RaterMix((1.0,), (1.5,)))


def _ref_real(
    counts: np.ndarray, la: np.ndarray, lb: np.ndarray, policy: str, n: int, k: int, rounds: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Real data, literally: draw items, shuffle each drawn item's ratings, hand them out in order."""
    rng = np.random.default_rng(seed)
    qual = [i for i in range(len(counts)) if counts[i].sum() >= k]
    m = counts.shape[1]
    gaps, ks = [], []
    for _ in range(rounds):
        idx = [qual[int(rng.integers(len(qual)))] for _ in range(n)]
        decks = [list(rng.permutation(np.repeat(np.arange(m), counts[i]))) for i in idx]

        def make(deck: list[int]) -> Callable[[], int]:
            return lambda: int(deck.pop(0))

        # a policy that asks more of an item than its pool: the reference caps the item's deck
        pol = make_policy(policy)
        cap_items = [len(d) for d in decks]
        rate = [make(d) for d in decks]
        gold = _ref_allocate_capped(rng, pol.name, n, k, rate, cap_items)
        d = 0.0
        for j, i in enumerate(idx):
            g = _ref_counts(gold[j], m)
            pg = int(np.argmax(g))
            d += float(la[i] == pg) - float(lb[i] == pg)
            ks.append(len(gold[j]))
        gaps.append(d / n)
    return np.array(gaps), np.array(ks)


def _ref_allocate_capped(
    rng: np.random.Generator, policy: str, n: int, k: int, rate: list[Callable[[], int]], pools: list[int]
) -> list[list[int]]:
    """``_ref_allocate`` for real data: an item never gets more ratings than its pool holds."""
    pol = make_policy(policy)
    k0 = pol.first_stage(k)
    ratings = [[rate[i]() for _ in range(k0)] for i in range(n)]
    left = n * k - n * k0
    if policy == "margin":
        n_c = max(1, min(n, math.ceil(pol.contested * n - 1e-9)))
        order = [i for _, _, i in sorted((_ref_margin(_ref_counts(ratings[i], 12)), rng.random(), i) for i in range(n))]
        per, rem = divmod(left, n_c)
        for rank, i in enumerate(order[:n_c]):
            for _ in range(min(per + (1 if rank < rem else 0), pools[i] - len(ratings[i]))):
                ratings[i].append(rate[i]())
    return ratings


@pytest.mark.slow
def test_real_data_margin_matches_an_independent_resampler() -> None:
    rng = np.random.default_rng(2)
    p = rng.dirichlet((2.0, 2.0), size=60)
    counts = np.stack([rng.multinomial(int(t), q) for t, q in zip(rng.integers(6, 14, 60), p, strict=True)])
    la = (p[:, 1] > 0.5).astype(int)  # A follows the crowd
    lb = rng.integers(0, 2, 60)  # B guesses
    data = prepare_pair(counts, la, lb)
    cell = resample_policy(data, [Config(120, 6, 20)], make_policy("margin"), ["acc"], rounds=2000, seed=4)[0]
    ref, ks = _ref_real(counts, la, lb, "margin", 20, 6, 600, seed=8)
    assert _z(cell.alt, ref) < 4
    assert cell.mean_ratings_per_item == pytest.approx(ks.mean(), abs=0.05)
    assert cell.max_ratings_per_item <= counts.sum(axis=1).max()
    assert cell.n_qualifying == int((counts.sum(axis=1) >= 6).sum())


def test_real_data_never_draws_more_than_an_item_has() -> None:
    counts = np.array([[3, 3], [5, 1], [2, 4], [6, 0]])
    data = prepare_pair(counts, np.array([0, 0, 1, 0]), np.array([1, 1, 0, 1]))
    for name in ("margin", "sequential"):
        c = resample_policy(data, [Config(40, 4, 10)], make_policy(name, cap_factor=10.0), ["acc"], 200, 0)[0]
        assert c.max_ratings_per_item <= 6 and c.mean_ratings_per_item <= 4.0


def test_rater_mix_of_perfect_raters_is_identical_raters() -> None:
    mix = RaterMix((0.5, 0.5), (1.0, 1.0))
    same = simulate_policy(TOX, 0.3, 200, 5, make_policy("fixed"), ["tv"], 3000, seed=2, mix=mix)[0]
    plain = simulate_policy(TOX, 0.3, 200, 5, make_policy("fixed"), ["tv"], 3000, seed=3)[0]
    assert _z(same.alt, plain.alt) < 4
    # a quarter of random raters shrinks the gap A - B (gold is noisier); weighting them to 0 brings it back
    poor = RaterMix((0.75, 0.25), (1.0, 0.0))
    mixed = simulate_policy(TOX, 0.3, 200, 5, make_policy("fixed"), ["acc"], 3000, seed=4, mix=poor)[0]
    weighted = simulate_policy(
        TOX, 0.3, 200, 5, make_policy("fixed"), ["acc"], 3000, seed=4, mix=RaterMix((0.75, 0.25), (1.0, 0.0), True)
    )[0]
    assert mixed.delta < weighted.delta and mixed.raters.startswith("unweighted")
