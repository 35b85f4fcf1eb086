"""One evaluation, every page: a team's run, stored whole, is what Compare, Sampling, Cost & latency and the Planner
read, each page naming it (and its config) in its first line.

Data: ``tests/data/promptfoo/results.json`` (written by promptfoo itself: 3 providers x 7 tests x 3 repeats, a cost
per call), stored as the Data page stores it (:func:`nkcore.kinds.apply_mapping` of the whole evaluation), on a
store that already holds other datasets. Oracles: the ``vote`` CLI's JSON for each config (the numbers a script
gets), the mean cost per call computed from the JSON by hand, and the paired parser's configs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from nkcore import store
from nkcore.cli import main
from nkcore.harness import read_harness
from nkcore.kinds import apply_mapping
from tests.app.conftest import RunPage, error_texts, plain
from tests.app.helpers import data_line
from tests.conftest import ROOT

RESULTS = ROOT / "tests" / "data" / "promptfoo" / "results.json"
SAMPLING, COST, COMPARE, PLANNER = (
    "pages/4_Sampling.py",
    "pages/5_Cost_and_latency.py",
    "pages/3_Compare.py",
    "pages/6_Planner.py",
)


def _others() -> None:
    """Datasets a shared server already holds: raw samples and paired results of other runs."""
    store.put(pd.read_csv(ROOT / "sample_data" / "worked_example_samples.csv"), "samples", "someone_else.csv")
    other = pd.DataFrame({"case": ["1", "1", "2", "2"], "config": ["x", "y", "x", "y"], "correct": [1, 0, 1, 1]})
    store.put(other, "paired", "other_team.csv")


@pytest.fixture
def stored() -> tuple[str, tuple[str, ...]]:
    _others()
    res = read_harness([(RESULTS.name, RESULTS.read_bytes())])
    table = apply_mapping(res.evaluation, "paired", {c: c for c in res.evaluation.columns})
    return store.put(table, "paired", "promptfoo run").id, res.configs


def _vote(config: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["vote", str(RESULTS), "--config", config, "--json", "--n-boot", "200"]) == 0
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def _ok(at: object) -> None:
    assert not at.exception, [e.value for e in at.exception]  # type: ignore[attr-defined]
    assert not error_texts(at), error_texts(at)  # type: ignore[arg-type]


def test_sampling_reaches_every_config_with_the_clis_numbers(
    run_page: RunPage, stored: tuple[str, tuple[str, ...]], capsys: pytest.CaptureFixture[str]
) -> None:
    ds_id, configs = stored
    assert len(configs) == 3
    for i, config in enumerate(configs):
        at = run_page(SAMPLING, query={"eval": ds_id, "smp_config": config}, timeout=120)
        _ok(at)
        line = data_line(at)
        assert "promptfoo run" in line and f"{config} ({i + 1} of 3)" in line
        assert at.selectbox(key="smp_config").value == config
        assert list(at.selectbox(key="smp_config").options) == list(configs)  # every config reachable
        doc = _vote(config, capsys)
        text = " ".join(plain(m.value) for m in at.markdown)
        p_single = float(doc["p_single"])  # type: ignore[arg-type]
        assert f"{p_single:.1%}" in text, (config, p_single)


def test_cost_opens_on_the_runs_own_price_for_each_config(
    run_page: RunPage, stored: tuple[str, tuple[str, ...]]
) -> None:
    ds_id, configs = stored
    results = json.loads(RESULTS.read_text())["results"]["results"]
    for j, config in enumerate(configs):
        hand = sum(float(r["cost"]) for r in results if r["promptIdx"] == j) / sum(
            1 for r in results if r["promptIdx"] == j
        )
        at = run_page(COST, query={"eval": ds_id, "lat_config": config}, timeout=120)
        _ok(at)
        assert at.number_input(key="lat_price").value == pytest.approx(round(hand, 6), abs=1e-9)
        assert any(plain(c.value).startswith("Price: $") and "recorded" in plain(c.value) for c in at.caption)
        assert "$7,440 a month" not in " ".join(plain(s.value) for s in at.success)  # not the example's price


def test_compare_and_planner_read_the_same_evaluation(run_page: RunPage, stored: tuple[str, tuple[str, ...]]) -> None:
    ds_id, configs = stored
    at = run_page(COMPARE, query={"eval": ds_id}, timeout=120)
    _ok(at)
    assert "3 configs" in data_line(at) and all(plain(c) in plain(data_line(at)) for c in configs)
    at = run_page(PLANNER, query={"eval": ds_id}, timeout=120)
    _ok(at)
    assert "promptfoo run" in data_line(at)
    shown = {n.label: n for n in at.number_input}
    assert shown["cases in the evaluation set (from the data)"].value == 7  # the run's 7 tests, not the slider's 200


def test_an_old_samples_link_opens_as_the_evaluation(run_page: RunPage, stored: tuple[str, tuple[str, ...]]) -> None:
    ds_id, _ = stored
    at = run_page(SAMPLING, query={"samples": ds_id}, timeout=120)
    _ok(at)
    assert at.query_params["eval"] == [ds_id] or at.query_params["eval"] == ds_id
    assert "samples" not in at.query_params
    assert "promptfoo run" in data_line(at)


def test_the_built_in_example_is_named_as_such(run_page: RunPage) -> None:
    for path in (SAMPLING, COST, COMPARE, PLANNER):
        at = run_page(path, timeout=120)
        _ok(at)
        assert "the built-in example" in data_line(at), path


def test_partial_credit_config_says_why_and_the_others_vote(run_page: RunPage) -> None:
    frame = pd.DataFrame(
        {
            "case": [str(c) for c in range(6) for _ in range(3)] * 2,
            "config": ["graded"] * 18 + ["binary"] * 18,
            "epoch": [1, 2, 3] * 12,
            "correct": [1, 0.5, 0] * 6 + [1, 1, 0] * 6,
        }
    )
    ds_id = store.put(apply_mapping(frame, "paired", {c: c for c in frame.columns}), "paired", "graded run").id
    at = run_page(SAMPLING, query={"eval": ds_id, "smp_config": "graded"}, timeout=120)
    _ok(at)
    assert any("partial credit" in plain(i.value) for i in at.info)
    at = run_page(SAMPLING, query={"eval": ds_id, "smp_config": "binary"}, timeout=120)
    _ok(at)
    assert not at.info or not any("partial credit" in plain(i.value) for i in at.info)
    at = run_page(COMPARE, query={"eval": ds_id}, timeout=120)
    _ok(at)  # Compare reads the partial scores as they are


def test_stored_evaluation_keeps_its_columns(stored: tuple[str, tuple[str, ...]]) -> None:
    ds_id, _ = stored
    meta, frame = store.get(ds_id)
    assert meta.kind == "paired" and {"answer", "cost", "latency_s", "repeat"} <= set(frame.columns)
    assert Path(RESULTS).exists()


def test_the_what_if_rho_opens_on_the_rho_measured_in_the_run(
    run_page: RunPage, stored: tuple[str, tuple[str, ...]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 51: the what-if slider opened on the chapter's 0.17 whatever the data measured (0.63 on a promptfoo
    run). On a team's own run it opens on the rho measured in it (the CLI's), within the slider's 0 to 0.9."""
    ds_id, configs = stored
    for config in configs:
        doc = _vote(config, capsys)
        rho = doc["rho"]
        at = run_page(SAMPLING, query={"eval": ds_id, "smp_config": config}, timeout=120)
        _ok(at)
        want = 0.17 if rho is None else round(min(max(float(rho), 0.0), 0.9), 2)  # type: ignore[arg-type]
        assert at.slider(key="smp_rho").value == pytest.approx(want), (config, rho)
    at = run_page(SAMPLING, timeout=120)
    assert at.slider(key="smp_rho").value == pytest.approx(0.17)  # the built-in example: the chapter's figure


