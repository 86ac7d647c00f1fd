"""Crash safety of the dataset writer (ucdcr.pipeline.write, ucdcr.io.output_folder).

A writer process (tests/io/crash_script.py) is SIGKILLed at each stage of writing a dataset over a previous build.
Two real builds of the tiny ECB+ fixture (tests/fixtures/raw/ecbplus.py) are the "old" and the "new" folder: the
default build and the one with ``all_sentences`` (one more mention, another report), so the outcome of every kill
is identified exactly. After each kill: ``<data>/ecbplus`` is the old or the new folder, byte for byte, and every
other entry is hidden; reserving the folder again (what the next build does first) removes that debris and leaves
the dataset as it was; a new write then succeeds.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.fixtures.raw.ecbplus import write_ecbplus_raw
from tests.io.crash_script import built_rows, files_bytes, run_script, visible

from ucdcr.errors import UcdcrError
from ucdcr.io import output_folder
from ucdcr.io.output_folder import OutputFolder
from ucdcr.pipeline.build import build_dataset
from ucdcr.pipeline.write import write_dataset

DATASET = "ecbplus"


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    raw = write_ecbplus_raw(tmp_path_factory.mktemp("raw"))
    folders = {}
    for name, extra in (("old", {}), ("new", {"all_sentences": True})):
        data = tmp_path_factory.mktemp(name)
        build_dataset(DATASET, raw_dir=raw, data_dir=data, progress=False, options=extra)
        folders[name] = data / DATASET
    assert files_bytes(folders["old"]) != files_bytes(folders["new"])
    return folders


# stage -> (previous build present, what <data>/ecbplus is after the kill, the hidden folders left besides the lock)
STAGES = {
    "staging-created": (True, "old", ["staging"]),
    "mid-json": (True, "old", ["staging"]),  # holds a half-written JSON file
    "mid-parquet": (True, "old", ["staging"]),  # holds a half-written parquet file
    "files-written": (True, "old", ["staging"]),
    "before-swap": (True, "old", ["staging"]),
    "after-swap": (True, "new", ["staging"]),  # the staging name now holds the old build
    "removing-old": (True, "new", ["staging"]),  # ... partly removed
    "first-rename": (False, None, ["staging"]),  # first build of the dataset, killed just before its folder appears
    "fallback-between-renames": (True, None, ["retired", "staging"]),  # two-rename swap: the old build is retired
    "fallback-after-renames": (True, "new", ["retired"]),
}


def debris_kinds(data: Path) -> list[str]:
    return sorted(p.name.split(".")[2].split("-")[0] for p in data.iterdir() if p.name.startswith(f".{DATASET}."))


@pytest.mark.parametrize("stage", STAGES)
def test_kill_at_each_stage_leaves_old_or_new_and_only_hidden_debris(
    stage: str, builds: dict[str, Path], tmp_path: Path
) -> None:
    previous, outcome, debris = STAGES[stage]
    data = tmp_path / "data"
    data.mkdir()
    if previous:
        shutil.copytree(builds["old"], data / DATASET)
    result = run_script("write", str(builds["new"]), str(data / DATASET), stage)
    assert result.returncode == -signal.SIGKILL, result.stderr  # killed at the stage, not finished or failed
    assert debris_kinds(data) == sorted(["lock", *debris])  # the killed writer held the lock; the kernel freed it
    if outcome is None:
        assert visible(data) == []
    else:
        assert visible(data) == [DATASET]
        assert files_bytes(data / DATASET) == files_bytes(builds[outcome])

    with OutputFolder(data / DATASET):  # what the next build does first
        assert sorted(p.name for p in data.iterdir() if p.name.startswith(".")) == [
            f".{DATASET}.lock",
            next(p.name for p in data.iterdir() if p.name.startswith(f".{DATASET}.staging-")),
        ]
    if stage == "fallback-between-renames":
        outcome = "old"  # the retired previous build was put back
    assert sorted(p.name for p in data.iterdir()) == ([DATASET] if outcome else [])
    if outcome:
        assert files_bytes(data / DATASET) == files_bytes(builds[outcome])

    write_dataset(data / DATASET, *built_rows(builds["new"]))
    assert sorted(p.name for p in data.iterdir()) == [DATASET]
    assert files_bytes(data / DATASET) == files_bytes(builds["new"])


@pytest.mark.parametrize("stage", ["complete", "fallback-complete"])
def test_a_complete_write_in_another_process_is_the_build(stage: str, builds: dict[str, Path], tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copytree(builds["old"], data / DATASET)
    result = run_script("write", str(builds["new"]), str(data / DATASET), stage)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in data.iterdir()) == [DATASET]
    assert files_bytes(data / DATASET) == files_bytes(builds["new"])


def test_second_writer_of_the_same_folder_fails_naming_the_lock_and_holder(tmp_path: Path) -> None:
    with OutputFolder(tmp_path / DATASET):
        lock = tmp_path / f".{DATASET}.lock"
        assert lock.read_text() == f"{os.getpid()}\n"
        with pytest.raises(UcdcrError) as caught:
            OutputFolder(tmp_path / DATASET).__enter__()
        assert str(caught.value) == (
            f"{tmp_path / DATASET} is being built by another process (pid {os.getpid()}, lock file {lock}); "
            "wait until it ends, or stop it and build again"
        )
        with OutputFolder(tmp_path / "other"):  # another dataset is not blocked
            pass
    assert list(tmp_path.iterdir()) == []  # lock file and staging folder gone
    with OutputFolder(tmp_path / DATASET):  # free again
        pass


@pytest.mark.parametrize(("umask", "folder_mode", "file_mode"), [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640)])
def test_permissions_follow_the_umask(
    umask: int, folder_mode: int, file_mode: int, builds: dict[str, Path], tmp_path: Path
) -> None:
    previous = os.umask(umask)
    try:
        write_dataset(tmp_path / DATASET, *built_rows(builds["new"]))
    finally:
        os.umask(previous)
    entries = [tmp_path / DATASET, *(tmp_path / DATASET).rglob("*")]
    modes = {p.relative_to(tmp_path).as_posix(): p.stat().st_mode & 0o777 for p in entries}
    assert len(modes) == 1 + 3 + 6 + 3  # the folder, 3 split folders, 6 JSON files, 2 parquet files and the report
    assert modes == {name: folder_mode if (tmp_path / name).is_dir() else file_mode for name in modes}


def test_write_error_names_the_file_removes_staging_and_keeps_the_old_build(
    builds: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(builds["old"], tmp_path / DATASET)

    def disk_full(self: object, table: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("ucdcr.pipeline.write.pq.ParquetWriter.write_table", disk_full)
    with pytest.raises(
        UcdcrError, match=r"^cannot write .*/\.ecbplus\.staging-\d+-\w+/all_mentions\.parquet: No space"
    ):
        write_dataset(tmp_path / DATASET, *built_rows(builds["new"]))
    assert sorted(p.name for p in tmp_path.iterdir()) == [DATASET]
    assert files_bytes(tmp_path / DATASET) == files_bytes(builds["old"])


def limit_file_size(size: int) -> Callable[[], None]:
    """preexec: files may not grow beyond ``size`` bytes (a full disk for this process); EFBIG instead of SIGXFSZ."""

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


@pytest.mark.parametrize("failing", ["train/entity_mentions.json", "all_mentions.parquet"])
def test_a_real_write_failure_from_python_or_pyarrow_is_one_error(
    failing: str, builds: dict[str, Path], tmp_path: Path
) -> None:
    sizes = {name: len(content) for name, content in files_bytes(builds["new"]).items()}
    smaller = [size for name, size in sizes.items() if size < sizes[failing]]
    limit = max(smaller) + 1 if failing.endswith(".parquet") else sizes[failing] - 1
    data = tmp_path / "data"
    shutil.copytree(builds["old"], data / DATASET)
    result = run_script("write", str(builds["new"]), str(data / DATASET), "complete", preexec_fn=limit_file_size(limit))
    assert result.returncode == 1
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith(f"ucdcr.errors.WriteError: cannot write {data}/.{DATASET}.staging-")
    assert f"/{failing}: " in last_line and last_line.endswith("File too large")  # pyarrow adds its own words
    assert sorted(p.name for p in data.iterdir()) == [DATASET]
    assert files_bytes(data / DATASET) == files_bytes(builds["old"])


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary folder an unprivileged user can reach (pytest's tmp_path is private to its user)."""
    folder = Path(tempfile.mkdtemp(prefix="ucdcr-perm-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    shutil.rmtree(folder)


def reserve_unprivileged(path: Path) -> str:
    """The error of reserving ``path`` as a user without write permission there ("" if none).

    As root (permission bits do not apply) a forked child drops to uid/gid 65534 first; the child needs no exec,
    so it can use this interpreter and the ucdcr already imported.
    """
    if os.geteuid() != 0:
        try:
            OutputFolder(path).__enter__()
        except UcdcrError as exc:
            return str(exc)
        return ""
    reader, writer_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        message = b""
        try:
            os.setgid(65534)
            os.setuid(65534)
            OutputFolder(path).__enter__()
        except UcdcrError as exc:
            message = str(exc).encode()
        except BaseException as exc:
            message = f"unexpected {exc!r}".encode()
        os.write(writer_end, message)
        os._exit(0)
    os.close(writer_end)
    with os.fdopen(reader, "rb") as pipe:
        message = pipe.read().decode()
    os.waitpid(pid, 0)
    return message


def test_unwritable_and_uncreatable_data_dir_are_one_error_each(shared_tmp: Path) -> None:
    read_only = shared_tmp / "read-only"
    read_only.mkdir(mode=0o555)
    read_only.chmod(0o555)
    assert reserve_unprivileged(read_only / DATASET) == (
        f"data dir {read_only} is not writable: Permission denied ({read_only}/.{DATASET}.lock)"
    )
    assert reserve_unprivileged(read_only / "data" / DATASET) == (
        f"cannot create the data dir {read_only / 'data'}: Permission denied"
    )
    assert list(read_only.iterdir()) == []


def test_data_dir_that_is_a_file_and_dataset_path_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(UcdcrError, match=rf"^data dir {tmp_path}/file is a file, not a folder$"):
        OutputFolder(tmp_path / "file" / DATASET).__enter__()
    with pytest.raises(
        UcdcrError, match=rf"^cannot create the data dir {tmp_path}/file/data: {tmp_path}/file is a file$"
    ):
        OutputFolder(tmp_path / "file" / "data" / DATASET).__enter__()
    (tmp_path / DATASET).write_text("x")
    with pytest.raises(UcdcrError, match=rf"^{tmp_path}/{DATASET} exists and is not a folder; move it away"):
        OutputFolder(tmp_path / DATASET).__enter__()
    assert sorted(p.name for p in tmp_path.iterdir()) == [DATASET, "file"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is a Linux call")
def test_the_atomic_exchange_works_here(tmp_path: Path) -> None:
    """renameat2(RENAME_EXCHANGE) exists since Linux 3.15 / glibc 2.28; ext4, tmpfs, xfs and btrfs support it."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "one").write_text("1")
    assert output_folder.exchange(first, second) is True
    assert [p.name for p in second.iterdir()] == ["one"] and list(first.iterdir()) == []
    with pytest.raises(FileNotFoundError):
        output_folder.exchange(first, tmp_path / "missing")
