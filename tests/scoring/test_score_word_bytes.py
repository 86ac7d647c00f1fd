"""`ucdcr score` (issue 20): bytes that are not UTF-8 in the word column of a key or response are accepted, as
v8.01 accepts any bytes there (words play no part in scoring), with a note; in the coreference column or a
document line they stay an error naming the line and column. API and CLI (as a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.scoring.scores import score_files

SRC = str(Path(__file__).resolve().parents[2] / "src")


def conll(word: bytes, annotation: bytes = b"(1)") -> bytes:
    return (
        b"#begin document (d1); part 000\n"
        + b"d1\t0\t0\t" + word + b"\t" + annotation + b"\n"
        + b"d1\t0\t1\tand\t-\n"
        + b"d1\t0\t2\tit\t(1)\n\n#end document\n"
    )  # fmt: skip


def score(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": SRC}
    environment.pop("UCDCR_DEBUG", None)
    command = [sys.executable, "-m", "ucdcr", "score", *args]
    return subprocess.run(command, capture_output=True, text=True, env=environment, check=False, timeout=120)


def test_a_latin1_word_scores_as_its_utf8_twin(tmp_path: Path) -> None:
    latin1, utf8 = tmp_path / "latin1.conll", tmp_path / "utf8.conll"
    latin1.write_bytes(conll("Café".encode("latin-1")))
    utf8.write_bytes(conll("Café".encode()))
    scores = score_files(latin1, utf8)
    assert scores.metrics == score_files(utf8, utf8).metrics
    assert any("latin1.conll:2: 1 token line(s) hold bytes that are not UTF-8" in note for note in scores.warnings)
    result = score(str(latin1), str(utf8))
    assert result.returncode == 0, result.stderr
    assert "CoNLL F1: 100%" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "content",
    [conll(b"Cafe", b"(1\xe9)"), conll(b"Cafe").replace(b"(d1)", b"(d\xe91)")],
    ids=["annotation", "document line"],
)
def test_a_latin1_byte_where_scoring_reads_is_an_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.conll"
    path.write_bytes(content)
    with pytest.raises(FormatError, match=r"bad.conll:\d+: not UTF-8 text: byte 0xe9 at column \d+"):
        score_files(path, path)
    result = score(str(path), str(path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ") and "not UTF-8" in result.stderr
