"""A user's system or results file at fault: one line naming the system or file and where, the exit code, no
traceback and no "bug in ucdcr" — through the CLI (a subprocess, the module in the current folder) and the API."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.fixtures.bench_dataset import write_bench_dataset

import ucdcr
from ucdcr.errors import UcdcrError
from ucdcr.systems import SplitData, System

SRC = Path(__file__).resolve().parents[2] / "src"

MODULES = {
    "raises_on_import": "raise RuntimeError('no model file')\n",
    "exits_on_import": "import sys\nsys.exit(3)\n",
    "systems": (
        "import sys\n"
        "from ucdcr.systems import System\n\n"
        "class Plain(System):\n"
        "    name = 'plain'\n\n"
        "    def predict(self, test):\n"
        "        return {m: m for m in test.column('mention_id')}\n\n"
        "def needs_argument(threshold):\n"
        "    return Plain()\n\n"
        "class BadDescribe(Plain):\n"
        "    name = 'bad-describe'\n\n"
        "    def describe(self):\n"
        "        raise ValueError('no threshold yet')\n\n"
        "class Exits(Plain):\n"
        "    name = 'exits'\n\n"
        "    def predict(self, test):\n"
        "        sys.exit(1)\n"
    ),
}
CASES = [
    ("raises_on_import:X", "raises_on_import:X: importing the module 'raises_on_import' failed in its own code"),
    ("exits_on_import:X", "exits_on_import:X: importing the module 'exits_on_import' failed in its own code"),
    ("systems:needs_argument", "needs_argument: making the system failed in its own code (TypeError"),
    ("systems:BadDescribe", "system bad-describe failed in describe() after toy: ValueError: no threshold yet"),
    ("systems:Exits", "system exits failed in predict() on toy: SystemExit: 1 (the fault is in the system's code)"),
    (",", "no system to benchmark"),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, code in MODULES.items():
        (tmp_path / f"{name}.py").write_text(code)
    return write_bench_dataset(tmp_path / "data" / "toy")


PROGRESS = re.compile(
    r"^(\[ *(\d+m)?\d+s\] .* \(\d+/\d+ runs done(, ETA [^)]*)?\)(: done in .*|: still running .*)?|plan: .*"
    r"|  \S+: \d+ fits?, .*)$"
)


def _cli(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--data-dir", str(folder.parent), "--datasets", "toy"]
    command += ["--cache-dir", str(folder.parent.parent / "cache"), *arguments]
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    cwd = folder.parent.parent
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize(("systems", "expected"), CASES)
def test_a_faulty_system_is_one_line_naming_it(folder: Path, systems: str, expected: str) -> None:
    done = _cli(folder, "--systems", systems)
    # stderr is a pipe: the plan ("plan: ...", a line per system) and the progress lines ("[  0s] ...", one per step)
    # come first, then the one error line
    lines = [line for line in done.stderr.splitlines() if line.strip() and not PROGRESS.match(line)]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and expected in lines[0], done.stderr
    assert "Traceback" not in done.stderr and "bug in ucdcr" not in done.stderr


@pytest.mark.parametrize(
    "content",
    [
        '{"format": "ucdcr-benchmark-results/2", "runs": [{"key": 3}]}',
        '{"format": "ucdcr-benchmark-results/2", "runs": ["garbled"]}',
        '{"format": "ucdcr-benchmark-results/2", "runs": 7}',
        "[1, 2]",
        "{not json",
    ],
)
def test_a_garbled_results_file_is_one_line_naming_it(folder: Path, content: str) -> None:
    results = folder.parent.parent / "cache" / "benchmark-results.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(content)
    done = _cli(folder, "--systems", "head-lemma")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "bug in ucdcr" not in done.stderr
    assert f"{results}: not a benchmark results file" in done.stderr and "the fault is in that file" in done.stderr
    assert results.read_text() == content  # nothing rewritten


class NumpyLabels(System):
    """Cluster ids as scikit-learn gives them: NumPy integers (one cluster per head)."""

    name = "numpy-labels"

    def predict(self, test: SplitData) -> dict[str, np.int64]:
        heads = test.column("mention_head")
        codes = {head: np.int64(code) for code, head in enumerate(sorted(set(heads)))}
        return {mention_id: codes[head] for mention_id, head in zip(test.column("mention_id"), heads, strict=True)}


class SameHeadStrings(NumpyLabels):
    name = "same-head-strings"

    def predict(self, test: SplitData) -> dict[str, str]:  # type: ignore[override]
        return {key: str(value) for key, value in super().predict(test).items()}


def test_numpy_integer_cluster_ids_are_cluster_ids(folder: Path, tmp_path: Path) -> None:
    result = ucdcr.benchmark([NumpyLabels, SameHeadStrings], [folder], cache_dir=tmp_path / "c")
    means = {run.system: run.means for run in result.runs}
    assert means["numpy-labels"] == means["same-head-strings"]


def test_an_empty_selection_is_refused_in_python(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(UcdcrError, match="no system to benchmark"):
        ucdcr.benchmark([], [folder], cache_dir=tmp_path / "c")


def test_the_results_file_is_json_the_module_wrote(folder: Path, tmp_path: Path) -> None:
    ucdcr.benchmark(["head-lemma"], [folder], cache_dir=tmp_path / "c")
    data = json.loads((tmp_path / "c" / "benchmark-results.json").read_text())
    assert [run["protocol"] for run in data["runs"]] == ["ucdcr/subtopic"]
