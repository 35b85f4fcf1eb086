"""Paired comparison of configs evaluated on the same cases: accuracy, McNemar, exact paired bootstrap.

Two configs (a model, a prompt, a number of samples per request (n)) are run on the same cases, so the
comparison is paired: cases that every config gets right (or wrong) move both accuracies together and cancel
in the difference. Only the discordant cases (one config right, the other wrong) carry information about
which config is better. Source: the chapter "The accuracy curve flattens sooner than the sample count
suggests" (``shared/seeds/002``), sections "Two intervals, and only one of them is the right instrument" and
"Why the monotonicity was never evidence".

Main entry points:

- :func:`parse_paired` -- a long (``case, config, correct``) or wide (``case`` + one 0/1 column per config)
  table into a :class:`PairedTable`.
- :func:`proportion_interval` -- Wilson (default) or Clopper-Pearson interval of one accuracy.
- :func:`mcnemar` -- exact, mid-p and continuity-corrected chi-square p-values from the discordant counts.
- :func:`exact_paired_bootstrap` -- the case-resampling bootstrap interval on the difference, computed
  exactly from the distribution of the resampled discordant counts (no Monte Carlo);
  :func:`paired_bootstrap_mc` is the Monte Carlo version, kept for cross-checks.
- :func:`compare_pair`, :func:`compare_ordered` -- the result objects the CLI and the Compare page show;
  :func:`verdict_sentence`, :func:`marginal_sentence`, :func:`ordering_sentence` -- their plain words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from nkcore.errors import DataError
from nkcore.resolution import _check_alpha, bernstein_halfwidth, clopper_pearson, critical_count

__all__ = [
    "BootstrapInterval",
    "ConfigAccuracy",
    "McNemarResult",
    "OrderedComparison",
    "PairedComparison",
    "PairedTable",
    "accuracy_sentence",
    "analyse_paired",
    "compare_frame_pair",
    "compare_ordered",
    "compare_pair",
    "config_accuracy",
    "exact_paired_bootstrap",
    "format_p",
    "holm",
    "marginal_sentence",
    "mcnemar",
    "ordering_chance",
    "ordering_sentence",
    "paired_bootstrap_mc",
    "paired_table_from_counts",
    "parse_paired",
    "proportion_interval",
    "verdict_sentence",
]

# Probability mass left out of the exact bootstrap's support window (a Bernstein bound; see below).
_TAIL_MASS = 1e-16
_MAX_LISTED = 5

_TRUE_STRINGS = frozenset({"1", "1.0", "true", "t", "yes", "y"})
_FALSE_STRINGS = frozenset({"0", "0.0", "false", "f", "no", "n"})


# ----------------------------------------------------------------------------------------------------------------
# Result objects
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class PairedTable:
    """Per-case 0/1 results of several configs on the same (paired) cases.

    ``correct[i, j]`` is True when config ``configs[j]`` got case ``cases[i]`` right. Only cases present
    for every config are kept; ``cases_per_config`` counts each config's cases before pairing and
    ``dropped_cases`` how many cases were dropped because some config lacked them.
    """

    layout: str  # "long" or "wide"
    configs: tuple[str, ...]
    cases: np.ndarray  # case ids as str, shape (n_cases,)
    correct: np.ndarray  # bool, shape (n_cases, n_configs)
    cases_per_config: tuple[int, ...]
    dropped_cases: int

    @property
    def n_cases(self) -> int:
        """Number of paired cases (present for every config)."""
        return int(self.correct.shape[0])

    def column(self, config: str) -> np.ndarray:
        """The bool correctness vector of one config over the paired cases."""
        return self.correct[:, _config_index(self.configs, config)]


@dataclass(frozen=True, slots=True)
class ConfigAccuracy:
    """Accuracy of one config: ``correct`` of ``n`` cases, with a ``level`` interval (``method``)."""

    config: str
    correct: int
    n: int
    accuracy: float
    ci_low: float
    ci_high: float
    method: str  # "wilson" or "clopper-pearson"


@dataclass(frozen=True, slots=True)
class McNemarResult:
    """McNemar's test on the discordant counts: exact two-sided, mid-p and continuity-corrected chi-square."""

    a_only: int
    b_only: int
    p_exact: float
    p_midp: float
    p_chi2_cc: float
    chi2_cc: float


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    """A paired-bootstrap interval on diff = accuracy(B) - accuracy(A)."""

    low: float
    high: float
    level: float
    method: str  # "exact" or "monte-carlo"
    reps: int | None  # Monte Carlo resamples; None for the exact computation


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """Config A -> config B on the same ``n_cases`` cases.

    ``a_only``: cases only A gets right; ``b_only``: cases only B gets right (the discordant cases);
    ``diff`` = accuracy(B) - accuracy(A) = (b_only - a_only) / n_cases. ``diff_ci_*`` is the exact paired
    bootstrap interval at ``level``; ``unpaired_ci_*`` is the (wrong-instrument) interval that treats the two
    accuracies as independent samples, shown to make the chapter's point; ``a`` and ``b`` carry the marginal
    interval of each config.
    """

    config_a: str
    config_b: str
    n_cases: int
    a: ConfigAccuracy
    b: ConfigAccuracy
    a_only: int
    b_only: int
    both_correct: int
    both_wrong: int
    diff: float
    p_exact: float
    p_midp: float
    p_chi2_cc: float
    diff_ci_low: float
    diff_ci_high: float
    unpaired_ci_low: float
    unpaired_ci_high: float
    level: float

    @property
    def discordant(self) -> int:
        """Cases the two configs disagree on."""
        return self.a_only + self.b_only


