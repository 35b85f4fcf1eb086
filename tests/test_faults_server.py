"""Faults of the running server, loopback only and bounded: ``kill -9`` in the middle of a 100 MB upload, and the
data folder on a full filesystem.

* kill -9: a server on a free loopback port (its own data folder holding two earlier datasets) gets a 100 MB CSV
  through Streamlit's upload protocol, as the Data page's uploader sends it (a websocket session asks for an upload
  URL with a ``file_urls_request`` ``BackMsg``; the file is PUT there as multipart form data). Once 30 MB are on
  the wire the server is killed with SIGKILL. After a restart on the same folder the earlier datasets are listed,
  byte for byte the same (their ids are their fingerprints), their links open without an exception, and nothing
  else is in the folder or listed (no half-written upload).
* full filesystem: the data folder is a 4 MiB tmpfs mounted here (the test runs as root in CI; where ``mount``
  fails, a stand-in whose writes raise ENOSPC after the earlier datasets). Filling it and storing a dataset gives
  the one clear message ("its data folder is full ... earlier datasets are unaffected"), the earlier datasets stay
  listed and intact, no temporary file is left, and once space is freed the same dataset is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import http.client
import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pytest

from benchmarks import load_viewers
from nkcore import store
from nkcore.errors import DataError
from nkcore.io import fingerprint
from tests.servers import app_server

T = TypeVar("T")

pytestmark = pytest.mark.slow

UPLOAD_MB = 100
KILL_AFTER_MB = 30


def _run_async(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` on a thread of its own: after the browser tests of the same session, Playwright's sync
    API keeps an event loop running in the main thread, where ``asyncio.run`` refuses to start one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _earlier(root: Path) -> dict[str, store.StoredDataset]:
    frames = (
        (pd.DataFrame({"item": ["1", "1", "2"], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]}), "ratings"),
        (
            pd.DataFrame({"case": ["1", "1", "2", "2"], "config": ["p", "q", "p", "q"], "correct": [1, 0, 1, 1]}),
            "paired",
        ),
    )
    return {m.id: m for m in (store.put(f, kind, f"earlier_{kind}.csv", root=root) for f, kind in frames)}


def _assert_intact(root: Path, earlier: dict[str, store.StoredDataset]) -> None:
    assert {m.id: m for m in store.list_datasets(root=root)} == earlier  # nothing else listed
    for ds_id in earlier:
        assert fingerprint(store.get(ds_id, root=root)[1]) == ds_id  # the same rows, byte for byte


# ---------------------------------------------------------------- kill -9 in the middle of a 100 MB upload
@contextlib.contextmanager
def _server(data_dir: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The app on a free loopback port (:func:`tests.servers.app_server`), XSRF off (the upload client sends no
    cookie), its log beside the data folder (nothing but datasets in it), stopped (SIGKILL if still running) at the
    end."""
    with app_server(data_dir, log_dir=data_dir.parent, xsrf=False, timeout=120) as server:
        yield server.base, server.proc


