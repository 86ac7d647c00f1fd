"""Damaged and odd copies of the authors' release (issue 39, first part): `ucdcr download --release --release-dir`
and what reads an installed release, on a corpus of copies made from the embedded ECB+ sample: a split's mention
file beside its parts, overlapping parts, a browser's second download, a part with garbage, two folders of one
dataset, a copy downloaded at two commits, `--revision` with a copy, a file changed after installing, a full data
dir, an unreadable copy, a path that is not UTF-8, a release folder copied by hand, an export of a release without
texts. Each: the exit code, one clear line naming the user's file, no traceback, never exit 70, and nothing outside
what the command owns changed (a listing of the data dir before and after). Several run the CLI as a subprocess.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from tests.test_release import _release_copy
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.sources import hub
from ucdcr.sources import install as release_io
from ucdcr.sources.discover import PROVENANCE_FILE, release_path

SRC = str(Path(__file__).resolve().parents[1] / "src")
COMMIT = "0123456789abcdef0123456789abcdef01234567"
OTHER = "fedcba9876543210fedcba9876543210fedcba98"
METADATA = Path(".cache") / "huggingface" / "download"


# --- the corpus of copies ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A good copy: ``ECBplus/`` (train events in three parts) and ``NP4E/`` (the same files: a second dataset)."""
    from ucdcr.demo import sample_dir
    from ucdcr.pipeline.build import build_dataset

    data = tmp_path_factory.mktemp("built")
    build_dataset("ecbplus", sample_dir(), data, progress=False)
    copy = _release_copy(data / "ecbplus", tmp_path_factory.mktemp("base") / "uCDCR")
    shutil.rmtree(copy / "Extra")
    shutil.copytree(copy / "ECBplus", copy / "NP4E")
    return copy


@pytest.fixture
def copy(base: Path, tmp_path: Path) -> Path:
    """A fresh copy of the good copy, to damage."""
    return Path(shutil.copytree(base, tmp_path / "uCDCR"))


def records(path: Path) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text(encoding="utf-8")))


def write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps(rows), encoding="utf-8")


def with_metadata(copy: Path, folder: str, commit: str = COMMIT, only: str | None = None) -> None:
    """huggingface_hub's download metadata for every file of ``copy/folder`` (or the file ``only``)."""
    for path in sorted((copy / folder).rglob("*")):
        name = path.relative_to(copy).as_posix()
        if path.is_file() and (only is None or name == only):
            metadata = copy / METADATA / f"{name}.metadata"
            metadata.parent.mkdir(parents=True, exist_ok=True)
            metadata.write_text(f'{commit}\n"etag"\n1700000000.0\n', encoding="utf-8")


# --- how a run is judged -------------------------------------------------------------------------------------


def listing(path: Path) -> list[str] | None:
    """Every entry below ``path`` (relative, sorted; folders end with /), or None when it does not exist."""
    if not os.path.lexists(path):
        return None
    return sorted(p.relative_to(path).as_posix() + ("/" if p.is_dir() else "") for p in Path(path).rglob("*"))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": SRC}
    environment.pop("UCDCR_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "ucdcr", *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        env=environment,
        check=False,
        timeout=300,
    )


def run(*args: str) -> tuple[int, str, str]:
    """The CLI in process: (exit code, stdout, stderr)."""
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def one_line(stderr: str, *words: str, start: str = "ecbplus: not installed -- ") -> str:
    """``stderr`` is one line, starting with ``start`` and holding every one of ``words``; no traceback, no bug."""
    assert "Traceback" not in stderr and "bug in ucdcr" not in stderr, stderr
    lines = [line for line in stderr.strip().splitlines() if not line.startswith("# ")]  # CSV titles: "# ..."
    assert len(lines) == 1, stderr
    assert lines[0].startswith(start), stderr
    for word in words:
        assert word in lines[0], (word, stderr)
    return lines[0]


def install(copy: Path, data: Path, *names: str, extra: tuple[str, ...] = ()) -> tuple[int, str, str]:
    return run(
        "download", "--release", *(names or ("ecbplus",)), "--release-dir", str(copy), "--data-dir", str(data), *extra
    )


# --- 1. mention files of a split: parts, duplicates, garbage ---------------------------------------------------


