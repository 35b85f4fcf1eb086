"""The Streamlit glue: the only code besides ``app.py`` and ``pages/`` that imports streamlit.

Packages, one per page and two shared (a page script reads its widgets through its package, calls the cached
wrappers, draws and explains; it holds no flow logic of its own):
- ``ui.common``: what every page shares.
  - ``page``: page set-up (:func:`ui.common.page.setup_page`, first on every page), the note about link values that
    could not be used (:func:`ui.common.page.finish_page`, last on every page), user-error display
    (``user_errors``), the share link, and the list of pages with their icons.
  - ``datasets``: the built-in samples and stored uploads, and the sidebar chooser of each kind of dataset
    (:func:`ui.common.datasets.choose_dataset`), with the dataset id checked before any file access.
  - ``text``: the one escaping rule for user text (:func:`ui.common.text.md`). Every string that comes from a link,
    a file or a file name (dataset, config, model and label names, column names, link values, ``DataError``
    messages quoting them, and nkcore's sentences, which embed those names) is escaped with it before it reaches an
    element that parses Markdown, or is shown through one that does not (dataframes, charts, selectbox options,
    ``st.code``). The HTML summary export escapes with ``html.escape`` instead.
  - ``links``: every bound link key with its kind and widest range, checked before any widget is drawn.
  - ``cache``: the one place where nkcore results are cached, keyed on dataset fingerprints (sha256).
  - ``work``: long computations on a worker thread, once per key across sessions, and the background prefetch;
    ``progress``: their progress bar and Cancel button.
  - ``exports``: CSV / PNG / SVG downloads and the one-page summary of a view.
- ``ui.charts``: the Altair theme and shared chart helpers (the package itself), one module per page family.
- ``ui.data``, ``ui.budget``, ``ui.compare``, ``ui.sampling``, ``ui.cost``, ``ui.planner``: one package per page
  (``pages/1_Data.py`` ... ``pages/6_Planner.py``), each with its controls, cached computations, views and sections.
- ``ui.serve``: ``streamlit run`` with the heavy imports preloaded (the launcher).

URL-state convention: every input widget that defines a view has a ``key`` and ``bind="query-params"``; the key is
the query parameter's name, prefixed with a short page tag (``cmp_``, ``pln_``, ``smp_``, ``lat_``, ``bud_``, ``dat_``).

Session-state tricks, all of them (``st.session_state`` keys; those starting with ``_`` are not widgets):
- ``_nkp_url_at_start`` and ``_nkp_link_note`` (``ui.common.page``): ``setup_page`` records the link's parameters as
  they were when the run started, and keeps an ``st.empty()`` placeholder (an element, not a value) near the top of the
  page. ``finish_page`` compares the recorded link with the URL after every bound widget has read it: a parameter
  Streamlit dropped (value out of range or not an option) is reported in that placeholder, so the note appears
  under the title although it is written at the end of the script.
- ``_nkp_ds_<kind>`` and ``_nkp_chosen_<kind>`` (``ui.common.datasets``): the dataset id is kept in the URL by hand
  (``?<kind>=<id>``) rather than with ``bind="query-params"``, because a bound selectbox would put its displayed
  name in the link and the link must carry the id. The selectbox's state is set from the URL (or the session's last
  choice, ``_nkp_chosen_<kind>``) before it is drawn, and its ``on_change`` writes the id back to the URL; the last
  choice is what keeps a dataset chosen across page switches.
- ``bud_heat`` (Budget): the heatmap's click selection of the last run is copied into ``?bud_cell=BxK`` *before*
  ``setup_page``, so the link always names the cell that is shown. A link naming the metric as the CLI does
  (``?bud_metric=kl``) is rewritten to the selectbox's label and the script reruns once, because a bound widget reads
  its link value only when a run starts.
- ``dat_view`` (Data): a hand-made link may use the kind's key (``?dat_view=paired``) while the bound radio writes
  its label; the page copies a key into the widget's state before drawing it. After storing an upload, the page
  sets ``dat_view`` to the stored kind so the view below shows it.
- ``_dat_memo_read`` / ``_dat_memo_check`` (Data): the last file read and the last check of the upload are memoised
  per session (key, result, error message), so that other widgets on the page stay instant; a remembered
  ``DataError`` is raised again from its message.
- ``_dat_flash`` (Data): the outcome of a Store or Delete button callback, shown once at the top of the next run
  (callbacks run before the script, where nothing can be drawn in place).
- ``_pln_rep_full_run`` (Planner): "More cases or more repeats?" is a fragment; its switch's ``on_change`` sets this
  flag, and the fragment's run that follows reruns the whole page (``st.rerun()``), whose run draws the paired
  chooser in the sidebar (a fragment's own run cannot add it, and a chooser run inside the fragment kept the
  section's later inputs out of the link).
- ``_work_cancelled_<digest>`` (``ui.common.progress``): a Cancel pressed for one computation, so the page stops with a
  "Compute it" button instead of starting it again on the next run.
"""
