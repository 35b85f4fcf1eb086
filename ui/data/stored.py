"""The Data page's stored datasets: the list with rename and delete, and datasets derived from stored predictions."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore import store
from ui.common import datasets, exports
from ui.common.text import md, shorten_middle
from ui.data import derive as data_derive
from ui.data.show import shown_errors

__all__ = ["derive_section", "stored_section"]


def stored_section() -> None:
    """Every stored dataset; rename one, or delete one when the server allows it."""
    st.header("Datasets stored on this server")
    try:
        metas = store.list_datasets(strict=True)
    except store.StoreUnreachable as exc:  # an object store that does not answer: say so, not "nothing uploaded"
        st.warning(md(str(exc)), icon=":material/cloud_off:")
        return
    if not metas:
        st.markdown("Nothing uploaded yet: every page uses the built-in samples.")
        return
    table = pd.DataFrame(
        [{"name": m.name, "kind": m.kind, "rows": m.n_rows, "id": m.id[:12], "stored (UTC)": m.created} for m in metas]
    )
    exports.table(table, "stored_datasets", download=False, hide_index=True)
    by_id = {m.id: m for m in metas}
    left, right = st.columns([3, 1])
    chosen = left.selectbox(
        "Rename a dataset (its id, and so every link to it, stays the same)",
        list(by_id),
        format_func=lambda i: f"{shorten_middle(by_id[i].name, 22)} ({by_id[i].kind}, {i[:8]})",
        key="_dat_rename_choice",
        help="each dataset by its name (cut in the middle when long), its kind and the start of its id",
    )
    new_name = right.text_input("New name", key="_dat_rename_name", max_chars=200)
    right.button(
        "Rename", key="dat_rename", disabled=not new_name.strip(), on_click=data_derive.rename, args=(chosen, new_name)
    )
    if not store.delete_allowed():
        st.caption(
            "Deleting is off on this server: a deleted dataset breaks every teammate's link that carries it. The "
            "server's operator can turn it on with NKP_ALLOW_DELETE=1."
        )
        return
    left, right = st.columns([3, 1])
    target = left.selectbox(
        "Delete a dataset",
        list(by_id),
        format_func=lambda i: f"{shorten_middle(by_id[i].name, 22)} ({by_id[i].kind}, {i[:8]})",
        key="_dat_delete_choice",
    )
    sure = right.checkbox("Yes, delete it for everyone", key="_dat_delete_sure")
    right.button(
        "Delete",
        key="dat_delete",
        disabled=not sure,
        on_click=data_derive.delete,
        args=(target, by_id[target].kind),
        icon=":material/delete:",
    )


def derive_section() -> None:
    """Paired results or raw samples derived from stored predictions."""
    st.header("Derive from stored predictions")
    metas = store.list_datasets("predictions")
    if not metas:
        st.markdown("No predictions are stored yet: upload a predictions file above (it can be derived from there).")
        return
    by_id = {m.id: m for m in metas}
    pid = st.selectbox(
        "Predictions", list(by_id), format_func=lambda i: shorten_middle(by_id[i].name, 36), key="_dat_der_src"
    )
    with shown_errors(), st.container(border=True):
        data_derive.derive_panel(datasets.load_dataset("predictions", pid).frame, pid, by_id[pid].name, "stored")
