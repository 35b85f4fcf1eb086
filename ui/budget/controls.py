"""Budget page, its controls: where the numbers come from, the metric, the grid, and (when simulated) rounds and seed.

Every widget keeps its key and its link parameter (``bud_*``): links are a contract (tests/browser/test_deeplink.py,
test_share.py, test_budget.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NotRequired, TypedDict

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from nkcore.errors import DataError
from nkcore.kinds.values import item_ids
from nkcore.nk import frames, grid, priors, sentences
from nkcore.nk import metrics as nkm
from ui.charts import nk as charts_nk
from ui.common import cache, datasets, exports, page
from ui.common.text import md

SOURCES = ["Preset prior", "Prior fitted to ratings", "Resample ratings + predictions"]
REAL = SOURCES[2]
PRECISION = {"Quick preview (200 rounds)": 200, "Full precision (1,000 rounds, as the paper)": 1000}
COLOR_BY = {"p-value": "p", "Reproducibility": "reproducibility"}
CUSTOM = "custom alpha (type it)"
ENGINE_METRICS = nkm.ITEM_METRICS
"""The metrics of the instant engine: every metric that is a mean over items (macro F1 is not: it is simulated)."""
OLD_LABELS = {"KL (paper, 1e-12)": "kl"}
"""Metric names that older links carry (the engine's label before it got a plain name)."""
DEFAULT_EPS = 0.3
DEFAULT_MAX_BUDGET = 2500
DEFAULT_KS = "1-10,20-500:20"
"""The widgets' defaults: with the first preset and the first metric, the view a link without parameters opens on
when no ratings are stored (:func:`default_choices`)."""
METRIC_HELP = (
    "How the two models are scored against the raters, per item i, then averaged over items (N):  \n"
    "- Accuracy: 1 if the model's majority label equals the raters' majority label.  \n"
    "- TV (total variation): mean over labels m of |P_model(m|i) - P_raters(m|i)|.  \n"
    "- Wins: +1 where A is closer (per-item TV) to the raters than B, -1 where B is.  \n"
    "- KL divergence (paper's version): sum_m P_raters log(P_raters / P_model), with 1e-12 added to every count, "
    "so a label the model never gave costs about ln(1e12) = 27.6 nats (natural-log units).  \n"
    "- KL (smoothed): the same with 1/2 added to every count.  \n"
    "- Jensen-Shannon distance, cross-entropy, macro F1 of majority labels: beyond the paper."
)


def metric_name(metric: str) -> str:
    """The metric's name on the selector and in the sentences (``METRICS[metric].label``)."""
    return sentences.metric_label(metric)


@dataclass
class Choices:
    """What the reader chose above the grid. ``prior`` is None for real data (then ``rds``, ``pds`` and the two
    models are set); ``sim_metrics`` are the metrics that need the simulation (rounds and seed matter for them)."""

    source: str
    metric: str
    color_by: str
    prior: priors.Prior | None
    eps: float
    max_budget: int
    ks_text: str
    ks: list[int]
    budgets: list[int]
    sim_metrics: tuple[str, ...]
    rounds: int = 0
    seed: int = 0
    rds: datasets.Dataset | None = None
    pds: datasets.Dataset | None = None
    model_a: str = "A"
    model_b: str = "B"
    fitted: frames.FittedPrior | None = None
    resample_possible: bool = True
    """Some stored predictions are for the ratings' items (a fitted prior's warnings then suggest resampling)."""

    @property
    def real(self) -> bool:
        """Whether the numbers come from resampling real ratings and predictions."""
        return self.prior is None

    @property
    def label(self) -> str:
        """The chosen metric's name."""
        return metric_name(self.metric)

    @property
    def ratings(self) -> datasets.Dataset:
        """The ratings dataset (real data, or the one a prior was fitted to)."""
        if self.rds is None:
            raise ValueError("no ratings dataset: the numbers come from a preset prior")
        return self.rds

    @property
    def data(self) -> tuple[datasets.Dataset, datasets.Dataset]:
        """The ratings and predictions datasets of real data."""
        if self.pds is None:
            raise ValueError("no predictions dataset: the numbers come from a prior")
        return self.ratings, self.pds


def follow_link() -> None:
    """Put a heatmap click into the link (so the link names the cell shown) and read an old or CLI metric name.

    A link may name the metric as the CLI does (``?bud_metric=kl``) or by an older label
    (``?bud_metric=KL (paper, 1e-12)``); the bound selectbox reads its link value when a run starts, hence the rerun.
    """
    picked = (st.session_state.get("bud_heat") or {}).get("selection", {}).get(charts_nk.CELL_SELECTION) or []
    if picked and {"budget", "k"} <= set(picked[0]):
        st.query_params["bud_cell"] = f"{int(picked[0]['budget'])}x{int(picked[0]['k'])}"
    raw = st.query_params.get("bud_metric")
    if raw in nkm.METRICS or raw in OLD_LABELS:
        st.query_params["bud_metric"] = metric_name(OLD_LABELS.get(raw, raw))
        st.rerun()


class _Source(TypedDict):
    """What the source controls set in :class:`Choices` (the prior; or the datasets and models of real data)."""

    prior: priors.Prior | None
    rds: NotRequired[datasets.Dataset]
    pds: NotRequired[datasets.Dataset]
    model_a: NotRequired[str]
    model_b: NotRequired[str]
    fitted: NotRequired[frames.FittedPrior]
    resample_possible: NotRequired[bool]


def _fits(predictions: datasets.Dataset, ratings: datasets.Dataset) -> bool:
    """The predictions can be resampled with the ratings: every item they name is rated (some item, at least)."""
    items = cache.compute(item_ids, predictions)
    return bool(items) and items <= cache.compute(item_ids, ratings)


def predictions_for(ratings: datasets.Dataset) -> bool:
    """Some predictions dataset on this server (stored, or the built-in sample) is for the items of ``ratings``:
    only then can the page resample them (predictions of unrated items stop it: "500 items in the predictions are
    not in the ratings")."""
    for ds_id in datasets.dataset_options("predictions"):
        try:
            if _fits(datasets.load_dataset("predictions", ds_id), ratings):
                return True
        except DataError:  # a dataset deleted meanwhile, or one that cannot be read: not a partner
            continue
    return False


def _default_source() -> int:
    """The source a view opens on: the user's own ratings when a stored ratings dataset is chosen, resampled with
    predictions when some are for their items, else a prior fitted to them; the built-in prior otherwise."""
    own = datasets.stored_choice("ratings")
    if own is None:
        return 0
    try:
        rds = datasets.load_dataset("ratings", own)
    except DataError:  # not on this server: the chooser says so and shows the sample
        return 0
    return 2 if predictions_for(rds) else 1


def _source_controls(source: str, s1: DeltaGenerator) -> _Source:
    if source == "Preset prior":
        name = s1.selectbox(
            "Kind of data: prior (alpha)",
            [*priors.preset_names(), CUSTOM],
            key="bud_prior",
            bind="query-params",
            help="How the items' label shares vary, as Dirichlet parameters alpha (one per label) fitted by the "
            "paper's authors to each dataset. alpha0 = sum(alpha): small = items differ a lot, large = items alike.",
        )
        typed = s1.text_input(
            "alpha, one value per label", "2, 1, 1", key="bud_alpha", bind="query-params", disabled=name != CUSTOM
        )
        prior = priors.resolve_prior(concentration=typed) if name == CUSTOM else priors.get_prior(name)
        exports.note_dataset(prior.name, "", "prior")  # exports name the preset (no dataset is chosen)
        return {"prior": prior}
    if source == "Prior fitted to ratings":
        rds = datasets.choose_dataset("ratings")
        fitted = cache.compute(frames.fit_prior_frame, rds)
        prior = priors.Prior(f"fitted to {rds.name}", fitted.fit.concentration, "Dirichlet-multinomial ML fit")
        possible = predictions_for(rds)
        if not possible:
            st.info(md(sentences.no_shared_predictions_sentence(rds.name)), icon=":material/info:")
        return {"prior": prior, "rds": rds, "fitted": fitted, "resample_possible": possible}
    rds = datasets.choose_dataset("ratings")
    matched = datasets.match_partner("predictions", rds)  # predictions that share no item would only fail
    pds = datasets.choose_dataset("predictions")
    if matched:
        st.info(matched, icon=":material/link:")
    if not _fits(pds, rds) and not predictions_for(rds):  # chosen on purpose (the link): say what to do instead
        raise DataError(
            f"No stored predictions are for the items of {rds.name}, so they cannot be resampled with predictions: "
            "choose 'Prior fitted to ratings', or upload the models' predictions for these items on the Data page."
        )
    models = list(cache.compute(frames.model_names, pds))
    if len(models) < 2:
        st.error("The predictions dataset needs at least two models to compare.")
        st.stop()
    page.fit_choices("bud_ma", models)  # models of another predictions dataset, remembered by the session
    page.fit_choices("bud_mb", models)
    model_a = s1.selectbox("Model A", models, index=0, key="bud_ma", bind="query-params")
    model_b = s1.selectbox("Model B", models, index=1, key="bud_mb", bind="query-params")
    return {"prior": None, "rds": rds, "pds": pds, "model_a": model_a, "model_b": model_b}


def read_controls() -> Choices:
    """Draw the controls and return the reader's choices (a bad value raises ``DataError`` for the page to show)."""
    c1, c2, c3 = st.columns([1, 1.6, 0.9])  # the metric's name whole at 1024 px (a projector)
    # opened on the user's own ratings by default (resampled with predictions when some are for their items, else a
    # prior fitted to them); the built-in prior only when no stored ratings dataset is chosen
    source = c1.radio(
        "Where the numbers come from", SOURCES, index=_default_source(), key="bud_src", bind="query-params"
    )
    metric = c2.selectbox(
        "Metric",
        nkm.ALL_METRICS,
        format_func=metric_name,
        key="bud_metric",
        bind="query-params",
        help=METRIC_HELP,
    )
    color_by = c3.radio("Colour the cells by", list(COLOR_BY), key="bud_color", bind="query-params")
    s1, s2 = st.columns([1.2, 2])
    picked = _source_controls(source, s1)
    eps = DEFAULT_EPS
    if source != REAL:
        eps = s1.slider(
            "How much worse model B is (eps)",
            min_value=0.0,
            max_value=1.0,
            value=DEFAULT_EPS,
            step=0.01,
            key="bud_eps",
            bind="query-params",
            help="Model B answers from (1 - eps) x the item's true label shares + eps x random label shares "
            "(Dirichlet noise); model A answers like the raters. 0 = B is as good as A; 1 = B answers pure noise. "
            "The paper's tables use 0.3.",
        )
    max_budget = s2.select_slider(
        "Largest budget on the grid (N x K ratings)",
        options=list(grid.PAPER_BUDGETS),
        value=DEFAULT_MAX_BUDGET,
        key="bud_maxb",
        bind="query-params",
    )
    ks_text = s2.text_input(
        "Ratings per item (K) to try",
        DEFAULT_KS,
        key="bud_ks",
        bind="query-params",
        help="Numbers and ranges: 1-10 means 1 to 10; 20-500:20 means 20, 40, ..., 500 (the paper's list).",
    )
    ch = _choices(source, metric, color_by, float(eps), int(max_budget), ks_text, picked)
    if ch.sim_metrics:
        ch.rounds, ch.seed = rounds_and_seed(s2, "Rounds", "Seed", index=0, horizontal=False)
    return ch


def _choices(
    source: str, metric: str, color_by: str, eps: float, max_budget: int, ks_text: str, picked: _Source
) -> Choices:
    """The :class:`Choices` of these widget values (rounds and seed left at 0: ``read_controls`` reads them)."""
    ks = grid.parse_int_list(ks_text, "ratings per item (K)")
    # The instant engine covers every metric that is a mean over items, presets and real data alike; macro F1 is
    # simulated, and only then do the number of rounds and the seed matter (and show).
    sim_metrics = tuple(m for m in (metric,) if m not in ENGINE_METRICS)
    return Choices(
        source=source,
        metric=metric,
        color_by=color_by,
        eps=eps,
        max_budget=max_budget,
        ks_text=ks_text,
        ks=list(ks),
        budgets=[b for b in grid.PAPER_BUDGETS if b <= max_budget],
        sim_metrics=sim_metrics,
        **picked,
    )


def default_choices() -> Choices:
    """The choices of a link without parameters when no ratings are stored: the first preset prior, the first
    metric, every other widget at its default (what ``ui.budget.warm`` computes ahead)."""
    prior = priors.get_prior(priors.preset_names()[0])
    return _choices(
        SOURCES[0],
        nkm.ALL_METRICS[0],
        next(iter(COLOR_BY)),
        DEFAULT_EPS,
        DEFAULT_MAX_BUDGET,
        DEFAULT_KS,
        {"prior": prior},
    )


def rounds_and_seed(
    where: DeltaGenerator | None, rounds_label: str, seed_label: str, index: int, horizontal: bool
) -> tuple[int, int]:
    """The simulation's rounds (``bud_prec``) and seed (``bud_seed``) controls, side by side in ``where`` (None: the
    main area)."""
    p1, p2 = st.columns([2, 1]) if where is None else where.columns([2, 1])
    precision = p1.radio(
        rounds_label, list(PRECISION), index=index, key="bud_prec", bind="query-params", horizontal=horizontal
    )
    seed = int(
        p2.number_input(
            seed_label, min_value=0, max_value=2**31 - 1, value=0, step=1, key="bud_seed", bind="query-params"
        )
    )
    return PRECISION[precision], seed
