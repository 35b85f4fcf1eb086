"""Majority-vote curves over samples per request (n): exact curves, models of why they flatten, adaptive top-up.

Input is raw samples, long: ``case, sample, answer, gold`` (``sample`` = the order drawn), optional
``latency_s``; a 0/1 ``correct`` column may replace ``gold`` (or, with no ``answer`` column, the samples are
read as binary: correct against one wrong answer).

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``): 142, 156, 158, 158 of 200 cases at n = 1, 3, 5, 7; independent
majority accuracy 79.6%, 85.0%, 88.6% at p = 0.71; rho = 0.17 gives N_eff 3.0 at n = 5 and 3.5 at n = 7;
38 of the 44 cases wrong at n = 3 are still wrong at n = 7, 31 of them unanimous; the 3+2 adaptive rule tops
up 19% of requests for 3.38 calls and scores 158.

Tie rules (``tie``), for a vote where the correct answer shares the top count with ``t`` other answers:
``wrong`` counts it wrong; ``split`` gives credit 1 / (t + 1); ``first`` lets the answer seen first win. For a
uniformly random subset in random order ``first`` equals ``split`` in expectation (each tied answer is equally
likely to be seen first), so the exact curve uses split credit for both; for the "first n samples" reading
``first`` is ``collections.Counter(first_n_answers).most_common(1)``: among tied answers the one whose first
occurrence is earliest.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd
from scipy import optimize, signal, special, stats

from nkcore.errors import DataError
from nkcore.kinds import format_rows, natural_order

TieRule = Literal["wrong", "split", "first"]
Trigger = Literal["no_plurality", "no_majority", "not_unanimous"]
Reading = Literal["exact", "first_n"]

TIE_RULES: tuple[str, ...] = ("wrong", "split", "first")
TRIGGERS: tuple[str, ...] = ("no_plurality", "no_majority", "not_unanimous")
MAX_SAMPLES_PER_CASE = 1000  # binomial coefficients up to C(1000, 500) ~ 1e299 stay finite in float64
MIN_BOOT, MAX_BOOT = 100, 100_000  # bootstrap replicates: fewer make a useless interval, more only take time

__all__ = [
    "TIE_RULES",
    "TRIGGERS",
    "AdaptiveResult",
    "BetaBinomialFit",
    "CurvePoint",
    "NEffRow",
    "NextStepCheck",
    "RhoEstimate",
    "SampleSet",
    "UnfixableCase",
    "UnfixableErrors",
    "VoteAnalysis",
    "VoteCurve",
    "adaptive_from_frame",
    "adaptive_sentence",
    "adaptive_topup",
    "analyze_samples",
    "as_generator",
    "beta_binomial_curve",
    "case_credit_exact",
    "case_credit_first_n",
    "correlated_accuracy",
    "correlated_curve",
    "curve_sentence",
    "estimate_rho",
    "exact_case_curve",
    "fit_beta_binomial",
    "independent_accuracy",
    "model_gap_sentence",
    "n_eff",
    "n_eff_table",
    "next_step_from_frame",
    "next_step_sentence",
    "order_sentence",
    "parse_samples",
    "plurality_correct",
    "predict_next_step",
    "rho_sentence",
    "unfixable_errors",
    "unfixable_from_frame",
    "unfixable_sentence",
    "vote_curve",
    "what_if_sentence",
]


# --------------------------------------------------------------------------------------------- parsing


@dataclass(frozen=True, slots=True, eq=False)
class SampleSet:
    """Typed raw samples: one row per case, samples in the order drawn.

    ``codes[i, j]`` is the answer of case i's j-th sample, coded per case by first occurrence (0 = the answer
    seen first), -1 past the case's last sample; ``gold_code[i]`` is the code of the gold answer (-1 when no
    sample gave it); ``labels[i]`` maps codes back to answers; ``latency_s`` (NaN-padded) when given.
    """

    cases: tuple[str, ...]
    gold: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]
    codes: np.ndarray
    gold_code: np.ndarray
    n_samples: np.ndarray
    latency_s: np.ndarray | None
    binary: bool

    @property
    def n_cases(self) -> int:
        """Number of cases."""
        return len(self.cases)

    @property
    def max_n(self) -> int:
        """Largest number of samples any case has."""
        return int(self.n_samples.max())

    def cases_with_at_least(self, n: int) -> int:
        """How many cases have at least ``n`` samples (the cases that count at samples per request n)."""
        return int((self.n_samples >= n).sum())

    def subset(self, keep: np.ndarray) -> SampleSet:
        """The cases where the boolean mask ``keep`` is true (same order; latencies kept)."""
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.n_cases,) or not keep.any():
            raise DataError("a subset of the samples needs a true/false per case and at least one case")
        pick = np.flatnonzero(keep)
        return SampleSet(
            cases=tuple(self.cases[i] for i in pick),
            gold=tuple(self.gold[i] for i in pick),
            labels=tuple(self.labels[i] for i in pick),
            codes=self.codes[keep],
            gold_code=self.gold_code[keep],
            n_samples=self.n_samples[keep],
            latency_s=None if self.latency_s is None else self.latency_s[keep],
            binary=self.binary,
        )

    def correct_matrix(self) -> np.ndarray:
        """Per-sample correctness (cases x max_n), NaN past each case's last sample."""
        out = (self.codes == self.gold_code[:, None]).astype(float)
        out[self.codes < 0] = np.nan
        return out

    def latencies(self) -> np.ndarray:
        """All per-call latencies (seconds) as a flat array; DataError when the data has none."""
        if self.latency_s is None:
            raise DataError("the samples have no latency_s column: add one (seconds per call) or type p50 and p95")
        flat = self.latency_s[~np.isnan(self.latency_s)]
        return flat


