"""Tests of nkcore.cost: the chapter's money arithmetic and the cost / latency table.

Accuracy oracles (issue 51: one definition of single-call accuracy): each flat n is the vote averaged over every
n-subset of a case's samples (``itertools.combinations``), the adaptive rule the vote averaged over every ordered
draw of its first n0 + m samples (``itertools.permutations``), both with ``collections.Counter`` by hand.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from nkcore import advice, cost, latency, voting
from nkcore.errors import DataError
from tests.conftest import holm_oracle, sign_flip_p


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


def _split_vote(answers: tuple[str, ...], gold: str) -> Fraction:
    """Plurality vote, a tie shared (the expectation of 'the tied answer seen first wins' over random orders)."""
    counts = Counter(answers)
    top = max(counts.values())
    tied = [a for a, k in counts.items() if k == top]
    return Fraction(1, len(tied)) if gold in tied else Fraction(0)


def _flat_by_hand(frame: pd.DataFrame, n: int) -> float:
    """Expected correct cases of flat n: the vote averaged over every n-subset of each case's samples."""
    total = Fraction(0)
    for _, g in frame.sort_values(["case", "sample"]).groupby("case"):
        answers, gold = tuple(g["answer"].astype(str)), str(g["gold"].iloc[0])
        subsets = list(itertools.combinations(answers, n))
        total += sum((_split_vote(s, gold) for s in subsets), Fraction(0)) / len(subsets)
    return float(total)


def _adaptive_by_hand(frame: pd.DataFrame, n0: int, m: int) -> tuple[float, float]:
    """(expected correct cases, expected calls) of "draw n0, add m on no strict plurality" averaged over every
    ordered draw of n0 + m of each case's samples (Counter.most_common: the first seen wins a tie)."""
    memo: dict[tuple[str, ...], tuple[Fraction, Fraction]] = {}
    correct, fires = Fraction(0), Fraction(0)
    for _, g in frame.sort_values(["case", "sample"]).groupby("case"):
        gold = str(g["gold"].iloc[0])
        key = tuple(sorted("g" if a == gold else a for a in g["answer"].astype(str)))
        if key not in memo:
            c, f, k = Fraction(0), Fraction(0), 0
            for order in itertools.permutations(key, n0 + m):
                k += 1
                first = Counter(order[:n0])
                top = max(first.values())
                fire = sum(1 for v in first.values() if v == top) > 1
                f += fire
                c += Counter(order if fire else order[:n0]).most_common(1)[0][0] == "g"
            memo[key] = (c / k, f / k)
        correct += memo[key][0]
        fires += memo[key][1]
    n = frame["case"].nunique()
    return float(correct), n0 + m * float(fires) / n


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
    credit = voting.case_credit_exact(s, "first")
    for r in t.rows:
        assert r.cost_per_1k == pytest.approx(1000 * r.calls * 0.01)
        assert r.monthly_cost == pytest.approx(100_000 * r.calls * 0.01)
        if not r.adaptive:
            assert r.correct == pytest.approx(credit[:, int(r.n) - 1].sum(), abs=1e-9)
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
    """Accuracy as Sampling reads it: every n-subset (flat), every order (3+2); the chapter's money arithmetic on
    the calls that gives. n = 7 uses all 7 samples of each case, so it keeps the chapter's 158 of 200."""
    t = cost.build_table_from_frame(worked_frame, price=0.0062, requests_per_month=400_000)
    assert [r.label for r in t.rows] == ["n=1", "n=3", "3+2", "n=5", "n=7"]
    for n in (1, 3, 5, 7):
        assert t.row(f"n={n}").correct == pytest.approx(_flat_by_hand(worked_frame, n), abs=1e-9)
    assert t.row("n=7").correct == 158
    a = t.row("3+2")
    want_correct, want_calls = _adaptive_by_hand(worked_frame, 3, 2)
    assert a.correct == pytest.approx(want_correct, abs=1e-9) and a.calls == pytest.approx(want_calls, abs=1e-12)
    assert a.cost_per_1k == pytest.approx(1000 * want_calls * 0.0062)
    assert t.row("n=3").cost_per_1k == pytest.approx(18.60)
    assert t.row("n=7").monthly_cost - t.row("n=3").monthly_cost == pytest.approx(9920)
    r1, r3, r5 = t.row("n=1"), t.row("n=3"), t.row("n=5")
    assert r3.calls_per_extra_correct == pytest.approx(2 / (r3.accuracy - r1.accuracy))
    assert r5.calls_per_extra_correct == pytest.approx(2 / (r5.accuracy - r3.accuracy))
    assert round(t.row("n=3").p95, 1) == 6.1  # the single-call 98.3rd percentile
    # the adaptive row's tail: the share that tops up pays two fan-outs in sequence
    assert a.p95 > t.row("n=3").p95


