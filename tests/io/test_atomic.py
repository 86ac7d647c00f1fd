"""ucdcr.io.atomic: a written file is complete or untouched, no temporary file stays, errors name the file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ucdcr.errors import UcdcrError, WriteError
from ucdcr.io.atomic import atomic_path, write_bytes, write_errors, write_json, write_text


def entries(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_write_text_replaces_the_file_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "out" / "report.md"  # the parent folder is created
    write_text(target, "first\n")
    write_text(target, "zweite Fassung – ünïcode\r\n")
    assert target.read_bytes() == "zweite Fassung – ünïcode\r\n".encode()  # UTF-8, newlines as given
    assert entries(target.parent) == ["report.md"]


def test_write_json_and_bytes(tmp_path: Path) -> None:
    write_json(tmp_path / "a.json", {"chain": "Tür", "ids": [1, 2]})
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == '{\n "chain": "Tür",\n "ids": [\n  1,\n  2\n ]\n}\n'
    write_json(tmp_path / "b.json", {"chain": "Tür"}, indent=2, ensure_ascii=True)
    assert (tmp_path / "b.json").read_text(encoding="ascii") == json.dumps({"chain": "Tür"}, indent=2) + "\n"
    write_bytes(tmp_path / "c.bin", b"\x00\xff")
    assert (tmp_path / "c.bin").read_bytes() == b"\x00\xff"


def test_files_get_the_usual_permissions(tmp_path: Path) -> None:
    umask = os.umask(0o027)
    try:
        write_text(tmp_path / "x.txt", "x")
    finally:
        os.umask(umask)
    # the written file gets 0666 minus the umask of the moment, as open() would give it (mkstemp would give 0600)
    assert stat.S_IMODE((tmp_path / "x.txt").stat().st_mode) == 0o640


def test_a_failing_writer_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "figure.png"
    target.write_bytes(b"old")
    with pytest.raises(ValueError, match="drawing failed"), atomic_path(target) as temporary:
        temporary.write_bytes(b"half")
        raise ValueError("drawing failed")  # the writer's own error comes through unchanged
    assert target.read_bytes() == b"old"
    assert entries(tmp_path) == ["figure.png"]


def test_atomic_path_gives_a_hidden_temporary_beside_the_target(tmp_path: Path) -> None:
    target = tmp_path / "key.conll"
    with atomic_path(target) as temporary:
        assert temporary.parent == tmp_path and temporary.name.startswith(".key.conll.")
        assert not target.exists()  # nothing visible before the block ends
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write("#begin document (d); part 000\n")
    assert target.read_text(encoding="utf-8") == "#begin document (d); part 000\n"
    assert entries(tmp_path) == ["key.conll"]


def test_file_system_errors_are_one_write_error_naming_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "report"
    blocker.write_text("a file where the output folder belongs")
    with pytest.raises(WriteError, match=rf"^cannot write {blocker}/index.html: (File exists|Not a directory)$"):
        write_text(blocker / "index.html", "<html>")
    folder = tmp_path / "a folder"
    folder.mkdir()
    (folder / "old").mkdir()  # os.replace cannot put a file over a folder
    with pytest.raises(WriteError, match=rf"^cannot write {folder}/old: Is a directory$"):
        write_text(folder / "old", "x")
    assert entries(folder) == ["old"]  # the temporary file was removed
    assert issubclass(WriteError, UcdcrError)  # the CLI prints it as one line, without a traceback


def test_write_errors_names_the_path_and_keeps_other_errors(tmp_path: Path) -> None:
    no_space = r"^cannot write out.parquet: No space left on device \(the disk is full\)$"
    with pytest.raises(WriteError, match=no_space) as caught, write_errors("out.parquet"):
        raise OSError(28, "No space left on device")
    assert isinstance(caught.value.__cause__, OSError)
    with pytest.raises(WriteError, match=r"^cannot write t.parquet: broken$"), write_errors("t.parquet", RuntimeError):
        raise RuntimeError("broken")
    with pytest.raises(KeyError), write_errors("t.parquet"):
        raise KeyError("not a write error")
