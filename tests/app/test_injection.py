"""User text is never Markdown (AppTest): hostile link values and hostile names in stored datasets are shown
literally on every page.

Each hostile string carries one of three payloads: an image (``![p](http://...)``, which would make every viewer's
browser fetch an outside URL), a link (``[...](http://...)``, a phishing link inside the app) and a colour
directive (``:red[PWNED]``). A page passes when no string it renders as Markdown holds any of them unescaped.
"""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nkcore import store
from tests.app.conftest import RunPage, plain, rendered_markdown

TIMEOUT = 180
HOST = "http://127.0.0.1:9"
IMG = f"![p]({HOST}/x.png)"
LINK = f"[Session expired, log in again]({HOST}/login)"
RED = ":red[PWNED]"
# The attacker's link value: a backtick closes the code span the warning used to put values in.
LINK_VALUE = f"x` {IMG} {RED} {LINK} `"
PAYLOADS = ("![", "](http", ":red[PWNED")
# Config, model, label and dataset names of the hostile datasets.
CONFIGS = (f"![c]({HOST}/cfg.png)", f"[click]({HOST}/c)", ":red[PWNED]cfg")
DATASET_NAME = f"![d]({HOST}/name.png) [n]({HOST}/n) :red[PWNED]name.csv"


def injected(at: AppTest) -> list[str]:
    """The Markdown strings on the page that carry a payload unescaped."""
    return [t for t in rendered_markdown(at) if any(p in t for p in PAYLOADS)]


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _shown(at: AppTest) -> str:
    """All Markdown on the page as the reader sees it."""
    return "\n".join(plain(t) for t in rendered_markdown(at))


def _note(at: AppTest) -> str:
    """The finish_page warning about link values, as the reader sees it."""
    notes = [plain(w.value) for w in at.warning if "could not be used" in w.value]
    assert len(notes) == 1, [w.value for w in at.warning]
    return notes[0]


def _paired_id() -> str:
    """A stored paired dataset (wide: one 0/1 column per config) whose three configs are hostile names."""
    n = 40
    frame = pd.DataFrame({"case": [f"c{i}" for i in range(n)]})
    for j, name in enumerate(CONFIGS):
        frame[name] = [int((i + j) % (j + 2) != 0) for i in range(n)]
    return store.put(frame, "paired", DATASET_NAME).id


def _samples_id() -> str:
    rows = []
    for case in range(12):
        gold = CONFIGS[case % 3]
        for s in range(1, 6):
            answer = gold if (case + s) % 3 else CONFIGS[(case + 1) % 3]
            rows.append({"case": str(case), "sample": s, "answer": answer, "gold": gold, "latency_s": 1.0 + s / 10})
    return store.put(pd.DataFrame(rows), "samples", DATASET_NAME).id


def _ratings_and_predictions() -> tuple[str, str]:
    labels = CONFIGS[:2]
    ratings = pd.DataFrame(
        [(f"i{i}", f"r{r}", labels[(i * r + i) % 2]) for i in range(30) for r in range(4)],
        columns=["item", "rater", "label"],
    )
    preds = pd.DataFrame(
        [(f"i{i}", model, labels[(i + m) % 2]) for i in range(30) for m, model in enumerate(CONFIGS[1:])],
        columns=["item", "model", "pred_label"],
    )
    return (
        store.put(ratings, "ratings", DATASET_NAME).id,
        store.put(preds, "predictions", DATASET_NAME).id,
    )


# ------------------------------------------------------------------ finish_page: a hostile link value is literal
@pytest.mark.parametrize(
    ("page", "key"),
    [
        ("pages/3_Compare.py", "cmp_alpha"),
        ("pages/6_Planner.py", "pln_cases"),
        ("pages/1_Data.py", "dat_view"),
        ("pages/2_Budget.py", "bud_prior"),
        ("pages/4_Sampling.py", "smp_tie"),
        ("pages/5_Cost_and_latency.py", "lat_trigger"),
    ],
)
def test_a_dropped_link_value_is_shown_literally(run_page: RunPage, page: str, key: str) -> None:
    at = run_page(page, query={key: LINK_VALUE, "bud_maxb": "100", "bud_ks": "1,2"}, timeout=TIMEOUT)
    _ok(at)
    assert not injected(at), injected(at)
    note = _note(at)
    shown = f"{key}={LINK_VALUE}"[:79]
    assert shown in note  # the value as typed, cut to 80 characters with an ellipsis
    assert f"{key}={LINK_VALUE}"[:81] not in note


def test_a_hostile_parameter_name_is_shown_literally(run_page: RunPage) -> None:
    at = run_page("pages/3_Compare.py", query={"cmp_alpha": "0.2"}, timeout=TIMEOUT)
    _ok(at)
    assert "cmp_alpha=0.2" in _note(at)
    at = run_page("pages/6_Planner.py", query={"pln_cases": "7", "pln_alpha": IMG}, timeout=TIMEOUT)
    _ok(at)
    assert not injected(at), injected(at)
    assert f"pln_alpha={IMG}" in _note(at)


