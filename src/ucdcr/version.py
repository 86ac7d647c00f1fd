"""The package version, written only here: pyproject.toml reads it (``[tool.setuptools.dynamic]``), and every module
that records it (the build report, the HTML report) imports it from here, never from the package face :mod:`ucdcr`,
which re-exports it as ``ucdcr.__version__``. CHANGELOG.md has an entry for each version."""

from __future__ import annotations

__version__ = "0.2.0"
