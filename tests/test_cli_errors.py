"""How `ucdcr` tells what went wrong: the last-resort handler, Ctrl-C, UcdcrError, usage errors, --help, folder options.

The last-resort handler is exercised on the real entry point in a subprocess: the snippet makes one library function
raise, then calls ``ucdcr.cli.app.main()`` as the console script does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.cli.common import EXIT_BUG, issue_tracker, raised_at

SRC = str(Path(__file__).resolve().parents[1] / "src")


def run_main(patch: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``main()`` with ``args`` after ``patch`` (Python code) in a fresh interpreter."""
    code = textwrap.dedent(
        """
        import sys
        import ucdcr.cli.app as a
        {patch}
        sys.argv = ["ucdcr", *sys.argv[1:]]
        a.main()
        """
    ).format(patch=textwrap.dedent(patch))
    environment = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    environment.pop("UCDCR_DEBUG", None)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", code, *args], check=False, capture_output=True, text=True, env=environment, timeout=120
    )


# discover_datasets is what `ucdcr stats` calls first; here it fails like a bug would
BOOM = """
import ucdcr.sources.discover
def boom(*args, **kwargs):
    raise ValueError("boom [/x] in\\ntwo lines")
ucdcr.sources.discover.discover_datasets = boom
"""


def test_unexpected_exception_is_one_line_plus_where_to_report(tmp_path: Path) -> None:
    result = run_main(BOOM, "stats", "--data-dir", str(tmp_path))
    assert result.returncode == EXIT_BUG == 70
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    # what failed, the exception type and message (on one line, brackets verbatim), where it was raised
    assert lines[0].startswith("error: `ucdcr stats` failed unexpectedly: ValueError: boom [/x] in two lines (at ")
    assert lines[0].endswith(" in boom)")
    assert issue_tracker() in lines[1] and "`ucdcr --debug stats ...`" in lines[1] and "UCDCR_DEBUG=1" in lines[1]


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_shows_the_traceback(tmp_path: Path, how: str) -> None:
    args = ["--debug", "stats"] if how == "flag" else ["stats"]
    result = run_main(BOOM, *args, "--data-dir", str(tmp_path), env={"UCDCR_DEBUG": "1"} if how == "env" else None)
    assert result.returncode == EXIT_BUG
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert ", in boom\n" in result.stderr and "\nValueError: boom [/x] in\ntwo lines\n" in result.stderr
    assert "error: `ucdcr stats` failed unexpectedly: ValueError: boom" in result.stderr
    assert result.stderr.rstrip().splitlines()[-1] == f"This is a bug in ucdcr: please report it to {issue_tracker()}."


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    patch = """
    import ucdcr.sources.discover
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    ucdcr.sources.discover.discover_datasets = interrupted
    """
    result = run_main(patch, "stats", "--data-dir", str(tmp_path))
    assert result.returncode == 130
    assert result.stderr == "interrupted\n"


def test_a_ucdcr_error_is_one_line_even_without_friendly_errors() -> None:
    # a command registered without @friendly_errors (as a new command might be): the app-level handler catches it
    patch = """
    from ucdcr.errors import UcdcrError
    @a.app.command("crash")
    def crash() -> None:
        raise UcdcrError("x.json: expected [1, 2], got [/topic]")
    """
    result = run_main(patch, "crash")
    assert result.returncode == 2
    assert result.stderr == "error: x.json: expected [1, 2], got [/topic]\n"


def test_friendly_errors_prints_brackets_verbatim(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["stats", "--data-dir", str(tmp_path), "--tables", "[/x]"])
    assert result.exit_code == 2
    assert result.output == "error: unknown tables [/x]; valid: 2, 3, 4, 12, 9, 10, 11, summary\n"


def test_usage_errors_keep_clicks_message() -> None:
    result = CliRunner().invoke(app, ["stats", "--bogus"])
    assert result.exit_code == 2
    assert "Usage: ucdcr stats [OPTIONS]" in result.output and "Error: No such option: --bogus" in result.output
    assert "failed unexpectedly" not in result.output


def test_raised_at_names_the_innermost_frame() -> None:
    try:
        {}["key"]
    except KeyError as exc:
        where = raised_at(exc)
    assert where.startswith("tests/test_cli_errors.py:") and where.endswith(
        " in test_raised_at_names_the_innermost_frame"
    )


def _commands() -> list[tuple[list[str], object]]:
    import typer.main

    root = typer.main.get_command(app)
    paths: list[tuple[list[str], object]] = [([], root)]
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        sub = getattr(command, "commands", None)
        paths += [([name, inner], sub[inner]) for inner in sub] if sub else [([name], command)]
    return paths


