"""Raters who are not alike: a rater-quality model fitted to ratings with rater ids, and its model-weighted labels.

"Forest vs Tree" (AAAI-26) assumes annotator quality is uniform. The models here (from crowd-kit, Toloka's
maintained aggregation library, imported only when asked for) estimate each rater's quality from who agrees with
whom, and give each item the label the model believes most (the "gold" beside the plurality):

- ``plurality``: the label most raters gave (ties to the first label in the data's order); a rater's quality is
  the share of their ratings equal to the item's plurality;
- ``dawid-skene``: Dawid & Skene (1979), "Maximum likelihood estimation of observer error-rates using the EM
  algorithm", Applied Statistics 28(1): one confusion matrix pi_r(l | m) per rater and label priors p_m fitted by
  EM; an item's label = argmax_m p_m prod_r pi_r(l_r | m). A rater's quality = sum_m p_m pi_r(m | m), the chance
  that their rating is right on a random item;
- ``one-coin``: the one-coin Dawid-Skene model (a single accuracy s_r per rater, errors uniform over the other
  labels; crowd-kit ``OneCoinDawidSkene``); a rater's quality = s_r;
- ``mace``: MACE (Hovy, Berg-Kirkpatrick, Vaswani & Hovy, "Learning Whom to Trust with MACE", NAACL 2013): rater r
  gives the true label with probability theta_r (their competence), else "spams" a label from their own
  distribution xi_r; a rater's quality = theta_r (crowd-kit ``MACE``: ``spamming_[r, 1]``, the posterior share of
  not spamming);
- ``glad``: GLAD (Whitehill, Ruvolo, Wu, Bergsma & Movellan, "Whose Vote Should Count More", NIPS 2009): rater r
  is right on item j with probability sigma(alpha_r beta_j) (crowd-kit reparameterises beta_j = exp(b_j)); a
  rater's quality = (1/N) sum_j sigma(alpha_r exp(b_j)), their ability as the chance to be right on a random item
  (the Dawid-Skene quality's meaning; sigma(alpha_r) alone would be an item of difficulty exp(b) = 1).

crowd-kit's defaults are kept (Dawid-Skene: 100 EM iterations, tolerance 1e-5; MACE: 10 restarts of 50 iterations,
variational Bayes, ``random_state`` 0; GLAD: 100 iterations, tolerance 1e-5), so the labels equal crowd-kit's own
run on the same table. Reference: crowd-kit (Ustalov et al., "Learning from Crowds with Crowd-Kit", JOSS 2024).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.ratings.raters import RaterRatings

__all__ = [
    "AGGREGATES",
    "CROWDKIT_INSTALL",
    "METHOD_NAMES",
    "Aggregate",
    "GoldAccuracy",
    "RaterQuality",
    "aggregate_ratings",
    "gold_accuracy",
    "informative_share",
    "quality_frame",
    "quality_sentence",
]

AGGREGATES: tuple[str, ...] = ("plurality", "dawid-skene", "one-coin", "mace", "glad")
"""The aggregation methods, as ``raters --aggregate`` takes them."""
METHOD_NAMES: dict[str, str] = {
    "plurality": "plurality",
    "dawid-skene": "Dawid-Skene",
    "one-coin": "one-coin Dawid-Skene",
    "mace": "MACE",
    "glad": "GLAD",
}
"""Each method's name in sentences."""
CROWDKIT_INSTALL = "pip install crowd-kit"
"""The install command named when crowd-kit is missing."""


@dataclass(frozen=True, slots=True)
class RaterQuality:
    """One rater's estimated quality (``quality``: the chance their rating is right, 0..1) and ratings given."""

    rater: str
    quality: float
    n_ratings: int


@dataclass(frozen=True, slots=True)
class Aggregate:
    """An aggregation of ratings: ``labels[i]`` is item ``items[i]``'s label code into ``label_names`` (-1: none),
    ``plurality`` the plurality's codes, ``raters`` each rater's quality (in the data's rater order)."""

    method: str
    items: tuple[str, ...]
    label_names: tuple[str, ...]
    labels: np.ndarray = field(repr=False)
    plurality: np.ndarray = field(repr=False)
    raters: tuple[RaterQuality, ...]

    @property
    def n_items(self) -> int:
        """Items with a label."""
        return int(np.count_nonzero(self.labels >= 0))

    def label_of(self) -> dict[str, str]:
        """Item -> the aggregate's label name."""
        return {it: self.label_names[c] for it, c in zip(self.items, self.labels.tolist(), strict=True) if c >= 0}


@dataclass(frozen=True, slots=True)
class GoldAccuracy:
    """Accuracy of the aggregate and of the plurality against gold labels, on the ``n_items`` items both have."""

    accuracy: float
    plurality_accuracy: float
    n_items: int


def _crowdkit() -> object:
    try:
        import crowdkit.aggregation as agg
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise DataError(
            f"the rater-quality models need crowd-kit, which is not installed: run `{CROWDKIT_INSTALL}`"
        ) from exc
    return agg


