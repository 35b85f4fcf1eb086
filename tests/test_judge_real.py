"""``judge`` on three shared datasets (PandaLM, HANNA, LLMBar), built into the CLI's shape in a temporary folder by
``benchmarks/judge_shapes.py`` (a seeded 25% of the human labels kept): the JSON contract, the humans-only and
judge-only numbers recomputed from the file with pandas, and the corrected intervals against every human label
(the value PPI estimates)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.judge_shapes import BUILDERS, JudgeFile
from nkcore.cli import main

pytestmark = pytest.mark.shared

PAIRWISE = {1: 1.0, 2: 0.0, 0: 0.5}


def _run(capsys: pytest.CaptureFixture[str], jf: JudgeFile) -> dict:
    code = main(["judge", str(jf.path), *jf.args, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _scores(col: pd.Series, pairwise: bool) -> pd.Series:
    return col.map(PAIRWISE) if pairwise else col.astype(float)


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_real_dataset(build: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jf = build(tmp_path)  # type: ignore[operator]
    doc = _run(capsys, jf)
    raw = pd.read_csv(jf.path)
    pairwise = "pairwise" in jf.args
    judge = jf.args[jf.args.index("--judge-column") + 1]
    raw["j"] = _scores(raw[judge], pairwise)
    raw["j"] = raw["j"].fillna(raw.groupby("config")["j"].transform("mean"))  # --fill-missing-judge
    raw["h"] = _scores(raw["human"], pairwise)
    raw["h_all"] = _scores(raw["human_all"], pairwise)
    assert {c["config"] for c in doc["configs"]} == set(raw["config"])
    covered = 0
    for c in doc["configs"]:
        rows = raw[raw["config"] == c["config"]]
        assert c["n_cases"] == len(rows) and c["n_human"] == rows["h"].notna().sum()
        assert c["human_only_mean"] == pytest.approx(rows["h"].mean())
        assert c["judge_only_mean"] == pytest.approx(rows["j"].mean())
        assert c["ci_low"] <= c["ppi_mean"] <= c["ci_high"]
        assert c["ci_high"] - c["ci_low"] <= c["human_only_ci_high"] - c["human_only_ci_low"] + 1e-12
        covered += c["ci_low"] <= rows["h_all"].mean() <= c["ci_high"]
    # each interval covers the mean of every human label with 95% (it is an estimate of a larger population's mean,
    # and the all-labels mean of a finite set is closer still): at most a few misses in 8-11 configs
    assert covered >= len(doc["configs"]) - 2
    assert isinstance(doc["verdict"], str) and len(doc["judges"]) >= 2 and doc["panel"] is not None
    assert np.isfinite(doc["panel"]["effective_judges"])
