"""The Budget (N x K) page: ``controls`` (bound to the link), ``compute`` (cached engine calls, the headline
answer, the background prefetch of the other metrics), ``views`` (the verdict, heatmap / plane, best K), ``cell``
(one cell with its check by simulation), ``adaptive`` (spending ratings where raters disagree), ``crossed`` (who
rated: raters resampled as well as items; ordered labels) and ``notes`` (method, every metric's minimal budget,
the summary)."""