def test_an_evaluation_listed_but_unreadable_is_said_and_the_example_shown(run_page: RunPage, tmp_path: Path) -> None:
    """A stored evaluation whose table cannot be read now (damaged, or a store past its deadline): a sentence and the
    built-in example, never an exception box."""
    import os

    frame = pd.DataFrame({"case": ["1", "1", "2", "2"], "config": ["a", "b", "a", "b"], "correct": [1, 0, 1, 1]})
    ds_id = store.put(frame, "paired", "damaged run").id
    table = Path(os.environ["NKP_DATA_DIR"]) / f"{ds_id}.parquet"
    table.write_bytes(b"not a parquet file")
    at = run_page(COMPARE, query={"eval": ds_id}, timeout=120)
    _ok(at)
    assert any("cannot be read now" in plain(w.value) for w in at.warning)
    assert "the built-in example" in data_line(at)


def test_compare_says_which_config_ships_as_the_rank_command_does(
    run_page: RunPage, stored: tuple[str, tuple[str, ...]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 54 on the page: three or more configs open a "Which config ships" section with every config's rank
    interval and the set that could be the best; its verdict is the ``rank`` command's on the same file."""
    ds_id, _ = stored
    at = run_page(COMPARE, query={"eval": ds_id, "cmp_margin": "2"}, timeout=120)
    _ok(at)
    assert main(["rank", str(RESULTS), "--margin", "2", "--cost-column", "cost", "--json"]) == 0  # costs: recorded
    doc = json.loads(capsys.readouterr().out)
    text = " ".join(plain(m.value) for m in at.markdown)
    assert f"{doc['verdict']}." in text
    table = next(f.value for f in at.dataframe if "could be best" in f.value.columns)
    assert list(table["config"]) == [c["config"] for c in doc["configs"]]
    assert set(table.loc[table["could be best"] == "yes", "config"]) == set(doc["could_be_best"])
    ranks = [f"{c['rank_low']}" if c["rank_low"] == c["rank_high"] else f"{c['rank_low']}-{c['rank_high']}"
             for c in doc["configs"]]  # fmt: skip
    assert list(table["rank"]) == ranks
