"""AppTest of the Budget page's defaults on a user's own label counts (issue 51): which source it opens on, the fit
warnings under the headline, and the every-metric table from the rows it needs.

Oracles: the page's own computations called directly (the Dirichlet fit's warnings, the full exact grid's minimal
budgets), and the items of the stored datasets, which decide whether the predictions can be resampled at all."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nkcore import store
from tests.app.conftest import RunPage, error_texts, plain
from tests.app.helpers import leading_elements

PAGE = "pages/2_Budget.py"
TIMEOUT = 240
FITTED, REAL = "Prior fitted to ratings", "Resample ratings + predictions"


def _counts(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """ChaosNLI's layout kept as counts: 100 labels e / n / c per item, items of three kinds (mostly e, split, mostly
    not e): no Dirichlet prior has that spread, so the fit warns."""
    rng = np.random.default_rng(seed)
    e = rng.binomial(100, rng.choice([0.04, 0.5, 0.96], n))
    neutral = rng.binomial(100 - e, 0.5)
    return pd.DataFrame({"item": [f"c{i}" for i in range(n)], "count_e": e, "count_n": neutral,
                         "count_c": 100 - e - neutral})  # fmt: skip


def _predictions(items: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"item": items * 2, "model": ["a"] * len(items) + ["b"] * len(items),
                         "pred_label": ["e"] * len(items) + ["n"] * len(items)})  # fmt: skip


def _texts(at: object) -> str:
    kinds = ("markdown", "caption", "info", "warning", "error")
    return " ".join(plain(str(x.value)) for k in kinds for x in getattr(at, k))


def test_label_counts_beside_unrelated_predictions_open_on_the_fitted_prior(run_page: RunPage) -> None:
    """The issue's dead end: stored predictions for other items preselected 'Resample' and the page opened on "500
    items in the predictions are not in the ratings". No stored predictions are for these items (checked on the
    stored tables' item ids), so the page opens on the fitted prior and says why."""
    counts = _counts()
    rid = store.put(counts, "ratings", "label_counts.csv [snli]").id
    unrelated = _predictions([f"x{i}" for i in range(50)])
    store.put(unrelated, "predictions", "other_task_preds.csv")
    partly = _predictions(["c0", "c1", "zz"])  # shares items, but predicts an unrated one: cannot be resampled either
    store.put(partly, "predictions", "partly.csv")
    assert not set(unrelated["item"]) <= set(counts["item"]) and not set(partly["item"]) <= set(counts["item"])
    at = run_page(PAGE, query={"ratings": rid}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at), error_texts(at)
    assert at.radio(key="bud_src").value == FITTED
    infos = [plain(i.value) for i in at.info]
    assert any(
        "No stored predictions are for the items of label_counts.csv [snli], so the numbers come from a prior "
        "fitted to the ratings" in i
        for i in infos
    ), infos
    assert plain(at.markdown[1].value).startswith("#### Smallest budget")  # the headline, after the page's intro


def test_predictions_for_the_items_still_open_on_resampling(run_page: RunPage) -> None:
    """Predictions whose every item is rated: resampled, and no sentence about their absence."""
    counts = _counts(120)
    rid = store.put(counts, "ratings", "counts.csv").id
    store.put(_predictions([f"x{i}" for i in range(20)]), "predictions", "unrelated.csv")
    pid = store.put(_predictions(list(counts["item"][:100])), "predictions", "mine.csv").id
    at = run_page(PAGE, query={"ratings": rid}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at), error_texts(at)
    assert at.radio(key="bud_src").value == REAL
    assert at.query_params["predictions"] in (pid, [pid])
    assert "No stored predictions are for the items" not in _texts(at)
    assert "Resampling 100 items" in _texts(at)


