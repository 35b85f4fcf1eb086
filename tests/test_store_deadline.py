"""nkcore.store against an object store that accepts connections and stops answering (issue 52): a moto server of
this module's own, in a subprocess on a loopback port, frozen with SIGSTOP and thawed with SIGCONT.

Every call returns or raises :class:`store.StoreUnreachable` within its deadline (plus a small slack, measured and
printed: run with ``-s``), the breaker refuses calls at once while the store is known down and probes it again in
the background, an upload cut by the deadline leaves no dataset a reader could see half of, and once thawed everything
stored is intact and listed. The deadlines are short here (1 s, 2 s for a table) unless ``NKP_STORE_DEADLINE_S`` /
``NKP_STORE_TABLE_DEADLINE_S`` are set around the run (``docs/deploy.md`` measures the defaults that way).

Also: the bounded pool of a filesystem without an event loop, and the sweep of a killed writer's temporary file."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from nkcore import store
from nkcore.errors import DataError
from nkcore.io import fingerprint
from nkcore.store import backends
from nkcore.store import deadline as store_deadline
from nkcore.store import tmpfiles as store_tmpfiles

ROOT = Path(__file__).resolve().parents[1]
S3_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
DEADLINE = float(os.environ.get(backends.DEADLINE_ENV_VAR) or 1.0)
TABLE_DEADLINE = float(os.environ.get(backends.TABLE_DEADLINE_ENV_VAR) or 2.0)
SLACK = 4.0  # two shared cores under a full test run: scheduling, the client's set-up, the event loop's hand-over (a frozen store hung 100 s and more before)
FAST = 1.0  # a call refused by the breaker (0.00 s measured on an idle machine)
RETRY = 0.5  # the breaker's interval in these tests

EARLIER = pd.DataFrame({"item": ["1", "1", "2"], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]})
NEW = pd.DataFrame({"item": [str(i) for i in range(500)], "rater": ["a"] * 500, "label": ["z", "w"] * 250})


class Moto:
    """A moto S3 server in a subprocess of this module (not the session's threaded one: that one cannot be frozen
    without freezing the tests)."""

    def __init__(self) -> None:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stop = time.monotonic() + 30
        while time.monotonic() < stop:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.close()
        pytest.skip("moto's server did not start (moto[server] from requirements-dev.txt)")

    def freeze(self) -> None:
        os.kill(self.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.proc.pid, signal.SIGCONT)

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        self.freeze()
        try:
            yield
        finally:
            self.thaw()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.proc.pid, signal.SIGCONT)
        self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def moto() -> Iterator[Moto]:
    pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    server = Moto()
    yield server
    server.close()


@pytest.fixture
def url(moto: Moto, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """A fresh bucket on the module's server, short deadlines and breaker interval, and this test's own local
    temporary folder (the remote writes' temporary files)."""
    import boto3

    for key, value in {**S3_ENV, "AWS_ENDPOINT_URL_S3": moto.endpoint}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv(backends.DEADLINE_ENV_VAR, str(DEADLINE))
    monkeypatch.setenv(backends.TABLE_DEADLINE_ENV_VAR, str(TABLE_DEADLINE))
    monkeypatch.setattr(store_deadline, "RETRY_AFTER_S", RETRY)
    local_tmp = tmp_path / "tmp"
    local_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(local_tmp))
    bucket = f"nkp-{uuid.uuid4().hex[:16]}"
    boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    return f"s3://{bucket}/nkp"


