"""The evaluation (nkcore.evaluation): a team's run kept whole, and one config's views, on files the tools wrote.

Data: ``tests/data/promptfoo/results.json``, written by promptfoo 0.121.20 itself (one prompt, 7 tests,
``--repeat 3``, three providers, a cost per call, errors among the results; its README). Oracles: numbers computed
here from the JSON with ``json.load`` and plain Python, per ``promptIdx`` (success, cost), and the paired parser's
case means (``nkcore.paired.parse_cases``), the exact vote curve at n = 1 and the ``vote`` CLI: one number for
single-call accuracy wherever it is read.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from nkcore import evaluation as nkeval
from nkcore import paired, store, voting
from nkcore.cli import main
from nkcore.harness import read_harness
from nkcore.kinds import apply_mapping

RESULTS = Path(__file__).resolve().parent / "data" / "promptfoo" / "results.json"


def _doc() -> dict[str, Any]:
    with RESULTS.open(encoding="utf-8") as fh:
        doc: dict[str, Any] = json.load(fh)
    return doc


def _by_column() -> dict[int, list[dict[str, Any]]]:
    """promptIdx -> its results (one provider column of promptfoo's table), by hand."""
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in _doc()["results"]["results"]:
        out[int(r["promptIdx"])].append(r)
    return out


def _hand_single_call(results: list[dict[str, Any]]) -> float:
    """Mean over tests (same vars) of the share of successful repeats."""
    per_test: dict[str, list[float]] = defaultdict(list)
    for r in results:
        per_test[json.dumps(r["vars"], sort_keys=True)].append(float(bool(r["success"])))
    return float(np.mean([np.mean(v) for v in per_test.values()]))


def _read() -> Any:
    return read_harness([(RESULTS.name, RESULTS.read_bytes())])


def test_every_config_every_repeat_and_cost_is_kept() -> None:
    res = _read()
    ev = res.evaluation
    cols = _by_column()
    assert len(res.configs) == len(cols) == 3
    assert len(ev) == sum(len(v) for v in cols.values()) == 63  # nothing dropped: 3 providers x 7 tests x 3 repeats
    assert nkeval.config_names(ev) == res.configs
    assert {"answer", "cost", "latency_s", "repeat"} <= set(ev.columns)
    for j, config in enumerate(res.configs):
        rows = ev[ev["config"] == config]
        assert len(rows) == len(cols[j]) and rows["case"].nunique() == 7
        assert sorted(rows["cost"].round(12)) == sorted(round(float(r["cost"]), 12) for r in cols[j])


def test_each_config_has_its_own_samples_and_numbers() -> None:
    """The defect: only the first provider's samples were stored, so Sampling showed one config for three."""
    res = _read()
    cols = _by_column()
    seen = []
    for j, config in enumerate(res.configs):
        view = res.samples_view(config)
        assert view.frame is not None, view.reason
        assert len(view.frame) == len(cols[j])  # every repeat of this config's tests, no other config's row
        sset = voting.parse_samples(view.frame)
        assert sset.n_cases == 7 and sset.max_n == 3
        exact_n1 = float(voting.vote_curve(sset, n_boot=100).points[0].accuracy)
        hand = _hand_single_call(cols[j])
        assert nkeval.single_call_accuracy(res.evaluation, config) == pytest.approx(hand, abs=1e-12)
        assert exact_n1 == pytest.approx(hand, abs=1e-12)
        seen.append(hand)
    assert len(set(np.round(seen, 9))) > 1  # the three providers differ: a view per config matters here


def test_vote_cli_reads_every_config(capsys: pytest.CaptureFixture[str]) -> None:
    res = _read()
    cols = _by_column()
    for j, config in enumerate(res.configs):
        assert main(["vote", str(RESULTS), "--config", config, "--json", "--n-boot", "200"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["p_single"] == pytest.approx(_hand_single_call(cols[j]), abs=1e-12)
        assert doc["curve"][0]["accuracy"] == pytest.approx(doc["p_single"], abs=1e-12)


def test_single_call_accuracy_is_one_number_on_every_reading() -> None:
    """Compare's case means (the case as the unit), Sampling's exact n = 1 and Cost's single-call price all read
    the same definition: the mean over cases of each case's share of right samples."""
    res = _read()
    table = paired.parse_cases(res.paired)
    means = {c: paired.case_mean(table, c).mean for c in table.configs}
    for config in res.configs:
        assert means[config] == pytest.approx(nkeval.single_call_accuracy(res.evaluation, config), abs=1e-12)
    configs = nkeval.config_table(res.evaluation)
    assert configs["single_call_accuracy"].tolist() == pytest.approx([means[c] for c in res.configs], abs=1e-12)


def test_price_per_call_is_the_runs_own() -> None:
    res = _read()
    cols = _by_column()
    for j, config in enumerate(res.configs):
        price = nkeval.price_per_call(res.evaluation, config)
        assert price is not None
        hand = float(np.mean([float(r["cost"]) for r in cols[j]]))
        assert price.dollars == pytest.approx(hand, rel=1e-12)
        assert price.n_priced == price.n_calls == len(cols[j])
        view = res.samples_view(config)
        assert nkeval.price_per_call(view.frame).dollars == pytest.approx(hand, rel=1e-12)  # Cost reads the view
    assert nkeval.price_per_call(pd.DataFrame({"case": [1], "config": "a", "correct": [1]})) is None


def test_stored_evaluation_gives_the_same_views() -> None:
    """Stored as paired results with every column (the Data page's path), read back: the same views."""
    res = _read()
    table = apply_mapping(res.evaluation, "paired", {c: c for c in res.evaluation.columns})
    meta = store.put(table, "paired", "pf")
    _, back = store.get(meta.id)
    assert list(back.columns) == list(table.columns)
    for config in res.configs:
        a, b = res.samples_view(config).frame, nkeval.samples_view(back, config).frame
        assert a is not None and b is not None
        pd.testing.assert_frame_equal(
            a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False, check_exact=False
        )


def test_partial_credit_is_stored_and_said_plainly() -> None:
    frame = pd.DataFrame(
        {
            "case": ["1", "1", "2", "2", "1", "1", "2", "2"],
            "config": ["A"] * 4 + ["B"] * 4,
            "epoch": [1, 2, 1, 2] * 2,
            "correct": [1, 0.5, 0, 1, 1, 1, 0, 0],
        }
    )
    table = apply_mapping(frame, "paired", {c: c for c in frame.columns})
    assert table["correct"].tolist() == [1, 0.5, 0, 1, 1, 1, 0, 0]
    store.put(table, "paired", "partial")  # validated by the paired summary: scores are read as they are
    view = nkeval.samples_view(table, "A")
    assert view.frame is None and "partial credit" in view.reason
    assert nkeval.samples_view(table, "B").frame is not None  # B's right/wrong samples can be voted on
    assert nkeval.single_call_accuracy(table, "A") == pytest.approx((0.75 + 0.5) / 2)


def test_one_sample_per_case_says_why_there_is_no_vote() -> None:
    frame = pd.DataFrame({"case": ["1", "2"], "config": ["A", "A"], "correct": [1, 0]})
    view = nkeval.samples_view(frame, "A")
    assert view.frame is None and "one sample per case" in view.reason
