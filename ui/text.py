"""Text from users (a link, an uploaded file or its name) shown literally, never as Markdown.

One rule for the whole app: every string that may hold user text goes through :func:`md` before it reaches an
element that parses Markdown (``st.markdown``, ``st.caption``, ``st.info`` / ``warning`` / ``error`` / ``success``,
``st.metric`` label, value and help, expander and tab labels, ``st.subheader``, widget labels and help), or is shown
through an element that does not parse Markdown (``st.dataframe``, ``st.text``, ``st.code``, Altair charts). That
includes sentences built by ``nkcore``: they embed config, model and dataset names and carry no Markdown of their
own, so a page escapes the whole sentence and writes its own emphasis around it. The HTML summary export
(``ui.exports.summary_html``) escapes everything with ``html.escape`` instead.
"""

from __future__ import annotations

import re

from nkcore.common import formatting

__all__ = ["link_value", "md", "shorten"]

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


def link_value(key: str, values: list[str], limit: int = 80) -> str:
    """One ``key=value`` pair of a link for a message: cut to ``limit`` characters, then escaped with :func:`md`.

    >>> link_value("cmp_alpha", ["0.2"])
    'cmp\\\\_alpha\\\\=0\\\\.2'
    """
    return md(shorten(f"{key}={', '.join(values)}", limit))