def _plurality_codes(rr: RaterRatings) -> np.ndarray:
    counts = rr.ratings.counts
    return np.where(counts.sum(axis=1) > 0, np.argmax(counts, axis=1), -1)


def aggregate_ratings(rr: RaterRatings, method: str = "dawid-skene") -> Aggregate:
    """Fit ``method`` (``AGGREGATES``) to ratings with rater ids: each item's label and each rater's quality.

    Formula: see the module docstring (plurality; Dawid-Skene EM; one-coin Dawid-Skene).

    >>> from nkcore.ratings.raters import rater_ratings
    >>> rr = rater_ratings([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 1, 0, 0, 0, 1])
    >>> agg = aggregate_ratings(rr, "plurality")
    >>> agg.labels.tolist(), [round(q.quality, 2) for q in agg.raters]
    ([1, 0], [1.0, 1.0, 0.0])
    """
    if method not in AGGREGATES:
        raise DataError(f"--aggregate must be one of {', '.join(AGGREGATES)}; got {method!r}")
    plur = _plurality_codes(rr)
    n_per = np.bincount(rr.rater_codes, minlength=rr.n_raters)
    if method == "plurality":
        hit = np.bincount(
            rr.rater_codes, weights=(rr.label_codes == plur[rr.item_codes]).astype(float), minlength=rr.n_raters
        )
        qual = np.where(n_per > 0, hit / np.maximum(n_per, 1), np.nan)
        return Aggregate(method, rr.ratings.items, rr.ratings.labels, plur, plur, _qualities(rr, qual, n_per))
    agg = _crowdkit()
    df = pd.DataFrame({"task": rr.item_codes, "worker": rr.rater_codes, "label": rr.label_codes})
    with warnings.catch_warnings():  # crowd-kit 1.4 uses pandas keywords that pandas 3 deprecates (its warnings)
        warnings.filterwarnings("ignore", module="crowdkit")
        return _fit(agg, df, rr, method, plur, n_per)


def _fit(
    agg: object, df: pd.DataFrame, rr: RaterRatings, method: str, plur: np.ndarray, n_per: np.ndarray
) -> Aggregate:
    if method == "dawid-skene":
        model = agg.DawidSkene(n_iter=100)  # type: ignore[attr-defined]
        got = model.fit_predict(df)
        qual = _ds_quality(model.errors_, model.priors_, rr.n_raters)
    elif method == "one-coin":
        model = agg.OneCoinDawidSkene(n_iter=100)  # type: ignore[attr-defined]
        got = model.fit_predict(df)
        skills = model.skills_
        qual = np.array([float(skills.get(w, np.nan)) for w in range(rr.n_raters)])
    elif method == "mace":
        model = agg.MACE(random_state=0)  # type: ignore[attr-defined]
        got = model.fit_predict(df)
        # MACE's workers are df's in order of first appearance (pd.factorize); spamming_[:, 1] = P(not spamming)
        order = pd.unique(df["worker"])
        qual = np.full(rr.n_raters, np.nan)
        qual[np.asarray(order, dtype=np.int64)] = np.asarray(model.spamming_, dtype=float)[:, 1]
    else:
        model = agg.GLAD(n_iter=100)  # type: ignore[attr-defined]
        got = model.fit_predict(df)
        alphas, inv_difficulty = model.alphas_, np.exp(np.asarray(model.betas_, dtype=float))
        qual = np.array(
            [
                float(np.mean(_expit(float(alphas[w]) * inv_difficulty))) if w in alphas.index else np.nan
                for w in range(rr.n_raters)
            ]
        )
    labels = np.full(len(rr.ratings.items), -1, dtype=np.int64)
    labels[got.index.to_numpy(dtype=np.int64)] = got.to_numpy(dtype=np.int64)
    return Aggregate(method, rr.ratings.items, rr.ratings.labels, labels, plur, _qualities(rr, qual, n_per))


def _ds_quality(errors: pd.DataFrame, priors: pd.Series, n_raters: int) -> np.ndarray:
    """Each rater's Dawid-Skene quality, sum_m prior_m P(says m | truth m), from crowd-kit's ``errors_`` ((worker,
    observed label) x true label) and ``priors_``; NaN for a rater the model has no row of. One pass over the
    table's rows (a ``.loc`` per rater and label took seconds on crowds of thousands)."""
    workers = np.asarray(errors.index.get_level_values(0), dtype=np.int64)
    observed = errors.index.get_level_values(1)
    col = errors.columns.get_indexer(observed)  # the true-label column of the same label (-1: none)
    prior_at = priors.index.get_indexer(observed)  # the label's place in the priors (-1: none)
    keep = (col >= 0) & (prior_at >= 0)
    rows = np.flatnonzero(keep)
    rows = rows[np.lexsort((prior_at[rows], workers[rows]))]  # each rater's terms in the priors' order, as summed
    terms = priors.to_numpy(dtype=float)[prior_at[rows]] * errors.to_numpy(dtype=float)[rows, col[rows]]
    qual = np.full(n_raters, np.nan)
    qual[np.unique(workers)] = 0.0
    np.add.at(qual, workers[rows], terms)  # one term after another: the same float sum as term by term
    return qual


