"""The work budget of one request: every limit a file, a link or a CLI call can run into, in one table.

A shared team server must not be pinned or emptied by one link or one upload, so every reader and every
computation checks its inputs against these limits *before* the work or the allocation is made. The CLI and the
pages share them (they are enforced here, in nkcore). Each limit can be changed by the server's environment
variable named in :data:`LIMITS` (a positive whole number; an unusable value is ignored and the default is used).

Over a limit, :func:`check` raises ``DataError`` with one sentence naming the limit, the value asked for and how to
stay under it, e.g. "the file has 7,000,000 rows; the limit is 1,000,000 rows (NKP_MAX_ROWS): sample or split it".
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from nkcore.errors import DataError

__all__ = ["LIMITS", "Limit", "check", "check_memory", "get", "table", "unusable_settings"]


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
        _L("labels", "NKP_MAX_LABELS", 100, "distinct labels", "bin or merge the labels"),
        _L("items", "NKP_MAX_ITEMS", 2_000_000, "items", "sample the items"),
        _L("samples_per_case", "NKP_MAX_SAMPLES_PER_CASE", 1_000, "samples per case", "use fewer samples per case"),
        _L("cases", "NKP_MAX_CASES", 10_000_000, "cases", "ask about fewer cases"),
        _L("rounds", "NKP_MAX_ROUNDS", 100_000, "rounds", "use fewer rounds"),
        _L("budget", "NKP_MAX_BUDGET", 1_000_000, "ratings (N x K)", "ask about a smaller budget"),
        _L("configs", "NKP_MAX_CONFIGS", 5_000, "configurations (budget x K cells)", "ask for fewer budgets or K"),
        _L("grids", "NKP_MAX_GRIDS", 60, "grids (priors x eps values)", "ask for fewer priors or eps values"),
        _L("sim_work", "NKP_MAX_SIM_WORK", 12 * 10**9, "draws", "use fewer rounds, smaller budgets or fewer K"),
        _L("memory_bytes", "NKP_MAX_MEMORY_BYTES", 2**30, "bytes of memory", "ask for a smaller computation"),
    )
}
"""The limits by key. ``sim_work`` counts the category draws of a simulation or a resampling: the sum over its
configurations of 2 (alternative and null) x rounds x N items x 3 machines (gold, A, B) x M labels x min(K, 40)
(above K = 40 the samplers draw a chain of M binomials per item, which costs about as much as 40 ratings).
``memory_bytes`` bounds the arrays one request builds at once (the Python process adds about 150 MB)."""


def get(key: str) -> int:
    """The limit ``key`` in force: its environment variable when that is a positive whole number, else the default.

    >>> get("columns")
    1000
    """
    lim = LIMITS[key]
    setting = _setting(os.environ.get(lim.env, ""))
    return lim.default if setting is None else setting


def _setting(raw: str) -> int | None:
    """A limit variable's value as a positive whole number ('1_000' allowed), or None when it is not one."""
    clean = raw.strip().replace("_", "")
    return int(clean) if clean.isdigit() and int(clean) > 0 else None


def unusable_settings() -> list[str]:
    """The limit variables set to something that is not a positive whole number (their default is in force).

    >>> os.environ["NKP_MAX_ROWS"] = "abc"; unusable_settings(); del os.environ["NKP_MAX_ROWS"]
    ["NKP_MAX_ROWS='abc'"]
    """
    return [
        f"{lim.env}={raw!r}"
        for lim in LIMITS.values()
        if (raw := os.environ.get(lim.env)) is not None and _setting(raw) is None
    ]


def check(key: str, value: int | float, what: str, more_than: bool = False) -> None:
    """Raise ``DataError`` when ``value`` is over the limit ``key``; ``what`` names the thing counted.
    ``more_than``: ``value`` is only a lower bound (reading stopped past the limit), so the message says "more than
    the limit" rather than a count the thing does not have.

    >>> check("columns", 10, "the file")
    >>> check("columns", 5000, "the file")
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: the file has 5,000 columns; the limit is 1,000 columns (server setting NKP_MAX_COLUMNS): keep only the columns NK Planner reads
    """
    cap = get(key)
    if value > cap:
        lim = LIMITS[key]
        has = f"more than {cap:,} {lim.unit}" if more_than else f"{value:,.0f} {lim.unit}"
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
