"""Shared test set-up: paths, the shared validation data, and an isolated data directory for every test."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import logging
import os
import sys
import tempfile
import unittest.mock
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATASETS = SHARED / "datasets"
SAMPLE_DIR = ROOT / "sample_data"

settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_configure(config: pytest.Config) -> None:
    """Costs of third-party test machinery that a test process would pay again and again: the same results, less
    CPU."""
    _scan_components_once()
    _apptest_waits_on_its_thread()
    _one_botocore_loader()


def _scan_components_once() -> None:
    """Streamlit's AppTest scans the metadata of every installed distribution for v2 components each time a new
    AppTest runs (about 0.45 s of CPU: some 170 METADATA files parsed with the email parser), half of an average
    AppTest's cost. The installed packages do not change during a test run, so the scan runs once per process and
    each AppTest gets a copy of its result (the same components registered as before)."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # another Streamlit: nothing to keep
        return
    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "__wrapped__", None) is not None:
        return
    once = functools.cache(scan)

    @functools.wraps(scan)
    def scan_once(max_workers: int | None = None) -> list[Any]:
        return list(once(max_workers))

    manifest_scanner.scan_component_manifests = scan_once


def _apptest_waits_on_its_thread() -> None:
    """AppTest waits for a script run by polling every millisecond for the run's end (``require_widgets_deltas``),
    and each wake-up takes the GIL from the script's own thread: about 5 % of the AppTest tests' CPU. Here it waits
    on the script's thread instead, then checks the same end event (and fails the same way when the run does not
    end within the timeout); the run is joined afterwards either way, as before."""
    try:
        from streamlit.testing.v1 import local_script_runner as lsr
    except ImportError:  # another Streamlit: nothing to change
        return
    poll = getattr(lsr, "require_widgets_deltas", None)
    if poll is None or getattr(poll, "__wrapped__", None) is not None:
        return

    @functools.wraps(poll)
    def wait_for_the_run(runner: Any, timeout: float = 3) -> None:
        thread = getattr(runner, "_script_thread", None)
        if thread is None:  # not the runner this was written for: Streamlit's own wait
            poll(runner, timeout)
            return
        thread.join(timeout)
        if runner.script_stopped():
            return
        runner.request_stop()
        runner.join()
        raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")

    lsr.require_widgets_deltas = wait_for_the_run


def _one_botocore_loader() -> None:
    """Every S3 test stores into a bucket of its own, so a store URL, a backend and an S3 session of its own; each new
    botocore session made a new data loader, which read and parsed botocore's service model and endpoint files again
    (about 0.2 s of CPU per test: the S3 store tests took 24 s of CPU instead of 10). The loader only reads those
    files of the installed botocore, read-only data, so one loader per process serves every session (botocore's
    clients of one session share it the same way); each session still resolves its own credentials and endpoint."""
    try:
        import botocore.session
    except ImportError:  # no S3 support installed: the S3 tests skip
        return
    create = botocore.session.create_loader
    if getattr(create, "__wrapped__", None) is None:
        botocore.session.create_loader = functools.cache(create)  # type: ignore[attr-defined]


