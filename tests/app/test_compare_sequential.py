"""Compare page (AppTest), "As the cases came in": the decision point and sentence are the CLI's (``compare
--sequential``) and Monitor's, on the worked example, on data with repeats and on the real ChaosNLI runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore import store
from nkcore.cli import main
from nkcore.sequential import Monitor
from tests.app.conftest import RunPage, plain
from tests.conftest import ROOT, SHARED

PAGE = "pages/3_Compare.py"


def _open(run_page: RunPage, query: dict[str, str]) -> tuple[dict[str, str], str]:
    at = run_page(PAGE, query=query, timeout=120)
    at.session_state["cmp_show_sequential"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    metrics = {plain(m.label): plain(m.value) for m in at.metric}
    return metrics, "\n".join(plain(m.value) for m in at.markdown)


def _cli(path: Path, a: str, b: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["compare", str(path), "--a", a, "--b", b, "--json", "--sequential"]) == 0
    return json.loads(capsys.readouterr().out)["sequential"]


def test_worked_example_section_says_what_the_cli_and_monitor_say(
    run_page: RunPage, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ROOT / "sample_data" / "worked_example_paired.csv"
    seq = _cli(path, "n=1", "n=3", capsys)
    meta = store.put(pd.read_csv(path), "paired", "worked example")
    metrics, text = _open(run_page, {"paired": meta.id, "cmp_mode": "one pair of my choice", "cmp_a": "n=1",
                                     "cmp_b": "n=3"})  # fmt: skip
    assert seq["sentence"] in text
    assert metrics["decided at case"] == "not yet" and seq["decided_at"] is None
    f = pd.read_csv(path)
    wide = f.pivot(index="case", columns="config", values="correct").loc[f["case"].unique()]
    mon = Monitor()
    for a, b in zip(wide["n=1"], wide["n=3"], strict=True):
        s = mon.update(a, b)
    assert s.decided_at is None and metrics["anytime p"] == f"{s.anytime_p:.2f}"


def test_repeats_section_decision_point_matches_monitor(
    run_page: RunPage, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(9)
    rows = []
    for case in range(400):
        p = rng.beta(2, 2)
        for cfg, q in (("A", p), ("B", min(1.0, p + 0.15))):
            rows += [{"case": case, "config": cfg, "epoch": e, "correct": int(rng.random() < q)} for e in (1, 2, 3)]
    frame = pd.DataFrame(rows)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    seq = _cli(path, "A", "B", capsys)
    meta = store.put(frame, "paired", "repeats")
    metrics, text = _open(run_page, {"paired": meta.id})
    assert seq["decided_at"] is not None and metrics["decided at case"] == f"{seq['decided_at']:,}"
    assert seq["sentence"] in text


@pytest.mark.shared
def test_chaosnli_section_decision_point_is_the_clis(
    run_page: RunPage, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chaos = SHARED / "datasets" / "chaosnli"
    out = tmp_path / "snli.csv"
    argv = ["data", "derive", "paired", "--predictions", str(chaos / "predictions_snli_mnli_baan2022.csv.gz")]
    argv += ["--ratings", str(chaos / "label_counts.csv.gz"), "--subset", "snli", "--out", str(out), "--json"]
    assert main(argv) == 0
    capsys.readouterr()
    a, b = "bert-base-uncased_seed0", "roberta-base_seed2"
    seq = _cli(out, a, b, capsys)
    meta = store.put(pd.read_csv(out), "paired", "chaosnli snli")
    metrics, text = _open(run_page, {"paired": meta.id, "cmp_mode": "one pair of my choice", "cmp_a": a, "cmp_b": b})
    assert seq["decided_at"] == 825 and metrics["decided at case"] == "825"
    assert seq["sentence"] in text


def test_planner_section_shows_the_fixed_n_plan_and_naive_peeking() -> None:
    from streamlit.testing.v1 import AppTest

    from nkcore.resolution import cases_for_power_exact

    def script() -> None:
        from ui.planner import sequential as planner_sequential

        planner_sequential.render(0.05, 0.04, 0.2, 0.8)

    at = AppTest.from_function(script, default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    metrics = {plain(m.label): plain(m.value) for m in at.metric}
    assert metrics["fixed-n (80% power)"] == f"{cases_for_power_exact(0.04, 0.2, 0.05, 0.8):,} cases"
    naive = int(metrics["false wins if peeking"].split("%")[0])
    assert naive >= 15  # severalfold alpha
