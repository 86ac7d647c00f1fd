"""The built-in systems are one registry line each (ucdcr.systems.framework.names.BUILTIN): every System of the
reference package that has a name is registered under it, every registered name is in `ucdcr benchmark --help`, and
the framework imports neither a reference system nor a part of one."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

import ucdcr.systems.framework
import ucdcr.systems.reference
from ucdcr.cli.app import app
from ucdcr.systems import System
from ucdcr.systems.framework.names import BUILTIN, default_systems, resolve_system, system_names


def _reference_systems() -> dict[str, str]:
    """Every System subclass with a ``name`` defined in a module of ucdcr.systems.reference: name -> module:qualname
    (a name given by two classes is a failure here)."""
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(ucdcr.systems.reference.__path__):
        module = importlib.import_module(f"ucdcr.systems.reference.{info.name}")
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, System) and value.__module__ == module.__name__ and value.name:
                target = f"{value.__module__}:{value.__qualname__}"
                assert found.setdefault(value.name, target) == target, f"two classes named {value.name!r}"
    return found


def test_every_named_reference_system_is_registered_under_its_name() -> None:
    systems = _reference_systems()
    assert {"head-lemma", "ensemble", "cross-encoder-3", "ensemble-3"} <= set(systems)
    assert {name: BUILTIN[name].target for name in BUILTIN} == systems
    assert system_names()[: len(BUILTIN)] == list(BUILTIN)


def test_every_registered_system_resolves_to_itself_with_the_extra_it_declares() -> None:
    for name, builtin in BUILTIN.items():
        spec = resolve_system(name)
        assert (spec.name, spec.origin) == (name, builtin.target)
        assert spec.needs_encoder == (builtin.extra == "embed"), name


def test_the_default_run_leaves_out_the_opt_in_systems() -> None:
    assert default_systems() == [
        "head-lemma",
        "lemma-baseline",
        "lemma-pairs",
        "lh",
        "embedding",
        "pairwise",
        "cross-encoder",
        "ensemble",
    ]
    assert [name for name in BUILTIN if name not in default_systems()] == [
        "lh-ce",
        "knn-ce",
        "cross-encoder-3",
        "ensemble-3",
    ]


def test_benchmark_help_names_every_registered_system() -> None:
    result = CliRunner().invoke(app, ["benchmark", "--help"], terminal_width=1000, max_content_width=1000)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for name, builtin in BUILTIN.items():
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), name
        if builtin.extra:
            assert re.search(rf"{re.escape(name)}[^.]*`{builtin.extra}`", text), name
    assert "(the default) and the opt-in lh-ce, knn-ce, cross-encoder-3 and ensemble-3" in text


def test_the_registry_and_the_benchmark_command_import_no_system() -> None:
    # the CLI builds its help from the registry: that must not import a system or the interface's libraries
    probe = "import json, sys\nimport ucdcr.cli.benchmark\nprint(json.dumps(sorted(sys.modules)))"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = json.loads(completed.stdout)
    heavy = ("pyarrow", "numpy", "ucdcr.systems.reference", "ucdcr.systems.parts", "ucdcr.systems.framework.base")
    assert [module for module in loaded if module.startswith(heavy)] == []


def test_the_framework_imports_no_reference_system_and_no_part() -> None:
    imported: dict[str, set[str]] = {}
    for path in sorted(Path(ucdcr.systems.framework.__path__[0]).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.setdefault(path.name, set()).update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path.name}: a relative import"  # every import names its module whole
                imported.setdefault(path.name, set()).add(node.module or "")
    above = ("ucdcr.systems.reference", "ucdcr.systems.parts")
    assert {name: sorted(m for m in modules if m.startswith(above)) for name, modules in imported.items()} == {
        name: [] for name in imported
    }