def _norm_label(value: object) -> str:
    """Answers and gold compare as stripped text; an integral float 42.0 reads as "42"."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return str(value).strip()


def _is_blank(series: pd.Series) -> pd.Series:
    blank = series.isna()
    as_text = series.astype("string").str.strip()
    return blank | as_text.eq("").fillna(True)


def _rows(mask: pd.Series | np.ndarray, limit: int = 5) -> str:
    """'data rows 3, 7' for the rows where ``mask`` holds (data row 1 = the first row under the header)."""
    return format_rows(np.flatnonzero(np.asarray(mask, dtype=bool)), limit=limit)


def _to_bool(series: pd.Series, column: str) -> np.ndarray:
    text = series.astype("string").str.strip().str.lower()
    mapping = {"1": True, "0": False, "true": True, "false": False, "1.0": True, "0.0": False, "yes": True, "no": False}
    mapped = text.map(mapping)
    bad = mapped.isna()
    if bad.any():
        raise DataError(f"column '{column}' must be 0/1 (or true/false); bad values in {_rows(bad)}")
    return mapped.astype(bool).to_numpy()


def parse_samples(frame: pd.DataFrame) -> SampleSet:
    """Parse and validate raw samples into a :class:`SampleSet` (precise ``DataError`` on bad input).

    Columns (names case-insensitive): ``case``, ``sample`` (order drawn, numeric), ``answer``, ``gold``;
    optional ``latency_s`` (seconds, >= 0); a 0/1 ``correct`` column may replace ``gold``. With ``answer`` and
    ``correct`` but no gold, every answer marked correct in a case counts as the one correct answer; with
    ``correct`` and no ``answer``, samples are binary (correct vs one wrong answer). Cases may have different
    sample counts; each samples per request n then uses the cases with at least n samples.

    Example: two cases, three samples each, gold "a":
    >>> f = pd.DataFrame({"case": [1, 1, 1, 2, 2, 2], "sample": [1, 2, 3] * 2,
    ...                   "answer": list("aab") + list("bcb"), "gold": ["a"] * 6})
    >>> s = parse_samples(f); (s.n_cases, s.max_n, s.gold_code.tolist())
    (2, 3, [0, -1])
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError("samples must be a table with columns case, sample, answer, gold")
    df = frame.copy()
    df.columns = [str(c).strip().lower() for c in df.columns]
    if df.columns.duplicated().any():
        dup = sorted({c for c in df.columns[df.columns.duplicated()]})
        raise DataError(f"duplicate column names: {', '.join(dup)}")
    if len(df) == 0:
        raise DataError("the samples table is empty")
    missing = [c for c in ("case", "sample") if c not in df.columns]
    has_answer, has_gold, has_correct = "answer" in df.columns, "gold" in df.columns, "correct" in df.columns
    if missing:
        raise DataError(
            f"missing column(s) {', '.join(missing)}: samples need case, sample, answer, gold "
            f"(or a 0/1 correct column instead of gold); found {', '.join(map(str, df.columns))}"
        )
    if not has_gold and not has_correct:
        raise DataError("missing gold: add a gold column (the right answer per case) or a 0/1 correct column")
    if has_gold and not has_answer:
        raise DataError("a gold column needs an answer column (each sample's answer)")
    df = df.reset_index(drop=True)

    blank_case = _is_blank(df["case"])
    if blank_case.any():
        raise DataError(f"empty case id in {_rows(blank_case)}")
    sample_num = pd.to_numeric(df["sample"], errors="coerce")
    if sample_num.isna().any():
        raise DataError(f"column 'sample' must be a number (the order drawn); bad values in {_rows(sample_num.isna())}")
    case_key = df["case"].map(_norm_label)
    dup = pd.DataFrame({"c": case_key, "s": sample_num}).duplicated(keep=False)
    if dup.any():
        raise DataError(f"the same (case, sample) appears more than once: {_rows(dup)}")

    binary = not has_answer
    if has_answer:
        blank = _is_blank(df["answer"])
        if blank.any():
            raise DataError(
                f"empty or missing answers in {_rows(blank)}: every sample needs an answer "
                f"(write a placeholder such as 'no answer' for refusals)"
            )
        answers = df["answer"].map(_norm_label)
    correct_col = _to_bool(df["correct"], "correct") if has_correct else None

    if has_gold:
        blank_gold = _is_blank(df["gold"])
        if blank_gold.any():
            bad_cases = sorted(set(case_key[blank_gold]))
            shown = ", ".join(bad_cases[:5]) + (f" and {len(bad_cases) - 5} more" if len(bad_cases) > 5 else "")
            raise DataError(f"missing gold for case(s) {shown} ({_rows(blank_gold)})")
        gold_s = df["gold"].map(_norm_label)
        n_gold = gold_s.groupby(case_key).nunique()
        if (n_gold > 1).any():
            bad = list(n_gold.index[n_gold > 1])[:5]
            raise DataError(f"case(s) {', '.join(bad)} have more than one gold answer; gold must be one value per case")
        is_correct = (answers == gold_s).to_numpy()
        if correct_col is not None and (correct_col != is_correct).any():
            raise DataError(
                f"the correct column disagrees with answer == gold in {_rows(correct_col != is_correct)}; "
                f"drop one of the two columns"
            )
    else:
        assert correct_col is not None
        is_correct = correct_col
        if binary:
            answers = pd.Series(np.where(is_correct, "correct", "wrong"), index=df.index)
            gold_s = pd.Series("correct", index=df.index)
        else:
            both = pd.DataFrame({"c": case_key, "a": answers, "k": is_correct}).groupby(["c", "a"])["k"].nunique()
            if (both > 1).any():
                c, a = both.index[both > 1][0]
                raise DataError(f"case {c}: answer '{a}' is marked both correct and wrong")
            # All answers marked correct in a case count as the one correct answer.
            answers = pd.Series(np.where(is_correct, "<correct>", answers.to_numpy()), index=df.index)
            gold_s = pd.Series("<correct>", index=df.index)

    latency = None
    if "latency_s" in df.columns:
        lat = pd.to_numeric(df["latency_s"], errors="coerce")
        bad = lat.isna() | (lat < 0) | ~np.isfinite(lat.fillna(0))
        if bad.any():
            raise DataError(
                f"column 'latency_s' must be a non-negative number of seconds; bad or missing in {_rows(bad)}"
            )
        latency = lat.to_numpy(dtype=float)

    order = np.lexsort((sample_num.to_numpy(), case_key.to_numpy()))
    work = pd.DataFrame(
        {
            "case": case_key.to_numpy()[order],
            "answer": answers.to_numpy()[order],
            "gold": gold_s.to_numpy()[order],
            "first_row": np.arange(len(df))[order],
        }
    )
    # Keep cases in the order they first appear in the file.
    first_pos = work.groupby("case", sort=False)["first_row"].min().sort_values()
    case_ids = list(first_pos.index)
    groups = work.groupby("case", sort=False).indices
    counts = np.array([len(groups[c]) for c in case_ids])
    if counts.max() < 2:
        raise DataError(
            "every case has one sample: a vote needs at least 2 samples per request (n) for some cases; "
            "add more samples per case"
        )
    if counts.max() > MAX_SAMPLES_PER_CASE:
        big = case_ids[int(np.argmax(counts))]
        raise DataError(f"case {big} has {counts.max()} samples; at most {MAX_SAMPLES_PER_CASE} per case are supported")
    m = int(counts.max())
    codes = np.full((len(case_ids), m), -1, dtype=np.int32)
    lat_mat = np.full((len(case_ids), m), np.nan) if latency is not None else None
    gold_code = np.full(len(case_ids), -1, dtype=np.int32)
    labels: list[tuple[str, ...]] = []
    golds: list[str] = []
    ans_arr = work["answer"].to_numpy()
    gold_arr = work["gold"].to_numpy()
    for i, c in enumerate(case_ids):
        idx = groups[c]
        seen: dict[str, int] = {}
        row = [seen.setdefault(a, len(seen)) for a in ans_arr[idx]]
        codes[i, : len(idx)] = row
        g = str(gold_arr[idx[0]])
        golds.append(g)
        gold_code[i] = seen.get(g, -1)
        labels.append(tuple(seen))
        if lat_mat is not None:
            lat_mat[i, : len(idx)] = latency[order][idx]
    return SampleSet(
        cases=tuple(case_ids),
        gold=tuple(golds),
        labels=tuple(labels),
        codes=codes,
        gold_code=gold_code,
        n_samples=counts,
        latency_s=lat_mat,
        binary=binary,
    )


