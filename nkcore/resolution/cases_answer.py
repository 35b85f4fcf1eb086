"""One answer to "how many cases do I need" for a target difference, and the other counts beside it (exact power,
Connor's formula, the exact critical count, the square-root law), each with when to use it."""

from __future__ import annotations

from dataclasses import dataclass

from nkcore.resolution.inputs import SEARCH_CEILING, max_cases
from nkcore.resolution.plan import Plan
from nkcore.resolution.wording import discordance_text, short_points

__all__ = ["CasesAnswer", "CasesMethod", "cases_answer"]


@dataclass(frozen=True, slots=True)
class CasesMethod:
    """One way of counting the cases a target difference needs: its name, its number (None: beyond the search
    ceiling), and when to use it."""

    name: str
    cases: int | None
    use_when: str


@dataclass(frozen=True, slots=True)
class CasesAnswer:
    """The one answer to "how many cases do I need" for a :class:`Plan`'s target, and the other counts beside it.

    ``cases``: cases to detect a true difference of the target with the plan's power, by the exact power of
    McNemar's exact test (Connor's formula when the exact search is skipped); ``headline``: that answer in words;
    ``methods``: every count, the answer first, each with when to use it.
    """

    cases: int | None
    headline: str
    methods: tuple[CasesMethod, ...]


def _n(x: int | None) -> str:
    return f"{x:,}" if x is not None else f"more than {SEARCH_CEILING:,}"


def cases_answer(p: Plan) -> CasesAnswer | None:
    """Lead with one answer to "how many cases do I need" for the target (None without a target).

    Planning asks for a real difference of the target size to be *found* with the chosen power, so the answer is
    the exact-power count (:func:`nkcore.resolution.cases_for_power_exact`); Connor's formula (1987) approximates
    it; the exact critical count says when the target is resolvable at all (a real difference of that size is then
    found only about half the time); the square-root law is the chapter's back-of-the-envelope scaling.

    >>> from nkcore.resolution.plan import plan
    >>> a = cases_answer(plan(200, 0.06, target_diff=0.01))
    >>> a.cases, [m.cases for m in a.methods]
    (4876, [4876, 4707, 2600, 2800, 3200])
    >>> a.headline[:78]
    'To detect a true difference of 1.0 points 80% of the time (p < 0.05), you need'
    """
    if p.target_diff is None:
        return None
    tp = short_points(p.target_diff)
    power = f"{100 * p.power:.0f}%"
    exact = p.cases_for_target_at_power_exact
    lead = exact if exact is not None else p.cases_for_target_at_power
    how = (
        "by the exact power of McNemar's exact test"
        if exact is not None
        else f"by Connor's formula (the exact check is skipped above {max_cases():,} cases)"
    )
    headline = (
        f"To detect a true difference of {tp} points {power} of the time (p < {p.alpha:g}), you need "
        f"{_n(lead)} cases at {discordance_text(p.discordance)} discordance, {how}."
    )
    methods = (
        CasesMethod(
            f"detect it {power} of the time (exact power)",
            exact,
            "the number to plan with: a real difference of the target size is found with the chosen power",
        ),
        CasesMethod(
            f"detect it {power} of the time (Connor's formula)",
            p.cases_for_target_at_power,
            "a closed-form approximation of the line above, to check by hand; it can be a few percent off",
        ),
        CasesMethod(
            "resolvable at all (exact critical count)",
            p.cases_for_target,
            "the fewest cases at which an observed difference of the target size can reach p < alpha; a real "
            "difference that size is then found only about half the time",
        ),
        CasesMethod(
            "resolvable at every larger size",
            p.cases_for_target_stable,
            "the same, from where every larger evaluation resolves it too (whole discordant cases make the "
            "threshold zigzag)",
        ),
        CasesMethod(
            "square-root law (the chapter)",
            p.cases_for_target_sqrt_law,
            "the chapter's rule of thumb: today's smallest resolvable difference scaled by cases x (today / "
            "target)^2; a quick sanity check",
        ),
    )
    return CasesAnswer(lead, headline, methods)
