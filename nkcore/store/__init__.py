"""Content-addressed storage of accepted datasets: ``<store>/<sha256>.parquet`` + ``<sha256>.json``.

The store is ``$NKP_DATA_DIR``: a local folder (the default, ``./data``) or an object-store URL
(``s3://bucket/prefix``, ``gs://``, ``az://``: whatever fsspec supports), so several app servers behind one
address can share one store (:mod:`nkcore.store.backends`).

The id of a dataset is :func:`nkcore.io.fingerprint` of its canonical table, so the same table always gets the
same id (storing it twice is a no-op) and a link carrying the id finds the same data after a restart, or on
another server of the same store. Each file is written atomically (a local temporary file moved into place with
``os.replace``, or one object PUT), the Parquet first and the metadata last, so a dataset is listed only once it is
complete.

A store that cannot be written (read-only: ``PermissionError``, ``EROFS``, an object store's AccessDenied; full:
``ENOSPC``, ``EDQUOT``) gives a one-line :class:`DataError` saying so, and the write removes what it had begun: no
temporary file, no data file without its metadata. A store that does not answer gives :class:`StoreUnreachable`
(a DataError), within a deadline: every call to an object store is bounded (``$NKP_STORE_DEADLINE_S``, 5 s;
``$NKP_STORE_TABLE_DEADLINE_S``, 30 s, for a table) and, once one failed, refused at once until a probe finds the
store answering again (:mod:`nkcore.store.backends`), so a frozen store costs a page at most one deadline. Listing shows only ids whose metadata and data are both in place, so a crash at any moment (even
``kill -9`` between the two files) leaves the earlier datasets listed and intact and the interrupted one absent.

Ids come from URLs, i.e. from anyone: :func:`validate_id` accepts exactly 64 lowercase hex characters and runs
before any path or object key is built, so ``../../etc/passwd`` and friends never reach the file system.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import threading
from dataclasses import asdict, replace
from pathlib import Path

import pandas as pd

from nkcore.errors import DataError
from nkcore.io import fingerprint, load_json
from nkcore.kinds import KINDS
from nkcore.store import meta as _meta
from nkcore.store.backends import Backend, NoCredentials, Unreachable, is_url, open_backend
from nkcore.store.faults import ENV_VAR, StoreUnreachable, storage_fault
from nkcore.store.faults import no_credentials as _no_credentials
from nkcore.store.faults import storage_faults as _storage_faults
from nkcore.store.faults import unreachable as _unreachable
from nkcore.store.meta import StoredDataset, validate_id

__all__ = [
    "DELETE_ENV_VAR",
    "ENV_VAR",
    "StoreUnreachable",
    "StoredDataset",
    "data_dir",
    "delete",
    "delete_allowed",
    "deleted_at",
    "get",
    "is_shared",
    "list_datasets",
    "put",
    "rename",
    "storage_fault",
    "validate_id",
]

DELETE_ENV_VAR = "NKP_ALLOW_DELETE"
_TOMBSTONES = "deleted"  # <store>/deleted/<id>.json: what was deleted and when, so a link can say so


def data_dir() -> Path | str:
    """The store: ``$NKP_DATA_DIR`` if set (a folder, or a URL such as ``s3://bucket/prefix``, kept as text), else
    ``<current directory>/data`` (ignored by git).

    >>> data_dir().is_absolute()
    True
    """
    value = os.environ.get(ENV_VAR, "").strip()
    if value and is_url(value):
        return value
    return Path(value).expanduser() if value else Path.cwd() / "data"


def is_shared(root: Path | str | None = None) -> bool:
    """Whether the store is an object store (a URL), i.e. possibly shared by several app servers.

    >>> is_shared("s3://bucket/nkp"), is_shared("/srv/nkp")
    (True, False)
    """
    return open_backend(_root(root)).remote


def _root(root: Path | str | None) -> Path | str:
    return root if root is not None else data_dir()


def _write(backend: Backend, name: str, text: str | None = None, frame: pd.DataFrame | None = None) -> None:
    """Write ``text`` (UTF-8) or ``frame`` (Parquet) atomically at ``name`` (one seam for the fault tests)."""
    if frame is not None:
        backend.write(name, lambda tmp: frame.to_parquet(tmp, index=False))
    else:
        backend.write(name, lambda tmp: Path(tmp).write_text(text or "", encoding="utf-8"))


def _read_meta(backend: Backend, name: str) -> StoredDataset:
    """The description ``name`` (at most META_MAX_BYTES + 1 bytes are read); meta.Damaged for a damaged one."""
    limit = _meta.META_MAX_BYTES
    return _meta.parse(backend.read(name, limit + 1), name, limit)


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
    stored as text (which does not change the fingerprint). Writes ``<id>.parquet`` then ``<id>.json``, each
    atomically. The first store's name and time are kept on repeats.

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
    backend = open_backend(_root(root))
    meta_name, data_name = f"{ds_id}.json", f"{ds_id}.parquet"
    with _storage_faults():
        if backend.exists(meta_name) and backend.exists(data_name):
            try:
                return _read_meta(backend, meta_name)
            except (ValueError, KeyError, TypeError, DataError, FileNotFoundError):
                pass  # a damaged metadata file (or one deleted meanwhile): rewrite it below
        backend.prepare()
        had_data = backend.exists(data_name)
    meta = StoredDataset(
        id=ds_id,
        kind=kind,
        name=_meta.clean_name(name),
        n_rows=len(table),
        columns=tuple(table.columns),
        mapping={str(k): str(v) for k, v in (mapping or {}).items()},
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        derived_from=sources,
    )
    text = json.dumps(asdict(meta), ensure_ascii=False, indent=2)
    try:
        with _storage_faults():
            _write(backend, data_name, frame=table)
            _write(backend, meta_name, text=text)
            if not backend.exists(data_name):
                # a concurrent put of the same table failed after our data write and removed "its" data file
                # (the same bytes): place it again, so the metadata never points at nothing
                _write(backend, data_name, frame=table)
    except BaseException:
        # the data file this call placed, without its metadata
        with contextlib.suppress(OSError):
            if not had_data and not backend.exists(meta_name):
                backend.remove(data_name)
        raise
    with contextlib.suppress(OSError):  # stored again: a link to it works again
        backend.remove(f"{_TOMBSTONES}/{ds_id}.json")
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
    new = replace(meta, name=_meta.clean_name(name))
    text = json.dumps(asdict(new), ensure_ascii=False, indent=2)
    with _storage_faults("rename datasets"):
        _write(open_backend(_root(root)), f"{meta.id}.json", text=text)
    return new


def delete_allowed() -> bool:
    """Whether this server lets users delete datasets: only when ``$NKP_ALLOW_DELETE`` is ``1`` (a deletion breaks
    every link that carries the dataset's id, so a shared server keeps it off)."""
    return os.environ.get(DELETE_ENV_VAR, "").strip() == "1"


def deleted_at(ds_id: str, root: Path | str | None = None) -> str | None:
    """When the dataset ``ds_id`` was deleted from this store (ISO 8601 UTC), or None if it never was (or was
    stored again since, or the store cannot say). The id is validated before any file access."""
    name = f"{_TOMBSTONES}/{validate_id(ds_id)}.json"
    try:
        raw = load_json(open_backend(_root(root)).read(name, 4096), name.rsplit("/", 1)[-1])
    except (OSError, DataError):
        return None
    when = raw.get("deleted") if isinstance(raw, dict) else None
    return when if isinstance(when, str) else None


def get(ds_id: str, root: Path | str | None = None) -> tuple[StoredDataset, pd.DataFrame]:
    """The metadata and table of a stored dataset; DataError "no dataset <id> on this server" when absent,
    :class:`StoreUnreachable` when the store does not answer.

    The id is validated before any file access.
    """
    ds_id = validate_id(ds_id)
    backend = open_backend(_root(root))
    absent = f"no dataset {ds_id} on this server (it was deleted, or the link comes from another server)"
    try:
        meta = _read_meta(backend, f"{ds_id}.json")
        frame = backend.read_parquet(f"{ds_id}.parquet")
    except FileNotFoundError:  # never stored, deleted, or deleted between the two reads
        raise DataError(absent) from None
    except Unreachable as exc:
        raise _unreachable(exc) from None
    except NoCredentials as exc:
        raise StoreUnreachable(f"the server cannot read dataset {ds_id}: {_no_credentials(exc)}") from None
    except _meta.Damaged as exc:
        raise DataError(
            f"dataset {ds_id} on this server is damaged and cannot be read (its description: {exc})"
        ) from None
    except PermissionError:
        raise DataError(
            f"the server cannot read dataset {ds_id}: its store refuses access (give the server read access to "
            f"${ENV_VAR})"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(
            f"dataset {ds_id} on this server is damaged and cannot be read ({type(exc).__name__})"
        ) from None
    if meta.id != ds_id or len(frame) != meta.n_rows:
        raise DataError(f"dataset {ds_id} on this server is damaged and cannot be read (its files do not match)")
    return meta, frame


# An object store's descriptions, by (store, name, ETag): one LIST per listing, and a GET only for a new or changed
# description (a rename rewrites it, so its ETag changes). A local folder is read again each time (it is cheap).
_DESCRIBED: dict[tuple[str, str, str], StoredDataset | None] = {}
_DESCRIBED_MAX = 20_000
_DESCRIBED_LOCK = threading.Lock()


def _describe(backend: Backend, name: str, stamp: str | None) -> StoredDataset | None:
    key = (backend.location, name, stamp or "")
    if stamp is not None:
        with _DESCRIBED_LOCK:
            if key in _DESCRIBED:
                return _DESCRIBED[key]
    try:
        meta: StoredDataset | None = _read_meta(backend, name)
    except Unreachable:
        raise
    except (OSError, ValueError, KeyError, TypeError, DataError):
        meta = None
    if stamp is not None and meta is not None:
        with _DESCRIBED_LOCK:
            if len(_DESCRIBED) >= _DESCRIBED_MAX:
                _DESCRIBED.clear()
            _DESCRIBED[key] = meta
    return meta


def list_datasets(
    kind: str | None = None, root: Path | str | None = None, *, strict: bool = False
) -> list[StoredDataset]:
    """Every complete stored dataset (optionally of one ``kind``), newest first; damaged entries are skipped, and so
    are the temporary files of writes in progress or crashed (``.<id>-*.tmp``).

    A store that does not answer (within the short deadline, or at once while it is known to be down) lists as
    empty, or raises :class:`StoreUnreachable` with ``strict=True`` (the dataset choosers, which say so on the
    page). Listing also sweeps the temporary files of writes that died (at most every 30 s)."""
    backend = open_backend(_root(root))
    try:
        names = backend.listing()
        out = []
        for name, stamp in names.items():
            stem, _, ext = name.rpartition(".")
            if ext != "json" or not _meta.ID_PATTERN.fullmatch(stem) or f"{stem}.parquet" not in names:
                continue
            meta = _describe(backend, name, stamp)
            if meta is not None and meta.id == stem and (kind is None or meta.kind == kind):
                out.append(meta)
    except Unreachable as exc:
        if strict:
            raise _unreachable(exc) from None
        return []
    except NoCredentials as exc:
        if strict:
            raise StoreUnreachable(f"the server cannot list its datasets: {_no_credentials(exc)}") from None
        return []
    return sorted(out, key=lambda m: (m.created, m.id), reverse=True)


def delete(ds_id: str, root: Path | str | None = None) -> None:
    """Remove a stored dataset (metadata first, so it stops being listed at once); DataError if it is absent.

    A tombstone ``deleted/<id>.json`` records when, so a link to it can say so (:func:`deleted_at`). Whether users
    may delete is the caller's check (:func:`delete_allowed`).
    """
    ds_id = validate_id(ds_id)
    backend = open_backend(_root(root))
    meta_name, data_name = f"{ds_id}.json", f"{ds_id}.parquet"
    with _storage_faults("delete datasets"):
        if not backend.exists(meta_name) and not backend.exists(data_name):
            raise DataError(f"no dataset {ds_id} on this server")
        stone = {"id": ds_id, "deleted": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        for name in (meta_name, data_name):
            with contextlib.suppress(FileNotFoundError):
                backend.remove(name)
        _write(backend, f"{_TOMBSTONES}/{ds_id}.json", text=json.dumps(stone))