# --------------------------------------------------------------------------------------------- voting rules


def plurality_correct(answers: list[str] | tuple[str, ...], gold: str, tie: TieRule = "first") -> float:
    """Credit (0, 1 or a fraction) of one plurality vote over ``answers`` against ``gold``.

    ``first`` is ``Counter(answers).most_common(1)``; ``split`` gives 1 / (number of tied top answers) when gold
    is among them; ``wrong`` needs a strict plurality for gold.

    >>> plurality_correct(["b", "a", "a", "b"], "a", "first"), plurality_correct(["b", "a", "a", "b"], "a", "split")
    (0.0, 0.5)
    """
    _check_tie(tie)
    counts = Counter(answers)
    if tie == "first":
        return float(counts.most_common(1)[0][0] == gold)
    top = max(counts.values())
    tied = [a for a, k in counts.items() if k == top]
    if gold not in tied:
        return 0.0
    if tie == "wrong":
        return float(len(tied) == 1)
    return 1.0 / len(tied)


def _check_tie(tie: str) -> None:
    if tie not in TIE_RULES:
        raise DataError(f"tie rule must be one of {', '.join(TIE_RULES)}, got {tie!r}")


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
    Returns an array of length m + 1 (index n; index 0 is 0).

    >>> [round(float(v), 4) for v in exact_case_curve(2, (1, 1), "split")]
    [0.0, 0.5, 0.5, 0.6667, 1.0]
    """
    _check_tie(tie)
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
            poly = comb[small, : small + 1][:, None].copy()  # (z degree, tie count t)
            for g in big:
                kernel = np.zeros((a + 1, 2))
                kernel[:a, 0] = comb[g, :a]
                kernel[a, 1] = comb[g, a]
                poly = signal.convolve2d(poly, kernel)
            credit = poly @ (1.0 / np.arange(1, poly.shape[1] + 1))
        else:
            credit = comb[small, : small + 1].copy()
            for g in big:
                credit = np.convolve(credit, comb[g, :a])
        hi = min(m, a + len(credit) - 1)
        out[a : hi + 1] += comb[n_gold, a] * credit[: hi - a + 1]
    n = np.arange(m + 1)
    out[1:] /= comb[m, n[1:]]
    return out


def case_credit_exact(samples: SampleSet, tie: TieRule = "first") -> np.ndarray:
    """Per-case expected credit over all n-subsets (cases x max_n; column n-1 is n), NaN where n > samples.

    Cases with the same answer-group sizes share one exact computation (see :func:`exact_case_curve`).
    """
    _check_tie(tie)
    rule: TieRule = "wrong" if tie == "wrong" else "split"
    m = samples.max_n
    out = np.full((samples.n_cases, m), np.nan)
    memo: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
    n_codes = int(samples.codes.max()) + 1
    counts = np.zeros((samples.n_cases, n_codes), dtype=np.int64)
    rows = np.repeat(np.arange(samples.n_cases), m)
    flat = samples.codes.ravel()
    keep = flat >= 0
    np.add.at(counts, (rows[keep], flat[keep]), 1)
    for i in range(samples.n_cases):
        gc = int(samples.gold_code[i])
        row = counts[i]
        n_gold = int(row[gc]) if gc >= 0 else 0
        wrong = row.copy()
        if gc >= 0:
            wrong[gc] = 0
        key = (n_gold, tuple(sorted((int(v) for v in wrong if v > 0), reverse=True)))
        curve = memo.get(key)
        if curve is None:
            curve = exact_case_curve(key[0], key[1], rule)
            memo[key] = curve
        out[i, : len(curve) - 1] = curve[1:]
    return out


def _first_n_stats(samples: SampleSet, block: int = 4_000_000) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every case and n: the gold count, the top count and how many answers share the top, and the
    first-seen winner, in the first n samples. Arrays (cases x max_n); computed in blocks of cases."""
    c, m = samples.codes.shape
    g = int(samples.codes.max()) + 1
    gold_cnt = np.zeros((c, m), dtype=np.int32)
    top = np.zeros((c, m), dtype=np.int32)
    n_top = np.zeros((c, m), dtype=np.int32)
    winner = np.full((c, m), -1, dtype=np.int32)
    step = max(1, block // max(1, m * g))
    for lo in range(0, c, step):
        codes = samples.codes[lo : lo + step]
        onehot = (codes[:, :, None] == np.arange(g)[None, None, :]).astype(np.int32)
        cnt = np.cumsum(onehot, axis=1)
        gc = samples.gold_code[lo : lo + step]
        gidx = np.clip(gc, 0, None)
        gcount = np.take_along_axis(cnt, np.broadcast_to(gidx[:, None, None], (len(gc), m, 1)), axis=2)[:, :, 0]
        gold_cnt[lo : lo + step] = np.where(gc[:, None] >= 0, gcount, 0)
        mx = cnt.max(axis=2)
        top[lo : lo + step] = mx
        n_top[lo : lo + step] = (cnt == mx[:, :, None]).sum(axis=2)
        winner[lo : lo + step] = cnt.argmax(axis=2)
    return gold_cnt, top, n_top, winner


def _credit_from_stats(
    samples: SampleSet, stats_: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], tie: TieRule
) -> np.ndarray:
    gold_cnt, top, n_top, winner = stats_
    if tie == "first":
        credit = (winner == samples.gold_code[:, None]).astype(float)
    elif tie == "split":
        credit = np.where(gold_cnt == top, 1.0 / n_top, 0.0)
    else:
        credit = ((gold_cnt == top) & (n_top == 1)).astype(float)
    credit[samples.codes < 0] = np.nan
    return credit


def case_credit_first_n(samples: SampleSet, tie: TieRule = "first") -> np.ndarray:
    """Per-case credit of the vote over the first n samples (cases x max_n; column n-1 is n), NaN past the end.

    ``first`` reproduces ``Counter(answers[:n]).most_common(1)`` (earliest first occurrence wins a tie).
    """
    _check_tie(tie)
    return _credit_from_stats(samples, _first_n_stats(samples), tie)


# --------------------------------------------------------------------------------------------- the curve


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One samples-per-request value n on the measured curve.

    ``accuracy`` is the exact expected plurality accuracy over all n-subsets (mean over the ``n_cases`` cases
    with at least n samples); ``ci_low``/``ci_high`` its 95% paired-bootstrap interval; ``first_n_accuracy`` the
    vote over each case's first n samples (``first_n_correct`` cases); ``diff`` the step of two samples from
    ``diff_from_n`` = n - 2 to n (the odd-n ladder 1, 3, 5, ...), on the cases with at least n samples, with
    its 95% paired-bootstrap interval ``diff_ci_low``/``diff_ci_high`` (NaN, and diff_from_n 0, for n <= 2).
    """

    n: int
    n_cases: int
    accuracy: float
    ci_low: float
    ci_high: float
    first_n_accuracy: float
    first_n_correct: float
    diff_from_n: int
    diff: float
    diff_ci_low: float
    diff_ci_high: float


@dataclass(frozen=True, slots=True)
class VoteCurve:
    """The measured curve: one :class:`CurvePoint` per n, the tie rule, bootstrap settings."""

    points: tuple[CurvePoint, ...]
    tie: str
    n_boot: int
    seed: int

    def point(self, n: int) -> CurvePoint:
        """The point at samples per request ``n`` (DataError when the data has no such n)."""
        for p in self.points:
            if p.n == n:
                return p
        raise DataError(f"the curve has no point at samples per request n={n} (max {self.points[-1].n})")


def as_generator(seed: int | np.random.Generator) -> np.random.Generator:
    """The generator for ``seed``: a Generator as is, a non-negative integer seeds a new one (DataError otherwise).

    >>> float(as_generator(3).random()) == float(np.random.default_rng(3).random())
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise DataError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.default_rng(int(seed))


