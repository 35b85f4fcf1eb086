"""Every page in a room and on a phone: at 1024 x 768 (a projector) and 390 x 844 (a phone) on the sample data, no
metric label or value is cut (an element narrower than its text: ``scrollWidth > clientWidth``), the Budget
heatmap's axis labels do not overlap each other, no tab list runs past the screen, no selectbox cuts the name it shows, no chart's point label overlaps another label or a rule (an interval bar), and a full-page screenshot of each lands in
``tests/browser/artifacts/<page>_<width>x<height>.png`` (git-ignored) for a human to look at.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import EXCEPTION, MAIN, expect, expect_title, goto, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# URL path -> (artifact name, the page's title (its h1))
PAGES = {
    "": ("Home", "NK Planner"),
    "Data": ("Data", "Data"),
    "Budget": ("Budget", "Budget (N x K)"),
    # real data, KL: p < 0.001 and the fifth number "paired test agrees" (the widest of the cell's numbers)
    "Budget?bud_src=Resample+ratings+%2B+predictions&bud_metric=kl": ("Budget_real", "Budget (N x K)"),
    "Compare": ("Compare", "Compare"),
    "Sampling": ("Sampling", "Sampling"),
    "Cost_and_latency": ("Cost_and_latency", "Cost & latency"),
    "Planner": ("Planner", "Planner"),
}
VIEWPORTS = [(1024, 768), (390, 844)]

# Every metric label and value of the main area whose text does not fit: the element itself or any element inside
# it (Streamlit cuts a label in an inner element with an ellipsis) is narrower than its content.
CUT_METRICS_JS = """() => {
    const cut = [];
    const sel = '[data-testid="stMain"] [data-testid="stMetricLabel"], [data-testid="stMain"] [data-testid="stMetricValue"]';
    for (const el of document.querySelectorAll(sel)) {
        for (const e of [el, ...el.querySelectorAll('*')]) {
            if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
                const where = el.closest('[data-testid="stExpander"]') ? ' (in an expander)' : '';
                cut.push(`${el.dataset.testid} '${el.textContent.trim()}'${where}: ${e.scrollWidth} px of text in ${e.clientWidth} px`);
                break;
            }
        }
    }
    return cut;
}"""

# Number inputs whose value is wider than their box (at 1024 px Cost & latency's 'requests per month' showed
# "40000" of 400000: a room reads a tenth of the volume). Only enabled, visible inputs in the main block.
CUT_INPUTS_JS = """() => {
    const cut = [];
    for (const el of document.querySelectorAll('[data-testid="stMain"] [data-testid="stNumberInput"] input')) {
        if (el.disabled || el.clientWidth === 0) continue;
        if (el.scrollWidth > el.clientWidth + 1) {
            const label = el.getAttribute('aria-label') || '';
            cut.push(`'${label}' = ${el.value}: ${el.scrollWidth} px of text in ${el.clientWidth} px`);
        }
    }
    return cut;
}"""

# The Budget heatmap (the chart whose x axis is titled exactly 'ratings per item (K)'), read from its Vega SVG:
# the visible tick labels of each axis as boxes [left, top, right, bottom, text] (Vega gives the labels it hides to
# avoid overlap opacity 0), the boxes of the axes and of the colour legend, and the size of its first cell.
HEATMAP_JS = """(title) => {
    const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    for (const chart of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
        const axes = [...chart.querySelectorAll('g.role-axis')];
        if (!axes.some(a => (a.getAttribute('aria-label') || '').startsWith(`X-axis titled '${title}'`))) continue;
        const out = {axes: [], legends: [...chart.querySelectorAll('g.role-legend')].map(box), cell: null};
        for (const axis of axes) {
            const labels = [];
            for (const t of axis.querySelectorAll('g.role-axis-label text')) {
                const op = parseFloat(t.getAttribute('opacity') ?? '1');
                if (op === 0 || !t.textContent.trim()) continue;
                const r = t.getBoundingClientRect();
                if (r.width > 0) labels.push([r.left, r.top, r.right, r.bottom, t.textContent]);
            }
            out.axes.push({name: axis.getAttribute('aria-label') || '', box: box(axis), labels});
        }
        const cell = chart.querySelector('g.mark-rect path');
        if (cell) { const r = cell.getBoundingClientRect(); out.cell = [r.width, r.height]; }
        return out;
    }
    return null;
}"""

HEATMAP_AXIS = "ratings per item (K)"

# Tab lists wider than the window or than their own box (the Budget tabs ran past a 390 px phone): [labels, px].
WIDE_TABS_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stTabs"] [role="tablist"]')]
    .filter(t => t.clientWidth > 0)
    .filter(t => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > window.innerWidth + 1)
    .map(t => `${[...t.querySelectorAll('[role="tab"]')].map(x => x.innerText.trim()).join(' | ')}: ${t.scrollWidth} px in ${Math.min(t.clientWidth, window.innerWidth)} px`)"""

