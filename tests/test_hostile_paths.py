"""Hostile paths and a full disk (issue 20): a data dir whose name is not UTF-8 (legal on Linux) works; a symlink
loop and a path longer than the system allows are said as such (not "does not exist" / "File exists" / a bug);
a disk that fills up during a build is one line saying the disk is full and where. Through the Python API and the
CLI (in process and as a subprocess): one line, exit code 2, no traceback, no "bug in ucdcr", nothing changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.export.test_export_targets import tree_hash
from tests.fixtures import tiny_dataset as tiny
from tests.fixtures.raw.ecbplus import write_ecbplus_raw
from typer.testing import CliRunner

import ucdcr
from ucdcr.cli.app import app
from ucdcr.errors import UcdcrError
from ucdcr.pipeline.write import ParquetStream
from ucdcr.schema import MENTION_SCHEMA

SRC = str(Path(__file__).resolve().parents[1] / "src")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux file names and limits")


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": SRC, **(env or {})}
    environment.pop("UCDCR_DEBUG", None)
    command = [sys.executable, "-m", "ucdcr", *args]
    return subprocess.run(
        command, capture_output=True, text=True, errors="surrogateescape", env=environment, check=False, timeout=300
    )


def one_clear_line(stderr: str, words: str) -> None:
    assert "Traceback" not in stderr and "bug in ucdcr" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], stderr


# --- a data dir whose name is not UTF-8 ----------------------------------------------------------------------


def test_a_data_dir_with_a_latin1_byte_in_its_name_is_read_and_written(tmp_path: Path) -> None:
    data = Path(os.fsdecode(bytes(tmp_path) + b"/donn\xe9es"))  # "données" in Latin-1: not UTF-8
    folder = tiny.write_tiny_dataset(tmp_path / "ecbplus")  # pyarrow itself cannot write under that name
    data.mkdir()
    folder = folder.rename(data / "ecbplus")
    (folder / "build_report.json").write_text(json.dumps({"dataset": "ecbplus", "splits": {}}), encoding="utf-8")
    assert ucdcr.load("ecbplus", data_dir=data).num_rows == len(tiny.MENTIONS)
    assert ucdcr.load("ecbplus", data_dir=data, kind="documents").num_rows == len(tiny.document_rows())
    assert ucdcr.stats_tables(data_dir=data, tables=["2"])[0].rows[0]["Mentions"] == len(tiny.MENTIONS)
    result = cli("stats", "--data-dir", os.fsdecode(data), "--tables", "2", "-f", "csv")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    out = Path(os.fsdecode(bytes(tmp_path) + b"/hf-\xff"))
    result = cli("export", "hf", "ecbplus", "--data-dir", os.fsdecode(data), "--out", os.fsdecode(out))
    assert result.returncode == 0, result.stderr
    assert pq.read_table(open(out / "mentions" / "train.parquet", "rb")).num_rows > 0  # noqa: SIM115


def test_the_parquet_writer_writes_the_same_bytes_under_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    rows = tiny.mention_records()
    paths = [tmp_path / "plain.parquet", Path(os.fsdecode(bytes(tmp_path) + b"/latin\xe9.parquet"))]
    for path in paths:
        with ParquetStream(path, MENTION_SCHEMA) as stream:
            for row in rows:
                stream.write(row)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert pa.Table.from_pylist(rows, schema=MENTION_SCHEMA).equals(pq.read_table(paths[0]))


# --- a symlink loop, a path too long --------------------------------------------------------------------------


def hostile(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    (tmp_path / "loop").symlink_to("loop")
    return {
        "symlink loop": (tmp_path / "loop", "a symbolic link loop"),
        "inside a symlink loop": (tmp_path / "loop" / "data", "a symbolic link loop"),
        "name too long": (tmp_path / ("n" * 300), "longer than the system allows (a name of 300 bytes"),
        "path too long": (tmp_path.joinpath(*["p" * 200] * 25), "longer than the system allows"),
    }


CASES = ["symlink loop", "inside a symlink loop", "name too long", "path too long"]
COMMANDS = {
    "stats": ["stats"],
    "build": ["build", "ecbplus", "--raw-dir", SRC + "/ucdcr/data/sample"],
    "export conll": ["export", "conll", "ecbplus"],
    "export hf": ["export", "hf", "ecbplus", "--out", "hf-out"],
    "export spacy": ["export", "spacy", "ecbplus", "--out", "out.spacy"],
    "export corefud": ["export", "corefud", "ecbplus"],
}
EXPORTS = ("hf", "spacy", "corefud", "conll")


@pytest.mark.parametrize("case", CASES)
def test_the_api_names_the_loop_or_the_length(tmp_path: Path, case: str) -> None:
    path, words = hostile(tmp_path)[case]
    before = tree_hash(tmp_path)
    for call in (
        lambda: ucdcr.load("ecbplus", data_dir=path),
        lambda: ucdcr.load(path),
        lambda: ucdcr.stats_tables(data_dir=path),
        lambda: ucdcr.build("ecbplus", raw_dir=SRC + "/ucdcr/data/sample", data_dir=path),
    ):
        with pytest.raises(UcdcrError, match=words.replace("(", r"\(")):
            call()
    assert tree_hash(tmp_path) == before


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_cli_names_the_loop_or_the_length(tmp_path: Path, case: str, command: str) -> None:
    path, words = hostile(tmp_path)[case]
    before = tree_hash(tmp_path)
    result = CliRunner().invoke(app, [*COMMANDS[command], "--data-dir", str(path)])
    assert result.exit_code == 2, result.output
    one_clear_line(result.output, words)
    assert tree_hash(tmp_path) == before


def test_the_cli_as_a_subprocess_names_the_loop_and_the_length(tmp_path: Path) -> None:
    cases = hostile(tmp_path)
    before = tree_hash(tmp_path)
    for case in ("inside a symlink loop", "name too long"):
        path, words = cases[case]
        result = cli("export", "hf", "ecbplus", "--out", str(tmp_path / "hf"), "--data-dir", str(path))
        assert result.returncode == 2, result.stderr
        one_clear_line(result.stderr, words)
        result = cli("export", "spacy", "ecbplus", "--out", str(path / "x.spacy"))
        assert result.returncode == 2, result.stderr
        one_clear_line(result.stderr, words)
    assert tree_hash(tmp_path) == before


# --- a full disk during a build -------------------------------------------------------------------------------

FULL_DISK = """
import errno, pathlib, sys
DATA = sys.argv[1]
_open = pathlib.Path.open


