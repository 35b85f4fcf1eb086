"""Content-addressed storage of accepted datasets: ``<data dir>/<sha256>.parquet`` + ``<sha256>.json``.

The id of a dataset is :func:`nkcore.io.fingerprint` of its canonical table, so the same table always gets the
same id (storing it twice is a no-op) and a link carrying the id finds the same data after a restart. Each file
is written to a temporary file in the same directory and moved into place with ``os.replace`` (atomic on POSIX),
the Parquet first and the metadata last, so a dataset is listed only once it is complete.

A data folder that cannot be written (read-only: ``PermissionError``, ``EROFS``; full: ``ENOSPC``, ``EDQUOT``)
gives a one-line :class:`DataError` saying so, and the write removes what it had begun: no temporary file, no data
file without its metadata. Listing shows only ids whose metadata and data are both in place, so a crash at any
moment (even ``kill -9`` between the two files) leaves the earlier datasets listed and intact and the interrupted
one absent.

Ids come from URLs, i.e. from anyone: :func:`validate_id` accepts exactly 64 lowercase hex characters and runs
before any path is built, so ``../../etc/passwd`` and friends never reach the file system.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import pandas as pd

from nkcore.errors import DataError
from nkcore.io import fingerprint, load_json
from nkcore.kinds import KINDS

__all__ = [
    "DELETE_ENV_VAR",
    "ENV_VAR",
    "StoredDataset",
    "data_dir",
    "delete",
    "delete_allowed",
    "deleted_at",
    "get",
    "list_datasets",
    "put",
    "rename",
    "storage_fault",
    "validate_id",
]

ENV_VAR = "NKP_DATA_DIR"
DELETE_ENV_VAR = "NKP_ALLOW_DELETE"
_TOMBSTONES = "deleted"  # <data dir>/deleted/<id>.json: what was deleted and when, so a link can say so
_ID = re.compile(r"[0-9a-f]{64}")
_MAX_NAME = 200
_TMP_SUFFIX = ".tmp"
_STALE_TMP_S = 3600.0  # a temporary file this old was left by a crashed write; the next put removes it


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


def data_dir() -> Path:
    """The data directory: ``$NKP_DATA_DIR`` if set, else ``<current directory>/data`` (ignored by git).

    >>> data_dir().is_absolute()
    True
    """
    value = os.environ.get(ENV_VAR, "").strip()
    return Path(value).expanduser() if value else Path.cwd() / "data"


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
    if not isinstance(ds_id, str) or len(ds_id) != 64 or not _ID.fullmatch(ds_id):
        shown = (
            repr(ds_id[:20] + ("..." if len(ds_id) > 20 else "")) if isinstance(ds_id, str) else type(ds_id).__name__
        )
        raise DataError(f"not a valid dataset id: {shown} (expected 64 lowercase hex characters, a sha256)")
    return ds_id


_READ_ONLY = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def storage_fault(exc: OSError, action: str = "save datasets") -> DataError | None:
    """The user-facing DataError for a data folder that is read-only or full, or None for any other OSError.

    >>> import errno
    >>> str(storage_fault(OSError(errno.ENOSPC, "No space left on device"))).split(";")[0]
    'the server cannot save datasets: its data folder is full'
    >>> storage_fault(OSError(errno.EIO, "I/O error")) is None
    True
    """
    if isinstance(exc, PermissionError) or exc.errno in _READ_ONLY:
        state, fix = "read-only", f"make ${ENV_VAR} writable by the server"
    elif exc.errno in _FULL:
        state, fix = "full", f"free some space in ${ENV_VAR}"
    else:
        return None
    if action == "save datasets":
        outcome = "the dataset was not stored; earlier datasets are unaffected"
    else:
        outcome = "nothing was deleted"
    return DataError(f"the server cannot {action}: its data folder is {state}; {outcome} ({fix})")


@contextlib.contextmanager
def _storage_faults(action: str = "save datasets") -> Iterator[None]:
    """Turn a read-only or full data folder into :func:`storage_fault`'s DataError; other errors pass through."""
    try:
        yield
    except OSError as exc:
        err = storage_fault(exc, action)
        if err is None:
            raise
        raise err from None


def _root(root: Path | str | None) -> Path:
    return Path(root) if root is not None else data_dir()


