"""Anytime-valid paired comparison: stop an evaluation as soon as it is decided, whenever you look.

Checking a fixed-n p-value after every batch and stopping at the first p < 0.05 inflates false positives far past
5% (with continuous looks the error goes to 1 as the run grows): a rule that treats increases as signal and
decreases as noise climbs forever on a flat curve (the chapter in ``shared/seeds/002``, "Why the monotonicity was
never evidence"). The tests here are valid at every stopping time: the chance that they ever declare a winner when
the configs are equally good is at most alpha (Ville's inequality for a nonnegative supermartingale).

Two kinds of data (the same split as :func:`nkcore.paired.has_repeats`):

- one 0/1 result per case and config (``mixture``): the exact mixture SPRT on the discordant cases, the coin that
  decides McNemar's test: E_m = B(a + k, a + m - k) / B(a, a) * 2^m with a Beta(4, 4) prior (k of m discordant
  cases won by B), reject when E_m >= 1/alpha; anytime p = min(1, 1 / max E); its confidence sequence on
  theta = P(B right | discordant), mapped to the difference via the discordance rate (its own sequence at
  alpha / 10): the band covers the difference with probability >= (1 - alpha)(1 - alpha / 10), its sign is the
  test's exactly. Robbins (1970); Howard et al. (2021), Ann. Statist. 49(2), section 3.
- repeats or scores in [0, 1] (``bounded``): the predictable-plug-in empirical-Bernstein confidence sequence
  (Waudby-Smith & Ramdas 2023, JRSSB 86(1), Theorem 2) on the per-case differences in [-1, 1]; anytime p from its two
  one-sided e-processes at 1/2, so the test rejects exactly when the sequence excludes 0.

Library or closed form: closed forms in numpy / scipy (``scipy.special.betaln``, running sums). ``confseq`` 0.0.11
ships only a source distribution that compiles C++ (Boost) on install, and its betting intervals are computed on a
grid of candidate means (O(grid) per case); ``expectation`` is not maintained. The hedged betting sequence of
Waudby-Smith & Ramdas (their Theorem 3) is tighter than PrPl-EB by a few percent of width at large n (their Fig. 5)
but needs that grid; PrPl-EB is closed form, O(1) per case, and its test and interval agree exactly. Both choices are
validated by simulation (``benchmarks/bench_sequential.py``, ``docs/sequential.md``).

Modules:
- ``mixture``   the mixture SPRT's e-value and the Beta-mixture confidence sequence (scalar Newton, vectorised)
- ``bounded``   the empirical-Bernstein running sums
- ``monitor``   :class:`Monitor`: one case at a time, O(1), plain floats (for eval loops)
- ``path``      whole runs in numpy: :func:`sequential_compare` on a paired-results frame (CLI, Compare page)
- ``simulate``  the null, power and stopping-time simulations, naive peeking; the Planner's numbers
- ``sentences`` the sentence a room reads

A plain eval loop (``run_case`` stands for your harness call returning 0/1, a score or a list of repeats)::

    from nkcore.sequential import Monitor

    mon = Monitor(significance=0.05)
    for case in cases:
        state = mon.update(run_case(config_a, case), run_case(config_b, case))
        if state.decided:  # valid whenever you stop: B is better (or A) at level alpha
            print(f"decided after {state.n} cases: {state.winner} is better, difference "
                  f"{100 * state.low:+.1f} to {100 * state.high:+.1f} points (anytime p {state.anytime_p:.3g})")
            break

From inspect_ai's early-stopping hook (an ``EarlyStopping`` object passed to ``Task(early_stopping=...)``; check
the method signatures against your inspect_ai version's docs): keep one Monitor for the two configs' tasks, call
``update`` in ``complete_sample`` once both configs have a score for the sample, and return ``EarlyStop`` from
``schedule_sample`` once ``state.decided``.

>>> mon = Monitor(significance=0.05)
>>> [mon.update(0, 1).decided for _ in range(12)][-1]
True
"""

from __future__ import annotations

from nkcore.sequential.bounded import BET_CAP, EBPath, eb_path
from nkcore.sequential.mixture import PRIOR, beta_mixture_bounds, e_value_region, log_e_value, log_mixture
from nkcore.sequential.monitor import DISCORDANCE_SHARE, KINDS, Monitor, SequentialState
from nkcore.sequential.path import (
    METHODS,
    Look,
    SequentialPath,
    SequentialRun,
    binary_path,
    case_order,
    order_columns,
    scores_path,
    sequential_compare,
)
from nkcore.sequential.sentences import SEQUENTIAL_HELP, room_sentence
from nkcore.sequential.simulate import (
    SequentialPlan,
    SimulationResult,
    decision_times,
    mcnemar_critical,
    sequential_plan,
    simulate,
)

__all__ = [
    "BET_CAP",
    "DISCORDANCE_SHARE",
    "KINDS",
    "METHODS",
    "PRIOR",
    "SEQUENTIAL_HELP",
    "EBPath",
    "Look",
    "Monitor",
    "SequentialPath",
    "SequentialPlan",
    "SequentialRun",
    "SequentialState",
    "SimulationResult",
    "beta_mixture_bounds",
    "binary_path",
    "case_order",
    "decision_times",
    "e_value_region",
    "eb_path",
    "log_e_value",
    "log_mixture",
    "mcnemar_critical",
    "order_columns",
    "room_sentence",
    "scores_path",
    "sequential_compare",
    "sequential_plan",
    "simulate",
]
