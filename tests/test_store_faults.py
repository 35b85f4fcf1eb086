"""nkcore.store under faults: a read-only or full data folder (simulated: the tests run as root, where chmod does
not stop writes), and ``kill -9`` of a process in the middle of storing a large dataset.

The tests that store run twice (``store_root``, tests/conftest.py): on a local folder, and on an S3 bucket of a moto
server on a loopback port (the faults injected where that backend places or removes a file: its ``put_file`` and
``rm_file``; the process killed during an upload is listed from this one, another server of the same store)."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from nkcore import store
from nkcore.errors import DataError
from nkcore.io import fingerprint
from nkcore.store import backends
from tests.conftest import StoreRoot

ROOT = Path(__file__).resolve().parents[1]
EARLIER = [
    pd.DataFrame({"item": ["1", "1", "2"], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]}),
    pd.DataFrame({"case": ["1", "1", "2", "2"], "config": ["p", "q", "p", "q"], "correct": [1, 0, 1, 1]}),
]
NEW = pd.DataFrame({"item": ["7", "8"], "rater": ["a", "a"], "label": ["z", "z"]})

READ_ONLY = [PermissionError(errno.EACCES, "Permission denied"), OSError(errno.EROFS, "Read-only file system")]
FULL = [OSError(errno.ENOSPC, "No space left on device"), OSError(errno.EDQUOT, "Disk quota exceeded")]


def _earlier(root: Path | str) -> dict[str, store.StoredDataset]:
    metas = [
        store.put(EARLIER[0], "ratings", "a.csv", root=root),
        store.put(EARLIER[1], "paired", "b.csv", root=root),
    ]
    return {m.id: m for m in metas}


def _assert_intact(where: StoreRoot, earlier: dict[str, store.StoredDataset]) -> None:
    """Exactly the earlier datasets are listed, each readable with its own fingerprint; no temp file is left."""
    listed = {m.id: m for m in store.list_datasets(root=where.root)}
    assert listed == earlier
    for ds_id in earlier:
        meta, frame = store.get(ds_id, root=where.root)
        assert meta == earlier[ds_id] and fingerprint(frame) == ds_id
    names = where.names()
    assert names == sorted([f"{i}.json" for i in earlier] + [f"{i}.parquet" for i in earlier])
    assert where.tmp_files() == []


@pytest.mark.parametrize("exc", READ_ONLY, ids=["EACCES", "EROFS"])
def test_read_only_folder_at_the_temporary_file(
    store_root: StoreRoot, monkeypatch: pytest.MonkeyPatch, exc: OSError
) -> None:
    earlier = _earlier(store_root.root)

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise exc

    monkeypatch.setattr(backends.tempfile, "mkstemp", refuse)
    with pytest.raises(DataError) as err:
        store.put(NEW, "ratings", "new.csv", root=store_root.root)
    msg = str(err.value)
    assert msg.startswith("the server cannot save datasets: its data folder is read-only; the dataset was not stored")
    assert "earlier datasets are unaffected" in msg and "\n" not in msg
    monkeypatch.undo()
    _assert_intact(store_root, earlier)


@pytest.mark.parametrize("exc", READ_ONLY + FULL, ids=["EACCES", "EROFS", "ENOSPC", "EDQUOT"])
@pytest.mark.parametrize("target", [".parquet", ".json"])
def test_a_fault_at_either_file_leaves_no_half_written_dataset(
    store_root: StoreRoot, monkeypatch: pytest.MonkeyPatch, exc: OSError, target: str
) -> None:
    """Failing on the metadata (the data file already in place) also removes that data file."""
    earlier = _earlier(store_root.root)
    store_root.fail_place(monkeypatch, target, exc)
    state = "full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "read-only"
    with pytest.raises(DataError, match=f"its data folder is {state}; the dataset was not stored"):
        store.put(NEW, "ratings", "new.csv", root=store_root.root)
    monkeypatch.undo()
    _assert_intact(store_root, earlier)
    assert store.put(NEW, "ratings", "new.csv", root=store_root.root).id == fingerprint(NEW)  # space again: it works


def test_disk_full_in_the_middle_of_the_parquet_write(store_root: StoreRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    earlier = _earlier(store_root.root)

    def half(self: pd.DataFrame, path: str, **kwargs: object) -> None:
        Path(path).write_bytes(b"PAR1 half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", half)
    with pytest.raises(DataError, match=r"is full; .* \(free some space in \$NKP_DATA_DIR\)$"):
        store.put(NEW, "ratings", "new.csv", root=store_root.root)
    monkeypatch.undo()
    _assert_intact(store_root, earlier)


def test_a_data_folder_that_cannot_be_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(DataError, match="read-only; the dataset was not stored"):
        store.put(NEW, "ratings", "new.csv", root=tmp_path / "data")
    assert not (tmp_path / "data").exists()


def test_delete_on_a_read_only_folder(store_root: StoreRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    earlier = _earlier(store_root.root)
    store_root.fail_remove(monkeypatch, PermissionError(errno.EACCES, "Permission denied"))
    with pytest.raises(DataError, match="cannot delete datasets: its data folder is read-only; nothing was deleted"):
        store.delete(next(iter(earlier)), root=store_root.root)
    monkeypatch.undo()
    _assert_intact(store_root, earlier)


def test_other_os_errors_are_not_disguised(store_root: StoreRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    """An I/O error is not 'read-only' or 'full': it propagates as it is (the page shows it as a failure)."""
    earlier = _earlier(store_root.root)
    store_root.fail_place(monkeypatch, ".parquet", OSError(errno.EIO, "Input/output error"))
    with pytest.raises(OSError, match="Input/output error") as err:
        store.put(NEW, "ratings", "new.csv", root=store_root.root)
    assert not isinstance(err.value, DataError)
    monkeypatch.undo()
    _assert_intact(store_root, earlier)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a 0o555 folder; the monkeypatched tests cover it")
def test_a_real_read_only_folder(tmp_path: Path) -> None:
    earlier = _earlier(tmp_path)
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(DataError, match="read-only"):
            store.put(NEW, "ratings", "new.csv", root=tmp_path)
    finally:
        tmp_path.chmod(0o755)
    _assert_intact(StoreRoot("local", tmp_path, tmp_path), earlier)


# ---------------------------------------------------------------- kill -9 in the middle of an upload

# Builds a 600,000-row table once, then for each line read ("run" or "pause") forks a writer that stores it: the
# writer prints "pid <its pid>" and "start", "writing <file>" as each of the two files starts and "placed <file>"
# once it is in place ("pause": it sleeps after the data file is in place, a crash between the two files), then
# "done <id>"; the parent prints "exit <wait status>" when the writer has ended. One interpreter, one import of
# pandas and nkcore and one table for the seven writes of a test (each writer a process of its own, killed alone).
WRITER = """
import os, sys, time, pandas as pd
from nkcore import store
n = 600_000
frame = pd.DataFrame({"item": [str(i // 5) for i in range(n)], "rater": [f"r{i % 97}" for i in range(n)],
                      "label": [("yes", "no", "maybe")[i % 3] for i in range(n)]})
real = store._write
mode = ["run"]
def traced(backend, name, **what):
    suffix = "." + name.rsplit(".", 1)[-1]
    print("writing", suffix, flush=True)
    real(backend, name, **what)
    print("placed", suffix, flush=True)
    if mode[0] == "pause" and suffix == ".parquet":
        time.sleep(60)
store._write = traced
for line in sys.stdin:
    mode[0] = line.strip()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            print("pid", os.getpid(), flush=True)
            print("start", flush=True)
            meta = store.put(frame, "ratings", "big.csv")
            print("done", meta.id, flush=True)
        finally:
            os._exit(0)
    print("exit", os.waitpid(pid, 0)[1], flush=True)
"""


class _Writers:
    """The WRITER process of one test: ``kill_during(marker, delay, mode)`` has it fork a writer and SIGKILLs that
    writer ``delay`` s after it prints ``marker``; returns what the writer printed."""

    def __init__(self, where: StoreRoot) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WRITER], env=where.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip

    def kill_during(self, marker: str, delay: float, mode: str = "run") -> list[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(mode + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        writer = 0
        for raw in self.proc.stdout:
            line = raw.strip()
            if line.startswith("exit "):  # the writer has ended: killed (SIGKILL) or done (0)
                status = int(line.split()[1])
                assert os.waitstatus_to_exitcode(status) in (-signal.SIGKILL, 0), status
                return [x for x in lines if x]
            if line.startswith("pid "):
                writer = int(line.split()[1])
                continue
            lines.append(line)
            if line == marker:
                time.sleep(delay)
                with contextlib.suppress(ProcessLookupError):  # it finished first (and was reaped)
                    os.kill(writer, signal.SIGKILL)
        raise AssertionError(f"the writer process ended early ({self.proc.wait(60)}): {lines}")

    def close(self) -> None:
        self.proc.kill()
        self.proc.communicate(timeout=60)


@pytest.mark.slow
def test_kill_9_in_the_middle_of_storing_a_large_dataset(store_root: StoreRoot) -> None:
    """Killed at several moments of the write (bounded: 6 kills): earlier datasets stay listed and intact, the
    interrupted one is never listed half-written, and a later put of it works."""
    earlier = _earlier(store_root.root)
    writers = _Writers(store_root)
    try:
        _kill_and_check(store_root, earlier, writers)
    finally:
        writers.close()


def _kill_and_check(store_root: StoreRoot, earlier: dict[str, store.StoredDataset], writers: _Writers) -> None:
    """Six writes killed at different moments, each followed by the checks; then one write left to complete."""
    interrupted = 0
    for marker, delay, mode in [
        ("writing .parquet", 0.0, "run"),
        ("writing .parquet", 0.05, "run"),
        ("writing .parquet", 0.3, "run"),
        ("placed .parquet", 0.0, "pause"),  # the data file in place, its metadata not yet written
        ("writing .json", 0.0, "run"),
        ("start", 0.02, "run"),
    ]:
        out = writers.kill_during(marker, delay, mode)
        listed = {m.id: m for m in store.list_datasets(root=store_root.root)}
        finished = any(line.startswith("done") for line in out)
        extra = set(listed) - set(earlier)
        assert set(earlier) <= set(listed), (marker, delay)
        for ds_id in earlier:
            meta, frame = store.get(ds_id, root=store_root.root)
            assert meta == earlier[ds_id] and fingerprint(frame) == ds_id
        if extra:  # the big dataset got completely in before the kill: then it must be whole
            [big] = extra
            assert listed[big].n_rows == 600_000 and fingerprint(store.get(big, root=store_root.root)[1]) == big
            store.delete(big, root=store_root.root)
        else:
            interrupted += 1
            assert not finished
        for p in store_root.tmp_files():  # crashed writes' temporary files: never listed; clean for the next round
            p.unlink()
    assert interrupted >= 3  # at least the kills at the start, in the data file and between the files landed
    _assert_intact_after_crashes(store_root, earlier)
    out = writers.kill_during("never printed", 0.0)  # the upload again, not killed: it completes
    [big_id] = [line.split()[1] for line in out if line.startswith("done")]
    assert {m.id for m in store.list_datasets(root=store_root.root)} == set(earlier) | {big_id}
    assert fingerprint(store.get(big_id, root=store_root.root)[1]) == big_id


def _assert_intact_after_crashes(where: StoreRoot, earlier: dict[str, store.StoredDataset]) -> None:
    """Orphan data files of killed writes may remain (not listed); the next put of the same table completes it."""
    assert {m.id for m in store.list_datasets(root=where.root)} == set(earlier)
    names = where.names()
    orphans = [n.removesuffix(".parquet") for n in names if n.endswith(".parquet") and n[:64] not in earlier]
    assert all(f"{stem}.json" not in names for stem in orphans)
