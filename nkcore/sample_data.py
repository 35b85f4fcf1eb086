"""Deterministic generators of the embedded sample data in ``sample_data/`` (synthetic, fixed seeds).

``python -m nkcore.sample_data [--out DIR]`` rewrites every file byte for byte.

Files
-----
``worked_example_samples.csv`` (case, sample, answer, gold, latency_s)
    The chapter's worked example (``../shared/seeds/002_544b9edd7c12c66d.txt``): 200 cases, 7 samples per case.
``worked_example_paired.csv`` (case, config, correct)
    Derived from the samples: ``correct`` = 1 when the plurality vote over the first n samples equals gold,
    config in n=1, n=3, n=5, n=7.
``ratings.csv`` (item, rater, label) and ``predictions.csv`` (item, model, pred_label, p_safe, p_unsure, p_unsafe)
    500 items (N) x 40 ratings per item (K) from beta_i ~ Dirichlet(alpha) with the DICES-350 prior, and three
    models whose probabilities are (1 - eps_m) beta_i + eps_m rho_i, rho_i ~ Dirichlet([1/3] * 3).
``judged_example.csv`` (case, config, judge_large, judge_small, human)
    Three configs on the same 300 cases scored 1-5 by two LLM judges on every case and by a human on a random 60
    (:func:`judged_rows`); the large judge is kinder to prompt-c than to the others, so its ranking flips.

Vote rule
---------
``Counter(first_n).most_common(1)``: plurality; among tied answers the earliest first occurrence wins.
Only n=3 votes ever tie here (three distinct answers = "no majority", which then returns sample 1);
every n=5 and n=7 vote has a unique winner, so those counts hold under any tie rule.

Construction of the worked example (the puzzle)
-----------------------------------------------
Each case gets a *type*: its correctness at n = 1, 3, 5, 7, whether its first three samples have no majority,
and whether all seven samples are the same wrong answer. The type counts (``CASE_TYPES``) are solved on paper
from the chapter's figures; then each case's seven answers are drawn from a small per-case model
(accuracy p_i ~ Beta(3, 1.2), wrong answers from 2-4 case-specific distractors with Dirichlet weights, so wrong
answers vary and cluster) and redrawn until the case matches its type exactly (rejection sampling). Types:

=====================  =====  ===========  =========  ==========
type                   count  c1 c3 c5 c7  no major.  unanimous
=====================  =====  ===========  =========  ==========
unanimous wrong          30    0  0  0  0     no         yes
lost at 3 (stays)         7    1  0  0  0     no         no
lost at 3, back at 5      1    1  0  1  0     no         no
lost at 3, back at 5+     4    1  0  1  1     no         no
no majority, won at 5     2    0  0  1  1     yes        no
lost at 5                 1    1  1  0  0     no         no
won at 3, lost at 5       1    0  1  0  0     no         no
lost at 5, back at 7      2    1  1  0  1     no         no
won at 3, 5-lost, 7-won   1    0  1  0  1     no         no
lost at 7                 2    1  1  1  0     1 yes/1 no no
no majority, right       35    1  1  1  1     yes        no
won at 3                 24    0  1  1  1     no         no
always right             90    1  1  1  1     no         no
=====================  =====  ===========  =========  ==========

Totals: n=1 142, n=3 156, n=5 158, n=7 158 correct; n=1 vs n=3: 38 discordant (26 won by n=3);
n=3 vs n=5: 12 (7 won by n=5); n=5 vs n=7: 6 (3 each way); 38 cases (19%) with no majority in three;
"three, plus samples 4 and 5 when the three have no majority" scores 156 + 2 = 158 (the two no-majority cases
won at 5; every other n=3 vs n=5 change sits in a case whose three had a majority and nets to zero).

One deviation from the chapter, forced by arithmetic: of the 44 cases wrong at n=3, 38 stay wrong at n=7 and
**30** (not 31) of those give the same wrong answer on all seven samples. With this vote rule a case whose first
three samples have no majority votes for sample 1, so n=1 and n=3 agree on it: the 12 cases that n=1 wins
against n=3 all have a majority of three, as do the unanimous-wrong ones. The adaptive rule can beat flat n=3
by 2 only through >= 2 no-majority cases that are wrong at n=3, so 44 >= 31 + 12 + 2 = 45 would be needed;
every other figure is kept and 31 becomes 30.

Latencies: 1,400 single-call latencies (one per sample) from a lognormal body (median 1.9 s, sigma 0.5) mixed
with a 4% heavier tail, then mapped by a monotone piecewise-linear function that pins numpy's default
(linear) quantiles to the chapter's figures: p50 1.9 s, p95 4.6 s, p98.3 6.1 s, p99.3 8.2 s; rounded to ms.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nkcore.common.seeding import as_generator

SEED_SAMPLES = 2_002_544
SEED_LATENCY = 2_002_545
SEED_RATINGS = 350_003

N_CASES = 200
N_SAMPLES = 7
CONFIG_NS = (1, 3, 5, 7)
CONFIGS = tuple(f"n={n}" for n in CONFIG_NS)

LATENCY_QUANTILES = ((0.5, 1.9), (0.95, 4.6), (0.983, 6.1), (0.993, 8.2))

LABELS = ("safe", "unsure", "unsafe")
DICES_ALPHA = (5.21765954, 0.85824731, 2.74833849)
N_ITEMS = 500
RATINGS_PER_ITEM = 40
N_RATERS = 120
MODEL_EPS = (("model-a", 0.08), ("model-b", 0.35), ("model-c", 0.36))

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "sample_data"


@dataclass(frozen=True, slots=True)
class CaseType:
    """One kind of case in the worked example: its correctness at n = 1, 3, 5, 7 and its sample structure."""

    name: str
    count: int
    correct: tuple[int, int, int, int]
    no_majority: bool
    unanimous: bool = False


CASE_TYPES: tuple[CaseType, ...] = (
    CaseType("unanimous wrong", 30, (0, 0, 0, 0), False, True),
    CaseType("lost at 3 (stays)", 7, (1, 0, 0, 0), False),
    CaseType("lost at 3, back at 5", 1, (1, 0, 1, 0), False),
    CaseType("lost at 3, back at 5 and 7", 4, (1, 0, 1, 1), False),
    CaseType("no majority, won at 5", 2, (0, 0, 1, 1), True),
    CaseType("lost at 5", 1, (1, 1, 0, 0), False),
    CaseType("won at 3, lost at 5", 1, (0, 1, 0, 0), False),
    CaseType("lost at 5, back at 7", 2, (1, 1, 0, 1), False),
    CaseType("won at 3, lost at 5, back at 7", 1, (0, 1, 0, 1), False),
    CaseType("lost at 7, no majority", 1, (1, 1, 1, 0), True),
    CaseType("lost at 7", 1, (1, 1, 1, 0), False),
    CaseType("no majority, right", 35, (1, 1, 1, 1), True),
    CaseType("won at 3", 24, (0, 1, 1, 1), False),
    CaseType("always right", 90, (1, 1, 1, 1), False),
)


@dataclass(frozen=True, slots=True)
class SampleRow:
    """One row of ``worked_example_samples.csv``."""

    case: int
    sample: int
    answer: str
    gold: str
    latency_s: float


def majority_vote(answers: Sequence[str]) -> str:
    """Plurality vote; among tied answers the one whose first occurrence is earliest wins.

    The rule is ``Counter(answers).most_common(1)`` (Counter keeps insertion order; ``most_common`` is stable).

    >>> majority_vote(["7", "9", "9"]), majority_vote(["7", "9", "8"])
    ('9', '7')
    """
    return Counter(answers).most_common(1)[0][0]


def _has_unique_winner(answers: Sequence[str]) -> bool:
    counts = sorted(Counter(answers).values(), reverse=True)
    return len(counts) == 1 or counts[0] > counts[1]


def _matches(answers: list[str], gold: str, ct: CaseType) -> bool:
    """Whether seven drawn answers realise the case type exactly (with no tie at n=5 or n=7)."""
    if ct.no_majority != (len(set(answers[:3])) == 3):
        return False
    if not (_has_unique_winner(answers[:5]) and _has_unique_winner(answers)):
        return False
    correct = tuple(int(majority_vote(answers[:n]) == gold) for n in CONFIG_NS)
    return correct == ct.correct


def _gold_and_distractors(rng: np.random.Generator) -> tuple[str, list[str]]:
    """A short gold answer (a number as a string) and 4 distinct plausible wrong answers."""
    gold = int(rng.integers(2, 1000))
    wrong: list[int] = []
    while len(wrong) < 4:
        kind = rng.random()
        if kind < 0.5:
            cand = gold + int(rng.choice([-2, -1, 1, 2, 10, -10]))  # off by one / a slip
        elif kind < 0.75:
            cand = gold * 2 if rng.random() < 0.5 else gold // 2  # a doubled / halved answer
        else:
            cand = int(rng.integers(1, 1000))
        if cand > 0 and cand != gold and cand not in wrong:
            wrong.append(cand)
    return str(gold), [str(w) for w in wrong]


def _draw_case(rng: np.random.Generator, ct: CaseType, max_tries: int = 200_000) -> tuple[str, list[str]]:
    """Gold and seven answers for one case of type ``ct``, by rejection sampling from a per-case model."""
    gold, distractors = _gold_and_distractors(rng)
    if ct.unanimous:
        return gold, [distractors[0]] * N_SAMPLES
    for _ in range(max_tries):
        p = rng.beta(3.0, 1.2)
        k = int(rng.integers(2, 5))
        weights = rng.dirichlet(np.full(k, 0.8))
        answers = []
        for _ in range(N_SAMPLES):
            if rng.random() < p:
                answers.append(gold)
            else:
                answers.append(distractors[int(rng.choice(k, p=weights))])
        if _matches(answers, gold, ct):
            return gold, answers
    raise RuntimeError(f"case type {ct.name!r} not realised in {max_tries} tries")  # pragma: no cover


def single_call_latencies(seed: int | np.random.Generator = SEED_LATENCY, n: int = N_CASES * N_SAMPLES) -> np.ndarray:
    """``n`` single-call latencies in seconds, rounded to ms, with the chapter's quantiles pinned.

    Body: lognormal(ln 1.9, 0.5); 4% tail: lognormal(ln 1.9 + 1.0, 0.6). The sorted draws are mapped by a
    monotone piecewise-linear function whose knots sit on the two order statistics around each target quantile
    (numpy's default "linear" method interpolates between them), so ``np.quantile(x, q)`` equals the target
    for q in 0.5, 0.95, 0.983, 0.993 up to the ms rounding (chapter: 1.9, 4.6, 6.1, 8.2 s).

    >>> x = single_call_latencies()
    >>> [round(float(np.quantile(x, q)), 2) for q, _ in LATENCY_QUANTILES]
    [1.9, 4.6, 6.1, 8.2]
    """
    rng = as_generator(seed)
    tail = rng.random(n) < 0.04
    body = rng.lognormal(math.log(1.9), 0.5, n)
    heavy = rng.lognormal(math.log(1.9) + 1.0, 0.6, n)
    raw = np.where(tail, heavy, body)
    order = np.argsort(raw, kind="stable")
    xs = raw[order]
    knots_x = [xs[0]]
    knots_y = [xs[0]]
    for q, target in LATENCY_QUANTILES:
        pos = (n - 1) * q
        j = math.floor(pos)
        frac = pos - j
        gap = xs[j + 1] - xs[j]
        scale = target / ((1 - frac) * xs[j] + frac * xs[j + 1])
        h = gap * scale
        knots_x += [xs[j], xs[j + 1]]
        knots_y += [target - frac * h, target + (1 - frac) * h]
    last_scale = knots_y[-1] / knots_x[-1]
    knots_x.append(xs[-1])
    knots_y.append(xs[-1] * last_scale)
    mapped = np.interp(xs, knots_x, knots_y)
    out = np.empty(n)
    out[order] = mapped
    return np.round(out, 3)


def worked_example_samples(
    seed: int | np.random.Generator = SEED_SAMPLES, latency_seed: int | np.random.Generator = SEED_LATENCY
) -> list[SampleRow]:
    """The chapter's worked example: 200 cases x 7 samples, sorted by (case, sample).

    Case types (``CASE_TYPES``) are shuffled over case ids 1..200; each case's answers are drawn by rejection
    sampling until they realise the type; latencies come from ``single_call_latencies`` in draw order.
    Reference: ``../shared/seeds/002_544b9edd7c12c66d.txt`` (142, 156, 158, 158 correct of 200).

    >>> rows = worked_example_samples()
    >>> len(rows), sum(r.answer == r.gold for r in rows if r.sample == 1)
    (1400, 142)
    """
    rng = as_generator(seed)
    types = [ct for ct in CASE_TYPES for _ in range(ct.count)]
    perm = rng.permutation(len(types))
    latencies = single_call_latencies(latency_seed, len(types) * N_SAMPLES)
    rows: list[SampleRow] = []
    for case_index, type_index in enumerate(perm):
        gold, answers = _draw_case(rng, types[int(type_index)])
        for s, answer in enumerate(answers):
            lat = float(latencies[case_index * N_SAMPLES + s])
            rows.append(SampleRow(case_index + 1, s + 1, answer, gold, lat))
    return rows


def paired_from_samples(rows: Sequence[SampleRow]) -> list[tuple[int, str, int]]:
    """(case, config, correct) rows: correct = 1 when the vote over the first n samples equals gold.

    >>> paired = paired_from_samples(worked_example_samples())
    >>> [sum(c for _, cfg, c in paired if cfg == name) for name in CONFIGS]
    [142, 156, 158, 158]
    """
    by_case: dict[int, list[SampleRow]] = {}
    for r in rows:
        by_case.setdefault(r.case, []).append(r)
    out: list[tuple[int, str, int]] = []
    for case in sorted(by_case):
        ordered = sorted(by_case[case], key=lambda r: r.sample)
        answers = [r.answer for r in ordered]
        gold = ordered[0].gold
        for n, name in zip(CONFIG_NS, CONFIGS, strict=True):
            out.append((case, name, int(majority_vote(answers[:n]) == gold)))
    return out


def _ratings_and_predictions(seed: int) -> tuple[list[tuple[int, str, str]], list[tuple[int, str, str, list[str]]]]:
    rng = as_generator(seed)
    beta = rng.dirichlet(DICES_ALPHA, N_ITEMS)
    ratings: list[tuple[int, str, str]] = []
    for i in range(N_ITEMS):
        raters = np.sort(rng.choice(N_RATERS, RATINGS_PER_ITEM, replace=False))
        labels = rng.choice(len(LABELS), RATINGS_PER_ITEM, p=beta[i])
        for r, lab in zip(raters, labels, strict=True):
            ratings.append((i + 1, f"r{int(r) + 1:03d}", LABELS[int(lab)]))
    preds: list[tuple[int, str, str, list[str]]] = []
    for model, eps in MODEL_EPS:
        noise = rng.dirichlet(np.full(len(LABELS), 1 / len(LABELS)), N_ITEMS)
        probs = (1 - eps) * beta + eps * noise
        for i in range(N_ITEMS):
            text = [f"{p:.4f}" for p in probs[i]]
            rounded = [float(t) for t in text]
            best = int(np.argmax(rounded))
            preds.append((i + 1, model, LABELS[best], text))
    preds.sort(key=lambda row: (row[0], row[1]))
    return ratings, preds


def ratings_rows(seed: int = SEED_RATINGS) -> list[tuple[int, str, str]]:
    """(item, rater, label) rows: 500 items (N) x 40 ratings per item (K), sorted by (item, rater).

    beta_i ~ Dirichlet(alpha) (DICES-350 prior), each item rated by 40 distinct raters from r001..r120,
    label ~ Categorical(beta_i) over ("safe", "unsure", "unsafe").
    """
    return _ratings_and_predictions(seed)[0]


def prediction_rows(seed: int = SEED_RATINGS) -> list[tuple[int, str, str, list[str]]]:
    """(item, model, pred_label, [p_safe, p_unsure, p_unsafe] as 4-decimal strings), sorted by (item, model).

    p = (1 - eps_m) beta_i + eps_m rho_i, rho_i ~ Dirichlet([1/3] * 3), eps = 0.08 (model-a), 0.35 (model-b),
    0.36 (model-c): model-a clearly better, b and c nearly tied. pred_label = argmax of the rounded p.
    """
    return _ratings_and_predictions(seed)[1]


SEED_JUDGED = 55
JUDGED_CONFIGS = ("prompt-a", "prompt-b", "prompt-c")


def judged_rows(seed: int = SEED_JUDGED, n_cases: int = 300, n_human: int = 60) -> list[tuple[object, ...]]:
    """(case, config, judge_large, judge_small, human or "") of the judged example, by case then config.

    Quality q = mu_c + u_i + e_ic (mu = 3.3, 3.6, 3.4 for prompt-a, b, c; u_i ~ N(0, 0.8), e ~ N(0, 0.5));
    human = q + N(0, 0.5), judge_large = q + b_c + N(0, 0.6) with bias b = 0.3, 0.2, 0.8 (kinder to prompt-c),
    judge_small = 0.5 q + 1.9 + N(0, 0.9); each rounded to 1-5. The human label is kept on ``n_human`` cases drawn
    at random (the same cases for every config) and empty elsewhere.
    """
    rng = np.random.default_rng(seed)
    mu, bias = (3.3, 3.6, 3.4), (0.3, 0.2, 0.8)
    u = rng.normal(0.0, 0.8, n_cases)
    q = np.array(mu)[None, :] + u[:, None] + rng.normal(0.0, 0.5, (n_cases, 3))

    def scale(x: np.ndarray) -> np.ndarray:
        return np.clip(np.rint(x), 1, 5).astype(int)

    human = scale(q + rng.normal(0.0, 0.5, q.shape))
    large = scale(q + np.array(bias)[None, :] + rng.normal(0.0, 0.6, q.shape))
    small = scale(0.5 * q + 1.9 + rng.normal(0.0, 0.9, q.shape))
    labelled = np.zeros(n_cases, dtype=bool)
    labelled[rng.choice(n_cases, size=n_human, replace=False)] = True
    return [
        (i + 1, c, int(large[i, k]), int(small[i, k]), int(human[i, k]) if labelled[i] else "")
        for i in range(n_cases)
        for k, c in enumerate(JUDGED_CONFIGS)
    ]


def _csv(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = [",".join(header)] + [",".join(str(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def render_files() -> dict[str, str]:
    """File name -> exact text of every CSV in ``sample_data/`` (README.md is hand-written)."""
    samples = worked_example_samples()
    ratings, preds = _ratings_and_predictions(SEED_RATINGS)
    return {
        "worked_example_samples.csv": _csv(
            ("case", "sample", "answer", "gold", "latency_s"),
            [(r.case, r.sample, r.answer, r.gold, f"{r.latency_s:.3f}") for r in samples],
        ),
        "worked_example_paired.csv": _csv(("case", "config", "correct"), paired_from_samples(samples)),
        "ratings.csv": _csv(("item", "rater", "label"), ratings),
        "predictions.csv": _csv(
            ("item", "model", "pred_label", *(f"p_{lab}" for lab in LABELS)),
            [(item, model, pred, *ps) for item, model, pred, ps in preds],
        ),
        "judged_example.csv": _csv(("case", "config", "judge_large", "judge_small", "human"), judged_rows()),
    }


def write_all(out_dir: Path | str = DEFAULT_OUT) -> list[Path]:
    """Write every generated CSV into ``out_dir`` (created if missing) with ``\\n`` line endings; return the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in render_files().items():
        path = out / name
        path.write_bytes(text.encode("utf-8"))
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m nkcore.sample_data [--out DIR]``: regenerate the sample data; prints the files written."""
    parser = argparse.ArgumentParser(prog="python -m nkcore.sample_data", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    for path in write_all(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
