"""Tests of nkcore.cost: the chapter's money arithmetic and the cost / latency table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from nkcore import advice, cost, latency, voting
from nkcore.errors import DataError


def test_chapter_cost_per_thousand() -> None:
    """$0.0062 per call: flat n = 3 is $18.60 per 1,000 requests, the 3+2 rule (3.38 calls) $20.96."""
    assert cost.cost_per_1k(3, 0.0062) == pytest.approx(18.60)
    assert round(cost.cost_per_1k(3.38, 0.0062), 2) == 20.96


def test_chapter_monthly_difference() -> None:
    """n = 3 vs n = 7 at 400,000 requests a month and $0.0062 per call: $9,920 a month."""
    assert cost.monthly_difference(3, 7, 0.0062, 400_000) == pytest.approx(9920.0)
    assert cost.monthly_cost(7, 0.0062, 400_000) - cost.monthly_cost(3, 0.0062, 400_000) == pytest.approx(9920.0)


def test_chapter_extra_correct_per_extra_call() -> None:
    """1 to 3 samples: 14 cases for 400 extra calls on 200 cases, one per 29; 3 to 5: 2 cases, one per 200."""
    assert round(cost.calls_per_extra_correct(142 / 200, 1, 156 / 200, 3)) == 29
    assert cost.calls_per_extra_correct(156 / 200, 3, 158 / 200, 5) == pytest.approx(200)
    assert cost.calls_per_extra_correct(0.79, 5, 0.79, 7) == math.inf


def test_token_pricing() -> None:
    assert cost.price_per_call(None, 3.0, 15.0, 1000, 200) == pytest.approx(0.003 + 0.003)
    assert cost.price_per_call(0.01) == 0.01
    with pytest.raises(DataError, match="price per call"):
        cost.price_per_call()
    with pytest.raises(DataError, match="non-negative"):
        cost.price_per_call(-1.0)


def _synthetic_samples(seed: int = 0) -> voting.SampleSet:
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(80):
        p = rng.beta(3, 1)
        for j in range(7):
            ans = "g" if rng.random() < p else rng.choice(["a", "b", "c"])
            rows.append({"case": c, "sample": j + 1, "answer": ans, "gold": "g", "latency_s": rng.gamma(3, 0.5)})
    return voting.parse_samples(pd.DataFrame(rows))


def test_table_rows_are_consistent() -> None:
    s = _synthetic_samples()
    model = latency.empirical_model(s.latencies())
    t = cost.build_table(s, model, (1, 3, 5, 7), 0.01, 100_000)
    labels = [r.label for r in t.rows]
    assert labels[:2] == ["n=1", "n=3"] and "3+2" in labels and labels[-1] == "n=7"
    credit = voting.case_credit_first_n(s, "first")
    for r in t.rows:
        assert r.cost_per_1k == pytest.approx(1000 * r.calls * 0.01)
        assert r.monthly_cost == pytest.approx(100_000 * r.calls * 0.01)
        if not r.adaptive:
            assert r.correct == credit[:, int(r.n) - 1].sum()
            assert r.p95 == pytest.approx(float(latency.fanout_quantile(model, int(r.n), 0.95)))
    a = t.row("3+2")
    assert a.compared_with == "n=3"
    r3 = t.row("n=3")
    gain = a.accuracy - r3.accuracy
    assert a.calls_per_extra_correct == (pytest.approx((a.calls - 3) / gain) if gain > 0 else math.inf)
    assert t.row("n=5").compared_with == "n=3"
    assert len(t.to_frame()) == len(t.rows)
    with pytest.raises(DataError, match="no row"):
        t.row("n=9")


def test_worked_example_table(worked_frame: pd.DataFrame) -> None:
    t = cost.build_table_from_frame(worked_frame, price=0.0062, requests_per_month=400_000)
    assert [r.correct for r in t.rows] == [142, 156, 158, 158, 158]  # n=1, n=3, 3+2, n=5, n=7
    a = t.row("3+2")
    assert a.calls == pytest.approx(3.38) and round(a.cost_per_1k, 2) == 20.96
    assert t.row("n=3").cost_per_1k == pytest.approx(18.60)
    assert t.row("n=7").monthly_cost - t.row("n=3").monthly_cost == pytest.approx(9920)
    assert round(t.row("n=3").calls_per_extra_correct) == 29
    assert t.row("n=5").calls_per_extra_correct == pytest.approx(200)
    assert round(t.row("n=3").p95, 1) == 6.1  # the single-call 98.3rd percentile
    # the adaptive row's tail: the 19% that top up pay two fan-outs in sequence
    assert a.p95 > t.row("n=3").p95


def test_recommendation_follows_the_latency_budget(worked_frame: pd.DataFrame) -> None:
    """The chapter: with the latency budget binding, ship flat n = 3; without one, n = 3 still, since no dearer row
    is resolvably more accurate on the same cases."""
    t = cost.build_table_from_frame(worked_frame)
    tight = advice.advise(t, 6.5).sentence
    assert "ship flat samples per request n=3" in tight and "over the budget" in tight
    loose = advice.advise(t, 60.0).sentence
    # the adaptive rule's +1.0 points over n = 3 rest on 2 discordant cases (p = 0.50): not paid for
    assert "ship flat samples per request n=3" in loose and "cannot tell from the most accurate one, 3+2" in loose
    none = advice.advise(t, 1.0).sentence
    assert none.startswith("No configuration meets")
    with pytest.raises(DataError):
        advice.advise(t, 5.0, percentile="p90")


def test_lognormal_table_and_errors(worked_frame: pd.DataFrame) -> None:
    t = cost.build_table_from_frame(worked_frame, latency="lognormal", p50_s=1.9, p95_s=4.6)
    assert t.row("n=1").p95 == pytest.approx(4.6)
    with pytest.raises(DataError, match="p50 and p95"):
        cost.build_table_from_frame(worked_frame, latency="lognormal")
    with pytest.raises(DataError, match="at most 7"):
        cost.build_table_from_frame(worked_frame, ns=(1, 9))
    no_lat = worked_frame.drop(columns=["latency_s"])
    with pytest.raises(DataError, match="latency_s"):
        cost.build_table_from_frame(no_lat)


def test_marginal_sentences(worked_frame: pd.DataFrame) -> None:
    t = cost.build_table_from_frame(worked_frame)
    assert "one extra correct answer per 29 extra calls" in cost.marginal_sentence(t.row("n=3"))
    assert "no extra correct answer" in cost.marginal_sentence(t.row("n=7"))
    assert "cheapest" in cost.marginal_sentence(t.row("n=1"))


def test_table_uses_only_cases_with_enough_samples_and_free_calls() -> None:
    """Cases with fewer samples than the table needs are left out of every row (paired rows); the adaptive row
    equals adaptive_topup on the kept cases parsed on their own. Price 0: every money column is 0, not NaN."""
    rng = np.random.default_rng(7)
    rows = []
    for c in range(60):
        k = 7 if c % 4 else 3  # every fourth case has only 3 samples
        rows += [
            {"case": c, "sample": j + 1, "answer": rng.choice(["g", "g", "a", "b"]), "gold": "g"} for j in range(k)
        ]
    frame = pd.DataFrame(rows)
    s = voting.parse_samples(frame)
    t = cost.build_table(s, latency.lognormal_from_p50_p95(1.0, 3.0), (1, 3, 5), price=0.0, requests_per_month=1e6)
    assert t.n_cases == 45 and all(r.n_cases == 45 for r in t.rows)
    kept = voting.parse_samples(frame[frame["case"] % 4 != 0])
    ref = voting.adaptive_topup(kept, 3, 2)
    a = t.row("3+2")
    assert (a.correct, a.calls) == (ref.correct, pytest.approx(ref.expected_calls))
    assert t.row("n=5").correct == voting.case_credit_first_n(kept)[:, 4].sum()
    for r in t.rows:
        assert r.cost_per_1k == 0 and r.monthly_cost == 0
        assert r.compared_with is None or r.cost_per_extra_correct in (0.0, math.inf)


def test_accuracy_carries_its_wilson_interval_in_the_table_and_the_chart(worked_frame: pd.DataFrame) -> None:
    from statsmodels.stats.proportion import proportion_confint

    from ui.charts.voting import cost_accuracy_chart

    t = cost.build_table_from_frame(worked_frame)
    for r in t.rows:
        low, high = proportion_confint(round(r.correct), r.n_cases, alpha=0.05, method="wilson")
        assert (r.accuracy_low, r.accuracy_high) == (pytest.approx(low), pytest.approx(high))
    frame = t.to_frame()
    assert {"accuracy_low", "accuracy_high"} <= set(frame.columns)
    spec = cost_accuracy_chart(frame, 8.0).to_dict()
    bars = [la for la in spec["layer"] if la.get("mark", {}).get("type") == "rule"]
    assert bars and bars[0]["encoding"]["y"]["field"] == "accuracy_low"
    assert bars[0]["encoding"]["y2"]["field"] == "accuracy_high"
