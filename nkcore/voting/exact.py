"""Per-case credit of the vote at every samples per request n: exact over all n-subsets, and over the first n.

The exact reading averages the vote over every n-subset of a case's samples (it does not depend on the order the
samples were drawn); the first-n reading is what a deployment that draws n samples sees. Tie rules:
:mod:`nkcore.voting.rules`.
"""

from __future__ import annotations

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
    "credit_from_stats",
    "exact_case_curve",
    "exact_work",
    "first_n_stats",
]


@lru_cache(maxsize=8)
def _pascal(m: int) -> np.ndarray:
    """Float binomial table C[a, b] for 0 <= a, b <= m (exact integers while they stay below 2**53)."""
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
    Returns an array of length m + 1 (index n; index 0 is 0). Reference: the chapter "The accuracy curve
    flattens sooner than the sample count suggests" (its curve is the first-n reading; this is its exact mean).

    >>> [round(float(v), 4) for v in exact_case_curve(2, (1, 1), "split")]
    [0.0, 0.5, 0.5, 0.6667, 1.0]
    """
    check_tie(tie)
    m = n_gold + sum(wrong_sizes)
    out = np.zeros(m + 1)
    if n_gold == 0 or m == 0:
        return out
    comb = _pascal(m)
    split = tie != "wrong"
    for a in range(1, n_gold + 1):
        small = sum(g for g in wrong_sizes if g < a)
        big = [g for g in wrong_sizes if g >= a]
        if split:
            credit = _tie_credit(comb, small, big, a)
        else:
            credit = comb[small, : small + 1].copy()
            for g in big:
                credit = np.convolve(credit, comb[g, :a])
        hi = min(m, a + len(credit) - 1)
        out[a : hi + 1] += comb[n_gold, a] * credit[: hi - a + 1]
    n = np.arange(m + 1)
    out[1:] /= comb[m, n[1:]]
    return out


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

    >>> exact_work(2, (1, 1)) > 0, exact_work(3, ())
    (True, 0.0)
    """
    if n_gold <= 0 or not wrong_sizes:
        return 0.0
    sizes = np.sort(np.asarray(wrong_sizes, dtype=np.float64))
    a = np.arange(1, n_gold + 1, dtype=np.float64)
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
    return float((macs + CALL_WORK * (calls + 1)).sum())


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
    limits.check_memory(8 * samples.n_cases * (m + n_codes), "the per-case credit table")
    out = np.full((samples.n_cases, m), np.nan)
    memo: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
    counts = np.zeros((samples.n_cases, n_codes), dtype=np.int64)
    rows = np.repeat(np.arange(samples.n_cases), m)
    flat = samples.codes.ravel()
    keep = flat >= 0
    np.add.at(counts, (rows[keep], flat[keep]), 1)
    keys = []
    for i in range(samples.n_cases):
        gc = int(samples.gold_code[i])
        row = counts[i]
        n_gold = int(row[gc]) if gc >= 0 else 0
        wrong = row.copy()
        if gc >= 0:
            wrong[gc] = 0
        keys.append((n_gold, tuple(sorted((int(v) for v in wrong if v > 0), reverse=True))))
    work = sum(exact_work(n_gold, sizes, rule == "split") for n_gold, sizes in set(keys))
    limits.check("vote_work", work, "the exact majority-vote curve of these samples")
    for i, key in enumerate(keys):
        curve = memo.get(key)
        if curve is None:
            curve = exact_case_curve(key[0], key[1], rule)
            memo[key] = curve
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
    limits.check_memory(8 * samples.n_cases * n_codes, "the answer-group counts")
    counts = np.zeros((samples.n_cases, n_codes), dtype=np.int64)
    rows = np.repeat(np.arange(samples.n_cases), samples.max_n)
    flat = samples.codes.ravel()
    keep = flat >= 0
    np.add.at(counts, (rows[keep], flat[keep]), 1)
    out = []
    for i in range(samples.n_cases):
        gc = int(samples.gold_code[i])
        row = counts[i].copy()
        n_gold = int(row[gc]) if gc >= 0 else 0
        if gc >= 0:
            row[gc] = 0
        out.append((n_gold, tuple(sorted((int(v) for v in row if v > 0), reverse=True))))
    return out
