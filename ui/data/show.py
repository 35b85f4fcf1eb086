"""What every section of the Data page shares: the kinds it shows, a DataError shown in place, the key numbers,
and the per-session memo of the last read and check of an upload."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator
from typing import TypeVar, cast

import streamlit as st

from nkcore import summary as nksummary
from nkcore.common import limits
from nkcore.errors import DataError
from ui.common.text import md
from ui.data.derive import KIND_WORDS

__all__ = ["KIND_WORDS", "MAX_MB", "VIEW_KINDS", "memo", "show_numbers", "shown_errors"]

T = TypeVar("T")

MAX_MB = max(1, limits.get("file_bytes") // 2**20)  # the server's file-size limit (NKP_MAX_FILE_BYTES), in MB
VIEW_KINDS = ("ratings", "predictions", "paired", "samples")


@contextlib.contextmanager
def shown_errors() -> Iterator[None]:
    """Show a DataError as a plain message and carry on with the rest of the page (nothing else is lost)."""
    try:
        yield
    except DataError as exc:
        st.error(md(exc), icon=":material/error:")


def show_numbers(numbers: tuple[nksummary.SummaryNumber, ...], per_row: int = 2) -> None:
    """Each key number with its plain-language sentence underneath, two to a row (a long label such as "ratings per
    item (K), min / median / max" fits a 1024 px window)."""
    for start in range(0, len(numbers), per_row):
        cols = st.columns(per_row)
        for col, number in zip(cols, numbers[start : start + per_row], strict=False):
            with col:
                st.metric(md(number.label), md(number.display))
                st.caption(md(number.sentence))


def memo(key: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
    """``compute()``, remembered per session under ``_dat_memo_<key[0]>`` (the last read / check: other widgets
    stay instant); a remembered DataError is raised again from its message."""
    slot = f"_dat_memo_{key[0]}"
    remembered = st.session_state.get(slot)
    if remembered is None or remembered[0] != key:
        try:
            remembered = (key, compute(), None)
        except DataError as exc:
            remembered = (key, None, str(exc))
        st.session_state[slot] = remembered
    if remembered[2] is not None:
        raise DataError(remembered[2])
    return cast(T, remembered[1])
