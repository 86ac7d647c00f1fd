"""Exports never delete or replace what they did not write (issue 20, ucdcr.export.target).

For every format (hf, spacy, corefud, conll), through the Python API and the CLI (in process and as a subprocess):
an ``--out`` that is a folder of the user's files, a built dataset folder, a file of a dataset, the data dir or
inside the raw dir is refused with one clear line and exit code 2, and the tree around it is byte for byte as before
(hashed). What an export wrote, a later export replaces; a legal 255-byte ``--out`` name works.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.conftest import require_module
from tests.fixtures import tiny_dataset as tiny
from typer.testing import CliRunner

from ucdcr.errors import UcdcrError

require_module("datasets", "hf")
require_module("udapi", "corefud")

from ucdcr.cli.app import app  # noqa: E402
from ucdcr.export.conll import export_dataset  # noqa: E402
from ucdcr.export.corefud import export_corefud  # noqa: E402
from ucdcr.export.huggingface import export_hf  # noqa: E402
from ucdcr.export.spacy_docs import export_spacy  # noqa: E402
from ucdcr.export.target import MARKER  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"
FORMATS = ("hf", "spacy", "corefud", "conll")
API: dict[str, Callable[..., object]] = {
    "hf": export_hf,
    "spacy": export_spacy,
    "corefud": export_corefud,
    "conll": export_dataset,
}


def tree_hash(root: Path) -> dict[str, str]:
    """Every entry below ``root`` (hidden ones too): a file's sha256, a folder's kind, a link's target."""
    entries = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            path = Path(folder) / name
            entries[str(path.relative_to(root))] = "link" if path.is_symlink() else "dir"
        for name in files:
            path = Path(folder) / name
            if path.is_symlink():  # a link (maybe a loop) is its target's name, never followed
                entries[str(path.relative_to(root))] = "link to " + os.readlink(path)
            else:
                entries[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return entries


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``data/ecbplus`` (a built dataset), ``raw`` (the raw dir, env) and ``mine`` (a folder of the user's files)."""
    data = tmp_path / "data"
    folder = tiny.write_tiny_dataset(data / "ecbplus")
    (folder / "build_report.json").write_text(json.dumps({"dataset": "ecbplus", "splits": {}}), encoding="utf-8")
    (tmp_path / "raw" / "ecbplus").mkdir(parents=True)
    (tmp_path / "raw" / "ecbplus" / "ECB+.zip").write_bytes(b"raw")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("my work\n", encoding="utf-8")
    (tmp_path / "mine.spacy").write_bytes(b"not a DocBin\n")
    monkeypatch.setenv("UCDCR_DATA_DIR", str(data))
    monkeypatch.setenv("UCDCR_RAW_DIR", str(tmp_path / "raw"))
    monkeypatch.delenv("UCDCR_DEBUG", raising=False)
    return tmp_path


def bad_outs(root: Path, fmt: str) -> dict[str, tuple[Path, str]]:
    """Refused ``--out`` values: (path, what the error line says)."""
    user = (root / "mine.spacy", "not a spaCy DocBin") if fmt == "spacy" else (root / "mine", "not empty")
    dataset_file = root / "data" / "ecbplus" / ("all_mentions.parquet" if fmt == "spacy" else "train")
    return {
        "user's files": user,
        "dataset folder": (root / "data" / "ecbplus", "the data dir"),
        "file in a dataset": (dataset_file, "the data dir"),
        "data dir": (root / "data", "is the data dir"),
        "inside the raw dir": (root / "raw" / ("x.spacy" if fmt == "spacy" else "out"), "inside the raw dir"),
    }


CASES = [(fmt, case) for fmt in FORMATS for case in bad_outs(Path("/"), fmt)]


@pytest.mark.parametrize(("fmt", "case"), CASES)
def test_the_api_refuses_and_changes_nothing(world: Path, fmt: str, case: str) -> None:
    out, words = bad_outs(world, fmt)[case]
    before = tree_hash(world)
    with pytest.raises(UcdcrError, match=words) as caught:
        API[fmt]("ecbplus", out)
    assert "\n" not in str(caught.value)
    assert tree_hash(world) == before


@pytest.mark.parametrize(("fmt", "case"), CASES)
def test_the_cli_refuses_with_one_line_and_changes_nothing(world: Path, fmt: str, case: str) -> None:
    out, words = bad_outs(world, fmt)[case]
    before = tree_hash(world)
    result = CliRunner().invoke(app, ["export", fmt, "ecbplus", "--out", str(out)])
    if fmt == "spacy" and out.is_dir():
        words = "is a folder, not a file"  # the CLI's option check comes first
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], result.output
    assert tree_hash(world) == before


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_cli_as_a_subprocess_refuses_the_dataset_folder(world: Path, fmt: str) -> None:
    out = world / "data" / "ecbplus" / ("all_mentions.parquet" if fmt == "spacy" else "")
    before = tree_hash(world)
    command = [sys.executable, "-m", "ucdcr", "export", fmt, "ecbplus", "--out", str(out)]
    result = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(SRC)}, check=False
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: --out "), result.stderr
    assert "Traceback" not in result.stderr and "bug in ucdcr" not in result.stderr
    assert tree_hash(world) == before


