"""ui.serve: ``streamlit run`` with the heavy imports preloaded (the launcher of ``make run`` and the browser tests)."""

from __future__ import annotations

import sys

import pytest

from ui import serve


def test_preload_imports_every_nkcore_module_and_the_heavy_libraries() -> None:
    assert serve.preload() == []
    assert {"scipy.stats", "altair", "nkcore.nk.exact.engine", "nkcore.nk.exact.split"} <= set(sys.modules)
    assert "nkcore.__main__" not in serve.PRELOAD


def test_main_hands_its_arguments_to_streamlit_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.web import cli

    seen: list[list[str]] = []
    monkeypatch.setattr(cli, "main", lambda prog_name: seen.append(list(sys.argv)) or 0)
    monkeypatch.setattr(serve, "preload", list)  # no thread work in this test
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    assert serve.main(["app.py", "--server.port", "8599"]) == 0
    assert seen == [["streamlit", "run", "app.py", "--server.port", "8599"]]
