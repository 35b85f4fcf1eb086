"""The Sampling page: ``analysis`` (the cached vote analysis and its frames), ``curve`` (the vote curve, the what-if
rho and the summary; a fragment), ``numbers`` (key numbers, how to read them, effective samples), ``unfixable``
(errors more samples cannot fix; a fragment), ``passk`` (pass@k, pass^k, flaky cases) and ``check`` (does the
correlated model predict the next step? a fragment)."""
