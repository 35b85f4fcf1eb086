"""The Cost & latency page: ``controls`` (the inputs), ``compute`` (the cached table of configurations), ``views``
(what to ship, its chart and why; the numbers; latency; the adaptive rule) and ``stalls`` (rare stalls, queued
branches and the summary; a fragment)."""
