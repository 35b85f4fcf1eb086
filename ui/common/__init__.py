"""What every page shares: ``page`` (set-up, sidebar, link notes, user errors, share link), ``datasets`` (the
dataset choosers), ``text`` (user text shown literally), ``links`` (the table of bound link keys), ``cache`` (the
one cache of nkcore calls), ``work`` (long computations once per key, background prefetch), ``progress`` (their
progress bar and Cancel button) and ``exports`` (downloads and the one-page summary)."""
