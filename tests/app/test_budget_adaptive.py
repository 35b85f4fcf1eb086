"""AppTest of the Budget page's adaptive section: the rows beside fixed (N, K), the CLI's numbers on every adaptive
cell (the command shown is run here and compared), the words, and raters who are not alike."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nkcore.cli import main
from nkcore.nk.number_words import fmt_share_error
from tests.app.conftest import RunPage, error_texts, plain

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/2_Budget.py"
TIMEOUT = 240
QUERY = {"bud_prior": "DICES", "bud_maxb": "1000", "bud_ks": "1,5,10", "bud_cell": "500x10", "bud_adaptive": "true"}


def _tables(at: AppTest) -> list[list[dict[str, object]]]:
    return [t.value.to_dict("records") for t in at.dataframe]


def _adaptive_table(at: AppTest) -> list[dict[str, object]]:
    return next(t for t in _tables(at) if t and "how the ratings are spread" in t[0])


def test_adaptive_rows_match_the_cli(run_page: RunPage, capsys: pytest.CaptureFixture[str]) -> None:
    at = run_page(PAGE, query=QUERY, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    rows = _adaptive_table(at)
    assert [str(r["how the ratings are spread"]).split(":")[0] for r in rows] == ["fixed", "margin", "sequential"]
    assert rows[0]["ratings per item (mean / most)"] == "10.0 / 10" and rows[0]["items (N)"] == "50"
    commands = next(c.value for c in at.code if "--adaptive" in c.value).splitlines()
    assert len(commands) == 2
    for line, row in zip(commands, rows[1:], strict=True):
        argv = shlex.split(line)[3:]  # after "python -m nkcore"
        capsys.readouterr()
        assert main(argv) == 0
        got = json.loads(capsys.readouterr().out)
        assert row["p-value"] == _fmt_p(got["p"])
        assert row["A ahead in"] == fmt_share_error(got["reproducibility"], got["reproducibility_error"])
        assert " ± " in row["A ahead in"]  # a simulated share: its Monte Carlo error beside it (issue 53)
        assert row["ratings per item (mean / most)"] == (
            f"{got['mean_ratings_per_item']:.1f} / {got['max_ratings_per_item']}"
        )
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "every item got 5 ratings first" in text and "Across budgets" in text
    assert "reproducible (p < 0.05)" in text or "within the budgets tried" in text


def _fmt_p(p: float) -> str:
    from nkcore.nk.sentences import fmt_p

    return fmt_p(p)


def test_fixed_row_is_the_cell_above_and_settings_change_the_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, query=QUERY, timeout=TIMEOUT)
    m = {plain(x.label): plain(x.value) for x in at.metric}
    rows = _adaptive_table(at)
    assert rows[0]["p-value"] == m["p-value"]
    before = rows[1]["p-value"], rows[1]["ratings per item (mean / most)"]
    at.select_slider(key="bud_ad_contested").set_value(0.5).run(timeout=TIMEOUT)
    assert not at.exception
    after = _adaptive_table(at)[1]
    assert (after["p-value"], after["ratings per item (mean / most)"]) != before


def test_raters_not_alike_rows_and_sentence(run_page: RunPage) -> None:
    at = run_page(PAGE, query=QUERY, timeout=TIMEOUT)
    at.select_slider(key="bud_ad_poor").set_value(0.3).run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    tables = [t for t in _tables(at) if t and "how the ratings are spread" in t[0]]
    assert len(tables) == 2 and len(tables[1]) == 3
    assert "30% of them random" in str(tables[1][1]["how the ratings are spread"])
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "weighting them down" in text and ("minimal budget" in text or "neither reaches p < 0.05" in text)


def test_closed_section_costs_nothing(run_page: RunPage) -> None:
    at = run_page(PAGE, query={k: v for k, v in QUERY.items() if k != "bud_adaptive"}, timeout=TIMEOUT)
    assert not at.exception
    assert not [t for t in _tables(at) if t and "how the ratings are spread" in t[0]]


def test_real_data_rows_say_same_winner_and_match_the_resampler(
    run_page: RunPage, capsys: pytest.CaptureFixture[str]
) -> None:
    query = {
        "bud_src": "Resample ratings + predictions",
        "bud_maxb": "500",
        "bud_ks": "1,2,5",
        "bud_cell": "500x5",
        "bud_adaptive": "true",
    }
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    rows = _adaptive_table(at)
    assert "same winner as all the data" in rows[0] and len(rows) == 3
    most = [int(str(r["ratings per item (mean / most)"]).split(" / ")[1]) for r in rows]
    assert most[0] == 5 and most[1] > 5
    commands = next(c.value for c in at.code if "--adaptive" in c.value)
    assert "--ratings RATINGS --predictions PREDICTIONS" in commands
    # the page's samples are sample_data/ratings.csv and predictions.csv: the CLI gives every row's numbers
    for line, row in zip(commands.splitlines(), rows[1:], strict=True):
        line = line.replace("RATINGS", str(ROOT / "sample_data" / "ratings.csv"))
        line = line.replace("PREDICTIONS", str(ROOT / "sample_data" / "predictions.csv"))
        capsys.readouterr()
        assert main(shlex.split(line)[3:]) == 0
        got = json.loads(capsys.readouterr().out)
        shown = str(row["same winner as all the data"])  # the share with its Monte Carlo error: "0.985 ± 0.009"
        share, error = (float(x) for x in shown.split(" ± "))
        decimals = len(shown.split(" ± ")[1].split(".")[1])
        assert row["p-value"] == _fmt_p(got["p"])
        assert (share, error) == (
            round(got["reproducibility"], decimals),
            round(got["reproducibility_error"], decimals),
        )
        assert (
            row["ratings per item (mean / most)"]
            == f"{got['mean_ratings_per_item']:.1f} / {got['max_ratings_per_item']}"
        )


def _population_frame() -> pd.DataFrame:
    """200 items x 11 raters, 3 labels: 8 raters answer from the item's distribution, 3 at random."""
    rng = np.random.default_rng(7)
    beta = rng.dirichlet((1.0, 0.3, 0.3), 200)
    rows = []
    for i in range(200):
        for r in range(11):
            lab = rng.choice(3, p=beta[i]) if r < 8 else rng.integers(3)
            rows.append((f"i{i}", f"r{r:02d}", "abc"[lab]))
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def test_fitted_raters_replace_the_typed_share_and_match_the_cli(
    run_page: RunPage, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from nkcore import store

    frame = _population_frame()
    ds = store.put(frame, "ratings", "three random raters").id
    query = {
        "bud_src": "Prior fitted to ratings",
        "ratings": ds,
        "bud_maxb": "500",
        "bud_ks": "2,5",
        "bud_cell": "500x5",
        "bud_adaptive": "true",
    }
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "3 raters of 11 are well below the others" in text
    assert not [s for s in at.select_slider if s.key == "bud_ad_poor"]  # the fitted population, not the typed share
    rows = [t for t in _tables(at) if t and "how the ratings are spread" in t[0]][-1]
    assert [str(r["how the ratings are spread"]) for r in rows][1:] == [
        "fixed: 5 each, these raters, counted like the others",
        "fixed: 5 each, these raters, weighted by quality",
    ]
    command = next(c.value for c in at.code if "--population" in c.value)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    capsys.readouterr()
    assert main(shlex.split(command.replace("RATINGS", str(path)))[3:]) == 0
    got = json.loads(capsys.readouterr().out)["population"]
    assert got["sentence"] in text  # the same fit
    shift = got["shift"]["metrics"][0]
    assert plain(shift["sentence"]) in text  # the same minimal budgets, in the same words
    best = next(t for t in _tables(at) if t and "best K, raters alike" in t[0])
    assert [r["best K, these raters"] for r in best] == [b["k"] for b in shift["best_k"]["unweighted"]]
    assert [r["best K, weighted by quality"] for r in best] == [b["k"] for b in shift["best_k"]["weighted"]]


def test_raters_alike_keep_the_typed_share(run_page: RunPage) -> None:
    query = {"bud_src": "Prior fitted to ratings", "bud_maxb": "500", "bud_ks": "2,5", "bud_cell": "500x5"}
    at = run_page(PAGE, query=query | {"bud_adaptive": "true"}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "No rater of 120 is clearly below the others" in text  # the sample's raters are alike by construction
    assert [s for s in at.select_slider if s.key == "bud_ad_poor"]
