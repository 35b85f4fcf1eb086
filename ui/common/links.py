"""Link values checked before any widget reads them: every key bound to the URL, its kind and its range.

Streamlit seeds a widget bound with ``bind="query-params"`` from the opened link while the widget is registered, and
its own conversion raises on some values a link can carry: ``?lat_m=`` followed by 400 nines or ``?lat_m=1e309``
reach ``int(float("inf"))`` inside the number input and the page shows an exception box. :func:`clean_link` runs
in :func:`ui.common.page.setup_page`, before any widget: a value that is not of its key's kind, not finite, outside the
key's widest range, longer than :data:`MAX_CHARS` or repeated more than :data:`MAX_VALUES` times is removed from the
link (the URL is corrected), so the widget shows its default and :func:`ui.common.page.finish_page` says which value
could not be used.

:data:`LINK_KEYS` is the one table of bound keys; ``tests/test_ui_links.py`` keeps it equal to the keys the page
scripts and ``ui/`` modules bind (an AST scan) and checks every literal range against it. A range set at run time
(``max_value=max_n``) is given here as its widest value; the widget then applies the exact one.

Example: ``usable("lat_m", ["9" * 400])`` is False, ``usable("lat_m", ["3"])`` is True.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["number", "bool", "choice", "text", "numbers"]

MAX_CHARS = 200  # one value of a link; the longest real one (a config name, a typed alpha) is far shorter
MAX_VALUES = 64  # repeated values of one key (a multiselect)
_NUMBER_CHARS = 40  # a number as text: "-0.0062", "10000000000", "1e-05"
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NOT_FINITE = re.compile(r"(?i)\b(?:nan|inf|infinity)\b")  # words float() reads as no number
_NUMBERS_LIMIT = 1e12  # any number inside a typed list (K values, alpha values)


@dataclass(frozen=True, slots=True)
class Bound:
    """One bound key: its kind (number, bool, choice, free text, a typed list of numbers) and, for a number, the
    widest range its widget ever has (``low <= value <= high``)."""

    kind: Kind
    low: float = -math.inf
    high: float = math.inf


def _n(low: float, high: float) -> Bound:
    return Bound("number", low, high)


BOOL = Bound("bool")
CHOICE = Bound("choice")
TEXT = Bound("text")
NUMBERS = Bound("numbers")
_INT31 = 2**31 - 1
_MAX_N = 10_000  # samples per request (n) of a stored dataset: larger is refused by the limits long before

LINK_KEYS: dict[str, Bound] = {
    # Data
    "dat_view": CHOICE,
    "dat_ordered": BOOL,
    "dat_bins": _n(2, 20),
    "dat_min_k": _n(1, 1_000_000),
    # Budget
    "bud_src": CHOICE,
    "bud_metric": CHOICE,
    "bud_color": CHOICE,
    "bud_prior": CHOICE,
    "bud_alpha": NUMBERS,
    "bud_ma": CHOICE,
    "bud_mb": CHOICE,
    "bud_eps": _n(0.0, 1.0),
    "bud_maxb": CHOICE,
    "bud_ks": NUMBERS,
    "bud_prec": CHOICE,
    "bud_seed": _n(0, _INT31),
    "bud_budget": CHOICE,
    "bud_view": CHOICE,
    "bud_any": _n(1, 10**12),
    "bud_verify": BOOL,
    "bud_gaps": BOOL,
    "bud_all": BOOL,
    "bud_claims": BOOL,
    "bud_method": BOOL,
    "bud_fit": BOOL,
    "bud_raters": BOOL,
    "bud_raters_metric": CHOICE,
    "bud_adaptive": BOOL,
    "bud_ad_first": CHOICE,
    "bud_ad_contested": CHOICE,
    "bud_ad_prec": CHOICE,
    "bud_ad_seed": _n(0, _INT31),
    "bud_ad_poor": CHOICE,
    # Compare
    "cmp_mode": CHOICE,
    "cmp_alpha": CHOICE,
    "cmp_configs": CHOICE,
    "cmp_a": CHOICE,
    "cmp_b": CHOICE,
    "cmp_ci": CHOICE,
    "cmp_seq_order": CHOICE,
    "cmp_seq_pair": CHOICE,
    "cmp_show_disagreements": BOOL,
    "cmp_ship_all": BOOL,
    "cmp_margin": _n(0.0, 20.0),
    "cmp_dis_pair": CHOICE,
    "cmp_dis_side": CHOICE,
    "cmp_dis_case": TEXT,
    # Sampling
    "smp_tie": CHOICE,
    "smp_rho": _n(0.0, 0.9),
    "smp_from": _n(1, _MAX_N),
    "smp_fit": CHOICE,
    "smp_config": CHOICE,
    # Cost & latency
    "lat_price": _n(0.0, 10.0),
    "lat_volume": _n(0, 10**10),
    "lat_budget": _n(0.5, 30.0),
    "lat_src": CHOICE,
    "lat_p50": _n(0.01, 600.0),
    "lat_p95": _n(0.01, 600.0),
    "lat_n0": _n(1, _MAX_N),
    "lat_m": _n(1, _MAX_N),
    "lat_trigger": CHOICE,
    "lat_ns": CHOICE,
    "lat_stall": _n(2, 10**9),
    "lat_slots": _n(1, 64),
    "lat_config": CHOICE,
    # Planner
    "pln_from_data": BOOL,
    "pln_cases": CHOICE,
    "pln_disc": _n(0.5, 50.0),
    "pln_alpha": CHOICE,
    "pln_power": _n(0.5, 0.95),
    "pln_target": _n(0.5, 10.0),
    "pln_err": _n(0.0, 10.0),
    "pln_dl_items": _n(1, 1_000_000),
    "pln_dl_dis": _n(0, 1_000_000),
    "pln_rep_from_data": BOOL,
    "pln_rep_a": CHOICE,
    "pln_rep_b": CHOICE,
    "pln_rep_calls": _n(1, 10_000_000),
    "pln_rep_cases": _n(1, 10_000_000),
    "pln_rep_between": _n(0.0, 1.0),
    "pln_rep_within": _n(0.0, 1.0),
    "pln_rank_configs": _n(2, 100),
    "pln_rank_gap": _n(0.1, 50.0),
    "pln_rank_margin": _n(0.1, 50.0),
    "pln_rank_between": _n(0.0, 1.0),
    "pln_rank_within": _n(0.0, 1.0),
    "pln_rank_repeats": _n(1, 100),
    # Judges
    "jdg_judges": CHOICE,
    "jdg_human": CHOICE,
    "jdg_config": CHOICE,
    "jdg_case": CHOICE,
    "jdg_scale": CHOICE,
    "jdg_alpha": CHOICE,
    "jdg_width": CHOICE,
    "jdg_price_h": _n(0.001, 1_000_000.0),
    "jdg_price_j": _n(0.0, 1_000_000.0),
}


def _finite(text: str) -> float | None:
    if len(text) > _NUMBER_CHARS:
        return None
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _one_usable(bound: Bound, text: str) -> bool:
    if len(text) > MAX_CHARS:
        return False
    if bound.kind == "number":
        if text == "":
            return True  # an empty value clears a widget that may be empty; Streamlit handles it
        x = _finite(text)
        return x is not None and bound.low <= x <= bound.high
    if bound.kind == "bool":
        return text.lower() in ("true", "false")
    if bound.kind == "numbers":
        for token in _NUMBER.findall(text):
            x = _finite(token)
            if x is None or abs(x) > _NUMBERS_LIMIT:
                return False
        return not re.search(r"\d{13,}", text) and not _NOT_FINITE.search(text)
    return True  # choice, text: the widget matches it against its options or shows it as typed


def usable(key: str, raw: list[str]) -> bool:
    """Whether the link's values ``raw`` of the bound ``key`` may reach its widget (an unbound key: always).

    >>> usable("lat_m", ["1e309"]), usable("lat_m", ["2"]), usable("bud_ks", ["1-10," + "9" * 400])
    (False, True, False)
    """
    bound = LINK_KEYS.get(key)
    if bound is None:
        return True
    if len(raw) > MAX_VALUES:
        return False
    return all(_one_usable(bound, text) for text in raw)


def unusable(params: dict[str, list[str]]) -> list[str]:
    """The keys of ``params`` (key -> its values in the link) whose values may not reach their widgets."""
    return [key for key, raw in params.items() if not usable(key, raw)]


def clean_link() -> list[str]:
    """Remove from the opened link every bound value :func:`usable` refuses, before any widget reads it; return the
    keys removed.

    Streamlit seeds a bound widget from the link it recorded when the page was opened (its initial query
    parameters), not from ``st.query_params``: both are cleaned, through Streamlit's query-parameter object (the
    public ``st.query_params`` refuses to delete a key once a widget is bound to it). ``ui.common.page.finish_page``
    then names each removed ``key=value`` in its note.
    """
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as qp:
        initial: dict[str, list[str]] = getattr(qp, "_initial_query_params", {})
        current = {key: qp.get_all(key) for key in qp}
        bad = set(unusable(initial)) | set(unusable(current))
        for key in sorted(bad):
            initial.pop(key, None)
            qp.remove_param(key)  # corrects the browser's URL as well
    return sorted(bad)