# Modules whose tests must run in one pytest-xdist worker (``make test`` runs ``-n <cores> --dist loadgroup``), each
# with the reason: a module-level result gathered across its tests. Kept together by the scheduler below: xdist's own
# ``xdist_group`` mark has no effect with pytest 9 (xdist 3.8 appends the group to ``item._nodeid``, which pytest 9
# no longer reads: ``Node.nodeid`` comes from ``Node._id``), so every test would be its own scope.
ONE_WORKER = {
    "tests/test_shared_datasets.py": "writes its Markdown table once every file's test has run in the same process",
}


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the xdist_group markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``shared`` skip when ``../shared/datasets`` is absent (the product never needs it).

    Under pytest-xdist (in a worker): the modules holding a ``slow`` or ``browser`` test come first, in their order:
    the workers share out the long tests first and end on short ones (no worker left finishing a long test alone).
    The modules of :data:`ONE_WORKER` stay on one worker through :func:`pytest_xdist_make_scheduler`."""
    if hasattr(config, "workerinput"):
        module_of = {id(item): item.nodeid.split("::", 1)[0] for item in items}
        long = {module_of[id(i)] for i in items if "slow" in i.keywords or "browser" in i.keywords}
        items.sort(key=lambda item: module_of[id(item)] not in long)  # stable: the order within is kept
    if DATASETS.is_dir():
        return
    skip = pytest.mark.skip(reason="../shared/datasets is absent")
    for item in items:
        if "shared" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup``: xdist's load-group scheduler, each module of :data:`ONE_WORKER` one scope (sent whole to
    one worker), every other test its own scope (load balancing as ``--dist load``)."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class OneWorkerModules(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in ONE_WORKER else super()._split_scope(nodeid)

    return OneWorkerModules(config, log)


# -------------------------------------------------------------------- pytest-xdist: what workers report at the end

_FUZZ_WARNINGS = "nkp_fuzz_warnings"


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker: hand the fuzz suite's warnings of successful CLI runs to the controller, which prints
    them (``tests/fuzz/conftest.py`` lists them at the end of a run in one process)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and "tests.fuzz.strategies" in sys.modules:
        workeroutput[_FUZZ_WARNINGS] = sorted(sys.modules["tests.fuzz.strategies"].WARNINGS_ON_SUCCESS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """In the xdist controller: gather the fuzz warnings each worker handed over (into the fuzz suite's own set when
    the controller loaded ``tests/fuzz/conftest.py``, e.g. ``pytest -n 2 tests/fuzz``: that conftest prints them)."""
    warnings = getattr(node, "workeroutput", {}).get(_FUZZ_WARNINGS, ())
    fuzz = sys.modules.get("tests.fuzz.strategies")
    (fuzz.WARNINGS_ON_SUCCESS if fuzz is not None else _WORKER_FUZZ_WARNINGS).update(warnings)


_WORKER_FUZZ_WARNINGS: set[str] = set()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """In the xdist controller, when it did not load ``tests/fuzz/conftest.py``: the fuzz warnings of every worker,
    as that conftest prints them at the end of a run in one process."""
    if _WORKER_FUZZ_WARNINGS:
        terminalreporter.section("fuzz: warnings printed by successful CLI runs")
        for line in sorted(_WORKER_FUZZ_WARNINGS)[:50]:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own NKP_DATA_DIR, so no test writes into the project's data/ folder."""
    path = tmp_path_factory.mktemp("nkp_data")
    monkeypatch.setenv("NKP_DATA_DIR", str(path))
    return path


def _sample_file(name: str) -> Path:
    """A file of sample_data/: it is part of the repository, so a missing one fails the oracle tests (no skip)."""
    path = SAMPLE_DIR / name
    assert path.exists(), f"sample_data/{name} is missing: run `make sample-data`"
    return path


def sign_flip_p(diff: Any) -> float:
    """Exact two-sided sign-flip p of mean(diff) = 0, the oracle of the tests: the law of the signed sum on the
    differences' common denominator by convolution (exhaustive over the 2^n sign patterns, grouped by their sum),
    P(|S| >= |sum k_i|)."""
    import math
    from fractions import Fraction

    import numpy as np

    d = [Fraction(float(x)).limit_denominator(10**5) for x in diff]
    lcm = math.lcm(*(f.denominator for f in d))
    k = [int(f * lcm) for f in d]
    total = sum(abs(v) for v in k)
    pmf = np.zeros(2 * total + 1)
    pmf[total] = 1.0
    for v in k:
        if v:
            pmf = 0.5 * (np.roll(pmf, v) + np.roll(pmf, -v))
    return float(pmf[np.abs(np.arange(-total, total + 1)) >= abs(sum(k)) - 1e-9].sum())


def holm_oracle(pvalues: Any) -> Any:
    """statsmodels' Holm-adjusted p-values, ``multipletests(pvalues, method="holm")[1]``: the oracle of the Holm
    tests. statsmodels ends its Holm step with a full ``gc.collect()``, which costs a test process that holds many
    objects a lot (156 ms a call with 1.6 million objects alive; 24 s of a ``make test`` under a profiler); that
    collection is skipped here (``gc.collect`` is a no-op for the call), the numbers are statsmodels' own."""
    from statsmodels.stats.multitest import multipletests

    with unittest.mock.patch.object(gc, "collect", lambda *args: 0):
        return multipletests(list(pvalues), method="holm")[1]