def test_a_hostile_typed_prior_is_shown_literally(run_page: RunPage) -> None:
    query = {"bud_prior": "custom alpha (type it)", "bud_alpha": f"1, {IMG} {RED}", "bud_maxb": "100"}
    at = run_page("pages/2_Budget.py", query=query, timeout=TIMEOUT)
    _ok(at)
    assert at.error, "a bad prior is a user error"
    assert not injected(at), injected(at)


# ------------------------------------------------------------------ hostile names in stored datasets
def test_compare_shows_hostile_config_names_literally(run_page: RunPage) -> None:
    ds = _paired_id()
    at = run_page("pages/3_Compare.py", query={"paired": ds}, timeout=TIMEOUT)
    _ok(at)
    assert not injected(at), injected(at)
    text = _shown(at)
    assert CONFIGS[0] in text and CONFIGS[2] in text and DATASET_NAME in text  # shown, as typed
    query = {"paired": ds, "cmp_mode": "one pair of my choice", "cmp_a": CONFIGS[2], "cmp_b": CONFIGS[1]}
    at = run_page("pages/3_Compare.py", query=query, timeout=TIMEOUT)
    _ok(at)
    assert not injected(at), injected(at)


def test_planner_shows_a_hostile_dataset_name_literally(run_page: RunPage) -> None:
    at = run_page("pages/6_Planner.py", query={"paired": _paired_id(), "pln_from_data": "true"}, timeout=TIMEOUT)
    _ok(at)
    assert not injected(at), injected(at)
    assert any(DATASET_NAME in plain(c.value) for c in at.caption)


def test_data_page_shows_hostile_names_literally(run_page: RunPage) -> None:
    paired = _paired_id()
    samples = _samples_id()
    ratings, predictions = _ratings_and_predictions()
    for kind, ds in (("paired", paired), ("samples", samples), ("ratings", ratings), ("predictions", predictions)):
        query = {"dat_view": kind, kind: ds}
        if kind == "predictions":
            query["ratings"] = ratings
        at = run_page("pages/1_Data.py", query=query, timeout=TIMEOUT)
        _ok(at)
        assert not injected(at), (kind, injected(at))
        assert DATASET_NAME in _shown(at)  # shown, as typed


def test_budget_shows_hostile_model_and_label_names_literally(run_page: RunPage) -> None:
    ratings, predictions = _ratings_and_predictions()
    for source in ("Prior fitted to ratings", "Resample ratings + predictions"):
        query = {"bud_src": source, "ratings": ratings, "predictions": predictions, "bud_maxb": "100", "bud_ks": "1-4"}
        at = run_page("pages/2_Budget.py", query=query, timeout=TIMEOUT)
        _ok(at)
        assert not injected(at), (source, injected(at))
        assert not at.error, [e.value for e in at.error]
        assert CONFIGS[1] in _shown(at)  # a label (fitted prior) or model (resampling) name, as typed


@pytest.mark.parametrize("page", ["pages/4_Sampling.py", "pages/5_Cost_and_latency.py", "app.py"])
def test_sampling_cost_and_home_show_hostile_answers_and_names_literally(run_page: RunPage, page: str) -> None:
    # These pages show the hostile answers and names only in tables and selectboxes (no Markdown): a guard.
    at = run_page(page, query={"samples": _samples_id(), "paired": _paired_id()}, timeout=TIMEOUT)
    _ok(at)
    assert not injected(at), injected(at)


# ------------------------------------------------------------------ the HTML summary export
def test_the_html_summary_escapes_every_text_and_links_only_http() -> None:
    from html.parser import HTMLParser

    from ui.common.exports import summary_html

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[tuple[str, dict[str, str | None]]] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append((tag, dict(attrs)))

    hostile = f'<img src="{HOST}/i.png"><a href="{HOST}/a">x</a><script>alert(1)</script>'
    numbers = [(hostile, hostile, f"{IMG} {hostile}")]
    for link, linked in ((f"https://nk.example/Compare?cmp_a={hostile}", True), ("javascript:alert(1)", False)):
        page = summary_html(hostile, {hostile: hostile, "dataset": DATASET_NAME}, numbers, [], link=link)
        parser = Tags()
        parser.feed(page)
        assert {t for t, _ in parser.tags} <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p",
                                               "table", "tr", "th", "td", "b", "a"}  # fmt: skip
        hrefs = [a.get("href") or "" for t, a in parser.tags if t == "a"]
        assert all(h.startswith("https://nk.example/") for h in hrefs) and bool(hrefs) == linked, hrefs
        assert "&lt;script&gt;" in page and DATASET_NAME in page  # shown, as typed


