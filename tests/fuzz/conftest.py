"""Hypothesis profiles of the fuzz suite, the hostile-file corpus fixture and a summary of warnings seen.

Profiles (applied per test by ``tests.fuzz.strategies.fuzz_settings``, so the rest of the test suite keeps the
profiles of ``tests/conftest.py``):

- ``nkp-fuzz`` (default, CI and ``make test``): bounded so the whole fuzz suite stays under a minute on two cores;
  derandomized when ``CI`` is set, so CI runs the same examples every time.
- ``nkp-fuzz-long`` (``NKP_FUZZ_PROFILE=long``, i.e. ``make fuzz``): twenty times the examples, random.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.fuzz import corpus
from tests.fuzz.strategies import BASE_EXAMPLES, LONG_FACTOR, PROFILE_DEFAULT, PROFILE_LONG, WARNINGS_ON_SUCCESS

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    PROFILE_DEFAULT,
    max_examples=BASE_EXAMPLES,
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=_SUPPRESS,
    print_blob=True,
)
settings.register_profile(
    PROFILE_LONG,
    max_examples=BASE_EXAMPLES * LONG_FACTOR,
    deadline=None,
    suppress_health_check=_SUPPRESS,
    print_blob=True,
)


@pytest.fixture(scope="session")
def hostile_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the hostile-file corpus, generated once per session (some files are large)."""
    return tmp_path_factory.mktemp("hostile")


@pytest.fixture(scope="session")
def hostile_files(hostile_dir: Path) -> dict[str, Path]:
    """Every hostile file of :mod:`tests.fuzz.corpus` that is cheap to make (the large ones are made lazily)."""
    return {entry.name: corpus.materialize(entry, hostile_dir) for entry in corpus.ENTRIES if not entry.large}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """List the distinct warnings that successful CLI runs would have printed on stderr (noise, not failures)."""
    if WARNINGS_ON_SUCCESS:
        terminalreporter.section("fuzz: warnings printed by successful CLI runs")
        for line in sorted(WARNINGS_ON_SUCCESS)[:50]:
            terminalreporter.write_line(line)
