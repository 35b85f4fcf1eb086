"""Sentences on how alike a case's samples are: rho, the effective samples N_eff, the what-if rho, the next-step
check of the correlated model, and the measured curve against the models' predictions.

The models (:mod:`nkcore.voting.models`) count a vote as right or wrong against one wrong answer; every sentence
says so where the measured curve beats them. Percentages by :func:`nkcore.common.formatting.percent`.
"""

from __future__ import annotations

import math

from nkcore.common.formatting import percent, points_between
from nkcore.voting.frames import VoteAnalysis
from nkcore.voting.models import RhoEstimate, correlated_accuracy, independent_accuracy, n_eff
from nkcore.voting.next_step import NextStepCheck

__all__ = ["model_gap_sentence", "n_eff_sentence", "next_step_sentence", "rho_sentence", "what_if_sentence"]


def n_eff_sentence(rho: float, rho_known: bool, n: int, measured: float, p: float) -> str:
    """What n correlated samples are worth: N_eff = n / (1 + (n - 1) rho) and the predictions at n, beside the
    measured accuracy. ``rho_known`` False says rho could not be estimated and is taken as 0.

    >>> n_eff_sentence(0.17, True, 7, 0.79, 0.71)[:80]
    'With rho = 0.17, 7 samples per request are worth N_eff = 3.5 independent samples'
    """
    k = n_eff(n, rho)
    return (
        f"With rho = {rho:.2f}{'' if rho_known else ' (rho cannot be estimated here: taken as 0)'}, {n} samples per "
        f"request are worth N_eff = {k:.1f} independent samples: the correlated model predicts "
        f"{correlated_accuracy(p, n, rho):.1%} at n = {n}, independent samples {independent_accuracy(p, n):.1%}, "
        f"and the data measured {measured:.1%}."
    )


def rho_sentence(est: RhoEstimate, n: int, measured: float | None = None) -> str:
    """Plain-language reading of the rho estimate and what it means for N_eff at samples per request n.

    With ``measured`` (the measured accuracy at n), the sentence follows the data: when the measured curve reaches
    the independent-samples model I_p(n) (p = ``est.p_single``), it does not claim the curve "flattens at a level
    set by rho" but says the vote does better than the correlated (and even the independent) model predicts.

    >>> from nkcore.voting.models import RhoEstimate
    >>> r = RhoEstimate(0.35, 0.27, 0.43, 0.631, 200, 1400, 7.0, "ANOVA ICC(1)")
    >>> rho_sentence(r, 7)[-60:]
    'the curve flattens at a level set by rho, not by the budget.'
    >>> rho_sentence(r, 7, measured=0.79)[-101:]
    'r several values, so the right answer wins pluralities that a two-answer model of rho does not count.'
    """
    if not math.isfinite(est.rho):
        return "rho cannot be estimated: every sample is correct, or every sample is wrong."
    r = max(est.rho, 0.0)
    head = (
        f"Samples of the same case are correlated: rho = {est.rho:.2f} (95% interval {est.ci_low:.2f} to "
        f"{est.ci_high:.2f}, {est.n_cases:,} cases, from how alike each case's samples are). So samples per request "
        f"n = {n} act like N_eff = {n_eff(n, r):.1f} independent samples"
    )
    p = est.p_single
    if measured is not None and 0 < p < 1:
        indep = independent_accuracy(p, n)
        if round(measured, 3) >= round(indep, 3):
            return (
                f"{head} by the correlated model, which would predict {percent(correlated_accuracy(p, n, r))} at "
                f"n = {n}. The data does better: {percent(measured)}, at or above even fully independent samples "
                f"({percent(indep)}). Here the wrong answers scatter over several values, so the right answer wins "
                "pluralities that a two-answer model of rho does not count."
            )
    return f"{head}, and the curve flattens at a level set by rho, not by the budget."


def what_if_sentence(p: float, rho: float, n: int, measured: float | None = None) -> str:
    """Plain-language reading of the rho what-if: N_eff and the correlated prediction at n against independence;
    with ``measured`` (the accuracy the data show at n), the prediction is set beside it, and a measured value above
    even the independent model's is explained (a plurality over scattered wrong answers beats the two-answer model).

    >>> what_if_sentence(0.71, 0.17, 7)[:95]
    'If rho were 0.17, samples per request n = 7 would act like N_eff = 3.5 independent samples, and'
    >>> what_if_sentence(0.631, 0.351, 7, 0.79)[-120:]
    'The data measured 79.0%: scattered wrong answers let the right one win pluralities this two-answer model does not count.'
    """
    predicted = correlated_accuracy(p, n, rho)
    text = (
        f"If rho were {rho:.2f}, samples per request n = {n} would act like N_eff = {n_eff(n, rho):.1f} independent "
        f"samples, and majority voting would reach {percent(predicted)} at n = {n} (fully "
        f"independent samples: {percent(independent_accuracy(p, n))}; single call: {percent(p)})."
    )
    if measured is None or abs(measured - predicted) < 0.02:
        return text
    if measured > predicted:
        return text + (
            f" The data measured {percent(measured)}: scattered wrong answers let the right one win pluralities this "
            "two-answer model does not count."
        )
    return text + f" The data measured {percent(measured)} at n = {n}, below this prediction."