@pytest.mark.parametrize("command", _commands(), ids=lambda item: " ".join(item[0]) or "ucdcr")
def test_help_shows_flags_without_value_slots(command: tuple[list[str], object]) -> None:
    path, click_command = command
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    flags = [(p.opts, p.secondary_opts, p.help) for p in click_command.params if getattr(p, "is_flag", False)]  # type: ignore[attr-defined]
    for opts, secondary, text in [*flags, (["--help"], [], "Show this message and exit.")]:
        names = ", ".join(sorted(opts, key=len)) + (" / " + ", ".join(secondary) if secondary else "")
        line = next(line for line in result.output.splitlines() if line.strip().startswith(names))
        assert line.split(names, 1)[1].split()[0] == text.split()[0], line  # the help text follows the flag directly


def test_help_of_build_and_report() -> None:
    build = CliRunner().invoke(app, ["build", "--help"]).output
    for flag, text in (("--all-sentences", "ECB+: keep"), ("-q, --quiet", "No progress bars."), ("--help", "Show")):
        line = next(line for line in build.splitlines() if line.strip().startswith(flag))
        assert line.split(flag, 1)[1].strip().startswith(text), line  # the flag's help follows it directly
    assert "--option KEY=VALUE" in build and "-o, --option" not in build and "--data-dir DIR" in build
    assert "--executor <local|ray>" in build  # the choices listed in the help
    report = CliRunner().invoke(app, ["report", "--help"]).output
    assert re.search(r"--embed / --no-embed +Draw the mention map", report)


FOLDER_OPTIONS = [
    ["stats", "--data-dir"],
    ["diversity", "--data-dir"],
    ["baseline", "--data-dir"],
    ["datasets", "--data-dir"],
    ["datasets", "--raw-dir"],
    ["report", "--data-dir"],
    ["build", "ecbplus", "--data-dir"],
    ["build", "ecbplus", "--raw-dir"],
    ["download", "ecbplus", "--raw-dir"],
    ["download", "ecbplus", "--mirror"],
    ["view", "ecbplus", "1/1ecb/1", "--data-dir"],
    ["export", "conll", "ecbplus", "--data-dir"],
    ["export", "conll", "ecbplus", "--out"],
    ["report", "--out"],
]


@pytest.mark.parametrize("args", FOLDER_OPTIONS, ids=" ".join)
def test_a_file_given_for_a_folder_says_so(tmp_path: Path, args: list[str]) -> None:
    a_file = tmp_path / "built.txt"
    a_file.write_text("not a folder")
    result = CliRunner().invoke(app, [*args, str(a_file)])
    assert result.exit_code == 2
    assert f"{a_file} is a file, not a folder" in result.output
    assert "does not exist" not in result.output


def test_the_data_dir_from_the_environment_is_checked_too(tmp_path: Path) -> None:
    a_file = tmp_path / "built.txt"
    a_file.write_text("not a folder")
    result = CliRunner().invoke(app, ["stats"], env={"UCDCR_DATA_DIR": str(a_file)})
    assert result.exit_code == 2 and f"{a_file} is a file, not a folder" in result.output


def test_output_files_are_checked_before_any_work(tmp_path: Path) -> None:
    a_file = tmp_path / "built.txt"
    a_file.write_text("not a folder")
    under_a_file = CliRunner().invoke(app, ["stats", "--data-dir", str(tmp_path), "-f", "md", "-o", f"{a_file}/t.md"])
    assert under_a_file.exit_code == 2 and f"cannot write {a_file}/t.md: {a_file} is a file" in under_a_file.output
    a_folder = CliRunner().invoke(app, ["stats", "--data-dir", str(tmp_path), "-f", "md", "-o", str(tmp_path)])
    assert a_folder.exit_code == 2 and f"{tmp_path} is a folder, not a file" in a_folder.output
    missing_mirror = CliRunner().invoke(app, ["download", "ecbplus", "--mirror", str(tmp_path / "nope")])
    assert missing_mirror.exit_code == 2 and f"{tmp_path / 'nope'} does not exist" in missing_mirror.output


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, command in getattr(group, "commands", {}).items():
        yield from _commands(command, (*path, name)) if hasattr(command, "commands") else [((*path, name), command)]


def test_short_o_means_output_in_every_command() -> None:
    import typer.main

    with_o = {}
    for path, command in _commands(typer.main.get_command(app)):
        for param in command.params:
            if "-o" in getattr(param, "opts", []):
                with_o[" ".join(path)] = param.opts
    assert with_o and all("--output" in opts for opts in with_o.values()), with_o


@pytest.mark.parametrize(
    ("args", "value", "choices"),
    [
        (["build", "ecbplus", "--executor"], "dask", "'local', 'ray'"),
        (["stats", "--format"], "xml", "'md', 'csv', 'json', 'latex'"),
        (["benchmark", "--protocol"], "mine", "'ucdcr', 'standard'"),
        (["benchmark", "--level"], "doc", "'subtopic', 'topic'"),
        (["benchmark", "--topics"], "silver", "'gold', 'predicted'"),
        (["export", "conll", "x", "--level"], "sentence", "'document', 'subtopic', 'topic'"),
    ],
)
def test_an_unknown_choice_is_one_error_line_naming_the_choices(args: list[str], value: str, choices: str) -> None:
    result = CliRunner().invoke(app, [*args, value])
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and f"{value!r} is not one of {choices}" in errors[0], result.output
