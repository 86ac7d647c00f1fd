"""``--executor ray``: the shipped ECB+ sample built on a local Ray (started and stopped here) is byte-identical to
the local build; the Ray executor keeps the input order and a bounded number of items in flight; without Ray the error
names the ``dist`` extra; the executor options speak the library's language and the CLI names its flags."""

from __future__ import annotations

import logging
import operator
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from tests.conftest import require_module

from ucdcr.errors import UcdcrError
from ucdcr.pipeline.build import build_dataset, executor_for
from ucdcr.pipeline.executor import ExecutorError, ExecutorKind, ExecutorOptions
from ucdcr.pipeline.ray_executor import RayExecutor, _only_ray_errors

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


def test_ray_build_is_byte_identical_to_the_local_build(local_ray: None, tmp_path: Path) -> None:
    local = build_dataset("ecbplus", SAMPLE, tmp_path / "local", jobs=1, progress=False)
    ray_executor = executor_for(ExecutorOptions(ExecutorKind.RAY, 2))
    assert isinstance(ray_executor, RayExecutor)
    build_dataset("ecbplus", SAMPLE, tmp_path / "ray", progress=False, executor=ray_executor)
    assert local.counts["mentions_written"] > 0
    assert files_bytes(tmp_path / "ray" / "ecbplus") == files_bytes(tmp_path / "local" / "ecbplus")
    assert sorted(p.name for p in (tmp_path / "ray").iterdir()) == ["ecbplus"]  # no staging or spill left


def test_ray_map_keeps_the_order_and_a_bounded_number_in_flight(local_ray: None) -> None:
    taken: list[int] = []

    def items() -> Iterator[int]:
        for number in range(40):
            taken.append(number)
            yield number

    results = RayExecutor(2).map(partial(operator.mul, 2), items())  # importable in Ray's workers (this module is not)
    first = next(results)
    assert first == 0 and len(taken) == 2 * 2  # 2 actors x BATCHES_PER_WORKER taken before the first result
    assert [first, *results] == [2 * n for n in range(40)]


def test_without_ray_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray.util", None)  # import ray.util raises ImportError
    with pytest.raises(ExecutorError, match=r"the Ray executor needs Ray, which is in the `dist` extra: pip install"):
        RayExecutor(2)


def test_executor_options_are_checked_in_library_words() -> None:
    with pytest.raises(ExecutorError, match="unknown executor 'dask'"):
        ExecutorOptions("dask")  # type: ignore[arg-type]
    with pytest.raises(ExecutorError, match="a Ray address is an option of the Ray executor") as caught:
        ExecutorOptions(ExecutorKind.LOCAL, 2, "ray://head:10001")
    assert caught.value.option == "ray_address"
    with pytest.raises(ExecutorError, match="at least 1"):
        ExecutorOptions(jobs=0)
    assert ExecutorOptions("ray").kind is ExecutorKind.RAY  # type: ignore[arg-type]


def test_the_cli_names_its_flags() -> None:
    from ucdcr.cli.build import make_executor
    from ucdcr.cli.common import ExecutorChoice

    with pytest.raises(UcdcrError, match="--ray-address needs --executor ray"):
        make_executor(ExecutorChoice.LOCAL, 2, "ray://head:10001")
    require_module("ray", "dist")
    with pytest.raises(UcdcrError, match=r"^--ray-address: Ray address 'ray://nowhere:port' is not ray://HOST:PORT"):
        make_executor(ExecutorChoice.RAY, 2, "ray://nowhere:port")


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


# --- issue 20: an address where nothing answers, a broken install -------------------------------------------------

SRC = Path(__file__).resolve().parents[2] / "src"


def closed_port() -> int:
    """A local TCP port nobody listens on (bound, then released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_address_where_nothing_answers_fails_after_the_stated_time(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    require_module("ray", "dist")
    import time

    monkeypatch.setenv("UCDCR_RAY_CONNECT_SECONDS", "1")
    address = f"127.0.0.1:{closed_port()}"
    started = time.monotonic()
    with pytest.raises(UcdcrError, match=rf"no Ray cluster answers at {address} \(Connection refused; waited 1 s"):
        RayExecutor(2, address)
    assert 0.9 < time.monotonic() - started < 5
    assert f"waiting for the Ray cluster at {address}" in capsys.readouterr().err
    with pytest.raises(UcdcrError, match="is not ray://HOST:PORT or HOST:PORT"):
        RayExecutor(2, "ray://nowhere:port")


def test_the_cli_says_what_it_waits_for_and_gives_up(tmp_path: Path) -> None:
    import os
    import subprocess

    require_module("ray", "dist")
    address = f"ray://127.0.0.1:{closed_port()}"
    command = [sys.executable, "-m", "ucdcr", "build", "ecbplus", "--raw-dir", str(SAMPLE), "--data-dir"]
    command += [str(tmp_path / "data"), "--executor", "ray", "--ray-address", address]
    env = {**os.environ, "PYTHONPATH": str(SRC), "UCDCR_RAY_CONNECT_SECONDS": "0.5"}
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=120)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"waiting for the Ray cluster at {address} to answer")
    # the executor is made once, before any dataset is read: one error line naming the flag
    assert lines[1].startswith(f"error: --ray-address: no Ray cluster answers at {address}"), result.stderr
    assert "bug in ucdcr" not in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def test_a_broken_ray_install_names_the_extra_and_the_error(tmp_path: Path) -> None:
    import os
    import subprocess

    fake = tmp_path / "site" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise OSError("libray.so: cannot open shared object file")\n', encoding="utf-8")
    command = [sys.executable, "-m", "ucdcr", "build", "ecbplus", "--raw-dir", str(SAMPLE), "--data-dir"]
    command += [str(tmp_path / "data"), "--executor", "ray"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(SRC)])}
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "`dist` extra" in result.stderr and "OSError: libray.so: cannot open shared object file" in result.stderr
    assert "bug in ucdcr" not in result.stderr and "Traceback" not in result.stderr
