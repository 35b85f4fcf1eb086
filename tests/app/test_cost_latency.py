"""AppTest of the Cost & latency page: default view, changed inputs change the numbers, bad input shows an error,
and the page leads with its verdict and the chart that supports it (the rest in expanders).

Accuracy is Sampling's (issue 51): the expected flat rows are ``voting.vote_curve`` of the built-in example at n; the
adaptive row's numbers come from ``nkcore.cost`` (checked against every ordering in tests/test_cost_exact.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block, Element, Expander

from nkcore import cost, store, voting
from nkcore.common.intervals import wilson
from tests.app.conftest import RunPage, error_texts, plain
from tests.app.helpers import data_line
from tests.conftest import ROOT

PAGE = "pages/5_Cost_and_latency.py"


def _text(at: AppTest) -> str:
    return " ".join(plain(m.value) for m in at.markdown) + " " + " ".join(plain(s.value) for s in at.success)


def _walk(node: Block | Element, under: tuple[str, ...] = ()) -> Iterator[tuple[Element, tuple[str, ...]]]:
    """Every element of the page in reading order, with the labels of the expanders it sits in."""
    for child in getattr(node, "children", {}).values():
        if isinstance(child, Expander):
            yield from _walk(child, (*under, child.label))
        elif isinstance(child, Block):
            yield from _walk(child, under)
        else:
            yield child, under


def _shown(at: AppTest) -> list[tuple[Element, tuple[str, ...]]]:
    """The elements a reader sees, in order: empty placeholders left out."""
    return [(e, u) for e, u in _walk(at._tree.children[0]) if getattr(e, "type", "") != "empty"]


def _charts(at: AppTest) -> list[str]:
    """The titles of the page's charts, in order (a title may be a text or a {text, subtitle} object)."""
    titles = []
    for c in at.get("vega_lite_chart"):
        title = json.loads(c.proto.spec).get("title", "")
        text = title.get("text", "") if isinstance(title, dict) else title
        titles.append(" ".join(text) if isinstance(text, list) else str(text))
    return titles


def _worked() -> pd.DataFrame:
    return pd.read_csv(ROOT / "sample_data" / "worked_example_samples.csv")


def _acc() -> dict[int, float]:
    """Sampling's exact vote curve of the built-in example (tie: the answer seen first)."""
    curve = voting.vote_curve(voting.parse_samples(_worked()), "first", n_boot=100)
    return {p.n: p.accuracy for p in curve.points}


