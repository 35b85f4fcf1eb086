"""Compare page (AppTest) on results with repeats: two real inspect_ai logs of 60 cases x 3 epochs, stored as the
Data page stores them. The page compares case means over every epoch and says so; its numbers are the CLI's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nkcore import store
from nkcore.cli import main
from nkcore.harness import read_harness
from nkcore.harness.files import read_paths
from tests.app.conftest import RunPage, plain

PAGE = "pages/3_Compare.py"


@pytest.fixture(scope="module")
def logs(inspect_epoch_pair: tuple[Path, Path]) -> tuple[Path, Path]:
    return inspect_epoch_pair  # tests.inspect_logs.epoch_pair, written once per run (tests/conftest.py)


def test_compare_on_epochs_names_the_unit_and_agrees_with_the_cli(
    run_page: RunPage, logs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    res = read_harness(read_paths(list(logs)))
    assert res.paired is not None
    meta = store.put(res.paired, "paired", "two inspect logs")
    assert main(["compare", *map(str, logs), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for query in ({"paired": meta.id}, {"paired": meta.id, "cmp_mode": "one pair of my choice"}):
        at = run_page(PAGE, query=query, timeout=120)
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        text = "\n".join(plain(m.value) for m in at.markdown)
        assert doc["verdict"] in text  # the CLI's verdict, word for word (p, interval, unit)
        assert "60 cases x 3 epochs per config; case means compared" in text
        metrics = {plain(m.label): plain(m.value) for m in at.metric}
        assert metrics["paired cases"] == "60" and metrics["epochs per case"] == "3"
        assert metrics["effective cases"] == f"{doc['effective_cases']:,.0f}"
        assert any("intra-case correlation" in plain(i.value) for i in at.info)


def test_planner_reads_a_dataset_with_epochs_without_an_error(run_page: RunPage, logs: tuple[Path, Path]) -> None:
    res = read_harness(read_paths(list(logs)))
    assert res.paired is not None
    meta = store.put(res.paired, "paired", "two inspect logs")
    at = run_page("pages/6_Planner.py", query={"paired": meta.id, "pln_from_data": "true"}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert any("has repeats" in plain(i.value) for i in at.info)
