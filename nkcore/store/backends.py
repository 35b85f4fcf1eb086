"""Where the store's files live: a local folder, or an object store reached through fsspec (``s3://``, ``gs://``...).

Both backends offer the same few operations on names relative to the store's root (``<id>.json``,
``<id>.parquet``, ``deleted/<id>.json``), with the same promise: a name holds nothing or a complete file.

- :class:`LocalBackend` writes a temporary file in the same folder, fsyncs it and moves it into place with
  ``os.replace`` (atomic on POSIX), then fsyncs the folder.
- :class:`RemoteBackend` writes the file to a local temporary file and uploads it in one ``put_file``: an object
  store's PUT (and a multipart upload's completion) is atomic, so readers see the old object, or none, or the whole
  new one. fsspec and the backend's library (s3fs, gcsfs, adlfs) are imported only when a URL is used, so a local
  store costs no import. Credentials and the endpoint come from the backend's standard environment variables
  (for S3: ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_DEFAULT_REGION``, ``AWS_ENDPOINT_URL_S3`` or
  ``AWS_ENDPOINT_URL``, honoured by botocore >= 1.31 and so by s3fs), never from the URL.

A store that cannot be reached (connection refused, timeout, DNS) raises :class:`Unreachable` (a
``ConnectionError``, so an ``OSError``); after one such failure the backend answers :class:`Unreachable` at once for
:data:`RETRY_AFTER_S` seconds instead of waiting on the network again for every listing of every page.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

__all__ = [
    "RETRY_AFTER_S",
    "STALE_TMP_S",
    "TMP_SUFFIX",
    "Backend",
    "LocalBackend",
    "NoCredentials",
    "RemoteBackend",
    "Unreachable",
    "is_url",
    "open_backend",
]

TMP_SUFFIX = ".tmp"
STALE_TMP_S = 3600.0  # a temporary file this old was left by a crashed write; the next put removes it
RETRY_AFTER_S = 3.0
_LOCAL_TMP_PREFIX = "nkp-store-"  # a remote write's local temporary file, in the system's temporary folder
# The network libraries whose errors mean "the store did not answer" (connection, timeout, DNS, TLS).
_NETWORK_MODULES = ("botocore", "aiobotocore", "aiohttp", "urllib3", "requests", "google", "azure", "asyncio")

T = TypeVar("T")


class Unreachable(ConnectionError):
    """The object store did not answer (refused, timed out, unknown host); the message says what was tried."""


def is_url(root: str) -> bool:
    """Whether ``root`` names an object store (``scheme://...``) rather than a local folder.

    >>> is_url("s3://team-bucket/nkp"), is_url("/srv/nkp"), is_url("file:///srv/nkp")
    (True, False, False)
    """
    scheme, sep, _ = root.partition("://")
    return bool(sep) and scheme.lower() not in ("", "file", "local")


class Backend:
    """The operations the store needs, on names relative to its root; :class:`LocalBackend` and
    :class:`RemoteBackend` implement them."""

    location: str
    remote: bool = False

    def exists(self, name: str) -> bool:
        """Whether ``name`` holds a file."""
        raise NotImplementedError

    def read(self, name: str, limit: int) -> bytes:
        """At most ``limit`` bytes of ``name`` (FileNotFoundError when absent)."""
        raise NotImplementedError

    def read_parquet(self, name: str) -> pd.DataFrame:
        """The Parquet file ``name`` as a frame (FileNotFoundError when absent)."""
        raise NotImplementedError

    def write(self, name: str, write: Callable[[str], object]) -> None:
        """Atomically place at ``name`` the file that ``write(path)`` writes at a local temporary ``path``."""
        raise NotImplementedError

    def remove(self, name: str) -> None:
        """Remove ``name`` (FileNotFoundError when absent; an object store may not say)."""
        raise NotImplementedError

    def listing(self) -> dict[str, str | None]:
        """Every file at the top of the store: name -> a stamp that changes when the file does (an ETag), or None
        when the backend has none worth caching on (the local folder, cheap to read again); {} for no store."""
        raise NotImplementedError

    def prepare(self) -> None:
        """Make the store writable before a put: create the local folder, sweep stale temporary files."""
        raise NotImplementedError


def _sweep(folder: Path, pattern: str, max_age_s: float) -> None:
    """Remove temporary files left by writes that crashed more than ``max_age_s`` ago (never a live write's)."""
    now = time.time()
    for tmp in folder.glob(pattern):
        with contextlib.suppress(OSError):
            if now - tmp.stat().st_mtime > max_age_s:
                tmp.unlink()


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


class LocalBackend(Backend):
    """The store as a folder on this machine's disk (the default; ``file://`` URLs too)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.location = str(base)

    def exists(self, name: str) -> bool:
        return (self.base / name).is_file()

    def read(self, name: str, limit: int) -> bytes:
        with open(self.base / name, "rb") as fh:
            return fh.read(limit)

    def read_parquet(self, name: str) -> pd.DataFrame:
        return pd.read_parquet(self.base / name)

    def write(self, name: str, write: Callable[[str], object]) -> None:
        """Via a temporary file in the same folder, fsynced, ``os.replace``-d into place, the folder fsynced.

        Readers see the old file or the complete new one, never a partial one; concurrent writers of the same
        content (two uploads of one file) each replace a complete file with another complete, identical one.
        """
        path = self.base / name
        if path.parent != self.base:
            path.parent.mkdir(exist_ok=True)  # deleted/, the tombstones
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:12]}-", suffix=TMP_SUFFIX)
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

    def remove(self, name: str) -> None:
        (self.base / name).unlink()

    def listing(self) -> dict[str, str | None]:
        if not self.base.is_dir():
            return {}
        return {p.name: None for p in self.base.iterdir()}

    def prepare(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        _sweep(self.base, f".*{TMP_SUFFIX}", STALE_TMP_S)


def _is_network_error(exc: BaseException) -> bool:
    if isinstance(exc, TimeoutError | ConnectionError):
        return not isinstance(exc, Unreachable)
    if isinstance(exc, OSError):
        return False  # FileNotFoundError, PermissionError, ENOSPC...: the store answered
    module = type(exc).__module__.split(".")[0]
    return module in _NETWORK_MODULES


_CREDENTIAL_ERRORS = ("NoCredentialsError", "PartialCredentialsError", "CredentialRetrievalError")


class NoCredentials(PermissionError):
    """The object store was reached but this server has no (or incomplete) credentials for it: not an outage, so
    never reported as one (botocore's ``NoCredentialsError`` and kin)."""


class RemoteBackend(Backend):
    """The store under a URL, through fsspec (``s3://bucket/prefix``, ``gs://``, ``az://``...)."""

    remote = True

    def __init__(self, url: str) -> None:
        self.location = url.rstrip("/")
        self._fs: Any = None
        self._path = ""
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._down_reason = ""

    def filesystem(self) -> tuple[Any, str]:
        """The fsspec filesystem and the store's root path in it (made on first use)."""
        with self._lock:
            if self._fs is None:
                import fsspec  # only an object-store deployment pays for this import

                scheme = self.location.split("://", 1)[0].lower()
                # another server's upload must show at once: no listings cache; and this store's own client (the
                # endpoint is read from the environment when the client is made)
                options: dict[str, Any] = {"use_listings_cache": False, "skip_instance_cache": True}
                if scheme in ("s3", "s3a"):
                    options["config_kwargs"] = {
                        "connect_timeout": 3,
                        "read_timeout": 60,
                        "retries": {"max_attempts": 2, "mode": "standard"},
                    }
                self._fs, self._path = fsspec.core.url_to_fs(self.location, **options)
            return self._fs, self._path.rstrip("/")

    def _call(self, what: str, action: Callable[[Any, str], T]) -> T:
        """Run ``action(fs, root path)``; network failures become :class:`Unreachable` (and fail fast for a while)."""
        now = time.monotonic()
        if now < self._down_until:
            raise Unreachable(self._down_reason)
        try:
            fs, path = self.filesystem()
            return action(fs, path)
        except BaseException as exc:
            if type(exc).__name__ in _CREDENTIAL_ERRORS:
                raise NoCredentials(f"{self.location}: {type(exc).__name__}: {exc}"[:300]) from None
            if not _is_network_error(exc):
                raise
            self._down_reason = f"{self.location} did not answer ({what}: {type(exc).__name__}: {exc})"[:300]
            self._down_until = time.monotonic() + RETRY_AFTER_S
            raise Unreachable(self._down_reason) from None

    def exists(self, name: str) -> bool:
        return self._call("exists", lambda fs, p: bool(fs.isfile(f"{p}/{name}")))

    def read(self, name: str, limit: int) -> bytes:
        return self._call("read", lambda fs, p: bytes(fs.cat_file(f"{p}/{name}", start=0, end=limit)))

    def read_parquet(self, name: str) -> pd.DataFrame:
        data = self._call("read", lambda fs, p: bytes(fs.cat_file(f"{p}/{name}")))
        return pd.read_parquet(io.BytesIO(data))

    def write(self, name: str, write: Callable[[str], object]) -> None:
        """Write to a local temporary file, then upload it in one atomic ``put_file``; the temporary file is
        removed whatever happens (those of a killed process are swept an hour later)."""
        folder = Path(tempfile.gettempdir())
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=_LOCAL_TMP_PREFIX, suffix=TMP_SUFFIX)
        os.close(fd)
        try:
            write(tmp)
            self._call("write", lambda fs, p: fs.put_file(tmp, f"{p}/{name}"))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    def remove(self, name: str) -> None:
        self._call("delete", lambda fs, p: fs.rm_file(f"{p}/{name}"))

    def listing(self) -> dict[str, str | None]:
        def ls(fs: Any, path: str) -> dict[str, str | None]:
            try:
                entries = fs.ls(path, detail=True)
            except FileNotFoundError:
                return {}
            out: dict[str, str | None] = {}
            for entry in entries:
                if entry.get("type") == "file":
                    stamp = entry.get("ETag") or entry.get("etag") or entry.get("md5Hash") or entry.get("mtime")
                    out[str(entry["name"]).rstrip("/").rsplit("/", 1)[-1]] = f"{stamp}:{entry.get('size')}"
            return out

        return self._call("list", ls)

    def prepare(self) -> None:
        _sweep(Path(tempfile.gettempdir()), f"{_LOCAL_TMP_PREFIX}*{TMP_SUFFIX}", STALE_TMP_S)


_BACKENDS: dict[str, RemoteBackend] = {}
_BACKENDS_LOCK = threading.Lock()


def open_backend(root: Path | str) -> Backend:
    """The backend of ``root``: a :class:`RemoteBackend` for a URL (one per URL per process, so its connections and
    its fail-fast state are shared by every page), else a :class:`LocalBackend` (``file://`` stripped)."""
    if isinstance(root, str) and is_url(root):
        key = root.strip().rstrip("/")
        with _BACKENDS_LOCK:
            backend = _BACKENDS.get(key)
            if backend is None:
                backend = _BACKENDS[key] = RemoteBackend(key)
            return backend
    text = str(root)
    if text.lower().startswith("file://"):
        text = text[len("file://") :]
    return LocalBackend(Path(text).expanduser())
