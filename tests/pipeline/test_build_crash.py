"""Crash safety of whole builds: output checked before the input is read, a build killed during the parse (-j 2,
its pool workers die with it) or after the swap, and two builds of one dataset at once.

Builds run in subprocesses (tests/io/crash_script.py, or `python -m ucdcr build`) on the tiny ECB+ fixture
(tests/fixtures/raw/ecbplus.py). "old" is the default build, "new" the one with ``all_sentences``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.fixtures.raw.ecbplus import write_ecbplus_raw
from tests.io.crash_script import SCRIPT, child_env, files_bytes, run, run_script, visible
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.errors import UcdcrError
from ucdcr.io.output_folder import OutputFolder
from ucdcr.pipeline import build as build_module
from ucdcr.pipeline.build import build_dataset
from ucdcr.registry import get

DATASET = "ecbplus"
WORKERS_GONE_WITHIN_SECONDS = 10


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_ecbplus_raw(tmp_path_factory.mktemp("raw"))


@pytest.fixture(scope="module")
def builds(raw: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folders = {}
    for name, extra in (("old", {}), ("new", {"all_sentences": True})):
        data = tmp_path_factory.mktemp(name)
        build_dataset(DATASET, raw_dir=raw, data_dir=data, progress=False, options=extra)
        folders[name] = data / DATASET
    return folders


def never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def read(folder: Path, options: Any) -> Any:
        raise AssertionError("the input was read although the output location is unusable")

    spec = dataclasses.replace(get(DATASET), reader=read)
    monkeypatch.setattr(build_module, "get", lambda _: spec)


def test_a_data_dir_that_is_a_file_fails_before_the_input_is_read(
    raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    never_read(monkeypatch)
    data = tmp_path / "data"
    data.write_text("not a folder")
    with pytest.raises(UcdcrError, match=rf"^data dir {data} is a file, not a folder$"):
        build_dataset(DATASET, raw_dir=raw, data_dir=data, progress=False)
    result = CliRunner().invoke(app, ["build", DATASET, "--raw-dir", str(raw), "--data-dir", str(data), "-q"])
    assert result.exit_code == 2
    # the CLI's own option check (cli/common.py) rejects the file before build_dataset runs
    assert f"{data} is a file, not a folder" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_a_build_in_progress_blocks_another_before_it_reads(
    raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    never_read(monkeypatch)
    with OutputFolder(tmp_path / DATASET), pytest.raises(UcdcrError, match="is being built by another process"):
        build_dataset(DATASET, raw_dir=raw, data_dir=tmp_path, progress=False)


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped by its new parent, counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_killed_during_a_two_job_parse_workers_exit_and_the_old_build_stays(
    raw: Path, builds: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    shutil.copytree(builds["old"], data / DATASET)
    result = run_script("build", str(raw), str(data), "parse", "2", json.dumps({"all_sentences": True}))
    assert result.returncode == -signal.SIGKILL, result.stderr
    workers = json.loads((tmp_path / "workers.json").read_text())
    assert len(workers) == 2
    deadline = time.monotonic() + WORKERS_GONE_WITHIN_SECONDS
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    lingering = [pid for pid in workers if alive(pid)]
    for pid in lingering:  # do not leave them behind when the test fails
        os.kill(pid, signal.SIGKILL)
    assert lingering == []
    assert visible(data) == [DATASET] and files_bytes(data / DATASET) == files_bytes(builds["old"])

    options = {"all_sentences": True}
    build_dataset(DATASET, raw_dir=raw, data_dir=data, jobs=2, progress=False, options=options)
    assert sorted(p.name for p in data.iterdir()) == [DATASET]  # the debris of the killed build is gone
    assert files_bytes(data / DATASET) == files_bytes(builds["new"])


def test_a_build_killed_right_after_the_swap_is_complete(raw: Path, builds: dict[str, Path], tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(builds["old"], data / DATASET)
    result = run_script("build", str(raw), str(data), "after-swap", "1", json.dumps({"all_sentences": True}))
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert visible(data) == [DATASET] and files_bytes(data / DATASET) == files_bytes(builds["new"])
    build_dataset(DATASET, raw_dir=raw, data_dir=data, progress=False)
    assert sorted(p.name for p in data.iterdir()) == [DATASET]
    assert files_bytes(data / DATASET) == files_bytes(builds["old"])


def start(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(command, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def cli_build(raw: Path, data: Path) -> list[str]:
    return [sys.executable, "-m", "ucdcr", "build", DATASET, "--raw-dir", str(raw), "--data-dir", str(data), "-q"]


def lock_message(data: Path, pid: int | str) -> str:
    return (
        f"{DATASET}: not built: {data / DATASET} is being built by another process (pid {pid}, "
        f"lock file {data}/.{DATASET}.lock); wait until it ends, or stop it and build again"
    )


def test_a_second_build_while_one_runs_fails_naming_the_lock_and_the_first_completes(
    raw: Path, builds: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    ready, go = tmp_path / "ready", tmp_path / "go"
    first = start([sys.executable, str(SCRIPT), "build", str(raw), str(data), "hold-lock", "1", "{}"])
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists(), first.communicate()[1]
        second = run(cli_build(raw, data))
        assert second.returncode == 2
        assert lock_message(data, first.pid) in " ".join(second.stderr.split())
    finally:
        go.touch()
        _, errors = first.communicate(timeout=300)
    assert first.returncode == 0, errors
    assert sorted(p.name for p in data.iterdir()) == [DATASET]
    assert files_bytes(data / DATASET) == files_bytes(builds["old"])


def test_two_builds_started_together_end_defined_and_leave_one_complete_dataset(
    raw: Path, builds: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    processes = [start(cli_build(raw, data)) for _ in range(2)]
    outcomes = [(process.pid, process.communicate(timeout=300)[1], process.returncode) for process in processes]
    for pid, errors, code in outcomes:
        other = next(p for p, _, _ in outcomes if p != pid)
        assert code == 0 or (code == 2 and lock_message(data, other) in " ".join(errors.split())), errors
    assert 0 in [code for _, _, code in outcomes]
    assert sorted(p.name for p in data.iterdir()) == [DATASET]
    assert files_bytes(data / DATASET) == files_bytes(builds["old"])
