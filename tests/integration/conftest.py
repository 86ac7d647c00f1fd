"""Session-scoped builds of the real datasets: each dataset is built at most once per test run.

Use the ``built`` fixture: ``built("ecbplus")`` returns the folder of the built dataset (``<data-dir>/ecbplus``)
and its build report is ``built.report("ecbplus")``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


class _Builds:
    def __init__(self, raw_dir: Path, data_dir: Path) -> None:
        self.raw_dir, self.data_dir = raw_dir, data_dir
        self._reports: dict[str, Any] = {}

    def __call__(self, dataset_id: str) -> Path:
        if dataset_id not in self._reports:
            from ucdcr.pipeline.build import build_dataset

            self._reports[dataset_id] = build_dataset(
                dataset_id, raw_dir=self.raw_dir, data_dir=self.data_dir, jobs=2, progress=False
            )
        return self.data_dir / dataset_id

    def report(self, dataset_id: str) -> Any:
        self(dataset_id)
        return self._reports[dataset_id]


@pytest.fixture(scope="session")
def built(raw_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> _Builds:
    return _Builds(raw_dir, tmp_path_factory.mktemp("ucdcr-data"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)
