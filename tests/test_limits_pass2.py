"""Reliability, second pass (issue 31): every accepted request under 1 GiB peak and 30 s of CPU, one accounting.

- ``data`` on a million ratings rows: Krippendorff's alpha built an items x labels x labels array (1.6 GB in all);
  ids were copied to strip them, and the fingerprint held the whole column as one JSON string;
- ``vote`` on 2,000 cases x 500 samples took 65 s: the exact curve is faster and bounded by ``NKP_MAX_VOTE_WORK``;
- a JSON Lines table is bounded by rows and cells like a CSV file (only values nested in its cells are counted);
- an archive's entries share one JSON-values budget (counted per entry, they added up unbounded).

Fast tests check the logic with small inputs and lowered limits; the ``slow`` ones measure a fresh process.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds.values import to_text
from nkcore.summary.ratings import krippendorff_alpha
from nkcore.voting import exact_case_curve, parse_samples, vote_curve
from tests import hostile_files as hf

ROOT = Path(__file__).resolve().parents[1]


def _peak_bytes(fn: object) -> int:
    """Peak traced allocation (Python and numpy) of ``fn()``."""
    tracemalloc.start()
    try:
        fn()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_equals_the_krippendorff_package(level: str) -> None:
    rng = np.random.default_rng(7)
    for _ in range(40):
        counts = rng.integers(0, 4, (int(rng.integers(3, 30)), int(rng.integers(2, 7))))
        values = rng.permutation(np.arange(counts.shape[1], dtype=float) * 1.5 - 2)
        pairable = counts[counts.sum(axis=1) >= 2]
        if len(pairable) == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
            continue
        order = np.argsort(values)
        want = krippendorff.alpha(
            value_counts=pairable[:, order], value_domain=values[order], level_of_measurement=level
        )
        got = krippendorff_alpha(counts, level, None if level == "nominal" else values)
        assert got == pytest.approx(want, abs=1e-12)


def test_alpha_of_many_items_needs_no_items_x_labels_x_labels_array() -> None:
    counts = np.random.default_rng(0).integers(0, 3, (100_000, 10))
    # the package's coincidences take 3 arrays of 100,000 x 10 x 10 float64 (240 MB); two 8 MB arrays suffice
    assert _peak_bytes(lambda: krippendorff_alpha(counts)) < 40 * 2**20


def test_ids_are_stripped_by_the_same_rule_and_not_copied_when_clean() -> None:
    clean = pd.Series([f"item{i}" for i in range(1000)], dtype="str")
    assert to_text(clean) is clean
    spaced = pd.Series(["a", "\u00a0b", "c\t", " d\u2003", None], dtype="str")
    assert to_text(spaced).tolist()[:4] == ["a", "b", "c", "d"] and pd.isna(to_text(spaced).iloc[4])


def test_fingerprint_is_one_json_list_serialised_in_pieces() -> None:
    """The documented serialisation, written out in one piece here, gives the same sha256."""
    import hashlib

    n = 150_000
    frame = pd.DataFrame({"t": [None if i % 9 == 0 else f'é"{i},' for i in range(n)], "k": np.arange(n)})
    h = hashlib.sha256()
    h.update(json.dumps({"columns": ["t", "k"], "n_rows": n}, ensure_ascii=False, sort_keys=True).encode())
    text = json.dumps(frame["t"].tolist(), ensure_ascii=False, separators=(",", ":")).encode()
    text = text.replace(b"NaN", b"null")
    for name, family, payload in (("t", b"str", text), ("k", b"int", frame["k"].to_numpy("<i8").tobytes())):
        for block in (name.encode(), family, payload):
            h.update(len(block).to_bytes(8, "little"))
            h.update(block)
    assert fingerprint(frame) == h.hexdigest()


def test_fingerprint_of_a_long_text_column_is_hashed_in_pieces() -> None:
    frame = pd.DataFrame({"t": pd.Series([f"{i:060d}" for i in range(300_000)], dtype="str")})
    # one JSON string of the column and its bytes were 2 x 19 MB on top of a list of 300,000 strings (30 MB)
    assert _peak_bytes(lambda: fingerprint(frame)) < 16 * 2**20


def test_jsonl_table_is_bounded_by_rows_and_cells_not_by_json_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_JSON_VALUES", "1000")
    table = read_table(hf.jsonl_flat_rows(2_000, 4), "r.jsonl")  # 16,000 values, all of them cells
    assert table.shape == (2_000, 4)
    monkeypatch.setenv("NKP_MAX_CELLS", "7000")
    with pytest.raises(DataError, match=r"r\.jsonl: .*limit is 7,000 cells .*NKP_MAX_CELLS"):
        read_table(hf.jsonl_flat_rows(2_000, 4), "r.jsonl")


def test_archive_entries_share_one_json_values_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("inspect_ai")
    from nkcore.harness import read_harness

    monkeypatch.setenv("NKP_MAX_JSON_VALUES", "10000")
    res = read_harness([("x.eval", hf.eval_padded_samples(20, 150))])  # about 7,000 values in all
    assert res.configs == ("mockllm/m",)
    with pytest.raises(DataError, match=r"x\.eval: the archive up to samples/.* has more than 10,000 JSON values"):
        read_harness([("x.eval", hf.eval_padded_samples(60, 300))])  # each entry about 330, together 20,000


def _brute_curve(n_gold: int, sizes: tuple[int, ...], tie: str) -> list[float]:
    """Mean plurality credit over every n-subset of the samples, by enumeration."""
    labels = [0] * n_gold + [j + 1 for j, g in enumerate(sizes) for _ in range(g)]
    out = [0.0]
    for n in range(1, len(labels) + 1):
        credits = []
        for sub in itertools.combinations(labels, n):
            a = sub.count(0)
            others = [sub.count(j + 1) for j in range(len(sizes))]
            ties = sum(1 for c in others if c == a)
            ok = a > 0 and all(c <= a for c in others)
            credits.append(0.0 if not ok else (1.0 / (ties + 1) if tie == "split" else float(ties == 0)))
        out.append(sum(credits) / len(credits))
    return out


@pytest.mark.parametrize("case", [(2, (1, 1, 1, 1, 1)), (3, (1, 1, 1, 2, 2)), (2, (3, 2)), (1, (1, 1, 1, 1))])
def test_exact_curve_with_many_tied_groups_equals_enumeration(case: tuple[int, tuple[int, ...]]) -> None:
    for tie in ("split", "wrong"):
        assert exact_case_curve(case[0], case[1], tie).tolist() == pytest.approx(_brute_curve(*case, tie), abs=1e-12)


def test_vote_work_over_the_limit_is_refused_before_the_curve(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = pd.read_csv(pd.io.common.BytesIO(hf.samples_csv(40, 60)))
    samples = parse_samples(frame)
    assert len(vote_curve(samples, n_boot=100).points) == 60
    monkeypatch.setenv("NKP_MAX_VOTE_WORK", "1000000")
    with pytest.raises(
        DataError,
        match=r"^the exact majority-vote curve of these samples has [\d,]+ multiply-adds; the limit is 1,000,000 "
        r"multiply-adds \(server setting NKP_MAX_VOTE_WORK\): use fewer samples per case",
    ):
        vote_curve(samples, n_boot=100)


# ``python -m nkcore argv`` that writes its own peak resident memory (VmHWM of /proc/self/status) as the last line
# of stderr. The child's ru_maxrss cannot be used: Linux carries the parent's high-water mark into a child across
# fork and exec, so a test worker that once held 1 GiB would make every child read 1 GiB.
_PEAK_WRAPPER = """
import runpy, sys
sys.argv = ["nkcore", *sys.argv[1:]]
try:
    runpy.run_module("nkcore", run_name="__main__", alter_sys=True)
