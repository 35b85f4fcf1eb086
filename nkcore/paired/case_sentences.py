"""The words beside a case-level comparison (repeats or partial scores): the verdict, the unit, what repeats bought.

The sign-flip p on the case means decides (:func:`nkcore.paired.compare_cases`), the case-bootstrap interval
qualifies, and the sentence names the unit ("60 cases x 3 epochs; case means compared") so nobody reads the
repeats as independent cases. Numbers are formatted by :mod:`nkcore.common.formatting`.
"""

from __future__ import annotations

from collections.abc import Sequence

from nkcore.common.checks import check_significance
from nkcore.common.formatting import format_p, plural, points
from nkcore.paired.case_test import CaseComparison

__all__ = [
    "REPEATS_HELP",
    "case_disagreement_sentence",
    "case_headline_sentence",
    "case_verdict_sentence",
    "repeat_word",
    "repeats_sentence",
    "unit_sentence",
]

REPEATS_HELP = (
    "The case is the unit: each case's repeats (epochs, repeats, samples) are averaged into one score per config, "
    "and the two configs' case scores are compared case by case. The repeats of a case are correlated (a hard "
    "question is hard every time), so they are neither thrown away nor counted as extra cases. The p is the "
    "sign-flip test on the per-case differences (exact on their lattice), the interval the case-resampling bootstrap."
)

_WORDS = {"epoch": "epoch", "repeat": "repeat", "sample": "sample"}


def repeat_word(column: str | None) -> str:
    """What a repeat is called in the file: 'epoch', 'sample' or 'repeat' (the default).

    >>> repeat_word("Epoch"), repeat_word(None)
    ('epoch', 'repeat')
    """
    return _WORDS.get((column or "repeat").strip().lower(), "repeat")


def _repeats_text(lo: int, hi: int, word: str) -> str:
    if lo == hi:
        return plural(lo, word)
    return f"{lo}-{hi} {word}s"


def unit_sentence(c: CaseComparison, word: str = "repeat") -> str:
    """The unit in words: "60 cases x 3 epochs; case means compared" (unequal repeats named as a range).

    >>> from nkcore.paired import compare_cases, parse_cases
    >>> import pandas as pd
    >>> df = pd.DataFrame({"case": [1, 1, 2, 2], "epoch": [1, 2, 1, 2], "A": [1, 0, 1, 1], "B": [1, 1, 1, 1]})
    >>> unit_sentence(compare_cases(parse_cases(df), "A", "B"), "epoch")
    '2 cases x 2 epochs per config; case means compared'
    """
    lo = min(c.a.repeats_min, c.b.repeats_min)
    hi = max(c.a.repeats_max, c.b.repeats_max)
    if hi == 1:
        return f"{plural(c.n_cases, 'case')}, one score each (scores between 0 and 1); case scores compared"
    return f"{plural(c.n_cases, 'case')} x {_repeats_text(lo, hi, word)} per config; case means compared"


def case_verdict_sentence(c: CaseComparison, significance: float = 0.05, word: str = "repeat") -> str:
    """One sentence on a case-level comparison A -> B; the sign-flip p decides, the interval qualifies.

    "B beats A: +21.7 points (95% interval +13.3 to +30.0), p < 0.001 (60 cases x 3 epochs per config; case means
    compared)", or "cannot tell B from A: ..." with the p and which way the data lean.

    >>> from nkcore.paired import compare_cases, parse_cases
    >>> import pandas as pd
    >>> df = pd.DataFrame({"case": [1, 1, 2, 2], "epoch": [1, 2, 1, 2], "A": [1, 0, 1, 1], "B": [1, 1, 1, 1]})
    >>> case_verdict_sentence(compare_cases(parse_cases(df), "A", "B"), word="epoch")
    'cannot tell B from A: +25.0 points (95% interval 0.0 to +50.0), p = 1.0 (2 cases x 2 epochs per config; case means compared)'
    """
    check_significance(significance)
    pct = f"{round(100 * c.confidence):g}%"
    unit = unit_sentence(c, word)
    p = format_p(c.p_value) + {"exact": "", "monte-carlo": " (Monte Carlo)"}.get(c.p_method, " (normal form)")
    if c.b_better + c.a_better == 0:
        return (
            f"cannot tell {c.config_b} from {c.config_a}: every one of the {plural(c.n_cases, 'case')} has the same "
            f"mean score for both ({unit})"
        )
    if c.p_value < significance:
        if c.diff >= 0:
            winner, loser, d, lo, hi = c.config_b, c.config_a, c.diff, c.diff_ci_low, c.diff_ci_high
        else:
            winner, loser, d, lo, hi = c.config_a, c.config_b, -c.diff, -c.diff_ci_high, -c.diff_ci_low
        text = f"{winner} beats {loser}: {points(d)} points ({pct} interval {points(lo)} to {points(hi)}), {p} ({unit})"
        if lo <= 0:
            text += "; the bootstrap interval reaches zero, so the evidence is borderline"
        return text
    # the higher-scoring config first, so the difference reads as the chart draws it (higher minus lower)
    hi_c, lo_c, d, lo, hi = (
        (c.config_b, c.config_a, c.diff, c.diff_ci_low, c.diff_ci_high)
        if c.diff >= 0
        else (c.config_a, c.config_b, -c.diff, -c.diff_ci_high, -c.diff_ci_low)
    )
    return f"cannot tell {hi_c} from {lo_c}: {points(d)} points ({pct} interval {points(lo)} to {points(hi)}), {p} ({unit})"


