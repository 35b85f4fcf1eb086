"""Text from users (a link, an uploaded file or its name) shown literally, never as Markdown.

One rule for the whole app: every string that may hold user text goes through :func:`md` before it reaches an
element that parses Markdown (``st.markdown``, ``st.caption``, ``st.info`` / ``warning`` / ``error`` / ``success``,
``st.metric`` label, value and help, expander and tab labels, ``st.subheader``, widget labels and help), or is shown
through an element that does not parse Markdown (``st.dataframe``, ``st.text``, ``st.code``, Altair charts). That
includes sentences built by ``nkcore``: they embed config, model and dataset names and carry no Markdown of their
own, so a page escapes the whole sentence and writes its own emphasis around it. The HTML summary export
(``ui.common.exports.summary_html``) escapes everything with ``html.escape`` instead.
"""

from __future__ import annotations

import re

from nkcore.common import formatting

__all__ = ["link_value", "md", "shorten", "shorten_middle"]

# Every Markdown-active ASCII punctuation: images, links and bare-URL autolinks (the ':' of "http:" and the dots),
# :colour[...] directives, emphasis, code, LaTeX, HTML. A backslash-escaped character renders as itself.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=&])")
# GFM autolinks bare URLs ("www.x.org", "http://x", "a@b.org") even when their punctuation is escaped.
_AUTOLINK = re.compile(r"(\\:|[wW]{3}|@)(?=\S)")
_WORD_JOINER = "\u2060"


def md(text: object) -> str:
    """``text`` as Markdown that renders exactly as the characters of ``text``: no image, link, colour or emphasis.

    Rule: backslash-escape every ASCII punctuation character Markdown or Streamlit's directives give a meaning to,
    and put an invisible word joiner (U+2060) after ``:``, ``www`` and ``@`` so that GitHub-flavoured Markdown's
    autolinker cannot turn a bare URL or e-mail address into a live link. Reference: CommonMark 0.31, section 2.4
    (any ASCII punctuation character may be backslash-escaped); GFM spec, section 6.9 (autolinks, extension).

    >>> md("![p](http://h/x.png)")
    '\\\\!\\\\[p\\\\]\\\\(http\\\\:\u2060//h/x\\\\.png\\\\)'
    >>> md(":red[x] **b**")
    '\\\\:\u2060red\\\\[x\\\\] \\\\*\\\\*b\\\\*\\\\*'
    >>> md(3.5)
    '3\\\\.5'
    """
    escaped = _MARKDOWN.sub(r"\\\1", str(text))
    return _AUTOLINK.sub("\\1" + _WORD_JOINER, escaped)


def shorten(text: object, limit: int = 80) -> str:
    """``text`` cut to at most ``limit`` characters, an ellipsis marking the cut (a link value may be any length).

    >>> shorten("abcdef", 4)
    'abc…'
    >>> shorten("abc", 4)
    'abc'
    """
    return formatting.shorten(text, limit)


def _cut_at_space(text: str, room: int, from_end: bool) -> str:
    """The longest start (or end) of ``text`` of at most ``room`` characters that ends (starts) at a space, when it
    keeps at least half the room; otherwise ``room`` characters cut inside a word."""
    if from_end:
        at = text.find(" ", len(text) - room - 1)
        part = text[at + 1 :] if at >= 0 else ""
        return part if part and len(part) >= room // 2 else text[len(text) - room :]
    at = text.rfind(" ", 0, room + 1)
    part = text[:at] if at > 0 else ""
    return part if len(part) >= room // 2 else text[:room]


def shorten_middle(text: object, limit: int = 28) -> str:
    """``text`` cut in the middle to at most ``limit`` characters, keeping its start and its end (where names differ:
    "[mnli_m]", "(200 cases)", "seed1"), an ellipsis marking the cut.

    Rule: the end keeps about half of the room, then the start takes what is left; each is cut at a space when that
    keeps at least half of its room (then the ellipsis stands between spaces), else inside a word.

    >>> shorten_middle("Sample: worked example (200 cases)")
    'Sample: worked … (200 cases)'
    >>> shorten_middle("predictions_snli_mnli_baan2022.csv.gz [mnli_m]")
    'predictions_snli_…[mnli_m]'
    >>> shorten_middle("Sample: 3 models on 500 items")
    'Sample: 3 … on 500 items'
    """
    full = str(text)
    if len(full) <= limit:
        return full
    tail = _cut_at_space(full, limit // 2, from_end=True)
    spaced = full.endswith(" " + tail)
    head = _cut_at_space(full, limit - len(tail) - (3 if spaced else 1), from_end=False)
    if spaced and full.startswith(head + " "):
        return f"{head} … {tail}"
    return f"{head.rstrip()}…{tail.lstrip()}"


def link_value(key: str, values: list[str], limit: int = 80) -> str:
    """One ``key=value`` pair of a link for a message: cut to ``limit`` characters, then escaped with :func:`md`.

    >>> link_value("cmp_alpha", ["0.2"])
    'cmp\\\\_alpha\\\\=0\\\\.2'
    """
    return md(shorten(f"{key}={', '.join(values)}", limit))
