"""The Planner page: ``controls`` (the evaluation, alpha, power, target, label error rate), ``compute`` (the plan
and resolution curve, cached), ``answer`` (the headline, the curve, the three numbers), ``label_error`` (the
label-error floor and its estimate; a fragment), ``repeats`` (more cases or more repeats? a fragment) and ``sequential``
(stopping as soon as it is decided)."""
