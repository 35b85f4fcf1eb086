"""The Budget page on a stored label-count file that claims 10**8, 10**12 or 10**18 ratings per item (issue 52, item 1).

The file of the issue: 20 items with ``count_a = count_b = 10**power`` (under 1 KB as CSV). It is stored as it would
have been before the read-time limit existed (``nkcore.store.put`` of the table itself, no check), then the Budget
page opens it through its link (``?ratings=<id>``). Expected: a plain sentence naming the limit
(``NKP_MAX_RATINGS_PER_ITEM``) and what to do, no exception box, and the test process (the AppTest runs the page in
this process) stays far under 1 GiB: the memory it allocates while the page runs is measured with tracemalloc (the
arrays of the former prior fit were as long as the ratings per item: 3.7 GiB at 10**8).
"""

from __future__ import annotations

import tracemalloc

import pandas as pd
import pytest

from nkcore import store
from nkcore.common import limits
from tests.app.conftest import RunPage, error_texts, plain

PAGE = "pages/2_Budget.py"


def _stored(power: int) -> str:
    """The issue's file, stored as a ratings table of label counts (Python ints: 10**18 fits an int64)."""
    frame = pd.DataFrame({"item": list(range(20)), "count_a": [10**power] * 20, "count_b": [10**power] * 20})
    assert len(frame.to_csv(index=False).encode()) < 1_000
    return store.put(frame, "ratings", f"counts_1e{power}.csv").id


def _shown(at: object) -> str:
    """Every sentence on the page a reader sees: markdown, captions, alerts (error, warning, info)."""
    texts = [plain(m.value) for m in at.markdown]  # type: ignore[attr-defined]
    texts += [plain(c.value) for c in at.caption]  # type: ignore[attr-defined]
    texts += error_texts(at)  # type: ignore[arg-type]
    texts += [plain(w.value) for w in at.warning]  # type: ignore[attr-defined]
    texts += [plain(i.value) for i in at.info]  # type: ignore[attr-defined]
    return "\n".join(texts)


@pytest.mark.parametrize("power", [8, 12, 18])
def test_budget_on_a_stored_count_file_says_so_in_a_sentence(run_page: RunPage, power: int) -> None:
    ds_id = _stored(power)
    tracemalloc.start()
    try:
        at = run_page(PAGE, query={"ratings": ds_id}, timeout=120)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not at.exception, [e.value for e in at.exception]
    shown = _shown(at)
    # the refusal: the ratings one item claims, the limit in force and its setting, in the product's words
    claimed = f"{2 * 10**power:,} ratings"
    limit = (
        f"the limit is {limits.get('ratings_per_item'):,} ratings per item (server setting NKP_MAX_RATINGS_PER_ITEM)"
    )
    sentences = [line for line in shown.splitlines() if claimed in line and limit in line]
    assert sentences, shown
    for line in sentences:  # a sentence, not Python
        assert "Traceback" not in line and "Error" not in line and "MemoryError" not in line
    assert "more memory than this machine has" not in shown  # the MemoryError path is never reached
    assert peak < 2**30 // 4, f"{peak / 2**20:.0f} MiB allocated while the page ran"  # far under 1 GiB
