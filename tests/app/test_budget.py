"""AppTest of the Budget (N x K) page: default view, widgets change the numbers, the URL sets the view, errors."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import RunPage, error_texts, plain

PAGE = "pages/2_Budget.py"
TIMEOUT = 240


def _metrics(at: AppTest) -> dict[str, str]:
    return {plain(m.label): plain(m.value) for m in at.metric}


def _text(at: AppTest) -> str:
    return " ".join(plain(m.value) for m in at.markdown)


def test_default_view_shows_title_and_key_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"bud_all": "true"}, timeout=TIMEOUT)  # every metric's table: computed when open
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Budget (N x K)"
    m = _metrics(at)
    assert {"p-value", "A ahead in", "Mean gap", "CI-width"} <= set(m)
    text = _text(at)
    # default: Toxicity prior, Accuracy, budget 1,000 -> the best K is named and the detail cell is that K
    assert "Best K at this budget." in text and "At a budget of 1,000, the best split for Accuracy" in text
    assert "In one line:" in text and "p < 0.05" in text
    assert any("Cell: budget 1,000" in plain(h.value) for h in at.subheader)
    assert not error_texts(at)


def test_changing_metric_and_budget_changes_the_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=TIMEOUT)
    before = (_metrics(at)["p-value"], _text(at))
    at.selectbox(key="bud_metric").set_value("tv").run(timeout=TIMEOUT)
    assert not at.exception
    after = (_metrics(at)["p-value"], _text(at))
    assert after != before and "the best split for TV (total variation)" in after[1]
    at.select_slider(key="bud_budget").set_value(2500).run(timeout=TIMEOUT)
    assert "At a budget of 2,500" in _text(at)


def test_url_reproduces_the_view_and_a_chosen_cell(run_page: RunPage) -> None:
    query = {"bud_prior": "DICES", "bud_eps": "0.2", "bud_maxb": "1000", "bud_ks": "1,5,20", "bud_cell": "500x20"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception
    assert at.selectbox(key="bud_prior").value == "DICES" and at.slider(key="bud_eps").value == 0.2
    assert any(
        h.value == "Cell: budget 500: 25 items (N) x 20 ratings per item (K) = 500 ratings" for h in at.subheader
    )
    assert "DICES" in " ".join(plain(c.value) for c in at.caption)


def test_resample_source_runs_on_the_sample_data(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"bud_src": "Resample ratings + predictions", "bud_maxb": "500"}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert "paired test agrees" in _metrics(at)
    assert "reach the same conclusion" in _text(at)


def test_bad_inputs_show_an_error_not_an_exception(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"bud_ks": "1,abc"}, timeout=TIMEOUT)
    assert not at.exception
    assert any("cannot read 'abc'" in e for e in error_texts(at))
    at = run_page(PAGE, query={"bud_prior": "custom alpha (type it)", "bud_alpha": "1,-2"}, timeout=TIMEOUT)
    assert not at.exception
    assert any("alpha values must be finite and > 0" in e for e in error_texts(at))


def test_gap_chart_legend_matches_its_data() -> None:
    """The detail chart's colour domain names the two samples it draws (else Vega drops the bars)."""
    import numpy as np

    from ui.charts.nk import gap_distributions

    names = ("real predictions", "predictions swapped at random (null)")
    spec = gap_distributions(np.array([0.1, 0.2]), np.array([0.0, -0.1]), "TV", "t", names).to_dict()
    layer = spec["layer"][0]
    assert layer["encoding"]["color"]["scale"]["domain"] == list(names)
    data = spec["datasets"][layer["data"]["name"]] if "name" in layer.get("data", {}) else None
    values = data or next(iter(spec["datasets"].values()))
    assert {row["datasets"] for row in values} == set(names)


