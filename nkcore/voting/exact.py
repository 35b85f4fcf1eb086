"""Per-case credit of the vote at every samples per request n: exact over all n-subsets, and over the first n.

The exact reading averages the vote over every n-subset of a case's samples (it does not depend on the order the
samples were drawn); the first-n reading is what a deployment that draws n samples sees. Tie rules:
:mod:`nkcore.voting.rules`.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from nkcore.common import limits
from nkcore.voting.rules import TieRule, check_tie
from nkcore.voting.samples import SampleSet

__all__ = [
    "FirstNStats",
    "case_credit_exact",
    "case_credit_first_n",
    "case_groups",
    "clear_curve_cache",
    "credit_from_stats",
    "exact_case_curve",
    "exact_work",
    "first_n_stats",
]


def _pascal(m: int) -> np.ndarray:
    """Float binomial table C[a, b] for 0 <= a, b <= m (exact integers while they stay below 2**53): the corner of
    one table per power of two (cases of different sizes share it; a row depends only on the rows above it, so
    the corner is the table of m itself, value for value)."""
    return _pascal_table(1 << max(m.bit_length(), 6))[: m + 1, : m + 1]


@lru_cache(maxsize=4)
def _pascal_table(size: int) -> np.ndarray:
    """C[a, b] for 0 <= a, b < ``size`` (1,024 rows: C(1023, 511) ~ 2.5e306, still finite)."""
    m = size - 1
    c = np.zeros((m + 1, m + 1))
    c[:, 0] = 1.0
    for a in range(1, m + 1):
        c[a, 1 : a + 1] = c[a - 1, :a] + c[a - 1, 1 : a + 1]
    c.setflags(write=False)
    return c


def exact_case_curve(n_gold: int, wrong_sizes: tuple[int, ...], tie: TieRule = "split") -> np.ndarray:
    """Expected plurality-vote credit of one case at every n, over all n-subsets of its samples (exact).

    The case has ``n_gold`` samples with the gold answer and answer groups of sizes ``wrong_sizes``; a
    uniformly random n-subset holds (X_0, X_1, ..., X_k) of each group, multivariate hypergeometric. With
    ``a`` = X_0 gold samples, the subsets where every wrong group has fewer than ``a`` (and ``t`` of them exactly
    ``a``) are counted by the coefficient of z^(n-a) w^t in
    prod_j [sum_{x<a} C(g_j, x) z^x + w C(g_j, a) z^a]; the credit is C(n_gold, a) * coef / (t + 1) for
    ``split``/``first`` (t = 0 only for ``wrong``), summed over a and t and divided by C(m, n).
    For every a above the largest wrong group all groups are below a, so those a together are one convolution,
    sum_a C(n_gold, a) C(W, n - a) (W wrong samples); a = 1 under split credit is a closed form
    (:func:`_one_gold_credit`).
    Returns an array of length m + 1 (index n; index 0 is 0). Reference: the chapter "The accuracy curve
    flattens sooner than the sample count suggests" (its curve is the first-n reading; this is its exact mean).

    >>> [round(float(v), 4) for v in exact_case_curve(2, (1, 1), "split")]
    [0.0, 0.5, 0.5, 0.6667, 1.0]
    """
    check_tie(tie)
    return _shape_curve(int(n_gold), tuple(int(g) for g in wrong_sizes), tie != "wrong").copy()


@lru_cache(maxsize=1024)
def _shape_curve(n_gold: int, wrong_sizes: tuple[int, ...], split: bool) -> np.ndarray:
    """:func:`exact_case_curve` of one answer-group shape, kept for the next call (read-only; at most 1,024 curves
    of at most 1,001 floats, 8 MB): the Sampling page's curve, pass@k and model check ask for the same shapes."""
    m = n_gold + sum(wrong_sizes)
    out = np.zeros(m + 1)
    if n_gold == 0 or m == 0:
        out.setflags(write=False)
        return out
    comb = _pascal(m)
    order = sorted(wrong_sizes)
    below = np.concatenate([[0], np.cumsum(order, dtype=np.int64)])
    top = order[-1] if order else 0
    if n_gold > top:  # a > every wrong group: all of them are below a, credit C(W, d); one convolution for all a
        wrong = int(below[-1])
        gold_terms = comb[n_gold, : n_gold + 1].copy()
        gold_terms[: top + 1] = 0.0
        out += np.convolve(gold_terms, comb[wrong, : wrong + 1])
    second = order[-2] if len(order) > 1 else 0
    if min(n_gold, top) > second:  # the largest group alone at or above a: every such a in one convolution
        alone = _one_big_group(comb, n_gold, top, int(below[-2]), second + 1, min(n_gold, top), split)
        out[: min(len(alone), m + 1)] += alone[: m + 1]
    for a in range(1, min(n_gold, top, second) + 1):
        cut = bisect_left(order, a)  # groups smaller than a
        small = int(below[cut])
        big = [g for g in wrong_sizes if g >= a] if cut < len(order) else []
        if split and a == 1:  # every wrong group is at the tie level: the closed form, no tie dimension
            credit = _one_gold_credit(comb, wrong_sizes)
        elif split:
            credit = _tie_credit(comb, small, big, a)
        else:
            credit = comb[small, : small + 1].copy()
            for g in big:
                credit = np.convolve(credit, comb[g, :a])
        hi = min(m, a + len(credit) - 1)
        out[a : hi + 1] += comb[n_gold, a] * credit[: hi - a + 1]
    n = np.arange(m + 1)
    out[1:] /= comb[m, n[1:]]
    out.setflags(write=False)
    return out