# ------------------------------------------------------------------ link values no widget can take (ui.common.links)
OVERFLOWS = ("9" * 400, "1e309", "-1e309", "nan", "inf", "1" + "0" * 39 + "1")
_WIDGET_KINDS = {
    "number_input": "number", "slider": "number",
    "toggle": "bool", "checkbox": "bool", "expander": "bool",
    "text_input": "text", "text_area": "text",
    "radio": "choice", "selectbox": "choice", "select_slider": "choice", "multiselect": "choice", "tabs": "choice",
    "pills": "choice", "segmented_control": "choice",
}  # fmt: skip
_PAGES_BY_PREFIX = {  # the pages with number keys (Compare has none)
    "dat": "pages/1_Data.py",
    "bud": "pages/2_Budget.py",
    "smp": "pages/4_Sampling.py",
    "lat": "pages/5_Cost_and_latency.py",
    "pln": "pages/6_Planner.py",
}


def _literal_number(expr: object) -> float | None:
    """The number a widget's bound is written as (``64``, ``10 ** 10``, ``2 ** 31 - 1``); None when it is set at run
    time (``max_n``) or absent."""
    import ast

    if not isinstance(expr, ast.expr):
        return None
    try:
        value = eval(compile(ast.Expression(expr), "<bound>", "eval"), {"__builtins__": {}}, {})
    except Exception:  # a name: the bound is set at run time
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _bound_widgets() -> list[tuple[str, str, str, float | None, float | None]]:
    """Every widget call bound to the link in app.py, pages/ and ui/ (an AST scan): (file, widget, key, the literal
    min and max when the call gives them as numbers, else None)."""
    import ast

    from tests.conftest import ROOT

    found = []
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            kw = {k.arg: k.value for k in node.keywords if k.arg}
            bind = kw.get("bind")
            if not (isinstance(bind, ast.Constant) and bind.value == "query-params"):
                continue
            assert isinstance(node.func, ast.Attribute), ast.unparse(node)
            key = kw.get("key")
            assert isinstance(key, ast.Constant) and isinstance(key.value, str), f"{path.name}: {ast.unparse(node)}"
            low, high = (
                _literal_number(kw.get(name, node.args[pos] if len(node.args) > pos else None))
                for pos, name in ((1, "min_value"), (2, "max_value"))
            )
            found.append((path.name, node.func.attr, key.value, low, high))
    return found


def test_the_link_table_names_every_bound_key_with_its_kind_and_range() -> None:
    from ui.common.links import LINK_KEYS

    widgets = _bound_widgets()
    assert len(widgets) > 60  # the scan sees the pages' widgets
    assert {key for _, _, key, _, _ in widgets} == set(LINK_KEYS)
    for file, widget, key, low, high in widgets:
        bound = LINK_KEYS[key]
        want = _WIDGET_KINDS[widget]
        assert bound.kind == want or (want == "text" and bound.kind in ("text", "numbers")), (file, key, widget)
        if low is not None:
            assert bound.low == low, (file, key, low, bound)
        if high is not None:
            assert bound.high == high, (file, key, high, bound)
        if bound.kind == "number" and high is None:
            assert bound.high < 1e300, (file, key, "a run-time maximum needs its widest value in the table")


def test_no_overflow_value_of_a_number_key_is_usable() -> None:
    from ui.common.links import LINK_KEYS, usable

    numeric = [k for k, b in LINK_KEYS.items() if b.kind in ("number", "numbers")]
    assert len(numeric) >= 25
    for key in numeric:
        for value in OVERFLOWS:
            assert not usable(key, [value]), (key, value)
    assert usable("lat_m", ["2"]) and usable("bud_ks", ["1-10,20-500:20"]) and usable("bud_alpha", ["2, 1, 1"])
    assert usable("pln_rep_within", ["0.1875"]) and not usable("pln_rep_within", ["1.5"])
    assert not usable("cmp_a", ["x"] * 65) and not usable("cmp_a", ["x" * 201]) and usable("not_bound", ["9" * 400])


@pytest.mark.parametrize("value", ["9" * 400, "1e309"])
@pytest.mark.parametrize("prefix", list(_PAGES_BY_PREFIX))
def test_overflow_link_values_of_every_number_key_are_dropped_before_the_widgets(
    run_page: RunPage, prefix: str, value: str
) -> None:
    """Every number key of the page in one link, each an overflow value: no exception box (it was an
    OverflowError in Streamlit's number-input deserialisation), and the note names every one of them."""
    from ui.common.links import LINK_KEYS

    keys = [k for k, b in LINK_KEYS.items() if k.startswith(prefix + "_") and b.kind in ("number", "numbers")]
    assert keys
    query: dict[str, str] = {k: value for k in keys}
    if prefix == "bud":
        query["bud_maxb"] = "100"
    at = run_page(_PAGES_BY_PREFIX[prefix], query=query, timeout=TIMEOUT)
    _ok(at)
    note = _note(at)
    for key in keys:
        assert f"{key}=" in note, (key, note)
    assert not any(key in at.query_params for key in keys), dict(at.query_params)
