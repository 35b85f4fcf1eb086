"""The ranking in words: which configs could be the best, the winner's score after the winner's curse, and which
config to ship when a margin (and a cost) is given. One sentence each, the numbers as the JSON gives them."""

from __future__ import annotations

from collections.abc import Sequence

from nkcore.common.formatting import format_p, percent, points

__all__ = [
    "and_list",
    "best_sentence",
    "non_inferiority_plan_sentence",
    "non_inferiority_sentence",
    "separation_plan_sentence",
    "ship_sentence",
    "within_sentence",
]

_LISTED = 6


def and_list(names: Sequence[str], limit: int = _LISTED) -> str:
    """'A', 'A and B', 'A, B and C'; past ``limit`` names: 'A, B, C, D, E, F and 3 others'.

    >>> and_list(["A"]), and_list(["A", "B"]), and_list(["A", "B", "C"]), and_list(list("ABCDEFGH"), 3)
    ('A', 'A and B', 'A, B and C', 'A, B, C and 5 others')
    """
    items = [str(n) for n in names]
    if len(items) > limit:
        rest = len(items) - limit
        return ", ".join(items[:limit]) + f" and {rest} other" + ("" if rest == 1 else "s")
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _level(confidence: float) -> str:
    return f"{100 * confidence:g}%"


def best_sentence(
    could_be_best: Sequence[str], n_configs: int, winner: str, naive: float, corrected: float, confidence: float
) -> str:
    """Which configs could be the best and the winner's score, naive and corrected for having picked it.

    >>> best_sentence(["A", "B", "D"], 5, "A", 0.712, 0.689, 0.95)
    'A, B and D could each be the best (95%, all pairs at once); A is the best observed at 71.2%, 68.9% after correcting for having picked it'
    >>> best_sentence(["A"], 3, "A", 0.712, 0.705, 0.95)
    'A is the best (95%, all pairs at once): each of the 2 other configs is resolvably below it; it scores 71.2%, 70.5% after correcting for having picked it'
    """
    level = _level(confidence)
    score = f"{percent(naive)}, {percent(corrected)} after correcting for having picked it"
    if len(could_be_best) == 1:
        others = n_configs - 1
        other = "the other config is" if others == 1 else f"each of the {others} other configs is"
        return f"{winner} is the best ({level}, all pairs at once): {other} resolvably below it; it scores {score}"
    if len(could_be_best) == n_configs:
        head = (
            f"none of the {n_configs} configs can be told apart from the best: any could be the best ({level}, all "
            "pairs at once)"
            if n_configs > 2
            else f"{and_list(could_be_best)} could each be the best ({level})"
        )
        return f"{head}; {winner} is the best observed at {score}"
    return (
        f"{and_list(could_be_best)} could each be the best ({level}, all pairs at once); {winner} is the best "
        f"observed at {score}"
    )


def ship_sentence(ship: str, best: str, margin: float, significance: float, n_passed: int, n_tested: int) -> str:
    """What to ship at a margin with costs: the cheapest of the best observed config and the configs shown not
    worse than it by more than the margin (``n_passed`` of the ``n_tested`` others).

    >>> ship_sentence("C", "A", 0.01, 0.05, 2, 4)
    'Ship C: the cheapest config not worse than A (the best observed) by more than 1.0 point (95%, Holm over 4 configs)'
    >>> ship_sentence("A", "A", 0.01, 0.05, 0, 4)
    'Ship A: no other config is shown to be within 1.0 point of it (95%, Holm over 4 configs)'
    >>> ship_sentence("A", "A", 0.01, 0.05, 1, 4)
    'Ship A: the best observed config costs no more than the 1 config shown within 1.0 point of it (95%, Holm over 4 configs)'
    """
    size = points(margin, sign=False)
    unit = "point" if size == "1.0" else "points"
    family = f"{_level(1 - significance)}, Holm over {n_tested} config" + ("" if n_tested == 1 else "s")
    if ship == best and n_passed == 0:
        return f"Ship {best}: no other config is shown to be within {size} {unit} of it ({family})"
    if ship == best:
        shown = f"the {n_passed} config" + ("" if n_passed == 1 else "s")
        return f"Ship {best}: the best observed config costs no more than {shown} shown within {size} {unit} of it ({family})"
    return f"Ship {ship}: the cheapest config not worse than {best} (the best observed) by more than {size} {unit} ({family})"