def test_default_view_shows_the_chapter_numbers(run_page: RunPage) -> None:
    at: AppTest = run_page(PAGE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Cost & latency"
    rec = plain(at.success[0].value)
    assert "ship flat samples per request n=3" in rec and "$18.60 per 1,000 requests" in rec
    table = at.dataframe[0].value
    assert list(table["configuration"]) == ["n=1", "n=3", "3+2 (adaptive)", "n=5", "n=7"]
    acc = _acc()
    assert list(table["accuracy"])[:2] == [100 * acc[1], 100 * acc[3]]  # n = 1: Sampling's single-call accuracy
    rule = cost.build_table_from_frame(_worked()).row("3+2")
    adaptive = table.loc[table["configuration"] == "3+2 (adaptive)"].iloc[0]
    assert abs(float(adaptive["$ / 1k requests"]) - 1000 * rule.calls * 0.0062) < 1e-9
    # marginal cells are words, never "None"/NaN: the first row has nothing to compare with
    per = [2 / (acc[3] - acc[1]), (rule.calls - 3) / (rule.accuracy - acc[3]), 2 / (acc[5] - acc[3]),
           2 / (acc[7] - acc[5])]  # fmt: skip
    assert list(table["calls per extra correct"]) == ["—", *(f"{v:,.0f}" for v in per)]
    assert list(table["vs row"]) == ["—", "n=1", "n=3", "n=3", "n=5"]
    # p95 of n=7 reads one call at 0.95^(1/7) = 0.99270: 8.1 s on this data (the chapter rounds to 99.3rd: 8.2 s)
    assert round(float(table.loc[table["configuration"] == "n=7", "p95 (s)"].iloc[0]), 1) == 8.1
    text = _text(at)
    assert "$9,920 a month" in text
    assert (
        f"one extra correct answer per {per[0]:,.0f} extra calls" in text and f"per {per[2]:,.0f} extra calls" in text
    )
    share = (rule.calls - 3) / 2
    assert f"tops up {share:.0%} of requests and averages {rule.calls:.2f} calls" in text
    assert "in expectation" in text


def test_latency_budget_changes_the_recommendation(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.slider(key="lat_budget").set_value(5.0).run()
    assert not at.exception
    # only n=1 (p95 4.6 s on this data) fits under 5 s; n=3 is the default 6.5 s budget's advice
    assert "ship flat samples per request n=1" in plain(at.success[0].value)
    at.slider(key="lat_budget").set_value(3.0).run()
    assert "No configuration meets a p95 latency budget of 3.0 s" in plain(
        at.warning[0].value if at.warning else ""
    ) + (" ".join(plain(s.value) for s in at.success))


def test_typed_latency_and_price_change_the_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.radio(key="lat_src").set_value("typed p50 and p95").run()
    at.number_input(key="lat_p95").set_value(3.0).run()
    at.number_input(key="lat_price").set_value(0.01).run()
    assert not at.exception
    table = at.dataframe[0].value
    row1 = table[table["configuration"] == "n=1"].iloc[0]
    assert abs(row1["p95 (s)"] - 3.0) < 1e-9 and abs(row1["$ / 1k requests"] - 10.0) < 1e-9


def test_a_rule_longer_than_the_data_drops_the_adaptive_row(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"lat_n0": "5", "lat_m": "4"}, timeout=120)
    assert not at.exception and not error_texts(at)
    assert any("needs 9 samples per case" in plain(i.value) for i in at.info)
    assert list(at.dataframe[0].value["configuration"]) == ["n=1", "n=3", "n=5", "n=7"]


def test_p95_below_p50_is_an_error_not_an_exception(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.radio(key="lat_src").set_value("typed p50 and p95").run()
    at.number_input(key="lat_p95").set_value(1.0).run()
    assert not at.exception
    assert any("must be larger than p50" in e for e in error_texts(at))


def test_trigger_words_and_free_calls(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"lat_trigger": "any disagreement", "lat_price": "0"}, timeout=120)
    assert not at.exception and not error_texts(at)
    assert at.radio(key="lat_trigger").value == "any disagreement"
    table = at.dataframe[0].value
    adaptive = table[table["configuration"] == "3+2 (adaptive)"].iloc[0]
    want = cost.build_table_from_frame(_worked(), trigger="not_unanimous").row("3+2").calls
    assert abs(adaptive["calls per request"] - want) < 1e-9  # not-unanimous tops up more often than no plurality
    # free calls: the table says $0, and the recommendation names no money (a price of 0 buys nothing to compare)
    assert (table["$ / 1k requests"] == 0).all() and "$" not in plain(at.success[0].value)


def _store(frame: pd.DataFrame, name: str) -> str:
    return store.put(frame, "samples", name).id


def test_short_data_offers_only_the_n_it_has(run_page: RunPage) -> None:
    frame = pd.read_csv(ROOT / "sample_data" / "worked_example_samples.csv")
    at = run_page(PAGE, query={"samples": _store(frame[frame["sample"] <= 3], "three.csv")}, timeout=120)
    assert not at.exception and not error_texts(at)
    assert at.multiselect(key="lat_ns").options == ["1", "2", "3"]
    assert list(at.dataframe[0].value["configuration"]) == ["n=1", "n=3"]
    assert any("needs 5 samples per case" in plain(i.value) for i in at.info)


def test_data_without_latencies_opens_in_typed_percentile_mode(run_page: RunPage) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"case": np.repeat(np.arange(30), 5), "sample": np.tile(np.arange(1, 6), 30),
         "answer": rng.choice(["a", "b"], size=150), "gold": "a"}
    )  # fmt: skip
    ds_id = _store(frame, "no_latency.csv")
    for query in ({"samples": ds_id}, {"samples": ds_id, "lat_src": "latencies in the data"}):
        at = run_page(PAGE, query=query, timeout=120)
        assert not at.exception and not error_texts(at)
        assert at.radio(key="lat_src").value == "typed p50 and p95" and at.radio(key="lat_src").disabled
        notes = [plain(i.value) for i in at.info if "records no latencies" in plain(i.value)]
        assert len(notes) == 1 and "no_latency.csv" in notes[0] and "\n" not in notes[0]
        # the typed default p95 of one call is 4.6 s: the n=1 row reads it back
        assert round(float(at.dataframe[0].value["p95 (s)"].iloc[0]), 2) == 4.6


