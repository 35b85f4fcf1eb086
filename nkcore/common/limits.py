"""The work budget of one request: every limit a file, a link or a CLI call can run into, in one table.

A shared team server must not be pinned or emptied by one link or one upload, so every reader and every
computation checks its inputs against these limits *before* the work or the allocation is made. The CLI and the
pages share them (they are enforced here, in nkcore). Each limit can be changed by the server's environment
variable named in :data:`LIMITS`: a positive whole number of ASCII digits (``_`` between digits allowed, at most
:data:`MAX_SETTING_DIGITS` digits); anything else is ignored, the default is used and one warning line says so.

Over a limit, :func:`check` raises ``DataError`` with one sentence naming the limit, the value asked for and how to
stay under it, e.g. "the file has 7,000,000 rows; the limit is 1,000,000 rows (NKP_MAX_ROWS): sample or split it".
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from decimal import Decimal

from nkcore.errors import DataError

__all__ = ["LIMITS", "MAX_SETTING_DIGITS", "Limit", "check", "check_memory", "get", "table", "unusable_settings"]

MAX_SETTING_DIGITS = 18
"""Most digits a limit variable may have (10**18 is past every limit; ``int`` of 5,000 digits would fail)."""
_SETTING = re.compile(r"[0-9]+(?:_[0-9]+)*")
_LOG = logging.getLogger("nkcore.limits")
_WARNED: set[tuple[str, str]] = set()


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit: its key, environment variable, default, unit (for the sentence) and how to stay under it."""

    key: str
    env: str
    default: int
    unit: str
    hint: str


