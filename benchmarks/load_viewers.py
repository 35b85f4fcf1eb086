"""Concurrent viewers of one shared link through Streamlit's own websocket protocol, no browser per viewer.

Each viewer is what a browser tab is to the server, without the tab: a websocket to ``/_stcore/stream`` (the
``streamlit`` subprotocol), one ``BackMsg`` asking for a run of the page with the link's query string (a
``rerun_script`` ``ClientState``, as the frontend sends when a tab opens), then the ``ForwardMsg`` protobufs the
server streams back until the run's final ``script_finished`` (``FINISHED_SUCCESSFULLY``; a run that ends early for
a rerun, as a page waiting on another viewer's computation does, is followed by its rerun). A viewer records the
seconds to that message, whether an exception element or an error alert was sent, and every metric (label ->
value) of the run, so the viewers' numbers can be compared.

The server is started here (``tests.servers.app_server``: ``python -m ui.serve`` on a free loopback
port, a fresh data folder), measured from ``/proc/<pid>``: CPU seconds (user + system) over the load and the peak
resident memory (``VmHWM``); ``$NKP_CACHE_LOG`` counts the computations it ran (``ui.common.cache``).

    python benchmarks/load_viewers.py [--viewers 50] [--link '/Budget?bud_maxb=1000&bud_seed=7&bud_cell=1000x1']

Loopback only, bounded: every viewer has a deadline (``--timeout``, 300 s), the server stops at the end. The figures
of a run are written to ``benchmarks/results/load_viewers.txt`` with ``--save``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LINK = "/Budget?bud_maxb=1000&bud_seed=7&bud_cell=1000x1"
GRID_FUNCS = ("nkcore.nk.grid:simulate_grid", "nkcore.nk.exact.engine:exact_grid")
LOG_ENV = "NKP_CACHE_LOG"  # ui.common.cache.LOG_ENV (not imported: ui.common.cache imports streamlit's caches)
RESULTS = ROOT / "benchmarks" / "results" / "load_viewers.txt"


@dataclass
class Viewer:
    """What one viewer saw: seconds to the final script message, runs, errors, the run's metrics."""

    seconds: float = float("nan")
    finished: bool = False
    runs: int = 0
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    metrics: dict[str, str] = field(default_factory=dict)
    messages: int = 0
    failure: str = ""


