"""Start-up of the `ucdcr` command stays light: the app imports a command's module only when that command runs (or
help lists them all), and the CLI modules import the heavy libraries inside the commands.

Checked in a fresh interpreter (this test process may already have imported them). ``bench/score_startup.py``
measures what this buys `ucdcr score` (docs/performance.md#start-up).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import typer
import typer.main
from typer.testing import CliRunner

import ucdcr.cli
from ucdcr.cli import common
from ucdcr.cli import stats as stats_cli
from ucdcr.cli.app import COMMANDS, app
from ucdcr.formats.conll2012 import write_conll
from ucdcr.report import tables
from ucdcr.report.paper_tables import DEFAULT_STATS_TABLES

HEAVY = ("pyarrow", "numpy", "scipy", "spacy", "matplotlib", "ucdcr.analysis", "ucdcr.scoring", "ucdcr.pipeline")
NOT_FOR_ANY = ("pydantic",)
"""What no command imports: typer 0.29 imports pydantic to convert every option (+0.09 s a call), so it is capped."""
SHARED = {"ucdcr.cli", "ucdcr.cli.app", "ucdcr.cli.common"}
"""The CLI modules every `ucdcr` call imports; a command adds its own module."""
NOT_FOR_SCORE = (
    "scipy",  # its assignment solver is loaded on its own (ucdcr.scoring.metrics.assignment_solver)
    "pyarrow",
    "pandas",
    "spacy",
    "matplotlib",
    "sklearn",
    "torch",
    "rich.table",  # only --per-document prints a table
    "rich.progress",
    "ucdcr.report",
    "ucdcr.analysis",
    "ucdcr.pipeline",
    "ucdcr.registry",
    "ucdcr.io.load",
    "ucdcr.io.atomic",  # only writing a CoNLL file needs it
    "numpy.ma",  # numpy's own percentile imports it; the intervals' percentiles are computed without
)
"""What `ucdcr score` does not need (numpy it does: the metrics are computed with it)."""


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(completed.stdout.splitlines()[-1]))


def _cli_modules(loaded: set[str]) -> list[str]:
    return sorted(name for name in loaded if name.startswith("ucdcr.cli") and name not in SHARED)


def _imported(loaded: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules of ``loaded`` that are one of ``names`` or inside one of them."""
    return sorted(module for module in loaded if any(module == n or module.startswith(n + ".") for n in names))


def test_importing_the_cli_imports_no_command_module() -> None:
    loaded = _modules_after("import ucdcr.cli.app")
    assert _cli_modules(loaded) == []
    assert sorted(name for name in HEAVY if name in loaded) == []
    assert "ucdcr.report.tables" not in loaded and "rich.table" not in loaded


def test_version_runs_without_heavy_libraries() -> None:
    loaded = _modules_after(
        "import sys\nfrom ucdcr.cli.app import app\ntry:\n    app(['--version'])\nexcept SystemExit:\n    pass"
    )
    assert _cli_modules(loaded) == []
    assert sorted(name for name in HEAVY if name in loaded) == []
    assert _imported(loaded, NOT_FOR_ANY) == []


def test_every_command_module_is_named_in_the_app() -> None:
    # COMMANDS is written out so that a command imports no other command's module: it must match the modules
    registering = {
        module.name
        for module in pkgutil.iter_modules(ucdcr.cli.__path__)
        if hasattr(importlib.import_module(f"ucdcr.cli.{module.name}"), "register")
    }
    assert set(COMMANDS.values()) == registering
    for name, module in COMMANDS.items():
        sub = typer.Typer()
        importlib.import_module(f"ucdcr.cli.{module}").register(sub)
        assert list(typer.main.get_group(sub).commands) == [name]


def test_help_lists_every_command_in_order() -> None:
    listed = CliRunner().invoke(app, ["--help"]).output.split("Commands:\n")[1].splitlines()
    assert [line.split()[0] for line in listed if line.strip()] == list(COMMANDS)
    root = typer.main.get_command(app)
    assert list(root.commands) == list(COMMANDS)  # type: ignore[attr-defined]
    assert [command.name for command in root.commands.values()] == list(COMMANDS)  # type: ignore[attr-defined]


