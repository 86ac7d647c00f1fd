"""The package version, in the lowest layer: every module that records it (the build report, the HTML report)
imports it from here, never from the package face :mod:`ucdcr`, which re-exports it as ``ucdcr.__version__``."""

from __future__ import annotations

__version__ = "0.1.0"
