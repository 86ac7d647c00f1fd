"""Fixtures of the analysis tests: tiny dataset folders in the authors' JSON format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.fixtures.unified import write_json_dataset


@pytest.fixture
def make_dataset(tmp_path: Path):
    def _make(files: dict[tuple[str, str], list[dict[str, Any]]], name: str = "toy") -> Path:
        return write_json_dataset(tmp_path / name, files)

    return _make