def test_format_choices_match_the_tables() -> None:
    # written out in the CLI so that start-up does not import the tables
    assert common.FORMATS == tables.FORMATS


def _solver_case(folder: Path) -> tuple[Path, Path]:
    """A key and a response whose CEAF needs the assignment solver: 8 key and 8 response chains overlapping in a
    cycle (8! alignments, more than the scorer tries without the solver)."""
    n = 8
    key = {f"k{i}": [(2 * i, 2 * i), (2 * i + 1, 2 * i + 1)] for i in range(n)}
    response = {f"r{i}": [(2 * i + 1, 2 * i + 1), ((2 * i + 2) % (2 * n), (2 * i + 2) % (2 * n))] for i in range(n)}
    words = [["w"] * (2 * n)]
    write_conll(folder / "key.conll", [("doc", words, key)])
    write_conll(folder / "response.conll", [("doc", words, response)])
    return folder / "key.conll", folder / "response.conll"


def test_score_imports_only_what_it_uses(tmp_path: Path) -> None:
    key, response = _solver_case(tmp_path)
    code = (
        "from ucdcr.cli.app import app\n"
        f"try:\n    app(['score', {str(key)!r}, {str(response)!r}])\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "from ucdcr.scoring.metrics import assignment_solver\n"
        "assert assignment_solver.cache_info().currsize == 1  # the solver was needed\n"
    )
    loaded = _modules_after(code)
    assert "ucdcr.scoring.metrics" in loaded and "numpy" in loaded  # it did score
    assert _cli_modules(loaded) == ["ucdcr.cli.score"]
    assert _imported(loaded, NOT_FOR_SCORE + NOT_FOR_ANY) == []


def test_score_per_document_imports_the_tables_only_then(tmp_path: Path) -> None:
    key, response = _solver_case(tmp_path)
    code = (
        "from ucdcr.cli.app import app\n"
        f"try:\n    app(['score', {str(key)!r}, {str(response)!r}, '--per-document', '--resamples', '0'])\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
    )
    loaded = _modules_after(code)
    assert "ucdcr.report.tables" in loaded
    assert "numpy.random" not in loaded  # no intervals, no resampling
    assert _imported(loaded, ("scipy", "pyarrow", "ucdcr.analysis", "ucdcr.pipeline")) == []


def test_the_solver_loaded_on_its_own_is_scipys() -> None:
    # in a fresh interpreter: here scipy.optimize may be imported already, and then the package's solver is used
    code = """
import numpy as np
from ucdcr.scoring.metrics import _standalone_lsap
ours = _standalone_lsap()
assert ours is not None
from scipy.optimize import linear_sum_assignment
rng = np.random.default_rng(0)
for _ in range(300):
    matrix = rng.choice([0.0, 0.25, 0.5, 2 / 3, 1.0], size=rng.integers(1, 12, size=2))  # ties are common
    for maximize in (True, False):
        mine, theirs = ours(matrix, maximize=maximize), linear_sum_assignment(matrix, maximize=maximize)
        assert all(np.array_equal(a, b) for a, b in zip(mine, theirs, strict=True)), matrix
"""
    subprocess.run([sys.executable, "-c", code], check=True)


def test_stats_default_tables_match_the_library() -> None:
    # written out in the CLI module so that start-up does not import the analysis
    assert ",".join(DEFAULT_STATS_TABLES) == stats_cli.DEFAULT_TABLES


def test_score_on_the_readme_example_imports_no_scipy() -> None:
    # the example's CEAF components are small enough to align without scipy's solver, not even loaded on its own
    # (ucdcr.scoring.metrics.aligned_values)
    examples = Path(__file__).resolve().parent.parent / "examples"
    code = (
        "from ucdcr.cli.app import app\n"
        f"try:\n    app(['score', {str(examples / 'key.conll')!r}, {str(examples / 'response.conll')!r}])\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "from ucdcr.scoring.metrics import assignment_solver\n"
        "assert assignment_solver.cache_info().currsize == 0\n"
    )
    loaded = _modules_after(code)
    assert "ucdcr.scoring.metrics" in loaded  # it did score
    assert sorted(name for name in loaded if name.split(".")[0] == "scipy") == []