def test_resampling_chosen_in_the_link_without_predictions_says_what_to_do(run_page: RunPage) -> None:
    rid = store.put(_counts(120), "ratings", "counts.csv").id
    store.put(_predictions([f"x{i}" for i in range(20)]), "predictions", "unrelated.csv")
    at = run_page(PAGE, query={"ratings": rid, "bud_src": REAL}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    errors = error_texts(at)
    assert len(errors) == 1 and "choose 'Prior fitted to ratings'" in errors[0], errors


def test_fit_warnings_come_right_under_the_headline(run_page: RunPage) -> None:
    """The headline ("334 ratings") carried none of the fit's warnings, which came 1,500 px lower: each warning of
    the Dirichlet fit to these counts (the fit called directly) is named in the element right under it."""
    from nkcore.nk.fit import fit_dirichlet

    counts = _counts()
    warnings = fit_dirichlet(counts[["count_e", "count_n", "count_c"]].to_numpy()).warnings
    assert warnings  # the oracle: this spread is not Dirichlet-like
    rid = store.put(counts, "ratings", "counts.csv").id
    at = run_page(PAGE, query={"ratings": rid}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    lead = leading_elements(at, 4)
    at_head = next(i for i, (kind, text) in enumerate(lead) if kind == "markdown" and "Smallest budget" in text)
    kind, text = lead[at_head + 1]
    assert kind == "alert" or kind == "warning", lead
    assert "the numbers may not describe this data" in text
    for w in warnings:
        assert w.split(":", 1)[0].split(" (", 1)[0] in text
    assert "Resample" not in text  # no predictions are for these items: not a way out here


def test_every_metric_table_is_the_full_grids_answer(run_page: RunPage) -> None:
    """The table now computes each metric's rows up to its answer only: its numbers are those of every metric's full
    exact grid (computed here directly) through ``minimal_budgets``."""
    from nkcore.nk.exact import exact_grid
    from nkcore.nk.frames import fit_prior_frame
    from nkcore.nk.grid import minimal_budgets
    from nkcore.nk.metrics import ITEM_METRICS, METRICS

    counts = _counts()
    rid = store.put(counts, "ratings", "counts.csv").id
    query = {"ratings": rid, "bud_maxb": "1000", "bud_ks": "1-5,20,40", "bud_all": "true"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    (table,) = [d.value for d in at.dataframe if "minimal budget (N x K)" in d.value.columns]
    shown = {row["metric"]: (row["minimal budget (N x K)"], row["ratings per item (K)"]) for _, row in table.iterrows()}
    prior = fit_prior_frame(counts).fit.concentration
    cells = exact_grid(prior, 0.3, [100, 250, 500, 1000], [1, 2, 3, 4, 5, 20, 40], ITEM_METRICS)
    for mb in minimal_budgets(cells, list(ITEM_METRICS)):
        want = ("never", "") if mb.budget is None else (f"{mb.budget:,}", str(mb.k))
        assert shown[METRICS[mb.metric].label] == want, mb


@pytest.mark.shared
def test_chaosnli_label_counts_beside_stored_predictions_open_without_an_error(run_page: RunPage) -> None:
    """The file of the issue: ChaosNLI's label counts (mnli_m), stored as the Data page stores one subset, beside the
    Baan et al. predictions of the other subset (snli): the page opens on the fitted prior, with its warning."""
    from tests.conftest import DATASETS

    chaos = DATASETS / "chaosnli"
    raw = pd.read_csv(chaos / "label_counts.csv.gz")
    mnli = raw[raw.subset == "mnli_m"].rename(columns={"uid": "item"})[["item", "count_e", "count_n", "count_c"]]
    preds = pd.read_csv(chaos / "predictions_snli_mnli_baan2022.csv.gz")
    snli = preds[preds.subset == "snli"][["uid", "model_run", "pred_label"]]
    store.put(snli.rename(columns={"uid": "item", "model_run": "model"}), "predictions", "baan snli")
    rid = store.put(mnli, "ratings", "label_counts.csv.gz [mnli_m]").id
    at = run_page(PAGE, query={"ratings": rid}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at), error_texts(at)
    assert at.radio(key="bud_src").value == FITTED
    assert "the numbers may not describe this data" in " ".join(plain(w.value) for w in at.warning)
