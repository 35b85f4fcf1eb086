"""The plugin imports lm_eval (installed in a separate environment, not NK Planner's): pytest must not import it."""

collect_ignore = ["plugin"]