def test_a_whole_file_beside_its_parts_is_refused_naming_both(copy: Path, tmp_path: Path) -> None:
    val = copy / "ECBplus" / "val"
    rows = records(val / "entity_mentions.json")
    write(val / "entity_mentions_0.json", rows[: len(rows) // 2])
    write(val / "entity_mentions_1.json", rows[len(rows) // 2 :])
    data = tmp_path / "data"
    result = cli("download", "--release", "ecbplus", "--release-dir", str(copy), "--data-dir", str(data))
    assert result.returncode == 2
    one_line(result.stderr, f"{val / 'entity_mentions.json'} and {val / 'entity_mentions_0.json'}", "twice")
    assert listing(data) is None  # the data dir this run would have created is not left behind


def test_overlapping_parts_name_both_files_and_the_mention(copy: Path, tmp_path: Path) -> None:
    train = copy / "ECBplus" / "train"
    first, second = records(train / "event_mentions_0.json"), records(train / "event_mentions_1.json")
    write(train / "event_mentions_1.json", [first[-1], *second])  # the last mention of part 0 again
    data = tmp_path / "data"
    data.mkdir()
    (data / "mine.txt").write_text("the user's\n", encoding="utf-8")
    before = listing(data)
    code, _, stderr = install(copy, data)
    assert code == 2
    one_line(
        stderr,
        str(train / "event_mentions_1.json"),
        f"mention {first[-1]['mention_id']}",
        f"also in {train / 'event_mentions_0.json'}",
    )
    assert listing(data) == before


def test_a_browsers_second_download_is_refused_naming_both(copy: Path, tmp_path: Path) -> None:
    val = copy / "ECBplus" / "val"
    shutil.copyfile(val / "event_mentions.json", val / "event_mentions (1).json")
    data = tmp_path / "data"
    result = cli("download", "--release", "ecbplus", "--release-dir", str(copy), "--data-dir", str(data))
    assert result.returncode == 2
    one_line(
        result.stderr, f"{val / 'event_mentions (1).json'} looks like a second copy of {val / 'event_mentions.json'}"
    )
    assert listing(data) is None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'[{"mention_id": "A"},\ngarbage]', "event_mentions_2.json:2: invalid JSON"),
        (b'[{"mention_id": "A"}, 3]', "event_mentions_2.json: record 1 must be a JSON object"),
        (b'[{"mention": "A"}]', "event_mentions_2.json: record 0 has no mention_id"),
        (b'{"mention_id": "A"}', "event_mentions_2.json: expected a JSON list of mention records"),
        (b"\xff\xfe[\x00]\x00", "event_mentions_2.json: the file is UTF-16 text"),
    ],
)
def test_a_damaged_part_is_named_with_its_line(copy: Path, tmp_path: Path, content: bytes, expected: str) -> None:
    (copy / "ECBplus" / "train" / "event_mentions_2.json").write_bytes(content)
    code, _, stderr = install(copy, tmp_path / "data")
    assert code == 2
    one_line(stderr, str(copy / "ECBplus" / "train" / expected))
    assert listing(tmp_path / "data") is None


def test_a_file_named_almost_like_a_part_is_refused(copy: Path, tmp_path: Path) -> None:
    stray = copy / "ECBplus" / "train" / "event_mentions_extra.json"
    write(stray, [])
    code, _, stderr = install(copy, tmp_path / "data")
    assert code == 2
    one_line(stderr, f"{stray} is not a mention file name of the release")


def test_good_parts_are_checked_and_joined(copy: Path, tmp_path: Path) -> None:
    code, _, stderr = install(copy, tmp_path / "data")
    assert code == 0 and not stderr, stderr
    installed = release_path(tmp_path / "data", "ecbplus")
    joined = records(installed / "train" / "event_mentions.json")
    parts = [records(copy / "ECBplus" / "train" / f"event_mentions_{n}.json") for n in (0, 1, 10)]
    assert joined == [row for part in parts for row in part]
    record = json.loads((installed / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert set(record["installed"]) == {p.relative_to(installed).as_posix() for p in installed.rglob("*.*")} - {
        PROVENANCE_FILE
    }
    assert "ECBplus/train/event_mentions_10.json" in record["files"]


# --- 2. two folders of one dataset ------------------------------------------------------------------------------


def test_two_folders_of_one_dataset_are_refused_naming_both(copy: Path, tmp_path: Path) -> None:
    shutil.copytree(copy / "ECBplus", copy / "ECBplus-prep")
    data = tmp_path / "data"
    result = cli("download", "--release", "all", "--release-dir", str(copy), "--data-dir", str(data))
    assert result.returncode == 2
    one_line(result.stderr, f"{copy} has 2 folders of dataset ecbplus: ECBplus/ and ECBplus-prep/")
    assert "np4e -> " in result.stdout  # the other dataset is installed
    assert listing(data / "release") is not None and [p.name for p in (data / "release").iterdir()] == ["np4e"]


# --- 3. a copy downloaded at two commits -----------------------------------------------------------------------


def test_a_mixed_copy_is_refused_unless_allowed(copy: Path, tmp_path: Path) -> None:
    with_metadata(copy, "ECBplus")
    with_metadata(copy, "ECBplus", OTHER, only="ECBplus/val/event_mentions.json")
    data = tmp_path / "data"
    code, _, stderr = install(copy, data)
    assert code == 2
    one_line(
        stderr,
        f"{copy / 'ECBplus'} is a mixed copy",
        COMMIT[:12],
        OTHER[:12],
        "ECBplus/val/event_mentions.json",
        "--allow-mixed",
    )
    assert listing(data) is None
    code, stdout, stderr = install(copy, data, extra=("--allow-mixed",))
    assert code == 0 and not stderr, stderr
    assert f"commits mixed ({COMMIT[:12]}: 10 file(s), {OTHER[:12]}: 1 file(s)" in stdout
    record = json.loads((release_path(data, "ecbplus") / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert record["commit"] is None and record["commits"][OTHER] == ["ECBplus/val/event_mentions.json"]
    assert run("datasets", "--data-dir", str(data), "--raw-dir", str(tmp_path / "raw"), "-f", "json")[0] == 0


def test_one_commit_is_read_and_files_without_metadata_are_recorded(copy: Path, tmp_path: Path) -> None:
    with_metadata(copy, "ECBplus")
    (copy / "ECBplus" / "notes.txt").write_text("added by hand\n", encoding="utf-8")
    code, stdout, _ = install(copy, tmp_path / "data")
    assert code == 0 and f"commit {COMMIT[:12]}" in stdout
    record = json.loads((release_path(tmp_path / "data", "ecbplus") / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert record["commit"] == COMMIT and record["without_metadata"] == ["ECBplus/notes.txt"]


# --- 5. --revision with a copy ---------------------------------------------------------------------------------


def test_revision_with_a_copy_is_checked_or_refused(copy: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = cli(
        "download", "--release", "ecbplus", "--release-dir", str(copy), "--data-dir", str(data), "--revision", "v1.0"
    )
    assert result.returncode == 2
    one_line(result.stderr, "--revision v1.0 cannot be checked against the local copy", str(copy), start="error: ")
    code, _, stderr = install(copy, data, extra=("--revision", COMMIT[:8]))  # no metadata: nothing to check by
    assert code == 2
    one_line(stderr, f"--revision {COMMIT[:8]} is not what {copy / 'ECBplus'} holds: its commit is unknown")
    with_metadata(copy, "ECBplus")
    code, _, stderr = install(copy, data, extra=("--revision", OTHER[:8]))
    assert code == 2
    one_line(stderr, f"its download metadata gives commit {COMMIT}")
    assert listing(data) is None
    code, stdout, _ = install(copy, data, extra=("--revision", COMMIT[:8]))
    assert code == 0 and f"commit {COMMIT[:12]}" in stdout
    record = json.loads((release_path(data, "ecbplus") / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert (record["revision"], record["commit"]) == (COMMIT[:8], COMMIT)


# --- 4. a file of an installed release changed afterwards ------------------------------------------------------


def test_a_changed_file_of_an_installed_release_is_named(copy: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert install(copy, data)[0] == 0
    installed = release_path(data, "ecbplus")
    raw = str(tmp_path / "raw")
    assert run("datasets", "--data-dir", str(data), "--raw-dir", raw, "--verify", "-f", "csv")[0] == 0
    changed = installed / "val" / "entity_mentions.json"
    content = bytearray(changed.read_bytes())
    content[100] ^= 1  # same size: only the hash tells
    changed.write_bytes(bytes(content))
    assert run("datasets", "--data-dir", str(data), "--raw-dir", raw, "-f", "csv")[0] == 0
    result = cli("datasets", "--data-dir", str(data), "--raw-dir", raw, "--verify", "-f", "csv")
    assert result.returncode == 1
    one_line(result.stderr, f"{changed}: sha256 differs", "ucdcr download --release ecbplus", start="error: ")
    assert "CHANGED: val/entity_mentions.json" in result.stdout
    (installed / "train" / "event_mentions.json").write_text("[]", encoding="utf-8")  # sizes: without --verify
    code, _, stderr = run("datasets", "--data-dir", str(data), "--raw-dir", raw, "-f", "csv")
    assert code == 1
    one_line(stderr, f"{installed / 'train' / 'event_mentions.json'}: 2 bytes", start="error: ")


def test_a_record_written_before_installed_hashes_still_checks_the_unjoined_files(copy: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert install(copy, data)[0] == 0
    installed = release_path(data, "ecbplus")
    record = json.loads((installed / PROVENANCE_FILE).read_text(encoding="utf-8"))
    del record["installed"]
    (installed / PROVENANCE_FILE).write_text(json.dumps(record), encoding="utf-8")
    assert release_io.changed_files(installed, hashes=True) == []
    (installed / "extra.txt").write_text("added\n", encoding="utf-8")
    (installed / "README.md").write_text("# Changed\n", encoding="utf-8")  # the same size
    assert release_io.changed_files(installed, hashes=True) == [
        "README.md: sha256 differs from the one recorded when it was installed",
        "extra.txt: added after the release was installed",
    ]
    assert release_io.changed_files(installed) == ["extra.txt: added after the release was installed"]


# --- 6. a full data dir ----------------------------------------------------------------------------------------


def test_a_full_data_dir_names_the_file_written_and_the_others_go_on(
    copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = release_io._write_chunk

    def full(handle: Any, data: bytes) -> None:
        if ".ecbplus.staging" in str(handle.name) and "all_mentions" in str(handle.name):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), handle.name)
        real(handle, data)

    monkeypatch.setattr(release_io, "_write_chunk", full)
    data = tmp_path / "data"
    code, stdout, stderr = install(copy, data, "all")
    assert code == 2
    target = release_path(data, "ecbplus") / "all_mentions.parquet"
    line = one_line(stderr, f"cannot write {target}: No space left on device (the disk is full)")
    assert str(copy) not in line
    assert f"np4e -> {release_path(data, 'np4e').resolve()}" in stdout
    assert [p.name for p in (data / "release").iterdir()] == ["np4e"]  # no staging folder, no lock left


def test_a_full_disk_while_the_hub_downloads_names_the_download_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    monkeypatch.setattr(hub, "require_hub", lambda: None)
    monkeypatch.setattr(
        hub,
        "_dataset_info",
        lambda repo, revision: SimpleNamespace(
            sha=COMMIT, siblings=[SimpleNamespace(rfilename="ECBplus/README.md", size=3, blob_id="x", lfs=None)]
        ),
    )

    def snapshot(repo: str, commit: str, patterns: list[str], local_dir: Path) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(local_dir / "ECBplus" / "README.md"))

    monkeypatch.setattr(hub, "_snapshot_download", snapshot)
    code, _, stderr = run("download", "--release", "ecbplus", "--data-dir", str(tmp_path / "data"))
    assert code == 2
    download = tmp_path / "data" / "release" / ".download"
    one_line(stderr, f"into {download / 'ECBplus' / 'README.md'}: No space left on device", start="error: ")


# --- 7. an unreadable copy, odd paths --------------------------------------------------------------------------


def test_an_unreadable_copy_is_one_line(copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = Path.iterdir
    locked = {copy}

    def iterdir(self: Path) -> Any:
        if self in locked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    data = tmp_path / "data"
    code, _, stderr = install(copy, data)
    assert code == 2
    one_line(stderr, f"cannot read the release copy {copy}: Permission denied", start="error: ")
    locked.clear()
    locked.add(copy / "ECBplus" / "val")  # a folder inside
    code, _, stderr = install(copy, data)
    assert code == 2
    one_line(stderr, f"cannot read the folder {copy / 'ECBplus' / 'val'}: Permission denied")
    assert listing(data) is None


def test_an_unreadable_file_of_the_copy_is_named(copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = copy / "ECBplus" / "all_documents.parquet"
    real = Path.open

    def opening(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == locked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", opening)
    code, _, stderr = install(copy, tmp_path / "data")
    assert code == 2
    one_line(stderr, f"{locked}: cannot read the file: permission denied")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="file names that are not UTF-8")
def test_a_copy_path_that_is_not_utf8_is_installed(base: Path, tmp_path: Path) -> None:
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/copie-\xe9"))
    shutil.copytree(base, odd)
    data = Path(os.fsdecode(bytes(tmp_path) + b"/donn\xe9es"))
    result = cli("download", "--release", "ecbplus", "--release-dir", os.fsdecode(odd), "--data-dir", os.fsdecode(data))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    record = json.loads((release_path(data, "ecbplus") / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert record["source"].endswith("/copie-\\xe9")
    bad = Path(os.fsdecode(bytes(odd) + b"/ECBplus/notes-\xff.txt"))
    bad.write_text("x\n", encoding="utf-8")
    before = listing(data)
    result = cli("download", "--release", "ecbplus", "--release-dir", os.fsdecode(odd), "--data-dir", os.fsdecode(data))
    assert result.returncode == 2
    one_line(result.stderr, "notes-", "a file name that is not UTF-8 text")
    assert listing(data) == before


def test_a_copy_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    missing = Path(os.fsdecode(bytes(tmp_path) + b"/nowhere-\xff"))
    code, _, stderr = run(
        "download", "--release", "ecbplus", "--release-dir", str(missing), "--data-dir", str(tmp_path / "d")
    )
    assert code == 2
    one_line(stderr, "does not exist", start="error: ")
    assert listing(tmp_path / "d") is None


# --- 8. a release folder copied by hand ------------------------------------------------------------------------


def test_a_release_folder_copied_by_hand_is_named_with_what_it_lacks(copy: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    by_hand = data / "release" / "ecbplus"
    shutil.copytree(copy / "ECBplus", by_hand)
    before = listing(data)
    for args in (
        ("stats",),
        ("stats", "--source", "release"),
        ("view", "ecbplus", "x"),
        ("stats", "--datasets", "ecbplus"),
    ):
        code, _, stderr = run(*args, "--data-dir", str(data))
        assert code == 2, (args, stderr)
        one_line(
            stderr,
            f"{by_hand} has no release.json",
            "ucdcr download --release ecbplus --release-dir DIR",
            start="error: ",
        )
    result = cli("download", "--release", "ecbplus", "--release-dir", str(copy), "--data-dir", str(data))
    assert result.returncode == 2
    one_line(result.stderr, f"{by_hand} exists and was not installed by `ucdcr download --release`")
    code, stdout, _ = run("datasets", "--data-dir", str(data), "--raw-dir", str(tmp_path / "raw"), "-f", "csv")
    assert code == 0 and "no (a folder without release.json)" in stdout
    assert listing(data) == before


# --- 9. exports of a release -----------------------------------------------------------------------------------


def test_an_export_that_fails_leaves_no_out_folder(copy: Path, tmp_path: Path) -> None:
    (copy / "ECBplus" / "all_documents.parquet").unlink()
    data = tmp_path / "data"
    assert install(copy, data)[0] == 0
    out = tmp_path / "conll"
    result = cli("export", "conll", "ecbplus@release", "--data-dir", str(data), "--out", str(out))
    assert result.returncode == 2
    one_line(result.stderr, "has no texts", start="error: ")
    assert listing(out) is None
    code, _, stderr = run("export", "corefud", "ecbplus", "--data-dir", str(data), "--out", str(out))
    assert code == 2
    one_line(stderr, "has no texts", start="error: ")
    assert listing(out) is None
    earlier = tmp_path / "earlier"  # a folder an earlier export wrote: its marker stays as it was
    earlier.mkdir()
    marker = earlier / ".ucdcr-export.json"
    marker.write_text(json.dumps({"written_by": "ucdcr export", "files": ["old.conll"]}), encoding="utf-8")
    (earlier / "old.conll").write_text("#begin document (x); part 000\n#end document\n", encoding="utf-8")
    before = listing(earlier), marker.read_bytes()
    assert run("export", "conll", "ecbplus", "--data-dir", str(data), "--out", str(earlier))[0] == 2
    assert (listing(earlier), json.loads(marker.read_bytes())["files"]) == (before[0], ["old.conll"])


def test_a_mention_outside_the_documents_names_the_dataset(copy: Path, tmp_path: Path) -> None:
    documents = pq.read_table(copy / "ECBplus" / "all_documents.parquet")
    keys = documents["topic/subtopic_name/doc"]
    dropped = keys[0].as_py()
    pq.write_table(documents.filter(pc.not_equal(keys, dropped)), copy / "ECBplus" / "all_documents.parquet")
    data = tmp_path / "data"
    assert install(copy, data)[0] == 0
    out = tmp_path / "conll"
    out.mkdir()
    code, _, stderr = run("export", "conll", "ecbplus", "--data-dir", str(data), "--out", str(out))
    assert code == 2
    installed = release_path(data, "ecbplus")
    one_line(stderr, f"{installed}: mention ", f"document {dropped!r} is not in all_documents.parquet", start="error: ")
    assert "<input>" not in stderr
    assert listing(out) == []