@dataclass(frozen=True, slots=True)
class OrderedComparison:
    """Configs in a meaningful order (e.g. 1, 3, 5, 7 samples per request (n)): adjacent paired comparisons.

    ``p_holm[i]`` is the Holm-adjusted exact p of ``comparisons[i]`` (family: the adjacent comparisons).
    ``chance_non_decreasing`` = 1/k! for the k configs; ``tied_run`` is the longest run of consecutive configs
    whose adjacent comparisons all have p_exact >= alpha (the ones the data cannot tell apart) and
    ``tied_run_chance`` = 1/len(tied_run)!.
    """

    configs: tuple[str, ...]
    n_cases: int
    dropped_cases: int
    cases_per_config: tuple[int, ...]
    accuracies: tuple[ConfigAccuracy, ...]
    comparisons: tuple[PairedComparison, ...]
    p_holm: tuple[float, ...]
    chance_non_decreasing: float
    tied_run: tuple[str, ...]
    tied_run_chance: float
    mean_discordance: float
    alpha: float
    level: float


# ----------------------------------------------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------------------------------------------


def _list_rows(rows: Sequence[int], extra: Sequence[str] | None = None) -> str:
    """'rows 3, 7 (case 'x'), ... and 4 more' with 1-based data-row numbers."""
    shown = []
    for i, r in enumerate(rows[:_MAX_LISTED]):
        shown.append(f"{r + 1}" + (f" ({extra[i]})" if extra is not None else ""))
    more = f" and {len(rows) - _MAX_LISTED} more" if len(rows) > _MAX_LISTED else ""
    return ", ".join(shown) + more


