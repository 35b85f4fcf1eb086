"""Reading lm-evaluation-harness ``--log_samples`` output into a paired frame, against a bare pandas reader.

Run: ``.venv/bin/python benchmarks/bench_harness.py [megabytes]``. Writes, in a temporary folder, two models'
``samples_arc_easy_<date>.jsonl`` files of about 50 MB each (100 MB in total by default; records shaped as
lm-evaluation-harness 0.4.x logs a 4-choice loglikelihood task: doc, arguments, resps, filtered_resps, hashes, acc,
acc_norm), with their ``results_<date>.json``, and times, in this one process, median of 3:

- ``nkcore.harness.read_harness`` on both files -> the paired frame (case, config, correct), with every limit check;
- the reference: ``pandas.read_json(lines=True)`` on the same two files (a table of the raw records, no pairing).

Target: under 10 s for the 100 MB. Prints both medians and their ratio.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pandas as pd

from nkcore.harness import HarnessResult, read_harness

T = TypeVar("T")

DATES = ("2024-06-27T12-33-15.123456", "2024-06-28T09-01-02.654321")
MODELS = ("EleutherAI/pythia-160m", "EleutherAI/pythia-1b")


def record(doc_id: int, acc: int) -> str:
    """One logged sample, about 1.4 KB, as lm-evaluation-harness 0.4.x writes it."""
    question = f"Question {doc_id}: which of the following best explains the observation made in the passage? " * 2
    choices = [f"choice {c} for question {doc_id}, a plausible but long answer text" for c in "abcd"]
    rec = {
        "doc_id": doc_id,
        "doc": {"id": f"Mercury_{doc_id}", "question": question, "choices": {"text": choices, "label": list("ABCD")}},
        "target": "2",
        "arguments": {
            f"gen_args_{i}": {"arg_0": f"Question: {question}\nAnswer:", "arg_1": f" {c}"}
            for i, c in enumerate(choices)
        },
        "resps": [[[str(-1.25 - i / 7), "False"]] for i in range(4)],
        "filtered_resps": [[str(-1.25 - i / 7), "False"] for i in range(4)],
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
        "doc_hash": f"{doc_id:064x}",
        "prompt_hash": f"{doc_id * 7:064x}",
        "target_hash": f"{doc_id * 13:064x}",
        "acc": float(acc),
        "acc_norm": float(1 - acc),
    }
    return json.dumps(rec) + "\n"


def write_files(root: Path, megabytes: float) -> list[Path]:
    """Two models' samples files of ``megabytes / 2`` each, with their results files."""
    paths = []
    for m, (model, date) in enumerate(zip(MODELS, DATES, strict=True)):
        folder = root / model.replace("/", "__")
        folder.mkdir(parents=True)
        path = folder / f"samples_arc_easy_{date}.jsonl"
        target = megabytes / 2 * 2**20
        with path.open("w") as fh:
            size, doc_id = 0, 0
            while size < target:
                line = record(doc_id, int((doc_id * (7 + m)) % 10 < 6 + m))
                fh.write(line)
                size += len(line)
                doc_id += 1
        (folder / f"results_{date}.json").write_text(json.dumps({"results": {}, "config": {}, "model_name": model}))
        paths.append(path)
    return paths


def median_time(fn: Callable[[], T], reps: int = 3) -> tuple[float, T]:
    """Median wall time of ``reps`` calls, and the last result."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(megabytes: float = 100.0) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_files(Path(tmp), megabytes)
        total = sum(p.stat().st_size for p in paths)

        def ours() -> HarnessResult:
            files = [(str(p), p.read_bytes()) for p in paths]
            files += [
                (str(p.with_name(f"results_{d}.json")), p.with_name(f"results_{d}.json").read_bytes())
                for p, d in zip(paths, DATES, strict=True)
            ]
            return read_harness(files)

        def reference() -> list[pd.DataFrame]:
            return [pd.read_json(p, lines=True) for p in paths]

        t_ours, res = median_time(ours)
        t_ref, frames = median_time(reference)
    paired = res.paired
    assert paired is not None
    n_records = sum(len(f) for f in frames)
    print(
        f"{total / 2**20:.1f} MiB in 2 files, {n_records:,} records; paired frame {paired.shape[0]:,} rows x {paired.shape[1]}"
    )
    print(f"  nkcore.harness.read_harness      median of 3: {t_ours:.2f} s  (target < 10 s)")
    print(f"  pandas.read_json(lines=True)     median of 3: {t_ref:.2f} s")
    print(f"  ratio read_harness / read_json: {t_ours / t_ref:.2f}")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 100.0)
