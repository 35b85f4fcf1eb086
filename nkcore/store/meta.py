"""A stored dataset's description (``<id>.json``): the dataclass, the id check, and the strict reader.

Ids come from URLs, i.e. from anyone: :func:`validate_id` accepts exactly 64 lowercase hex characters and runs
before any path or object key is built, so ``../../etc/passwd`` and friends never reach the file system or the
object store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nkcore.errors import DataError
from nkcore.io import load_json

__all__ = ["ID_PATTERN", "MAX_NAME", "META_MAX_BYTES", "Damaged", "StoredDataset", "clean_name", "parse", "validate_id"]

ID_PATTERN = re.compile(r"[0-9a-f]{64}")
MAX_NAME = 200
# The size cap holds the largest description put() can write (``columns`` and ``mapping`` at the column and name
# limits) several times over.
META_MAX_BYTES = 16 << 20


@dataclass(frozen=True, slots=True)
class StoredDataset:
    """Metadata of a stored dataset: ``id`` (sha256 hex of the table), ``kind``, ``name`` (e.g. the uploaded file's
    name), ``n_rows``, ``columns`` (canonical names), ``mapping`` (canonical -> the original file's column),
    ``created`` (ISO 8601 UTC time of the first store), ``derived_from`` (ids of the datasets a derived dataset was
    made from, e.g. predictions and ratings for derived paired results; empty for an upload)."""

    id: str
    kind: str
    name: str
    n_rows: int
    columns: tuple[str, ...]
    mapping: dict[str, str] = field(default_factory=dict)
    created: str = ""
    derived_from: tuple[str, ...] = ()


def validate_id(ds_id: str) -> str:
    """Return ``ds_id`` if it is exactly 64 lowercase hex characters (a sha256), else raise DataError.

    Pure string check, no file access: path separators, ``..``, control characters, upper case, other lengths and
    non-strings are all refused. The message shows at most 20 characters of the bad id, escaped.

    >>> validate_id("0" * 64) == "0" * 64
    True
    >>> validate_id("../../etc/passwd")
    Traceback (most recent call last):
    nkcore.errors.DataError: not a valid dataset id: '../../etc/passwd' (expected 64 lowercase hex characters, a sha256)
    """
    if not isinstance(ds_id, str) or len(ds_id) != 64 or not ID_PATTERN.fullmatch(ds_id):
        shown = (
            repr(ds_id[:20] + ("..." if len(ds_id) > 20 else "")) if isinstance(ds_id, str) else type(ds_id).__name__
        )
        raise DataError(f"not a valid dataset id: {shown} (expected 64 lowercase hex characters, a sha256)")
    return ds_id


def clean_name(name: str) -> str:
    """A display name as stored: printable characters only, stripped, at most 200 characters, never empty.

    >>> clean_name("pilot\\nratings"), clean_name("   ")
    ('pilot ratings', 'dataset')
    """
    text = "".join(ch if ch.isprintable() else " " for ch in str(name)).strip()
    return (text or "dataset")[:MAX_NAME]


class Damaged(ValueError):
    """A description (``<id>.json``) that put() cannot have written; the message says what is wrong in it."""


def _whole(value: object, what: str) -> int:
    """``value`` if it is a JSON whole number >= 0 (not a bool, a float or a string), else Damaged."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Damaged(f"{what} is not a whole number >= 0")
    return value


def _texts(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Damaged(f"{what} is not a list of names")
    return value


def parse(data: bytes, name: str, max_bytes: int | None = None) -> StoredDataset:
    """The description ``data`` (the bytes of the file ``name``) as written by put(); Damaged for anything else.

    ``data`` over ``max_bytes`` (default :data:`META_MAX_BYTES`) is refused unparsed (the caller reads at most one
    byte more than that), then :func:`nkcore.io.load_json` parses it (nesting depth scanned before parsing, invalid
    JSON refused), then each field is checked for its type: ``n_rows`` a whole number (``1e400`` parses as
    infinity), ``columns`` a list of names, ``mapping`` an object of names.

    >>> parse(b'{"id": "' + b"0" * 64 + b'", "kind": "ratings", "name": "x", "n_rows": 2, "columns": []}', "x").n_rows
    2
    >>> parse(b'{"n_rows": 1e400}', "x")
    Traceback (most recent call last):
    nkcore.store.meta.Damaged: no columns, id, kind, name
    """
    limit = META_MAX_BYTES if max_bytes is None else max_bytes
    if len(data) > limit:
        raise Damaged(f"over {limit >> 20} MiB")
    try:
        raw = load_json(data, name, max_bytes=limit)
    except DataError as exc:
        raise Damaged(str(exc).removeprefix(f"{name}: ")) from None
    if not isinstance(raw, dict):
        raise Damaged("not a JSON object")
    fields = {"id", "kind", "name", "n_rows", "columns"}
    if not fields <= raw.keys():
        raise Damaged(f"no {', '.join(sorted(fields - raw.keys()))}")
    mapping = raw.get("mapping") or {}
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise Damaged("mapping is not an object of names")
    if not all(isinstance(raw[key], str) for key in ("id", "kind", "name")):
        raise Damaged("id, kind or name is not text")
    derived = raw.get("derived_from") or []
    return StoredDataset(
        id=validate_id(raw["id"]),
        kind=raw["kind"],
        name=raw["name"],
        n_rows=_whole(raw["n_rows"], "n_rows"),
        columns=tuple(_texts(raw["columns"], "columns")),
        mapping=dict(mapping),
        created=str(raw.get("created", "")),
        derived_from=tuple(validate_id(i) for i in _texts(derived, "derived_from")),
    )
