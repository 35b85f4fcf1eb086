"""The canonical columns of each data kind, the words that explain them, and the file column names that mean them.

| kind          | canonical columns                                                                 |
|---------------|-----------------------------------------------------------------------------------|
| ``samples``   | case, sample, answer, gold and/or correct, optional latency_s (one row per sample) |
| ``paired``    | long: case, config, correct, optional repeat; or wide: case + one column per config |
| ``ratings``   | item, rater, label (one row per rating)                                            |
| ``predictions`` | item, model, pred_label and/or one p_<label> probability column per label        |

``SYNONYMS`` lists, per role, the normalised column names that mean it, most likely first (the order ranks the
matches in :func:`nkcore.kinds.detect.detect_kind`).
"""

from __future__ import annotations

import re

from nkcore.errors import DataError

KEEP_CHOICES = ("first", "last")
"""Which row of a repeated key pair to keep (``--keep``): the first or the last (``nkcore.kinds.repeated_keys``)."""

__all__ = [
    "COUNT_PREFIX",
    "ID_ROLES",
    "KEEP_CHOICES",
    "KINDS",
    "PROB_PREFIXES",
    "REPEAT_COLUMNS",
    "ROLES",
    "ROLE_WORDS",
    "RUN_NAMES",
    "SCORE_COLUMNS",
    "SYNONYMS",
    "TEXT_ROLES",
    "describe_role",
    "is_role_of",
    "kind_columns",
    "normal_name",
    "probability_role",
]

KINDS: tuple[str, ...] = ("samples", "paired", "ratings", "predictions")
#: Column names read as the repeat number of a long paired table or an evaluation (first match wins,
#: case-insensitive where paired results are parsed).
REPEAT_COLUMNS: tuple[str, ...] = ("repeat", "epoch", "sample")
#: Column names read as the score of a long table (first match wins).
SCORE_COLUMNS: tuple[str, ...] = ("correct", "score")
# Column names that say "which run of a model" (a checkpoint, a seed), not the model itself.
RUN_NAMES: tuple[str, ...] = ("model_run", "run", "run_id", "checkpoint", "seed", "model_seed", "replicate")
# Ratings may also come as label counts: item + one ``count_<label>`` column per label (ChaosNLI, CIFAR-10H).
COUNT_PREFIX = "count_"

# Plain-language meaning of each canonical column (used in messages and in the UI's mapping editor).
ROLE_WORDS: dict[str, str] = {
    "case": "case (one evaluation prompt)",
    "sample": "sample (which draw of the model for the case)",
    "answer": "answer (the model's answer in that sample)",
    "gold": "gold (the correct answer)",
    "correct": "correct (1 if right, 0 if wrong, or a score between 0 and 1)",
    "repeat": "repeat (which run of the case: epoch, repeat; every run is kept, the case is the unit)",
    "latency_s": "latency_s (seconds for that call)",
    "config": "config (the system setting being compared)",
    "item": "item (the thing being rated)",
    "rater": "rater (who gave the rating)",
    "label": "label (the rating given)",
    "model": "model (which model predicted)",
    "pred_label": "pred_label (the model's predicted label)",
}

SYNONYMS: dict[str, tuple[str, ...]] = {
    "repeat": ("repeat", "epoch", "repetition", "repeat_idx", "repeat_index", "epoch_idx"),
    "item": (
        "item",
        "item_id",
        "itemid",
        "unit",
        "unit_id",
        "text_id",
        "comment_id",
        "message_id",
        "tweet_id",
        "post_id",
        "doc_id",
        "document_id",
        "example_id",
        "instance_id",
        "question_id",
        "prompt_id",
        "conversation_id",
        "image_id",
        "sentence_id",
        "uid",
        "id",
    ),
    "rater": (
        "rater",
        "rater_id",
        "annotator",
        "annotator_id",
        "worker",
        "worker_id",
        "workerid",
        "judge",
        "judge_id",
        "labeler",
        "labeler_id",
        "labeller",
        "labeller_id",
        "coder",
        "coder_id",
        "annotator_name",
        "participant",
        "participant_id",
        "respondent",
        "respondent_id",
        "user",
        "user_id",
    ),
    "label": (
        "label",
        "rating",
        "annotation",
        "response",
        "judgment",
        "judgement",
        "class",
        "category",
        "label_id",
        "choice",
        "vote",
        "value",
        "score",
        "answer",
    ),
    "model": ("model", "model_name", "model_id", "system", "system_name", "classifier", "model_run", "predictor"),
    "pred_label": (
        "pred_label",
        "predicted_label",
        "prediction",
        "pred",
        "predicted",
        "predicted_class",
        "pred_class",
        "prediction_label",
        "y_pred",
        "model_label",
        "output",
        "hard_label",
    ),
    "case": (
        "case",
        "case_id",
        "question_id",
        "prompt_id",
        "problem_id",
        "task_id",
        "example_id",
        "test_id",
        "qid",
        "question",
        "prompt",
        "problem",
        "item_id",
        "item",
        "instance_id",
        "uid",
        "id",
        "idx",
    ),
    "sample": (
        "sample",
        "sample_id",
        "sample_index",
        "sample_idx",
        "sample_no",
        "draw",
        "draw_id",
        "attempt",
        "trial",
        "generation",
        "generation_id",
        "completion_id",
        "seed",
        "run",
        "run_id",
        "rep",
        "repeat",
        "replicate",
    ),
    "answer": (
        "answer",
        "model_answer",
        "extracted_answer",
        "parsed_answer",
        "predicted_answer",
        "final_answer",
        "generated_answer",
        "response",
        "output",
        "prediction",
        "pred",
        "completion",
        "result",
    ),
    "gold": (
        "gold",
        "gold_answer",
        "gold_label",
        "target",
        "reference",
        "reference_answer",
        "ground_truth",
        "groundtruth",
        "expected",
        "expected_answer",
        "correct_answer",
        "true_answer",
        "truth",
        "solution",
        "answer_key",
        "y_true",
    ),
    "correct": (
        "correct",
        "is_correct",
        "iscorrect",
        "correctness",
        "passed",
        "pass",
        "success",
        "solved",
        "is_right",
        "right",
        "exact_match",
        "em",
        "match",
        "hit",
        "accuracy",
        "acc",
        "score",
    ),
    "latency_s": (
        "latency_s",
        "latency",
        "latency_sec",
        "latency_seconds",
        "duration_s",
        "duration",
        "elapsed_s",
        "elapsed",
        "time_s",
        "seconds",
        "response_time",
        "response_time_s",
        "wall_time",
    ),
    "config": (
        "config",
        "configuration",
        "config_name",
        "condition",
        "variant",
        "setting",
        "arm",
        "method",
        "treatment",
        "setup",
        "system",
        "model",
        "model_name",
    ),
}

