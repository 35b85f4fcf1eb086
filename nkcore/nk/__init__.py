"""The (N, K) engine: how many items (N) and ratings per item (K) to buy with a budget N x K.

Reproduces the simulation of "Forest vs Tree: The (N, K) Trade-off in Reproducible ML Evaluation"
(AAAI-26, arXiv 2508.03663) exactly as stated in ``shared/spec/forest-vs-tree-method.md``, fast
(count-based sampling, vectorised over rounds, both cores), and extends it to real multi-annotator data.

Modules (one concept each):
- ``priors``   preset priors (alpha) and parsing of a typed alpha
- ``simulate`` count-based sampling of the alternative and the null (the paper's generative model)
- ``outcomes`` the exact law of one item's (gold, A, B) counts; datasets as counts of outcome types
- ``metrics``  Accuracy, TV, Wins, KL (1e-12 convention) and smoothed KL, Jensen-Shannon, cross-entropy, macro F1
- ``pvalue``   the paper's p-value rule, Delta, CI-width, reproducibility
- ``grid``     cells, the paper's grid (282 configurations), minimal budget, best K
- ``fit``      Dirichlet-multinomial fit of a prior to real ratings, with fit quality (MAB)
- ``resample`` the same questions asked of real ratings + two models' predictions
- ``reference`` a literal, slow, response-level transcription of the spec (oracle for tests and benchmarks)
- ``frames``   DataFrame-in glue for the page and the CLI (the only module that reads ratings frames)
- ``sentences`` the plain-language sentences beside the numbers (page and CLI), the paper's claims checked
"""
