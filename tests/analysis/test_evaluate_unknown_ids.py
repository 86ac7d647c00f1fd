"""`evaluate` (issue 20): a prediction id that is a mention of no dataset (a typo in a system's output) is an error
naming it; ids of other datasets or splits of the data dir stay a note. API, CLI in process and as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.fixtures.unified import mention, write_json_dataset
from typer.testing import CliRunner

import ucdcr
from ucdcr.cli.app import app
from ucdcr.errors import FormatError

SRC = str(Path(__file__).resolve().parents[2] / "src")
COMPLETE = {f"m{i}": "A" if i < 4 else "B" for i in range(1, 6)}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    events = [mention("A", ["attack"], mention_id=f"m{i}") for i in range(1, 4)]
    events += [mention("B", ["strike"], mention_id=f"m{i}") for i in (4, 5)]
    val = [mention("V", ["raid"], mention_id="v1", split="val"), mention("V", ["raid"], mention_id="v2", split="val")]
    write_json_dataset(tmp_path / "data" / "toy", {("test", "event"): events, ("val", "event"): val})
    write_json_dataset(tmp_path / "data" / "other", {("test", "entity"): [mention("Z", ["x"], mention_id="z1")] * 2})
    return tmp_path / "data"


def predictions(tmp_path: Path, labels: dict[str, str]) -> Path:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(labels), encoding="utf-8")
    return path


def test_a_typo_is_an_error_naming_it(data: Path, tmp_path: Path) -> None:
    path = predictions(tmp_path, {**COMPLETE, "m_5": "B", "v1": "V"})
    with pytest.raises(FormatError, match=rf"{path}: 1 prediction\(s\) name no mention of any dataset in {data}: m_5"):
        ucdcr.evaluate(path, datasets="toy", data_dir=data)
    result = CliRunner().invoke(app, ["evaluate", str(path), "--data-dir", str(data), "--datasets", "toy"])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "m_5" in result.output, result.output
    environment = {**os.environ, "PYTHONPATH": SRC}
    environment.pop("UCDCR_DEBUG", None)
    command = [sys.executable, "-m", "ucdcr", "evaluate", str(path), "--data-dir", str(data), "--datasets", "toy"]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and "bug in ucdcr" not in done.stderr


def test_ids_of_other_splits_and_datasets_stay_a_note(data: Path, tmp_path: Path) -> None:
    path = predictions(tmp_path, {**COMPLETE, "v1": "V", "z1": "Z"})
    tables = ucdcr.evaluate(path, datasets="toy", data_dir=data)
    assert tables[0].notes[0] == (
        "2 prediction(s) are not for test mentions of the selected datasets (toy) and were ignored "
        "(other datasets or splits), e.g. v1, z1"
    )
