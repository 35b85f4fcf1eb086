"""``compare --sequential [--order COLUMN]``: the JSON key ``sequential`` (its contract keys), the same decision point
as Monitor fed the cases by hand, file order vs a column, and the real ChaosNLI runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore.cli import main
from nkcore.sequential import Monitor
from tests.conftest import ROOT, SHARED

SEQ_KEYS = {"decided_at", "winner", "anytime_p", "low", "high", "looks"}
WORKED = ROOT / "sample_data" / "worked_example_paired.csv"


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _monitor(pairs: list[tuple[object, object]], alpha: float = 0.05) -> tuple[int | None, str | None, float]:
    mon = Monitor(alpha)
    for a, b in pairs:
        s = mon.update(a, b)  # type: ignore[arg-type]
    return s.decided_at, s.winner, s.anytime_p


def test_worked_example_sequential_matches_monitor_and_is_absent_without_the_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plain = _json(capsys, ["compare", str(WORKED), "--a", "n=1", "--b", "n=3", "--json"])
    assert "sequential" not in plain
    doc = _json(capsys, ["compare", str(WORKED), "--a", "n=1", "--b", "n=3", "--json", "--sequential"])
    seq = doc["sequential"]
    assert SEQ_KEYS <= set(seq) and {k: doc[k] for k in plain} == plain
    f = pd.read_csv(WORKED)
    wide = f.pivot(index="case", columns="config", values="correct").loc[f["case"].unique()]
    got = _monitor(list(zip(wide["n=1"], wide["n=3"], strict=True)))
    assert (seq["decided_at"], seq["winner"]) == got[:2] and seq["anytime_p"] == pytest.approx(got[2], rel=1e-9)
    assert seq["decided_at"] is None and seq["winner"] is None  # 26 vs 12 of 38 is not enough evidence to stop on
    assert seq["looks"][-1]["n"] == 200 and len(seq["looks"]) <= 41
    assert seq["low"] < doc["diff"] < seq["high"]
    assert main(["compare", str(WORKED), "--a", "n=1", "--b", "n=3", "--sequential"]) == 0
    out = capsys.readouterr().out
    assert "not decided after 200 cases" in out and "running state" in out


def test_order_column_reorders_the_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = 60
    a = np.zeros(n, int)
    b = np.r_[np.ones(20, int), np.zeros(40, int)]  # B's 20 wins come first in the file
    when = pd.date_range("2025-01-01", periods=n, freq="min")[::-1]  # ...and last in time
    f = pd.DataFrame(
        {
            "case": np.repeat(np.arange(n), 2),
            "config": ["A", "B"] * n,
            "correct": np.c_[a, b].ravel(),
            "time": np.repeat(when.astype(str), 2),
        }
    )
    path = tmp_path / "p.csv"
    f.to_csv(path, index=False)
    first = _json(capsys, ["compare", str(path), "--json", "--sequential"])["sequential"]
    timed = _json(capsys, ["compare", str(path), "--json", "--sequential", "--order", "time"])["sequential"]
    assert (first["decided_at"], first["winner"]) == _monitor(list(zip(a, b, strict=True)))[:2]
    assert (timed["decided_at"], timed["winner"]) == _monitor(list(zip(a[::-1], b[::-1], strict=True)))[:2]
    assert first["decided_at"] == 11 and timed["decided_at"] == 40 + 11  # the 40 ties first, then the same 11 wins
    assert timed["order"] == "time"
    assert main(["compare", str(path), "--order", "time"]) == 2
    assert "--sequential" in capsys.readouterr().err
    assert main(["compare", str(path), "--sequential", "--order", "nope"]) == 2
    assert "no such column" in capsys.readouterr().err


def test_repeats_are_monitored_on_case_means(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(4)
    rows = []
    for case in range(300):
        p = rng.beta(2, 2)
        for cfg, q in (("A", p), ("B", min(1.0, p + 0.15))):
            rows += [{"case": case, "config": cfg, "epoch": e, "correct": int(rng.random() < q)} for e in (1, 2, 3)]
    f = pd.DataFrame(rows)
    path = tmp_path / "r.csv"
    f.to_csv(path, index=False)
    seq = _json(capsys, ["compare", str(path), "--json", "--sequential"])["sequential"]
    by = f.groupby(["case", "config"], sort=False)["correct"].apply(list).unstack()
    assert (seq["decided_at"], seq["winner"]) == _monitor(list(zip(by["A"], by["B"], strict=True)))[:2]
    assert seq["winner"] == "b" and "Bernstein" in seq["method"]


@pytest.mark.shared
def test_chaosnli_runs_decision_point_matches_monitor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chaos = SHARED / "datasets" / "chaosnli"
    out = tmp_path / "snli.csv"
    argv = ["data", "derive", "paired", "--predictions", str(chaos / "predictions_snli_mnli_baan2022.csv.gz")]
    argv += ["--ratings", str(chaos / "label_counts.csv.gz"), "--subset", "snli", "--out", str(out), "--json"]
    assert main(argv) == 0
    capsys.readouterr()
    f = pd.read_csv(out)
    for a, b in (("bert-base-uncased_seed0", "roberta-base_seed2"), ("roberta-base_seed0", "roberta-base_seed1")):
        doc = _json(capsys, ["compare", str(out), "--a", a, "--b", b, "--json", "--sequential"])
        wide = f.pivot(index="case", columns="config", values="correct").loc[f["case"].unique()]
        got = _monitor(list(zip(wide[a], wide[b], strict=True)))
        assert (doc["sequential"]["decided_at"], doc["sequential"]["winner"]) == got[:2]
    assert got[0] is None


def test_ordering_by_a_configs_own_results_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sorting the cases by B's 0/1 results puts B's wins first: on two equal configs the anytime-valid test then
    'decided at case 21' (p = 1e-23). The order must come from outside the results."""
    import numpy as np
    import pandas as pd

    from nkcore import sequential

    rng = np.random.default_rng(0)
    long = pd.DataFrame(
        {"case": np.repeat(np.arange(400), 2), "config": ["A", "B"] * 400, "correct": rng.integers(0, 2, 800)}
    )
    assert sequential.order_columns(long.assign(t=1)) == ["t"]
    assert sequential.order_columns(long.pivot(index="case", columns="config", values="correct").reset_index()) == []
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    capsys.readouterr()
    assert main(["compare", str(path), "--sequential", "--order", "correct"]) == 2
    assert "cannot order the cases" in capsys.readouterr().err