def next_step_sentence(check: NextStepCheck, estimated: float | None = None) -> str:
    """A plain-language reading of :class:`NextStepCheck`: which way the prediction missed and what it suggests.

    With ``estimated`` (the rho estimated from the samples, which leads on the page), the fitted rho is presented
    as a check of the correlated model, and a difference between the two is explained: the estimate measures how
    alike a case's samples are; the fit reads rho off the curve's shape through a model that counts a vote as right
    or wrong against one wrong answer. Differences are taken between the shown (rounded) percentages.
    """
    gap = points_between(check.predicted, check.measured).lstrip("+-")
    if estimated is None:
        head = (
            f"Fitting rho on samples per request n up to {check.fit_upto} gives rho = {check.rho_fitted:.2f}, which "
            f"predicts {percent(check.predicted)} at n = {check.predict_n}; the data measured "
            f"{percent(check.measured)} (95% interval {percent(check.ci_low)} to {percent(check.ci_high)})."
        )
    else:
        head = (
            f"As a check of the correlated model: rho fitted to the measured curve at n up to {check.fit_upto} is "
            f"{check.rho_fitted:.2f} (the estimate above, from the samples themselves, is {estimated:.2f}); the fit "
            f"predicts {percent(check.predicted)} at n = {check.predict_n} and the data measured "
            f"{percent(check.measured)} (95% interval {percent(check.ci_low)} to {percent(check.ci_high)})."
        )
        if abs(check.rho_fitted - estimated) >= 0.05:
            head += (
                " The two rhos differ because they answer different questions: the estimate measures how alike each "
                "case's samples are, the fit asks which rho makes a model that counts a vote as right or wrong "
                "against one wrong answer pass through the curve. The estimate leads; the fit says whether that "
                "model describes the vote."
            )
    if check.direction == "above" and check.rho_fitted < 1e-3:
        tail = (
            f" The curve is {gap} points above even the independent-samples model (rho = 0), which "
            "counts the vote as correct against one wrong answer: here the wrong answers are scattered over "
            "several values, so the plurality vote beats a two-answer majority and rho cannot be read off the curve."
        )
    elif check.direction == "above":
        tail = (
            f" The curve climbed {gap} points higher than the correlated model predicts: the samples "
            "are more independent than assumed, so a larger n may be worth measuring."
        )
    elif check.direction == "below":
        tail = (
            f" The curve flattened {gap} points below the prediction: the correlation is worse than "
            "estimated, which usually points to a systematic misreading in the prompt rather than to bad luck."
        )
    else:
        tail = " The prediction held: the correlated model describes this curve."
    noise = (
        " The miss is inside the measured point's interval, so the data cannot tell the two apart."
        if check.within_noise and check.direction != "on"
        else ""
    )
    return head + tail + noise


def model_gap_sentence(a: VoteAnalysis) -> str:
    """Plain-language reading of how the measured curve at the largest n compares with the models' predictions.

    The independent, correlated and beta-binomial models count a vote as correct against ONE wrong answer; a
    plurality vote over answers whose wrong values scatter can do better than that, and the sentence says so.
    """
    n = a.max_n
    measured = a.curve.points[-1].accuracy
    p = a.curve.point(1).accuracy
    indep = independent_accuracy(p, n) if 0 < p < 1 else p
    bb = a.beta_binomial_curve[-1]
    text = (
        f"At samples per request n = {n} the data measured {percent(measured)}; independent samples would give "
        f"{percent(indep)} and the beta-binomial difficulty model (each case has its own accuracy, fitted to the data) "
        f"{percent(bb)}."
    )
    if measured > max(indep, bb) + 0.02:
        text += (
            " The measured curve beats both: the models count a vote as correct against one wrong answer, but here "
            "wrong answers are spread over several values, so the right answer can win a plurality without a "
            "majority."
        )
    elif measured < min(indep, bb) - 0.02:
        text += " The measured curve is below both models: errors are more systematic than even the models assume."
    else:
        text += " The models describe the measured curve to within two points."
    return text
