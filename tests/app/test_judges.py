"""Judges page (AppTest): it opens on the corrected verdict; its numbers equal ``nkcore.judge`` read independently
from the same file (the CLI's path: ``read_judge_table`` then ``judge_report``); a judge table stored as the Data page
stores it reaches the page through ``?eval=``; bad input (no human labels, one label, missing scores, text) gives a
sentence, never an exception; the bound widgets round-trip through the link.

Data: the built-in judged example (``sample_data/judged_example.csv``, written by ``nkcore.sample_data``) and small
tables built here; the oracle is ``nkcore.judge`` on the raw file (never the page's own helpers)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore import store
from nkcore.judge import judge_doc, judge_report, read_judge_table
from nkcore.kinds.judge import detect_judge
from tests.app.conftest import RunPage, error_texts, plain
from tests.app.helpers import data_line, leading_elements
from tests.conftest import ROOT
from ui.data.judge import judge_evaluation

PAGE = "pages/7_Judges.py"
EXAMPLE = ROOT / "sample_data" / "judged_example.csv"


def _report(path: Path, judges: list[str], config: str | None, case: str | None, scale: str = "auto", **kw: object):  # type: ignore[no-untyped-def]
    table = read_judge_table(path, judges, "human", config, case, scale, fill_missing_judge=True)
    kw = {"price_human": 1.0, "price_judge": 0.01} | kw
    return judge_report(table, **kw)  # type: ignore[arg-type]


def _ok(at: object) -> None:
    assert not at.exception, [e.value for e in at.exception]  # type: ignore[attr-defined]
    assert not error_texts(at), error_texts(at)  # type: ignore[arg-type]


def _configs_table(at: object) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "corrected mean" in d.value.columns)  # type: ignore[attr-defined]


def _assert_configs_equal(at: object, doc: dict) -> None:  # type: ignore[type-arg]
    table = _configs_table(at)
    assert list(table["config"]) == [c["config"] for c in doc["configs"]]
    for row, c in zip(table.to_dict("records"), doc["configs"], strict=True):
        for col, key in [
            ("corrected mean", "ppi_mean"),
            ("corrected from", "ci_low"),
            ("corrected to", "ci_high"),
            ("humans only", "human_only_mean"),
            ("humans only from", "human_only_ci_low"),
            ("humans only to", "human_only_ci_high"),
            ("judge only", "judge_only_mean"),
            ("labels the judge is worth", "effective_human_labels"),
            ("judge bias", "bias"),
        ]:
            assert math.isclose(row[col], c[key], rel_tol=1e-12, abs_tol=1e-12), (col, row[col], c[key])
        assert row["human labels"] == c["n_human"] and row["cases"] == c["n_cases"]


def test_opens_on_the_corrected_verdict_of_the_example(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=180)
    _ok(at)
    assert at.title[0].value == "Judges"
    assert "the built-in example" in data_line(at)
    report = _report(EXAMPLE, ["judge_large", "judge_small"], "config", "case")
    first = leading_elements(at, 3)[2]  # after the title and the purpose line: the verdict's first sentence
    assert first[0] == "markdown" and plain(first[1]).removeprefix("#### ") == report.verdict.split(" The judge")[0]
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "ranking by the judge alone would swap" in text  # the example's judge favours prompt-c: its ranking flips
    assert any("bias differs between configs" in plain(w.value) for w in at.warning)
    _assert_configs_equal(at, judge_doc(report))


def test_a_stored_judge_table_reaches_the_page_with_the_clis_numbers(run_page: RunPage, tmp_path: Path) -> None:
    raw = pd.read_csv(EXAMPLE)
    raw = raw[raw["config"] != "prompt-a"].rename(columns={"human": "human_score", "judge_large": "gpt_judge"})
    path = tmp_path / "two.csv"
    raw.to_csv(path, index=False)
    guess = detect_judge(raw)
    assert guess is not None and guess.human == "human_score" and guess.case == "case"
    stored = judge_evaluation(raw, list(guess.judges), guess.human, guess.config, guess.case, guess.scale)
    ds_id = store.put(stored, "paired", "two prompts.csv").id
    at = run_page(PAGE, query={"eval": ds_id}, timeout=180)
    _ok(at)
    assert "two prompts.csv" in data_line(at) and "built-in" not in data_line(at)
    table = read_judge_table(path, ["gpt_judge", "judge_small"], "human_score", "config", "case")
    _assert_configs_equal(at, judge_doc(judge_report(table, price_human=1.0, price_judge=0.01)))


def test_pairwise_verdicts_on_cases_of_their_own(run_page: RunPage, tmp_path: Path) -> None:
    """Pairwise verdicts (1 / 2 / tie) whose configs share no case: read as response 1's score, configs compared
    as independent samples, as ``--scale pairwise`` without ``--case-column``."""
    rng = np.random.default_rng(3)
    n = 240
    human = rng.choice([1, 2, 0], size=n, p=[0.5, 0.4, 0.1]).astype(float)
    judge = np.where(rng.random(n) < 0.7, human, rng.choice([1, 2, 0], size=n))
    frame = pd.DataFrame(
        {
            "item_id": np.arange(n),
            "config": np.repeat(["a vs b", "a vs c", "b vs c"], n // 3),
            "judge_gpt": judge.astype(int),
            "human": np.where(rng.random(n) < 0.3, human, np.nan),
        }
    )
    path = tmp_path / "pairwise.csv"
    frame.to_csv(path, index=False)
    guess = detect_judge(pd.read_csv(path))
    assert guess is not None and guess.scale == "pairwise" and guess.case is None
    stored = judge_evaluation(pd.read_csv(path), ["judge_gpt"], "human", "config", "item_id", "pairwise")
    ds_id = store.put(stored, "paired", "pairwise.csv").id
    at = run_page(PAGE, query={"eval": ds_id}, timeout=180)
    _ok(at)
    assert at.selectbox(key="jdg_case").value.startswith("(none")
    _assert_configs_equal(at, judge_doc(_report(path, ["judge_gpt"], "config", None, "pairwise")))


def test_an_evaluation_without_human_labels_says_so_and_shows_the_example(run_page: RunPage) -> None:
    runs = pd.read_csv(ROOT / "sample_data" / "worked_example_paired.csv").iloc[:400]  # not the built-in table
    ds_id = store.put(runs, "paired", "runs.csv").id
    at = run_page(PAGE, query={"eval": ds_id}, timeout=180)
    _ok(at)
    infos = [plain(i.value) for i in at.info]
    assert any("runs.csv has no human labels" in i and "built-in example" in i for i in infos), infos
    assert "the built-in example" in data_line(at)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("one label", "fewer than 2 human labels"),
        ("judge empty on a config", "scores no case of some config"),
    ],
)
def test_bad_judge_tables_give_a_sentence(run_page: RunPage, change: str, words: str) -> None:
    frame = pd.read_csv(EXAMPLE)
    if change == "one label":
        a = frame.index[(frame["config"] == "prompt-a") & frame["human"].notna()]
        frame.loc[a[1:], "human"] = np.nan
    else:
        frame.loc[frame["config"] == "prompt-b", "judge_large"] = np.nan
    ds_id = store.put(frame, "paired", "bad.csv").id
    at = run_page(PAGE, query={"eval": ds_id}, timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    errors = error_texts(at)
    assert len(errors) == 1 and words in errors[0], errors


@pytest.mark.parametrize("column", ["human", "judge_large"])
def test_text_in_a_score_column_is_not_read_as_a_score(run_page: RunPage, column: str) -> None:
    frame = pd.read_csv(EXAMPLE, dtype={column: str})
    frame.loc[3, column] = "excellent"
    ds_id = store.put(frame, "paired", "text.csv").id
    at = run_page(PAGE, query={"eval": ds_id}, timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    if column == "human":  # no human score column any more: said, and the example shown
        assert any("has no human labels" in plain(i.value) for i in at.info)
    else:  # the judge column with text is not offered: the other judge is read
        assert list(at.multiselect(key="jdg_judges").value) == ["judge_small"]
        assert not error_texts(at)


def test_missing_judge_scores_are_filled_and_said(run_page: RunPage, tmp_path: Path) -> None:
    frame = pd.read_csv(EXAMPLE)
    frame.loc[[4, 10, 11], "judge_large"] = np.nan
    path = tmp_path / "gaps.csv"
    frame.to_csv(path, index=False)
    ds_id = store.put(frame, "paired", "gaps.csv").id
    at = run_page(PAGE, query={"eval": ds_id}, timeout=180)
    _ok(at)
    notes = " ".join(plain(m.value) for m in at.markdown)
    assert "3 missing score(s) of judge 'judge_large' filled" in notes
    _assert_configs_equal(at, judge_doc(_report(path, ["judge_large", "judge_small"], "config", "case")))


def test_bound_widgets_round_trip_through_the_link(run_page: RunPage) -> None:
    query = {
        "jdg_width": "0.5",
        "jdg_price_h": "2.0",
        "jdg_price_j": "0.05",
        "jdg_alpha": "0.1",
        "jdg_judges": "judge_small",
    }
    at = run_page(PAGE, query=query, timeout=180)
    _ok(at)
    assert at.select_slider(key="jdg_width").value == 0.5
    assert at.number_input(key="jdg_price_h").value == 2.0 and at.number_input(key="jdg_price_j").value == 0.05
    assert at.select_slider(key="jdg_alpha").value == 0.1
    assert list(at.multiselect(key="jdg_judges").value) == ["judge_small"]
    base = _report(EXAMPLE, ["judge_small"], "config", "case", significance=0.1, price_human=2.0, price_judge=0.05)
    assert base.plan is not None
    report = _report(
        EXAMPLE,
        ["judge_small"],
        "config",
        "case",
        significance=0.1,
        price_human=2.0,
        price_judge=0.05,
        half_width=0.5 * base.plan.target_half_width,
    )
    _assert_configs_equal(at, judge_doc(report))
    text = " ".join(plain(m.value) for m in at.markdown)
    assert report.plan is not None and f"{report.plan.labels.human_only_labels} labels" in text
    # the view made on the page, opened again from a link of its widgets' values, is the same view
    at.select_slider(key="jdg_width").set_value(2.0).run()
    at.selectbox(key="jdg_case").set_value("(none: each config has its own cases)").run()
    _ok(at)
    link = {
        "jdg_width": str(at.select_slider(key="jdg_width").value),
        "jdg_case": at.selectbox(key="jdg_case").value,
        "jdg_judges": at.multiselect(key="jdg_judges").value[0],
        "jdg_alpha": str(at.select_slider(key="jdg_alpha").value),
        "jdg_price_h": str(at.number_input(key="jdg_price_h").value),
        "jdg_price_j": str(at.number_input(key="jdg_price_j").value),
    }
    again = run_page(PAGE, query=link, timeout=180)
    _ok(again)
    assert again.selectbox(key="jdg_case").value == link["jdg_case"]
    assert again.select_slider(key="jdg_width").value == 2.0
    pd.testing.assert_frame_equal(_configs_table(again), _configs_table(at))
    table = next(d.value for d in again.dataframe if "paired by case" in d.value.columns)
    assert set(table["paired by case"]) == {"no"}  # no case column: configs compared as independent samples


def test_the_three_intervals_chart_is_valid_vega_lite() -> None:
    from ui.charts.judge import METHODS, three_intervals

    rows = pd.DataFrame(
        {
            "config": ["a", "a", "a", "b", "b", "b"],
            "method": list(METHODS) * 2,
            "estimate": [3.1, 3.0, 3.6, 2.9, 3.0, 3.2],
            "ci_low": [2.9, 2.7, 3.5, 2.7, 2.7, 3.1],
            "ci_high": [3.3, 3.3, 3.7, 3.1, 3.3, 3.3],
        }
    )
    spec = three_intervals(rows, "gpt").to_dict(validate=True)
    assert spec["layer"][0]["encoding"]["x"]["title"] and spec["layer"][0]["encoding"]["y"]["title"] == "config"


def _upload(run_page: RunPage, name: str, content: bytes):  # type: ignore[no-untyped-def]
    at = run_page("pages/1_Data.py", timeout=180)
    at.file_uploader(key="dat_upload").set_value((name, content, "application/octet-stream"))
    return at.run()


def test_the_data_page_stores_a_judge_table_and_the_judges_page_reads_it(run_page: RunPage) -> None:
    """Upload the example under other column names: detected as a judge table, stored as the evaluation in use
    (the link's ?eval=), and the Judges page opened on that link gives nkcore's numbers on the file."""
    raw = pd.read_csv(EXAMPLE).rename(columns={"human": "human_rating", "config": "system"})
    at = _upload(run_page, "team judge.csv", raw.to_csv(index=False).encode())
    assert not at.exception and not error_texts(at), error_texts(at)
    assert any("valid judge table" in plain(s.value) for s in at.success)
    assert next(s for s in at.selectbox if s.label.startswith("Human score")).value == "human_rating"
    at = at.button(key="dat_save").click().run()
    assert not at.exception and not error_texts(at), error_texts(at)
    assert any("judge scores with human labels" in plain(s.value) for s in at.success)
    ds_id = at.query_params["eval"]
    ds_id = ds_id[0] if isinstance(ds_id, list) else ds_id
    stored = store.get(ds_id)[1]
    assert {"case", "config", "correct", "human", "judge_large", "judge_small"} <= set(stored.columns)
    page = run_page(PAGE, query={"eval": ds_id}, timeout=180)
    _ok(page)
    assert "team judge.csv" in data_line(page)
    table = read_judge_table(EXAMPLE, ["judge_large", "judge_small"], "human", "config", "case")
    _assert_configs_equal(page, judge_doc(judge_report(table, price_human=1.0, price_judge=0.01)))


def test_a_judge_table_with_one_human_label_is_refused_in_a_sentence(run_page: RunPage) -> None:
    raw = pd.read_csv(EXAMPLE)
    labelled = raw.index[(raw["config"] == "prompt-c") & raw["human"].notna()]
    raw.loc[labelled[1:], "human"] = np.nan
    at = _upload(run_page, "one label.csv", raw.to_csv(index=False).encode())
    assert not at.exception, [e.value for e in at.exception]
    errors = error_texts(at)
    assert len(errors) == 1 and "'prompt-c' has fewer than 2 human labels" in errors[0], errors
    assert not at.button  # nothing to store


def test_the_page_says_which_interval_and_why_it_is_widened(run_page: RunPage, tmp_path: Path) -> None:
    """0/1 verdicts, 30 human labels per config and a judge that agrees with people on about 95% of them: the case
    the benchmark once measured at 91% coverage (then flagged "less reliable"), now in the sparse verdict corner
    with a widened interval. The page names the t interval and why, says which configs are widened and why in the
    CLI's words (``sparse_note``), marks them in the table, and flags nothing as less reliable."""
    rng = np.random.default_rng(8)
    n = 300
    parts = []
    for config, p in (("model-a", 0.6), ("model-b", 0.5)):
        h = (rng.random(n) < p).astype(int)
        j = np.where(rng.random(n) < 0.05, 1 - h, h)
        human = np.where(np.arange(n) < 30, h, np.nan)
        parts.append(pd.DataFrame({"case": np.arange(n), "config": config, "judge": j, "human": human}))
    frame = pd.concat(parts, ignore_index=True)
    path = tmp_path / "verdicts.csv"
    frame.to_csv(path, index=False)
    stored = judge_evaluation(pd.read_csv(path), ["judge"], "human", "config", "case", "numeric")
    ds_id = store.put(stored, "paired", "verdicts.csv").id
    at = run_page(PAGE, query={"eval": ds_id}, timeout=180)
    _ok(at)
    doc = judge_doc(_report(path, ["judge"], "config", "case", "numeric"))
    assert [c["interval"] for c in doc["configs"]] == ["t", "t"]
    widened = [c["config"] for c in doc["configs"] if c["sparse_note"]]
    assert widened and not any(c["less_reliable"] for c in doc["configs"])  # the oracle: the sparse corner
    _assert_configs_equal(at, doc)
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "fewer than 50 human labels" in captions and "small-sample (t) interval" in captions
    infos = " ".join(plain(i.value) for i in at.info)
    assert "Widened intervals" in infos
    assert all(c["sparse_note"] in infos for c in doc["configs"] if c["sparse_note"])
    assert not any("less reliable" in plain(w.value) for w in at.warning)
    cells = _configs_table(at)
    marked = [r["config"] for r in cells.to_dict("records") if "widened" in str(r["corrected_interval"])]
    assert marked == widened
