"""Paired comparison of configs evaluated on the same cases: accuracy, McNemar, exact paired bootstrap.

Two configs (a model, a prompt, a number of samples per request (n)) are run on the same cases, so the
comparison is paired: cases that every config gets right (or wrong) move both accuracies together and cancel
in the difference. Only the discordant cases (one config right, the other wrong) carry information about
which config is better. Source: the chapter "The accuracy curve flattens sooner than the sample count
suggests" (``shared/seeds/002``), sections "Two intervals, and only one of them is the right instrument" and
"Why the monotonicity was never evidence".

Modules (one concept each):
- ``table``     :class:`PairedTable`: long (``case, config, correct``) or wide (``case`` + one 0/1 column per
  config) results parsed and paired (:func:`parse_paired`); a table from 2x2 counts
- ``accuracy``  :class:`ConfigAccuracy`, one config's accuracy with its Wilson or Clopper-Pearson interval
  (:func:`proportion_interval` is :func:`nkcore.common.intervals.proportion_interval`)
- ``mcnemar``   exact, mid-p and continuity-corrected chi-square p-values from the discordant counts
- ``bootstrap`` the case-resampling bootstrap interval on the difference, computed exactly from the law of the
  resampled discordant counts (no Monte Carlo); the Monte Carlo version for cross-checks
- ``compare``   one pair (:func:`compare_pair`), configs in order with Holm and 1/k! (:func:`compare_ordered`),
  and the frame entry points the Compare page and the CLI call
- ``sentences`` the plain words beside the numbers (verdict, marginal intervals, ordering, accuracy)
- ``cases``     :class:`CaseTable`: results with repeats (epochs) and scores in [0, 1], one mean per case and config
  (:func:`parse_cases`); the case is the unit
- ``lattice``   exact laws of per-case sums on a lattice: the sign-flip test and the case bootstrap by convolution
- ``case_test`` the case-level comparison (:func:`compare_cases`): sign-flip p, case-bootstrap interval, the
  variance components (within-case correlation, design effect, effective cases)
- ``case_sentences`` its words: the unit, the verdict, what the repeats bought
- ``disagreements`` the cases behind a verdict: the cases two configs disagree on (:func:`disagreements`), with each
  config's answers and the gold
"""

from __future__ import annotations

from nkcore.common.intervals import proportion_interval
from nkcore.paired.accuracy import ConfigAccuracy, accuracy_of, config_accuracy
from nkcore.paired.bootstrap import BootstrapInterval, exact_paired_bootstrap, interval_reliable, paired_bootstrap_mc
from nkcore.paired.case_compare import OrderedCaseComparison, analyse_cases, compare_frame_cases
from nkcore.paired.case_plan import (
    MeasuredVariances,
    OneRunPlan,
    choose_pair,
    measured_sentence,
    measured_variances,
    one_run_plan,
)
from nkcore.paired.case_sentences import (
    case_headline_sentence,
    case_verdict_sentence,
    repeat_word,
    repeats_sentence,
    unit_sentence,
)
from nkcore.paired.case_test import (
    CASE_TEST,
    CaseComparison,
    CaseMean,
    VarianceComponents,
    case_bootstrap,
    case_mean,
    compare_cases,
    sign_flip_test,
    variance_components,
)
from nkcore.paired.cases import REPEAT_COLUMNS, CaseTable, case_table_from_paired, has_repeats, parse_cases
from nkcore.paired.caution import interval_caution
from nkcore.paired.compare import (
    OrderedComparison,
    PairedComparison,
    analyse_paired,
    compare_frame_pair,
    compare_ordered,
    compare_pair,
    holm,
    ordering_chance,
)
from nkcore.paired.disagreements import DISAGREEMENT_COLUMNS, disagreements, select_disagreements
from nkcore.paired.mcnemar import McNemarResult, mcnemar
from nkcore.paired.sentences import accuracy_sentence, marginal_sentence, ordering_sentence, verdict_sentence
from nkcore.paired.table import PairedTable, paired_table_from_counts, parse_paired

__all__ = [
    "CASE_TEST",
    "DISAGREEMENT_COLUMNS",
    "REPEAT_COLUMNS",
    "BootstrapInterval",
    "CaseComparison",
    "CaseMean",
    "CaseTable",
    "ConfigAccuracy",
    "McNemarResult",
    "MeasuredVariances",
    "OneRunPlan",
    "OrderedCaseComparison",
    "OrderedComparison",
    "PairedComparison",
    "PairedTable",
    "VarianceComponents",
    "accuracy_of",
    "accuracy_sentence",
    "analyse_cases",
    "analyse_paired",
    "case_bootstrap",
    "case_headline_sentence",
    "case_mean",
    "case_table_from_paired",
    "case_verdict_sentence",
    "choose_pair",
    "compare_cases",
    "compare_frame_cases",
    "compare_frame_pair",
    "compare_ordered",
    "compare_pair",
    "config_accuracy",
    "disagreements",
    "exact_paired_bootstrap",
    "has_repeats",
    "holm",
    "interval_caution",
    "interval_reliable",
    "marginal_sentence",
    "mcnemar",
    "measured_sentence",
    "measured_variances",
    "one_run_plan",
    "ordering_chance",
    "ordering_sentence",
    "paired_bootstrap_mc",
    "paired_table_from_counts",
    "parse_cases",
    "parse_paired",
    "proportion_interval",
    "repeat_word",
    "repeats_sentence",
    "select_disagreements",
    "sign_flip_test",
    "unit_sentence",
    "variance_components",
    "verdict_sentence",
]