def _to01(values: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse a column of 0/1 results: returns (float array with NaN for missing, missing mask, bad mask).

    Accepted: booleans, numbers equal to 0 or 1, strings 0/1/true/false/yes/no (any case). Missing: NaN,
    None, empty strings. Anything else is "bad".
    """
    n = len(values)
    out = np.full(n, np.nan)
    if pd.api.types.is_bool_dtype(values.dtype):
        missing = values.isna().to_numpy()
        out[~missing] = values[~missing].astype(bool).to_numpy()
        return out, missing, np.zeros(n, dtype=bool)
    if pd.api.types.is_numeric_dtype(values.dtype):
        arr = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        missing = np.isnan(arr)
        bad = ~missing & (arr != 0) & (arr != 1)
        out[~missing & ~bad] = arr[~missing & ~bad]
        return out, missing, bad
    text = values.astype("string").str.strip().str.lower()
    missing = (text.isna() | (text == "")).to_numpy(dtype=bool, na_value=True)
    is_true = text.isin(_TRUE_STRINGS).to_numpy(dtype=bool, na_value=False)
    is_false = text.isin(_FALSE_STRINGS).to_numpy(dtype=bool, na_value=False)
    bad = ~missing & ~is_true & ~is_false
    out[is_true] = 1.0
    out[is_false] = 0.0
    return out, missing, bad


def _find_column(columns: Sequence[str], name: str) -> str | None:
    for c in columns:
        if str(c).strip().lower() == name:
            return c
    return None


def _case_ids(series: pd.Series, what: str) -> np.ndarray:
    missing = series.isna().to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing).tolist()
        raise DataError(f"missing case id in the 'case' column at {what} {_list_rows(rows)} (data rows counted from 1)")
    ids = series.astype("string").str.strip()
    if pd.api.types.is_float_dtype(series.dtype):
        # 3.0 -> "3" so that ids read as floats match ids read as ints
        as_float = series.to_numpy(dtype=float)
        if np.all(as_float == np.round(as_float)):
            ids = pd.Series(as_float.astype(np.int64), index=series.index).astype("string")
    return ids.to_numpy(dtype=object)


def parse_paired(frame: pd.DataFrame, configs: Sequence[str] | None = None) -> PairedTable:
    """Parse paired per-case results (long or wide, auto-detected) into a :class:`PairedTable`.

    Long: columns ``case, config, correct`` (one row per case and config; extra columns are ignored).
    Wide: a ``case`` column and one 0/1 column per config (an empty cell means "this config has no result
    for this case"). Column names are matched case-insensitively. ``correct`` values may be 0/1, booleans
    or the strings true/false/yes/no. Only cases present for every selected config are kept (pairing);
    the count of dropped cases is reported. ``configs`` restricts (and orders) the configs used; by default
    all configs in order of first appearance (long) or column order (wide).

    Raises DataError for: an empty table, no ``case`` column, values other than 0/1 (naming the rows),
    duplicate (case, config) rows, an unknown config in ``configs`` (listing those present), fewer than
    two configs, or no case shared by all configs.

    Example (long):
    >>> df = pd.DataFrame({"case": [1, 1, 2, 2], "config": ["A", "B", "A", "B"], "correct": [1, 1, 0, 1]})
    >>> t = parse_paired(df)
    >>> t.configs, t.n_cases, t.correct.sum(axis=0).tolist()
    (('A', 'B'), 2, [1, 2])
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError("paired results must be a table (a pandas DataFrame)")
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise DataError(
            "the paired-results table is empty: it needs a 'case' column and results for two or more configs"
        )
    columns = list(frame.columns)
    case_col = _find_column(columns, "case")
    if case_col is None:
        raise DataError(
            "no 'case' column: paired results need 'case, config, correct' (long) or 'case' plus one 0/1 column per "
            f"config (wide); found columns {', '.join(repr(str(c)) for c in columns)}"
        )
    config_col = _find_column(columns, "config")
    correct_col = _find_column(columns, "correct")
    if config_col is not None and correct_col is not None:
        wide, layout = _long_to_wide(frame, case_col, config_col, correct_col), "long"
    elif config_col is not None or correct_col is not None:
        have, lack = ("config", "correct") if config_col is not None else ("correct", "config")
        raise DataError(
            f"the table has a '{have}' column but no '{lack}' column: the long layout needs 'case, config, correct'"
        )
    else:
        wide, layout = _parse_wide(frame, case_col), "wide"

    present = list(wide.columns)
    if configs is not None:
        chosen = [str(c) for c in configs]
        unknown = [c for c in chosen if c not in present]
        if unknown:
            raise DataError(
                f"unknown config {', '.join(repr(c) for c in unknown)}; the configs present are "
                f"{', '.join(repr(c) for c in present)}"
            )
        if len(set(chosen)) != len(chosen):
            raise DataError(f"a config is chosen twice: {', '.join(repr(c) for c in chosen)}")
        wide = wide[chosen]
    if wide.shape[1] < 2:
        only = f"only {', '.join(repr(c) for c in wide.columns)}" if wide.shape[1] else "none"
        raise DataError(f"a paired comparison needs at least two configs; found {only}")
    values = wide.to_numpy(dtype=float)
    have = ~np.isnan(values)
    per_config = tuple(int(x) for x in have.sum(axis=0))
    any_result = have.any(axis=1)
    complete = have.all(axis=1)
    if not complete.any():
        raise DataError(
            "no case has results for every config, so nothing can be paired (cases per config: "
            + ", ".join(f"{c}: {k}" for c, k in zip(wide.columns, per_config, strict=True))
            + ")"
        )
    return PairedTable(
        layout=layout,
        configs=tuple(str(c) for c in wide.columns),
        cases=wide.index.to_numpy(dtype=object)[complete],
        correct=values[complete] == 1.0,
        cases_per_config=per_config,
        dropped_cases=int(any_result.sum() - complete.sum()),
    )


def _long_to_wide(frame: pd.DataFrame, case_col: str, config_col: str, correct_col: str) -> pd.DataFrame:
    """Long rows -> a case x config frame of 1.0/0.0/NaN, with precise errors."""
    cases = _case_ids(frame[case_col], "rows")
    cfg_series = frame[config_col]
    if cfg_series.isna().any():
        rows = np.flatnonzero(cfg_series.isna().to_numpy()).tolist()
        raise DataError(
            f"missing config name in the 'config' column at rows {_list_rows(rows)} (data rows counted from 1)"
        )
    cfgs = cfg_series.astype("string").str.strip().to_numpy(dtype=object)
    vals, missing, bad = _to01(frame[correct_col])
    if bad.any() or missing.any():
        rows = np.flatnonzero(bad | missing).tolist()
        raw = frame[correct_col].to_numpy(dtype=object)
        extra = [f"case {cases[r]!r}, config {cfgs[r]!r}: {raw[r]!r}" for r in rows[:_MAX_LISTED]]
        raise DataError(
            f"'correct' must be 0 or 1; {len(rows)} row(s) are not: rows {_list_rows(rows, extra)} "
            "(data rows counted from 1)"
        )
    keys = pd.DataFrame({"case": cases, "config": cfgs})
    dup = keys.duplicated(keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup).tolist()
        first = keys.iloc[rows[0]]
        raise DataError(
            f"duplicate (case, config) rows: {len(rows)} rows repeat a (case, config) pair, e.g. case "
            f"{first['case']!r} with config {first['config']!r}; rows {_list_rows(rows)} (data rows counted from 1). "
            "Keep one row per case and config."
        )
    case_codes, case_order = pd.factorize(keys["case"])
    cfg_codes, cfg_order = pd.factorize(keys["config"])
    grid = np.full((len(case_order), len(cfg_order)), np.nan)
    grid[case_codes, cfg_codes] = vals
    return pd.DataFrame(grid, index=pd.Index(np.asarray(case_order, dtype=object)), columns=list(cfg_order))


def _parse_wide(frame: pd.DataFrame, case_col: str) -> pd.DataFrame:
    """Wide: 'case' + one 0/1 column per config -> case x config frame of 1.0/0.0/NaN."""
    cases = _case_ids(frame[case_col], "rows")
    dup = pd.Series(cases).duplicated(keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup).tolist()
        raise DataError(
            f"duplicate case ids in the wide table: case {cases[rows[0]]!r} and others at rows {_list_rows(rows)} "
            "(data rows counted from 1); keep one row per case"
        )
    out = {}
    for col in frame.columns:
        if col == case_col:
            continue
        vals, _missing, bad = _to01(frame[col])
        if bad.any():
            rows = np.flatnonzero(bad).tolist()
            raw = frame[col].to_numpy(dtype=object)
            extra = [f"case {cases[r]!r}: {raw[r]!r}" for r in rows[:_MAX_LISTED]]
            raise DataError(
                f"config column {str(col)!r} must hold 0 or 1 (or be empty); {len(rows)} row(s) do not: rows "
                f"{_list_rows(rows, extra)} (data rows counted from 1)"
            )
        out[str(col).strip()] = vals
    if len(out) != len([c for c in frame.columns if c != case_col]):
        raise DataError("two config columns have the same name after trimming spaces")
    return pd.DataFrame(out, index=pd.Index(cases, dtype=object))


def paired_table_from_counts(
    config_a: str, config_b: str, both_correct: int, a_only: int, b_only: int, both_wrong: int
) -> PairedTable:
    """A two-config :class:`PairedTable` from the 2x2 counts (cases numbered c1, c2, ...).

    Example: the chapter's n=3 -> n=5 comparison (151 both right, 5 only n=3, 7 only n=5, 37 both wrong).
    >>> t = paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37)
    >>> t.n_cases, t.correct.sum(axis=0).tolist()
    (200, [156, 158])
    """
    counts = [both_correct, a_only, b_only, both_wrong]
    if any(int(c) != c or c < 0 for c in counts):
        raise DataError(f"2x2 counts must be non-negative whole numbers; got {counts}")
    pattern = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=bool)
    correct = np.repeat(pattern, [int(c) for c in counts], axis=0)
    if correct.shape[0] == 0:
        raise DataError("the 2x2 counts add up to zero cases")
    cases = np.array([f"c{i + 1}" for i in range(correct.shape[0])], dtype=object)
    n = correct.shape[0]
    return PairedTable("wide", (str(config_a), str(config_b)), cases, correct, (n, n), 0)


def _config_index(configs: Sequence[str], config: str) -> int:
    try:
        return list(configs).index(str(config))
    except ValueError:
        raise DataError(
            f"unknown config {config!r}; the configs present are {', '.join(repr(c) for c in configs)}"
        ) from None


# ----------------------------------------------------------------------------------------------------------------
# Single proportions
# ----------------------------------------------------------------------------------------------------------------


def _check_level(level: float) -> None:
    if not (0.0 < level < 1.0):
        raise DataError(f"the interval level must be between 0 and 1 (e.g. 0.95); got {level}")


def proportion_interval(correct: int, n: int, level: float = 0.95, method: str = "wilson") -> tuple[float, float]:
    """Interval for a proportion ``correct / n``: Wilson score (default) or Clopper-Pearson (exact).

    Wilson: (x + z^2/2)/(n + z^2) +- z sqrt(x(n-x)/n + z^2/4)/(n + z^2), z = Phi^-1(1 - (1-level)/2)
    (Wilson 1927, JASA 22:209). Clopper-Pearson: Beta(a/2; x, n-x+1) to Beta(1-a/2; x+1, n-x) quantiles
    (Clopper & Pearson 1934, Biometrika 26:404).

    >>> lo, hi = proportion_interval(158, 200)
    >>> round(lo, 4), round(hi, 4)
    (0.7284, 0.8407)
    """
    _check_level(level)
    if n <= 0 or not (0 <= correct <= n):
        raise DataError(f"a proportion needs 0 <= correct <= n and n > 0; got {correct} of {n}")
    alpha = 1.0 - level
    if method == "wilson":
        z = float(stats.norm.isf(alpha / 2))
        denom = n + z * z
        centre = (correct + z * z / 2) / denom
        half = z * math.sqrt(correct * (n - correct) / n + z * z / 4) / denom
        return max(0.0, centre - half), min(1.0, centre + half)
    if method in ("clopper-pearson", "beta", "exact"):
        return clopper_pearson(correct, n, level)
    raise DataError(f"unknown interval method {method!r}; use 'wilson' or 'clopper-pearson'")


def config_accuracy(table: PairedTable, level: float = 0.95, method: str = "wilson") -> tuple[ConfigAccuracy, ...]:
    """Accuracy of each config over the paired cases, with its marginal interval (see :func:`proportion_interval`).

    >>> [a.correct for a in config_accuracy(paired_table_from_counts("A", "B", 151, 5, 7, 37))]
    [156, 158]
    """
    n = table.n_cases
    return tuple(
        _accuracy(cfg, int(table.correct[:, j].sum()), n, level, method) for j, cfg in enumerate(table.configs)
    )


# ----------------------------------------------------------------------------------------------------------------
# McNemar
# ----------------------------------------------------------------------------------------------------------------


def _check_counts(a_only: int, b_only: int) -> tuple[int, int]:
    if int(a_only) != a_only or int(b_only) != b_only or a_only < 0 or b_only < 0:
        raise DataError(f"discordant counts must be non-negative whole numbers; got {a_only} and {b_only}")
    return int(a_only), int(b_only)


def mcnemar(a_only: int, b_only: int) -> McNemarResult:
    """McNemar's test for paired 0/1 results from the discordant counts (cases only A / only B gets right).

    Under "no difference" each of the m = a_only + b_only discordant cases is a fair coin flip, so with
    k = min(a_only, b_only) and X ~ Binomial(m, 1/2):

    - exact two-sided p = min(1, 2 P(X <= k)) (equal to statsmodels ``mcnemar(exact=True)`` and scipy
      ``binomtest``; the distribution is symmetric, so doubling the smaller tail is the same as summing the outcomes
      no more likely than the observed one);
    - mid-p = 2 P(X <= k) - P(X = k) (Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91);
    - chi-square with Edwards' continuity correction, chi2 = (|b - a| - 1)^2 / m on 1 df (McNemar 1947,
      Psychometrika 12:153; Edwards 1948, Psychometrika 13:185), **applied only when a_only != b_only**. That is R's
      ``stats::mcnemar.test(correct = TRUE)``, whose source corrects only ``if (any(x - t(x) != 0))``; it equals
      max(0, |b - a| - 1)^2 / m for whole counts. statsmodels ``mcnemar(exact=False, correction=True)`` corrects
      unconditionally, so a balanced table (3 vs 3) gets chi2 = 1/6 and p = 0.683 there, a "difference" in data
      that show none, and a p below the exact test's 1.0 although the correction exists to make the chi-square
      more conservative. Both agree whenever a_only != b_only.

    With no discordant case every p is 1 (R returns NaN). Source: the chapter's section "Two intervals" (7 vs 5:
    p = 0.77; 3 vs 3: 1.0; 26 vs 12: 0.035).

    >>> r = mcnemar(12, 26)
    >>> round(r.p_exact, 3), round(r.p_midp, 4), round(r.p_chi2_cc, 3)
    (0.034, 0.0237, 0.035)
    >>> mcnemar(3, 3).p_chi2_cc
    1.0
    """
    a, b = _check_counts(a_only, b_only)
    m = a + b
    if m == 0:
        return McNemarResult(a, b, 1.0, 1.0, 1.0, 0.0)
    k = min(a, b)
    cdf = float(special.bdtr(k, m, 0.5))
    pmf = float(stats.binom.pmf(k, m, 0.5))
    p_exact = min(1.0, 2.0 * cdf)
    p_midp = min(1.0, 2.0 * cdf - pmf)
    chi2 = (abs(b - a) - 1.0) ** 2 / m if a != b else 0.0
    p_chi2 = float(stats.chi2.sf(chi2, 1))
    return McNemarResult(a, b, p_exact, p_midp, p_chi2, chi2)


# ----------------------------------------------------------------------------------------------------------------
# Paired bootstrap
# ----------------------------------------------------------------------------------------------------------------


def _bootstrap_counts_check(a_only: int, b_only: int, n_cases: int) -> tuple[int, int, int]:
    a, b = _check_counts(a_only, b_only)
    if int(n_cases) != n_cases or n_cases < 1 or a + b > n_cases:
        raise DataError(f"need n_cases >= a_only + b_only >= 0 and n_cases >= 1; got {a}, {b} of {n_cases}")
    return a, b, int(n_cases)


def _difference_pmf(a: int, b: int, n: int) -> tuple[int, np.ndarray]:
    """pmf of D = B* - A* on a window [lo, lo + L) of the integers, with (A*, B*, rest) ~ Multinomial(n, (a, b, rest)/n).

    Computed from the characteristic function phi(-t) = E[exp(-itD)] = (q0 + qa e^{it} + qb e^{-it})^n by an inverse
    FFT on L points (a power of two). The window is centred on the mean b - a and reaches
    t = :func:`~nkcore.resolution.bernstein_halfwidth` (var, 2) either side: each case adds a term within 2 of its
    mean, so Bernstein's inequality bounds the mass outside by 1e-16; that mass is left out (it aliases into the
    window, changing the cdf by at most 1e-16). When the window covers all of [-n, n] nothing is truncated. The
    values carry the FFT's rounding noise (about 1e-16 of the largest, of either sign) and are not clipped at zero:
    clipping would add the positive half of that noise up in the cdf (4e-11 over 32,768 points); callers take the
    running maximum of the cumulative sum as the cdf.

    Accuracy: the phase n arg(phi) is where double precision is lost (its error is about n x 1e-16 x |arg|). Near
    t = pi, phi has modulus |1 - 2 q0|^n, which is not negligible when almost every case is discordant (q0 ~ 0; D then
    lives on one parity), and arg(phi) ~ pi there; so for t > pi/2 (when q0 < 1/2) phi(-t) is written as
    -(1 - 2 q0 + x(s) + i y(s)) with s = t - pi and small arguments, and (-1)^n is applied exactly. The shift
    e^{i t lo} is reduced modulo 2 pi in integers. The cdf then agrees with an independent binomial-mixture
    computation to ~1e-14 at 1,000,000 cases (tests/test_paired.py).
    """
    qa, qb = a / n, b / n
    q0 = (n - a - b) / n
    mean = b - a
    var = max(a + b - (b - a) ** 2 / n, 0.0)
    t = bernstein_halfwidth(var, 2.0, _TAIL_MASS)
    lo = max(-n, math.floor(mean - t) - 1)
    hi = min(n, math.ceil(mean + t) + 1)
    width = hi - lo + 1
    size = max(16, 1 << (width - 1).bit_length())  # the smallest power of two >= width
    j = np.arange(size // 2 + 1, dtype=np.int64)
    freq = 2.0 * math.pi * j / size
    reflect = (freq > math.pi / 2.0) & (q0 < 0.5)
    s = 2.0 * math.pi * np.where(reflect, j - size // 2, j) / size  # t - pi without the rounding of pi
    c = np.where(reflect, 1.0 - 2.0 * q0, 1.0)
    # phi(-t) = sign (c + x + i y): sign = 1, c = 1 for t = s near 0; sign = -1, c = 1 - 2 q0 for t = pi + s
    half = np.sin(s / 2.0)
    x = -(qa + qb) * 2.0 * half * half
    y = (qa - qb) * np.sin(s)
    with np.errstate(divide="ignore"):  # phi = 0 at some t when no case is concordant: log 0 = -inf, exp -> 0
        # log|c + x + iy| = log c + log1p((2cx + x^2 + y^2) / c^2) / 2, without cancellation near |phi| = 1
        log_abs = np.log(c) + 0.5 * np.log1p((2.0 * c * x + x * x + y * y) / (c * c))
    arg = np.arctan2(y, c + x)
    shift = 2.0 * math.pi * ((j * lo) % size) / size  # t lo modulo 2 pi, exactly
    phase = n * arg + shift + np.where(reflect, math.pi * (n % 2), 0.0)
    coef = np.exp(n * log_abs) * np.exp(1j * phase)
    pmf = np.fft.irfft(coef, n=size)
    if a + b == n:  # every case discordant: D = 2 B* - n has the parity of n, exactly
        pmf[(lo + np.arange(size) - n) % 2 == 1] = 0.0
    return lo, pmf


def exact_paired_bootstrap(a_only: int, b_only: int, n_cases: int, level: float = 0.95) -> BootstrapInterval:
    """The case-resampling paired bootstrap interval on diff = acc(B) - acc(A), computed exactly (no Monte Carlo).

    Resampling n cases with replacement draws each case's type (only A right, only B right, same result)
    independently with probabilities (a, b, n - a - b)/n, so the resampled counts (A*, B*, rest*) are
    Multinomial(n, ...) and the resampled difference is D/n with D = B* - A*. The pmf of D is computed from its
    characteristic function (q0 + qa e^{-it} + qb e^{it})^n by an inverse FFT on a window around b - a; the
    support is truncated where the probability is negligible: Bernstein's inequality bounds the mass outside the
    window by 1e-16 (for small n the window is all of [-n, n] and nothing is truncated). Floating-point error in
    the cdf is ~1e-13. The interval is read exactly as the chapter's ``paired_bootstrap`` reads its sorted
    resamples, ``diffs[int(0.025 * reps)]`` and ``diffs[int(0.975 * reps)]``, in the limit reps -> infinity:
    low = min{d : F(d) > (1-level)/2}/n, high = min{d : F(d) > 1-(1-level)/2}/n.
    Deterministic; about 1 ms for 1,000,000 cases. Source: the chapter's section "Two intervals" (Efron &
    Tibshirani 1993, ch. 13, percentile interval).

    >>> r = exact_paired_bootstrap(12, 26, 200)   # the chapter's n=1 -> n=3: (+0.010, +0.130)
    >>> round(r.low, 3), round(r.high, 3)
    (0.01, 0.13)
    """
    _check_level(level)
    a, b, n = _bootstrap_counts_check(a_only, b_only, n_cases)
    if a + b == 0:
        return BootstrapInterval(0.0, 0.0, level, "exact", None)
    lo, pmf = _difference_pmf(a, b, n)
    cdf = np.maximum.accumulate(np.cumsum(pmf))
    q_lo = (1.0 - level) / 2.0
    q_hi = 1.0 - q_lo
    i_lo = int(np.searchsorted(cdf, q_lo, side="right"))
    i_hi = int(np.searchsorted(cdf, q_hi, side="right"))
    i_hi = min(i_hi, cdf.size - 1)
    return BootstrapInterval((lo + i_lo) / n, (lo + i_hi) / n, level, "exact", None)


def paired_bootstrap_mc(
    a_correct: np.ndarray,
    b_correct: np.ndarray,
    reps: int = 20_000,
    seed: int | np.random.Generator = 0,
    level: float = 0.95,
) -> BootstrapInterval:
    """Monte Carlo paired bootstrap (resampling cases, the same index list for both configs); for cross-checks.

    The chapter's ``paired_bootstrap`` in numpy: ``reps`` resamples of the n cases with replacement, diff* =
    mean(b*) - mean(a*), sorted, read at ``diffs[int(q * reps)]`` for q = (1-level)/2 and 1-(1-level)/2.
    Source: the chapter's section "Two intervals".

    >>> a = np.array([1] * 142 + [0] * 58, bool); b = a.copy(); b[:12] = False; b[142:168] = True
    >>> r = paired_bootstrap_mc(a, b, reps=20_000, seed=1)
    >>> round(r.low, 3), round(r.high, 3)
    (0.01, 0.13)
    """
    _check_level(level)
    a = np.asarray(a_correct, dtype=bool).ravel()
    b = np.asarray(b_correct, dtype=bool).ravel()
    if a.size != b.size or a.size == 0:
        raise DataError(f"the two configs need the same, non-zero number of cases; got {a.size} and {b.size}")
    if int(reps) != reps or reps < 1:
        raise DataError(f"reps must be a positive whole number; got {reps}")
    rng = np.random.default_rng(seed)
    step = b.astype(np.int64) - a.astype(np.int64)
    n = a.size
    diffs = np.empty(int(reps))
    chunk = max(1, 2_000_000 // n)
    for start in range(0, int(reps), chunk):
        stop = min(int(reps), start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        diffs[start:stop] = step[idx].sum(axis=1) / n
    diffs.sort()
    q_lo = (1.0 - level) / 2.0
    return BootstrapInterval(
        float(diffs[int(q_lo * reps)]),
        float(diffs[min(int((1.0 - q_lo) * reps), int(reps) - 1)]),
        level,
        "monte-carlo",
        int(reps),
    )


# ----------------------------------------------------------------------------------------------------------------
# Comparisons
# ----------------------------------------------------------------------------------------------------------------


def compare_pair(
    table: PairedTable, a: str, b: str, level: float = 0.95, ci_method: str = "wilson"
) -> PairedComparison:
    """Config ``a`` -> config ``b`` on the paired cases: counts, diff, McNemar p-values, intervals.

    diff = acc(b) - acc(a) = (b_only - a_only)/n; p-values from :func:`mcnemar`; the paired interval from
    :func:`exact_paired_bootstrap`; the unpaired interval diff +- z sqrt(pa(1-pa)/n + pb(1-pb)/n) (Wald, two
    independent proportions) is what the marginal intervals implicitly use. Source: the chapter, "Two intervals".

    >>> c = compare_pair(paired_table_from_counts("n=1", "n=3", 130, 12, 26, 32), "n=1", "n=3")
    >>> round(c.diff, 3), round(c.p_exact, 3), round(c.diff_ci_low, 3), round(c.diff_ci_high, 3)
    (0.07, 0.034, 0.01, 0.13)
    """
    ia, ib = _config_index(table.configs, a), _config_index(table.configs, b)
    if ia == ib:
        raise DataError(f"compare two different configs; both are {a!r}")
    ca, cb = table.correct[:, ia], table.correct[:, ib]
    n = table.n_cases
    a_only = int(np.count_nonzero(ca & ~cb))
    b_only = int(np.count_nonzero(cb & ~ca))
    both = int(np.count_nonzero(ca & cb))
    neither = n - a_only - b_only - both
    acc_a = _accuracy(table.configs[ia], int(ca.sum()), n, level, ci_method)
    acc_b = _accuracy(table.configs[ib], int(cb.sum()), n, level, ci_method)
    test = mcnemar(a_only, b_only)
    boot = exact_paired_bootstrap(a_only, b_only, n, level)
    diff = (b_only - a_only) / n
    z = float(stats.norm.isf((1.0 - level) / 2.0))
    pa, pb = acc_a.accuracy, acc_b.accuracy
    half = z * math.sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n)
    return PairedComparison(
        config_a=table.configs[ia],
        config_b=table.configs[ib],
        n_cases=n,
        a=acc_a,
        b=acc_b,
        a_only=a_only,
        b_only=b_only,
        both_correct=both,
        both_wrong=neither,
        diff=diff,
        p_exact=test.p_exact,
        p_midp=test.p_midp,
        p_chi2_cc=test.p_chi2_cc,
        diff_ci_low=boot.low,
        diff_ci_high=boot.high,
        unpaired_ci_low=diff - half,
        unpaired_ci_high=diff + half,
        level=level,
    )


def _accuracy(config: str, k: int, n: int, level: float, method: str) -> ConfigAccuracy:
    lo, hi = proportion_interval(k, n, level, method)
    return ConfigAccuracy(config, k, n, k / n, lo, hi, "wilson" if method == "wilson" else "clopper-pearson")


def holm(pvalues: Sequence[float]) -> tuple[float, ...]:
    """Holm's step-down adjusted p-values (Holm 1979, Scand J Statist 6:65), in the input order.

    Sorted ascending p_(1) <= ... <= p_(m): adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)).

    >>> [round(p, 3) for p in holm([0.0336, 0.774, 1.0])]
    [0.101, 1.0, 1.0]
    """
    p = np.asarray(list(pvalues), dtype=float)
    if p.size == 0:
        return ()
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise DataError(f"p-values must lie in [0, 1]; got {p.tolist()}")
    order = np.argsort(p, kind="stable")
    m = p.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adj_sorted = np.maximum.accumulate(scaled)
    out = np.empty(m)
    out[order] = adj_sorted
    return tuple(float(x) for x in out)


def ordering_chance(k: int) -> float:
    """Chance that k exchangeable measurements (no real difference) come out in non-decreasing order: 1/k!.

    All k! orderings are equally likely and one ascends (ties have probability zero for continuous values).
    Source: the chapter's section "Why the monotonicity was never evidence" (one in six for three).

    >>> ordering_chance(3)
    0.16666666666666666
    """
    if int(k) != k or k < 1:
        raise DataError(f"the number of measurements must be a positive whole number; got {k}")
    return 1.0 / math.factorial(int(k))


def compare_ordered(
    table: PairedTable,
    configs: Sequence[str] | None = None,
    alpha: float = 0.05,
    level: float = 0.95,
    ci_method: str = "wilson",
) -> OrderedComparison:
    """Adjacent paired comparisons of configs in the given order, Holm-adjusted, with the 1/k! ordering chance.

    For configs c1 < c2 < ... < ck: :func:`compare_pair` (c_i -> c_{i+1}), Holm's adjustment over the k - 1
    exact p-values, 1/k! (:func:`ordering_chance`), and the longest run of consecutive configs whose adjacent
    (unadjusted) exact p-values are all >= alpha -- the run the data cannot tell apart -- with 1/len(run)!.
    Using unadjusted p makes the run no longer than a Holm-based run would be. Source: the chapter, "Why the
    monotonicity was never evidence" (1, 3, 5, 7 samples: the last three tie; one in six).
    """
    _check_alpha(alpha)
    order = tuple(table.configs) if configs is None else tuple(str(c) for c in configs)
    for c in order:
        _config_index(table.configs, c)
    if len(order) < 2:
        raise DataError(f"an ordered comparison needs at least two configs; got {len(order)}")
    comps = tuple(compare_pair(table, order[i], order[i + 1], level, ci_method) for i in range(len(order) - 1))
    p_holm = holm([c.p_exact for c in comps])
    best_start, best_len, start = 0, 1, 0
    for i, c in enumerate(comps):
        if c.p_exact < alpha:
            start = i + 1
        elif i + 2 - start > best_len:
            best_start, best_len = start, i + 2 - start
    run = order[best_start : best_start + best_len] if best_len >= 2 else ()
    idx = [_config_index(table.configs, c) for c in order]
    accs = tuple(
        _accuracy(c, int(table.correct[:, j].sum()), table.n_cases, level, ci_method)
        for c, j in zip(order, idx, strict=True)
    )
    per_config = tuple(table.cases_per_config[j] for j in idx)
    return OrderedComparison(
        configs=order,
        n_cases=table.n_cases,
        dropped_cases=table.dropped_cases,
        cases_per_config=per_config,
        accuracies=accs,
        comparisons=comps,
        p_holm=p_holm,
        chance_non_decreasing=ordering_chance(len(order)),
        tied_run=run,
        tied_run_chance=ordering_chance(len(run)) if run else 1.0,
        mean_discordance=float(np.mean([c.discordant / c.n_cases for c in comps])),
        alpha=alpha,
        level=level,
    )


def analyse_paired(
    frame: pd.DataFrame,
    configs: tuple[str, ...] | None = None,
    alpha: float = 0.05,
    level: float = 0.95,
    ci_method: str = "wilson",
) -> OrderedComparison:
    """Parse a paired-results frame and compare its configs in order (:func:`parse_paired` + :func:`compare_ordered`).

    ``configs`` chooses and orders the configs (default: all, in the table's order); only cases present for
    all chosen configs are used. This is the function the Compare page calls through the cache.
    """
    table = parse_paired(frame, configs)
    return compare_ordered(table, table.configs, alpha, level, ci_method)


def compare_frame_pair(
    frame: pd.DataFrame, a: str, b: str, level: float = 0.95, ci_method: str = "wilson"
) -> PairedComparison:
    """Parse a paired-results frame, keep configs ``a`` and ``b`` (pairing only their cases) and compare a -> b."""
    table = parse_paired(frame, (a, b))
    return compare_pair(table, table.configs[0], table.configs[1], level, ci_method)


# ----------------------------------------------------------------------------------------------------------------
# Plain words
# ----------------------------------------------------------------------------------------------------------------


def _points(x: float, sign: bool = True) -> str:
    """Points with one decimal: '+7.0', '-2.5', and '0.0' (no sign) for zero."""
    v = 100.0 * x
    if abs(v) < 0.05:
        return "0.0"
    return f"{v:+.1f}" if sign else f"{v:.1f}"


def format_p(p: float) -> str:
    """p for people, two significant digits: 'p < 0.001', 'p = 0.034', 'p = 0.10', 'p = 0.77', 'p = 1.0'."""
    if p < 0.001:
        return "p < 0.001"
    if p >= 0.995:
        return "p = 1.0"
    decimals = max(0, 1 - math.floor(math.log10(p)))
    return f"p = {p:.{decimals}f}"


def _plural(k: int, word: str) -> str:
    return f"{k:,} {word}" + ("" if k == 1 else "s")


def accuracy_sentence(acc: ConfigAccuracy, level: float = 0.95) -> str:
    """One config's accuracy in words: "n=5: 158 of 200 correct = 79.0% (95% Wilson interval 72.8% to 84.1%)".

    >>> accuracy_sentence(config_accuracy(paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37))[1])
    'n=5: 158 of 200 correct = 79.0% (95% Wilson interval 72.8% to 84.1%)'
    """
    method = "Wilson" if acc.method == "wilson" else "Clopper-Pearson"
    return (
        f"{acc.config}: {acc.correct:,} of {acc.n:,} correct = {100 * acc.accuracy:.1f}% "
        f"({round(100 * level):g}% {method} interval {100 * acc.ci_low:.1f}% to {100 * acc.ci_high:.1f}%)"
    )


def verdict_sentence(
    comparison: PairedComparison,
    alpha: float = 0.05,
    p_adjusted: float | None = None,
    comparisons: int | None = None,
) -> str:
    """One plain sentence on a paired comparison A -> B; the exact McNemar p decides, the interval qualifies.

    - p_exact < alpha: "<winner> beats <loser>: +x points (95% interval lo to hi), p = ...". When ``p_adjusted``
      (Holm's, over ``comparisons`` adjacent pairs) is not below alpha, it goes on: "; but that p is for this pair
      on its own: with Holm's adjustment for the 3 adjacent comparisons p = 0.10, not below alpha = 0.05, so treat
      the win as tentative".
    - otherwise: "cannot tell <B> from <A>: +x points (95% interval lo to hi, p = ...) is inside what <n> cases can
      resolve (with m discordant cases a difference needs k of them one way, a net of ... points)", k from
      :func:`nkcore.resolution.critical_count`; with no discordant case, or too few for any split to reach
      p < alpha, it says so.
    - the percentile bootstrap and the exact test can disagree at the margin (e.g. 4 vs 0 of 200: p = 0.125 but
      the interval is +0.5 to +4.0 points, because with few discordant cases the bootstrap distribution is too
      narrow); the sentence then names the disagreement and which one decides.

    >>> c = compare_pair(paired_table_from_counts("n=1", "n=3", 130, 12, 26, 32), "n=1", "n=3")
    >>> verdict_sentence(c)
    'n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034'
    >>> print(verdict_sentence(c, p_adjusted=0.1008, comparisons=3)[68:])
    but that p is for this pair on its own: with Holm's adjustment for the 3 adjacent comparisons p = 0.10, not below alpha = 0.05, so treat the win as tentative
    """
    _check_alpha(alpha)
    c = comparison
    pct = f"{round(100 * c.level):g}%"
    m = c.discordant
    if m == 0:
        return (
            f"cannot tell {c.config_b} from {c.config_a}: they agree on all {_plural(c.n_cases, 'case')} (no discordant "
            "case), so these data say nothing about which is better"
        )
    if c.p_exact < alpha:
        if c.diff >= 0:
            winner, loser, d, lo, hi = c.config_b, c.config_a, c.diff, c.diff_ci_low, c.diff_ci_high
        else:
            winner, loser, d, lo, hi = c.config_a, c.config_b, -c.diff, -c.diff_ci_high, -c.diff_ci_low
        text = (
            f"{winner} beats {loser}: {_points(d)} points ({pct} interval {_points(lo)} to {_points(hi)}), "
            f"{format_p(c.p_exact)}"
        )
        if p_adjusted is not None and p_adjusted >= alpha:
            family = f"the {comparisons} adjacent comparisons" if comparisons else "the other comparisons"
            text += (
                f"; but that p is for this pair on its own: with Holm's adjustment for {family} "
                f"{format_p(p_adjusted)}, not below alpha = {alpha:g}, so treat the win as tentative"
            )
        if lo <= 0:
            text += "; the bootstrap interval reaches zero, so the evidence is borderline"
        return text
    k = critical_count(m, alpha)
    head = (
        f"cannot tell {c.config_b} from {c.config_a}: {_points(c.diff)} points "
        f"({pct} interval {_points(c.diff_ci_low)} to {_points(c.diff_ci_high)}, {format_p(c.p_exact)})"
    )
    if k is None:
        text = (
            f"{head}; with only {_plural(m, 'discordant case')} among {_plural(c.n_cases, 'case')} no split of them "
            f"can reach p < {alpha:g}"
        )
    else:
        net = 2 * k - m
        text = (
            f"{head} is inside what {_plural(c.n_cases, 'case')} can resolve (with {m:,} discordant cases a difference "
            f"needs {k:,} of them one way, a net of {_plural(net, 'case')} = {_points(net / c.n_cases, sign=False)} "
            "points)"
        )
    if c.diff_ci_low > 0 or c.diff_ci_high < 0:
        text += (
            "; the bootstrap interval misses zero, but with so few discordant cases it runs too narrow, and the exact "
            "test decides"
        )
    return text


def marginal_sentence(comparison: PairedComparison) -> str:
    """Why the marginal intervals are the wrong instrument for this comparison, with its numbers.

    >>> c = compare_pair(paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37), "n=3", "n=5")
    >>> marginal_sentence(c)[:60]
    'Marginal intervals: n=3 78.0% (71.8% to 83.2%) and n=5 79.0%'
    """
    c = comparison
    same = c.both_correct + c.both_wrong

    def one(x: ConfigAccuracy) -> str:
        return f"{x.config} {100 * x.accuracy:.1f}% ({100 * x.ci_low:.1f}% to {100 * x.ci_high:.1f}%)"

    return (
        f"Marginal intervals: {one(c.a)} and {one(c.b)}. Treating them as independent gives the difference an "
        f"interval of {_points(c.unpaired_ci_low)} to {_points(c.unpaired_ci_high)} points; the paired interval is "
        f"{_points(c.diff_ci_low)} to {_points(c.diff_ci_high)}, because {same} of the {c.n_cases} cases came out the "
        "same for both configs and cancel in the difference. Only the "
        f"{c.discordant} discordant cases ({c.b_only} only {c.config_b} gets right, {c.a_only} only {c.config_a}) "
        "carry information."
    )


def ordering_sentence(ordered: OrderedComparison) -> str:
    """The 1/k! note for ordered configs in plain words (the chapter's "one time in six").

    >>> t = paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37)
    >>> ordering_sentence(compare_ordered(t))[:54]
    'n=3 and n=5 cannot be told apart (every adjacent compa'
    """
    o = ordered
    k = len(o.configs)
    if o.tied_run:
        run = o.tied_run
        names = ", ".join(run[:-1]) + f" and {run[-1]}"
        r = len(run)
        text = (
            f"{names} cannot be told apart (every adjacent comparison has p >= {o.alpha:g}). {r} measurements "
            f"with no real difference come out in non-decreasing order by luck 1 time in {math.factorial(r):,}, so "
            "a rising sequence among them is not evidence of a trend."
        )
        if r < k:
            text += f" For all {k} configs the chance is 1 in {math.factorial(k):,}."
        return text
    return (
        f"Every adjacent comparison reaches p < {o.alpha:g}. For reference, {k} measurements with no real difference "
        f"come out in non-decreasing order by luck 1 time in {math.factorial(k):,}."
    )