def test_data_with_latencies_keeps_the_choice(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    assert not at.radio(key="lat_src").disabled and at.radio(key="lat_src").value == "latencies in the data"
    assert not any("records no latencies" in plain(i.value) for i in at.info)


def test_a_budget_of_8s_recommends_n5_and_says_why(run_page: RunPage) -> None:
    """n=5 and 3+2 fit in 8 s; on the expected credit of each case the sign-flip test resolves n=5 over every
    cheaper row (n=7 is over the budget), so n=5 is paid for, and the reasons name the test. Accuracy carries its
    interval in the table."""
    at = run_page(PAGE, timeout=120)
    at.slider(key="lat_budget").set_value(8.0).run()
    assert not at.exception
    acc5 = _acc()[5]
    low, high = wilson(round(200 * acc5), 200)
    rec = plain(at.success[0].value)
    want = f"ship flat samples per request n=5: {100 * acc5:.1f}% accuracy (95% interval {100 * low:.1f}% to {100 * high:.1f}%)"
    assert want in rec
    why = next(plain(m.value) for m in at.markdown if m.value.startswith("**Why:**"))
    assert "Cheaper settings are resolvably worse than n=5" in why and "sign-flip p" in why and "McNemar" not in why
    table = at.dataframe[0].value
    row = table[table["configuration"] == "n=5"].iloc[0]
    assert round(row["95% interval from"], 1) == round(100 * low, 1) and round(row["to"], 1) == round(100 * high, 1)


def test_the_verdict_leads_and_its_chart_follows(run_page: RunPage) -> None:
    """Title, the one-line question, the verdict (what to ship, one sentence), then the accuracy-against-cost chart;
    why comes after the chart, the inputs after that."""
    at = run_page(PAGE, timeout=120)
    assert not at.exception
    shown = _shown(at)
    start = next(i for i, (e, _) in enumerate(shown) if e.type == "title")
    (purpose, _), (data, _), (verdict, _), (chart, _) = shown[start + 1 : start + 5]
    assert purpose.type == "markdown" and plain(purpose.value).endswith("?")
    assert data.type == "caption" and "**Data:** the built-in example" in plain(data.value)  # what it speaks of
    assert verdict.type == "success"
    text = plain(verdict.value)
    acc = _acc()
    low, high = wilson(round(200 * acc[3]), 200)
    assert text == (
        f"**Under a p95 latency budget of 6.5 s, ship flat samples per request n=3: {100 * acc[3]:.1f}% accuracy (95% "
        f"interval {100 * low:.1f}% to {100 * high:.1f}%), 3.00 calls per request, p95 6.1 s, $18.60 per 1,000 "
        "requests ($7,440 a month).**"
    )
    assert chart.type == "vega_lite_chart" and "Accuracy against cost" in chart.proto.spec
    order = [e.type for e, _ in shown]
    why = next(i for i, (e, _) in enumerate(shown) if e.type == "markdown" and e.value.startswith("**Why:**"))
    gain = 100 * (acc[3] - acc[1])
    assert plain(shown[why][0].value).startswith(
        f"**Why:** Cheaper settings are resolvably worse than n=3 (n=1 by {gain:.1f} points, sign-flip p"
    )
    assert order.index("vega_lite_chart") < why < order.index("number_input")  # the inputs come after the answer


def test_no_configuration_in_budget_is_a_warning_not_a_success(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"lat_budget": "3.0"}, timeout=120)
    assert not at.exception and not at.success
    assert plain(at.warning[0].value).startswith("**No configuration meets a p95 latency budget of 3.0 s")


