"""The (N, K) engine: how many items (N) and ratings per item (K) to buy with a budget N x K.

Reproduces the simulation of "Forest vs Tree: The (N, K) Trade-off in Reproducible ML Evaluation"
(AAAI-26, arXiv 2508.03663) exactly as stated in ``docs/nk-method.md``, fast
(count-based sampling, vectorised over rounds, both cores), and extends it to real multi-annotator data.

Modules (one concept each):
- ``priors``   preset priors (alpha) and parsing of a typed alpha
- ``samplers`` exact count samplers of the generative model and its null (Dirichlet, Polya urn, counts)
- ``simulate`` the driver: chunks of rounds, seeds, threads, the request's work and memory checks
- ``outcomes`` the exact law of one item's (gold, A, B) counts; datasets as counts of outcome types
- ``metrics``  the metric registry: one ``Metric`` per name (Accuracy, TV, Wins, KL (1e-12), smoothed KL, JS, CE,
  F1) with its kernels, direction, unit, words and what the exact engine needs; parsing a typed list
- ``score_kernels``, ``count_kernels`` each metric's float kernel (real data) and count kernel (the simulation)
- ``scores``, ``count_gaps`` dispatch on the registry: score gaps on float arrays, on integer counts
- ``pvalue``   the paper's p-value rule, Delta, CI-width, reproducibility: ``Stats``, the one statistics type
- ``cell``     ``Cell``, the one result record every engine returns (optional real-data, policy, crossed parts)
- ``grid``     the paper's grid (282 configurations), simulated cells; ``best``: minimal budget, best K
- ``fit``      Dirichlet-multinomial fit of a prior to real ratings, with fit quality (MAB)
- ``pairs``, ``resample`` real ratings + two models' predictions, and the same questions asked of them
- ``rounds``   the Monte Carlo bookkeeping the resamplers share (seeded tasks per side, threads)
- ``exact``    the same numbers without Monte Carlo noise: per-item gap laws, their N-fold convolution, minimal
  budget and best K on any budget, real data (a subpackage; docs/nk-method.md, "Exact engine")
- ``reference`` a literal, slow, response-level transcription of the spec (oracle for tests and benchmarks)
- ``frames``   DataFrame-in glue for the page and the CLI (the only module that reads ratings frames)
- ``sentences``, ``number_words``, ``cell_words`` the plain-language sentences beside the numbers (page and CLI),
  the paper's claims checked
- ``policies`` adaptive allocation of ratings under a budget (fixed K, a second round by the plurality's margin,
  sequential until the plurality is clear) and raters who are not alike (docs/adaptive.md); ``adaptive``: the
  policies simulated on a prior; ``adaptive_resample``: on real data (extra ratings without replacement from the
  item's pool); ``adaptive_sentences``: in words
- ``crossed``, ``crossed_resample`` resampling raters as well as items; ``ordinal``, ``ordinal_scores``: ordered
  labels
"""