def _fresh(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget this process's backend of ``url`` (a new server, or one whose breaker never tripped)."""
    monkeypatch.setattr(backends, "_BACKENDS", {k: v for k, v in backends._BACKENDS.items() if k != url})


def _timed(call: Callable[[], object]) -> tuple[float, BaseException | None]:
    start = time.monotonic()
    try:
        call()
    except BaseException as exc:  # the caller checks what was raised
        return time.monotonic() - start, exc
    return time.monotonic() - start, None


def _unreachable(call: Callable[[], object], limit: float, label: str, match: str = "did not answer within") -> float:
    """``call`` raises StoreUnreachable (one line, saying so) within ``limit`` seconds; its duration."""
    took, exc = _timed(call)
    print(f"\n  {label}: {type(exc).__name__} after {took:.2f} s (limit {limit:.2f} s)")
    assert isinstance(exc, store.StoreUnreachable), exc
    assert match in str(exc) and "\n" not in str(exc), str(exc)
    assert took <= limit, f"{label}: {took:.2f} s > {limit:.2f} s"
    return took


def _readable(url: str, expected: dict[str, pd.DataFrame]) -> None:
    """Every dataset of ``expected`` is listed and reads back whole; whatever else is listed reads back whole too."""
    listed = {m.id: m for m in store.list_datasets(root=url, strict=True)}
    assert set(expected) <= set(listed)
    for ds_id, meta in listed.items():
        got, frame = store.get(ds_id, root=url)
        assert got == meta and fingerprint(frame) == ds_id and len(frame) == meta.n_rows
    for ds_id, frame in expected.items():
        pd.testing.assert_frame_equal(store.get(ds_id, root=url)[1], frame)


def _after_thaw(url: str) -> None:
    """Wait for the breaker's probe to find the store answering again."""
    stop = time.monotonic() + 10 + RETRY
    while time.monotonic() < stop:
        time.sleep(RETRY)
        with contextlib.suppress(store.StoreUnreachable):
            store.list_datasets(root=url, strict=True)
            return
    raise AssertionError("the store did not come back after SIGCONT")


# ---------------------------------------------------------------- every call within its deadline


@pytest.mark.parametrize("op", ["list", "get", "put", "delete", "rename"])
def test_each_call_on_a_frozen_store_ends_within_its_deadline(
    moto: Moto, url: str, monkeypatch: pytest.MonkeyPatch, op: str
) -> None:
    """The first call after the freeze waits at most the short deadline (every one of these starts with a small
    request: the listing, a description, an existence check) and says the store did not answer; nothing is lost."""
    monkeypatch.setenv(store.DELETE_ENV_VAR, "1")
    earlier = store.put(EARLIER, "ratings", "a.csv", root=url)
    calls: dict[str, Callable[[], object]] = {
        "list": lambda: store.list_datasets(root=url, strict=True),
        "get": lambda: store.get(earlier.id, root=url),
        "put": lambda: store.put(NEW, "ratings", "new.csv", root=url),
        "delete": lambda: store.delete(earlier.id, root=url),
        "rename": lambda: store.rename(earlier.id, "renamed", root=url),
    }
    _fresh(url, monkeypatch)  # a server that never saw the store fail: no breaker open yet
    threads = threading.active_count()
    with moto.frozen():
        _unreachable(calls[op], DEADLINE + SLACK, f"{op} (cold)")
        _unreachable(calls[op], FAST, f"{op} (breaker open)")
        took, listed = _timed(lambda: store.list_datasets(root=url))
        assert listed is None and took <= FAST  # the lenient listing of the pages: [] at once
        assert store.list_datasets(root=url) == []
        assert threading.active_count() <= threads + 1  # at most the breaker's one probe: nothing piles up
    _after_thaw(url)
    _readable(url, {earlier.id: EARLIER} if op not in ("delete",) else {})
    if op == "delete":  # the removal may have gone through when thawed: either gone or whole
        assert store.list_datasets(root=url) in ([], [earlier])
    if op == "put":
        assert not list(Path(tempfile.gettempdir()).glob("nkp-store-*.tmp"))


def test_the_breaker_refuses_at_once_and_probes_in_the_background(
    moto: Moto, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the store is known down every call is refused at once; after the interval one probe asks again (a call
    arriving then waits at most PROBE_WAIT_S), and once the store answers the next call goes through."""
    earlier = store.put(EARLIER, "ratings", "a.csv", root=url)
    backend = backends.open_backend(url)
    assert isinstance(backend, backends.RemoteBackend)
    with moto.frozen():
        _unreachable(lambda: store.get(earlier.id, root=url), DEADLINE + SLACK, "get (cold)")
        assert backend.down
        for _ in range(20):
            _unreachable(lambda: store.list_datasets(root=url, strict=True), FAST, "list (breaker open)")
        time.sleep(RETRY)
        threads = threading.active_count()
        _unreachable(
            lambda: store.list_datasets(root=url, strict=True),
            backends.PROBE_WAIT_S + FAST,
            "list (breaker probing)",
        )
        for _ in range(5):  # the probe is still waiting on the frozen store: no second one
            _unreachable(lambda: store.get(earlier.id, root=url), FAST, "get (probe in flight)")
        assert threading.active_count() <= threads + 1
    _after_thaw(url)
    assert not backend.down
    _readable(url, {earlier.id: EARLIER})


# ---------------------------------------------------------------- an upload cut by the deadline


@pytest.mark.parametrize("at", [".parquet", ".json"])
def test_an_upload_the_store_stops_answering_leaves_no_half_dataset(
    moto: Moto, url: str, monkeypatch: pytest.MonkeyPatch, at: str
) -> None:
    """The store freezes just before the table's PUT (then the table deadline applies) or just before the
    description's (the short one): the upload says it may not be stored, within that deadline. A reader never sees
    part of it: after the thaw (a request the frozen store had already received may still be carried out then) the
    new dataset is either not listed, and "no dataset", or listed and whole; the earlier one is intact."""
    earlier = store.put(EARLIER, "ratings", "a.csv", root=url)
    real = store._write

    def freezing(backend: backends.Backend, name: str, *args: Any, **kwargs: Any) -> None:
        if name.endswith(at):
            moto.freeze()
        real(backend, name, *args, **kwargs)

    monkeypatch.setattr(store, "_write", freezing)
    limit = (TABLE_DEADLINE if at == ".parquet" else DEADLINE) + SLACK
    try:
        _unreachable(
            lambda: store.put(NEW, "ratings", "new.csv", root=url),
            limit,
            f"put frozen at its {at}",
            match="so the dataset may not be stored (a reader sees all of it or none of it)",
        )
        took, listed = _timed(lambda: store.list_datasets(root=url))
        assert listed is None and took <= FAST
    finally:
        moto.thaw()
    monkeypatch.setattr(store, "_write", real)
    assert not list(Path(tempfile.gettempdir()).glob("nkp-store-*.tmp"))
    time.sleep(0.5)  # the requests the frozen server had taken in are carried out now
    _after_thaw(url)
    new_id = fingerprint(NEW)
    _readable(url, {earlier.id: EARLIER})
    landed = new_id in {m.id for m in store.list_datasets(root=url)}
    print(f"  after the thaw, the upload cut at its {at} is {'listed, whole' if landed else 'not listed'}")
    if not landed:
        with pytest.raises(DataError, match="no dataset"):
            store.get(new_id, root=url)
    assert store.put(NEW, "ratings", "new.csv", root=url).id == new_id  # and again, now it answers
    _readable(url, {earlier.id: EARLIER, new_id: NEW})


# ---------------------------------------------------------------- the deadline itself, and the pool


def test_the_deadline_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(backends.DEADLINE_ENV_VAR, "2.5")
    monkeypatch.setenv(backends.TABLE_DEADLINE_ENV_VAR, "90")
    assert (backends.deadline(), backends.deadline(table=True)) == (2.5, 90.0)
    for bad, expected in (("soon", 5.0), ("nan", 5.0), ("-3", 0.1), ("1e9", 600.0), ("", 5.0)):
        monkeypatch.setenv(backends.DEADLINE_ENV_VAR, bad)
        assert backends.deadline() == expected


class _SlowFS:
    """A filesystem without an event loop whose listing waits until released."""

    async_impl = False

    def __init__(self) -> None:
        self.release = threading.Event()

    def ls(self, path: str, detail: bool = True) -> list[dict[str, Any]]:
        self.release.wait(30)
        return []


def test_a_filesystem_without_an_event_loop_runs_in_a_bounded_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stuck call keeps one worker until it ends, the caller waits only its deadline, and once every worker is
    taken calls are refused at once (no thread piles up); released, the pool serves again."""
    monkeypatch.setenv(backends.DEADLINE_ENV_VAR, "0.3")
    fs = _SlowFS()
    backend = backends.RemoteBackend("memory://nkp-slow")
    monkeypatch.setattr(backend, "filesystem", lambda: (fs, "nkp-slow"))
    threads = threading.active_count()
    try:
        for _ in range(backends.POOL_WORKERS):
            took, exc = _timed(lambda: backend._run("list", lambda f, p, **kw: f.ls(p, **kw)))
            assert isinstance(exc, backends.TimedOut) and 0.25 <= took <= 0.3 + SLACK
        took, exc = _timed(lambda: backend._run("list", lambda f, p, **kw: f.ls(p, **kw)))
        assert isinstance(exc, backends.TimedOut) and "every store worker" in str(exc) and took <= FAST
        assert threading.active_count() == threads + backends.POOL_WORKERS
    finally:
        fs.release.set()
    stop = time.monotonic() + 5
    while threading.active_count() > threads and time.monotonic() < stop:
        time.sleep(0.02)
    assert backend._run("list", lambda f, p, **kw: f.ls(p, **kw)) == []


# ---------------------------------------------------------------- kill -9 during a write: its temporary file


def test_a_killed_writers_temporary_file_is_swept_by_the_next_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer holds its temporary file's lock: a listing never removes it, however old it looks. Killed (-9) in
    the middle of its Parquet write, the lock goes with it, and the next listing removes the file once it is
    TMP_GRACE_S old (here backdated; a file younger than that is kept: it could be a write just starting)."""
    monkeypatch.setattr(store_tmpfiles, "SWEEP_EVERY_S", 0.0)
    writer = (
        "import sys, time, pandas as pd; from nkcore import store\n"
        "def stuck(self, path, **kw):\n"
        "    open(path, 'wb').write(b'PAR1 half'); print('writing', flush=True); time.sleep(60)\n"
        "pd.DataFrame.to_parquet = stuck\n"
        "store.put(pd.DataFrame({'item': ['1'], 'rater': ['a'], 'label': ['x']}), 'ratings', 'r.csv')\n"
    )
    env = {**os.environ, store.ENV_VAR: str(tmp_path), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", writer], env=env, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"writing"
        [tmp] = tmp_path.glob(".*.tmp")
        old = time.time() - backends.TMP_GRACE_S - 60
        os.utime(tmp, (old, old))
        assert store.list_datasets(root=tmp_path) == [] and tmp.exists()  # locked: a live write
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        young = tmp_path / ".0123456789ab-young.tmp"
        young.write_bytes(b"")
        os.utime(tmp, (old, old))
        assert store.list_datasets(root=tmp_path) == []
        assert not tmp.exists() and young.exists()
    finally:
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