def test_tables_and_explanations_sit_in_expanders(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    assert not at.exception
    shown = _shown(at)
    table = next(u for e, u in shown if e.type == "arrow_data_frame" or type(e).__name__ == "Dataframe")
    assert table == ("The numbers: one row per configuration",)
    where: dict[str, tuple[str, ...]] = {}
    outside_words = 0
    for e, under in shown:
        if e.type in ("markdown", "caption"):
            text = plain(str(e.value))
            for probe in ("Going from n=1 to n=3 buys", "The adaptive rule spends extra samples", "A stall you see"):
                if probe in text:
                    where.setdefault(probe, under)
            if not under:
                outside_words += len(text.split())
    assert where["Going from n=1 to n=3 buys"] == ("The numbers: one row per configuration",)
    assert where["The adaptive rule spends extra samples"] == ("Which requests top up under the adaptive rule",)
    assert where["A stall you see"] == ("Rare stalls and queued branches",)
    outside_words -= len(data_line(at).split())  # the data line: what the page speaks of (its own tests)
    outside_words -= len(" ".join(plain(c.value) for c in at.caption if c.value.startswith("Price:")).split())
    assert outside_words < 150, outside_words


def test_the_latency_chart_is_drawn_only_when_opened(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    charts = _charts(at)
    assert len(charts) == 1 and charts[0].startswith("Accuracy against cost per 1,000 requests")
    at.session_state["lat_show_latency"] = True
    at.run()
    assert not at.exception
    charts = _charts(at)
    assert len(charts) == 2 and charts[1].startswith("Request latency")


JARGON = re.compile(r"\bp(50|95|99)\b|\brho\b|N_eff|\beps\b|mid-p|\bKL\b|\bnats\b", re.I)


def test_jargon_labels_have_a_plain_name_and_a_help(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    labelled = [*at.slider, *at.number_input, *at.radio, *at.multiselect]
    jargon = [(w.label, w.help) for w in labelled if JARGON.search(w.label)]
    assert len(jargon) >= 3  # the budget and the two typed percentiles
    for label, help_text in jargon:
        assert help_text and JARGON.search(help_text), f"{label!r} has no help saying what the term means"
        assert re.search(r"median|tail|budget", label), f"{label!r} has no plain name"


def test_stall_inputs_follow_the_link_and_reach_the_summary(run_page: RunPage) -> None:
    """The stalls section reruns on its own (a fragment) and draws the summary, so the summary follows its inputs."""
    at = run_page(PAGE, query={"lat_stall": "1000", "lat_slots": "7"}, timeout=120)
    assert not at.exception and not error_texts(at) and not at.warning
    assert at.number_input(key="lat_stall").value == 1000 and at.number_input(key="lat_slots").value == 7
    summary = next(plain(m.value) for m in at.markdown if "**recommendation: n=3**" in plain(m.value))
    assert "A stall you see once in 1,000 calls" in summary and "**queued branches: p95 8.1 s**" in summary
    at.number_input(key="lat_slots").set_value(2).run()
    summary = next(plain(m.value) for m in at.markdown if "**recommendation: n=3**" in plain(m.value))
    assert "**queued branches: p95 12.5 s**" in summary