def _check_boot(n_boot: int) -> None:
    if not MIN_BOOT <= n_boot <= MAX_BOOT:
        raise DataError(f"bootstrap replicates must be between {MIN_BOOT} and {MAX_BOOT:,}, got {n_boot}")


def _bootstrap_weights(n_cases: int, n_boot: int, rng: np.random.Generator, chunk: int = 250):
    """Yield case-count matrices (reps x cases) of a paired bootstrap over cases, in chunks."""
    done = 0
    while done < n_boot:
        k = min(chunk, n_boot - done)
        idx = rng.integers(0, n_cases, size=(k, n_cases)) + (np.arange(k) * n_cases)[:, None]
        yield np.bincount(idx.ravel(), minlength=k * n_cases).reshape(k, n_cases).astype(float)
        done += k


def vote_curve(
    samples: SampleSet, tie: TieRule = "first", n_boot: int = 2000, seed: int | np.random.Generator = 0
) -> VoteCurve:
    """Exact plurality-vote accuracy at every samples per request n, with paired bootstrap intervals.

    accuracy(n) = mean over cases with >= n samples of E[credit of an n-subset] (:func:`exact_case_curve`);
    intervals resample cases with replacement, the same resampled cases at every n (paired), percentile 95%.
    Reference: the chapter's ``paired_bootstrap`` (resample cases, not calls).
    """
    _check_tie(tie)
    _check_boot(n_boot)
    exact = case_credit_exact(samples, tie)
    first = case_credit_first_n(samples, tie)
    mask = ~np.isnan(exact)
    e0 = np.where(mask, exact, 0.0)
    maskf = mask.astype(float)
    # paired steps n - 2 -> n on the cases that have n samples (so they have n - 2 as well)
    step = np.zeros_like(e0)
    step[:, 2:] = np.where(mask[:, 2:], e0[:, 2:] - e0[:, :-2], 0.0)
    boots, dboots = [], []
    for w in _bootstrap_weights(samples.n_cases, n_boot, as_generator(seed)):  # the same resampled cases for every n
        den = w @ maskf
        with np.errstate(invalid="ignore", divide="ignore"):
            boots.append((w @ e0) / den)
            dboots.append((w @ step) / den)
    b, db = np.vstack(boots), np.vstack(dboots)
    points = []
    acc = np.nanmean(exact, axis=0)
    for j in range(samples.max_n):
        n = j + 1
        col = b[:, j]
        lo, hi = np.nanpercentile(col, [2.5, 97.5])
        if j < 2:
            d, dlo, dhi = math.nan, math.nan, math.nan
        else:
            d = float(step[mask[:, j], j].mean())
            dlo, dhi = (float(v) for v in np.nanpercentile(db[:, j], [2.5, 97.5]))
        fcol = first[:, j]
        points.append(
            CurvePoint(
                n=n,
                n_cases=int(mask[:, j].sum()),
                accuracy=float(acc[j]),
                ci_low=float(lo),
                ci_high=float(hi),
                first_n_accuracy=float(np.nanmean(fcol)),
                first_n_correct=float(np.nansum(fcol)),
                diff_from_n=n - 2 if n > 2 else 0,
                diff=d,
                diff_ci_low=dlo,
                diff_ci_high=dhi,
            )
        )
    return VoteCurve(points=tuple(points), tie=tie, n_boot=n_boot, seed=seed if isinstance(seed, int) else -1)


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def curve_sentence(curve: VoteCurve) -> str:
    """Plain-language reading of the measured curve: each two-sample step with its paired interval, and the
    largest n whose step the data can still tell from zero."""
    steps = [p for p in curve.points if p.diff_from_n > 0 and p.n % 2 == 1]
    if not steps:
        p = curve.points[-1]
        return f"At samples per request n = {p.n} the exact vote accuracy is {p.accuracy:.1%}."
    parts = [
        f"n = {p.diff_from_n} to {p.n}: {_pts(p.diff)} points (95% paired interval {_pts(p.diff_ci_low)} to "
        f"{_pts(p.diff_ci_high)})"
        for p in steps
    ]
    resolved = [p for p in steps if p.diff_ci_low > 0]
    flat = [p for p in steps if p.diff_ci_low <= 0 <= p.diff_ci_high]
    text = "Exact vote accuracy, step by step on the same cases: " + "; ".join(parts) + "."
    if flat:
        f = flat[0]
        text += (
            f" From n = {f.diff_from_n} to {f.n} the interval includes zero: these cases cannot tell the two apart, "
            "so a rising-looking point there is not evidence of a trend."
        )
    elif resolved:
        text += " Every step is distinguishable from zero on these cases."
    text += (
        " These intervals average over every subset of each case's samples: they say what more samples buy on "
        "average for cases like these; whether one deployed setting beats another on a single draw of samples is "
        "a paired test of the first-n results (the Compare page)."
    )
    return text


def rho_sentence(est: RhoEstimate, n: int) -> str:
    """Plain-language reading of the rho estimate and what it means for N_eff at samples per request n."""
    if not math.isfinite(est.rho):
        return "rho cannot be estimated: every sample is correct, or every sample is wrong."
    r = max(est.rho, 0.0)
    return (
        f"Samples of the same case are correlated: rho = {est.rho:.2f} (95% interval {est.ci_low:.2f} to "
        f"{est.ci_high:.2f}, {est.n_cases} cases). So samples per request n = {n} act like N_eff = "
        f"{n_eff(n, r):.1f} independent samples, and the curve flattens at a level set by rho, not by the budget."
    )


def what_if_sentence(p: float, rho: float, n: int) -> str:
    """Plain-language reading of the rho what-if: N_eff and the correlated prediction at n against independence."""
    return (
        f"If rho were {rho:.2f}, samples per request n = {n} would act like N_eff = {n_eff(n, rho):.1f} independent "
        f"samples, and majority voting would reach {correlated_accuracy(p, n, rho):.1%} at n = {n} (fully "
        f"independent samples: {independent_accuracy(p, n):.1%}; single call: {p:.1%})."
    )


# --------------------------------------------------------------------------------------------- models


