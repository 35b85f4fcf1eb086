"""Imported by Python at start-up when this folder is on PYTHONPATH: registers the nk-fake model with lm-eval."""

import nk_fake_lm  # noqa: F401
