"""The Judges page (issue 55): does an LLM judge's score hold up against human labels, and how many to buy?

One module per section: ``source`` (the judge table: the evaluation in use when it holds human labels beside judge
scores, else the built-in example; the column pickers, bound to the link), ``compute`` (the cached report),
``verdict`` (the corrected verdict and its three numbers), ``configs`` (each config's corrected mean beside the
humans-only and judge-only numbers, the judge's bias, the downloads), ``pairs`` (corrected paired differences),
``plan`` (human labels for a target half-width, prices, the cheapest split) and ``panel`` (several judges).
"""
