"""Shared test set-up: paths, the shared validation data, and an isolated data directory for every test."""

from __future__ import annotations

import os
from pathlib import Path

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


def _sample_file(name: str) -> Path:
    """A file of sample_data/: it is part of the repository, so a missing one fails the oracle tests (no skip)."""
    path = SAMPLE_DIR / name
    assert path.exists(), f"sample_data/{name} is missing: run `make sample-data`"
    return path


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
