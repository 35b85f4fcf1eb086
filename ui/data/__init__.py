"""The Data page: ``upload`` (read, subset, key, kind, columns, duplicates, bins, check, store), ``flows`` (the
upload's choosers: subsets, item key, duplicates, the column mapping), ``derive`` (harness files, derived datasets,
storing / renaming / deleting), ``view`` (the chosen dataset of each kind and its summary), ``ratings`` and
``raters`` (the ratings view: ordered scale, who rated), ``stored`` (the stored list, derive from stored
predictions) and ``show`` (what the sections share: errors in place, key numbers, the per-session memo)."""