PROB_PREFIXES: tuple[str, ...] = ("p_", "prob_", "proba_", "probability_", "prob_of_")

# Roles per kind: (required, optional). "pred_label"/"p_*" and "gold"/"correct" are "at least one of".
ROLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "samples": (("case", "sample", "answer"), ("gold", "correct", "latency_s")),
    "paired": (("case", "config", "correct"), ("repeat",)),
    "ratings": (("item", "rater", "label"), ()),
    "predictions": (("item", "model"), ("pred_label",)),
}
# Roles whose values are ids (text, at most MAX_LABEL_CHARS) and roles whose values are answers or labels (text).
ID_ROLES: frozenset[str] = frozenset({"case", "item", "rater", "model", "config"})
TEXT_ROLES: frozenset[str] = frozenset({"answer", "gold", "label", "pred_label"})


def kind_columns(kind: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) canonical columns of ``kind`` (see the module table for "at least one of" rules).

    >>> kind_columns("ratings")
    (('item', 'rater', 'label'), ())
    """
    if kind not in ROLES:
        raise DataError(f"unknown data kind {kind!r}; choose one of {', '.join(KINDS)}")
    return ROLES[kind]


def is_role_of(kind: str, role: str) -> bool:
    """Whether ``role`` can be mapped for ``kind``: its canonical columns, ``p_<label>`` for predictions, and any
    config name for paired data (the wide layout names one 0/1 column per config).

    >>> is_role_of("ratings", "label"), is_role_of("ratings", "colour"), is_role_of("predictions", "p_x")
    (True, False, True)
    """
    required, optional = kind_columns(kind)
    if role in required or role in optional:
        return True
    if kind == "predictions" and role.startswith("p_") and len(role) > 2:
        return True
    if kind == "ratings" and role.startswith(COUNT_PREFIX) and len(role) > len(COUNT_PREFIX):
        return True  # the label-count layout: item + one count_<label> column per label
    return kind == "paired"


def normal_name(name: object) -> str:
    """A column name lower-cased, with every run of other characters than a-z and 0-9 made one underscore.

    >>> normal_name(" Item ID"), normal_name("_worker_id")
    ('item_id', 'worker_id')
    """
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


def describe_role(role: str) -> str:
    """Plain words for a canonical column (a ``p_<label>`` column is the probability of that label).

    >>> describe_role("p_x")
    "p_x (probability of label 'x')"
    """
    if role.startswith("p_"):
        return f"{role} (probability of label {role[2:]!r})"
    if role.startswith(COUNT_PREFIX) and len(role) > len(COUNT_PREFIX):
        return f"{role} (how many ratings gave label {role[len(COUNT_PREFIX) :]!r})"
    return ROLE_WORDS.get(role, role)


def probability_role(column: str) -> str:
    """The canonical ``p_<label>`` name of a probability column (``prob_x``, ``proba_x``, ``P_x`` -> ``p_x``).

    A column without a known prefix keeps its whole name as the label.

    >>> probability_role("prob_unsafe"), probability_role("p_0"), probability_role("toxic")
    ('p_unsafe', 'p_0', 'p_toxic')
    """
    low = str(column).lower()
    for prefix in PROB_PREFIXES:
        if low.startswith(prefix) and len(low) > len(prefix):
            return f"p_{str(column)[len(prefix) :]}"
    return f"p_{column}"