def clear_curve_cache() -> None:
    """Forget the exact curves kept for the next call (a benchmark timing the computation itself calls this)."""
    _shape_curve.cache_clear()


def _one_big_group(comb: np.ndarray, n_gold: int, g: int, small: int, lo: int, hi: int, split: bool) -> np.ndarray:
    """The credit, summed over gold counts a = lo..hi, when one wrong group (size ``g``) is at or above a and the
    others (``small`` samples) are below it: for each a, C(n_gold, a) [sum_{x<a} C(g, x) z^(a+x) + t C(g, a) z^(2a)]
    C(small, .)(z), with t = 1/2 (split: the tie at x = a) or 0 (wrong). The (a, x) terms are summed by degree
    a + x first (one bincount), then one convolution with C(small, .); the coefficient of z^n is the credit at n
    before dividing by C(m, n)."""
    a = np.arange(lo, hi + 1)
    x = np.arange(hi)
    terms = comb[n_gold, a][:, None] * comb[g, :hi][None, :]
    terms[x[None, :] >= a[:, None]] = 0.0  # x < a only
    by_degree = np.bincount((a[:, None] + x[None, :]).ravel(), weights=terms.ravel(), minlength=2 * hi + 1)
    if split:
        by_degree[2 * a] += 0.5 * comb[n_gold, a] * comb[g, a]
    return np.convolve(by_degree, comb[small, : small + 1])


def _one_gold_credit(comb: np.ndarray, wrong_sizes: tuple[int, ...]) -> np.ndarray:
    """The split credit at one gold sample in the subset (a = 1), for every number d of other samples: e_d / (d + 1).

    With one gold sample, a subset is credited only when each wrong group has at most one sample in it, and then the
    d wrong samples all tie with gold: C(1, 1) * e_d(g_1, ..., g_k) subsets (e_d the elementary symmetric
    polynomial of the group sizes: choose d groups, one sample of each), each credited 1 / (d + 1). e_d is the
    coefficient of z^d in prod_j (1 + g_j z) = prod over distinct sizes g of sum_t C(r_g, t) g^t z^t (r_g groups of
    size g): one convolution per distinct size (at most about sqrt(2 m) of them), instead of the tie-count table."""
    poly = np.ones(1)
    sizes, reps = np.unique(np.asarray(wrong_sizes, dtype=np.int64), return_counts=True)
    for g, r in zip(sizes.tolist(), reps.tolist(), strict=True):
        t = np.arange(r + 1)
        poly = np.convolve(poly, comb[r, : r + 1] * np.power(float(g), t))
    return poly / np.arange(1, len(poly) + 1)


