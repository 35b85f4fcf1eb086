"""The Planner's words from nkcore.resolution.sentences: the headline without a target (plan_headline), the
resolvable difference in points, and the one-page summary rows.

Oracle: the critical count by brute force with scipy's exact binomial test: the fewest k of the m = round(cases x
discordance) discordant cases one way whose two-sided p is below alpha; the smallest resolvable difference is the
net (2k - m) / cases. The chapter's example: 200 cases at 6% discordance, 12 discordant, k = 10, 4.0 points.
"""

from __future__ import annotations

import math

from scipy import stats

from nkcore import resolution
from nkcore.resolution import sentences as rs


def _critical(m: int, alpha: float) -> int | None:
    return next((k for k in range(m // 2, m + 1) if stats.binomtest(k, m, 0.5).pvalue < alpha), None)


def test_headline_without_target_is_the_smallest_resolvable_difference() -> None:
    k = _critical(12, 0.05)
    assert k == 10 and (2 * k - 12) / 200 == 0.04
    assert rs.plan_headline(resolution.plan(200, 0.06)) == (
        "200 cases at 6% discordance can resolve a difference of 4.0 points or more at p < 0.05; anything smaller "
        'returns "cannot tell".'
    )
    assert _critical(4, 0.05) is None  # 4 discordant cases: even 4-0 has p = 0.125
    assert rs.plan_headline(resolution.plan(200, 0.02)) == (
        "200 cases at 2% discordance cannot resolve any difference at p < 0.05."
    )
    # a larger evaluation at alpha 0.01: k by brute force again
    k = _critical(60, 0.01)
    assert rs.plan_headline(resolution.plan(1000, 0.06, significance=0.01)).startswith(
        f"1,000 cases at 6% discordance can resolve a difference of {(2 * k - 60) / 10:.1f} points or more at p < 0.01"
    )


def test_headline_with_a_target_is_the_cases_answer() -> None:
    p = resolution.plan(200, 0.06, target_diff=0.01)
    answer = rs.cases_answer(p)
    assert answer is not None and rs.plan_headline(p, answer) == answer.headline
    assert answer.headline.startswith("To detect a true difference of 1.0 points 80% of the time (p < 0.05)")


def test_resolvable_points_and_summary_rows() -> None:
    assert (rs.resolvable_points(0.04), rs.resolvable_points(math.inf)) == ("4.0 points", "none")
    p = resolution.plan(200, 0.06, target_diff=0.01)
    floor = resolution.label_error_floor(0.03)
    est = resolution.estimate_label_error(items=200, disagreements=12)
    rows = rs.summary_rows(p, rs.cases_answer(p), floor, est)
    labels = [r[0] for r in rows]
    assert labels == [
        "cases",
        "smallest resolvable difference",
        "detectable at 80% power",
        "square-root law",
        "cases to detect 1.0 points",
        "label-error floor",
        "estimated label error",
    ]
    assert rows[1][1] == "4.0 points" and rows[5][1] == "97.0%"  # 1 - label error rate
    no_target = rs.summary_rows(resolution.plan(200, 0.02), None, floor, est)
    assert no_target[1][1] == "none" and len(no_target) == 6  # nothing resolvable, no target row


def test_the_plan_claims_the_threshold_at_the_expected_discordant_count_only() -> None:
    """'Any smaller difference returns "cannot tell" however often the evaluation is run' was false: the
    discordant count varies (Binomial(200, 0.06)), and at 6 discordant cases 6 of 6 one way is p = 0.031 (scipy's
    binomtest), a net of 6 cases = 3.0 points."""
    from scipy import stats

    from nkcore.resolution.plan import plan
    from nkcore.resolution.sentences import plan_sentences

    p = plan(200, 0.06)
    text = plan_sentences(p).min_resolvable
    assert "however often" not in text
    assert 'At the expected 12 discordant cases any smaller difference returns "cannot tell".' in text
    lo, hi = int(stats.binom.ppf(0.025, 200, 0.06)), int(stats.binom.ppf(0.975, 200, 0.06))
    assert f"({lo} to {hi} in 95% of runs)" in text
    assert stats.binomtest(6, 6, 0.5).pvalue < 0.05 and stats.binomtest(5, 6, 0.5).pvalue >= 0.05
    assert "at 6 discordant cases 3.0 points are resolvable" in text
