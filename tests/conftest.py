"""Shared test fixtures.

Real data lives in ``../shared`` beside the repo root (read-only). Under CI (``CI=true``) a missing file there is
a failure, never a skip; on a developer machine without it, integration tests skip.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("UCDCR_SHARED_DIR", REPO_ROOT.parent / "shared"))
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require(path: Path) -> Path:
    """Return ``path`` if it exists; otherwise fail under CI and skip elsewhere."""
    if path.exists():
        return path
    message = f"required real-data file is missing: {path}"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def require_module(name: str, extra: str) -> ModuleType:
    """Import ``name``, which the ``extra`` installs; the test extra carries it, so under CI a missing module is a
    failure, never a skip; elsewhere the test skips naming the extra."""
    try:
        return importlib.import_module(name)
    except ImportError:
        message = f"{name} is not installed: pip install -e '.[{extra}]'"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return require(SHARED_DIR)


@pytest.fixture(scope="session")
def raw_dir(shared_dir: Path) -> Path:
    return require(shared_dir / "raw")


@pytest.fixture(scope="session")
def reference_dir(shared_dir: Path) -> Path:
    return require(shared_dir / "reference")
