"""Raw samples, long (``case, sample, answer, gold``), parsed into a typed :class:`SampleSet`.

Answers are coded per case by first occurrence (0 = the answer seen first); every problem a user can fix raises
``DataError`` naming the rows or columns involved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.rows import rows_where
from nkcore.common.truth import parse_truth
from nkcore.errors import DataError
from nkcore.kinds import show_names

__all__ = ["EXACT_MAX_SAMPLES", "NO_GOLD", "SampleSet", "parse_samples"]

EXACT_MAX_SAMPLES = 1000
"""The exact curve's ceiling on samples per case: binomial coefficients up to C(1000, 500) ~ 1e299 stay finite in
float64 (C(1030, 515) does not), whatever the server's ``samples_per_case`` limit says."""

_ROWS_LISTED = 5  # row numbers listed in one message
_MERGED = "\x00<correct>"  # while coding: every answer marked correct in a case (no user text holds a NUL)
NO_GOLD = "not given"
"""The gold shown for a case whose file gives answers and a correct column but no gold answer."""


@dataclass(frozen=True, slots=True, eq=False)
class SampleSet:
    """Typed raw samples: one row per case, samples in the order drawn.

    ``codes[i, j]`` is the answer of case i's j-th sample, coded per case by first occurrence (0 = the answer
    seen first), -1 past the case's last sample; ``gold_code[i]`` is the code of the gold answer (-1 when no
    sample gave it); ``labels[i]`` maps codes back to answers; ``latency_s`` (NaN-padded) when given.
    Without a gold column (answers and a correct column), the answers marked correct in a case are one code,
    labelled with their text joined by " / ", and ``gold[i]`` is that label, or :data:`NO_GOLD` when no sample of
    the case is marked correct.
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
        flat: np.ndarray = self.latency_s[~np.isnan(self.latency_s)]
        return flat


def _norm_label(value: object) -> str:
    """Answers and gold compare as stripped text; an integral float 42.0 reads as "42"."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return str(value).strip()


def _norm_labels(series: pd.Series) -> pd.Series:
    """:func:`_norm_label` of every value, computed once per distinct value (an object Series, same index).

    Object columns holding anything but text go value by value: a hash table would merge 1, 1.0 and True.
    """
    codes, uniques = pd.factorize(series)
    values = np.asarray(uniques, dtype=object)  # one conversion (iterating an Arrow string array is slow)
    texts = all(isinstance(u, str) for u in values)
    if (codes < 0).any() or (series.dtype == object and not texts):
        return series.map(_norm_label).astype(object)
    # text: str(u).strip() is u.strip() (one free-form answer per sample: hundreds of thousands of them)
    table = np.array([u.strip() for u in values] if texts else [_norm_label(u) for u in values], dtype=object)
    return pd.Series(table[codes], index=series.index, dtype=object)


def _is_blank(series: pd.Series) -> pd.Series:
    blank = series.isna()
    as_text = series.astype("string").str.strip()
    return blank | as_text.eq("").fillna(True)


def _rows(mask: pd.Series | np.ndarray) -> str:
    """'data rows 3, 7' for the rows where ``mask`` holds (data row 1 = the first row under the header)."""
    return rows_where(np.asarray(mask, dtype=bool), limit=_ROWS_LISTED)


def _correct_column(series: pd.Series) -> np.ndarray:
    """The 0/1 ``correct`` column as booleans, in the product's one true/false vocabulary."""
    truth = parse_truth(series)
    bad = truth.bad | truth.missing
    if bad.any():
        raise DataError(
            f"column 'correct' must be 0/1 (or true/false, yes/no, right/wrong); bad or missing values in {_rows(bad)}"
        )
    return truth.values == 1.0