def repeats_sentence(c: CaseComparison, word: str = "repeat") -> str | None:
    """What the repeats bought, or None for one score per case: the within-case correlation, the design effect and
    the effective number of cases, with the cases each config wins.

    >>> from nkcore.paired import compare_cases, parse_cases
    >>> import pandas as pd
    >>> rows = [(c, r, int(c % 3 == 0 or r == 1), int(c % 2 == 0)) for c in range(30) for r in range(3)]
    >>> df = pd.DataFrame(rows, columns=["case", "epoch", "A", "B"])
    >>> print(repeats_sentence(compare_cases(parse_cases(df), "A", "B"), "epoch"))
    B's case mean is higher on 10 cases, A's on 15, 5 ties. Repeats of a case correlate strongly (intra-case correlation 0.56 of one epoch's difference): design effect 2.13, so 3 epochs on each of the 30 cases are worth about 42 cases with one epoch each.
    """
    comp = c.components
    hi = max(c.a.repeats_max, c.b.repeats_max)
    wins = (
        f"{c.config_b}'s case mean is higher on {plural(c.b_better, 'case')}, {c.config_a}'s on {c.a_better:,}, "
        f"{c.ties:,} tie{'' if c.ties == 1 else 's'}."
    )
    if hi == 1:
        return wins
    if comp.within_var != comp.within_var:  # NaN: no case has two repeats
        return wins
    lo_r = min(c.a.repeats_min, c.b.repeats_min)
    shown = plural(hi, word) if lo_r == hi else f"{lo_r}-{hi} {word}s (in effect {comp.mean_repeats:.3g})"
    how = "barely correlate" if comp.icc < 0.1 else "correlate strongly" if comp.icc >= 0.5 else "correlate"
    return (
        f"{wins} Repeats of a case {how} (intra-case correlation {comp.icc:.2f} of one {word}'s difference): "
        f"design effect {comp.design_effect:.2f}, so {shown} on each of the {c.n_cases:,} cases are worth about "
        f"{comp.effective_cases:,.0f} cases with one {word} each."
    )


def case_headline_sentence(
    comparisons: Sequence[CaseComparison], p_holm: Sequence[float | None], significance: float, word: str = "repeat"
) -> str:
    """The Compare page's verdict for case-level comparisons: which configs beat which (tentatively when Holm's
    adjusted p over the adjacent pairs is not below alpha, the rule of :func:`nkcore.paired.headline_sentence`) and
    which pairs the cases cannot tell apart; one pair: :func:`case_verdict_sentence`.

    >>> from nkcore.paired import analyse_cases
    >>> import pandas as pd
    >>> df = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "epoch": [1, 2] * 3,
    ...                    "A": [0, 0, 1, 0, 0, 0], "B": [1, 1, 1, 1, 1, 0], "C": [1, 1, 1, 1, 1, 1]})
    >>> o = analyse_cases(df)
    >>> case_headline_sentence(o.comparisons, o.p_holm, 0.05, "epoch")
    'These 3 cases x 2 epochs per config (case means compared) cannot tell B from A or C from B.'
    """
    check_significance(significance)
    if len(comparisons) == 1:
        return case_verdict_sentence(comparisons[0], significance, word)
    wins, ties = [], []
    for c, p_adj in zip(comparisons, p_holm, strict=True):
        if c.a_better + c.b_better and c.p_value < significance:
            winner, loser, d = (c.config_b, c.config_a, c.diff) if c.diff >= 0 else (c.config_a, c.config_b, -c.diff)
            text = f"{winner} beats {loser} by {points(d)} points"
            if p_adj is not None and p_adj >= significance:
                text += (
                    f", but only tentatively (with Holm's adjustment for {len(comparisons)} pairs {format_p(p_adj)})"
                )
            else:
                text += f" ({format_p(c.p_value)})"
            wins.append(text)
        else:
            ties.append(f"{c.config_b} from {c.config_a}")
    unit, _, how = unit_sentence(comparisons[0], word).partition("; ")
    cases = f"{unit} ({how})"
    if ties:
        listed = ties[0] if len(ties) == 1 else ", ".join(ties[:-1]) + f" or {ties[-1]}"
        if not wins:
            return f"These {cases} cannot tell {listed}."
        wins.append(f"they cannot tell {listed}")
    return f"On these {cases}, " + "; ".join(wins) + "."


def case_disagreement_sentence(
    config_a: str, config_b: str, a_higher: int, b_higher: int, n_cases: int, word: str = "repeat"
) -> str:
    """The cases two configs' mean scores differ on, in words: how many, on which side, and what the test does
    with them (``word``: the repeat column's word, "epoch").

    >>> case_disagreement_sentence("A", "B", 3, 9, 60, "epoch")
    'A and B disagree on 12 of the 60 cases (their mean scores over the epochs differ): A scores higher on 3, B on 9; largest differences first. The sign-flip test weighs each case by its difference; the other 48 cases, with equal means, add nothing to it.'
    """
    m = a_higher + b_higher
    if m == 0:
        return f"{config_a} and {config_b} have the same mean score on all {plural(n_cases, 'case')}: no case to show."
    return (
        f"{config_a} and {config_b} disagree on {m:,} of the {plural(n_cases, 'case')} (their mean scores over the "
        f"{word}s differ): {config_a} scores higher on {a_higher:,}, {config_b} on {b_higher:,}; largest differences "
        f"first. The sign-flip test weighs each case by its difference; the other {plural(n_cases - m, 'case')}, "
        "with equal means, add nothing to it."
    )
