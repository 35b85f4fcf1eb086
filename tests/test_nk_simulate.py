"""The simulation against the spec: exact identities, closed forms, the exact law, response-level sampling.

Oracles, each independent of the engine's code path it checks:
- Wins == Accuracy and KL == 27.63 x Accuracy at K = 1, dataset by dataset (so their p-values are equal);
- the closed-form Accuracy gap at K = 1 (spec) and, for ties at even K, an independent Gauss-Jacobi integral
  with the lowest-index tie rule written out;
- the spec's response-level transcription (``nkcore.nk.reference``) against the exact law of one item's
  outcome (``nkcore.nk.outcomes``), and every sampler of the engine against that law (chi-square);
- mutants of the transcription (no coin in the null, one coin per item, eps swapped, rho ~ Dir(1)) that the
  same check must reject: proof that it has the power to catch those mistakes;
- two-sample KS of gap samples against the transcription for larger K (binomial path).
Monte Carlo tolerances are 4 standard errors computed from the samples themselves (fixed seeds).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scipy.special import roots_jacobi
from scipy.stats import binom, chisquare, ks_2samp

from nkcore.errors import DataError
from nkcore.nk import outcomes, simulate
from nkcore.nk.count_gaps import gaps_from_counts_cm, item_units_cm
from nkcore.nk.grid import simulate_cell, simulate_grid
from nkcore.nk.metrics import ALL_METRICS, PAPER_METRICS, kl_artifact_nats
from nkcore.nk.priors import expected_accuracy_gap_k1, get_prior
from nkcore.nk.pvalue import p_value
from nkcore.nk.reference import _categorical, reference_gaps, response_counts
from nkcore.nk.samplers import draw_counts, draw_dirichlet
from nkcore.nk.simulate import simulate_counts, simulate_gaps

TOX = get_prior("Toxicity").concentration
DICES = get_prior("DICES").concentration
SAMPLERS = ("types", "urn", "dirichlet")


# ---- exact identities at K = 1 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("sampler", ["auto", "urn", "dirichlet"])
def test_k1_wins_equals_accuracy_and_tv_kl_are_scaled_accuracy(sampler: str) -> None:
    for name in ("Toxicity", "DICES", "JobsQ3"):
        alpha = get_prior(name).concentration
        m = len(alpha)
        (s,) = simulate_gaps(alpha, 0.3, [(40, 1)], rounds=300, seed=3, metrics=ALL_METRICS, sampler=sampler)
        for side in (s.alt, s.null):
            np.testing.assert_array_equal(side["wins"], side["acc"])  # exactly, dataset by dataset
            np.testing.assert_allclose(side["tv"], side["acc"] * 2 / m, atol=1e-15)
            # one-hot vs one-hot: the paper's KL costs ln(1e12)-ish per mismatch, nothing per match
            np.testing.assert_allclose(side["kl"], side["acc"] * kl_artifact_nats(), rtol=1e-9, atol=1e-9)
            assert np.all(np.isfinite(side["f1"]))
        # ties are ties: KL and Accuracy give the same p-value (float noise in sums used to split ties)
        assert p_value(s.null["kl"], s.alt["kl"]) == p_value(s.null["acc"], s.alt["acc"])


# ---- closed forms ------------------------------------------------------------------------------------------------
def _exact_mean_gap(alpha: tuple[float, ...], eps: float, k: int) -> float:
    """sum over outcome types of pi_t x (per-item accuracy gap of the type): no Monte Carlo error."""
    law = outcomes.outcome_law(alpha, eps, k, null=False)
    cm = [np.ascontiguousarray(x.T)[:, :, None] for x in (law.gold, law.a, law.b)]
    units, _ = item_units_cm(cm[0], cm[1], cm[2], k, ["acc"])["acc"]
    return float(law.prob @ units[:, 0])


@pytest.mark.parametrize(("name", "eps"), [("Toxicity", 0.3), ("DICES", 0.2), ("JobsQ1", 0.4), ("balanced5", 0.1)])
def test_closed_form_accuracy_gap_at_k1(name: str, eps: float) -> None:
    alpha = get_prior(name).concentration
    closed = expected_accuracy_gap_k1(alpha, eps)
    assert _exact_mean_gap(alpha, eps, 1) == pytest.approx(closed, abs=1e-12)
    for sampler in ("auto", "urn"):
        (s,) = simulate_gaps(alpha, eps, [(2000, 1)], rounds=200, seed=11, metrics=("acc",), sampler=sampler)
        alt = s.alt["acc"]
        assert abs(alt.mean() - closed) < 4 * alt.std(ddof=1) / np.sqrt(alt.size)
        # and under the null the expected gap is 0
        assert abs(s.null["acc"].mean()) < 4 * s.null["acc"].std(ddof=1) / np.sqrt(alt.size)


def test_toxicity_worked_number() -> None:
    (c,) = simulate_cell(TOX, 0.3, budget=2500, k=1, metrics="acc", rounds=1000, seed=0)
    se = np.std(c.alt, ddof=1) / np.sqrt(c.rounds)
    assert abs(c.mean_gap - 0.0405) < 4 * se
    assert c.delta == pytest.approx(abs(c.mean_gap))


def _accuracy_gap_integral(alpha: tuple[float, ...], eps: float, k: int, ties_to_lowest: bool) -> float:
    """E[Accuracy gap] for M = 2 by Gauss-Jacobi quadrature (exact: the integrand is a polynomial).

    P(plurality = 0 | p) = P(X > K/2) + [tie rule] P(X = K/2), X ~ Binomial(K, p); beta_0 ~ Beta(a_0, a_1),
    rho_0 ~ Beta(1/2, 1/2), gamma_0 = (1 - eps) beta_0 + eps rho_0.
    """
    xb, wb = roots_jacobi(30, alpha[1] - 1.0, alpha[0] - 1.0)
    xr, wr = roots_jacobi(30, -0.5, -0.5)
    b0, r0 = np.meshgrid((xb + 1) / 2, (xr + 1) / 2, indexing="ij")
    w = np.outer(wb / wb.sum(), wr / wr.sum())
    x = np.arange(k + 1)[:, None, None]
    wins0 = (x > k / 2) | ((x == k / 2) & ties_to_lowest)

    def p0(p: np.ndarray) -> np.ndarray:
        return (binom.pmf(x, k, p[None]) * wins0).sum(axis=0)

    pa, pg = p0(b0), p0((1 - eps) * b0 + eps * r0)
    acc_a = pa * pa + (1 - pa) * (1 - pa)
    acc_b = pa * pg + (1 - pa) * (1 - pg)
    return float(np.sum(w * (acc_a - acc_b)))


@pytest.mark.parametrize("k", [2, 4])
def test_accuracy_gap_with_ties_matches_an_independent_integral(k: int) -> None:
    """Even K has ties; the spec sends them to the LOWEST index. D3code's prior is lopsided, so the rule shows."""
    alpha = get_prior("D3code").concentration
    low = _accuracy_gap_integral(alpha, 0.3, k, True)
    high = _accuracy_gap_integral(alpha, 0.3, k, False)
    assert _exact_mean_gap(alpha, 0.3, k) == pytest.approx(low, abs=1e-12)
    for sampler in ("auto", "urn", "dirichlet"):
        (s,) = simulate_gaps(alpha, 0.3, [(2000, k)], rounds=300, seed=5, metrics=("acc",), sampler=sampler)
        se = s.alt["acc"].std(ddof=1) / np.sqrt(s.alt["acc"].size)
        assert abs(s.alt["acc"].mean() - low) < 4 * se, sampler
        assert abs(high - low) > 10 * se  # ties to the highest index would have been caught