# Selectboxes (main block and sidebar) whose shown value (their combobox input) is cut: "Sample: worked example
# (200 ca" in the sidebar, "bert-base-uncas" in a chooser. A help tooltip does not excuse it: the name is read first.
CUT_SELECTS_JS = """() => {
    const cut = [];
    for (const el of document.querySelectorAll('[data-testid="stSelectbox"] input[role="combobox"]')) {
        // a collapsed sidebar (a phone's) is off the screen, not cut
        if (el.clientWidth === 0 || el.closest('[data-testid="stSidebar"][aria-expanded="false"]')) continue;
        if (el.getBoundingClientRect().right <= 0) continue;
        if (el.scrollWidth > el.clientWidth + 1) {
            cut.push(`'${el.value}' (${el.getAttribute('aria-label') || ''}): ${el.scrollWidth} px of text in ${el.clientWidth} px`);
        }
    }
    return cut;
}"""

# Text marks of every drawn chart (point labels: "n=3", "3+2") that overlap one another or a rule of the chart (an
# interval bar, a budget line): at 1024 px the cost chart's "n=3" sat under the bar of "3+2".
CROSSED_LABELS_JS = """() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    const meet = (a, b) => Math.min(a[2], b[2]) - Math.max(a[0], b[0]) > 0.5 && Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 0.5;
    const out = [];
    for (const chart of document.querySelectorAll('[data-testid="stMain"] [data-testid="stVegaLiteChart"]')) {
        const own = (el) => !el.closest('g.role-axis, g.role-legend, g.role-title');
        const texts = [...chart.querySelectorAll('g.mark-text text')].filter(own)
            .filter(t => t.textContent.trim().length > 1 && parseFloat(t.getAttribute('opacity') ?? '1') > 0)
            .map(t => [...box(t), t.textContent.trim()]).filter(b => b[2] > b[0]);
        const rules = [...chart.querySelectorAll('g.mark-rule line, g.mark-rule path')].filter(own).map(box)
            .filter(b => b[3] - b[1] > 4 || b[2] - b[0] > 4);
        texts.forEach((a, i) => {
            texts.slice(i + 1).forEach(b => { if (meet(a, b)) out.push(`'${a[4]}' and '${b[4]}' overlap`); });
            if (rules.some(r => meet(a, r))) out.push(`'${a[4]}' is crossed by a rule`);
        });
    }
    return out;
}"""


def _intersect(a: list[Any], b: list[Any]) -> bool:
    """Two boxes [left, top, right, bottom, ...] overlap by more than half a pixel both ways."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def _overlaps(boxes: list[list[Any]]) -> list[str]:
    """Pairs of labels whose bounding boxes intersect, as text."""
    return [f"{a[4]!r} and {b[4]!r}" for i, a in enumerate(boxes) for b in boxes[i + 1 :] if _intersect(a, b)]


class MetricCut(AssertionError):
    """A metric's label or value is wider than its element (the one failure a page's xfail below excuses)."""


def _metrics_fit(page: Page) -> None:
    """Retried until no metric label or value is cut (layout may still settle after the run), then asserted."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(f"({CUT_METRICS_JS})().length === 0", timeout=5_000)
    except PlaywrightTimeoutError:
        pass
    cut = page.evaluate(CUT_METRICS_JS)
    if cut:
        raise MetricCut("metric text cut off: " + "; ".join(cut))