def _tie_credit(comb: np.ndarray, small: int, big: list[int], a: int) -> np.ndarray:
    """sum_t coef[z^d w^t] / (t + 1) of C(small, .)(z) prod_{g in big} [sum_{x<a} C(g, x) z^x + w C(g, a) z^a], for
    every degree d: one row per tie count t, each group's factor applied as a 1-D convolution (the x < a part) plus
    the w z^a term (a shift of the row below)."""
    poly = comb[small, : small + 1][None, :].copy()  # (tie count t, z degree)
    for g in big:
        rows, width = poly.shape
        grown = np.zeros((rows + 1, width + a))
        kernel = comb[g, :a]
        if rows <= a:  # one convolution per row, or one shifted row block per kernel term: the fewer calls
            for t in range(rows):
                grown[t, : width + a - 1] += np.convolve(poly[t], kernel)
        else:
            for x in range(a):
                grown[:rows, x : x + width] += kernel[x] * poly
        grown[1:, a : a + width] += comb[g, a] * poly
        poly = grown
    return (1.0 / np.arange(1, poly.shape[0] + 1)) @ poly


CALL_WORK = 5_000
"""Multiply-adds one numpy call of the exact curve is counted as (its fixed cost, about 5 microseconds)."""
_TOUCH = 3  # each step also allocates, shifts and adds its (rows x width) polynomial: counted as 3 more terms


def exact_work(n_gold: int, wrong_sizes: tuple[int, ...], split: bool = True) -> float:
    """The work of :func:`exact_case_curve` in multiply-adds, from the group sizes alone (before any is done).

    For each gold count a = 1..n_gold the j-th wrong group of size >= a multiplies a (rows x width) polynomial,
    rows = j (tie counts; 1 for the ``wrong`` rule) and width = small + (j - 1) a + 1 (small: the samples of the
    groups below a), by a kernel of a terms: rows x width x (a + 3) multiply-adds (3 for making, shifting and
    adding the polynomial) and min(rows, a) numpy calls, each counted as :data:`CALL_WORK`. Summed over j in closed form (sums of j and j^2), vectorised over a.
    Under split credit a = 1 is the closed form of :func:`_one_gold_credit`: at most (groups + 1)^2 multiply-adds
    and one call per distinct group size; every a above the largest group is one convolution,
    (n_gold + 1) x (W + 1) multiply-adds (W wrong samples), and every a where the largest group alone is at or
    above a is one table and one convolution (:func:`_one_big_group`).

    >>> exact_work(2, (1, 1)) > 0, exact_work(3, ())
    (True, 0.0)
    """
    if n_gold <= 0 or not wrong_sizes:
        return 0.0
    sizes = np.sort(np.asarray(wrong_sizes, dtype=np.float64))
    first = 1 if not split else 2  # split credit at a = 1 is the closed form of _one_gold_credit
    top = int(sizes[-1])
    second = int(sizes[-2]) if len(sizes) > 1 else 0
    a = np.arange(first, min(n_gold, second) + 1, dtype=np.float64)  # above the second largest: closed forms
    below = np.searchsorted(sizes, a, side="left")  # groups smaller than a
    small = np.concatenate([[0.0], np.cumsum(sizes)])[below]
    b = len(sizes) - below  # groups of a or more
    if split:
        s1, s2 = b * (b + 1) / 2, b * (b + 1) * (2 * b + 1) / 6  # sum of j, of j^2
        macs = (a + _TOUCH) * ((small + 1 - a) * s1 + a * s2)
        calls = np.where(b <= a, s1, 0.0) + np.where(b > a, b * a, 0.0)
    else:
        macs = (a + _TOUCH) * (b * (small + 1) + a * b * (b - 1) / 2)
        calls = b
    total = float((macs + CALL_WORK * (calls + 1)).sum())
    if n_gold > top:
        total += (n_gold + 1) * (float(sizes.sum()) + 1) + CALL_WORK
    hi = min(n_gold, top)
    if hi > second:  # the largest group alone: a (a x hi) table of terms and one convolution
        total += 3.0 * (hi - second) * hi + (2 * hi + 1) * (float(sizes.sum()) - top + 1) + 4 * CALL_WORK
    if split:  # a = 1: one convolution per distinct size, the polynomial at most (groups + 1) long
        k = len(sizes)
        total += (k + 1) ** 2 + CALL_WORK * (len(np.unique(sizes)) + 1)
    return total