def independent_accuracy(p: float, n: float) -> float:
    """Majority-vote accuracy of n independent binary samples each correct with probability p.

    P(majority correct) = I_p((n + 1) / 2, (n + 1) / 2), the regularized incomplete beta function; for odd n
    it equals P(Binomial(n, p) > n / 2) and it interpolates continuously in n (for N_eff).
    Reference: the chapter, "What the shape of the curve was always going to be".

    >>> [round(independent_accuracy(0.71, n), 4) for n in (3, 5, 7)]
    [0.7965, 0.8499, 0.8866]
    """
    if not 0.0 <= p <= 1.0:
        raise DataError(f"single-call accuracy p must be in [0, 1], got {p}")
    if n <= 0:
        raise DataError(f"samples per request n must be positive, got {n}")
    a = (n + 1.0) / 2.0
    return float(special.betainc(a, a, p))


def n_eff(n: float, rho: float) -> float:
    """Effective samples N_eff = n / (1 + (n - 1) rho) of n samples with pairwise correlation rho.

    Reference: the chapter (rho = 0.17: 2.98 at n=5, 3.47 at n=7, 4.44 at n=15).

    >>> round(n_eff(5, 0.17), 2), round(n_eff(7, 0.17), 2)
    (2.98, 3.47)
    """
    if not -1.0 < rho <= 1.0:
        raise DataError(f"rho must be in (-1, 1], got {rho}")
    if n <= 0:
        raise DataError(f"samples per request n must be positive, got {n}")
    den = 1.0 + (n - 1.0) * rho
    if den <= 0:
        raise DataError(f"rho={rho} is below -1/(n-1) for n={n}: no such correlation exists")
    return float(n / den)


def correlated_accuracy(p: float, n: float, rho: float) -> float:
    """Majority accuracy with correlated samples: the independent curve read at N_eff.

    P = I_p((N_eff + 1) / 2, (N_eff + 1) / 2), N_eff = n / (1 + (n - 1) rho).

    >>> round(correlated_accuracy(0.71, 7, 0.0), 4), round(correlated_accuracy(0.71, 7, 1.0), 4)
    (0.8866, 0.71)
    """
    return independent_accuracy(p, n_eff(n, rho))


def correlated_curve(p: float, ns: tuple[int, ...], rho: float) -> tuple[float, ...]:
    """:func:`correlated_accuracy` at every n in ``ns`` (a cache-friendly helper for the page's rho slider)."""
    return tuple(correlated_accuracy(p, n, rho) for n in ns)


@dataclass(frozen=True, slots=True)
class NEffRow:
    """Effective samples at one n: N_eff, and the independent and correlated majority accuracy."""

    n: int
    n_eff: float
    independent: float
    correlated: float


def n_eff_table(p: float, ns: tuple[int, ...], rho: float) -> tuple[NEffRow, ...]:
    """The N_eff table: for each n, N_eff at rho and the independent / correlated predictions at p."""
    return tuple(
        NEffRow(
            n=int(n),
            n_eff=n_eff(n, rho),
            independent=independent_accuracy(p, n),
            correlated=correlated_accuracy(p, n, rho),
        )
        for n in ns
    )


@dataclass(frozen=True, slots=True)
class RhoEstimate:
    """Intraclass correlation rho of per-sample correctness within cases (one-way ANOVA estimator).

    ``ci_low``/``ci_high``: 95% percentile bootstrap over cases (``method`` says so); ``p_single`` is the
    pooled per-sample accuracy; ``n0`` the ANOVA's average group size for unbalanced cases.
    """

    rho: float
    ci_low: float
    ci_high: float
    p_single: float
    n_cases: int
    n_samples: int
    n0: float
    method: str