_L = Limit
LIMITS: dict[str, Limit] = {
    lim.key: lim
    for lim in (
        _L("file_bytes", "NKP_MAX_FILE_BYTES", 200 * 2**20, "bytes", "upload a smaller or sampled file"),
        _L("unpacked_bytes", "NKP_MAX_UNPACKED_BYTES", 200 * 2**20, "bytes unpacked", "upload a smaller file"),
        _L("gzip_ratio", "NKP_MAX_GZIP_RATIO", 200, "times its packed size", "upload the file unpacked"),
        _L("rows", "NKP_MAX_ROWS", 1_000_000, "rows", "sample or split the file"),
        _L("columns", "NKP_MAX_COLUMNS", 1_000, "columns", "keep only the columns NK Planner reads"),
        _L("cells", "NKP_MAX_CELLS", 10_000_000, "cells (rows x columns)", "keep fewer rows or columns"),
        _L("line_bytes", "NKP_MAX_LINE_BYTES", 2**20, "bytes on one line", "check for a missing line break"),
        _L("json_depth", "NKP_MAX_JSON_DEPTH", 64, "levels", "flatten the records"),
        _L(
            "json_values",
            "NKP_MAX_JSON_VALUES",
            8_000_000,
            "JSON values",
            "split the file or drop fields it need not hold",
        ),
        _L("archive_entries", "NKP_MAX_ARCHIVE_ENTRIES", 100_000, "archive entries", "split the log into smaller ones"),
        _L("labels", "NKP_MAX_LABELS", 100, "distinct labels", "bin or merge the labels"),
        _L("items", "NKP_MAX_ITEMS", 2_000_000, "items", "sample the items"),
        _L(
            "ratings_per_item",
            "NKP_MAX_RATINGS_PER_ITEM",
            10_000,
            "ratings per item",
            "check that the count columns hold numbers of ratings (not ids, scores or totals), or keep a sample of "
            "each item's ratings",
        ),
        _L(
            "ratings",
            "NKP_MAX_RATINGS",
            100_000_000,
            "ratings",
            "check that the count columns hold numbers of ratings (not ids, scores or totals), or sample the items",
        ),
        _L("samples_per_case", "NKP_MAX_SAMPLES_PER_CASE", 1_000, "samples per case", "use fewer samples per case"),
        _L("cases", "NKP_MAX_CASES", 10_000_000, "cases", "ask about fewer cases"),
        _L("rounds", "NKP_MAX_ROUNDS", 100_000, "rounds", "use fewer rounds"),
        _L("budget", "NKP_MAX_BUDGET", 1_000_000, "ratings (N x K)", "ask about a smaller budget"),
        _L("configs", "NKP_MAX_CONFIGS", 5_000, "configurations (budget x K cells)", "ask for fewer budgets or K"),
        _L("grids", "NKP_MAX_GRIDS", 60, "grids (priors x eps values)", "ask for fewer priors or eps values"),
        _L(
            "grid_work",
            "NKP_MAX_GRID_WORK",
            30_000,
            "estimated CPU milliseconds of exact grids",
            "ask for fewer budgets, K, metrics or grids (the paper's whole sweep: raise the setting for that run)",
        ),
        _L("sim_work", "NKP_MAX_SIM_WORK", 12 * 10**9, "draws", "use fewer rounds, smaller budgets or fewer K"),
        _L("memory_bytes", "NKP_MAX_MEMORY_BYTES", 2**30, "bytes of memory", "ask for a smaller computation"),
        _L(
            "vote_work",
            "NKP_MAX_VOTE_WORK",
            8 * 10**9,
            "multiply-adds",
            "use fewer samples per case or fewer cases (or group equivalent answers)",
        ),
    )
}
"""The limits by key. ``sim_work`` counts the category draws of a simulation or a resampling: the sum over its
configurations of 2 (alternative and null) x rounds x N items x 3 machines (gold, A, B) x M labels x min(K, 40)
(above K = 40 the samplers draw a chain of M binomials per item, which costs about as much as 40 ratings).
``grid_work`` bounds the exact engine's grids of one request by their estimated CPU time
(:func:`nkcore.nk.exact.engine.expected_seconds` with no law cached, summed over the grids; the estimate is about
twice the measured time). ``vote_work`` counts the multiply-adds of the exact majority-vote curve over all n-subsets, estimated from each
case's answer-group sizes before it is computed (:func:`nkcore.voting.exact.exact_work`; about 1 to 2.5 per
nanosecond on the reference machine, 0.7 when it is loaded, so the default is about 3 to 12 s of CPU). One-sample
answer groups (free-form answers that never repeat) cost little since the closed forms of issue 52 (300 cases x
1,000 such samples: 4e7, was 5e10); the most work per sample is many wrong answers that each repeat a few times. ``memory_bytes`` bounds the arrays one request builds at once (the Python process adds about 150 MB).
``json_values`` counts the values of the JSON a request parses (one document, a JSON Lines file's lines together, an
archive's entries together), as the brackets, commas and colons outside strings (a Python object costs 30 to 100 bytes
per value counted so; see :func:`nkcore.io.json_safe.count_json_values`). ``archive_entries`` counts the entries of
an archive (an inspect_ai ``.eval`` log), read from its end record before the entries are listed.
``ratings_per_item`` and ``ratings`` bound what a label-count file (``count_<label>`` columns, or label counters
nested per item) may claim, checked as it is read (:func:`nkcore.ratings.ratings_from_counts`): a 500-byte file can
say 10**12 ratings per item, and the prior fit's check of the per-item spread (:func:`nkcore.nk.fit.fit_dirichlet`)
works over 0..K, so it refuses a most common K over the limit too. Per-rating files are bounded by ``rows``; the
real datasets have at most 100 ratings per item (ChaosNLI) and 511,000 ratings (CIFAR-10H)."""


def get(key: str) -> int:
    """The limit ``key`` in force: its environment variable when that is a positive whole number, else the default.

    >>> get("columns")
    1000
    """
    lim = LIMITS[key]
    raw = os.environ.get(lim.env)
    if raw is None:
        return lim.default
    setting = _setting(raw)
    if setting is None:
        _warn_once(lim.env, raw)
        return lim.default
    return setting


def _setting(raw: str) -> int | None:
    """A limit variable's value as a positive whole number of ASCII digits ('1_000' allowed, at most
    :data:`MAX_SETTING_DIGITS` digits), or None when it is not one ('²', '１', '-5', '1e6', 5,000 digits).

    >>> _setting(" 1_000 "), _setting("²"), _setting("0"), _setting("9" * 19)
    (1000, None, None, None)
    """
    clean = raw.strip()
    if not _SETTING.fullmatch(clean):
        return None
    digits = clean.replace("_", "")
    if len(digits.lstrip("0")) > MAX_SETTING_DIGITS:
        return None
    value = int(digits)
    return value if value > 0 else None