def case_credit_exact(samples: SampleSet, tie: TieRule = "first") -> np.ndarray:
    """Per-case expected credit over all n-subsets (cases x max_n; column n-1 is n), NaN where n > samples.

    Cases with the same answer-group sizes share one exact computation (see :func:`exact_case_curve`); ``first``
    uses split credit (equal in expectation over random orders).

    >>> from nkcore.voting.samples import parse_samples
    >>> import pandas as pd
    >>> s = parse_samples(pd.DataFrame({"case": [1] * 3, "sample": [1, 2, 3], "answer": list("aab"), "gold": "a"}))
    >>> [round(float(x), 4) for x in case_credit_exact(s, "split")[0]]
    [0.6667, 0.6667, 1.0]
    """
    check_tie(tie)
    rule: TieRule = "wrong" if tie == "wrong" else "split"
    m = samples.max_n
    n_codes = int(samples.codes.max()) + 1
    limits.check_memory(8 * samples.n_cases * (m + 2 * n_codes), "the per-case credit table")
    out = np.full((samples.n_cases, m), np.nan)
    keys = case_groups(samples)
    work = sum(exact_work(n_gold, sizes, rule == "split") for n_gold, sizes in set(keys))
    limits.check("vote_work", work, "the exact majority-vote curve of these samples")
    for i, key in enumerate(keys):
        curve = _shape_curve(key[0], key[1], rule == "split")
        out[i, : len(curve) - 1] = curve[1:]
    return out


@dataclass(frozen=True, slots=True, eq=False)
class FirstNStats:
    """Counts of the vote over each case's first n samples (arrays cases x max_n; column n-1 is n).

    ``gold_count``: samples with the gold answer; ``top``: the largest answer count; ``n_top``: how many answers
    share it; ``winner``: the code of the winner when the answer seen first wins a tie.
    """

    gold_count: np.ndarray
    top: np.ndarray
    n_top: np.ndarray
    winner: np.ndarray


def first_n_stats(samples: SampleSet) -> FirstNStats:
    """:class:`FirstNStats` of ``samples``, by running counts updated one sample position at a time for every case
    at once (cases x distinct answers integers; work cases x samples, whatever the number of distinct answers).

    count_a(n) = #{j < n : code_j = a}; top(n) = max_a count_a(n); winner(n) = the smallest code a with
    count_a(n) = top(n) (codes number answers by first occurrence, so that is the earliest seen). Adding sample n
    raises one count c: top, n_top and winner change only when c reaches the top (c > top: c alone; c = top: one
    more at the top, the smaller code wins).

    >>> from nkcore.voting.samples import parse_samples
    >>> import pandas as pd
    >>> s = parse_samples(pd.DataFrame({"case": [1] * 3, "sample": [1, 2, 3], "answer": list("abb"), "gold": "a"}))
    >>> st = first_n_stats(s); st.top.tolist(), st.n_top.tolist(), st.winner.tolist()
    ([[1, 1, 2]], [[1, 2, 1]], [[0, 0, 1]])
    """
    c, m = samples.codes.shape
    g = int(samples.codes.max()) + 1
    limits.check_memory(4 * c * (g + 4 * m), "the first-n vote counts")
    counts = np.zeros((c, g), dtype=np.int32)
    gold_cnt = np.zeros((c, m), dtype=np.int32)
    top = np.zeros((c, m), dtype=np.int32)
    n_top = np.zeros((c, m), dtype=np.int32)
    winner = np.zeros((c, m), dtype=np.int32)
    gc = samples.gold_code
    rows = np.arange(c)
    cur_gold = np.zeros(c, dtype=np.int32)
    cur_top = np.zeros(c, dtype=np.int32)
    cur_n = np.full(c, g, dtype=np.int32)  # every count is 0: all answers share the top
    cur_win = np.zeros(c, dtype=np.int32)
    for j in range(m):
        code = samples.codes[:, j]
        live = code >= 0
        r, a = rows[live], code[live]
        counts[r, a] += 1
        now = counts[r, a]
        cur_gold[r] += (a == gc[r]).astype(np.int32)
        above, equal = now > cur_top[r], now == cur_top[r]
        cur_n[r] = np.where(above, 1, np.where(equal, cur_n[r] + 1, cur_n[r]))
        cur_win[r] = np.where(above, a, np.where(equal, np.minimum(cur_win[r], a), cur_win[r]))
        cur_top[r] = np.maximum(cur_top[r], now)
        gold_cnt[:, j], top[:, j], n_top[:, j], winner[:, j] = cur_gold, cur_top, cur_n, cur_win
    return FirstNStats(gold_count=gold_cnt, top=top, n_top=n_top, winner=winner)


