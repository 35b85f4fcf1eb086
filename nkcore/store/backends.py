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
``ConnectionError``, so an ``OSError``). Every call to an object store runs under an overall deadline
(:func:`deadline`: ``$NKP_STORE_DEADLINE_S``, 5 s, for listing, descriptions, existence checks, removals and small
writes; ``$NKP_STORE_TABLE_DEADLINE_S``, 30 s, for reading or writing a table) and raises :class:`TimedOut` (an
Unreachable) when it expires. The connect and read timeouts of botocore do not bound a call on their own: a frozen
server (alive, not answering) still accepts connections through the kernel's backlog, each attempt waits out the
read timeout, botocore retries, and s3fs retries botocore's retries (5 x 2 attempts x 60 s); so the deadline is
fsspec's own, ``timeout=`` on the synchronous call, which runs the coroutine on fsspec's event loop under
``asyncio.wait_for``: on expiry the request is cancelled (its connection closed) and the calling thread is free, no
thread left waiting. A filesystem without an event loop runs its calls in a small bounded pool of worker threads
(:data:`POOL_WORKERS`), the caller waiting at most the deadline; a call finding every worker stuck is refused at
once.

A circuit breaker: after a failure the backend refuses every call at once (the same Unreachable) for
:data:`RETRY_AFTER_S` seconds, then one probe (one small request under the short deadline, in a background thread)
asks the store again; the call that started it waits for it at most :data:`PROBE_WAIT_S` seconds (others are
refused at once), so a page never waits on a store known to be down, and the first call after the store answers
again goes through.

Temporary files of writes hold an exclusive ``flock`` while they are written, so a sweep (on every listing and
before every put; a listing at most every :data:`SWEEP_EVERY_S` seconds per folder; :data:`SWEEP_MAX` files each) removes those
of a writer that died (``kill -9``: the lock goes with the process) as soon as they are :data:`TMP_GRACE_S` seconds
old, and any older than :data:`STALE_TMP_S` (where locks are not supported).
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

from nkcore.store.deadline import (
    DEADLINE_ENV_VAR,
    DEADLINE_S,
    POOL_WORKERS,
    PROBE_WAIT_S,
    RETRY_AFTER_S,
    TABLE_DEADLINE_ENV_VAR,
    TABLE_DEADLINE_S,
    Breaker,
    TimedOut,
    Unreachable,
    deadline,
    in_pool,
    seconds_text,
)
from nkcore.store.tmpfiles import STALE_TMP_S, SWEEP_EVERY_S, SWEEP_MAX, TMP_GRACE_S, TMP_SUFFIX, sweep, tmp_file

T = TypeVar("T")

__all__ = [
    "DEADLINE_ENV_VAR",
    "DEADLINE_S",
    "POOL_WORKERS",
    "PROBE_WAIT_S",
    "RETRY_AFTER_S",
    "STALE_TMP_S",
    "SWEEP_EVERY_S",
    "SWEEP_MAX",
    "TABLE_DEADLINE_ENV_VAR",
    "TABLE_DEADLINE_S",
    "TMP_GRACE_S",
    "TMP_SUFFIX",
    "Backend",
    "LocalBackend",
    "NoCredentials",
    "RemoteBackend",
    "TimedOut",
    "Unreachable",
    "deadline",
    "is_url",
    "open_backend",
]

