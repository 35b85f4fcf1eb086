"""Real inspect_ai logs for the tests, written by inspect_ai itself (its ``mockllm`` provider, offline).

:func:`write_log` runs a task of ``n_cases`` samples (target "1") for ``epochs`` epochs with mockllm answering the
given outputs in order; inspect_ai draws them epoch by epoch, case by case (epoch 1 of every case, then epoch 2...),
checked by the tests that read the logs back with inspect_ai's own reader. :func:`epoch_contents` makes outputs in
which each case has its own chance of being answered right (hard and easy cases, so repeats of a case correlate).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np


def epoch_contents(chance: Sequence[float], epochs: int, seed: int) -> str:
    """One output per (epoch, case), epoch-major: "1" (right) with the case's chance, else "0"."""
    rng = np.random.default_rng(seed)
    p = np.asarray(chance, dtype=float)
    right = rng.random((epochs, p.size)) < p
    return "".join("1" if r else "0" for r in right.ravel())


def write_log(log_dir: Path, model_name: str, contents: str, epochs: int, n_cases: int, scorer: str = "match") -> Path:
    """A real inspect_ai ``.eval`` log: mockllm answers ``contents`` in order, scored by match() (C / I)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    def outputs() -> Iterator[ModelOutput]:
        for c in contents:
            out = ModelOutput.from_content(model=model_name, content=c)
            out.usage = ModelUsage(input_tokens=5, output_tokens=1, total_tokens=6)  # no tokenizer download
            yield out

    model = get_model(f"mockllm/{model_name}", custom_outputs=outputs())
    task = Task(
        dataset=[Sample(input=f"question {i}", target="1", id=f"c{i}") for i in range(n_cases)],
        solver=generate(),
        scorer=match(),
        epochs=epochs,
        name="digits",
    )
    # on a thread of its own: inspect_ai starts an event loop, which fails where one already runs
    with ThreadPoolExecutor(max_workers=1) as pool:
        logs = pool.submit(
            lambda: inspect_eval(
                task, model=model, log_dir=str(log_dir), display="none", max_samples=1, max_connections=1
            )
        ).result()
    assert logs[0].status == "success"
    return Path(str(logs[0].location))


def epoch_scores(path: Path) -> dict[tuple[str, int], float]:
    """(case id, epoch) -> 1.0 / 0.0, read with inspect_ai's own reader (the oracle of the tests)."""
    from inspect_ai.log import read_eval_log

    with ThreadPoolExecutor(max_workers=1) as pool:
        log = pool.submit(read_eval_log, str(path)).result()
    return {
        (str(s.id), int(s.epoch)): 1.0 if (s.scores or {})["match"].value == "C" else 0.0 for s in log.samples or []
    }


def epoch_pair(root: Path) -> tuple[Path, Path]:
    """Two real logs of the same 60 cases x 3 epochs: a weak and a strong mockllm, every fourth case hard for both
    (the pair the case-level tests, the Compare page tests and the one-answer test read)."""
    hard = np.arange(60) % 4 == 0
    weak = write_log(root / "weak", "weak", epoch_contents(np.where(hard, 0.15, 0.7), 3, 2), 3, 60)
    strong = write_log(root / "strong", "strong", epoch_contents(np.where(hard, 0.4, 0.92), 3, 1), 3, 60)
    return weak, strong
