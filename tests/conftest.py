"""Shared test set-up: paths, the shared validation data, and an isolated data directory for every test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATASETS = SHARED / "datasets"
SAMPLE_DIR = ROOT / "sample_data"

settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``shared`` skip when ``../shared/datasets`` is absent (the product never needs it)."""
    if DATASETS.is_dir():
        return
    skip = pytest.mark.skip(reason="../shared/datasets is absent")
    for item in items:
        if "shared" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own NKP_DATA_DIR, so no test writes into the project's data/ folder."""
    path = tmp_path_factory.mktemp("nkp_data")
    monkeypatch.setenv("NKP_DATA_DIR", str(path))
    return path