def parse_samples(frame: pd.DataFrame) -> SampleSet:
    """Parse and validate raw samples into a :class:`SampleSet` (precise ``DataError`` on bad input).

    Columns (names case-insensitive): ``case``, ``sample`` (order drawn, numeric), ``answer``, ``gold``;
    optional ``latency_s`` (seconds, >= 0); a 0/1 ``correct`` column may replace ``gold`` (read with
    :func:`nkcore.common.truth.parse_truth`). With ``answer`` and ``correct`` but no gold, every answer marked
    correct in a case counts as the one correct answer; with ``correct`` and no ``answer``, samples are binary
    (correct vs one wrong answer). Cases may have different sample counts; each samples per request n then uses
    the cases with at least n samples. Samples per case and cases are held to the request limits
    (:mod:`nkcore.common.limits`) and to :data:`EXACT_MAX_SAMPLES`.

    Example: two cases, three samples each, gold "a":
    >>> f = pd.DataFrame({"case": [1, 1, 1, 2, 2, 2], "sample": [1, 2, 3] * 2,
    ...                   "answer": list("aab") + list("bcb"), "gold": ["a"] * 6})
    >>> s = parse_samples(f); (s.n_cases, s.max_n, s.gold_code.tolist())
    (2, 3, [0, -1])
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError("samples must be a table with columns case, sample, answer, gold")
    df = frame.copy(deep=False)  # new column names only: the values are read, never written
    df.columns = [str(c).strip().lower() for c in df.columns]
    if df.columns.duplicated().any():
        dup = sorted({c for c in df.columns[df.columns.duplicated()]})
        raise DataError(f"duplicate column names: {show_names(dup)}")
    if len(df) == 0:
        raise DataError("the samples table is empty")
    missing = [c for c in ("case", "sample") if c not in df.columns]
    has_answer, has_gold, has_correct = "answer" in df.columns, "gold" in df.columns, "correct" in df.columns
    if missing:
        raise DataError(
            f"missing column(s) {', '.join(missing)}: samples need case, sample, answer, gold "
            f"(or a 0/1 correct column instead of gold); found {show_names(df.columns)}"
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
    case_key = _norm_labels(df["case"])
    dup = pd.DataFrame({"c": case_key, "s": sample_num}).duplicated(keep=False)
    if dup.any():
        raise DataError(f"the same (case, sample) appears more than once: {_rows(dup)}")

    binary = not has_answer
    answers = pd.Series(dtype=object)
    merged: dict[str, str] | None = None  # with answer + correct and no gold: case -> its answers marked correct
    if has_answer:
        blank = _is_blank(df["answer"])
        if blank.any():
            raise DataError(
                f"empty or missing answers in {_rows(blank)}: every sample needs an answer "
                f"(write a placeholder such as 'no answer' for refusals)"
            )
        answers = _norm_labels(df["answer"])
    correct_col = _correct_column(df["correct"]) if has_correct else None

    if has_gold:
        blank_gold = _is_blank(df["gold"])
        if blank_gold.any():
            bad_cases = sorted(set(case_key[blank_gold]))
            shown = ", ".join(bad_cases[:5]) + (f" and {len(bad_cases) - 5} more" if len(bad_cases) > 5 else "")
            raise DataError(f"missing gold for case(s) {shown} ({_rows(blank_gold)})")
        gold_s = _norm_labels(df["gold"])
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
        if correct_col is None:  # pragma: no cover - excluded by the column checks above
            raise DataError("missing gold: add a gold column (the right answer per case) or a 0/1 correct column")
        is_correct = correct_col
        if binary:
            answers = pd.Series(np.where(is_correct, "correct", "wrong"), index=df.index)
            gold_s = pd.Series("correct", index=df.index)
        else:
            both = pd.DataFrame({"c": case_key, "a": answers, "k": is_correct}).groupby(["c", "a"])["k"].nunique()
            if (both > 1).any():
                c, a = both.index[both > 1][0]
                raise DataError(f"case {c}: answer '{a}' is marked both correct and wrong")
            # All answers marked correct in a case count as the one correct answer (a placeholder while coding,
            # then those answers' own text, which is also the gold shown; "not given" where none is marked).
            right_answers = (
                pd.DataFrame({"c": case_key, "a": answers})[is_correct].drop_duplicates().groupby("c", sort=False)["a"]
            )
            merged = {str(c): " / ".join(str(a) for a in g) for c, g in right_answers}
            answers = pd.Series(np.where(is_correct, _MERGED, answers.to_numpy()), index=df.index)
            gold_s = pd.Series(_MERGED, index=df.index)

    latency: np.ndarray | None = None
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
    m = int(counts.max())
    big = case_ids[int(np.argmax(counts))]
    limits.check("samples_per_case", m, f"case {big}")
    if m > EXACT_MAX_SAMPLES:
        raise DataError(f"case {big} has {m} samples; at most {EXACT_MAX_SAMPLES} per case are supported")
    limits.check("cases", len(case_ids), "the samples table")
    limits.check_memory(len(case_ids) * m * (4 if latency is None else 12), "the table of samples by case")
    codes = np.full((len(case_ids), m), -1, dtype=np.int32)
    lat_mat = np.full((len(case_ids), m), np.nan) if latency is not None else None
    gold_code = np.full(len(case_ids), -1, dtype=np.int32)
    labels: list[tuple[str, ...]] = []
    golds: list[str] = []
    ans_arr = work["answer"].to_numpy()
    gold_arr = work["gold"].to_numpy()
    lat_sorted = latency[order] if latency is not None else None
    for i, c in enumerate(case_ids):
        idx = groups[c]
        seen: dict[str, int] = {}
        row = [seen.setdefault(a, len(seen)) for a in ans_arr[idx]]
        codes[i, : len(idx)] = row
        g = str(gold_arr[idx[0]])
        gold_code[i] = seen.get(g, -1)
        if merged is not None:  # the placeholder becomes the text of the answers marked correct
            seen = {(merged.get(str(c), a) if a == _MERGED else a): code for a, code in seen.items()}
            g = merged.get(str(c), NO_GOLD)
        golds.append(g)
        labels.append(tuple(seen))
        if lat_mat is not None and lat_sorted is not None:
            lat_mat[i, : len(idx)] = lat_sorted[idx]
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