def _resolved(cheap: np.ndarray, dear: np.ndarray, level: float = 0.05) -> bool:
    """dear is more accurate than cheap and the exact two-sided sign-flip p is below ``level``."""
    return float((dear - cheap).sum()) > 0 and sign_flip_p(dear - cheap) < level


def test_recommendation_follows_the_latency_budget(worked_frame: pd.DataFrame) -> None:
    """With the latency budget binding (6.5 s: n=1 and n=3 fit), ship flat n = 3 when it is resolvably better than
    n = 1; without one, the cheapest row the most accurate one does not resolvably beat."""
    t = cost.build_table_from_frame(worked_frame)
    col = {r.label: t.credit[:, i] for i, r in enumerate(t.rows)}
    assert _resolved(col["n=1"], col["n=3"])
    tight = advice.advise(t, 6.5).sentence
    assert "ship flat samples per request n=3" in tight and "over the budget" in tight
    # without a budget: every cheaper row is resolvably worse than n=7 after Holm's adjustment (statsmodels), so
    # n=7 is what the data pays for
    loose = advice.advise(t, 60.0)
    cheaper = [r.label for r in t.rows if r.label != "n=7"]
    assert all(_resolved(col[c], col["n=7"], 1.0) for c in cheaper)  # each is less accurate
    adjusted = holm_oracle([sign_flip_p(col["n=7"] - col[c]) for c in cheaper])
    assert max(adjusted) < 0.05 and loose.pick == loose.best == "n=7"
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
    per = 2 / ((_flat_by_hand(worked_frame, 3) - _flat_by_hand(worked_frame, 1)) / 200)
    assert f"one extra correct answer per {per:,.0f} extra calls" in cost.marginal_sentence(t.row("n=3"))
    assert "cheapest" in cost.marginal_sentence(t.row("n=1"))
    flat = voting.parse_samples(pd.DataFrame({"case": [1, 1, 2, 2], "sample": [1, 2] * 2, "answer": list("ggxx"),
                                              "gold": "g"}))  # fmt: skip
    same = cost.build_table(flat, latency.lognormal_from_p50_p95(1.0, 2.0), (1, 2), 0.01, 1000, None)
    assert "no extra correct answer" in cost.marginal_sentence(same.row("n=2"))


def test_table_uses_only_cases_with_enough_samples_and_free_calls() -> None:
    """Cases with fewer samples than the table needs are left out of every row (paired rows); the adaptive row
    equals the rule's expectation on the kept cases parsed on their own. Price 0: every money column is 0, not
    NaN."""
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
    kept_frame = frame[frame["case"] % 4 != 0]
    want_correct, want_calls = _adaptive_by_hand(kept_frame, 3, 2)
    a = t.row("3+2")
    assert (a.correct, a.calls) == (pytest.approx(want_correct, abs=1e-9), pytest.approx(want_calls, abs=1e-12))
    assert t.row("n=5").correct == pytest.approx(_flat_by_hand(kept_frame, 5), abs=1e-9)
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
