"""Majority-vote curves over samples per request (n): exact curves, models of why they flatten, adaptive top-up.

Input is raw samples, long: ``case, sample, answer, gold`` (``sample`` = the order drawn), optional
``latency_s``; a 0/1 ``correct`` column may replace ``gold`` (or, with no ``answer`` column, the samples are
read as binary: correct against one wrong answer).

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``): 142, 156, 158, 158 of 200 cases at n = 1, 3, 5, 7; independent
majority accuracy 79.6%, 85.0%, 88.6% at p = 0.71; rho = 0.17 gives N_eff 3.0 at n = 5 and 3.5 at n = 7;
38 of the 44 cases wrong at n = 3 are still wrong at n = 7, 31 of them unanimous; the 3+2 adaptive rule tops
up 19% of requests for 3.38 calls and scores 158.

Modules (one concept each):
- ``samples``    raw samples parsed into a typed :class:`SampleSet`
- ``rules``      the plurality vote, tie rules and top-up triggers
- ``exact``      per-case credit at every n: exact over all n-subsets, and over the first n samples
- ``bootstrap``  the paired bootstrap over cases
- ``curve``      the measured curve with its 95% bands (exact, on effective cases) and paired bootstrap steps
- ``models``     independent and correlated accuracy, N_eff, rho, the beta-binomial difficulty model
- ``next_step``  fit rho up to n = k, predict k + 2, compare
- ``unfixable``  errors more samples cannot fix
- ``adaptive``   the "draw n0, add m more" rule
- ``passk``      pass@k (at least one of k right), pass^k (all k right) and majority@k, with score intervals over cases (nkcore.common.bounded_mean)
- ``flaky``      cases whose samples disagree, and their noise in a single-sample score
- ``frames``     DataFrame-in entry points for the pages (through ``ui.common.cache``) and the CLI
- ``sentences``  the plain-language sentences beside the numbers
- ``rho_sentences`` the sentences on rho, N_eff, the what-if rho, the next-step check and the models' gap
"""

from __future__ import annotations

from nkcore.voting.adaptive import AdaptiveResult, adaptive_topup
from nkcore.voting.curve import CurvePoint, VoteCurve, vote_curve
from nkcore.voting.exact import case_credit_exact, case_credit_first_n, exact_case_curve
from nkcore.voting.flaky import AnswerCount, FlakyCase, FlakyCases, flaky_cases, flaky_from_frame, flaky_sentence
from nkcore.voting.frames import (
    SamplingNumbers,
    VoteAnalysis,
    adaptive_from_frame,
    analyze_samples,
    next_step_from_frame,
    sampling_numbers,
    unfixable_from_frame,
)
from nkcore.voting.models import (
    BetaBinomialFit,
    NEffRow,
    RhoEstimate,
    beta_binomial_curve,
    correlated_accuracy,
    correlated_curve,
    estimate_rho,
    fit_beta_binomial,
    independent_accuracy,
    n_eff,
    n_eff_table,
)
from nkcore.voting.next_step import NextStepCheck, Reading, predict_next_step
from nkcore.voting.passk import (
    KValue,
    PassKCurves,
    case_pass_at_k,
    case_pass_hat_k,
    pass_at_k,
    pass_hat_k,
    pass_k_curves,
    passk_from_frame,
    passk_sentence,
    verdict_k,
)
from nkcore.voting.rules import TIE_RULES, TRIGGERS, TieRule, Trigger, plurality_correct, trigger_fires
from nkcore.voting.samples import SampleSet, parse_samples
from nkcore.voting.sentences import (
    adaptive_sentence,
    curve_sentence,
    model_gap_sentence,
    next_step_sentence,
    order_sentence,
    rho_sentence,
    unfixable_sentence,
    what_if_sentence,
)
from nkcore.voting.unfixable import UnfixableCase, UnfixableErrors, unfixable_errors

__all__ = [
    "TIE_RULES",
    "TRIGGERS",
    "AdaptiveResult",
    "AnswerCount",
    "BetaBinomialFit",
    "CurvePoint",
    "FlakyCase",
    "FlakyCases",
    "KValue",
    "NEffRow",
    "NextStepCheck",
    "PassKCurves",
    "Reading",
    "RhoEstimate",
    "SampleSet",
    "SamplingNumbers",
    "TieRule",
    "Trigger",
    "UnfixableCase",
    "UnfixableErrors",
    "VoteAnalysis",
    "VoteCurve",
    "adaptive_from_frame",
    "adaptive_sentence",
    "adaptive_topup",
    "analyze_samples",
    "beta_binomial_curve",
    "case_credit_exact",
    "case_credit_first_n",
    "case_pass_at_k",
    "case_pass_hat_k",
    "correlated_accuracy",
    "correlated_curve",
    "curve_sentence",
    "estimate_rho",
    "exact_case_curve",
    "fit_beta_binomial",
    "flaky_cases",
    "flaky_from_frame",
    "flaky_sentence",
    "independent_accuracy",
    "model_gap_sentence",
    "n_eff",
    "n_eff_table",
    "next_step_from_frame",
    "next_step_sentence",
    "order_sentence",
    "parse_samples",
    "pass_at_k",
    "pass_hat_k",
    "pass_k_curves",
    "passk_from_frame",
    "passk_sentence",
    "plurality_correct",
    "predict_next_step",
    "rho_sentence",
    "sampling_numbers",
    "trigger_fires",
    "unfixable_errors",
    "unfixable_from_frame",
    "unfixable_sentence",
    "verdict_k",
    "vote_curve",
    "what_if_sentence",
]