def _warn_once(env: str, raw: str) -> None:
    """One warning line (once per process and value) that ``env`` is ignored."""
    if (env, raw) in _WARNED:
        return
    _WARNED.add((env, raw))
    _LOG.warning("nkcore: %s=%r is not a positive whole number; the default is used", env, _shown(raw))


def unusable_settings() -> list[str]:
    """The limit variables set to something that is not a positive whole number (their default is in force).

    >>> os.environ["NKP_MAX_ROWS"] = "abc"; unusable_settings(); del os.environ["NKP_MAX_ROWS"]
    ["NKP_MAX_ROWS='abc'"]
    """
    return [
        f"{lim.env}={_shown(raw)!r}"
        for lim in LIMITS.values()
        if (raw := os.environ.get(lim.env)) is not None and _setting(raw) is None
    ]


def _shown(raw: str) -> str:
    """A variable's value for a message: at most 40 characters, then how long it is."""
    return raw if len(raw) <= 40 else raw[:40] + f"... ({len(raw):,} characters)"


def check(key: str, value: int | float, what: str, more_than: bool = False, *, counted: str | None = None) -> None:
    """Raise ``DataError`` when ``value`` is over the limit ``key``; ``what`` names the thing counted.
    ``more_than``: ``value`` is only a lower bound (reading stopped past the limit), so the message says "more than
    the limit" rather than a count the thing does not have. ``counted``: the unit of ``value`` when it is not the
    limit's (an item "has 20,000 ratings" under a limit of "ratings per item").

    >>> check("columns", 10, "the file")
    >>> check("columns", 5000, "the file")
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: the file has 5,000 columns; the limit is 1,000 columns (server setting NKP_MAX_COLUMNS): keep only the columns NK Planner reads
    >>> check("ratings_per_item", 20_000, "item 'q1' (data row 2)", counted="ratings")
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: item 'q1' (data row 2) has 20,000 ratings; the limit is 10,000 ratings per item (server setting NKP_MAX_RATINGS_PER_ITEM): check that the count columns hold numbers of ratings (not ids, scores or totals), or keep a sample of each item's ratings
    """
    cap = get(key)
    if value > cap:
        lim = LIMITS[key]
        unit = lim.unit if counted is None else counted
        # a float past 2^53 (1e30) prints digits it does not have: its 15 significant digits instead
        shown = f"{value:,.0f}" if value < 2**53 else f"{int(Decimal(f'{value:.15g}')):,}"
        has = f"more than {cap:,} {unit}" if more_than else f"{shown} {unit}"
        raise DataError(f"{what} has {has}; the limit is {cap:,} {lim.unit} (server setting {lim.env}): {lim.hint}")


def check_memory(nbytes: int | float, what: str) -> None:
    """Refuse an allocation of ``nbytes`` before it is made when it exceeds the memory limit of one request.

    >>> check_memory(8 * 10**6, "the vote table")
    >>> check_memory(3 * 2**40, "the count array")
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: the count array needs 3,298,534,883,328 bytes of memory; the limit is 1,073,741,824 bytes of memory (server setting NKP_MAX_MEMORY_BYTES): ask for a smaller computation
    """
    cap = get("memory_bytes")
    if nbytes > cap:
        lim = LIMITS["memory_bytes"]
        raise DataError(
            f"{what} needs {nbytes:,.0f} {lim.unit}; the limit is {cap:,} {lim.unit} "
            f"(server setting {lim.env}): {lim.hint}"
        )


def table() -> list[dict[str, object]]:
    """Every limit with its environment variable, default and value in force (for the README and the CLI).

    >>> {"key": "rows", "env": "NKP_MAX_ROWS", "default": 1000000} == {k: table()[3][k] for k in ("key", "env", "default")}
    True
    """
    return [
        {"key": lim.key, "env": lim.env, "default": lim.default, "in_force": get(lim.key), "unit": lim.unit}
        for lim in LIMITS.values()
    ]
