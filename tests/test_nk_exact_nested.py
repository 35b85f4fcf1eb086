"""The nested draws of the exact engine's small K (``nkcore.nk.exact.nested``) against the exact outcome law."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from nkcore.nk import outcomes
from nkcore.nk.exact.laws import clear_caches, item_laws, item_laws_many
from nkcore.nk.exact.nested import nested_chunk
from nkcore.nk.priors import get_prior


@pytest.mark.parametrize("null", [False, True])
def test_counts_at_every_k_follow_the_exact_outcome_law(null: bool) -> None:
    """Chunks of the nested stream, read at K = 1, 2, 3: the frequency of every outcome type (gold, A, B counts)
    against its exact probability (``outcomes.outcome_law``, Dirichlet moments), by a chi-square test (types with
    fewer than 5 expected items pooled). The seeds are fixed, so the p-values are too (0.16-0.86 here); a wrong
    coin or urn (B's rho share eps / 2 under the alternative, say) gives p < 1e-10."""
    alpha, eps, ks = np.array([0.7, 2.0, 3.0]), 0.3, (1, 2, 3)
    base = 4 ** np.arange(3)
    tallies: dict[int, dict[int, int]] = {k: {} for k in ks}

    def key(g: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (g @ base) * 4**6 + (a @ base) * 4**3 + (b @ base)

    def visit(k: int, counts: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        g, a, b = (c[:, 0, :].T.astype(np.int64) for c in counts)
        for v, n in zip(*np.unique(key(g, a, b), return_counts=True), strict=True):
            tallies[k][int(v)] = tallies[k].get(int(v), 0) + int(n)

    for chunk in range(4):
        nested_chunk(alpha, eps, null, chunk, ks, visit)
    for k in ks:
        law = outcomes.outcome_law(alpha, eps, k, null)
        obs = np.array([tallies[k].get(int(v), 0) for v in key(law.gold, law.a, law.b)], dtype=float)
        assert obs.sum() == sum(tallies[k].values())  # every drawn outcome is a type of the law
        exp = law.prob * obs.sum()
        big = exp >= 5
        chi2 = float((((obs - exp) ** 2)[big] / exp[big]).sum())
        chi2 += float((obs[~big].sum() - exp[~big].sum()) ** 2 / max(exp[~big].sum(), 1e-300))
        assert stats.chi2.sf(chi2, int(big.sum())) > 1e-3, (k, null, chi2)


def test_a_small_k_law_is_the_same_alone_or_drawn_with_other_k() -> None:
    """balanced12 at K = 3: the law asked alone equals the one drawn with K = 2 and 7 (one nested stream; the
    counts at K come from the first K steps only), to the bit; its Accuracy rests on more than the pilot."""
    alpha = get_prior("balanced12").concentration
    clear_caches()
    alone_alt, alone_null = item_laws(alpha, 0.3, 3, ["acc", "kl"])
    clear_caches()
    together = item_laws_many(alpha, 0.3, [7, 3, 2], ["acc", "kl"])
    clear_caches()
    assert alone_alt["acc"].n_items > 1 << 15
    for mt in ("acc", "kl"):
        for a, b in ((alone_alt[mt], together[3][0][mt]), (alone_null[mt], together[3][1][mt])):
            assert a.n_items == b.n_items
            np.testing.assert_array_equal(a.values, b.values)
            np.testing.assert_array_equal(a.prob, b.prob)


def test_laws_found_cached_survive_new_ones_emptying_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call that finds some laws cached and draws the others, whose adoption overflows the cache (``LAWS_KEPT``:
    the cache then starts afresh), returns every law, each the same as asked alone. It raised ``KeyError`` (a full
    ``make test`` run, ``test_exact_grid_matches_reference[DICES_0.3]``: K = 1 was cached, the other K emptied the
    cache, K = 1 was read from it after). Exact laws (M = 2, small K): no draws, milliseconds."""
    from nkcore.nk.exact import laws

    prior, eps = (1.37658107, 1.33054633), 0.3
    clear_caches()
    try:
        monkeypatch.setattr(laws, "LAWS_KEPT", 2)
        cached = item_laws(prior, eps, 1, ["acc"])  # one pair cached
        both = item_laws_many(prior, eps, [1, 2, 3], ["acc"])  # two more: 1 + 2 > 2, the cache is emptied first
        assert both[1][0]["acc"] is cached[0]["acc"] and both[1][1]["acc"] is cached[1]["acc"]
        for k in (2, 3):
            clear_caches()
            alt, null = item_laws(prior, eps, k, ["acc"])
            for a, b in ((alt["acc"], both[k][0]["acc"]), (null["acc"], both[k][1]["acc"])):
                np.testing.assert_array_equal(a.values, b.values)
                np.testing.assert_array_equal(a.prob, b.prob)
    finally:
        clear_caches()
