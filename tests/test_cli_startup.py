"""Start-up of the `ucdcr` command stays light: the CLI modules import the heavy libraries inside the commands.

Checked in a fresh interpreter (this test process may already have imported them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ucdcr.cli import stats as stats_cli
from ucdcr.report.paper_tables import DEFAULT_STATS_TABLES

HEAVY = ("pyarrow", "numpy", "scipy", "spacy", "matplotlib", "ucdcr.analysis", "ucdcr.scoring", "ucdcr.pipeline")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(completed.stdout.splitlines()[-1]))


def test_importing_the_cli_imports_no_heavy_library() -> None:
    loaded = _modules_after("import ucdcr.cli.app")
    assert "ucdcr.cli.stats" in loaded and "ucdcr.cli.baseline" in loaded  # every command module was imported
    assert sorted(name for name in HEAVY if name in loaded) == []


def test_version_runs_without_heavy_libraries() -> None:
    loaded = _modules_after(
        "import sys\nfrom ucdcr.cli.app import app\ntry:\n    app(['--version'])\nexcept SystemExit:\n    pass"
    )
    assert sorted(name for name in HEAVY if name in loaded) == []


def test_stats_default_tables_match_the_library() -> None:
    # written out in the CLI module so that start-up does not import the analysis
    assert ",".join(DEFAULT_STATS_TABLES) == stats_cli.DEFAULT_TABLES


def test_score_on_the_readme_example_imports_no_scipy() -> None:
    # scipy's assignment solver costs about a second of start-up; the example's CEAF components are small enough
    # to align without it (ucdcr.scoring.metrics.aligned_values)
    examples = Path(__file__).resolve().parent.parent / "examples"
    code = (
        "from ucdcr.cli.app import app\n"
        f"try:\n    app(['score', {str(examples / 'key.conll')!r}, {str(examples / 'response.conll')!r}])\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
    )
    loaded = _modules_after(code)
    assert "ucdcr.scoring.metrics" in loaded  # it did score
    assert sorted(name for name in loaded if name.split(".")[0] == "scipy") == []