class Full:
    '''A file on a full disk: every write fails as the kernel fails it.'''

    def __init__(self, handle):
        self._handle = handle

    def write(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()


def open_on_a_full_disk(self, mode="r", *args, **kwargs):
    handle = _open(self, mode, *args, **kwargs)
    return Full(handle) if str(self).startswith(DATA) and set(mode) & set("wa+") else handle


pathlib.Path.open = open_on_a_full_disk
sys.argv = ["ucdcr", *sys.argv[2:]]
from ucdcr.cli.app import main
main()
"""


def test_a_full_disk_during_a_build_says_so_and_where(tmp_path: Path) -> None:
    raw = write_ecbplus_raw(tmp_path / "raw")
    data = tmp_path / "data"
    environment = {**os.environ, "PYTHONPATH": SRC}
    environment.pop("UCDCR_DEBUG", None)
    command = [sys.executable, "-c", FULL_DISK, str(data), "build", "ecbplus", "--raw-dir", str(raw)]
    command += ["--data-dir", str(data)]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, check=False, timeout=300)
    assert "Traceback" not in result.stderr and "bug in ucdcr" not in result.stderr, result.stderr
    assert result.returncode != 0
    assert f"ecbplus: not built: cannot write {data}/." in result.stderr, result.stderr
    assert "No space left on device (the disk is full)" in result.stderr
    assert [p.name for p in data.iterdir() if not p.name.startswith(".")] == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fmt", EXPORTS)
def test_every_export_names_a_hostile_out(tmp_path: Path, case: str, fmt: str) -> None:
    from ucdcr.export.conll import export_dataset
    from ucdcr.export.corefud import export_corefud
    from ucdcr.export.huggingface import export_hf
    from ucdcr.export.spacy_docs import export_spacy

    dataset = tiny.write_tiny_dataset(tmp_path / "data" / "ecbplus")
    (dataset / "build_report.json").write_text(json.dumps({"dataset": "ecbplus", "splits": {}}), encoding="utf-8")
    path, words = hostile(tmp_path)[case]
    out = path / "out.spacy" if fmt == "spacy" else path
    before = tree_hash(tmp_path)
    export = {"hf": export_hf, "spacy": export_spacy, "corefud": export_corefud, "conll": export_dataset}[fmt]
    with pytest.raises(UcdcrError, match=words.replace("(", r"\(")):
        export(dataset, out)
    result = CliRunner().invoke(app, ["export", fmt, str(dataset), "--out", str(out)])
    assert result.exit_code == 2, result.output
    one_clear_line(result.output, words)
    assert tree_hash(tmp_path) == before
