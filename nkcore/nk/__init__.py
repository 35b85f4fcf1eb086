"""The (N, K) engine: how many items (N) and ratings per item (K) to buy with a budget N x K.

Reproduces the simulation of "Forest vs Tree: The (N, K) Trade-off in Reproducible ML Evaluation"
(AAAI-26, arXiv 2508.03663) exactly as stated in ``docs/nk-method.md``, fast
(count-based sampling, vectorised over rounds, both cores), and extends it to real multi-annotator data.

Modules (one concept each):
- ``priors``   preset priors (alpha) and parsing of a typed alpha
- ``samplers`` exact count samplers of the generative model and its null (Dirichlet, Polya urn, counts)
- ``simulate`` the driver: chunks of rounds, seeds, threads, the request's work and memory checks
- ``outcomes`` the exact law of one item's (gold, A, B) counts; datasets as counts of outcome types
- ``metrics``  the metrics' names, direction and parsing: Accuracy, TV, Wins, KL (1e-12), smoothed KL, JS, CE, F1
- ``scores``   float scores of a machine against the gold and score gaps between two machines
- ``count_gaps`` the simulation's integer kernel: per-item gaps from (gold, A, B) counts
- ``pvalue``   the paper's p-value rule, Delta, CI-width, reproducibility
- ``grid``     cells, the paper's grid (282 configurations), minimal budget, best K
- ``fit``      Dirichlet-multinomial fit of a prior to real ratings, with fit quality (MAB)
- ``resample`` the same questions asked of real ratings + two models' predictions
- ``exact``    the same numbers without Monte Carlo noise: per-item gap laws, their N-fold convolution, minimal
  budget and best K on any budget, real data (a subpackage; docs/nk-method.md, "Exact engine")
- ``reference`` a literal, slow, response-level transcription of the spec (oracle for tests and benchmarks)
- ``frames``   DataFrame-in glue for the page and the CLI (the only module that reads ratings frames)
- ``sentences`` the plain-language sentences beside the numbers (page and CLI), the paper's claims checked
- ``adaptive`` adaptive allocation of ratings under a budget (fixed K, a second round by the plurality's margin,
  sequential until the plurality is clear) and raters who are not alike, simulated on a prior (docs/adaptive.md)
- ``adaptive_resample`` the same policies on real data (extra ratings without replacement from the item's pool)
- ``adaptive_sentences`` the policies and the raters' quality in words (page and CLI)
"""
