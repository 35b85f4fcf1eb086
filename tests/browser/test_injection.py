"""User text is never Markdown, in a real browser: hostile link values and hostile names in stored datasets load
nothing from outside, add no link and colour nothing.

A listener on a free loopback port records every request it receives. Every page is opened with link values and
stored datasets (name, config / model / label names, answers) whose Markdown would point at that listener: an image
(the browser would fetch it on render), a link and a ``:red[...]`` directive. The test fails when the listener
receives any request, when an ``<a href>`` or ``<img src>`` on the page points at it, or when an element with an
inline colour holds the payload's text.

No request of any page leaves the server's origin either: every request the browser makes is recorded, and one to
another host (the tab icon used to come from fonts.gstatic.com) fails the test. Links whose number values no widget
can take (400 nines, ``1e309``) open without an exception box and say which values were not used.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

import pandas as pd
import pytest

from nkcore import store
from tests.browser.conftest import EXCEPTION, expect, goto, run_server

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

MARK = "PWNED"


@dataclass
class Listener:
    """A tiny HTTP server on 127.0.0.1 that answers 200 to anything and remembers every request path."""

    port: int
    requests: list[str] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
def listener() -> Iterator[Listener]:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            seen.append(f"{self.command} {self.path}")
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_HEAD = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Listener(port=httpd.server_address[1], requests=seen)
    finally:
        httpd.shutdown()
        httpd.server_close()


def _hostile(origin: str) -> dict[str, str]:
    return {
        "img": f"![p]({origin}/img.png)",
        "link": f"[Session expired, log in again]({origin}/login)",
        "red": f":red[{MARK}]",
        "value": f"x` ![p]({origin}/value.png) :red[{MARK}] [Session expired, log in again]({origin}/login) `",
        # the mark at the end: the sidebar cuts long names in the middle and keeps their end
        "name": f"![d]({origin}/name.png) [n]({origin}/n) name.csv :red[{MARK}]",
    }


def _store_hostile(root: Path, h: dict[str, str]) -> dict[str, str]:
    """Stored datasets of every kind whose names carry the payloads; kind -> dataset id."""
    configs = (h["img"], h["link"], h["red"] + "cfg")
    paired = pd.DataFrame({"case": [f"c{i}" for i in range(40)]})
    for j, name in enumerate(configs):
        paired[name] = [int((i + j) % (j + 2) != 0) for i in range(40)]
    samples = pd.DataFrame(
        [
            {"case": str(c), "sample": s, "answer": configs[(c + (s % 3 == 0)) % 3], "gold": configs[c % 3],
             "latency_s": 1.0 + s / 10}
            for c in range(12) for s in range(1, 6)
        ]
    )  # fmt: skip
    labels = configs[:2]
    ratings = pd.DataFrame(
        [(f"i{i}", f"r{r}", labels[(i * r + i) % 2]) for i in range(30) for r in range(4)],
        columns=["item", "rater", "label"],
    )
    predictions = pd.DataFrame(
        [(f"i{i}", model, labels[(i + m) % 2]) for i in range(30) for m, model in enumerate(configs[1:])],
        columns=["item", "model", "pred_label"],
    )
    frames = {"paired": paired, "samples": samples, "ratings": ratings, "predictions": predictions}
    return {kind: store.put(frame, kind, h["name"], root=root).id for kind, frame in frames.items()}


def _literal(text: str) -> re.Pattern[str]:
    """``text`` as typed, allowing the invisible word joiners (U+2060) the escaping puts between characters."""
    return re.compile("\u2060*".join(re.escape(c) for c in text))


def _expect_shown(page: Page, text: str, timeout: float = 20_000) -> None:
    """The page shows ``text`` as typed, in its visible text or as the chosen option of a selectbox (whose input
    is filled a moment after the script has finished); retried until it does, like ``expect(...)``."""
    try:
        page.wait_for_function(
            """(text) => [document.body.innerText, ...[...document.querySelectorAll('input')].map(i => i.value)]
                .join('\\n').replace(/\u2060/g, '').includes(text)""",
            arg=text,
            timeout=timeout,
        )
    except Exception as exc:  # playwright's TimeoutError: say what the page shows instead
        raise AssertionError(f"the page does not show {text!r}: {page.locator('body').inner_text()[:2000]}") from exc


def _expect_no_offence(page: Page, listener: Listener) -> None:
    """What the rendered page does with the payloads: no link or image to the listener, no coloured payload text
    (an element with an inline colour holding the mark, other than the literal ``:red[mark]`` shown as typed)."""
    host = f"127.0.0.1:{listener.port}"
    expect(page.locator(f'a[href*="{host}"]'), "a link to the listener").to_have_count(0)
    expect(
        page.locator(f'img[src*="{host}"], img[srcset*="{host}"], source[srcset*="{host}"]'),
        "an image from the listener",
    ).to_have_count(0)
    coloured = (
        page.locator('[style*="color"], [class*="olored"]')
        .filter(has_text=MARK)
        .filter(has_not_text=_literal(f":red[{MARK}"))
    )
    expect(coloured, "coloured payload text").to_have_count(0)


def test_no_page_renders_user_text_as_markdown(
    listener: Listener, _browser_required: None, tmp_path: Path, new_page: Callable[..., Page]
) -> None:
    h = _hostile(listener.origin)
    ids = _store_hostile(tmp_path, h)
    every = {"paired": ids["paired"], "samples": ids["samples"], "ratings": ids["ratings"]}
    views = [
        ("", every),
        ("Data", {"dat_view": h["value"], **every}),
        ("Data", {"dat_view": "paired", "paired": ids["paired"]}),
        ("Data", {"dat_view": "ratings", "ratings": ids["ratings"]}),
        ("Data", {"dat_view": "predictions", "predictions": ids["predictions"], "ratings": ids["ratings"]}),
        ("Budget", {"bud_prior": h["value"], "bud_maxb": "100", "bud_ks": "1,2"}),
        ("Budget", {"bud_prior": "custom alpha (type it)", "bud_alpha": h["value"], "bud_maxb": "100"}),
        ("Budget", {"bud_src": "Prior fitted to ratings", "ratings": ids["ratings"], "bud_maxb": "100",
                    "bud_ks": "1-4"}),
        ("Budget", {"bud_src": "Resample ratings + predictions", "ratings": ids["ratings"],
                    "predictions": ids["predictions"], "bud_maxb": "100", "bud_ks": "1-4"}),
        ("Compare", {"cmp_alpha": h["value"], "paired": ids["paired"]}),
        ("Sampling", {"smp_tie": h["value"], "samples": ids["samples"]}),
        ("Cost_and_latency", {"lat_trigger": h["value"], "samples": ids["samples"]}),
        ("Planner", {"pln_cases": h["value"], "pln_from_data": "true", "paired": ids["paired"]}),
        ("Budget", {"bud_ks": "9" * 400, "bud_seed": "1e309", "bud_maxb": "100"}),
        ("Cost_and_latency", {"lat_m": "9" * 400, "lat_n0": "1e309", "lat_price": "-1e309"}),
        ("Planner", {"pln_dl_items": "9" * 400, "pln_rep_within": "1e309"}),
    ]  # fmt: skip
    with run_server(tmp_path) as base:
        page = new_page(fresh=True)  # its own cache: every request the page makes reaches the network
        asked: list[str] = []  # what the browser asked of the listener, even a request that never reached it
        page.on("request", lambda r: asked.append(r.url) if r.url.startswith(listener.origin) else None)
        outside: list[str] = []  # every request to another origin than the app's (data: and blob: stay inside)
        page.on("request", lambda r: None if r.url.startswith((base, "data:", "blob:")) else outside.append(r.url))
        for path, query in views:
            url = f"{base}/{path}?{urlencode(query)}"
            try:
                goto(page, url, timeout=180_000)
                expect(page.locator("h1").first).to_be_attached()
                expect(page.locator(EXCEPTION)).to_have_count(0)
                if any(v in ("9" * 400, "1e309", "-1e309") for v in query.values()):
                    _expect_shown(page, "could not be used")  # the overflow values are named, the page runs
                else:
                    _expect_shown(page, h["red"])  # the payload is on the page, literally
                _expect_no_offence(page, listener)
                icon = page.locator("link[rel='shortcut icon']").first.get_attribute("href") or ""
                assert icon.startswith(("/", base)) and "//" not in icon.removeprefix(base), icon
            except Exception as exc:  # a failed expectation or a Playwright timeout: name the view
                exc.add_note(f"view: {url}")
                raise
            # what reached the listener or was asked of it is not on the page: plain asserts
            assert not listener.requests and not asked, (url, listener.requests, asked)
            assert not outside, (url, outside)  # nothing left the server's origin
    assert not listener.requests
