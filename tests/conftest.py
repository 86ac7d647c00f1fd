"""Shared test fixtures.

Real data lives in ``../shared`` beside the repo root (read-only). Under CI (``CI=true``) a missing file there is
a failure, never a skip; on a developer machine without it, integration tests skip.

Tiny datasets and raw folders written by the tests come from ``tests/fixtures`` (see its ``__init__``). Tests write
only to temporary folders: the Hugging Face caches (``HF_HOME``, ``HF_DATASETS_CACHE``, which ``datasets`` reads when
it is first imported, so they are set here, before any test module is collected) point into a temporary folder
removed at the end of the session; child processes inherit them.
"""

from __future__ import annotations

import atexit
import importlib
import os
import shutil
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("UCDCR_SHARED_DIR", REPO_ROOT.parent / "shared"))
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

_HF_HOME = tempfile.mkdtemp(prefix="ucdcr-tests-hf-")
atexit.register(shutil.rmtree, _HF_HOME, ignore_errors=True)
os.environ["HF_HOME"] = _HF_HOME
os.environ["HF_DATASETS_CACHE"] = os.path.join(_HF_HOME, "datasets")


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
    failure, never a skip; elsewhere the test (or, called at module level, the whole module) skips naming the extra,
    as ``pytest.importorskip`` does."""
    try:
        return importlib.import_module(name)
    except ImportError:
        message = f"{name} is not installed: pip install -e '.[{extra}]'"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message, allow_module_level=True)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return require(SHARED_DIR)


@pytest.fixture(scope="session")
def raw_dir(shared_dir: Path) -> Path:
    return require(shared_dir / "raw")


@pytest.fixture(scope="session")
def reference_dir(shared_dir: Path) -> Path:
    return require(shared_dir / "reference")