async def view(base: str, link: str, timeout: float = 300.0) -> Viewer:
    """One viewer of ``base + link`` over the websocket protocol (see the module docstring)."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.typing import Subprotocol

    parts = urlsplit(link)
    page_name = parts.path.strip("/")
    ws_url = base.replace("http://", "ws://", 1) + "/_stcore/stream"
    out = Viewer()
    t0 = time.monotonic()
    try:
        async with asyncio.timeout(timeout):
            async with websockets.connect(
                ws_url, subprotocols=[Subprotocol("streamlit")], max_size=None, open_timeout=timeout, ping_interval=None
            ) as ws:
                msg = BackMsg()
                msg.rerun_script.query_string = parts.query
                msg.rerun_script.page_name = page_name
                await ws.send(msg.SerializeToString())
                labels: list[str] = []
                async for raw in ws:
                    fwd = ForwardMsg()
                    fwd.ParseFromString(raw if isinstance(raw, bytes) else raw.encode())
                    out.messages += 1
                    kind = fwd.WhichOneof("type")
                    if kind == "new_session":
                        out.runs += 1
                        out.metrics, out.exceptions, out.errors, labels = {}, [], [], []
                    elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                        el = fwd.delta.new_element
                        which = el.WhichOneof("type")
                        if which == "exception":
                            out.exceptions.append(el.exception.message or el.exception.type)
                        elif which == "alert" and el.alert.format == el.alert.ERROR:
                            out.errors.append(el.alert.body)
                        elif which == "metric":
                            out.metrics[el.metric.label] = el.metric.body
                            labels.append(el.metric.label)
                    elif kind == "script_finished":
                        if fwd.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                            out.seconds = time.monotonic() - t0
                            out.finished = True
                            return out
                        if fwd.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                            out.failure = "compile error"
                            return out
    except Exception as exc:  # a refused connection, a timeout: this viewer is not answered
        out.failure = f"{type(exc).__name__}: {exc}"
    return out


async def crowd(base: str, link: str, n: int, timeout: float) -> list[Viewer]:
    """``n`` viewers connecting at once."""
    return list(await asyncio.gather(*(view(base, link, timeout) for _ in range(n))))


def _proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _proc_peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclass(frozen=True, slots=True)
class LoadResult:
    """The figures of one load run."""

    viewers: int
    answered: int
    min_s: float
    median_s: float
    p95_s: float
    max_s: float
    server_cpu_s: float
    peak_mib: float
    rss_before_mib: float
    grid_computations: int
    grid_keys: int
    computations: int
    same_numbers: bool
    failures: tuple[str, ...]
    results: tuple[Viewer, ...]

    def line(self, link: str) -> str:
        return (
            f"{self.viewers} websocket viewers of {link}: {self.answered} answered (final script message, no "
            f"exception, no error); min {self.min_s:.1f} s, median {self.median_s:.1f} s, p95 {self.p95_s:.1f} s, max {self.max_s:.1f} s; "
            f"server CPU {self.server_cpu_s:.1f} s; peak memory {self.peak_mib:.0f} MiB "
            f"(before the load {self.rss_before_mib:.0f} MiB); grid computations run: {self.grid_computations} over "
            f"{self.grid_keys} key(s); all computations: {self.computations}; same numbers on every viewer: "
            f"{self.same_numbers}"
        )


def _p95(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=20, method="inclusive")[18]


@contextlib.contextmanager
def server(data_dir: Path, log: Path) -> Iterator[tuple[str, int]]:
    """A fresh app server on loopback with ``$NKP_CACHE_LOG=log``; yields (base URL, pid)."""
    from tests.servers import app_server

    with app_server(data_dir, timeout=120, env={LOG_ENV: str(log)}) as app:
        yield app.base, app.pid


def measure(n: int, link: str = LINK, timeout: float = 300.0, data_dir: Path | None = None) -> LoadResult:
    """Start a server, let ``n`` viewers open ``link`` at once, stop it; the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = data_dir or Path(tmp)
        log = Path(tmp) / "computations.jsonl"
        with server(folder, log) as (base, pid):
            rss_before = _proc_peak_mib(pid)
            cpu0 = _proc_cpu_seconds(pid)
            results = asyncio.run(crowd(base, link, n, timeout))
            cpu = _proc_cpu_seconds(pid) - cpu0
            peak = _proc_peak_mib(pid)
        lines = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    per_key = collections.Counter(line["key"] for line in lines)
    grid_keys = {line["key"] for line in lines if line["func"] in GRID_FUNCS}
    ok = [r for r in results if r.finished and not r.exceptions and not r.errors]
    times = sorted(r.seconds for r in ok)
    failures = tuple(
        r.failure or ("; ".join(r.exceptions + r.errors) or "no final script message") for r in results if r not in ok
    )
    return LoadResult(
        viewers=n,
        answered=len(ok),
        min_s=times[0] if times else float("nan"),
        median_s=statistics.median(times) if times else float("nan"),
        p95_s=_p95(times),
        max_s=times[-1] if times else float("nan"),
        server_cpu_s=cpu,
        peak_mib=peak,
        rss_before_mib=rss_before,
        grid_computations=sum(per_key[k] for k in grid_keys),
        grid_keys=len(grid_keys),
        computations=sum(per_key.values()),
        same_numbers=bool(ok) and all(r.metrics == ok[0].metrics for r in ok),
        failures=failures,
        results=tuple(results),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--link", default=LINK)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--save", action="store_true", help=f"write the figures to {RESULTS.relative_to(ROOT)} (replaces it)"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.viewers <= 200:
        parser.error("--viewers: 1 to 200 (a bounded load test)")
    res = measure(args.viewers, args.link, args.timeout)
    line = res.line(args.link)
    print(line)
    if res.results and res.results[0].metrics:
        print("metrics of the first viewer:", res.results[0].metrics)
    for failure in res.failures[:5]:
        print("not answered:", failure)
    if args.save:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        with RESULTS.open("w", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M')} nproc={os.cpu_count()}: {line}\n")
    return 0 if res.answered == res.viewers else 1


if __name__ == "__main__":
    sys.exit(main())