_LOCAL_TMP_PREFIX = "nkp-store-"  # a remote write's local temporary file, in the system's temporary folder
# The network libraries whose errors mean "the store did not answer" (connection, timeout, DNS, TLS).
_NETWORK_MODULES = ("botocore", "aiobotocore", "aiohttp", "urllib3", "requests", "google", "azure", "asyncio")


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
        with tmp_file(path.parent, f".{path.stem[:12]}-") as tmp:
            write(tmp)
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        _fsync_dir(path.parent)

    def remove(self, name: str) -> None:
        (self.base / name).unlink()

    def listing(self) -> dict[str, str | None]:
        if not self.base.is_dir():
            return {}
        sweep(self.base, f".*{TMP_SUFFIX}")
        return {p.name: None for p in self.base.iterdir()}

    def prepare(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        sweep(self.base, f".*{TMP_SUFFIX}", force=True)


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
        self._breaker = Breaker(self._probe)

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
                    # each attempt's own limits; the whole call (retries included) is bounded by deadline()
                    options["config_kwargs"] = {
                        "connect_timeout": 3,
                        "read_timeout": 60,
                        "retries": {"max_attempts": 2, "mode": "standard"},
                    }
                self._fs, self._path = fsspec.core.url_to_fs(self.location, **options)
            return self._fs, self._path.rstrip("/")

    @property
    def down(self) -> bool:
        """Whether this backend refuses calls now (the store failed and has not answered a probe since)."""
        return self._breaker.down

    def _run(self, what: str, action: Callable[..., T], table: bool = False) -> T:
        """``action(fs, root path, **limit)`` within :func:`deadline`: ``limit`` is ``{"timeout": seconds}`` for a
        filesystem on an event loop (fsspec cancels the coroutine when it expires), else the call runs in the
        bounded pool. Network failures become :class:`Unreachable`, an expired deadline :class:`TimedOut`."""
        seconds = deadline(table)
        start = time.monotonic()
        try:
            fs, path = self.filesystem()
            if getattr(fs, "async_impl", False) and getattr(fs, "loop", None) is not None:
                return action(fs, path, timeout=seconds)
            return in_pool(lambda: action(fs, path), seconds, self.location)
        except BaseException as exc:
            if type(exc).__name__ in _CREDENTIAL_ERRORS:
                raise NoCredentials(f"{self.location}: {type(exc).__name__}: {exc}"[:300]) from None
            if isinstance(exc, Unreachable):
                raise
            if not _is_network_error(exc):
                raise
            if time.monotonic() - start >= 0.95 * seconds:  # the deadline expired (fsspec's FSTimeoutError...)
                raise TimedOut(
                    f"{self.location} did not answer within {seconds_text(seconds)} s ({what})", seconds
                ) from None
            raise Unreachable(f"{self.location} did not answer ({what}: {type(exc).__name__}: {exc})"[:300]) from None

    def _call(self, what: str, action: Callable[..., T], table: bool = False) -> T:
        """:meth:`_run` behind the breaker: refused at once while the store is known down; a failure opens it."""
        self._breaker.check()
        try:
            return self._run(what, action, table)
        except Unreachable as exc:
            self._breaker.trip(exc)
            raise

    def _probe(self) -> None:
        """One small request (the metadata of a name that does not exist): the store answers, or Unreachable."""
        with contextlib.suppress(FileNotFoundError):
            self._run("probe", lambda fs, p, **kw: fs.info(f"{p}/.nkp-probe", **kw))

    def exists(self, name: str) -> bool:
        # fs.info, not fs.isfile: isfile answers False for any error, a cancelled (timed-out) call included
        def info(fs: Any, p: str, **kw: Any) -> bool:
            try:
                return bool(fs.info(f"{p}/{name}", **kw).get("type") == "file")
            except FileNotFoundError:
                return False

        return self._call("exists", info)

    def read(self, name: str, limit: int) -> bytes:
        return self._call("read", lambda fs, p, **kw: bytes(fs.cat_file(f"{p}/{name}", start=0, end=limit, **kw)))

    def read_parquet(self, name: str) -> pd.DataFrame:
        data = self._call("read", lambda fs, p, **kw: bytes(fs.cat_file(f"{p}/{name}", **kw)), table=True)
        return pd.read_parquet(io.BytesIO(data))

    def write(self, name: str, write: Callable[[str], object]) -> None:
        """Write to a local temporary file, then upload it in one atomic ``put_file`` (within the table deadline
        for a Parquet file, else the short one); the temporary file is removed whatever happens (one of a killed
        process is swept by the next listing or put)."""
        with tmp_file(Path(tempfile.gettempdir()), _LOCAL_TMP_PREFIX) as tmp:
            write(tmp)
            self._call(
                "write", lambda fs, p, **kw: fs.put_file(tmp, f"{p}/{name}", **kw), table=name.endswith(".parquet")
            )

    def remove(self, name: str) -> None:
        self._call("delete", lambda fs, p, **kw: fs.rm_file(f"{p}/{name}", **kw))

    def listing(self) -> dict[str, str | None]:
        sweep(Path(tempfile.gettempdir()), f"{_LOCAL_TMP_PREFIX}*{TMP_SUFFIX}")

        def ls(fs: Any, path: str, **kw: Any) -> dict[str, str | None]:
            try:
                entries = fs.ls(path, detail=True, **kw)
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
        sweep(Path(tempfile.gettempdir()), f"{_LOCAL_TMP_PREFIX}*{TMP_SUFFIX}", force=True)


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