def within_sentence(names: Sequence[str], best: str, margin: float, significance: float, n_tested: int) -> str:
    """The configs shown not worse than the best observed one by more than the margin (no cost given).

    >>> within_sentence(["C", "D"], "A", 0.02, 0.05, 4)
    'C and D are not worse than A (the best observed) by more than 2.0 points (95%, Holm over 4 configs)'
    >>> within_sentence([], "A", 0.02, 0.05, 4)
    'no other config is shown to be within 2.0 points of A (the best observed) (95%, Holm over 4 configs)'
    """
    size = points(margin, sign=False)
    unit = "point" if size == "1.0" else "points"
    family = f"{_level(1 - significance)}, Holm over {n_tested} config" + ("" if n_tested == 1 else "s")
    if not names:
        return f"no other config is shown to be within {size} {unit} of {best} (the best observed) ({family})"
    verb = "is" if len(names) == 1 else "are"
    return f"{and_list(names)} {verb} not worse than {best} (the best observed) by more than {size} {unit} ({family})"


def non_inferiority_sentence(
    config_a: str, config_b: str, margin: float, lower_bound: float, p: float, non_inferior: bool, significance: float
) -> str:
    """B against A at a margin, in one sentence (the one-sided lower bound of B minus A and the p).

    >>> non_inferiority_sentence("A", "C", 0.01, -0.006, 0.012, True, 0.05)
    'C is not worse than A by more than 1.0 point (95%): C minus A is at least -0.6 points (one-sided test at the margin, p = 0.012)'
    >>> non_inferiority_sentence("A", "C", 0.01, -0.02, 0.3, False, 0.05)
    'C is not shown to be within 1.0 point of A (95%): C minus A could be as low as -2.0 points (one-sided test at the margin, p = 0.30)'
    """
    size = points(margin, sign=False)
    unit = "point" if size == "1.0" else "points"
    level = _level(1 - significance)
    test = f"one-sided test at the margin, {format_p(p)}"
    if non_inferior:
        return (
            f"{config_b} is not worse than {config_a} by more than {size} {unit} ({level}): {config_b} minus {config_a} is at least "
            f"{points(lower_bound)} points ({test})"
        )
    return (
        f"{config_b} is not shown to be within {size} {unit} of {config_a} ({level}): {config_b} minus {config_a} "
        f"could be as low as {points(lower_bound)} points ({test})"
    )


def _repeats_words(repeats: int) -> str:
    return "one run each" if repeats == 1 else f"{repeats} repeats each"


def separation_plan_sentence(
    cases: int, repeats: int, gap: float, n_configs: int, power: float, significance: float
) -> str:
    """How many cases separate the best config from the runner-up, in words.

    >>> separation_plan_sentence(1234, 1, 0.03, 5, 0.8, 0.05)
    'With 5 configs, 1,234 cases (one run each) show the best above a runner-up 3.0 points below it 80% of the time (95%, all pairs at once)'
    """
    size = points(gap, sign=False)
    unit = "point" if size == "1.0" else "points"
    return (
        f"With {n_configs} configs, {cases:,} cases ({_repeats_words(repeats)}) show the best above a runner-up {size} "
        f"{unit} below it {100 * power:.0f}% of the time ({_level(1 - significance)}, all pairs at once)"
    )


def non_inferiority_plan_sentence(
    cases: int, repeats: int, margin: float, true_diff: float, power: float, significance: float
) -> str:
    """How many cases show one config not worse than another by more than a margin, in words.

    >>> non_inferiority_plan_sentence(900, 3, 0.02, 0.0, 0.8, 0.05)
    '900 cases (3 repeats each) show a config not worse than another by more than 2.0 points 80% of the time when the two are truly equal (95%, one-sided)'
    """
    size = points(margin, sign=False)
    unit = "point" if size == "1.0" else "points"
    truth = (
        "when the two are truly equal"
        if true_diff == 0
        else f"when it is truly {points(abs(true_diff), sign=False)} points {'better' if true_diff > 0 else 'worse'}"
    )
    return (
        f"{cases:,} cases ({_repeats_words(repeats)}) show a config not worse than another by more than {size} {unit} "
        f"{100 * power:.0f}% of the time {truth} ({_level(1 - significance)}, one-sided)"
    )
