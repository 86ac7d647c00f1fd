"""What other systems and scripts hand to the commands (issue 56), as subprocesses with their exit codes and
messages: a path that is no regular file (a device that never ends, a named pipe nobody writes to), option values
out of range, inputs with no rows. Each is one line naming the file or the option, exit 2 (never 70, never a hang),
before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.fixtures import tiny_dataset as tiny

REPO_ROOT = Path(__file__).resolve().parent.parent
KEY = REPO_ROOT / "examples" / "key.conll"


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ucdcr", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


def _one_error_line(done: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and all(part in errors[0] for part in parts), done.stderr
    assert "Traceback" not in done.stderr and "bug in ucdcr" not in done.stderr


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    tiny.write_tiny_dataset(tmp_path / "data" / "np4e")
    return tmp_path / "data"


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_a_character_device_is_refused_not_read(data_dir: Path) -> None:
    # /dev/zero never ends: read whole it grew the process by 0.45 GB/s until memory ran out (exit 70)
    _one_error_line(_run("evaluate", "/dev/zero", "--data-dir", str(data_dir)), "/dev/zero", "character device")
    _one_error_line(_run("score", "/dev/zero", str(KEY)), "/dev/zero", "character device")


def test_a_named_pipe_is_refused_not_waited_on(data_dir: Path, fifo: Path) -> None:
    # nobody writes to the pipe: opening it blocked the command for ever
    _one_error_line(_run("evaluate", str(fifo), "--data-dir", str(data_dir), timeout=20), str(fifo), "named pipe")
    _one_error_line(_run("score", str(KEY), str(fifo), timeout=20), str(fifo), "named pipe")
    against = _run("evaluate", str(KEY), "--against", str(fifo), "--data-dir", str(data_dir), timeout=20)
    assert against.returncode == 2 and "named pipe" in against.stderr


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [
        ("evaluate", "--resamples", "1000000000"),
        ("score", "--resamples", "-1"),
        ("baseline", "--resamples", "1000000000"),
        ("benchmark", "--resamples", "1000000000"),
        ("benchmark", "--seeds", "1000000000"),
        ("benchmark", "--seeds", "0"),
        ("build", "--jobs", "1000000000"),
    ],
)
def test_an_option_out_of_range_is_one_line_before_any_work(
    data_dir: Path, tmp_path: Path, command: str, option: str, value: str
) -> None:
    # --resamples 1000000000 used to fail in the bootstrap with "Unable to allocate 149. GiB" (exit 70)
    inputs = {"evaluate": [str(KEY)], "score": [str(KEY), str(KEY)], "build": ["np4e"]}.get(command, [])
    places = [] if command == "score" else ["--data-dir", str(data_dir)]
    done = _run(command, *inputs, *places, option, value)
    assert done.returncode == 2, done.stderr
    assert option in done.stderr and ("range" in done.stderr or "<=" in done.stderr), done.stderr
    assert "Traceback" not in done.stderr


def test_the_help_gives_the_allowed_ranges() -> None:
    assert "0<=x<=100000" in _run("evaluate", "--help").stdout.replace(" ", "")
    assert "1<=x<=100" in _run("benchmark", "--help").stdout.replace(" ", "")


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        ("header.csv", "mention_id,cluster\n", "the CSV has a header and no row"),
        ("list.json", "[]\n", "the JSON holds no prediction"),
        ("object.json", "{}\n", "the JSON holds no prediction"),
        ("blank.json", " \n", "the file is empty"),
        (
            "none.conll",
            "#begin document (0/s1/d1); part 000\n0/s1/d1\t0\t0\tObama\t-\n#end document\n",
            "marks no mention",
        ),
    ],
)
def test_an_input_with_no_rows_is_named_empty(data_dir: Path, tmp_path: Path, name: str, text: str, what: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    _one_error_line(_run("evaluate", str(path), "--data-dir", str(data_dir)), str(path), "empty", what)


def test_the_python_api_refuses_absurd_resamples(data_dir: Path, tmp_path: Path) -> None:
    import ucdcr

    test = ucdcr.load("np4e", split="test", data_dir=data_dir)
    path = tmp_path / "gold.json"
    path.write_text(
        str(dict(zip(test["mention_id"].to_pylist(), test["coref_chain"].to_pylist(), strict=True))).replace("'", '"')
    )
    with pytest.raises(ValueError, match="resamples must be 0 to 100,000, not 1,000,000,000"):
        ucdcr.evaluate(path, "np4e", data_dir, resamples=10**9, references="none")


def test_an_output_folder_that_refuses_files_fails_before_any_work(data_dir: Path) -> None:
    # /proc passes the permission check and refuses the first write: `ucdcr report --out /proc/nope` computed for
    # 15 s before it failed; the folder is now tried first
    done = _run("report", "--out", "/proc/nope", "--data-dir", str(data_dir), timeout=20)
    _one_error_line(done, "/proc/nope", "refuses new files")
    assert "report:" not in done.stderr  # no step ran