def test_a_symlink_into_the_data_dir_is_refused_like_the_data_dir(world: Path) -> None:
    (world / "link").symlink_to(world / "data" / "ecbplus")
    before = tree_hash(world)
    with pytest.raises(UcdcrError, match="the data dir"):
        export_hf("ecbplus", world / "link")
    assert tree_hash(world) == before


@pytest.mark.parametrize("fmt", FORMATS)
def test_what_an_export_wrote_a_later_export_replaces(world: Path, fmt: str) -> None:
    out = world / "exports" / ("e.spacy" if fmt == "spacy" else "e")
    API[fmt]("ecbplus", out)
    first = tree_hash(world / "exports")
    API[fmt]("ecbplus", out)  # an export's own output: replaced, with the same content
    assert tree_hash(world / "exports") == first
    if fmt != "spacy":
        assert MARKER in os.listdir(out)


@pytest.mark.parametrize("fmt", ["conll", "corefud"])
def test_a_user_file_in_an_export_folder_is_not_replaced(world: Path, fmt: str) -> None:
    out = world / "exports"
    API[fmt]("ecbplus", out, split="train")
    name = "ecbplus_test_document.conll" if fmt == "conll" else "ecbplus_test.conllu"
    (out / name).write_text("the user's own key file\n", encoding="utf-8")
    before = tree_hash(world)
    with pytest.raises(UcdcrError, match="was not written by `ucdcr export`"):
        API[fmt]("ecbplus", out)
    assert tree_hash(world) == before


def test_an_empty_folder_is_used(world: Path) -> None:
    (world / "empty").mkdir()
    export_hf("ecbplus", world / "empty")
    assert (world / "empty" / "README.md").is_file()


@pytest.mark.parametrize("fmt", ["hf", "spacy"])
def test_a_legal_255_byte_out_name_works(world: Path, fmt: str) -> None:
    name = "é" * 100 + "x" * 55  # 255 bytes in UTF-8
    assert len(os.fsencode(name)) == 255
    out = world / name
    API[fmt]("ecbplus", out)
    assert out.exists()
    API[fmt]("ecbplus", out)  # again: the replace (staging, lock, temporary file) works as well
    assert [entry for entry in os.listdir(world) if entry.startswith(".")] == []


def test_a_user_file_added_to_an_hf_export_folder_is_not_deleted(world: Path) -> None:
    out = world / "hf"
    export_hf("ecbplus", out)
    (out / "notes.txt").write_text("the user's notes\n", encoding="utf-8")
    before = tree_hash(world)
    with pytest.raises(UcdcrError, match=r"holds notes\.txt, which `ucdcr export` did not write"):
        export_hf("ecbplus", out)
    assert tree_hash(world) == before
