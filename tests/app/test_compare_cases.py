"""Compare page (AppTest) on results with repeats: two real inspect_ai logs of 60 cases x 3 epochs, stored as the
Data page stores them. The page compares case means over every epoch and says so; its numbers are the CLI's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
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
        # issue 53: the page flags the case-bootstrap interval exactly when the CLI does (few cases that differ)
        captions = "\n".join(plain(c.value) for c in at.caption)
        assert (doc["interval_note"] is not None) == ("less reliable" in captions)
        assert doc["interval_note"] is None or doc["interval_note"] in captions
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
    # the top plans one run per case of these 60 cases, at the discordance one run of the two shows on average
    assert any("has 3 repeats per case: this section plans one run per case" in plain(c.value) for c in at.caption)
    shown = {n.label: n.value for n in at.number_input}
    assert shown["cases in the evaluation set (from the data)"] == 60
    p = res.paired.groupby(["case", "config"])["correct"].mean().unstack()[list(res.configs)].to_numpy()
    by_hand = float(np.mean(p[:, 0] * (1 - p[:, 1]) + p[:, 1] * (1 - p[:, 0])))  # P(one call right, other wrong)
    assert shown["discordance: % of cases two configs disagree on (from the data)"] == round(100 * by_hand, 1)


def test_the_cases_behind_the_verdict_are_the_cases_whose_means_differ(
    run_page: RunPage, logs: tuple[Path, Path]
) -> None:
    """The case-level view lists the cases whose mean scores over the epochs differ: as many as the tests table's
    'A higher' + 'B higher', each config's answers one per epoch and the gold (written here as match() scored
    them: "1" right, "0" wrong, target "1")."""
    res = read_harness(read_paths(list(logs)))
    assert res.paired is not None
    frame = res.paired.assign(answer=np.where(res.paired["correct"] == 1, "1", "0"), gold="1")
    meta = store.put(frame, "paired", "two inspect logs with answers")
    at = run_page(PAGE, query={"paired": meta.id}, timeout=120)
    at.session_state["cmp_show_disagreements"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    tests = next(df for df in at.main.get("dataframe") if "B higher" in df.value.columns).value
    a_higher, b_higher = int(tests["A higher"].iloc[0]), int(tests["B higher"].iloc[0])
    a, b = tests["A → B"].iloc[0].split(" → ")
    box = next(e for e in at.main.get("expander") if plain(e.label).startswith("The cases behind the verdict"))
    table = box.get("dataframe")[0].value
    assert len(table) == a_higher + b_higher > 0
    diff = table[f"{b} − {a}"]
    assert (int((diff < 0).sum()), int((diff > 0).sum())) == (a_higher, b_higher)
    assert list(diff.abs()) == sorted(diff.abs(), reverse=True)  # largest disagreement first
    text = "\n".join(plain(m.value) for m in box.markdown)
    assert f"disagree on {a_higher + b_higher} of the 60 cases (their mean scores over the epochs differ)" in text
    for row in table.to_dict("records"):
        for config in (a, b):
            answers = row[f"answers {config}"].split(", ")
            assert len(answers) == 3 and sum(x == "1" for x in answers) / 3 == pytest.approx(row[f"score {config}"])
        assert row["gold"] == "1"
    at.radio(key="cmp_dis_side").set_value("A scores higher").run()
    box = next(e for e in at.main.get("expander") if plain(e.label).startswith("The cases behind the verdict"))
    assert len(box.get("dataframe")[0].value) == a_higher