def _heatmap_problems(found: dict[str, Any] | None) -> list[str]:
    """What is wrong with the heatmap as read by :data:`HEATMAP_JS` (empty: nothing)."""
    if found is None or len(found["axes"]) != 2 or found["cell"] is None:
        return [f"the heatmap is not drawn yet: {found}"]
    problems = []
    for axis in found["axes"]:
        if len(axis["labels"]) < 2:
            problems.append(f"{axis['name']}: fewer than two labels shown")
        bad = _overlaps(axis["labels"])
        if bad:
            problems.append(f"{axis['name']}: overlapping labels {bad[:5]}")
        if any(_intersect(legend, axis["box"]) for legend in found["legends"]):
            problems.append(f"the colour legend covers {axis['name']}")
    width, height = found["cell"]
    if height < 22 or width < 6:
        problems.append(f"a heatmap cell is a sliver: {width:.0f} x {height:.0f} px")
    return problems


def _heatmap_reads(page: Page, tries: int = 20) -> None:
    """The heatmap's axis labels do not overlap one another, its colour legend covers no axis, and a cell is no
    sliver (rows at least 22 px high, columns at least 6 px wide). Read again (every half second, ``tries`` times)
    while Vega may still be laying out the chart after a resize, then asserted."""
    heat = page.locator('[data-testid="stVegaLiteChart"]').filter(
        has=page.locator(f"g.role-axis[aria-label^=\"X-axis titled '{HEATMAP_AXIS}'\"]")
    )
    expect(heat.first.locator("g.role-axis-label text").first).to_be_attached()
    problems = _heatmap_problems(page.evaluate(HEATMAP_JS, HEATMAP_AXIS))
    for _ in range(tries):
        if not problems:
            break
        page.wait_for_timeout(500)
        problems = _heatmap_problems(page.evaluate(HEATMAP_JS, HEATMAP_AXIS))
    assert not problems, "; ".join(problems)


# Cases whose page shows metric labels wider than their column at that size: the fix is the page's own text or
# layout (named in the reason); strict=False, so the case passes as soon as the page is fixed. Only a cut metric is
# excused (raises=MetricCut): an overlapping heatmap label or an exception still fails the case.
PAGE_FIXES: dict[tuple[str, int], str] = {}


def _cases() -> list[Any]:
    cases = []
    for path, (name, _) in PAGES.items():
        for w, h in VIEWPORTS:
            reason = PAGE_FIXES.get((name, w))
            marks = [pytest.mark.xfail(reason=reason, raises=MetricCut, strict=False)] if reason else []
            cases.append(pytest.param(path, (w, h), marks=marks, id=f"{name}-{w}x{h}"))
    return cases


@pytest.mark.parametrize(("path", "viewport"), _cases())
def test_page_fits_projector_and_phone(
    server: str, new_page: Callable[..., Page], path: str, viewport: tuple[int, int]
) -> None:
    name, title = PAGES[path]
    page = new_page(viewport=viewport)
    goto(page, f"{server}/{path}", timeout=180_000)
    expect_title(page, title)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    # every visible chart drawn (Vega renders after the script has run; a chart in a closed tab is not drawn)
    charts = page.locator(f'{MAIN} [data-testid="stVegaLiteChart"]')
    for i in range(charts.count()):
        if charts.nth(i).is_visible():
            expect(charts.nth(i).locator("svg").first).to_be_attached()
    shot = screenshot(page, f"{name}_{viewport[0]}x{viewport[1]}")
    assert shot.exists()
    if path.startswith("Budget"):
        _heatmap_reads(page)
    _metrics_fit(page)
    cut_inputs = page.evaluate(CUT_INPUTS_JS)
    assert not cut_inputs, "number input value cut off: " + "; ".join(cut_inputs)
    wide_tabs = page.evaluate(WIDE_TABS_JS)
    assert not wide_tabs, "tabs wider than the screen: " + "; ".join(wide_tabs)
    cut_selects = page.evaluate(CUT_SELECTS_JS)
    assert not cut_selects, "names cut without a tooltip: " + "; ".join(cut_selects)
    crossed = page.evaluate(CROSSED_LABELS_JS)
    assert not crossed, "chart labels crossed: " + "; ".join(crossed)