# ---- the exact law, the spec's transcription, the engine's samplers, and mutants --------------------------------
def _responses(
    rng: np.random.Generator,
    alpha: tuple[float, ...],
    eps: float,
    n: int,
    k: int,
    null: bool,
    coin: str = "response",
    swap_eps: bool = False,
    rho_alpha: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The spec's response-level model (as ``reference.reference_dataset``) with optional deliberate mistakes.

    coin: "response" (spec), "item" (one coin per item), "none" (null drawn like the alternative);
    swap_eps: gamma = eps beta + (1 - eps) rho; rho_alpha: rho ~ Dir(rho_alpha) instead of Dir(1/M).
    """
    a = np.asarray(alpha, dtype=float)
    m = a.size
    beta = rng.dirichlet(a, size=n)
    rho = rng.dirichlet(np.full(m, 1.0 / m if rho_alpha is None else rho_alpha), size=n)
    gamma = eps * beta + (1 - eps) * rho if swap_eps else (1 - eps) * beta + eps * rho
    gold = _categorical(rng, beta, k)
    if not null or coin == "none":
        return gold, _categorical(rng, beta, k), _categorical(rng, gamma, k)
    shape = (n, 1) if coin == "item" else (n, k)
    resp_a = np.where(rng.integers(0, 2, size=shape) == 0, _categorical(rng, beta, k), _categorical(rng, gamma, k))
    resp_b = np.where(rng.integers(0, 2, size=shape) == 0, _categorical(rng, gamma, k), _categorical(rng, beta, k))
    return gold, resp_a, resp_b


def _law_pvalue(law: outcomes.OutcomeLaw, gold: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Chi-square goodness of fit of items' (gold, A, B) counts (n, M) to the exact law (cells < 5 pooled)."""
    base = (law.k + 1) ** np.arange(3 * gold.shape[1])
    law_keys = np.concatenate([law.gold, law.a, law.b], axis=1) @ base
    order = np.argsort(law_keys)
    keys = np.concatenate([gold, a, b], axis=1) @ base
    pos = np.searchsorted(law_keys[order], keys)
    assert np.all(law_keys[order][pos] == keys), "an outcome outside the law"
    obs = np.bincount(order[pos], minlength=law.prob.size)
    exp = law.prob * keys.size
    small = exp < 5
    o, e = obs[~small], exp[~small]
    if small.any():
        o, e = np.append(o, obs[small].sum()), np.append(e, exp[small].sum())
    return float(chisquare(o, e).pvalue)


def _transcription_pvalue(alpha: tuple[float, ...], k: int, null: bool, seed: int, n: int, **mistake: object) -> float:
    rng = np.random.default_rng(seed)
    m = len(alpha)
    resp = _responses(rng, alpha, 0.4, n, k, null, **mistake)  # type: ignore[arg-type]
    return _law_pvalue(outcomes.outcome_law(alpha, 0.4, k, null), *(response_counts(x, m) for x in resp))


CASES = [(TOX, 3, False), (TOX, 3, True), (DICES, 2, False), (DICES, 2, True), ((2.0, 1.0, 0.5), 3, True)]


@pytest.mark.parametrize(("alpha", "k", "null"), CASES)
def test_exact_law_matches_the_spec_transcription(alpha: tuple[float, ...], k: int, null: bool) -> None:
    law = outcomes.outcome_law(alpha, 0.4, k, null)
    assert law.prob.sum() == pytest.approx(1.0, abs=1e-12) and np.all(law.prob > 0)
    assert law.prob.size == outcomes.n_types(k, len(alpha))
    assert _transcription_pvalue(alpha, k, null, seed=7, n=40000) > 1e-3


@pytest.mark.parametrize(("alpha", "k", "null"), CASES)
@pytest.mark.parametrize("sampler", SAMPLERS)
def test_every_sampler_draws_the_exact_law(alpha: tuple[float, ...], k: int, null: bool, sampler: str) -> None:
    hyp = "null" if null else "alternative"
    s = simulate_counts(alpha, 0.4, n=20000, k=k, rounds=2, seed=8, hypothesis=hyp, sampler=sampler)
    m = len(alpha)
    law = outcomes.outcome_law(alpha, 0.4, k, null)
    assert _law_pvalue(law, *(x.reshape(-1, m) for x in (s.gold, s.a, s.b))) > 1e-3


@pytest.mark.parametrize(
    ("null", "mistake"),
    [
        (True, {"coin": "none"}),  # the null drawn like the alternative (no mixture)
        (True, {"coin": "item"}),  # one coin per item instead of one per response
        (False, {"swap_eps": True}),  # gamma = eps beta + (1 - eps) rho
        (False, {"rho_alpha": 1.0}),  # noise rho ~ Dir(1) instead of Dir(1/M)
    ],
)
def test_the_law_check_rejects_deliberate_mistakes(null: bool, mistake: dict[str, object]) -> None:
    """Power: the goodness-of-fit check used above, at the same size, rejects each mistaken model outright."""
    assert _transcription_pvalue((2.0, 1.0, 0.5), 3, null, seed=9, n=40000, **mistake) < 1e-6


@pytest.mark.parametrize(("k", "null"), [(60, False), (60, True), (8, False)])
def test_gap_distribution_matches_response_level(k: int, null: bool) -> None:
    """Many items, larger K (binomial chain at K = 60): gap samples of both implementations agree (KS)."""
    alpha, n, rounds = (3.0, 1.0, 2.0), 6, 1500
    mts = ("tv", "kl_smooth", "acc")
    (s,) = simulate_gaps(alpha, 0.3, [(n, k)], rounds=rounds, seed=21, metrics=mts)
    ref_alt, ref_null = reference_gaps(alpha, 0.3, n, k, rounds, seed=22, metrics=mts)
    fast, ref = (s.null, ref_null) if null else (s.alt, ref_alt)
    for name in mts:
        assert ks_2samp(np.round(fast[name], 9), np.round(ref[name], 9)).pvalue > 1e-3, name


def test_binomial_and_categorical_paths_agree() -> None:
    rng = np.random.default_rng(0)
    p = np.array([0.5, 0.3, 0.2])[:, None] * np.ones((1, 40000))
    small = draw_counts(rng, p, 40)  # categorical draws (K <= 40)
    large = draw_counts(rng, p, 41)  # binomial chain
    assert small.shape == (3, 40000) and np.all(small.sum(axis=0) == 40) and np.all(large.sum(axis=0) == 41)
    for counts, k in ((small, 40), (large, 41)):
        np.testing.assert_allclose(counts.mean(axis=1), k * np.array([0.5, 0.3, 0.2]), rtol=0.01)
        np.testing.assert_allclose(counts.var(axis=1), k * np.array([0.25, 0.21, 0.16]), rtol=0.05)


def test_dirichlet_moments_and_tiny_alpha_is_finite() -> None:
    rng = np.random.default_rng(0)
    alpha = np.array([2.0, 1.0, 0.5])
    d = draw_dirichlet(rng, alpha, (200000,))
    np.testing.assert_allclose(d.mean(axis=1), alpha / 3.5, atol=0.003)
    np.testing.assert_allclose(d.var(axis=1), alpha / 3.5 * (1 - alpha / 3.5) / 4.5, rtol=0.03)
    tiny = draw_dirichlet(rng, np.array([0.001, 0.002]), (10000,))
    assert np.all(np.isfinite(tiny)) and np.allclose(tiny.sum(axis=0), 1.0)
    half = draw_dirichlet(rng, np.array([0.5, 0.5]), (200000,))  # the arcsine shortcut: Beta(1/2, 1/2)
    assert half[0].var() == pytest.approx(1 / 8, rel=0.02)


@pytest.mark.parametrize(("alpha", "k"), [(TOX, 3), (DICES, 2), (get_prior("JobsQ3").concentration, 1)])
def test_type_counts_give_the_same_gaps_as_the_items(alpha: tuple[float, ...], k: int) -> None:
    """A dataset summarised by its counts of outcome types scores exactly like the same items (F1 included)."""
    law = outcomes.outcome_law(alpha, 0.3, k, null=True)
    rng = np.random.default_rng(4)
    types = outcomes.draw_item_types(rng, law, n=300, rounds=20)  # (rounds, N) type of every item
    items = [np.ascontiguousarray(np.moveaxis(x[types], -1, 0)) for x in (law.gold, law.a, law.b)]
    per_item = gaps_from_counts_cm(items[0], items[1], items[2], k, ALL_METRICS)
    counts = np.stack([np.bincount(row, minlength=law.prob.size) for row in types])
    by_type = outcomes.type_gaps(law, counts, 300, ALL_METRICS)
    for name in ALL_METRICS:
        np.testing.assert_allclose(by_type[name], per_item[name], rtol=0, atol=1e-12, err_msg=name)


def test_outcome_types_and_compositions() -> None:
    assert outcomes.compositions(3, 3).shape == (10, 3)
    assert np.all(outcomes.compositions(4, 5).sum(axis=1) == 4)
    assert outcomes.use_types(2500, 1, 12) and not outcomes.use_types(50, 3, 3)


# ---- reproducibility ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("budget", "k"), [(1000, 120), (2500, 1), (500, 5)])
def test_reproducible_and_independent_of_workers_and_neighbours(budget: int, k: int) -> None:
    a1 = simulate_cell(DICES, 0.3, budget, k, PAPER_METRICS, rounds=300, seed=7, workers=1)
    a2 = simulate_cell(DICES, 0.3, budget, k, PAPER_METRICS, rounds=300, seed=7, workers=2)
    grid = simulate_grid(DICES, 0.3, [100, budget], [1, k], PAPER_METRICS, rounds=300, seed=7, workers=2)
    in_grid = [c for c in grid if c.budget == budget and c.k == k]
    for x, y, z in zip(a1, a2, in_grid, strict=True):
        np.testing.assert_array_equal(x.alt, y.alt)
        np.testing.assert_array_equal(x.null, z.null)
        assert x.p == y.p == z.p
    other = simulate_cell(DICES, 0.3, budget, k, "acc", rounds=300, seed=8)
    assert not np.array_equal(other[0].alt, a1[0].alt)


def test_bad_parameters_raise_data_error() -> None:
    with pytest.raises(DataError, match="eps"):
        simulate_cell(TOX, 1.5, 100, 1)
    with pytest.raises(DataError, match="larger than the budget"):
        simulate_cell(TOX, 0.3, 100, 120)
    with pytest.raises(DataError, match="rounds"):
        simulate_cell(TOX, 0.3, 100, 1, rounds=1)
    with pytest.raises(DataError, match="seed"):
        simulate_cell(TOX, 0.3, 100, 1, seed=-1)
    with pytest.raises(DataError, match="sampler"):
        simulate_gaps(TOX, 0.3, [(10, 2)], sampler="fast")
    with pytest.raises(DataError, match="too large"):
        simulate_gaps(TOX, 0.3, [(10, 200)], sampler="types")


# ---- a stopped run frees the workers -----------------------------------------------------------------------------
def test_a_progress_callback_that_raises_cancels_the_tasks_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page cancels a grid by raising from ``progress``: the queued chunks must never run.

    The first chunk returns at once; every other chunk waits until the pool is shut down, so before that moment
    at most one chunk per worker can have started besides the first. Without cancelling, shutting the pool down
    runs all 20 chunks.
    """
    release = threading.Event()
    started: list[tuple[int, int]] = []

    def fake_task(*args: object) -> dict[str, np.ndarray]:
        side, chunk, size = args[5], args[6], args[7]
        assert isinstance(side, int) and isinstance(chunk, int) and isinstance(size, int)
        started.append((side, chunk))
        if (side, chunk) != (simulate.ALT, 0):
            assert release.wait(timeout=60), "the pool was never shut down"
        return {mt: np.zeros(size) for mt in PAPER_METRICS}

    class Pool(ThreadPoolExecutor):
        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            super().shutdown(wait=False, cancel_futures=cancel_futures)
            release.set()
            if wait:
                super().shutdown(wait=True)

    class Stop(Exception):
        pass

    def progress(done: float) -> None:
        raise Stop

    monkeypatch.setattr(simulate, "_task", fake_task)
    monkeypatch.setattr(simulate, "ThreadPoolExecutor", Pool)
    # 1000 items x 2 labels: 262 rounds a chunk, so 2620 rounds are 10 equal chunks a side (20 tasks)
    with pytest.raises(Stop):
        simulate_gaps((1.0, 1.0), 0.3, [(1000, 5)], rounds=2620, workers=2, progress=progress, sampler="dirichlet")
    assert (simulate.ALT, 0) in started
    assert 1 <= len(started) <= 3, started
