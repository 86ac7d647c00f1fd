"""The ``-j N`` pool under every start method (fork; forkserver, Python 3.14's default on Linux; spawn): results
in input order; Ctrl-C is one line without a worker's traceback; after SIGKILL of the building process its workers
are gone within a second and the build's lock is free (issue 20).

The pool itself is run under each method in a child process in its own session
(tests/pipeline/start_method_script.py pool: fast, no spaCy); a real ``ucdcr build -j 2`` through the CLI's entry
point under forkserver (start_method_script.py build; it can also interrupt or kill the build) is byte-identical
to a one-process build.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.fixtures.raw.ecbplus import write_ecbplus_raw
from tests.io.crash_script import child_env, files_bytes

from ucdcr.pipeline.build import build_dataset

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "tests.pipeline.start_method_script"
METHODS = ("fork", "forkserver", "spawn")
DATASET = "ecbplus"

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="process groups, /proc and all three start methods: Linux"
)


def _interruptible() -> None:
    """SIGINT back to its default in the child: a test run started in the background of a script inherits SIGINT
    ignored, and Python then installs no Ctrl-C handler, so the interruption this file tests would never arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """``command`` in its own session (a Ctrl-C it sends to its group stays there); output in files, not pipes: a
    lingering worker would keep a pipe open and this call waiting."""
    with open(folder / "out", "w+") as out, open(folder / "err", "w+") as err:
        result = subprocess.run(
            command,
            check=False,
            env=child_env(),
            cwd=REPO,
            stdout=out,
            stderr=err,
            text=True,
            timeout=300,
            start_new_session=True,
            preexec_fn=_interruptible,
        )
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(command, result.returncode, out.read(), err.read())


def pool(method: str, action: str, folder: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", SCRIPT, "pool", method, action, str(folder / "workers.json")]
    return run(command, folder)


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # gone (also while it vanishes: ESRCH)
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def lingering_after(pids: list[int], seconds: float) -> list[int]:
    """The pids still alive after ``seconds`` (then killed, so that a failing test leaves none behind)."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    lingering = [pid for pid in pids if alive(pid)]
    for pid in lingering:
        os.kill(pid, signal.SIGKILL)
    return lingering


@pytest.mark.parametrize("method", METHODS)
def test_the_pool_maps_in_order(method: str, tmp_path: Path) -> None:
    result = pool(method, "none", tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [i * i for i in range(40)]
    assert result.stderr == ""


@pytest.mark.parametrize("method", METHODS)
def test_ctrl_c_is_one_line_without_a_worker_traceback(method: str, tmp_path: Path) -> None:
    result = pool(method, "interrupt", tmp_path)
    assert (result.returncode, result.stderr) == (130, "interrupted\n")
    workers = json.loads((tmp_path / "workers.json").read_text())
    assert len(workers) == 2
    assert lingering_after(workers, 1.0) == []


@pytest.mark.parametrize("method", METHODS)
def test_workers_end_within_a_second_of_a_sigkill_and_hold_no_lock(method: str, tmp_path: Path) -> None:
    result = pool(method, "kill", tmp_path)
    assert result.returncode == -signal.SIGKILL, result.stderr
    workers = json.loads((tmp_path / "workers.json").read_text())
    assert len(workers) == 2
    assert lingering_after(workers, 1.0) == []
    handle = os.open(tmp_path / "data" / ".x.lock", os.O_RDWR)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nobody holds the killed process's lock any more
    finally:
        os.close(handle)


# --- a real build through the CLI, under forkserver ----------------------------------------------------------


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_ecbplus_raw(tmp_path_factory.mktemp("raw"))


def cli_build(action: str, raw: Path, data: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", SCRIPT, "build", "forkserver", action, str(data.parent / "workers.json")]
    command += ["build", DATASET, "--raw-dir", str(raw), "--data-dir", str(data), "-j", "2"]
    return run(command, data.parent)


def test_a_forkserver_build_is_the_one_process_build(raw: Path, tmp_path: Path) -> None:
    build_dataset(DATASET, raw_dir=raw, data_dir=tmp_path / "one", progress=False)
    result = cli_build("none", raw, tmp_path / "data")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "BrokenProcessPool" not in result.stderr
    assert files_bytes(tmp_path / "data" / DATASET) == files_bytes(tmp_path / "one" / DATASET)
