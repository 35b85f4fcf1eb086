"""The plurality vote over one request's samples, and the rules for a tie and for an adaptive top-up.

Tie rules (``tie``), for a vote where the correct answer shares the top count with ``t`` other answers:
``wrong`` counts it wrong; ``split`` gives credit 1 / (t + 1); ``first`` lets the answer seen first win. For a
uniformly random subset in random order ``first`` equals ``split`` in expectation (each tied answer is equally
likely to be seen first), so the exact curve uses split credit for both; for the "first n samples" reading
``first`` is ``collections.Counter(first_n_answers).most_common(1)``: among tied answers the one whose first
occurrence is earliest.

Top-up triggers (``trigger``) of the adaptive rule "draw n0, add m more": ``no_plurality`` (the top count of the
first n0 is shared), ``no_majority`` (the top answer has at most n0 / 2 samples), ``not_unanimous`` (the first n0
differ at all).
"""

from __future__ import annotations

from collections import Counter
from typing import Literal, cast

import numpy as np

from nkcore.errors import DataError

__all__ = [
    "TIE_RULES",
    "TRIGGERS",
    "TieRule",
    "Trigger",
    "as_tie_rule",
    "as_trigger",
    "check_tie",
    "check_trigger",
    "plurality_correct",
    "trigger_fires",
]

TieRule = Literal["wrong", "split", "first"]
Trigger = Literal["no_plurality", "no_majority", "not_unanimous"]

TIE_RULES: tuple[str, ...] = ("wrong", "split", "first")
TRIGGERS: tuple[str, ...] = ("no_plurality", "no_majority", "not_unanimous")


def check_tie(tie: str) -> None:
    """``DataError`` unless ``tie`` is one of :data:`TIE_RULES`.

    >>> check_tie("split")
    >>> check_tie("coin")
    Traceback (most recent call last):
    ...
    nkcore.errors.DataError: tie rule must be one of wrong, split, first, got 'coin'
    """
    if tie not in TIE_RULES:
        raise DataError(f"tie rule must be one of {', '.join(TIE_RULES)}, got {tie!r}")


def check_trigger(trigger: str) -> None:
    """``DataError`` unless ``trigger`` is one of :data:`TRIGGERS`.

    >>> check_trigger("no_majority")
    """
    if trigger not in TRIGGERS:
        raise DataError(f"trigger must be one of {', '.join(TRIGGERS)}, got {trigger!r}")


def trigger_fires(top: np.ndarray, n_top: np.ndarray, n0: int, trigger: str) -> np.ndarray:
    """Where the first ``n0`` samples of a case trigger a top-up: ``top`` is the plurality answer's count among them
    and ``n_top`` how many answers share that count. no_plurality: n_top > 1; no_majority: 2 top <= n0;
    not_unanimous: top < n0.

    >>> trigger_fires(np.array([3, 2, 1]), np.array([1, 1, 3]), 3, "no_majority").tolist()
    [False, False, True]
    """
    check_trigger(trigger)
    if trigger == "no_plurality":
        return np.asarray(n_top > 1)
    if trigger == "no_majority":
        return np.asarray(2 * top <= n0)
    return np.asarray(top < n0)


def as_tie_rule(tie: str) -> TieRule:
    """``tie`` checked by :func:`check_tie` and typed as a :data:`TieRule` (for text from a CLI or a page).

    >>> as_tie_rule("wrong")
    'wrong'
    """
    check_tie(tie)
    return cast(TieRule, tie)


def as_trigger(trigger: str) -> Trigger:
    """``trigger`` checked by :func:`check_trigger` and typed as a :data:`Trigger`.

    >>> as_trigger("not_unanimous")
    'not_unanimous'
    """
    check_trigger(trigger)
    return cast(Trigger, trigger)


def plurality_correct(answers: list[str] | tuple[str, ...], gold: str, tie: TieRule = "first") -> float:
    """Credit (0, 1 or a fraction) of one plurality vote over ``answers`` against ``gold``.

    ``first`` is ``Counter(answers).most_common(1)``; ``split`` gives 1 / (number of tied top answers) when gold
    is among them; ``wrong`` needs a strict plurality for gold.

    >>> plurality_correct(["b", "a", "a", "b"], "a", "first"), plurality_correct(["b", "a", "a", "b"], "a", "split")
    (0.0, 0.5)
    """
    check_tie(tie)
    counts = Counter(answers)
    if tie == "first":
        return float(counts.most_common(1)[0][0] == gold)
    top = max(counts.values())
    tied = [a for a, k in counts.items() if k == top]
    if gold not in tied:
        return 0.0
    if tie == "wrong":
        return float(len(tied) == 1)
    return 1.0 / len(tied)