def _atomic_write(path: Path, write: Callable[[str], object]) -> None:
    """Write via a temporary file in the same directory, fsync it, ``os.replace`` it into place, fsync the directory.

    Readers see the old file or the complete new one, never a partial one; concurrent writers of the same content
    (two uploads of one file) each replace a complete file with another complete, identical one.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:12]}-", suffix=_TMP_SUFFIX)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    """Make a rename durable across a power cut (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _sweep_stale_tmp(base: Path, max_age_s: float = _STALE_TMP_S) -> None:
    """Remove temporary files left by writes that crashed more than ``max_age_s`` ago (never a live write's)."""
    now = time.time()
    for tmp in base.glob(f".*{_TMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            if now - tmp.stat().st_mtime > max_age_s:
                tmp.unlink()


def _clean_name(name: str) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in str(name)).strip()
    return (text or "dataset")[:_MAX_NAME]


# The size cap holds the largest description put() can write (``columns`` and ``mapping`` at the column and name
# limits) several times over.
_META_MAX_BYTES = 16 << 20


class _Damaged(ValueError):
    """A description (``<id>.json``) that put() cannot have written; the message says what is wrong in it."""


def _whole(value: object, what: str) -> int:
    """``value`` if it is a JSON whole number >= 0 (not a bool, a float or a string), else _Damaged."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Damaged(f"{what} is not a whole number >= 0")
    return value


def _texts(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Damaged(f"{what} is not a list of names")
    return value


def _read_meta(path: Path) -> StoredDataset:
    """The description ``<id>.json`` as written by put(); _Damaged (a ValueError) for anything else.

    The file is checked for size before it is read, then parsed by :func:`nkcore.io.load_json` (nesting depth
    scanned before parsing, invalid JSON refused), then each field for its type: ``n_rows`` a whole number
    (``1e400`` parses as infinity), ``columns`` a list of names, ``mapping`` an object of names.
    """
    if path.stat().st_size > _META_MAX_BYTES:
        raise _Damaged(f"over {_META_MAX_BYTES >> 20} MiB")
    try:
        raw = load_json(path.read_bytes(), path.name, max_bytes=_META_MAX_BYTES)
    except DataError as exc:
        raise _Damaged(str(exc).removeprefix(f"{path.name}: ")) from None
    if not isinstance(raw, dict):
        raise _Damaged("not a JSON object")
    fields = {"id", "kind", "name", "n_rows", "columns"}
    if not fields <= raw.keys():
        raise _Damaged(f"no {', '.join(sorted(fields - raw.keys()))}")
    mapping = raw.get("mapping") or {}
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise _Damaged("mapping is not an object of names")
    if not all(isinstance(raw[key], str) for key in ("id", "kind", "name")):
        raise _Damaged("id, kind or name is not text")
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


def put(
    frame: pd.DataFrame,
    kind: str,
    name: str,
    mapping: dict[str, str] | None = None,
    root: Path | str | None = None,
    derived_from: tuple[str, ...] = (),
) -> StoredDataset:
    """Store ``frame`` under ``fingerprint(frame)`` and return its metadata; storing the same table again is a no-op.

    ``derived_from``: the ids of the datasets a derived table was made from (each a valid id), kept in the metadata.

    ``frame`` should be the canonical table (``nkcore.kinds.apply_mapping``); columns of mixed Python types are
    stored as text (which does not change the fingerprint). Writes ``<id>.parquet`` then ``<id>.json``, each via a
    temporary file and ``os.replace``. The first store's name and time are kept on repeats.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> put(pd.DataFrame({"item": ["1", "2"]}), "ratings", "x.csv", root=d).n_rows
    2
    """
    if kind not in KINDS:
        raise DataError(f"unknown data kind {kind!r}; choose one of {', '.join(KINDS)}")
    sources = tuple(validate_id(i) for i in derived_from)
    table = frame.reset_index(drop=True).copy()
    table.columns = [str(c) for c in table.columns]
    for col in table.columns:
        if table[col].dtype == object:
            table[col] = (
                table[col].map(lambda v: v if v is None or v != v else str(v), na_action="ignore").astype("str")
            )
    ds_id = fingerprint(table)
    base = _root(root)
    meta_path = base / f"{ds_id}.json"
    data_path = base / f"{ds_id}.parquet"
    if meta_path.is_file() and data_path.is_file():
        try:
            return _read_meta(meta_path)
        except (ValueError, KeyError, TypeError, DataError):
            pass  # a damaged metadata file: rewrite it below
    with _storage_faults():
        base.mkdir(parents=True, exist_ok=True)
    _sweep_stale_tmp(base)
    meta = StoredDataset(
        id=ds_id,
        kind=kind,
        name=_clean_name(name),
        n_rows=len(table),
        columns=tuple(table.columns),
        mapping={str(k): str(v) for k, v in (mapping or {}).items()},
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        derived_from=sources,
    )
    text = json.dumps(asdict(meta), ensure_ascii=False, indent=2)
    had_data = data_path.is_file()
    try:
        with _storage_faults():
            _atomic_write(data_path, lambda tmp: table.to_parquet(tmp, index=False))
            _atomic_write(meta_path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except BaseException:
        if not had_data and not meta_path.exists():  # the data file this call placed, without its metadata
            with contextlib.suppress(OSError):
                data_path.unlink()
        raise
    with contextlib.suppress(OSError):  # stored again: a link to it works again
        (base / _TOMBSTONES / f"{ds_id}.json").unlink()
    return meta


def rename(ds_id: str, name: str, root: Path | str | None = None) -> StoredDataset:
    """Give a stored dataset a new display name; its id (and so every link to it) stays the same.

    The name is cleaned as on put (printable, at most 200 characters); the metadata is rewritten atomically.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> m = put(pd.DataFrame({"item": ["1"]}), "ratings", "x.csv", root=d)
    >>> rename(m.id, "pilot ratings", root=d).name, get(m.id, root=d)[0].name
    ('pilot ratings', 'pilot ratings')
    """
    meta, _ = get(ds_id, root)
    new = replace(meta, name=_clean_name(name))
    text = json.dumps(asdict(new), ensure_ascii=False, indent=2)
    with _storage_faults("rename datasets"):
        _atomic_write(_root(root) / f"{meta.id}.json", lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return new


def delete_allowed() -> bool:
    """Whether this server lets users delete datasets: only when ``$NKP_ALLOW_DELETE`` is ``1`` (a deletion breaks
    every link that carries the dataset's id, so a shared server keeps it off)."""
    return os.environ.get(DELETE_ENV_VAR, "").strip() == "1"


def deleted_at(ds_id: str, root: Path | str | None = None) -> str | None:
    """When the dataset ``ds_id`` was deleted from this server (ISO 8601 UTC), or None if it never was (or was
    stored again since). The id is validated before any file access."""
    path = _root(root) / _TOMBSTONES / f"{validate_id(ds_id)}.json"
    try:
        raw = load_json(path.read_bytes()[:4096], path.name)
    except (OSError, DataError):
        return None
    when = raw.get("deleted") if isinstance(raw, dict) else None
    return when if isinstance(when, str) else None


def get(ds_id: str, root: Path | str | None = None) -> tuple[StoredDataset, pd.DataFrame]:
    """The metadata and table of a stored dataset; DataError "no dataset <id> on this server" when absent.

    The id is validated before any file access.
    """
    ds_id = validate_id(ds_id)
    base = _root(root)
    meta_path = base / f"{ds_id}.json"
    data_path = base / f"{ds_id}.parquet"
    if not (meta_path.is_file() and data_path.is_file()):
        raise DataError(f"no dataset {ds_id} on this server (it was deleted, or the link comes from another server)")
    try:
        meta = _read_meta(meta_path)
        frame = pd.read_parquet(data_path)
    except FileNotFoundError:  # deleted between the check and the read
        raise DataError(f"no dataset {ds_id} on this server (it was deleted)") from None
    except _Damaged as exc:
        raise DataError(
            f"dataset {ds_id} on this server is damaged and cannot be read (its description: {exc})"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(
            f"dataset {ds_id} on this server is damaged and cannot be read ({type(exc).__name__})"
        ) from None
    if meta.id != ds_id or len(frame) != meta.n_rows:
        raise DataError(f"dataset {ds_id} on this server is damaged and cannot be read (its files do not match)")
    return meta, frame


def list_datasets(kind: str | None = None, root: Path | str | None = None) -> list[StoredDataset]:
    """Every complete stored dataset (optionally of one ``kind``), newest first; damaged entries are skipped, and so
    are the temporary files of writes in progress or crashed (``.<id>-*.tmp``)."""
    base = _root(root)
    if not base.is_dir():
        return []
    out = []
    for meta_path in base.glob("*.json"):
        if not _ID.fullmatch(meta_path.stem) or not (base / f"{meta_path.stem}.parquet").is_file():
            continue
        try:
            meta = _read_meta(meta_path)
        except (OSError, ValueError, KeyError, TypeError, DataError):
            continue
        if meta.id == meta_path.stem and (kind is None or meta.kind == kind):
            out.append(meta)
    return sorted(out, key=lambda m: (m.created, m.id), reverse=True)


def delete(ds_id: str, root: Path | str | None = None) -> None:
    """Remove a stored dataset (metadata first, so it stops being listed at once); DataError if it is absent.

    A tombstone ``deleted/<id>.json`` records when, so a link to it can say so (:func:`deleted_at`). Whether users
    may delete is the caller's check (:func:`delete_allowed`).
    """
    ds_id = validate_id(ds_id)
    base = _root(root)
    meta_path = base / f"{ds_id}.json"
    data_path = base / f"{ds_id}.parquet"
    if not meta_path.exists() and not data_path.exists():
        raise DataError(f"no dataset {ds_id} on this server")
    stone = {"id": ds_id, "deleted": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    with _storage_faults("delete datasets"):
        for path in (meta_path, data_path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        (base / _TOMBSTONES).mkdir(exist_ok=True)
        _atomic_write(base / _TOMBSTONES / f"{ds_id}.json", lambda tmp: Path(tmp).write_text(json.dumps(stone)))
