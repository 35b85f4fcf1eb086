"""The sentence a room reads about an anytime-valid run, beside the fixed-n test on all the cases."""

from __future__ import annotations

from nkcore.common.formatting import format_p, plural
from nkcore.sequential.path import SequentialRun

__all__ = ["SEQUENTIAL_HELP", "room_sentence"]

SEQUENTIAL_HELP = (
    "Checking a fixed-n p-value after every batch and stopping at the first p < alpha finds a difference that is not "
    "there far more often than alpha: with enough looks, almost always. The anytime-valid test is built to be "
    "checked after every case: stopping at the first 'decided' keeps the chance of a false winner at most alpha, "
    "whenever you stop. The price: it needs more cases than a fixed-n test planned in advance would."
)


def room_sentence(run: SequentialRun, fixed_p: float, fixed_diff: float) -> str:
    """One sentence: when the anytime-valid test decided (or that it has not), and whether the fixed-n test on all
    the cases agrees (p < alpha with the same sign).

    >>> from nkcore.sequential.path import sequential_compare
    >>> import pandas as pd
    >>> r = sequential_compare(pd.DataFrame({"case": range(12), "A": [0] * 12, "B": [1] * 12}), "A", "B")
    >>> room_sentence(r, 0.0005, 1.0)
    'decided after 11 of 12 cases: B is better; the fixed-n test agrees (p < 0.001).'
    """
    fixed_says = fixed_p < run.significance and fixed_diff != 0
    fixed_winner = (run.config_b if fixed_diff > 0 else run.config_a) if fixed_says else None
    if run.decided_at is not None:
        head = f"decided after {run.decided_at:,} of {plural(run.n_cases, 'case')}: {run.winner_config} is better"
        if fixed_winner == run.winner_config:
            return f"{head}; the fixed-n test agrees ({format_p(fixed_p)})."
        if fixed_winner is None:
            return (
                f"{head}; the fixed-n test on all {run.n_cases:,} cases cannot tell ({format_p(fixed_p)}): "
                "the decision stands (it is valid whenever the run stops), the margin is small."
            )
        return f"{head}; the fixed-n test on all the cases finds {fixed_winner} better ({format_p(fixed_p)})."
    head = f"not decided after {plural(run.n_cases, 'case')} (anytime {format_p(run.anytime_p)})"
    if fixed_winner is not None:
        return (
            f"{head}: keep going if you can. The fixed-n test finds {fixed_winner} better ({format_p(fixed_p)}), which "
            f"holds only if {run.n_cases:,} cases were fixed before anyone looked."
        )
    return f"{head}; the fixed-n test cannot tell either ({format_p(fixed_p)})."
