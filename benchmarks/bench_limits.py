"""For each limit, the largest request accepted at the default limits: wall time, CPU time and peak memory.

Each request is a real CLI call (``python -m nkcore ...``) in a fresh process; its CPU time (user + system) and
peak resident memory (ru_maxrss) come from ``os.wait4``, so they include the interpreter and imports (about
150 MB) and, Linux counting a forked child's peak from its parent's size, this script's own (kept small: inputs
are made in a separate process). Inputs are generated once into a temporary folder before timing. The target: no accepted request above
1 GiB peak or 30 s CPU on a 2-core machine. The ``harness-`` cases are the evaluation-harness readers (inspect_ai
``.eval``, lm-eval JSONL, promptfoo JSON): the largest input of each kind accepted at the default limits, and the
hostile files of the reliability issue (made by ``tests/hostile_files.py``), which must be refused cheaply. CPU is shared with other work on a busy machine: wall times vary,
CPU times much less.

    .venv/bin/python benchmarks/bench_limits.py            # every case (a few minutes)
    .venv/bin/python benchmarks/bench_limits.py sim io     # cases whose name contains one of the words
    .venv/bin/python benchmarks/bench_limits.py harness    # the evaluation-harness readers only

Modes (words): ``harness`` (inspect_ai, lm-eval, promptfoo), ``io`` (CSV, JSONL, JSON, Parquet, gzip), ``vote``
(the exact vote curve), ``labels``, ``sim``, ``resample``. Output kept in ``benchmarks/results/bench_limits.txt``.
"""

from __future__ import annotations

import gzip
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nkcore.common import limits
from nkcore.ratings import COUNT_TABLE_BYTES_PER_CELL

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import hostile_files as hf  # noqa: E402  (the hostile files' one home)


def _write(path: Path, make: Callable[[], bytes]) -> Callable[[Path], None]:
    return lambda tmp: path.write_bytes(make())


def _promptfoo(n: int) -> bytes:
    one = '{{"testIdx": {i}, "promptIdx": 0, "vars": {{"q": "{i}"}}, "provider": {{"id": "p"}}, "success": {ok}}}'
    body = ",".join(one.format(i=i, ok="true" if i % 3 else "false") for i in range(n))
    return ('{"evalId": "e", "results": {"version": 3, "results": [' + body + "]}}").encode()


def _lm_lines(n: int) -> bytes:
    return b"".join(hf.lm_eval_line(i, 0, float(i % 2)) for i in range(n))


@dataclass(frozen=True, slots=True)
class Case:
    """One request: the limit it sits at, what it is, how to make its input and the CLI arguments."""

    name: str
    limit: str
    what: str
    make: Callable[[Path], None] | None
    argv: tuple[str, ...]


def _ratings_csv(path: Path, rows: int, items: int, labels: int) -> None:
    rng = np.random.default_rng(0)
    item = np.arange(rows) % items
    rater = np.arange(rows) // items
    label = rng.integers(0, labels, rows)
    with path.open("w") as fh:
        fh.write("item,rater,label\n")
        step = 500_000
        for s in range(0, rows, step):
            fh.write(
                "".join(
                    f"i{i},r{r},L{lab}\n"
                    for i, r, lab in zip(item[s : s + step], rater[s : s + step], label[s : s + step], strict=True)
                )
            )


def _ratings_jsonl(path: Path, rows: int, items: int) -> None:
    with path.open("w") as fh:
        step = 500_000
        for s in range(0, rows, step):
            fh.write(
                "".join(
                    f'{{"item": "i{i % items}", "rater": "r{i // items}", "label": "L{i % 7}"}}\n'
                    for i in range(s, min(rows, s + step))
                )
            )