def _expit(x: np.ndarray) -> np.ndarray:
    """The logistic function 1 / (1 + exp(-x)), without overflow."""
    from scipy.special import expit

    return np.asarray(expit(x), dtype=float)


def _qualities(rr: RaterRatings, qual: np.ndarray, n_per: np.ndarray) -> tuple[RaterQuality, ...]:
    return tuple(RaterQuality(rr.raters[r], float(qual[r]), int(n_per[r])) for r in range(rr.n_raters))


def gold_accuracy(agg: Aggregate, gold: pd.DataFrame) -> GoldAccuracy:
    """Accuracy of the aggregate's labels and of the plurality against a gold file (``item_id``, ``gold_label``).

    Formula: (1/n) sum_i 1[label_i == gold_i] over the n items with both (labels compared as text).

    >>> from nkcore.ratings.raters import rater_ratings
    >>> agg = aggregate_ratings(rater_ratings([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 1, 0, 0, 0, 1]), "plurality")
    >>> gold_accuracy(agg, pd.DataFrame({"item_id": ["0", "1"], "gold_label": ["1", "1"]}))
    GoldAccuracy(accuracy=0.5, plurality_accuracy=0.5, n_items=2)
    """
    cols = {str(c).strip().lower(): c for c in gold.columns}
    item_col = cols.get("item_id", cols.get("item"))
    gold_col = cols.get("gold_label", cols.get("gold", cols.get("label")))
    if item_col is None or gold_col is None:
        raise DataError(
            f"the gold file needs columns item_id and gold_label; it has {', '.join(map(str, gold.columns))}"
        )
    g = gold[[item_col, gold_col]].dropna()
    truth = dict(zip(_text(g[item_col]), _text(g[gold_col]), strict=True))
    rows = [(i, it) for i, it in enumerate(agg.items) if it in truth]
    if not rows:
        raise DataError("no item of the ratings is in the gold file (compare the item_id values)")
    names = agg.label_names

    def acc(codes: np.ndarray) -> float:
        return float(np.mean([codes[i] >= 0 and names[codes[i]] == truth[it] for i, it in rows]))

    return GoldAccuracy(acc(agg.labels), acc(agg.plurality), len(rows))


def _text(col: pd.Series) -> list[str]:
    """Ids and labels as text; whole-number floats (1.0) as their integer (1)."""
    out = []
    for v in col.tolist():
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        out.append(str(v).strip())
    return out


def informative_share(accuracy: float, m: int) -> float:
    """A one-coin accuracy s as the share q of informative ratings (else uniform): q = (s - 1/M) / (1 - 1/M), in [0, 1].

    >>> informative_share(0.75, 2), informative_share(0.2, 2)
    (0.5, 0.0)
    """
    if m < 2:
        raise DataError("need at least 2 labels")
    return float(min(1.0, max(0.0, (accuracy - 1.0 / m) / (1.0 - 1.0 / m))))


def quality_frame(ratings: pd.DataFrame, method: str = "dawid-skene") -> Aggregate:
    """``aggregate_ratings`` of a ratings table (item, rater, label; one row per rating): the page's cached call."""
    from nkcore.ratings.raters import rater_ratings_from_frame

    return aggregate_ratings(rater_ratings_from_frame(ratings), method)


def quality_sentence(agg: Aggregate, below: float = 0.5) -> str:
    """What the model says about the raters, in words: how many are right on fewer than ``below`` of the items, and
    how often the model-weighted label differs from the plurality.

    >>> from nkcore.ratings.raters import rater_ratings
    >>> agg = aggregate_ratings(rater_ratings([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 1, 0, 0, 0, 1]), "plurality")
    >>> quality_sentence(agg)
    'By agreement with the plurality, 1 rater of 3 is right on fewer than half of the items (estimated quality below 50%).'
    """
    q = np.array([r.quality for r in agg.raters], dtype=float)
    n_low = int(np.count_nonzero(q < below))
    n = len(agg.raters)
    labelled = agg.labels >= 0
    differ = float(np.mean(agg.labels[labelled] != agg.plurality[labelled])) if labelled.any() else 0.0
    name = METHOD_NAMES.get(agg.method, agg.method)
    # MACE's quality is a competence, P(the rater knows the label rather than answers by habit): a rater who does not
    # know still lands on the right label now and then, so it is no share of right answers
    one, many = ("knows the label", "know the label") if agg.method == "mace" else ("is right", "are right")
    who = (
        f"no rater of {n:,} {one} on fewer than half of the items"
        if n_low == 0
        else f"{n_low:,} rater{'s' if n_low != 1 else ''} of {n:,} {one if n_low == 1 else many} on fewer than half "
        f"of the items (estimated {'competence' if agg.method == 'mace' else 'quality'} below {below:.0%})"
    )
    if agg.method == "plurality":
        return f"By agreement with the plurality, {who}."
    return f"By the {name} model, {who}; the {name} label differs from the plurality on {differ:.0%} of the items."
