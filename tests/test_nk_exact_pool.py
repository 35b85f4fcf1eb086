"""The exact engine's shared item pool: nested blocks of ratings give every K the sampler's exact law."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from nkcore.nk import outcomes
from nkcore.nk.count_gaps import item_units_cm
from nkcore.nk.exact import pool
from nkcore.nk.exact.laws import clear_caches, item_laws


def _chi2_p(observed: np.ndarray, expected_prob: np.ndarray) -> float:
    """Pearson chi-square p of counts against probabilities, cells with expected < 5 pooled into one."""
    n = observed.sum()
    exp = expected_prob * n
    small = exp < 5
    obs = np.append(observed[~small], observed[small].sum())
    exp = np.append(exp[~small], exp[small].sum())
    keep = exp > 0
    return float(stats.chisquare(obs[keep], exp[keep] * obs[keep].sum() / exp[keep].sum()).pvalue)


@pytest.mark.parametrize(("k", "null"), [(25, False), (20, False), (23, False)])
def test_pooled_counts_have_the_outcome_law(k: int, null: bool) -> None:
    """Oracle: the exact law of one item's (gold, A, B) counts (``outcomes.outcome_law``, enumerated), for M = 2.
    Each machine's count, and the TV gap that couples the three machines, follow it (chi-square, p > 1e-4)."""
    alpha = (1.0, 2.0)
    pool.clear_pools()
    g, a, b = pool.pooled_counts(alpha, 0.3, k, 20_000, null)
    law = outcomes.outcome_law(np.asarray(alpha), 0.3, k, null)
    for got, col in ((g, law.gold), (a, law.a), (b, law.b)):
        obs = np.bincount(got[1, 0], minlength=k + 1)
        exp = np.bincount(col[:, 1], weights=law.prob, minlength=k + 1)
        assert _chi2_p(obs, exp) > 1e-4
    (units, _), (ref, _) = (
        item_units_cm(x[0], x[1], x[2], k, ["tv"])["tv"]
        for x in ((g, a, b), [np.ascontiguousarray(c.T)[:, :, None] for c in (law.gold, law.a, law.b)])
    )
    vals = np.arange(-2 * k, 2 * k + 1)
    obs = np.bincount(units.ravel() + 2 * k, minlength=vals.size)
    exp = np.bincount(ref[:, 0] + 2 * k, weights=law.prob, minlength=vals.size)
    assert _chi2_p(obs, exp) > 1e-4


@pytest.mark.parametrize("k", [25, 45, 100])
def test_pooled_null_counts_match_the_samplers_null(k: int) -> None:
    """Under the null (whose exact outcome law is too large to enumerate at these K): each machine's count and
    the TV gap of pooled items against independent items of the simulation's Dirichlet sampler (itself checked
    against the spec's response-level transcription): two-sample chi-square, p > 1e-4."""
    from nkcore.nk.samplers import draw_dataset

    alpha = (1.0, 2.0, 0.5)
    pool.clear_pools()
    mine = pool.pooled_counts(alpha, 0.3, k, 20_000, True)
    ref = draw_dataset(np.random.default_rng(11), np.asarray(alpha), 0.3, 20_000, k, 1, True, "dirichlet")
    pairs = [(x[0, 0], y[0, 0]) for x, y in zip(mine, ref, strict=True)]
    tv = [item_units_cm(c[0], c[1], c[2], k, ["tv"])["tv"][0].ravel() for c in (mine, ref)]
    pairs.append((tv[0] + 2 * k, tv[1] + 2 * k))
    for x, y in pairs:
        table = np.stack([np.bincount(x, minlength=4 * k + 1), np.bincount(y, minlength=4 * k + 1)])
        keep = table.sum(axis=0) >= 10
        rest = table[:, ~keep].sum(axis=1, keepdims=True)
        table = np.hstack([table[:, keep], rest]) if rest.sum() else table[:, keep]
        assert stats.chi2_contingency(table).pvalue > 1e-4


@pytest.mark.parametrize("k", [45, 65, 100])
def test_pooled_gold_and_a_counts_are_beta_binomial(k: int) -> None:
    """Across several blocks: gold's count of category 1, and A's under the alternative (both rate from beta),
    follow BetaBinomial(K, alpha_1, alpha_0 - alpha_1) (scipy's ``betabinom``), chi-square p > 1e-4."""
    alpha = (1.0, 2.0)
    pool.clear_pools()
    g, a, _ = pool.pooled_counts(alpha, 0.3, k, 20_000, False)
    exp = stats.betabinom.pmf(np.arange(k + 1), k, alpha[1], alpha[0])
    for got in (g, a):
        assert _chi2_p(np.bincount(got[1, 0], minlength=k + 1), exp) > 1e-4


