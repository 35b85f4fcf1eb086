"""Judge tables told apart (``nkcore.kinds.judge``): the column guess on the three real judge files equals the
arguments ``benchmarks/judge_shapes.py`` gives the CLI for them (written by hand from each dataset's README), and
tables that are not judge tables are not taken for one."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from nkcore.kinds.judge import cases_shared, detect_judge, guess_scale
from tests.conftest import ROOT

DATASETS = ROOT.parent / "shared" / "datasets"


def _cli_args(args: tuple[str, ...]) -> dict[str, object]:
    """The CLI arguments as the guess's fields."""
    out: dict[str, object] = {"judges": [], "config": None, "case": None, "scale": "numeric"}
    it = iter(args)
    for a in it:
        if a == "--judge-column":
            out["judges"].append(next(it))  # type: ignore[attr-defined]
        elif a == "--human-column":
            out["human"] = next(it)
        elif a == "--config-column":
            out["config"] = next(it)
        elif a == "--case-column":
            out["case"] = next(it)
        elif a == "--scale":
            out["scale"] = next(it)
    return out


@pytest.mark.shared
@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent")
@pytest.mark.parametrize("builder", ["pandalm", "hanna", "llmbar"])
def test_the_guess_on_real_judge_files_is_the_clis_arguments(builder: str, tmp_path: Path) -> None:
    from benchmarks import judge_shapes

    jf = getattr(judge_shapes, builder)(tmp_path)
    guess = detect_judge(pd.read_csv(jf.path))
    want = _cli_args(tuple(jf.args))
    assert guess is not None
    assert list(guess.judges) == want["judges"]
    assert (guess.human, guess.config, guess.case, guess.scale) == (
        want["human"],
        want["config"],
        want["case"],
        want["scale"],
    )


def test_tables_that_are_not_judge_tables() -> None:
    paired = pd.DataFrame({"case": [1, 1, 2, 2], "config": ["a", "b", "a", "b"], "correct": [1, 0, 1, 1]})
    assert detect_judge(paired) is None  # no human column
    full = pd.DataFrame({"case": [1, 2, 3], "judge": [3, 4, 5], "human": [3, 4, 4]})
    assert detect_judge(full) is None  # a human label on every row: nothing to correct
    text = pd.DataFrame({"case": [1, 2, 3], "judge": ["good", "bad", "ok"], "human": [3, None, 4]})
    assert detect_judge(text) is None  # the only other column is not a score


def test_scale_and_shared_cases() -> None:
    assert guess_scale(pd.DataFrame({"v": ["A", "tie", "B"]}), ["v"]) == "pairwise"
    assert guess_scale(pd.DataFrame({"v": [0.0, 1.0, 1.0]}), ["v"]) == "numeric"  # 0/1 is a score, not a verdict
    assert guess_scale(pd.DataFrame({"v": [1.5, 2.0]}), ["v"]) == "numeric"
    frame = pd.DataFrame({"c": ["x", "x", "y"], "k": ["a", "b", "a"]})
    assert cases_shared(frame, "c", "k") and not cases_shared(frame, None, "k") and cases_shared(frame, "c", None)