finally:
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
    sys.stderr.write("\\nPEAK_KB " + hwm[0].split()[1] + "\\n")
"""


def _measured(argv: list[str]) -> tuple[int, float, float, str]:
    """(exit code, CPU s, peak MiB, stderr) of ``python -m nkcore argv`` in a fresh process."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _PEAK_WRAPPER, *argv],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    head, _, peak = err.rpartition("PEAK_KB ")
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, int(peak.split()[0]) / 1024, head


@pytest.mark.slow
def test_data_on_a_million_ratings_rows_stays_under_one_gib(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_bytes(hf.ratings_csv(1_000_000))
    code, cpu, peak, err = _measured(["data", str(path), "--json"])
    assert code == 0, err
    assert peak < 1024 and cpu < 30, (peak, cpu)


@pytest.mark.slow
def test_vote_on_2000_cases_x_500_samples_stays_under_30_s_of_cpu(tmp_path: Path) -> None:
    path = tmp_path / "samples.csv"
    path.write_bytes(hf.samples_csv(2_000, 500))
    code, cpu, peak, err = _measured(["vote", str(path), "--json"])
    assert code == 0, err
    assert cpu < 30 and peak < 1024, (cpu, peak)


def test_parquet_text_repeated_from_a_dictionary_is_refused_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dictionary page holds a long text once for every row: 465 KB decoded to 4 GB and took 6 GB."""
    data = hf.parquet_repeated_text(2_000, 1_000)  # 2 MB of text once decoded, a few KB on disk
    assert len(data) < 50_000
    monkeypatch.setenv("NKP_MAX_UNPACKED_BYTES", "1000000")
    with pytest.raises(
        DataError, match=r"r\.parquet: the text of the Parquet file decodes to more than .*NKP_MAX_UNPACKED"
    ):
        read_table(data, "r.parquet")
    monkeypatch.setenv("NKP_MAX_UNPACKED_BYTES", "3000000")
    assert read_table(data, "r.parquet").shape == (2_000, 3)


@pytest.mark.parametrize("nesting", ["list", "struct", "map"])
def test_parquet_text_repeated_inside_nested_columns_is_refused_before_decoding(
    nesting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same long text inside a list, a struct or a map (a few KB on disk) was decoded in full: 4 GB again at the
    hostile file's scale. Every text leaf is measured from its dictionary first."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    text, rows = "r" * 1_000, 2_000
    col = {
        "list": lambda: pa.array([[text]] * rows),
        "struct": lambda: pa.array([{"s": text}] * rows),
        "map": lambda: pa.array([[("k", text)]] * rows, type=pa.map_(pa.string(), pa.string())),
    }[nesting]()
    buf = io.BytesIO()
    pq.write_table(pa.table({"item": range(rows), "rater": col, "label": ["a", "b"] * (rows // 2)}), buf)
    assert len(buf.getvalue()) < 50_000
    monkeypatch.setenv("NKP_MAX_UNPACKED_BYTES", "1000000")
    with pytest.raises(DataError, match=r"r\.parquet: the text of the Parquet file decodes to more than .*NKP_MAX"):
        read_table(buf.getvalue(), "r.parquet")


def test_parquet_nested_lists_count_value_by_value(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    buf = io.BytesIO()
    pd.DataFrame({"item": range(100), "x": [[0] * 50] * 100}).to_parquet(buf)
    monkeypatch.setenv("NKP_MAX_CELLS", "2000")
    with pytest.raises(DataError, match=r"r\.parquet: the Parquet file .* has 5,100 cells .*NKP_MAX_CELLS"):
        read_table(buf.getvalue(), "r.parquet")


def test_first_n_counts_do_not_grow_with_the_number_of_distinct_answers() -> None:
    """Free-form answers (every wrong answer different): the one-hot counts took cases x samples x answers."""
    from nkcore.voting import case_credit_first_n

    frame = pd.read_csv(pd.io.common.BytesIO(hf.samples_distinct_answers(200, 400)))
    samples = parse_samples(frame)
    gold = (1 + np.arange(200) % 40)[:, None]  # the first samples are gold, then one-sample answers
    n = np.arange(1, 401)[None, :]
    # by hand: gold leads alone once it has 2 samples; with 1 it ties with every other answer seen
    assert np.allclose(case_credit_first_n(samples, "split"), np.where(gold >= 2, 1.0, 1.0 / n))
    assert np.array_equal(case_credit_first_n(samples, "wrong"), np.where((gold >= 2) | (n == 1), 1.0, 0.0))
    assert np.array_equal(case_credit_first_n(samples, "first"), np.ones((200, 400)))
    assert _peak_bytes(lambda: case_credit_first_n(samples, "first")) < 8 * 2**20


@pytest.mark.parametrize(
    "argv",
    [
        ["--prior", "Toxicity", "--grid", "--budgets", "1000-10000:1000", "--ks", "1-500"],  # 35 s of CPU before
        ["--prior", "all", "--eps", "0.1,0.2,0.3,0.4", "--grid"],  # the paper's sweep: about 230 s before
    ],
)
def test_exact_grids_over_their_estimated_work_are_refused_before_any_law(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The exact grids of one request are bounded by their estimated CPU time (NKP_MAX_GRID_WORK): the 5,000-cell
    grid and the 60-grid sweep exit 2 at once with the setting named; the paper's grid is accepted."""
    from nkcore.cli import main
    from nkcore.cli.nk_grid import check_grid_work
    from nkcore.nk.grid import PAPER_BUDGETS, PAPER_KS

    assert main(["nk", *argv]) == 2  # refused before any law is computed (the old code computed and exited 0)
    assert "NKP_MAX_GRID_WORK" in capsys.readouterr().err
    for m in (2, 3, 12):  # the paper's grid of every preset size (M labels) fits one request
        check_grid_work([m], PAPER_BUDGETS, PAPER_KS, ("acc", "tv", "wins", "kl"))