def test_pooled_counts_do_not_depend_on_the_order_of_k() -> None:
    """The counts at K are a function of the seeds of its blocks and remainder, whatever K came first."""
    alpha = (3.0, 1.0, 2.0)
    pool.clear_pools()
    first = pool.pooled_counts(alpha, 0.2, 65, 4096, False)
    pool.clear_pools()
    pool.pooled_counts(alpha, 0.2, 125, 4096, False)
    pool.pooled_counts(alpha, 0.2, 20, 4096, False)
    again = pool.pooled_counts(alpha, 0.2, 65, 4096, False)
    for x, y in zip(first, again, strict=True):
        np.testing.assert_array_equal(x, y)
    assert all(int(c.sum(axis=0).min()) == 65 == int(c.sum(axis=0).max()) for c in first)


def test_kept_prefixes_serve_descending_k_without_new_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``keep_prefixes`` (the split's child, which takes K downwards) the largest K draws every block once
    and each smaller K named is a lookup; its counts are those of a process that asked for that K alone."""
    alpha = (3.0, 1.0, 2.0)
    pool.clear_pools()
    alone = {k: pool.pooled_counts(alpha, 0.2, k, 2048, False) for k in (20, 60)}
    pool.clear_pools()
    drawn: list[int] = []
    real = pool._block
    monkeypatch.setattr(pool, "_block", lambda p, b: drawn.append(b) or real(p, b))
    monkeypatch.setattr(pool, "_KEEP", frozenset())
    pool.keep_prefixes([20, 40, 60, 80, 100])
    top = pool.pooled_counts(alpha, 0.2, 100, 2048, False)
    assert drawn == [0, 1, 2, 3, 4]
    for k in (80, 60, 40, 20):
        got = pool.pooled_counts(alpha, 0.2, k, 2048, False)
        assert all(int(c.sum(axis=0).max()) == k for c in got)
        if k in alone:
            for x, y in zip(alone[k], got, strict=True):
                np.testing.assert_array_equal(x, y)
    assert drawn == [0, 1, 2, 3, 4]
    assert all(int(c.sum(axis=0).min()) == 100 for c in top)
    pool.clear_pools()


def test_kept_prefixes_stay_within_their_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``KEPT_BYTES`` a sum is not kept (it is summed again from the blocks' seeds): the same counts."""
    alpha = (3.0, 1.0, 2.0)
    pool.clear_pools()
    alone = pool.pooled_counts(alpha, 0.2, 40, 2048, False)
    pool.clear_pools()
    one_sum = 3 * 3 * 2048 * 2  # three machines' int16 counts of M = 3 labels
    monkeypatch.setattr(pool, "KEPT_BYTES", 2 * one_sum)
    monkeypatch.setattr(pool, "_KEEP", frozenset())
    pool.keep_prefixes([20, 40, 60, 80, 100])
    pool.pooled_counts(alpha, 0.2, 100, 2048, False)
    (kept,) = [p for key, p in pool._POOLS.items() if key[2] == 2048]
    assert kept.kept == {1, 2} and kept.kept_bytes == 2 * one_sum
    for x, y in zip(alone, pool.pooled_counts(alpha, 0.2, 40, 2048, False), strict=True):
        np.testing.assert_array_equal(x, y)
    for k in (80, 60):
        assert all(int(c.sum(axis=0).max()) == k for c in pool.pooled_counts(alpha, 0.2, k, 2048, False))
    assert len(kept.sums) <= 2 + pool.PREFIXES_KEPT
    pool.clear_pools()


def test_laws_from_the_pool_match_fresh_draws() -> None:
    """A law at K >= POOL_MIN_K (pool) and the simulation sampler's items at the same K: the same mean per metric
    within 4.5 standard errors (independent draws), and the pool's laws do not depend on the order of K."""
    from nkcore.nk.samplers import draw_dataset

    alpha = (5.218, 0.858, 2.748)
    clear_caches()
    alt, _ = item_laws(alpha, 0.3, 40, ["acc", "wins"], n_items=1 << 15)
    rng = np.random.default_rng(7)
    g, a, b = draw_dataset(rng, np.asarray(alpha), 0.3, 1 << 15, 40, 1, False, "dirichlet")
    fresh = item_units_cm(g, a, b, 40, ["acc", "wins"])
    for mt in ("acc", "wins"):
        u = fresh[mt][0].ravel().astype(float)
        se = np.hypot(alt[mt].mean_se, u.std() / np.sqrt(u.size))
        assert abs(alt[mt].mean - u.mean()) < 4.5 * se
    clear_caches()
    item_laws(alpha, 0.3, 80, ["acc"], n_items=1 << 15)
    alt2, _ = item_laws(alpha, 0.3, 40, ["acc", "wins"], n_items=1 << 15)
    assert alt2["acc"].mean == alt["acc"].mean and alt2["wins"].var == alt["wins"].var
