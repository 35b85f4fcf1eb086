"""The Compare page: ``controls`` (configs, mode, alpha), ``pairs`` (the verdict, the chart of paired differences,
the test of each pair), ``accuracy`` (each config's accuracy, discordance tables, the summary; a fragment),
``cases`` (results with repeats or partial scores, the case as the unit) and ``sequential`` (could we have stopped
early?)."""