def credit_from_stats(samples: SampleSet, stats: FirstNStats, tie: TieRule) -> np.ndarray:
    """Credit of the first-n vote from its counts: ``first`` = winner is gold; ``split`` = 1 / n_top when gold's
    count is the top; ``wrong`` = gold alone at the top. NaN past each case's last sample."""
    if tie == "first":
        credit = (stats.winner == samples.gold_code[:, None]).astype(float)
    elif tie == "split":
        credit = np.where(stats.gold_count == stats.top, 1.0 / stats.n_top, 0.0)
    else:
        credit = ((stats.gold_count == stats.top) & (stats.n_top == 1)).astype(float)
    credit[samples.codes < 0] = np.nan
    return credit


def case_credit_first_n(samples: SampleSet, tie: TieRule = "first") -> np.ndarray:
    """Per-case credit of the vote over the first n samples (cases x max_n; column n-1 is n), NaN past the end.

    ``first`` reproduces ``Counter(answers[:n]).most_common(1)`` (earliest first occurrence wins a tie).

    >>> from nkcore.voting.samples import parse_samples
    >>> import pandas as pd
    >>> s = parse_samples(pd.DataFrame({"case": [1] * 3, "sample": [1, 2, 3], "answer": list("abb"), "gold": "a"}))
    >>> case_credit_first_n(s, "first").tolist(), case_credit_first_n(s, "split").tolist()
    ([[1.0, 1.0, 0.0]], [[1.0, 0.5, 0.0]])
    """
    check_tie(tie)
    return credit_from_stats(samples, first_n_stats(samples), tie)


def case_groups(samples: SampleSet) -> list[tuple[int, tuple[int, ...]]]:
    """Each case's answer groups: (samples with the gold answer, sizes of the other answers' groups, largest first).

    The exact readings depend on a case through these sizes only (answers are exchangeable but for gold), so cases
    with the same key share one computation.

    >>> from nkcore.voting.samples import parse_samples
    >>> import pandas as pd
    >>> case_groups(parse_samples(pd.DataFrame({"case": 1, "sample": [1, 2, 3, 4], "answer": list("abcb"), "gold": "a"})))
    [(1, (2, 1))]
    """
    n_codes = int(samples.codes.max()) + 1
    limits.check_memory(16 * samples.n_cases * n_codes, "the answer-group counts")
    rows = np.repeat(np.arange(samples.n_cases), samples.max_n)
    flat = samples.codes.ravel()
    keep = flat >= 0
    counts = np.bincount(rows[keep] * n_codes + flat[keep], minlength=samples.n_cases * n_codes).reshape(
        samples.n_cases, n_codes
    )
    gc = samples.gold_code.astype(np.int64)
    has = gc >= 0
    idx = np.arange(samples.n_cases)
    n_gold = np.where(has, counts[idx, np.clip(gc, 0, None)], 0)
    counts[idx[has], gc[has]] = 0  # the other answers' groups only
    counts = -np.sort(-counts, axis=1)  # largest first; zeros (no such answer) last
    sizes = (counts > 0).sum(axis=1)
    return [(g, tuple(row[:k])) for g, row, k in zip(n_gold.tolist(), counts.tolist(), sizes.tolist(), strict=True)]
