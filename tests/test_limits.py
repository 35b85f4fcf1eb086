"""The work budget of one request: every reproduction of the reliability issue is refused in one line, early.

Each test would fail on the code before the limits: a RecursionError traceback (nested JSON), a MemoryError or an
allocation of hundreds of MB (10,000 labels), minutes of parsing (a 50 MB line), or work started before refusal.
"""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore.cli import main
from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.io import read_table
from nkcore.nk import grid, resample, simulate
from nkcore.nk.count_gaps import gaps_from_counts_cm
from nkcore.nk.priors import get_prior, validate_prior
from nkcore.ratings import ratings_from_frame

NESTED = "[" * 5000 + "]" * 5000


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run the CLI; assert exit 2, nothing on stdout and exactly one line on stderr; return that line."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
@pytest.mark.parametrize("command", [["data"], ["compare"], ["fanout", "--latencies"]])
def test_deeply_nested_json_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str], suffix: str
) -> None:
    path = tmp_path / f"nested{suffix}"
    path.write_text(NESTED + "\n")
    line = _one_line_error(capsys, [*command, str(path)])
    assert "nested more than 64 levels deep" in line and "NKP_MAX_JSON_DEPTH" in line


def test_nested_json_on_a_later_line_is_located(tmp_path: Path) -> None:
    body = '{"item": 1, "label": "a"}\n' * 3 + '{"item": 2, "label": ' + "[" * 100 + "]" * 100 + "}\n"
    with pytest.raises(DataError, match="the JSON on line 4 is nested more than 64 levels"):
        read_table(body.encode(), "x.jsonl")


def test_brackets_inside_strings_do_not_nest() -> None:
    text = json.dumps({"item": 1, "label": "[" * 500 + '"{' * 100}) + "\n" + json.dumps({"item": 2, "label": "b"})
    frame = read_table(text.encode(), "x.jsonl")
    assert frame["label"].iloc[0] == "[" * 500 + '"{' * 100


def test_json_depth_limit_is_exact_and_env_overridable(monkeypatch: pytest.MonkeyPatch) -> None:
    body = b'[{"item": 1, "label": [1]}, {"item": 2, "label": [2]}]'  # depth 3: array, object, list
    monkeypatch.setenv("NKP_MAX_JSON_DEPTH", "3")
    assert read_table(body, "x.json").shape == (2, 2)
    monkeypatch.setenv("NKP_MAX_JSON_DEPTH", "2")
    with pytest.raises(DataError, match="nested more than 2 levels deep; the limit is 2 levels"):
        read_table(body, "x.json")


def test_a_recursion_error_past_the_scan_is_still_a_data_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_JSON_DEPTH", "100000")  # the scan lets it through: the parser's own failure
    with pytest.raises(DataError, match="nested too deeply"):
        read_table(NESTED.encode(), "x.json")


def _labels_frame(n_labels: int) -> pd.DataFrame:
    items = np.repeat(np.arange(n_labels), 2)
    labels = [f"L{(i + j) % n_labels}" for i in range(n_labels) for j in range(2)]
    return pd.DataFrame({"item": items, "rater": ["a", "b"] * n_labels, "label": labels})


