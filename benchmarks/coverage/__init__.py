"""The coverage table (issue 53): every interval and test the product prints, nominal against simulated coverage or
type I error, with Monte Carlo error, over cases 15-500, repeats 1-10 and rates near 0, 0.5 and near 1.

Run ``python -m benchmarks.coverage --profile {smoke,short,long}`` (``make coverage``); it writes
``docs/coverage.md``. One module per family of rows; each exposes ``rows(profile) -> list[Row]``:

- ``proportions`` Wilson, Clopper-Pearson, McNemar, the exact paired bootstrap (exact enumerations)
- ``cases``       case-level inference with repeats (sign-flip test, case bootstrap), pass@k / pass^k, the vote curve
- ``sequential``  the anytime-valid test (type I with a look after every case) and its band (coverage at every look)
- ``ranking``     simultaneous rank intervals, could-be-best, non-inferiority at the margin
- ``nk``          the (N, K) engine: the paper's p against its stated error, reproducibility, the minimal budget
- ``judge``       the judge-corrected mean (PPI), when ``nkcore.judge`` exists
"""
