"""The names the UI and load benchmarks import (``benchmarks/bench_ui.py``, ``benchmarks/load_viewers.py``), kept
while they move to :mod:`tests.servers`, the one launcher of a test app server.

No pytest and no Playwright here: the benchmarks import this module outside pytest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from tests.servers import ROOT, app_server, free_port, stop, wait_healthy

__all__ = ["ROOT", "free_port", "stop", "streamlit_server", "wait_healthy"]


@contextlib.contextmanager
def streamlit_server(script: Path, data_dir: Path, timeout: float = 60.0) -> Iterator[tuple[str, int]]:
    """:func:`tests.servers.app_server` of ``script`` with ``NKP_DATA_DIR=data_dir`` (its log there too); yield its
    base URL (``http://127.0.0.1:PORT``) and process id once it answers; stop it afterwards."""
    with app_server(data_dir, script=script, timeout=timeout) as server:
        yield server.base, server.pid