def test_ten_thousand_labels_are_refused_before_the_count_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    frame = _labels_frame(10_000)
    path = tmp_path / "labels.csv"
    frame.to_csv(path, index=False)
    line = _one_line_error(capsys, ["nk", "--ratings", str(path), "--budget", "100", "--k", "2"])
    assert "10,000 distinct labels; the limit is 100 distinct labels" in line and "NKP_MAX_LABELS" in line
    tracemalloc.start()
    try:
        with pytest.raises(DataError, match="10,000 distinct labels"):
            ratings_from_frame(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20  # the old code made a 10,000 x 10,000 int64 table (763 MiB) and float copies of it


def test_the_label_limit_is_the_prior_s_limit_too(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(validate_prior([1.0] * 100)) == 100
    with pytest.raises(DataError, match="the prior \\(alpha\\) has 101 distinct labels; the limit is 100"):
        validate_prior([1.0] * 101)
    monkeypatch.setenv("NKP_MAX_LABELS", "3")
    with pytest.raises(DataError, match="the ratings table has 4 distinct labels; the limit is 3"):
        ratings_from_frame(_labels_frame(4))


def test_a_50_mb_line_is_refused_before_parsing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = b"item,rater,label\n" + b"1," * 25_000_000 + b"1\n2,a,b\n"
    with pytest.raises(DataError, match=r"line 2 is longer than 1,048,576 bytes on one line.*NKP_MAX_LINE_BYTES"):
        read_table(data, "wide.csv")
    path = tmp_path / "wide.csv"
    path.write_bytes(data)
    assert "line 2 is longer than" in _one_line_error(capsys, ["data", str(path)])


def test_the_line_limit_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_LINE_BYTES", "20")
    ok = b"item,rater,label\n" + b"1,a,xxxxxxxxxxxxxxxx\n" + b"2,a,y\n"  # longest line: exactly 20 bytes
    assert read_table(ok, "ok.csv").shape == (2, 3)
    with pytest.raises(DataError, match="line 4 is longer than 20 bytes"):
        read_table(ok + b"3,a,xxxxxxxxxxxxxxxxx\n", "bad.csv")


def test_row_limit_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    csv = b"item,rater,label\n" + b"".join(b"%d,a,x\n" % i for i in range(4))
    jsonl = b"".join(b'{"item": %d, "label": "x"}\n' % i for i in range(4))
    assert read_table(csv, "r.csv").shape == (4, 3)
    monkeypatch.setenv("NKP_MAX_ROWS", "4")
    assert read_table(csv, "r.csv").shape == (4, 3)
    monkeypatch.setenv("NKP_MAX_ROWS", "3")
    with pytest.raises(
        DataError, match=r"r.csv: the file has more than 3 rows; the limit is 3 rows \(server setting NKP_MAX_ROWS\)"
    ):
        read_table(csv, "r.csv")
    with pytest.raises(DataError, match=r"r\.jsonl: the file has more than 3 rows; the limit is 3 rows"):
        read_table(jsonl, "r.jsonl")
    # reading stops just past the limit: a file of 800 rows is not said to have 4 (it said "has 101 rows" at 100)
    many = b"item,rater,label\n" + b"".join(b"%d,a,x\n" % i for i in range(800))
    with pytest.raises(DataError, match=r"the file has more than 3 rows;"):
        read_table(many, "many.csv")


def test_cell_limit_bounds_wide_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    wide = b",".join(b"c%d" % d for d in range(10)) + b"\n" + b"".join(b"0,1,2,3,4,5,6,7,8,9\n" for _ in range(5))
    monkeypatch.setenv("NKP_MAX_CELLS", "50")
    assert read_table(wide, "w.csv").shape == (5, 10)
    monkeypatch.setenv("NKP_MAX_CELLS", "49")
    with pytest.raises(DataError, match=r"the file has more than 49 cells \(rows x columns\); the limit is 49"):
        read_table(wide, "w.csv")
    assert read_table(wide[: wide.index(b"\n") + 1] + b"0,1,2,3,4,5,6,7,8,9\n" * 4, "w.csv").shape == (4, 10)


def test_a_file_of_separators_is_refused_before_it_is_tokenized(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_CELLS", "10")
    ok = b"item,rater,label\n1,a,x\n2,a,y\n"  # 6 separators
    assert read_table(ok, "ok.csv").shape == (2, 3)
    with pytest.raises(DataError, match="the file has 21 ',' separators, more than twice the cell limit of 10"):
        read_table(b"item,rater,label\n" + b"1," * 19 + b"1\n", "commas.csv")


@pytest.mark.parametrize("raw", ["abc", "0", "-5", "", "1.5"])
def test_an_unusable_env_value_keeps_the_default(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], raw: str
) -> None:
    """... and `limits` says so (it showed the default with no mark, as if the setting had not been made)."""
    monkeypatch.setenv("NKP_MAX_ROWS", raw)
    assert limits.get("rows") == limits.LIMITS["rows"].default
    assert limits.unusable_settings() == [f"NKP_MAX_ROWS={raw!r}"]
    assert main(["limits"]) == 0
    assert f"the default is in force: NKP_MAX_ROWS={raw!r}" in capsys.readouterr().out
    monkeypatch.setenv("NKP_MAX_ROWS", "1_000")
    assert limits.unusable_settings() == []


def test_a_gzip_bomb_is_refused_after_reading_just_past_the_ratio() -> None:
    bomb = gzip.compress(b"0" * 50_000_000)  # about 50 KB that unpack to 50 MB: ratio about 1,000
    assert len(bomb) * limits.get("gzip_ratio") < 50_000_000
    tracemalloc.start()
    try:
        with pytest.raises(DataError, match=r"times its packed size.*NKP_MAX_GZIP_RATIO"):
            read_table(bomb, "bomb.csv.gz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(bomb) * limits.get("gzip_ratio")  # never the 50 MB


def test_check_memory_refuses_before_any_simulation_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("a simulation task ran before the request was checked")

    monkeypatch.setattr(simulate, "_task", no_work)
    with pytest.raises(DataError, match=r"the simulation at its peak needs .* bytes of memory.*NKP_MAX_MEMORY_BYTES"):
        simulate.simulate_gaps([1.0] * 100, 0.3, [(1_000_000, 1)], rounds=2)
    with pytest.raises(DataError, match=r"the simulated counts .* needs .* bytes of memory"):
        simulate.simulate_counts([1.0] * 100, 0.3, n=1_000_000, k=1, rounds=100, seed=0)
    with pytest.raises(DataError, match="the Jensen-Shannon table of K = 100,000 needs"):
        gaps_from_counts_cm(*(np.zeros((2, 1, 1), dtype=np.int64),) * 3, k=100_000, metrics=["js"])


def test_the_simulation_work_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A two-label prior's paper grid at 1,000 rounds is accepted; a twelve-label one is over the default limit."""
    m2, m12 = len(get_prior("Toxicity").concentration), len(get_prior("JobsQ3").concentration)
    cells = [(c.n, c.k) for c in grid.configurations()]
    simulate.check_request(cells, m2, 1000, 4, 2)
    with pytest.raises(DataError, match=r"the simulation has [\d,]+ draws; the limit is 12,000,000,000 draws"):
        simulate.check_request(cells, m12, 1000, 4, 2)
    monkeypatch.setattr(simulate, "_task", lambda *a, **k: (_ for _ in ()).throw(AssertionError("work started")))
    with pytest.raises(DataError, match="NKP_MAX_SIM_WORK"):
        grid.simulate_grid(get_prior("JobsQ3").concentration, 0.3, rounds=1000)
    with pytest.raises(DataError, match="NKP_MAX_SIM_WORK"):
        grid.minimal_budget_search(get_prior("JobsQ3").concentration, 0.3, rounds=1000)
    monkeypatch.setenv("NKP_MAX_SIM_WORK", str(10**12))
    simulate.check_request(cells, m12, 1000, 4, 2)


def test_rounds_budget_and_grid_size(capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_error(capsys, ["nk", "--prior", "Toxicity", "--budget", "100", "--k", "2", "--rounds", "200000"])
    assert "--rounds has 200,000 rounds; the limit is 100,000 rounds" in line
    line = _one_line_error(capsys, ["nk", "--prior", "Toxicity", "--budget", "2000000", "--k", "2"])
    assert "the limit is 1,000,000 ratings (N x K)" in line
    line = _one_line_error(capsys, ["nk", "--prior", "Toxicity", "--grid", "--ks", "1-1000000000"])
    assert "--ks has 1,000,000,000 configurations" in line
    with pytest.raises(DataError, match="the grid has 5,001 configurations"):
        grid.configurations(range(1, 5002), [1])


def test_resampling_is_checked_before_any_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    m = 100
    counts = np.eye(m, dtype=np.int64)[:3] * 2  # 3 items, 100 labels
    data = resample.prepare_pair(counts, np.array([0, 1, 2]), np.array([1, 2, 0]))
    monkeypatch.setattr(resample, "_round_gaps", lambda *a, **k: (_ for _ in ()).throw(AssertionError("drawn")))
    with pytest.raises(DataError, match="the resampling at its peak needs"):
        resample.resample_cells(data, [grid.Config(1_000_000, 1, 1_000_000)], ["acc"], rounds=2)
    with pytest.raises(DataError, match=r"the resampling has [\d,]+ draws"):
        resample.resample_cells(data, [grid.Config(100_000, 1, 100_000)], ["acc"], rounds=10_000)


def test_limits_subcommand(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_ROWS", "1234")
    assert main(["limits", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["key"] for r in rows] == list(limits.LIMITS)
    assert all(set(r) == {"key", "env", "default", "in_force", "unit"} for r in rows)
    by_key = {r["key"]: r for r in rows}
    assert by_key["rows"]["in_force"] == 1234 and by_key["rows"]["default"] == 1_000_000
    assert by_key["samples_per_case"]["env"] == "NKP_MAX_SAMPLES_PER_CASE" and "cases" in by_key
    assert main(["limits"]) == 0
    out = capsys.readouterr().out
    assert "NKP_MAX_ROWS  (changed)" in out and "1,234" in out


@pytest.mark.parametrize("exc", [RecursionError, MemoryError])
def test_the_cli_reports_a_missed_recursion_or_memory_error_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, exc: type[BaseException]
) -> None:
    import nkcore.cli.data

    def boom(*args: object, **kwargs: object) -> None:
        raise exc()

    monkeypatch.setattr(nkcore.cli.data, "inspect_file", boom)
    line = _one_line_error(capsys, ["data", "whatever.csv"])
    assert line.startswith("error: ")


@pytest.mark.parametrize("raw", ["²", "١٢", "１０", "9" * 5_000, "1e6", "12abc", "_1"])
def test_a_limit_variable_that_is_not_ascii_digits_is_ignored_with_one_warning(
    raw: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NKP_MAX_ROWS", raw)
    monkeypatch.setattr(limits, "_WARNED", set())
    assert limits.get("rows") == limits.get("rows") == 1_000_000
    assert [r.getMessage() for r in caplog.records if r.name == "nkcore.limits"] == [
        f"nkcore: NKP_MAX_ROWS={limits._shown(raw)!r} is not a positive whole number; the default is used"
    ]
    for argv in (["limits"], ["limits", "--json"], ["plan", "--cases", "100", "--discordance", "0.2", "--json"]):
        assert main(argv) == 0
    capsys.readouterr()


def test_a_limit_variable_with_too_many_digits_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_ROWS", "1" + "0" * 18)  # 19 digits: past MAX_SETTING_DIGITS
    assert limits.get("rows") == 1_000_000
    monkeypatch.setenv("NKP_MAX_ROWS", "100_000_000_000_000_000")  # 18 digits with separators
    assert limits.get("rows") == 10**17
    monkeypatch.setenv("NKP_MAX_ROWS", "²")
    csv = tmp_path / "p.csv"
    csv.write_text("case,config,correct\n1,A,1\n1,B,0\n2,A,1\n2,B,1\n")
    assert main(["data", str(csv), "--json"]) == 0