async def _session_upload(base: str, proc: subprocess.Popen[bytes]) -> tuple[int, int]:
    """Open a session on the Data page and ask for upload URLs, as the file uploader does; with the session open, a
    small file is uploaded to the first (the server's answer: its HTTP status) and the large one to the second
    (:func:`_upload_and_kill`: the bytes sent)."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.typing import Subprotocol

    ws_url = base.replace("http://", "ws://", 1) + "/_stcore/stream"
    async with asyncio.timeout(120):
        async with websockets.connect(ws_url, subprotocols=[Subprotocol("streamlit")], max_size=None) as ws:
            msg = BackMsg()
            msg.rerun_script.page_name = "Data"
            await ws.send(msg.SerializeToString())
            session_id = ""
            async for raw in ws:
                fwd = ForwardMsg()
                fwd.ParseFromString(raw if isinstance(raw, bytes) else raw.encode())
                kind = fwd.WhichOneof("type")
                if kind == "new_session":
                    session_id = fwd.new_session.initialize.session_id
                elif kind == "script_finished":
                    break
            assert session_id
            req = BackMsg()
            req.file_urls_request.request_id = "r1"
            req.file_urls_request.session_id = session_id
            req.file_urls_request.file_names.extend(["small_ratings.csv", "big_ratings.csv"])
            await ws.send(req.SerializeToString())
            urls: list[str] = []
            async for raw in ws:
                fwd = ForwardMsg()
                fwd.ParseFromString(raw if isinstance(raw, bytes) else raw.encode())
                if fwd.WhichOneof("type") == "file_urls_response":
                    urls = [u.upload_url for u in fwd.file_urls_response.file_urls]
                    break
            assert len(urls) == 2, urls
            status = await asyncio.to_thread(_put_small, base, urls[0])
            sent = await asyncio.to_thread(_upload_and_kill, base, urls[1], proc)
            return status, sent
    raise AssertionError("no upload URL")


def _path(upload_url: str) -> str:
    return upload_url if upload_url.startswith("/") else "/" + upload_url.split("/", 3)[-1]


def _put_small(base: str, upload_url: str) -> int:
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="small_ratings.csv"\r\n'
        f"Content-Type: text/csv\r\n\r\nitem_id,annotator_id,label\ni1,w1,pos\r\n--{boundary}--\r\n"
    ).encode()
    conn = http.client.HTTPConnection("127.0.0.1", int(base.rsplit(":", 1)[1]), timeout=60)
    try:
        conn.request(
            "PUT", _path(upload_url), body=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
        )
        return conn.getresponse().status
    finally:
        conn.close()


def _chunk() -> bytes:
    rows = "".join(f"i{i // 6},w{i % 6},{('pos', 'neg', 'neutral')[(i * 7) % 3]}\n" for i in range(60_000))
    return rows.encode()[: 1 << 20].rsplit(b"\n", 1)[0] + b"\n"


def _upload_and_kill(base: str, upload_url: str, proc: subprocess.Popen[bytes]) -> int:
    """PUT a ``UPLOAD_MB`` MB multipart body to ``upload_url``; SIGKILL the server after ``KILL_AFTER_MB`` MB; the
    bytes that were sent."""
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big_ratings.csv"\r\n'
        "Content-Type: text/csv\r\n\r\nitem_id,annotator_id,label\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    chunk = _chunk()
    n_chunks = UPLOAD_MB * (1 << 20) // len(chunk)
    length = len(head) + n_chunks * len(chunk) + len(tail)
    port = int(base.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.putrequest("PUT", _path(upload_url))
    conn.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
    conn.putheader("Content-Length", str(length))
    conn.endheaders()
    sent = 0
    try:
        conn.send(head)
        for i in range(n_chunks):
            conn.send(chunk)
            sent += len(chunk)
            if sent >= KILL_AFTER_MB << 20 and proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
            if i == n_chunks - 1:
                conn.send(tail)
    except OSError:
        pass  # the server is gone: the rest of the upload cannot be sent
    finally:
        conn.close()
    return sent


def test_kill_9_during_a_100_mb_upload_then_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    earlier = _earlier(data)
    before = sorted(p.name for p in data.iterdir())
    with _server(data) as (base, proc):
        status, sent = _run_async(_session_upload(base, proc))
        assert status in (200, 204), f"the server refused a small upload of the same session: {status}"
        assert proc.poll() == -signal.SIGKILL, "the server was not killed by the test"
    print(f"\nkill -9 after {sent / (1 << 20):.0f} MB of a {UPLOAD_MB} MB upload")
    assert KILL_AFTER_MB << 20 <= sent < UPLOAD_MB << 20, "the kill did not land in the middle of the upload"
    assert (
        sorted(p.name for p in data.iterdir() if not p.name.startswith("streamlit-")) == before
    )  # nothing half-written
    _assert_intact(data, earlier)
    with _server(data) as (base, _):  # the restart: the earlier datasets' links open
        ratings_id = next(i for i, m in earlier.items() if m.kind == "ratings")
        paired_id = next(i for i, m in earlier.items() if m.kind == "paired")
        link = f"/Data?dat_view=ratings&ratings={ratings_id}&paired={paired_id}"
        seen = _run_async(load_viewers.view(base, link, timeout=120))
        assert seen.finished and not seen.exceptions and not seen.errors, seen
    _assert_intact(data, earlier)


# ---------------------------------------------------------------- the data folder on a full filesystem
@contextlib.contextmanager
def _full_folder(where: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A data folder on a 4 MiB tmpfs (mode "tmpfs"), or a plain folder whose Parquet writes raise ENOSPC once the
    test says the disk is full (mode "stand-in")."""
    where.mkdir()
    mounted = (
        shutil.which("mount") is not None
        and os.geteuid() == 0
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", str(where)], capture_output=True, timeout=30
        ).returncode
        == 0
    )
    try:
        yield where, ("tmpfs" if mounted else "stand-in")
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


def _fill(folder: Path) -> Path:
    """Fill ``folder``'s filesystem until a write fails with ENOSPC; the filler file."""
    filler = folder / "filler.bin"
    block = b"\0" * (64 << 10)
    with filler.open("wb") as f:
        try:
            while True:
                f.write(block)
                f.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler


def test_a_full_filesystem_refuses_a_dataset_with_a_clear_message_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(0)
    big = pd.DataFrame(
        {"item": [f"i{i}" for i in range(60_000)], "rater": rng.integers(0, 9, 60_000).astype(str),
         "label": rng.choice(["pos", "neg", "neutral"], 60_000)}
    )  # fmt: skip
    with _full_folder(tmp_path / "full", monkeypatch) as (folder, mode):
        earlier = _earlier(folder)
        if mode == "tmpfs":
            filler = _fill(folder)
        else:
            from nkcore.store import backends

            def no_space(self: object, name: str, writer: object) -> None:
                raise OSError(errno.ENOSPC, "No space left on device")

            monkeypatch.setattr(backends.LocalBackend, "write", no_space)
        with pytest.raises(DataError) as info:
            store.put(big, "ratings", "big_ratings.csv", root=folder)
        message = str(info.value)
        print(f"\n{mode}: {message}")
        assert "data folder is full" in message and "earlier datasets are unaffected" in message
        assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp") or ".tmp" in p.name]
        _assert_intact(folder, earlier)
        if mode == "tmpfs":
            filler.unlink()  # space again: the same dataset is stored, the earlier ones still there
            stored = store.put(big, "ratings", "big_ratings.csv", root=folder)
            assert set(m.id for m in store.list_datasets(root=folder)) == {*earlier, stored.id}
            assert fingerprint(store.get(stored.id, root=folder)[1]) == stored.id
