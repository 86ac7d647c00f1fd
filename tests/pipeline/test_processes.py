"""A function run beside the build in a forked child (ucdcr.pipeline.processes), and the token table written that way
(write_dataset(documents_beside=True)): the same files; the child's error is the parent's one error naming the
file; an error in the parent stops the child; no staging folder is left."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.io.crash_script import built_rows, files_bytes
from tests.io.test_writer_crash import DATASET, builds  # noqa: F401 -- the module's builds fixture

from ucdcr.errors import UcdcrError, WriteError
from ucdcr.pipeline.processes import Beside, can_run_beside, run_beside
from ucdcr.pipeline.write import write_dataset

pytestmark = pytest.mark.skipif(not can_run_beside(), reason="forks only on Linux")


def test_the_child_runs_beside_and_join_waits(tmp_path: Path) -> None:
    marker = tmp_path / "done"
    beside = run_beside(lambda: (time.sleep(0.2), marker.write_text(str(os.getpid()))))
    assert not marker.exists()  # the parent went on while the child sleeps
    beside.join()
    assert int(marker.read_text()) == beside.pid != os.getpid()


def test_the_childs_error_is_raised_in_the_parent() -> None:
    def fail() -> None:
        raise WriteError("cannot write /x/all_documents.parquet: No space left on device")

    with pytest.raises(UcdcrError, match=r"^cannot write /x/all_documents\.parquet: No space left on device$"):
        run_beside(fail).join()


def test_a_child_killed_by_a_signal_is_an_error() -> None:
    with pytest.raises(UcdcrError, match="killed by signal 9"):
        run_beside(lambda: os.kill(os.getpid(), signal.SIGKILL)).join()


def test_kill_stops_the_child() -> None:
    beside = run_beside(lambda: time.sleep(60))
    started = time.monotonic()
    beside.kill()
    assert time.monotonic() - started < 5
    with pytest.raises(ChildProcessError):
        os.waitpid(beside.pid, os.WNOHANG)  # reaped


def test_token_table_beside_writes_the_same_files(builds: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811
    write_dataset(tmp_path / "beside" / DATASET, *built_rows(builds["new"]), documents_beside=True)
    write_dataset(tmp_path / "here" / DATASET, *built_rows(builds["new"]), documents_beside=False)
    assert files_bytes(tmp_path / "beside" / DATASET) == files_bytes(builds["new"])
    assert files_bytes(tmp_path / "here" / DATASET) == files_bytes(builds["new"])


def test_token_table_error_beside_is_one_error_and_keeps_the_old_build(
    builds: dict[str, Path],  # noqa: F811
    tmp_path: Path,
) -> None:
    shutil.copytree(builds["old"], tmp_path / DATASET)
    mentions, documents, report = built_rows(builds["new"])

    def failing_documents() -> object:
        yield documents[0]
        raise WriteError(f"cannot write {tmp_path}/all_documents.parquet: {os.strerror(errno.ENOSPC)}")

    with pytest.raises(UcdcrError, match=r"all_documents\.parquet: No space left on device$"):
        write_dataset(tmp_path / DATASET, mentions, failing_documents(), report, documents_beside=True)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == [DATASET]
    assert files_bytes(tmp_path / DATASET) == files_bytes(builds["old"])


def test_an_error_in_the_parent_stops_the_token_table_child(
    builds: dict[str, Path],  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, documents, report = built_rows(builds["new"])
    pids: list[int] = []

    def slow_documents() -> object:
        for batch in documents:
            time.sleep(0.5)
            yield batch

    def failing_mentions(split: str, kind: str) -> list[dict]:
        raise WriteError("cannot write the mentions")

    def remember(function: Callable[[], object]) -> Beside:
        beside = run_beside(function)
        pids.append(beside.pid)
        return beside

    monkeypatch.setattr("ucdcr.pipeline.write.run_beside", remember)
    monkeypatch.setattr("ucdcr.pipeline.write.can_run_beside", lambda: True)  # the suite may leave threads
    with pytest.raises(UcdcrError, match="cannot write the mentions"):
        write_dataset(tmp_path / DATASET, failing_mentions, slow_documents(), report, documents_beside=True)  # type: ignore[arg-type]
    assert pids
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)  # the child is gone (killed and reaped)
    assert list(tmp_path.iterdir()) == []


def test_no_fork_while_another_thread_runs() -> None:
    import threading

    from ucdcr.pipeline.processes import can_run_beside

    alone = can_run_beside() if threading.active_count() == 1 else None
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not can_run_beside()  # a lock that thread held would stay locked in a forked child
    finally:
        release.set()
        other.join()
    assert alone in (None, sys.platform.startswith("linux"))