@pytest.fixture(scope="session")
def worked_samples_path() -> Path:
    """The chapter's worked example as raw samples (200 cases x 7 samples, with latencies)."""
    return _sample_file("worked_example_samples.csv")


@pytest.fixture(scope="session")
def worked_paired_path() -> Path:
    """The chapter's worked example as paired results (200 cases, configs n=1, 3, 5, 7)."""
    return _sample_file("worked_example_paired.csv")


@pytest.fixture
def worked_frame(worked_samples_path: Path) -> pd.DataFrame:
    """A fresh frame of the worked example's raw samples (tests may modify it)."""
    return pd.read_csv(worked_samples_path)


@pytest.fixture
def worked_paired_frame(worked_paired_path: Path) -> pd.DataFrame:
    """A fresh frame of the worked example's paired results."""
    return pd.read_csv(worked_paired_path)


@pytest.fixture(scope="session")
def inspect_epoch_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The weak and strong real inspect_ai logs of :func:`tests.inspect_logs.epoch_pair` (60 cases x 3 epochs),
    written once per run (some 5-10 s of inspect_ai): under pytest-xdist by the first worker that asks, while the
    others wait on a file lock and then read the same files. Tests only read them."""
    pytest.importorskip("inspect_ai")
    import fcntl
    import json

    from tests.inspect_logs import epoch_pair

    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "inspect_epoch_pair"
    with open(f"{root}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        written = root / "logs.json"
        if not written.exists():
            root.mkdir(exist_ok=True)
            written.write_text(json.dumps([str(p) for p in epoch_pair(root)]))
        weak, strong = json.loads(written.read_text())
    return Path(weak), Path(strong)


# ---------------------------------------------------------------- the store on a local folder and on S3 (moto)


class StoreLink:
    """A loopback TCP relay in front of a server: ``url`` reaches it until :meth:`cut` (the listening port refuses
    and every open connection is closed: a store that no longer answers), and again after :meth:`restore`."""

    def __init__(self, target_port: int) -> None:
        import socket
        import threading

        self._socket, self._threading = socket, threading
        self.target_port = target_port
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port: int = probe.getsockname()[1]
        probe.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self._conns: list[Any] = []
        self._listener: Any = None
        self.restore()

    def restore(self) -> None:
        """Accept connections again, on the same port."""
        lst = self._socket.socket()
        lst.setsockopt(self._socket.SOL_SOCKET, self._socket.SO_REUSEADDR, 1)
        lst.bind(("127.0.0.1", self.port))
        lst.listen(64)
        self._listener = lst
        self._threading.Thread(target=self._accept, args=(lst,), daemon=True).start()

    def _accept(self, lst: Any) -> None:
        while True:
            try:
                client, _ = lst.accept()
            except OSError:
                return
            upstream = self._socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
            upstream.settimeout(None)
            self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                self._threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: Any, dst: Any) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.close()

    def cut(self) -> None:
        """Refuse new connections and close the open ones."""
        with contextlib.suppress(OSError):
            self._listener.close()
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.shutdown(self._socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                conn.close()
        self._conns.clear()


S3_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """An S3-compatible server (moto's server mode) on a free loopback port for the session: its base URL.

    moto comes from requirements-dev.txt; without it the S3 tests skip (and fail under CI=true)."""
    try:
        from moto.server import ThreadedMotoServer
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(
                "moto[server] is not installed (requirements-dev.txt); under CI=true the S3 tests are mandatory"
            )
        pytest.skip("moto[server] is not installed (requirements-dev.txt)")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def new_bucket(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point this process (and its children) at ``endpoint`` with the standard AWS variables, create a fresh bucket
    there and return its store URL ``s3://<bucket>/nkp``."""
    import uuid

    import boto3

    for key, value in {**S3_ENV, "AWS_ENDPOINT_URL_S3": endpoint}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    bucket = f"nkp-{uuid.uuid4().hex[:16]}"
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    return f"s3://{bucket}/nkp"


@dataclasses.dataclass
class StoreRoot:
    """A store for one test, on the local disk (``kind == "local"``) or in a fresh moto bucket (``"s3"``), with the
    few file operations the store tests need on either: names at the top, reading and writing one file, the
    temporary files of writes, and faults injected where each backend places or removes a file."""

    kind: str
    root: Path | str
    tmp_dir: Path  # where the store's temporary files are: the folder itself, or the local temp dir of an S3 store

    def _fs(self) -> Any:
        from nkcore.store import backends

        backend = backends.open_backend(self.root)
        assert isinstance(backend, backends.RemoteBackend)
        return backend.filesystem()

    def sub(self, name: str) -> Path | str:
        """Another store inside this one (``<root>/<name>``)."""
        return self.root / name if isinstance(self.root, Path) else f"{self.root}/{name}"

    def names(self) -> list[str]:
        """The names at the top of the store (files and folders), sorted."""
        if isinstance(self.root, Path):
            return sorted(p.name for p in self.root.iterdir()) if self.root.is_dir() else []
        fs, path = self._fs()
        fs.invalidate_cache()
        try:
            return sorted(str(e["name"]).rstrip("/").rsplit("/", 1)[-1] for e in fs.ls(path, detail=True))
        except FileNotFoundError:
            return []

    def read_bytes(self, name: str) -> bytes:
        if isinstance(self.root, Path):
            return (self.root / name).read_bytes()
        fs, path = self._fs()
        return bytes(fs.cat_file(f"{path}/{name}"))

    def write_bytes(self, name: str, data: bytes) -> None:
        if isinstance(self.root, Path):
            (self.root / name).write_bytes(data)
        else:
            fs, path = self._fs()
            fs.pipe_file(f"{path}/{name}", data)

    def read_text(self, name: str) -> str:
        return self.read_bytes(name).decode("utf-8")

    def write_text(self, name: str, text: str) -> None:
        self.write_bytes(name, text.encode("utf-8"))

    def tmp_files(self) -> list[Path]:
        """Temporary files of writes in progress or crashed (``.<id>-*.tmp`` in the folder; ``nkp-store-*.tmp`` in
        the local temp dir of an S3 store, which never holds one itself)."""
        if isinstance(self.root, Path):
            return sorted(self.root.glob(".*.tmp"))
        assert not [n for n in self.names() if n.endswith(".tmp")]
        return sorted(self.tmp_dir.glob("nkp-store-*.tmp"))

    def fail_place(self, monkeypatch: pytest.MonkeyPatch, target: str, exc: OSError) -> None:
        """Placing a file whose name ends with ``target`` raises ``exc`` (``os.replace``; an S3 ``put_file``)."""
        from nkcore.store import backends

        if isinstance(self.root, Path):
            real = os.replace

            def replace(src: str | Path, dst: str | Path) -> None:
                if str(dst).endswith(target):
                    raise exc
                real(src, dst)

            monkeypatch.setattr(backends.os, "replace", replace)
            return
        fs, _ = self._fs()
        real_put = fs.put_file

        def put_file(lpath: str, rpath: str, *args: Any, **kwargs: Any) -> Any:
            if str(rpath).endswith(target):
                raise exc
            return real_put(lpath, rpath, *args, **kwargs)

        monkeypatch.setattr(fs, "put_file", put_file)

    def fail_remove(self, monkeypatch: pytest.MonkeyPatch, exc: OSError) -> None:
        """Removing a file raises ``exc`` (``Path.unlink``; an S3 ``rm_file``)."""

        def refuse(*args: object, **kwargs: object) -> None:
            raise exc

        if isinstance(self.root, Path):
            monkeypatch.setattr(Path, "unlink", refuse)
        else:
            monkeypatch.setattr(self._fs()[0], "rm_file", refuse)

    def env(self) -> dict[str, str]:
        """The environment of a child process using this store (NKP_DATA_DIR, and the temp dir of an S3 store)."""
        env = {**os.environ, "NKP_DATA_DIR": str(self.root), "PYTHONPATH": str(ROOT)}
        if not isinstance(self.root, Path):
            env["TMPDIR"] = str(self.tmp_dir)
        return env


@pytest.fixture(params=["local", "s3"])
def store_root(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StoreRoot:
    """The store of one test: a fresh local folder, then a fresh bucket on the session's moto server (the same
    test, parametrised: the store keeps its promises on both)."""
    if request.param == "local":
        return StoreRoot("local", tmp_path, tmp_path)
    url = new_bucket(request.getfixturevalue("s3_endpoint"), monkeypatch)
    local_tmp = tmp_path / "tmp"
    local_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(local_tmp))  # this test's remote writes' local temporary files
    return StoreRoot("s3", url, local_tmp)
