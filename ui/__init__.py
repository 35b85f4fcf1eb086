"""The Streamlit glue: the only code besides ``app.py`` and ``pages/`` that imports streamlit.

- ``bootstrap``: page set-up, the dataset choosers, the URL-state convention, user-error display, the share link.
- ``cache``: the one place where nkcore results are cached, keyed on dataset fingerprints (sha256).
- ``charts``: the Altair theme and shared chart builders (page-specific builders live in ``charts_<topic>.py``).
- ``exports``: CSV / PNG / SVG downloads and the one-page summary of a view.

URL-state convention: every input widget that defines a view has a ``key`` and ``bind="query-params"``; the key is
the query parameter's name, prefixed with a short page tag (``cmp_``, ``pln_``, ``smp_``, ``lat_``, ``bud_``, ``dat_``).
Datasets are chosen with ``bootstrap.choose_dataset(kind)``, bound to ``?<kind>=<dataset id>`` and remembered across
page switches for the session.
"""
