"""A tiny deterministic lm-evaluation-harness model for NK Planner's test files (no weights, no torch).

Registered as ``nk-fake``; model_args ``pretrained=<name>,skill=<0..1>``. It reads "What is A + B?" in the prompt
and answers A + B with probability ``skill``, decided by a hash of (name, prompt, repeat number), so the same
arguments give the same files. lm-evaluation-harness sends each request ``repeats`` times in a row; the model
counts how often it has seen a prompt in a task, so every repeat is its own draw (as sampling would be) and repeat r
of one prompt is the same draw in every task.

generate_until: the right sum, else one of sum + 1, sum - 1, sum + 10 (also hash-chosen).
loglikelihood: -u for the continuation the model "believes" (the right sum with probability skill, else a wrong
one), -1 - u for the others, u in [0, 1) from the hash; is_greedy is True for the believed continuation.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Any

from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

_QUESTION = re.compile(r"What is (\d+) \+ (\d+)\?")


def _unit(*parts: object) -> float:
    """A number in [0, 1) from a SHA-256 of the parts (the same on every machine and run)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@register_model("nk-fake")
class NKFakeLM(LM):
    def __init__(self, pretrained: str = "nk-fake", skill: float | str = 0.5, **_: Any) -> None:
        super().__init__()
        self.name = str(pretrained)
        self.skill = float(skill)
        self._seen: Counter[tuple[str, str]] = Counter()

    def _sum(self, context: str) -> int:
        found = _QUESTION.findall(context)
        if not found:
            raise ValueError(f"no 'What is A + B?' in the prompt {context!r}")
        a, b = found[-1]
        return int(a) + int(b)

    def _right(self, context: str, repeat: int) -> bool:
        return _unit(self.name, "right", context, repeat) < self.skill

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        out = []
        for req in requests:
            context = req.args[0]
            key = (str(req.metadata[0]), context)  # (task, prompt): repeat r of every task is the same draw
            self._seen[key] += 1
            repeat = self._seen[key]
            total = self._sum(context)
            if self._right(context, repeat):
                out.append(str(total))
            else:
                delta = (1, -1, 10)[int(_unit(self.name, "wrong", context, repeat) * 3)]
                out.append(str(total + delta))
        return out

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        out = []
        for req in requests:
            context, continuation = req.args
            total = self._sum(context)
            right = self._right(context, 1)
            believed = continuation.strip() == str(total) if right else continuation.strip() == str(total + 10)
            u = _unit(self.name, "ll", context, continuation)
            out.append((-u if believed else -1.0 - u, believed))
        return out

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[float]:
        return [-_unit(self.name, "rolling", req.args[0]) for req in requests]
