"""What a paired dataset says for planning repeats: its configs, cases, repeats and between- / within-case variances.

Reads the dataset as the case-level comparison does (:func:`nkcore.paired.parse_cases`,
:func:`nkcore.paired.variance_components`) and hands the numbers to the planner of
:mod:`nkcore.resolution.repeats` (Var = (sigma_b^2 + sigma_w^2 / K) / N; Miller 2024, "Adding Error Bars to Evals",
sec. 3). It lives with the paired results because it reads them; the planner itself knows nothing of datasets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.paired.case_test import VarianceComponents, variance_components
from nkcore.paired.cases import parse_cases

__all__ = ["MeasuredVariances", "OneRunPlan", "choose_pair", "measured_sentence", "measured_variances", "one_run_plan"]


def _v(x: float) -> str:
    return f"{x:.4g}"


def _repeats(k: int) -> str:
    return "one repeat per case" if k == 1 else f"{k:,} repeats per case"


def choose_pair(configs: Sequence[str], a: str | None, b: str | None) -> tuple[str, str]:
    """The two configs to compare (A, B): as named; with two configs, both in order or the other of the one named.

    >>> choose_pair(["x", "y"], None, None), choose_pair(["x", "y"], None, "x")
    (('x', 'y'), ('y', 'x'))
    """
    present = ", ".join(repr(c) for c in configs)
    for name in (a, b):
        if name is not None and name not in configs:
            raise DataError(f"unknown config {name!r}; the configs present are {present}")
    if a is not None and b is not None:
        if a == b:
            raise DataError(f"config A and config B are both {a!r}: name two different configs")
        return a, b
    if len(configs) == 2:
        if a is not None:
            return a, configs[1] if a == configs[0] else configs[0]
        if b is not None:
            return configs[1] if b == configs[0] else configs[0], b
        return configs[0], configs[1]
    raise DataError(f"name the two configs to compare (A and B); the configs present are {present}")


@dataclass(frozen=True, slots=True)
class MeasuredVariances:
    """What a paired dataset says about configs ``config_a`` -> ``config_b`` for planning repeats.

    ``components``: :func:`nkcore.paired.variance_components` (its ``within_var`` is NaN when no case has two
    repeats of a config: then ``between_var`` is the whole variance of one case's difference and the two parts
    cannot be told apart); ``repeats``: the typical repeats per case, ``components.mean_repeats`` rounded (at least
    1); ``discordance``: the share of cases the two configs disagree on when every case has one 0/1 result per
    config (McNemar's setting), else None.
    """

    config_a: str
    config_b: str
    configs: tuple[str, ...]
    components: VarianceComponents
    repeats: int
    discordance: float | None

    @property
    def split_known(self) -> bool:
        """True when the data tell the within-case variance from the between-case one (some case has repeats)."""
        return math.isfinite(self.components.within_var)


def measured_variances(frame: pd.DataFrame, a: str | None = None, b: str | None = None) -> MeasuredVariances:
    """Between- and within-case variances, cases and repeats of a paired frame (:func:`nkcore.paired.parse_cases`,
    :func:`nkcore.paired.variance_components`); configs chosen by :func:`choose_pair`.

    >>> df = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "repeat": [1, 2] * 3, "A": [0, 0, 1, 0, 0, 0],
    ...                    "B": [1, 1, 1, 1, 1, 0]})
    >>> m = measured_variances(df)
    >>> m.components.n_cases, m.repeats, round(m.components.within_var, 4), m.discordance
    (3, 2, 0.3333, None)
    """
    configs = parse_cases(frame).configs
    ca, cb = choose_pair(configs, a, b)
    table = parse_cases(frame, (ca, cb))
    vc = variance_components(table, ca, cb)
    discordance = None
    if table.single:
        x = table.means
        discordance = float(np.mean(x[:, 0] != x[:, 1]))
    reps = max(1, round(vc.mean_repeats)) if math.isfinite(vc.mean_repeats) else 1
    return MeasuredVariances(ca, cb, configs, vc, reps, discordance)


def measured_sentence(m: MeasuredVariances) -> str:
    """What a dataset says for planning repeats, in words (config names are user text: the page escapes them).

    >>> df = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "repeat": [1, 2] * 3, "A": [0, 0, 1, 0, 0, 0],
    ...                    "B": [1, 1, 1, 1, 1, 0]})
    >>> measured_sentence(measured_variances(df))[:75]
    'A -> B on 3 cases with 2 repeats per case: between-case variance 0, within-'
    """
    vc = m.components
    head = f"{m.config_a} -> {m.config_b} on {plural(vc.n_cases, 'case')} with {_repeats(m.repeats)}"
    if not m.split_known:
        return (
            f"{head}: one result per case and config, so the variance of one case's difference ({_v(vc.between_var)}) "
            "cannot be split into its between-case and within-case parts; the typed variances are used, with the "
            "data's cases as the cases available. Run some cases at least twice to measure them."
        )
    return (
        f"{head}: between-case variance {_v(vc.between_var)}, within-case variance {_v(vc.within_var)} (one "
        f"repeat's difference); the {plural(vc.n_cases, 'case')} are the cases available."
    )


@dataclass(frozen=True, slots=True)
class OneRunPlan:
    """What a dataset with repeats says for planning one run per case: its paired ``n_cases`` and the
    ``discordance`` one run of two adjacent configs would show on them (mean over adjacent pairs), and the
    ``repeats`` per case (fewest, most) it was measured over."""

    n_cases: int
    discordance: float
    repeats: tuple[int, int]


def one_run_plan(frame: pd.DataFrame) -> OneRunPlan | None:
    """The cases and the expected one-run discordance of a paired dataset with repeats; None for partial scores
    (between 0 and 1 per call: no right / wrong discordance).

    With p_ij the share of config j's repeats of case i that are right, one call of config a and one of config b
    on case i disagree (one right, the other wrong) with probability p_ia (1 - p_ib) + p_ib (1 - p_ia), the calls
    drawn independently; the discordance is its mean over cases, averaged over adjacent configs. With one repeat
    per case (p in {0, 1}) it is the ordinary discordance of McNemar's table. Reference: McNemar (1947); the case
    means as in Miller 2024, "Adding Error Bars to Evals".

    >>> f = pd.DataFrame({"case": [1, 1, 1, 1, 2, 2, 2, 2], "config": list("aabb") * 2, "repeat": [1, 2] * 4,
    ...                   "correct": [1, 0, 1, 1, 1, 1, 0, 0]})
    >>> one_run_plan(f)  # case 1: 0.5 * 0 + 1 * 0.5 = 0.5; case 2: 1 * 1 + 0 = 1
    OneRunPlan(n_cases=2, discordance=0.75, repeats=(2, 2))
    """
    table = parse_cases(frame)
    if not table.binary:
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        p = table.sums / table.repeats
    pairs = [p[:, j] * (1 - p[:, j + 1]) + p[:, j + 1] * (1 - p[:, j]) for j in range(len(table.configs) - 1)]
    d = float(np.mean([np.mean(x) for x in pairs]))
    return OneRunPlan(table.n_cases, d, (int(table.repeats.min()), int(table.repeats.max())))
