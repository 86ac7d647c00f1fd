"""``--executor ray``: the shipped ECB+ sample built on a local Ray (started and stopped here) is byte-identical to
the local build; without Ray the error names the ``dist`` extra."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import require_module

from ucdcr.errors import UcdcrError
from ucdcr.pipeline.build import DOCUMENTS_PER_BATCH, build_dataset
from ucdcr.pipeline.executor import Executor
from ucdcr.pipeline.ray_executor import _only_ray_errors

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "ucdcr" / "data" / "sample"


def files_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray = require_module("ray", "dist")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.mark.parametrize("window", [None, 2])
def test_ray_build_is_byte_identical_to_the_local_build(
    local_ray: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int | None
) -> None:
    local = build_dataset("ecbplus", SAMPLE, tmp_path / "local", jobs=1, progress=False)
    batches = -(-local.counts["documents"] // DOCUMENTS_PER_BATCH)
    if window is not None:  # several Ray Data windows of 2 batches (the default window holds the whole sample)
        monkeypatch.setattr("ucdcr.pipeline.ray_executor.WINDOW_BATCHES", window)
        assert batches > window
    build_dataset("ecbplus", SAMPLE, tmp_path / "ray", jobs=2, progress=False, executor="ray")
    assert local.counts["mentions_written"] > 0
    assert files_bytes(tmp_path / "ray" / "ecbplus") == files_bytes(tmp_path / "local" / "ecbplus")
    assert sorted(p.name for p in (tmp_path / "ray").iterdir()) == ["ecbplus"]  # no staging or spill left


def test_without_ray_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray.data", None)  # import ray.data raises ImportError
    with pytest.raises(UcdcrError, match=r"--executor ray needs Ray Data, which is in the `dist` extra: pip install"):
        Executor("ray", 2)


def test_unknown_executor_and_address_without_ray() -> None:
    with pytest.raises(UcdcrError, match="unknown executor 'dask'"):
        Executor("dask")
    with pytest.raises(UcdcrError, match="--ray-address needs --executor ray"):
        Executor("local", 2, "ray://head:10001")


def test_ray_notices_are_quiet_only_while_the_build_runs() -> None:
    ray_logger = logging.getLogger("ray.data")
    before = ray_logger.level
    ray_logger.setLevel(logging.INFO)
    try:
        with _only_ray_errors():
            assert ray_logger.getEffectiveLevel() == logging.ERROR
            assert logging.getLogger("ray._private.authentication").getEffectiveLevel() == logging.ERROR
        assert ray_logger.level == logging.INFO
    finally:
        ray_logger.setLevel(before)  # as the rest of the session had it
