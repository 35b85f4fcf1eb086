"""Judges beside humans (issue 55): judge scores on every case corrected by human labels on a random subset (PPI++),
how many human labels to buy, and several judges as raters.

One concept per module:

- ``data``       the judge table: case, config, judge score(s), human score (empty where unlabelled); scales
                 (numbers, true/false, pairwise verdicts 1 / 2 / tie as response 1's score 1 / 0 / 0.5)
- ``ppi``        PPI++ for a mean (power-tuned lambda, Angelopoulos, Duchi & Zrnic 2023), the humans-only and
                 judge-only intervals, effective human labels
- ``estimate``   each config's corrected mean, paired differences between configs, the judge's bias per config and
                 whether it differs between configs
- ``plan``       human labels for a target half-width or power given rho from a pilot; the cheapest split of labels
                 and judge calls at given prices (ppi_py.ppi_power)
- ``raters``     several judges: agreement, error correlation, effective independent judges, Dawid-Skene (crowd-kit,
                 through ``nkcore.ratings.quality``)
- ``report``     all of it for one table (:func:`judge_report`); ``sentences`` the verdict; ``document`` the JSON

Typical use::

    table = read_judge_table("evals.csv", ["judge"], "human", config_column="config", case_column="case")
    report = judge_report(table, price_human=1.0, price_judge=0.01)
    report.verdict, judge_doc(report)["configs"]
"""

from nkcore.judge.data import (
    PAIRWISE_SCORES,
    SCALES,
    JudgeTable,
    join_human,
    judge_table,
    pairwise_scores,
    read_judge_table,
)
from nkcore.judge.document import judge_doc
from nkcore.judge.estimate import (
    BiasComparison,
    BiasTests,
    ConfigEstimate,
    PairDifference,
    bias_tests,
    config_estimate,
    config_estimates,
    pair_difference,
    pair_differences,
)
from nkcore.judge.plan import (
    LabelPlan,
    PilotFit,
    SplitPlan,
    cheapest_split,
    labels_for_half_width,
    labels_for_power,
    labels_for_se,
    pilot_fit,
)
from nkcore.judge.ppi import (
    MeanInterval,
    effective_human_labels,
    exact_binary_interval,
    human_only_interval,
    human_only_verdict_interval,
    judge_only_interval,
    normal_p_value,
    ppi_lambda,
    ppi_mean_interval,
    sparse_binary,
)
from nkcore.judge.raters import DawidSkeneJudges, JudgePair, JudgePanel, JudgeSummary, judge_panel
from nkcore.judge.report import (
    JudgePlan,
    JudgeReport,
    SubsetCheck,
    judge_plan,
    judge_report,
    judge_report_of_frame,
    subset_check,
)
from nkcore.judge.sentences import judge_verdict, plan_sentence

__all__ = [
    "PAIRWISE_SCORES",
    "SCALES",
    "BiasComparison",
    "BiasTests",
    "ConfigEstimate",
    "DawidSkeneJudges",
    "JudgePair",
    "JudgePanel",
    "JudgePlan",
    "JudgeReport",
    "JudgeSummary",
    "JudgeTable",
    "LabelPlan",
    "MeanInterval",
    "PairDifference",
    "PilotFit",
    "SplitPlan",
    "SubsetCheck",
    "bias_tests",
    "cheapest_split",
    "config_estimate",
    "config_estimates",
    "effective_human_labels",
    "exact_binary_interval",
    "human_only_interval",
    "human_only_verdict_interval",
    "join_human",
    "judge_doc",
    "judge_only_interval",
    "judge_panel",
    "judge_plan",
    "judge_report",
    "judge_report_of_frame",
    "judge_table",
    "judge_verdict",
    "labels_for_half_width",
    "labels_for_power",
    "labels_for_se",
    "normal_p_value",
    "pair_difference",
    "pair_differences",
    "pairwise_scores",
    "pilot_fit",
    "plan_sentence",
    "ppi_lambda",
    "ppi_mean_interval",
    "read_judge_table",
    "sparse_binary",
    "subset_check",
]