def _long_names_csv(path: Path, rows: int, target_bytes: int) -> None:
    pad = "x" * max(1, (target_bytes // rows - 24) // 2)
    with path.open("w") as fh:
        fh.write("item,rater,label\n")
        step = 200_000
        for s in range(0, rows, step):
            fh.write("".join(f"{pad}{i // 2},{pad}{i % 2},L{i % 5}\n" for i in range(s, min(rows, s + step))))


def _wide_csv(path: Path, columns: int, target_bytes: int) -> None:
    line = ",".join("0" for _ in range(columns)) + "\n"
    rows = target_bytes // len(line) - 1
    with path.open("w") as fh:
        fh.write(",".join(f"c{j}" for j in range(columns)) + "\n")
        for _ in range(rows):
            fh.write(line)


def _long_lines(path: Path, line_bytes: int, target_bytes: int) -> None:
    line = "1," * (line_bytes // 2 - 1) + "1\n"
    with path.open("w") as fh:
        fh.write("item,rater,label\n")
        for _ in range(target_bytes // len(line) - 1):
            fh.write(line)


def _gzip_at_ratio(path: Path, unpacked: int) -> None:
    row = b"1,a,x\n"
    body = b"item,rater,label\n" + row * (unpacked // len(row) - 3)
    path.write_bytes(gzip.compress(body, 9))


def _resample_files(tmp: Path, items: int, per_item: int) -> None:
    rng = np.random.default_rng(1)
    with (tmp / "res_ratings.csv").open("w") as fh:
        fh.write("item,rater,label\n")
        p = rng.beta(2, 2, items)
        for i in range(items):
            labs = rng.random(per_item) < p[i]
            fh.write("".join(f"{i},{r},{'pos' if lab else 'neg'}\n" for r, lab in enumerate(labs)))
    with (tmp / "res_preds.csv").open("w") as fh:
        fh.write("item,model,p_neg,p_pos\n")
        for i in range(items):
            for model, noise in (("A", 0.1), ("B", 0.3)):
                q = float(np.clip(p[i] + rng.normal(0, noise), 0.0, 1.0))
                fh.write(f"{i},{model},{1 - q:.6f},{q:.6f}\n")


def _parquet_of(csv_path: Path, out: Path) -> None:
    """The long-names CSV (made first when absent) as Parquet."""
    if not csv_path.exists():
        _long_names_csv(csv_path, limits.get("rows"), limits.get("file_bytes") - 2**20)
    import pandas as pd

    pd.read_csv(csv_path).to_parquet(out)


def _json_array(n: int) -> bytes:
    """A JSON array of ``n`` ratings records, one a line (7 values each, counted as brackets, commas and colons)."""
    body = ",\n".join(f'{{"item":"i{i // 2}","rater":"r{i % 2}","label":"L{i % 3}"}}' for i in range(n))
    return ("[\n" + body + "\n]\n").encode()


def _once(path: Path, make: Callable[[Path], None]) -> Callable[[Path], None]:
    """``make`` unless ``path`` already exists (cases that share an input make it once)."""
    return lambda tmp: None if path.exists() else make(tmp)


def cases(tmp: Path) -> list[Case]:
    """The requests, each at (or just under) one default limit."""
    mib = 2**20
    f = str
    uniform100 = ",".join(["1"] * limits.get("labels"))
    lab_items = int(limits.get("memory_bytes") / (COUNT_TABLE_BYTES_PER_CELL * limits.get("labels")))
    mem_items = int(limits.get("memory_bytes") / (64 * 100 * 2))
    rows_csv = _once(
        tmp / "rows.csv", lambda t: _ratings_csv(t / "rows.csv", limits.get("rows"), limits.get("rows") // 2, 10)
    )
    values = limits.get("json_values")
    entries = limits.get("archive_entries")
    text_csv = _once(
        tmp / "text.csv", lambda t: _long_names_csv(t / "text.csv", limits.get("rows"), limits.get("file_bytes") - mib)
    )
    harness = [
        Case(
            "harness-eval-samples",
            "archive_entries, json_values",
            f"data: .eval of {entries - 1:,} minimal samples (one entry each, + header)",
            _write(tmp / "samples.eval", lambda: hf.eval_minimal_samples(entries - 1)),
            ("data", f(tmp / "samples.eval"), "--json"),
        ),
        Case(
            "harness-eval-epochs",
            "archive_entries, samples_per_case",
            "vote: .eval of 300 cases x 100 epochs",
            _write(tmp / "epochs.eval", lambda: hf.eval_minimal_samples(30_000, epochs=100)),
            ("vote", f(tmp / "epochs.eval"), "--json"),
        ),
        Case(
            "harness-eval-meta",
            "json_values",
            "data: .eval, one sample's metadata of 60,000,000 {} (2.2 MB; refused: values)",
            _write(tmp / "meta.eval", lambda: hf.eval_empty_dicts_in_metadata(60_000_000)),
            ("data", f(tmp / "meta.eval"), "--json"),
        ),
        Case(
            "harness-eval-header",
            "json_values",
            "data: .eval, header of 75,000,000 integers (refused: values)",
            _write(tmp / "header.eval", lambda: hf.eval_integer_header(75_000_000)),
            ("data", f(tmp / "header.eval"), "--json"),
        ),
        Case(
            "harness-eval-lying",
            "unpacked_bytes (declared sizes)",
            "data: .eval entry declaring 1,000 bytes, inflating to 1 GB (refused: declared size)",
            _write(tmp / "lying.eval", lambda: hf.eval_lying_sizes(1_000, 2**30)),
            ("data", f(tmp / "lying.eval"), "--json"),
        ),
        Case(
            "harness-lm-rows",
            "json_values, rows",
            f"data: lm-eval JSONL of {values // 26:,} ordinary lines",
            _write(tmp / "samples_t_2024-01-01T00-00-00.jsonl", lambda: _lm_lines(values // 26)),
            ("data", f(tmp / "samples_t_2024-01-01T00-00-00.jsonl"), "--json"),
        ),
        Case(
            "harness-lm-padded",
            "json_values",
            "data: lm-eval JSONL, 190 lines each padded with 330,000 {} (refused: values)",
            _write(tmp / "padded.jsonl", lambda: hf.lm_eval_padded(190, 330_000)),
            ("data", f(tmp / "padded.jsonl"), "--json"),
        ),
        Case(
            "harness-pf-results",
            "json_values, rows",
            f"data: promptfoo results.json of {values // 20:,} results",
            _write(tmp / "results.json", lambda: _promptfoo(values // 20)),
            ("data", f(tmp / "results.json"), "--json"),
        ),
        Case(
            "harness-pf-empty",
            "json_values",
            "data: promptfoo results.json of 60,000,000 {} (180 MB; refused: values)",
            _write(tmp / "empty.json", lambda: hf.promptfoo_empty_dicts(60_000_000)),
            ("data", f(tmp / "empty.json"), "--json"),
        ),
    ]
    rows = limits.get("rows")
    return [
        *harness,
        Case(
            "io-parquet",
            "rows, unpacked_bytes",
            f"data: {rows:,} rows of long names, Parquet (decoding to {limits.get('file_bytes') // mib - 1} MiB)",
            lambda t: _parquet_of(t / "text.csv", t / "text.parquet"),
            ("data", f(tmp / "text.parquet"), "--json"),
        ),
        Case(
            "io-parquet-bomb",
            "unpacked_bytes (decoded text)",
            "data: 465 KB Parquet of one 20,000-character text in 200,000 rows (refused: decoded size)",
            _write(tmp / "bomb.parquet", lambda: hf.parquet_repeated_text(200_000, 20_000)),
            ("data", f(tmp / "bomb.parquet"), "--json"),
        ),
        Case(
            "io-jsonl-wide",
            "rows, cells (not json_values)",
            f"data: {rows:,} ratings rows of 4 columns, JSONL (8,000,000 values: refused before)",
            _write(tmp / "wide.jsonl", lambda: hf.jsonl_flat_rows(rows, 4)),
            ("data", f(tmp / "wide.jsonl"), "--json"),
        ),
        Case(
            "io-json-array",
            "json_values",
            f"data: JSON array of {values // 8:,} ratings records (a document: every value counted)",
            _write(tmp / "array.json", lambda: _json_array(values // 8)),
            ("data", f(tmp / "array.json"), "--json"),
        ),
        Case(
            "vote-rows",
            "rows, vote_work",
            "vote: 2,000 cases x 500 samples (1,000,000 rows; 65 s before)",
            _write(tmp / "s2000.csv", lambda: hf.samples_csv(2_000, 500)),
            ("vote", f(tmp / "s2000.csv"), "--json"),
        ),
        Case(
            "vote-per-case",
            "samples_per_case, rows, vote_work",
            "vote: 1,000 cases x 1,000 samples (1,000,000 rows)",
            _write(tmp / "s1000.csv", lambda: hf.samples_csv(1_000, 1_000)),
            ("vote", f(tmp / "s1000.csv"), "--json"),
        ),
        Case(
            "vote-work",
            "vote_work",
            "vote: 1,000 cases x 1,000 samples, every wrong answer different, 1-6 gold (7.96e9 of 8e9 work)",
            _write(tmp / "swork.csv", lambda: hf.samples_distinct_answers(1_000, 1_000, gold_counts=6)),
            ("vote", f(tmp / "swork.csv"), "--json"),
        ),
        Case(
            "vote-distinct",
            "vote_work",
            "vote: 1,000 cases x 1,000 samples, every wrong answer different, 1-40 gold (refused: work)",
            _write(tmp / "sdist.csv", lambda: hf.samples_distinct_answers(1_000, 1_000)),
            ("vote", f(tmp / "sdist.csv"), "--json"),
        ),
        Case(
            "io-rows-csv",
            "rows, file_bytes",
            f"data: {limits.get('rows'):,} ratings rows, CSV",
            rows_csv,
            ("data", f(tmp / "rows.csv"), "--json"),
        ),
        Case(
            "io-rows-nk",
            "rows, items",
            f"nk --ratings: fit a prior to {limits.get('rows'):,} rows, {limits.get('rows') // 2:,} items",
            rows_csv,
            ("nk", "--ratings", f(tmp / "rows.csv"), "--budget", "100", "--k", "2", "--rounds", "2", "--json"),
        ),
        Case(
            "io-jsonl",
            "rows, file_bytes, json_depth",
            f"data: {limits.get('rows'):,} ratings rows, JSONL",
            lambda t: _ratings_jsonl(t / "rows.jsonl", limits.get("rows"), limits.get("rows") // 2),
            ("data", f(tmp / "rows.jsonl"), "--json"),
        ),
        Case(
            "io-text",
            "rows, file_bytes",
            f"data: {limits.get('rows'):,} rows of long names, {limits.get('file_bytes') // mib - 1} MiB",
            text_csv,
            ("data", f(tmp / "text.csv"), "--json"),
        ),
        Case(
            "io-columns",
            "columns, file_bytes",
            f"data: {limits.get('columns'):,} columns x {limits.get('cells') // limits.get('columns'):,} rows",
            lambda t: _wide_csv(t / "wide.csv", limits.get("columns"), 2 * limits.get("cells")),
            ("data", f(tmp / "wide.csv"), "--json"),
        ),
        Case(
            "io-lines",
            "line_bytes, file_bytes",
            "data: 36 lines of 1 MiB of fields, under the separator cap (refused: bad lines)",
            lambda t: _long_lines(t / "lines.csv", limits.get("line_bytes") - 2, 4 * limits.get("cells") - 2 * mib),
            ("data", f(tmp / "lines.csv"), "--json"),
        ),
        Case(
            "io-gzip",
            "gzip_ratio, unpacked_bytes",
            "data: 297 KiB gzip of 199 MiB, ratio 670 (refused: ratio)",
            lambda t: _gzip_at_ratio(t / "ratio.csv.gz", 199 * mib),
            ("data", f(tmp / "ratio.csv.gz"), "--json"),
        ),
        Case(
            "labels",
            "labels, memory_bytes",
            f"nk --ratings: {limits.get('labels')} labels x {lab_items:,} items",
            lambda t: _ratings_csv(t / "labels.csv", 2 * lab_items, lab_items, limits.get("labels")),
            ("nk", "--ratings", f(tmp / "labels.csv"), "--budget", "100", "--k", "2", "--rounds", "2", "--json"),
        ),
        Case(
            "sim-m2",
            "sim_work",
            "nk: M = 2, budget 1,000,000, K = 10, 1,000 rounds",
            None,
            ("nk", "--alpha", "1,1", "--budget", "1000000", "--k", "10", "--rounds", "1000", "--json"),
        ),
        Case(
            "sim-m100",
            "sim_work, labels",
            "nk: M = 100, budget 20,000, K = 40, 1,000 rounds",
            None,
            ("nk", "--alpha", uniform100, "--budget", "20000", "--k", "40", "--rounds", "1000", "--json"),
        ),
        Case(
            "sim-grid",
            "sim_work",
            "nk --grid: the paper's 282 cells, Toxicity, 1,000 rounds",
            None,
            ("nk", "--prior", "Toxicity", "--grid", "--rounds", "1000", "--json"),
        ),
        Case(
            "sim-rounds",
            "rounds",
            "nk: 100,000 rounds, budget 100, K = 1",
            None,
            ("nk", "--prior", "Toxicity", "--budget", "100", "--k", "1", "--rounds", "100000", "--json"),
        ),
        Case(
            "sim-configs",
            "configs",
            "nk --grid: 5,000 cells (budgets 1,000-10,000 x K 1-500), 20 rounds",
            None,
            (
                "nk",
                "--prior",
                "Toxicity",
                "--grid",
                "--budgets",
                "1000-10000:1000",
                "--ks",
                "1-500",
                "--rounds",
                "20",
                "--json",
            ),
        ),
        Case(
            "sim-memory",
            "memory_bytes, budget",
            f"nk: M = 100, {mem_items:,} items, K = 1, 2 rounds",
            None,
            (
                "nk",
                "--alpha",
                uniform100,
                "--budget",
                str(mem_items),
                "--k",
                "1",
                "--rounds",
                "2",
                "--workers",
                "2",
                "--json",
            ),
        ),
        Case(
            "resample",
            "sim_work (resampling)",
            "nk --predictions: budget 166,660, K = 10, 1,000 rounds",
            lambda t: _resample_files(t, 20_000, 12),
            (
                "nk",
                "--ratings",
                f(tmp / "res_ratings.csv"),
                "--predictions",
                f(tmp / "res_preds.csv"),
                "--models",
                "A,B",
                "--budget",
                "166660",
                "--k",
                "10",
                "--rounds",
                "1000",
                "--metric",
                "acc,tv,wins,kl",
                "--json",
            ),
        ),
    ]


def run(argv: tuple[str, ...]) -> tuple[float, float, float, int, str]:
    """(wall s, CPU s, peak MiB, exit code, last stderr line) of ``python -m nkcore argv`` in a fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nkcore", *argv], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace").strip().splitlines()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode, err[-1] if err else ""


def main(words: list[str]) -> None:
    """Print one row per case: limit, request, exit code, wall, CPU, peak memory."""
    print(f"NK Planner limits benchmark: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (shared CPU)")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        chosen = [c for c in cases(tmp) if not words or any(w in c.name for w in words)]
        print(f"{'case':<12} {'limit':<27} {'exit':>4} {'wall s':>7} {'CPU s':>7} {'peak MiB':>9}  request")
        worst_cpu = worst_mem = 0.0
        for case in chosen:
            if case.make is not None:  # in a child: the inputs' memory must not count in the next request's peak
                maker = multiprocessing.get_context("fork").Process(target=case.make, args=(tmp,))
                maker.start()
                maker.join()
            wall, cpu, peak, code, err = run(case.argv)
            worst_cpu, worst_mem = max(worst_cpu, cpu), max(worst_mem, peak)
            note = f" [{err[:110]}]" if code else ""
            print(
                f"{case.name:<12} {case.limit:<27} {code:>4} {wall:>7.1f} {cpu:>7.1f} {peak:>9.0f}  {case.what}{note}"
            )
            sys.stdout.flush()
        print(f"worst: {worst_cpu:.1f} s CPU (target 30), {worst_mem:.0f} MiB peak (target 1,024)")


if __name__ == "__main__":
    main(sys.argv[1:])