def test_link_may_name_the_metric_as_the_cli_does_and_kl_is_explained(run_page: RunPage) -> None:
    """?bud_metric=kl opens the paper's KL; where KL is shown its 27.63-nat artifact is explained."""
    query = {"bud_metric": "kl", "bud_maxb": "500", "bud_ks": "1,2,20", "bud_gaps": "true", "bud_all": "true"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception and not error_texts(at)
    assert at.selectbox(key="bud_metric").value == "kl"
    assert "27.63" in " ".join(plain(i.value) for i in at.info)
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "steps of about" in captions  # the gap chart: one item's artifact spread over items (N)
    assert "27.63 nats for every label" in captions  # beside the minimal-budget table
    assert "could not be used" not in " ".join(plain(w.value) for w in at.warning)
    table = at.dataframe[0].value
    assert not table.isna().any().any()  # no 'None' cells: blanks where a metric never gets there


def test_rows_over_the_work_limit_are_left_out_and_said(run_page: RunPage, monkeypatch: pytest.MonkeyPatch) -> None:
    """A simulated budget row over the server's simulation limit is named in a warning; the rows that fit are still
    shown. Macro F1 is not a mean over items, so it is simulated (the instant engine does not cover it)."""
    monkeypatch.setenv("NKP_MAX_SIM_WORK", "5000000")
    # draws of a row (nkcore.nk.simulate.draw_work) = sum over its K of 2 x 200 rounds x 3 machines x N items x
    # 2 labels x min(K, 40): 4.2 million at budget 500 (K = 20 to 100), 8.4 million at 1,000 and 21 million at
    # 2,500: the last two are over the limit of 5 million
    query = {"bud_metric": "f1", "bud_ks": "20-100:20"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    warnings = " ".join(plain(w.value) for w in at.warning)
    assert "were not computed" in warnings and "NKP_MAX_SIM_WORK" in warnings
    assert "Budgets 1,000, 2,500 were not computed" in warnings
    assert not error_texts(at)
    # ... and the page still shows the numbers of the budgets that fit
    assert any("Cell: budget 500" in plain(h.value) for h in at.subheader) and at.metric
    # a simulated view shows its rounds and seed, and how much a p-value moves with the seed
    assert at.radio(key="bud_prec").value == "Quick preview (200 rounds)" and at.number_input(key="bud_seed")
    assert "moves by about +/-0.02" in " ".join(plain(c.value) for c in at.caption)


def test_an_exact_grid_over_the_work_bound_is_refused_and_not_prefetched(run_page: RunPage) -> None:
    """A link asking the engine for K = 1 to 500 (KL on JobsQ3's 12 labels, budgets up to 2,500: 65 s of estimated
    CPU, over the 30 s of NKP_MAX_GRID_WORK that ``nk --grid`` refuses too) gets a message; with Accuracy (18 s) the
    page computes and only the metrics within the bound are prefetched."""
    from nkcore.nk.exact.engine import expected_seconds
    from nkcore.nk.grid import configurations
    from nkcore.nk.priors import get_prior
    from ui.budget import compute
    from ui.budget.controls import Choices

    budgets, ks = [100, 250, 500, 1000, 2500], list(range(1, 501))
    cfgs = configurations(budgets, ks)
    assert expected_seconds(12, len(ks), len(cfgs), ["kl"]) > 30 > expected_seconds(12, len(ks), len(cfgs), ["acc"])
    query = {"bud_prior": "JobsQ3", "bud_metric": "kl", "bud_ks": "1-500"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(error_texts(at))
    assert "too large to compute here" in errors and "NKP_MAX_GRID_WORK" in errors, errors
    assert not at.metric  # stopped before the numbers
    ch = Choices("Preset prior", "acc", "p", get_prior("JobsQ3"), 0.3, 2500, "1-500", ks, budgets, ())
    over = {m: compute._over_work(ch, m) is not None for m in ("acc", "tv", "wins", "kl")}
    assert over["kl"] and not over["acc"], over
    ch.ks = list(range(1, 11))
    assert not any(compute._over_work(ch, m) for m in ("acc", "tv", "wins", "kl"))


def _twin_predictions() -> str:
    """The sample predictions plus 'model-a-copy', identical to model-a on every item (stored; returns its id)."""
    import pandas as pd

    from nkcore import store
    from tests.conftest import ROOT

    preds = pd.read_csv(ROOT / "sample_data" / "predictions.csv")
    twin = preds[preds["model"] == "model-a"].assign(model="model-a-copy")
    return store.put(pd.concat([preds, twin], ignore_index=True), "predictions", "twins.csv").id


def test_two_models_that_agree_on_every_item_are_not_a_win(run_page: RunPage) -> None:
    """A tie is not 'A ahead': identical models get 0% ahead, the tie share, and 'nothing to detect'."""
    query = {
        "bud_src": "Resample ratings + predictions",
        "predictions": _twin_predictions(),
        "bud_ma": "model-a",
        "bud_mb": "model-a-copy",
        "bud_maxb": "500",
        "bud_ks": "1,5",
        "bud_prec": "Quick preview (200 rounds)",
        "bud_gaps": "true",  # the score-gap chart is drawn while its expander is open
    }
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    m = _metrics(at)
    assert m["A ahead in"] == "0.00" and m["Mean gap"] == "0" and m["CI-width"] == "0"
    infos = " ".join(plain(i.value) for i in at.info)
    assert "These two models agree on every item: nothing to detect" in infos
    # the gap chart's x axis is a readable range around 0, not float noise (a 1e-9 wide domain)
    import json

    xs = [
        layer["encoding"]["x"]
        for chart in at.get("vega_lite_chart")
        for layer in json.loads(chart.proto.spec).get("layer", [])
        if layer.get("encoding", {}).get("x", {}).get("field") == "left"
    ]
    assert xs and all(x["scale"]["domain"][1] - x["scale"]["domain"][0] >= 0.01 for x in xs)
    # the heatmap colours "A ahead in" by strict wins too: 0 everywhere, not 100% of ties
    import pyarrow as pa

    heat = next(c for c in at.get("vega_lite_chart") if "reproducibility" in c.proto.spec)
    cells = pa.ipc.open_stream(heat.proto.datasets[0].data.data).read_pandas()
    assert len(cells) and (cells["reproducibility"] == 0).all() and (cells["direction"] == 0).all()


def test_resampling_more_items_than_the_pool_is_marked_as_extrapolation(run_page: RunPage) -> None:
    """The sample ratings have 500 items: budget 2,500 at K = 1 draws 2,500 items from 500 and must say so."""
    query = {
        "bud_src": "Resample ratings + predictions",
        "bud_maxb": "2500",
        "bud_ks": "1,9",
        "bud_prec": "Quick preview (200 rounds)",
        "bud_budget": "2500",
        "bud_cell": "2500x1",
    }
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    headings = [plain(h.value) for h in at.subheader]
    assert "Cell: budget 2,500: 2,500 items (N) x 1 rating per item (K) = 2,500 ratings" in headings
    warnings = " ".join(plain(w.value) for w in at.warning)
    assert "Extrapolation: this cell draws 2,500 items (N) from a pool of 500 items" in warnings
    assert "(marked x) draw more items (N) than the data has" in warnings
    # a cell within the pool says what it uses and is not called extrapolation
    at = run_page(PAGE, query={**query, "bud_budget": "1000", "bud_cell": "1000x9"}, timeout=TIMEOUT)
    assert "Cell: budget 1,000: 111 items (N) x 9 ratings per item (K) = 999 ratings" in [
        plain(h.value) for h in at.subheader
    ]
    assert "Extrapolation: this cell" not in " ".join(plain(w.value) for w in at.warning)


def test_best_k_on_real_data_is_a_split_the_data_can_measure(run_page: RunPage) -> None:
    """KL on the sample data (500 items): at a budget of 1,000 the smallest p is K = 1 (1,000 items drawn from
    500), an extrapolation; the page names the best split among the cells that fit the data instead (N <= 500),
    and the chosen cell is that split, not the extrapolated one."""
    from nkcore.nk.grid import best_k

    query = {"bud_src": "Resample ratings + predictions", "bud_metric": "kl", "bud_maxb": "1000", "bud_ks": "1,2,5"}
    at = run_page(PAGE, query={**query, "bud_budget": "1000"}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    text = _text(at)
    assert "best split for KL divergence (paper's version) is items (N) 1,000 x" not in text
    assert "it is extrapolation" not in text.split("Best K at this budget.")[1].split("Cell:")[0]
    # oracle: among the cells that fit the pool, the smallest p (the sim-free engine's cells, recomputed here)
    from nkcore.nk import frames
    from nkcore.nk.grid import extrapolated
    from ui.common import datasets

    rds, pds = datasets.load_dataset("ratings", None), datasets.load_dataset("predictions", None)
    run = frames.exact_resample_frames(rds.frame, pds.frame, model_a="model-a", model_b="model-b",
                                       budgets=(1000,), ks=(1, 2, 5), metrics=("kl",))  # fmt: skip
    fit = [c for c in run.cells if not extrapolated(c)]
    assert fit and any(extrapolated(c) for c in run.cells)
    want = min(fit, key=lambda c: (c.p, c.k))
    (bk,) = best_k(run.cells, "kl")
    assert (bk.k, bk.n) == (want.k, want.n)
    assert f"items (N) {want.n:,} x ratings per item (K) {want.k}" in text
    heading = [plain(h.value) for h in at.subheader if plain(h.value).startswith("Cell:")]
    assert heading and f"{want.n:,} items (N) x {want.k}" in heading[0]


def test_a_fitted_prior_says_where_it_comes_from_and_how_a_preset_differs(run_page: RunPage) -> None:
    """The sample ratings were drawn from the DICES prior: the page names the ML fit, its quality, the preset, and
    that the paper's claims are checked on the fitted prior."""
    import numpy as np
    import pandas as pd
    from scipy import special

    from tests.conftest import ROOT

    query = {"bud_src": "Prior fitted to ratings", "bud_maxb": "500", "bud_ks": "1,5,20", "bud_claims": "true"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    text = _text(at)
    assert "alpha fitted here by maximum likelihood (Dirichlet-multinomial) to the 500 items" in text
    assert "Fit quality: log-likelihood" in text and "(MAB)" in text
    assert "The paper's preset DICES" in text and "not public" in text
    assert "Checked on grids simulated from the prior fitted to" in text
    # oracle for the per-item gap: the Dirichlet-multinomial likelihood written out with gammaln
    ratings = pd.read_csv(ROOT / "sample_data" / "ratings.csv")
    counts = pd.crosstab(ratings["item"], ratings["label"]).to_numpy(float)

    def ll(alpha: np.ndarray) -> float:
        n, a0 = counts.sum(1), alpha.sum()
        return float(
            np.sum(
                special.gammaln(n + 1)
                - special.gammaln(counts + 1).sum(1)
                + special.gammaln(a0)
                - special.gammaln(n + a0)
                + (special.gammaln(counts + alpha) - special.gammaln(alpha)).sum(1)
            )
        )

    from nkcore.nk.fit import fit_dirichlet
    from nkcore.nk.priors import get_prior

    dices = np.array(get_prior("DICES").concentration)
    order = np.argsort(-counts.sum(0), kind="stable")
    matched = np.empty(3)
    matched[order] = np.sort(dices)[::-1]
    gap = (ll(np.array(fit_dirichlet(counts).concentration)) - ll(matched)) / len(counts)
    assert gap >= -1e-9 and f"it scores {gap:.3g} nats per item below the fit" in text


# ---------------------------------------------------------------------- the instant engine and a page for a room
SMALL = {"bud_maxb": "500", "bud_ks": "1,5,20"}
PLANE_TAB = "Items x ratings per item, budgets as lines"


def _ordered(node: Any) -> list[Any]:
    """Every element of the page in the order a reader sees it (children by their index, depth first)."""
    out = [node]
    for idx in sorted(getattr(node, "children", {}) or {}):
        out.extend(_ordered(node.children[idx]))
    return out


def test_the_verdict_leads_the_page(run_page: RunPage) -> None:
    """The answer comes right after the title and the purpose: before any control and before the chart."""
    at = run_page(PAGE, query=SMALL, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    seq = _ordered(at.main)
    verdict = next(i for i, n in enumerate(seq) if type(n).__name__ == "Markdown" and n.value.startswith("#### "))
    first_widget = next(i for i, n in enumerate(seq) if getattr(n, "key", None) == "bud_src")
    first_chart = next(i for i, n in enumerate(seq) if getattr(n, "type", "") == "vega_lite_chart")
    title = next(i for i, n in enumerate(seq) if type(n).__name__ == "Title")
    assert title < verdict < first_widget < first_chart
    assert "Smallest budget that reaches p < 0.05 for Accuracy" in _headline(at) or "does not reach" in _headline(at)
    # method notes and the secondary tables are folded away
    labels = [e.label for e in at.expander]
    assert {"How these numbers are computed", "Minimal budget for every metric"} <= set(labels)
    assert "The paper's claims, checked on these numbers" in labels


def test_exact_cells_have_no_rounds_or_seed_and_say_how_exact_they_are(run_page: RunPage) -> None:
    """On the engine the numbers do not depend on rounds or a seed: neither control is shown, each number says its
    accuracy, and an older link that named rounds and a seed still opens without a complaint."""
    query = {**SMALL, "bud_cell": "500x1", "bud_prec": "Full precision (1,000 rounds, as the paper)", "bud_seed": "7"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not [r for r in at.radio if r.key == "bud_prec"] and not [n for n in at.number_input if n.key == "bud_seed"]
    assert "could not be used" not in " ".join(plain(w.value) for w in at.warning)
    # oracle: at K = 1 the expected Accuracy gap is eps (sum a_m (a_m + 1) / (a0 (a0 + 1)) - 1/M) (spec), with
    # the Toxicity prior and eps = 0.3: 0.0405
    from nkcore.nk.priors import get_prior

    a = get_prior("Toxicity").concentration
    a0 = sum(a)
    gap = 0.3 * (sum(x * (x + 1) for x in a) / (a0 * (a0 + 1)) - 1 / len(a))
    assert _metrics(at)["Mean gap"] == f"{gap:.3g}" == "0.0405"
    how = next(plain(m.value) for m in at.markdown if "How exact these numbers are" in m.value)
    # the Accuracy law at K = 1 is enumerated exactly: nothing to add to the digits shown
    assert "p, the mean gap, the CI-width and the reproducibility are exact to the digits shown" in how
    caption = " ".join(plain(c.value) for c in at.caption)
    assert "no simulation noise, no seed" in caption


def test_the_share_ahead_carries_its_error_beside_it(run_page: RunPage) -> None:
    """Issue 53: reproducibility shown with its error. DICES, K = 50: Accuracy's per-item law is estimated from drawn
    items, so the card reads '0.826 ± 0.006' (the engine's standard error, checked against the spread over seeds in
    tests/test_nk_repro_error.py) and the accuracy sentence names it."""
    from nkcore.nk.exact import exact_cell
    from nkcore.nk.number_words import fmt_share_error

    query = {"bud_prior": "DICES", "bud_eps": "0.3", "bud_maxb": "1000", "bud_ks": "1,50", "bud_cell": "1000x50"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    (cell,) = exact_cell((5.21765954, 0.85824731, 2.74833849), 0.3, 1000, 50, ["acc"])
    assert cell.reproducibility_error > 0.001
    card = _metrics(at)["A ahead in"]
    assert card == fmt_share_error(cell.reproducibility, cell.reproducibility_error) and " ± " in card
    how = next(plain(m.value) for m in at.markdown if "How exact these numbers are" in m.value)
    assert f"reproducibility = {cell.reproducibility:.3f} (+/- {cell.reproducibility_error:.1g})" in how


def test_verify_runs_the_simulation_and_shows_both(run_page: RunPage) -> None:
    """'Verify this cell with simulation' shows the engine and the simulation side by side; the simulation's
    numbers are the mean of simulate_cell over ten seeds (recomputed here), with their Monte Carlo error."""
    import numpy as np

    from nkcore.nk.grid import simulate_cell
    from nkcore.nk.priors import get_prior

    at = run_page(PAGE, query={**SMALL, "bud_cell": "500x5"}, timeout=TIMEOUT)
    assert not at.exception
    assert not any(d.value.columns.str.contains("simulation").any() for d in at.dataframe)  # not before asked
    at.toggle(key="bud_verify").set_value(True).run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    table = next(d.value for d in at.dataframe if "engine" in d.value.columns)
    sim_col = "simulation (10 seeds x 1,000 rounds)"  # the paper's rounds by default
    assert sim_col in table.columns
    rows = table.set_index("number")
    assert rows.loc["p-value", "engine"].startswith(_metrics(at)["p-value"])
    alpha = get_prior("Toxicity").concentration
    sims = [simulate_cell(alpha, 0.3, 500, 5, ["acc"], rounds=1000, seed=s)[0] for s in range(10)]
    p = np.array([c.p for c in sims])
    se = p.std(ddof=1) / np.sqrt(10)
    assert rows.loc["p-value", sim_col] == f"{p.mean():.3f} (+/- {se:.1g})"
    deltas = np.array([c.delta for c in sims])
    assert rows.loc["Mean gap (Delta)", sim_col].startswith(f"{deltas.mean():.3g} ")
    verdict = " ".join(plain(m.value) for m in at.markdown)
    assert "The simulation agrees with the engine" in verdict or "The simulation and the engine differ" in verdict
    # the rounds and the seed are the simulation's settings, in the link
    assert at.radio(key="bud_prec") and at.number_input(key="bud_seed")


def _headline(at: AppTest) -> str:
    return next(plain(m.value)[5:] for m in at.markdown if m.value.startswith("#### "))


def _headline_split(at: AppTest) -> tuple[int, int, int]:
    """(budget, items N, ratings per item K) of the headline '...: B ratings (N items x K ratings per item).'"""
    import re

    found = re.search(r": ([\d,]+) ratings \(([\d,]+) items x (\d+) ratings? per item\)\.$", _headline(at))
    assert found, _headline(at)
    budget, n, k = (int(g.replace(",", "")) for g in found.groups())
    return budget, n, k


def test_the_headline_is_the_smallest_budget_on_the_continuous_axis(run_page: RunPage) -> None:
    """'Smallest budget that reaches p < 0.05 for TV: B ratings (N items x K ratings per item)': B = N x K, the cell
    (N, K) has p < 0.05, and for every K tried the largest N with N x K < B does not (checked with exact_cell)."""
    import math
    import re

    from nkcore.nk.exact import exact_cell
    from nkcore.nk.grid import PAPER_BUDGETS
    from nkcore.nk.priors import get_prior

    ks = (1, 5, 20)
    at = run_page(PAGE, query={**SMALL, "bud_metric": "tv"}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    head = _headline(at)
    found = re.fullmatch(
        r"Smallest budget that reaches p < 0\.05 for TV \(total variation\): ([\d,]+) ratings "
        r"\(([\d,]+) items x (\d+) ratings? per item\)\.",
        head,
    )
    assert found, head
    budget, n, k = (int(g.replace(",", "")) for g in found.groups())
    assert budget == n * k and k in ks
    assert budget not in PAPER_BUDGETS  # not one of the grid's nine budgets: the axis is continuous
    alpha = get_prior("Toxicity").concentration
    assert exact_cell(alpha, 0.3, budget, k, ["tv"])[0].p < 0.05
    for kk in ks:
        smaller = (math.ceil(budget / kk) - 1) * kk  # the largest budget below B that K = kk can use fully
        if smaller >= kk:
            assert exact_cell(alpha, 0.3, smaller, kk, ["tv"])[0].p >= 0.05, (smaller, kk)
    assert "searched any budget up to 50,000 ratings" in " ".join(plain(c.value) for c in at.caption)


def _chart_layers(chart: Any) -> list[tuple[dict[str, Any], pd.DataFrame]]:
    """(layer spec, its data as a DataFrame or None) of a drawn Altair chart (Streamlit ships the data as Arrow)."""
    import json

    import pyarrow as pa

    spec = json.loads(chart.proto.spec)
    tables = {d.name: pa.ipc.open_stream(d.data.data).read_pandas() for d in chart.proto.datasets}
    return [(la, tables.get(la.get("data", {}).get("name"))) for la in spec.get("layer", [])]


def test_the_plane_draws_cells_at_items_and_ratings_with_budgets_as_lines(run_page: RunPage) -> None:
    """The N x K view: one mark per cell at (N, K); each budget of the grid a line on which N x K = budget; the
    smallest budget's line and its split marked."""

    at = run_page(PAGE, query={**SMALL, "bud_metric": "tv", "bud_view": PLANE_TAB}, timeout=TIMEOUT)
    assert not at.exception
    # only the open tab is drawn: the plane, not the heatmap
    assert not any("budget (N x K ratings)" in c.proto.spec for c in at.get("vega_lite_chart"))
    plane = next(_chart_layers(c) for c in at.get("vega_lite_chart") if "each dashed line is" in c.proto.spec)
    lines = [data for la, data in plane if la["mark"]["type"] == "line"]
    dashed, smallest = lines
    assert set(dashed["budget"]) == {100, 250, 500}
    assert ((dashed["n"] * dashed["k"] - dashed["budget"]).abs() < 1e-6 * dashed["budget"]).all()
    cells = next(data for la, data in plane if la["mark"]["type"] == "point" and la["mark"].get("filled"))
    assert set(zip(cells["budget"], cells["k"], cells["n"], strict=True)) == {
        (b, k, b // k) for b in (100, 250, 500) for k in (1, 5, 20)
    }
    assert ((cells["significant"] == "p < 0.05") == (cells["p"] < 0.05)).all()
    budget, n, k = _headline_split(at)
    assert set(smallest["budget"]) == {budget}
    star = next(data for la, data in plane if la["mark"].get("text") == "★")
    assert (int(star["n"][0]), int(star["k"][0])) == (n, k)


def test_an_old_link_with_the_engines_kl_label_opens_kl_under_its_plain_name(run_page: RunPage) -> None:
    at = run_page(PAGE, query={**SMALL, "bud_metric": "KL (paper, 1e-12)"}, timeout=TIMEOUT)
    assert not at.exception and not error_texts(at)
    assert at.selectbox(key="bud_metric").value == "kl"
    assert "KL divergence (paper's version)" in _headline(at)
    assert "could not be used" not in " ".join(plain(w.value) for w in at.warning)


def test_the_plane_module_doctests() -> None:
    import doctest

    import ui.charts.plane

    assert doctest.testmod(ui.charts.plane).failed == 0


def test_any_budget_gets_its_best_split(run_page: RunPage) -> None:
    """A budget typed in (not one of the grid's) gets the K with the smallest p among those tried, and N = budget / K
    (oracle: exact_cell at that budget for every K, the smallest p)."""
    from nkcore.nk.exact import exact_cell
    from nkcore.nk.priors import get_prior

    at = run_page(PAGE, query={**SMALL, "bud_metric": "tv", "bud_any": "1800"}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    alpha = get_prior("Toxicity").concentration
    cells = [exact_cell(alpha, 0.3, 1800, k, ["tv"])[0] for k in (1, 5, 20)]
    best = min(cells, key=lambda c: c.p)
    text = next(plain(m.value) for m in at.markdown if "Best K at 1,800 ratings" in m.value)
    assert f"items (N) {1800 // best.k:,} x ratings per item (K) {best.k} " in text


# ---------------------------------------------------------------------- real data on the engine, raters, ordered labels

REAL = {"bud_src": "Resample ratings + predictions", "bud_maxb": "500", "bud_ks": "1,5"}


def test_exact_real_data_shows_no_rounds_or_seed(run_page: RunPage) -> None:
    """Real data runs on the exact engine: no rounds or seed controls, the caption says so, verify stays; the mean
    gap at K = 1 is the plain mean over the pool of the per-item Accuracy gap (oracle recomputed here)."""
    import numpy as np

    from tests.conftest import ROOT

    at = run_page(PAGE, query={**REAL, "bud_cell": "500x1", "bud_metric": "acc"}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not [r for r in at.radio if r.key == "bud_prec"] and not [n for n in at.number_input if n.key == "bud_seed"]
    caption = " ".join(plain(c.value) for c in at.caption)
    assert "no simulation noise, no seed" in caption and "rounds per cell" not in caption
    assert [t for t in at.toggle if t.key == "bud_verify"]
    # oracle: at K = 1 an item's expected Accuracy gap is P(rating = pred_A) - P(rating = pred_B) over its ratings;
    # the engine's mean gap is |its mean over the items that have ratings and both predictions|
    ratings = pd.read_csv(ROOT / "sample_data" / "ratings.csv")
    preds = pd.read_csv(ROOT / "sample_data" / "predictions.csv").pivot(
        index="item", columns="model", values="pred_label"
    )
    share = ratings.join(preds, on="item").dropna(subset=["model-a", "model-b"])
    per_item = (share["label"] == share["model-a"]).groupby(share["item"]).mean() - (
        share["label"] == share["model-b"]
    ).groupby(share["item"]).mean()
    assert _metrics(at)["Mean gap"] == f"{abs(float(np.mean(per_item))):.3g}"


def _likert_ids() -> tuple[str, str]:
    """Ordered 1-5 ratings by 30 named raters on 200 items and two models' labels (stored; returns their ids)."""
    import numpy as np

    from nkcore import store

    rng = np.random.default_rng(0)
    mu = rng.uniform(1.5, 4.5, 200)
    rows = [
        {"item": i, "rater": f"r{r}", "label": int(np.clip(np.rint(mu[i] + rng.normal(0, 1)), 1, 5))}
        for i in range(200)
        for r in rng.choice(30, 5, replace=False)
    ]
    preds = [{"item": i, "model": "good", "pred_label": int(np.clip(np.rint(m), 1, 5))} for i, m in enumerate(mu)]
    preds += [{"item": i, "model": "poor", "pred_label": 3} for i in range(200)]
    r = store.put(pd.DataFrame(rows), "ratings", "likert.csv").id
    return r, store.put(pd.DataFrame(preds), "predictions", "likert_preds.csv").id


@pytest.mark.slow
def test_real_data_with_rater_ids_has_the_crossed_and_ordinal_sections(run_page: RunPage) -> None:
    """Ratings with rater ids get the rater-identity section; ordered 1-5 labels also get the ordinal check."""
    at = run_page(PAGE, query=REAL, timeout=TIMEOUT)  # the sample: rater ids, unordered labels
    assert not at.exception, [e.value for e in at.exception]
    assert "Who rated: does counting the raters change the answer?" in [plain(h.value) for h in at.subheader]
    assert [t for t in at.toggle if t.key == "bud_raters"] and "**Ordered labels**" not in [
        m.value for m in at.markdown
    ]
    rid, pid = _likert_ids()
    query = {**REAL, "ratings": rid, "predictions": pid, "bud_ma": "good", "bud_mb": "poor"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    assert "Who rated: does counting the raters change the answer?" in [plain(h.value) for h in at.subheader]
    assert "**Ordered labels**" in [plain(m.value) for m in at.markdown]


def test_the_p_phrase_never_reads_p_equals_less_than(run_page: RunPage) -> None:
    """A cell with p < 0.001 is quoted 'p < 0.001' everywhere (never 'p = < 0.001')."""
    from nkcore.nk.sentences import p_phrase
    from tests.app.conftest import rendered_markdown

    assert p_phrase(0.0004) == "p < 0.001" and p_phrase(0.0312) == "p = 0.031"
    query = {"bud_metric": "TV (total variation)", "bud_eps": "0.6", "bud_ks": "1,20", "bud_cell": "2500x20"}
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert _metrics(at)["p-value"] == "< 0.001"  # the view does show such a p
    text = " ".join(plain(t) for t in rendered_markdown(at))
    assert "p < 0.001" in text and "= < 0.001" not in text


@pytest.mark.parametrize(
    ("query", "func"),
    [
        (SMALL, "nkcore.nk.exact.engine:exact_grid"),
        (
            {"bud_src": "Resample ratings + predictions", "bud_maxb": "500", "bud_ks": "1,5"},
            "nkcore.nk.frames:exact_resample_frames",
        ),
    ],
    ids=["prior", "real data"],
)
def test_the_other_paper_metrics_are_prefetched_and_a_metric_switch_finds_them(
    run_page: RunPage, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, query: dict[str, str], func: str
) -> None:
    """While the page is read, the grids of the paper's other three metrics are computed in the background
    (``ui.common.work.prefetch``) under the keys the page asks for: switching the metric then computes no grid. On a
    prior and on real data. Oracle: the server's log of computations actually run (``ui.common.cache.LOG_ENV``)."""
    import json
    import time

    from ui.common import work
    from ui.common.cache import LOG_ENV

    log = tmp_path / "computations.jsonl"
    monkeypatch.setenv(LOG_ENV, str(log))
    monkeypatch.setattr(work, "IDLE_S", 0.0)

    def grids() -> list[str]:
        lines = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
        return [x["key"] for x in lines if x["func"] == func]

    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    deadline = time.monotonic() + 120
    while (len(grids()) < 4 or work.running()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(grids()) == 4 and len(set(grids())) == 4  # Accuracy on screen, then TV, Wins and KL
    for metric, name in (("tv", "TV (total variation)"), ("kl", "KL divergence (paper's version)")):
        at.selectbox(key="bud_metric").set_value(metric).run(timeout=TIMEOUT)
        assert not at.exception
        assert f"for {name}" in _text(at)
    assert len(grids()) == 4  # both switches read the prefetched grids


def test_uploaded_ratings_open_with_the_predictions_that_share_their_items(run_page: RunPage) -> None:
    """Stored ratings beside predictions left on the built-in sample said '500 items in the predictions are not in
    the ratings'; the stored predictions sharing the most items are chosen instead, and the page says which."""
    rid, pid = _likert_ids()
    at = run_page(PAGE, query={**REAL, "ratings": rid}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at), error_texts(at)
    assert at.query_params["predictions"] == [pid] or at.query_params["predictions"] == pid
    assert any("likert_preds.csv" in plain(i.value) and "sharing the most items" in plain(i.value) for i in at.info)
    assert "reach the same conclusion" in _text(at)


@pytest.mark.shared
def test_real_data_minimal_budget_is_the_clis_and_says_when_it_extrapolates(
    run_page: RunPage, capsys: pytest.CaptureFixture[str]
) -> None:
    """Jobs Q1: `nk --ratings ... --min-budget` answered 10,000 ratings with K = 1 (from 500 items, unflagged) where
    the page said 'does not reach p < 0.05 within the budgets on the grid': one answer now, flagged in both."""
    import json

    from nkcore import store
    from nkcore.cli import main
    from tests.conftest import DATASETS

    jobs = DATASETS / "jobs"
    rpath, ppath = (
        jobs / "annotations_q1_point_of_view.csv.gz",
        jobs / "predictions_generated_here_q1_point_of_view.csv.gz",
    )
    rid = store.put(pd.read_csv(rpath).rename(columns={"item_id": "item", "annotator_id": "rater"}), "ratings", "q1").id
    preds = pd.read_csv(ppath)
    pid = store.put(preds.rename(columns={"item_id": "item"}), "predictions", "q1 preds").id
    query = {"bud_src": REAL["bud_src"], "ratings": rid, "predictions": pid, "bud_metric": "acc"}  # the paper's K
    at = run_page(PAGE, query=query, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    a, b = at.selectbox(key="bud_ma").value, at.selectbox(key="bud_mb").value
    args = ["nk", "--ratings", str(rpath), "--predictions", str(ppath), "--models", f"{a},{b}", "--metric", "acc"]
    assert main([*args, "--min-budget", "--json"]) == 0
    (mb,) = json.loads(capsys.readouterr().out)
    verdict = plain(next(m.value for m in at.markdown if m.value.startswith("####")))
    assert f"{mb['budget']:,} ratings" in verdict
    assert ("an extrapolation" in verdict) == mb["extrapolated"]
    assert main([*args, "--min-budget"]) == 0
    text = capsys.readouterr().out
    assert ("an extrapolation" in text) == mb["extrapolated"]


def test_a_k_list_typed_with_400_nines_is_a_message_not_an_exception(run_page: RunPage) -> None:
    """Typed into the field (not through the link, which the link cleaner drops first): OverflowError in float()."""
    at = run_page(PAGE, timeout=TIMEOUT)
    at.text_input(key="bud_ks").set_value("9" * 400).run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert any("must be a whole number" in e for e in error_texts(at))


def test_stored_ratings_open_the_page_on_them_by_default(run_page: RunPage) -> None:
    """A link (or a session) with the user's own ratings opens Budget on them, resampled with the predictions
    stored beside them; the built-in prior only when no stored ratings dataset is chosen."""
    rid, pid = _likert_ids()
    at = run_page(PAGE, query={"ratings": rid, "predictions": pid}, timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="bud_src").value == "Resample ratings + predictions"
    assert not error_texts(at)
    assert run_page(PAGE, timeout=TIMEOUT).radio(key="bud_src").value == "Preset prior"