def _icc_from_sums(k: np.ndarray, m: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ANOVA ICC(1) for weighted cases: k correct of m per case, weights w (reps x cases). Returns (rho, n0)."""
    big_n = w @ m
    g = w.sum(axis=1)
    sk = w @ k
    ssb = w @ (k**2 / m) - sk**2 / big_n
    ssw = w @ (k - k**2 / m)
    with np.errstate(invalid="ignore", divide="ignore"):
        msb = ssb / (g - 1)
        msw = ssw / (big_n - g)
        n0 = (big_n - (w @ m**2) / big_n) / (g - 1)
        rho = (msb - msw) / (msb + (n0 - 1) * msw)
    return rho, n0


def estimate_rho(
    samples: SampleSet, n_boot: int = 2000, seed: int | np.random.Generator = 0, max_n: int | None = None
) -> RhoEstimate:
    """rho as the intraclass correlation of per-sample correctness within cases (ANOVA, unbalanced groups).

    With k_i correct of m_i samples in case i (N = sum m_i, G cases): MSB = SSB / (G - 1),
    MSW = SSW / (N - G), n0 = (N - sum m_i^2 / N) / (G - 1), rho = (MSB - MSW) / (MSB + (n0 - 1) MSW).
    Interval: 95% percentile bootstrap over cases (seeded); binary data breaks the F-interval's normality.
    Cases with one sample carry no within-case information and are left out. ``max_n`` uses only each case's
    first max_n samples (the "fit on n <= k" reading). Reference: Searle (1971), one-way random effects;
    the chapter's rho (0.17).
    """
    corr = samples.correct_matrix()
    if max_n is not None:
        corr = corr[:, :max_n]
    m = (~np.isnan(corr)).sum(axis=1).astype(float)
    k = np.nansum(corr, axis=1)
    keep = m >= 2
    k, m = k[keep], m[keep]
    if len(k) < 2:
        raise DataError(
            f"rho (the correlation between samples of the same case) needs at least 2 cases with 2 or more samples "
            f"each; this data has {len(k)}"
        )
    rho, n0 = _icc_from_sums(k, m, np.ones((1, len(k))))
    rng = as_generator(seed)
    boots = [_icc_from_sums(k, m, w)[0] for w in _bootstrap_weights(len(k), n_boot, rng)]
    b = np.concatenate(boots)
    b = b[np.isfinite(b)]
    lo, hi = (float(v) for v in np.percentile(b, [2.5, 97.5])) if len(b) else (math.nan, math.nan)
    return RhoEstimate(
        rho=float(rho[0]),
        ci_low=lo,
        ci_high=hi,
        p_single=float(k.sum() / m.sum()),
        n_cases=len(k),
        n_samples=int(m.sum()),
        n0=float(n0[0]),
        method="ANOVA ICC(1); 95% percentile bootstrap over cases",
    )


@dataclass(frozen=True, slots=True)
class BetaBinomialFit:
    """Per-case difficulty p_i ~ Beta(alpha, beta), fitted by maximum likelihood to k_i correct of m_i samples.

    ``mean`` = alpha / (alpha + beta); ``rho`` = 1 / (alpha + beta + 1), the implied within-case correlation.
    """

    alpha: float
    beta: float
    mean: float
    rho: float
    log_likelihood: float
    n_cases: int


def fit_beta_binomial(samples: SampleSet, max_n: int | None = None) -> BetaBinomialFit:
    """Maximum-likelihood Beta(alpha, beta) over per-case accuracy from k_i correct of m_i samples.

    Maximises sum_i log BetaBinomial(k_i; m_i, alpha, beta) over (log alpha, log beta), started at the method
    of moments; ``max_n`` uses each case's first max_n samples only.
    """
    corr = samples.correct_matrix()
    if max_n is not None:
        corr = corr[:, :max_n]
    m = (~np.isnan(corr)).sum(axis=1)
    k = np.nansum(corr, axis=1).astype(int)
    keep = m >= 1
    k, m = k[keep], m[keep]

    def nll(theta: np.ndarray) -> float:
        a, b = np.exp(theta)
        return -float(stats.betabinom.logpmf(k, m, a, b).sum())

    p = float(np.clip(k.sum() / m.sum(), 0.01, 0.99))
    try:
        rho0 = float(estimate_rho(samples, n_boot=100, seed=0, max_n=max_n).rho)
    except DataError:
        rho0 = 0.2
    rho0 = float(np.clip(rho0 if np.isfinite(rho0) else 0.2, 0.02, 0.9))
    s = 1.0 / rho0 - 1.0
    best = None
    for start in ((p * s, (1 - p) * s), (p, 1 - p), (10 * p, 10 * (1 - p))):
        res = optimize.minimize(nll, np.log(start), method="L-BFGS-B", bounds=[(-12, 12), (-12, 12)])
        if best is None or res.fun < best.fun:
            best = res
    assert best is not None
    a, b = (float(v) for v in np.exp(best.x))
    return BetaBinomialFit(
        alpha=a, beta=b, mean=a / (a + b), rho=1.0 / (a + b + 1.0), log_likelihood=-float(best.fun), n_cases=len(k)
    )


def beta_binomial_curve(fit: BetaBinomialFit, ns: tuple[int, ...], tie: TieRule = "first") -> tuple[float, ...]:
    """Majority accuracy at each n under the beta-binomial difficulty model (correct vs one wrong answer).

    P(n) = sum_{k > n/2} BetaBinomial(k; n, alpha, beta) + c * BetaBinomial(n/2; n, alpha, beta), with tie credit
    c = 1/2 for split/first and 0 for wrong at even n. Scattered wrong answers make plurality beat this.
    """
    _check_tie(tie)
    out = []
    for n in ns:
        ks = np.arange(n + 1)
        pmf = stats.betabinom.pmf(ks, n, fit.alpha, fit.beta)
        win = pmf[2 * ks > n].sum()
        tie_mass = pmf[2 * ks == n].sum()
        out.append(float(win + (0.0 if tie == "wrong" else 0.5) * tie_mass))
    return tuple(out)


# --------------------------------------------------------------------------------------------- next step


@dataclass(frozen=True, slots=True)
class NextStepCheck:
    """The "predict the next step" check: rho fitted on n <= ``fit_upto``, prediction at ``predict_n``.

    ``direction`` is "above" (measured climbed faster than predicted), "below" (flattened earlier) or "on"
    (equal to 3 decimals); ``within_noise`` says whether the prediction falls inside the measured point's
    95% interval; ``beta_binomial`` is the beta-binomial model's prediction from the same samples.
    """

    fit_upto: int
    predict_n: int
    p_single: float
    rho_fitted: float
    predicted: float
    beta_binomial: float
    measured: float
    ci_low: float
    ci_high: float
    missed_by: float
    direction: str
    within_noise: bool


def _fit_rho_to_curve(p: float, ns: np.ndarray, acc: np.ndarray) -> float:
    if len(ns) == 0 or not 0 < p < 1:
        return 0.0

    def loss(r: float) -> float:
        return float(sum((correlated_accuracy(p, n, r) - a) ** 2 for n, a in zip(ns, acc, strict=True)))

    res = optimize.minimize_scalar(loss, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-6})
    return float(res.x)


def predict_next_step(
    curve: VoteCurve,
    samples: SampleSet,
    fit_upto: int,
    step: int = 2,
    tie: TieRule = "first",
    reading: Reading = "exact",
) -> NextStepCheck:
    """Fit rho on the measured curve at n <= ``fit_upto``, predict n = fit_upto + step, compare with the data.

    p = measured accuracy at n = 1; rho minimises sum over odd 3 <= n <= k of (I_p at N_eff(n, rho) -
    measured(n))^2 on [0, 1] (odd n only: at even n a vote can tie, which the continuous formula does not
    describe); prediction = I_p at N_eff(k + step, rho). ``reading`` "exact" uses the curve over all n-subsets,
    "first_n" the first-n-samples reading. Also the beta-binomial model fitted on each case's first k samples.
    Reference: the chapter, "That gives you a prediction to check rather than a shrug".
    """
    target = fit_upto + step
    if fit_upto < 3:
        raise DataError(f"fit on n <= k needs k >= 3 (an odd n above 1 to fit rho on), got {fit_upto}")
    if target > curve.points[-1].n:
        raise DataError(f"cannot check n={target}: the data has at most {curve.points[-1].n} samples per request")
    if reading not in ("exact", "first_n"):
        raise DataError(f"reading must be 'exact' or 'first_n', got {reading!r}")

    def acc_at(n: int) -> float:
        pt = curve.point(n)
        return pt.accuracy if reading == "exact" else pt.first_n_accuracy

    p = acc_at(1)
    ns = np.arange(3, fit_upto + 1, 2)
    acc = np.array([acc_at(int(n)) for n in ns])
    rho = _fit_rho_to_curve(p, ns, acc)
    pred = correlated_accuracy(p, target, rho) if 0 < p < 1 else p
    bb = beta_binomial_curve(fit_beta_binomial(samples, max_n=fit_upto), (target,), tie)[0]
    pt = curve.point(target)
    measured = acc_at(target)
    diff = measured - pred
    direction = "on" if abs(diff) < 5e-4 else ("above" if diff > 0 else "below")
    return NextStepCheck(
        fit_upto=fit_upto,
        predict_n=target,
        p_single=p,
        rho_fitted=rho,
        predicted=pred,
        beta_binomial=bb,
        measured=measured,
        ci_low=pt.ci_low,
        ci_high=pt.ci_high,
        missed_by=diff,
        direction=direction,
        within_noise=bool(pt.ci_low <= pred <= pt.ci_high),
    )


def next_step_sentence(check: NextStepCheck) -> str:
    """A plain-language reading of :class:`NextStepCheck`: which way the prediction missed and what it suggests."""
    head = (
        f"Fitting rho on samples per request n up to {check.fit_upto} gives rho = {check.rho_fitted:.2f}, which "
        f"predicts {check.predicted:.1%} at n = {check.predict_n}; the data measured {check.measured:.1%} "
        f"(95% interval {check.ci_low:.1%} to {check.ci_high:.1%})."
    )
    if check.direction == "above" and check.rho_fitted < 1e-3:
        tail = (
            f" The curve is {100 * abs(check.missed_by):.1f} points above even the independent-samples model (rho = 0), which "
            "counts the vote as correct against one wrong answer: here the wrong answers are scattered over "
            "several values, so the plurality vote beats a two-answer majority and rho cannot be read off the curve."
        )
    elif check.direction == "above":
        tail = (
            f" The curve climbed {100 * abs(check.missed_by):.1f} points higher than the correlated model predicts: the samples "
            "are more independent than assumed, so a larger n may be worth measuring."
        )
    elif check.direction == "below":
        tail = (
            f" The curve flattened {100 * abs(check.missed_by):.1f} points below the prediction: the correlation is worse than "
            "estimated, which usually points to a systematic misreading in the prompt rather than to bad luck."
        )
    else:
        tail = " The prediction held: the correlated model describes this curve."
    noise = (
        " The miss is inside the measured point's interval, so the data cannot tell the two apart."
        if check.within_noise and check.direction != "on"
        else ""
    )
    return head + tail + noise


# --------------------------------------------------------------------------------------------- unfixable errors


@dataclass(frozen=True, slots=True)
class UnfixableCase:
    """One case still wrong with all its samples: its answers' counts, most common first."""

    case: str
    gold: str
    n_samples: int
    top_answer: str
    top_count: int
    gold_count: int
    unanimous: bool
    answers: str


@dataclass(frozen=True, slots=True)
class UnfixableErrors:
    """Errors more samples cannot fix.

    Of the ``wrong_at_from_n`` cases the vote over the first ``from_n`` samples gets wrong, ``still_wrong`` are
    still wrong with all their samples (n up to ``largest_n``) and ``unanimous_wrong`` of those have every
    sample on the same wrong answer; ``wrong_at_largest`` counts every case wrong with all its samples.
    """

    from_n: int
    largest_n: int
    n_cases: int
    wrong_at_from_n: int
    still_wrong: int
    unanimous_wrong: int
    wrong_at_largest: int
    cases: tuple[UnfixableCase, ...]


def order_sentence(curve: VoteCurve) -> str:
    """Says whether each case's first sample is right more (or less) often than its samples on average; empty
    when the two agree within two points (then the draw order does not matter)."""
    pt = curve.point(1)
    if abs(pt.first_n_accuracy - pt.accuracy) < 0.02:
        return ""
    return (
        f"The first sample of each case is right {pt.first_n_accuracy:.1%} of the time, all samples on average "
        f"{pt.accuracy:.1%}: in this data the order of the samples matters, so the first-n reading (diamonds) and the "
        "exact curve (line) differ; the exact curve is the one that does not depend on the order."
    )


def unfixable_errors(samples: SampleSet, from_n: int = 3, tie: TieRule = "first") -> UnfixableErrors:
    """Cases wrong at ``from_n`` samples that are still wrong with every sample, and how many are unanimous.

    A case counts when it has at least ``from_n`` samples; "wrong" is the first-n vote's credit < 1 under
    ``tie``. Reference: the chapter (38 of the 44 cases wrong at n = 3 still wrong at n = 7; 31 unanimous).
    """
    _check_tie(tie)
    if from_n < 1:
        raise DataError(f"from_n must be at least 1, got {from_n}")
    if from_n > samples.max_n:
        raise DataError(f"from_n={from_n} is more than the largest number of samples per case ({samples.max_n})")
    credit = case_credit_first_n(samples, tie)
    eligible = samples.n_samples >= from_n
    last = credit[np.arange(samples.n_cases), samples.n_samples - 1]
    wrong_from = eligible & (credit[:, from_n - 1] < 1)
    wrong_last = eligible & (last < 1)
    still = wrong_from & wrong_last
    n_distinct = np.array([len(lbl) for lbl in samples.labels])
    unanimous = (n_distinct == 1) & (samples.gold_code != 0)
    rows = []
    for i in np.flatnonzero(still):
        codes = samples.codes[i, : samples.n_samples[i]]
        cnt = Counter(samples.labels[i][c] for c in codes)
        top_answer, top_count = cnt.most_common(1)[0]
        rows.append(
            UnfixableCase(
                case=samples.cases[i],
                gold=samples.gold[i],
                n_samples=int(samples.n_samples[i]),
                top_answer=top_answer,
                top_count=int(top_count),
                gold_count=int(cnt.get(samples.gold[i], 0)),
                unanimous=bool(unanimous[i]),
                answers=", ".join(f"{a} x{k}" for a, k in cnt.most_common()),
            )
        )
    rank = {c: i for i, c in enumerate(natural_order([r.case for r in rows]))}  # case "14" before "115"
    rows.sort(key=lambda r: (not r.unanimous, r.gold_count, rank[r.case]))
    return UnfixableErrors(
        from_n=from_n,
        largest_n=samples.max_n,
        n_cases=int(eligible.sum()),
        wrong_at_from_n=int(wrong_from.sum()),
        still_wrong=int(still.sum()),
        unanimous_wrong=int((still & unanimous).sum()),
        wrong_at_largest=int(wrong_last.sum()),
        cases=tuple(rows),
    )


def unfixable_sentence(u: UnfixableErrors) -> str:
    """Plain-language reading of :class:`UnfixableErrors`."""
    if u.wrong_at_from_n == 0:
        return f"No case is wrong at samples per request n = {u.from_n}: there is nothing for more samples to fix."
    return (
        f"Of the {u.wrong_at_from_n} cases the vote gets wrong at samples per request n = {u.from_n}, "
        f"{u.still_wrong} are still wrong with all their samples (up to n = {u.largest_n}), and in "
        f"{u.unanimous_wrong} of those every sample gave the same wrong answer. Unanimous errors have a shared "
        "cause: more samples estimate the wrong mode more precisely, so no budget of samples reaches them."
    )


# --------------------------------------------------------------------------------------------- adaptive


@dataclass(frozen=True, slots=True)
class AdaptiveResult:
    """The adaptive rule "draw n0, add m more when the first n0 trigger", measured on the first samples.

    ``correct`` counts credit over the ``n_cases`` cases with at least n0 + m samples; ``expected_calls`` =
    n0 + m * share_topped_up; ``flat_n0_correct`` / ``flat_full_correct`` are the flat n0 and n0 + m rows on the
    same cases; ``changed_without_topup`` counts cases the rule did not top up whose first n0 + m vote differs
    in correctness from the first n0 vote (where "two extra samples cannot overturn three" fails).
    """

    n0: int
    m: int
    trigger: str
    tie: str
    n_cases: int
    n_topped_up: int
    share_topped_up: float
    expected_calls: float
    correct: float
    accuracy: float
    flat_n0_correct: float
    flat_full_correct: float
    changed_without_topup: int


def adaptive_topup(
    samples: SampleSet, n0: int = 3, m: int = 2, trigger: Trigger = "no_plurality", tie: TieRule = "first"
) -> AdaptiveResult:
    """Accuracy and cost in calls of "draw n0, add m more when the first n0 have no majority".

    Triggers: ``no_plurality`` (no strict plurality among the first n0: the top count is shared),
    ``no_majority`` (the top answer has at most n0 / 2 samples), ``not_unanimous`` (the first n0 differ at all).
    Only for unanimous starts is it true that m < n0 extra samples cannot overturn the first n0 (a 2-1 start
    can become 2-3); ``changed_without_topup`` shows where this matters on the data.
    Reference: the chapter, 3+2 rule: 19% top up, 3.38 calls per request, 158 of 200 correct.
    """
    _check_tie(tie)
    if trigger not in TRIGGERS:
        raise DataError(f"trigger must be one of {', '.join(TRIGGERS)}, got {trigger!r}")
    if n0 < 1 or m < 1:
        raise DataError(f"the adaptive rule needs n0 >= 1 and m >= 1, got {n0}+{m}")
    total = n0 + m
    if total > samples.max_n:
        raise DataError(f"the rule {n0}+{m} needs {total} samples per case; the data has at most {samples.max_n}")
    st = _first_n_stats(samples)
    credit = _credit_from_stats(samples, st, tie)
    _, top, n_top, _ = st
    keep = samples.n_samples >= total
    top0, ntop0 = top[keep, n0 - 1], n_top[keep, n0 - 1]
    if trigger == "no_plurality":
        fire = ntop0 > 1
    elif trigger == "no_majority":
        fire = 2 * top0 <= n0
    else:
        fire = top0 < n0
    c0, c1 = credit[keep, n0 - 1], credit[keep, total - 1]
    final = np.where(fire, c1, c0)
    n_cases = int(keep.sum())
    share = float(fire.mean()) if n_cases else math.nan
    correct = float(final.sum())
    return AdaptiveResult(
        n0=n0,
        m=m,
        trigger=trigger,
        tie=tie,
        n_cases=n_cases,
        n_topped_up=int(fire.sum()),
        share_topped_up=share,
        expected_calls=n0 + m * share,
        correct=correct,
        accuracy=correct / n_cases if n_cases else math.nan,
        flat_n0_correct=float(c0.sum()),
        flat_full_correct=float(c1.sum()),
        changed_without_topup=int(((c0 != c1) & ~fire).sum()),
    )


def adaptive_sentence(r: AdaptiveResult) -> str:
    """Plain-language reading of :class:`AdaptiveResult`."""
    rule = {
        "no_plurality": "have no strict plurality",
        "no_majority": "have no majority",
        "not_unanimous": "do not all agree",
    }[r.trigger]
    text = (
        f"Drawing {r.n0} samples and {r.m} more when the first {r.n0} {rule} tops up {r.share_topped_up:.0%} of "
        f"requests and averages {r.expected_calls:.2f} calls; it scores {r.correct:g} of {r.n_cases} cases "
        f"(flat n = {r.n0}: {r.flat_n0_correct:g}; flat n = {r.n0 + r.m}: {r.flat_full_correct:g})."
    )
    if r.changed_without_topup:
        text += (
            f" In {r.changed_without_topup} case(s) the extra samples would have changed the answer although the "
            f"rule did not top up: {r.m} extra samples can overturn a start that is not unanimous."
        )
    return text


# --------------------------------------------------------------------------------------------- frame-level


@dataclass(frozen=True, slots=True)
class VoteAnalysis:
    """Everything the Sampling page and ``vote`` CLI show for one samples table."""

    n_cases: int
    max_n: int
    binary: bool
    curve: VoteCurve
    rho: RhoEstimate
    beta_binomial: BetaBinomialFit
    beta_binomial_curve: tuple[float, ...]
    n_eff: tuple[NEffRow, ...]
    unfixable: UnfixableErrors
    next_step: NextStepCheck | None


def analyze_samples(
    frame: pd.DataFrame,
    tie: TieRule = "first",
    n_boot: int = 2000,
    seed: int = 0,
    from_n: int = 3,
    fit_upto: int | None = None,
) -> VoteAnalysis:
    """Parse a samples table and compute the curve, rho, beta-binomial fit, N_eff table, unfixable errors and
    the next-step check (fit on n <= ``fit_upto``, default the largest n minus 2, predict fit_upto + 2)."""
    s = parse_samples(frame)
    curve = vote_curve(s, tie=tie, n_boot=n_boot, seed=seed)
    rho = estimate_rho(s, n_boot=n_boot, seed=seed)
    bb = fit_beta_binomial(s)
    ns = tuple(range(1, s.max_n + 1))
    p = curve.point(1).accuracy
    r = rho.rho if math.isfinite(rho.rho) else 0.0
    table = n_eff_table(p, ns, max(r, 0.0))
    k = fit_upto if fit_upto is not None else s.max_n - 2 - (s.max_n - 2 + 1) % 2  # largest odd k <= max_n - 2
    nxt = predict_next_step(curve, s, k, 2, tie) if 3 <= k <= s.max_n - 2 else None
    return VoteAnalysis(
        n_cases=s.n_cases,
        max_n=s.max_n,
        binary=s.binary,
        curve=curve,
        rho=rho,
        beta_binomial=bb,
        beta_binomial_curve=beta_binomial_curve(bb, ns, tie),
        n_eff=table,
        unfixable=unfixable_errors(s, from_n, tie),
        next_step=nxt,
    )


def adaptive_from_frame(
    frame: pd.DataFrame, n0: int = 3, m: int = 2, trigger: Trigger = "no_plurality", tie: TieRule = "first"
) -> AdaptiveResult:
    """:func:`adaptive_topup` on a samples table (a module-level entry point for the cache)."""
    return adaptive_topup(parse_samples(frame), n0, m, trigger, tie)


def next_step_from_frame(
    frame: pd.DataFrame,
    fit_upto: int,
    step: int = 2,
    tie: TieRule = "first",
    n_boot: int = 2000,
    seed: int = 0,
    reading: Reading = "exact",
) -> NextStepCheck:
    """:func:`predict_next_step` on a samples table (a module-level entry point for the cache)."""
    s = parse_samples(frame)
    return predict_next_step(vote_curve(s, tie, n_boot, seed), s, fit_upto, step, tie, reading)


def unfixable_from_frame(frame: pd.DataFrame, from_n: int = 3, tie: TieRule = "first") -> UnfixableErrors:
    """:func:`unfixable_errors` on a samples table (a module-level entry point for the cache)."""
    return unfixable_errors(parse_samples(frame), from_n, tie)


def model_gap_sentence(a: VoteAnalysis) -> str:
    """Plain-language reading of how the measured curve at the largest n compares with the models' predictions.

    The independent, correlated and beta-binomial models count a vote as correct against ONE wrong answer; a
    plurality vote over answers whose wrong values scatter can do better than that, and the sentence says so.
    """
    n = a.max_n
    measured = a.curve.points[-1].accuracy
    p = a.curve.point(1).accuracy
    indep = independent_accuracy(p, n) if 0 < p < 1 else p
    bb = a.beta_binomial_curve[-1]
    text = (
        f"At samples per request n = {n} the data measured {measured:.1%}; independent samples would give "
        f"{indep:.1%} and the beta-binomial difficulty model (each case has its own accuracy, fitted to the data) "
        f"{bb:.1%}."
    )
    if measured > max(indep, bb) + 0.02:
        text += (
            " The measured curve beats both: the models count a vote as correct against one wrong answer, but here "
            "wrong answers are spread over several values, so the right answer can win a plurality without a "
            "majority."
        )
    elif measured < min(indep, bb) - 0.02:
        text += " The measured curve is below both models: errors are more systematic than even the models assume."
    else:
        text += " The models describe the measured curve to within two points."
    return text
