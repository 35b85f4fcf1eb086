"""Helpers the page tests share (AppTest): the elements of the main area in the order the page shows them, what a
room sees first, the text inside and outside expanders, and jargon labels without a help popover."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from streamlit.testing.v1 import AppTest

from tests.app.conftest import plain

# Words a product manager in the room may not know: a label (or radio option) holding one needs a help popover.
JARGON = re.compile(
    r"\b(alpha0?|eps|McNemar|mid-p|Holm|Wilson|Clopper|bootstrap|MDE|Connor|discordan\w*|power|chi-square|rho|KL|"
    r"nats|MAB|critical count)\b",
    re.IGNORECASE,
)
WIDGETS = ("radio", "select_slider", "slider", "selectbox", "multiselect", "number_input", "toggle", "checkbox")


def found(at: AppTest, element_type: str) -> list[Any]:
    """Every element (or block) of ``element_type`` in the main area ("expander", "dataframe", "tab", ...)."""
    return list(at.main.get(element_type))


def in_order(node: Any) -> Iterator[Any]:
    """Every node under ``node`` (itself first) in the order the page shows them (children sorted by position)."""
    yield node
    children = getattr(node, "children", None) or {}
    for index in sorted(children):
        yield from in_order(children[index])


def _text(node: Any) -> str:
    for attr in ("value", "label"):
        value = getattr(node, attr, None)
        if isinstance(value, str):
            return plain(value)
    return ""


def data_line(at: AppTest) -> str:
    """The page's data line (``ui.common.evaluation.say_what``: the data and the config it speaks of), "" if none."""
    return next((_text(x) for x in in_order(at.main) if x.type == "caption" and _text(x).startswith("**Data:**")), "")


def leading_elements(at: AppTest, n: int) -> list[tuple[str, str]]:
    """The first ``n`` elements of the main area as (type, text the reader sees), containers, empty placeholders and
    the data line under the question (:func:`data_line`, checked by its own tests) left out: what a room sees first."""
    leaves = [
        x
        for x in in_order(at.main)
        if not getattr(x, "children", None)
        and x.type not in ("empty", "main")
        and not (x.type == "caption" and _text(x).startswith("**Data:**"))
    ]
    return [(x.type, _text(x)) for x in leaves[:n]]


def expander_texts(at: AppTest) -> dict[str, str]:
    """Each expander's label -> the text of the Markdown elements inside it."""
    return {
        plain(e.label): "\n".join(_text(x) for x in in_order(e) if x.type in ("markdown", "caption"))
        for e in found(at, "expander")
    }


def texts_outside_expanders(at: AppTest) -> list[str]:
    """The text of every Markdown element of the main area that is not inside an expander."""
    inside = {id(x) for e in found(at, "expander") for x in in_order(e)}
    return [_text(x) for x in in_order(at.main) if x.type in ("markdown", "caption", "info") and id(x) not in inside]


def jargon_without_help(at: AppTest) -> list[str]:
    """Labels of widgets and metrics of the main area that use a word of :data:`JARGON` (in the label or, for a
    radio, an option) and have no help popover."""
    found = []
    for x in in_order(at.main):
        if x.type not in (*WIDGETS, "metric"):
            continue
        words = plain(x.label) + " " + " ".join(str(o) for o in getattr(x, "options", []) if x.type == "radio")
        if JARGON.search(words) and not (x.help or "").strip():
            found.append(plain(x.label))
    return found
