"""`ucdcr build`: reader options (--texts, --outlets, --option) and `build all` on a tmp raw dir.

The raw dir holds only the tiny NewsWCL50r fixture of tests/fixtures/raw/newswcl50r.py; every other dataset has no
raw folder there, so `build all` must report it with its manual steps and still exit 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.fixtures.raw.cerec import THREAD, write_zip
from tests.fixtures.raw.ecbplus import write_ecbplus_raw
from tests.fixtures.raw.newswcl50r import write_newswcl50r_raw
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.cli.build import reader_options
from ucdcr.datasets.hypercoref import HypercorefOptions
from ucdcr.errors import UcdcrError
from ucdcr.registry import ReadOptions, dataset_ids, get
from ucdcr.schema import BUILD_REPORT


def run(*args: str) -> Any:
    return CliRunner().invoke(app, ["build", *args, "--quiet", "--jobs", "1"])


def test_texts_reaches_the_newswcl50r_reader(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    write_newswcl50r_raw(raw, with_texts=False)
    texts = write_newswcl50r_raw(tmp_path / "elsewhere") / "NewsWCL50r" / "json_text"
    data = tmp_path / "data"
    without = run("newswcl50r", "--raw-dir", str(raw), "--data-dir", str(data))
    assert without.exit_code == 2 and "article texts are not available" in without.output
    result = run("newswcl50r", "--raw-dir", str(raw), "--data-dir", str(data), "--texts", str(texts))
    assert result.exit_code == 0, result.output
    # the fixture has 3 articles with text (0_L, 0_R, 4_M; tests/fixtures/raw/newswcl50r.py)
    assert "newswcl50r: 3 documents" in result.output
    assert (data / "newswcl50r" / BUILD_REPORT).exists()


def test_named_options_and_generic_options_reach_read_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, ReadOptions] = {}

    def fake_build(dataset_id: str, **kwargs: Any) -> Any:
        seen[dataset_id] = kwargs["options"]
        raise UcdcrError("stop here")

    monkeypatch.setattr("ucdcr.pipeline.several.build_dataset", fake_build)
    result = run(
        "hypercoref", "--raw-dir", str(tmp_path), "--outlets", "bbc.com, abcnews.go.com", "--option", "partial=yes"
    )
    assert result.exit_code == 2 and "stop here" in result.output
    assert seen["hypercoref"] == HypercorefOptions(outlets=("bbc.com", "abcnews.go.com"), partial=True)
    # several datasets: each gets the options it declares (--texts is NewsWCL50r's, --outlets HyperCoref's)
    run("hypercoref", "newswcl50r", "--raw-dir", str(tmp_path), "--outlets", "abcnews.go.com", "--texts", str(tmp_path))
    assert seen["hypercoref"] == HypercorefOptions(outlets=("abcnews.go.com",))
    assert seen["newswcl50r"] == get("newswcl50r").read_options({"texts_dir": tmp_path})


def test_unknown_or_misspelt_option_is_an_error_listing_the_valid_ones(tmp_path: Path) -> None:
    misspelt = run("ecbplus", "--raw-dir", str(tmp_path), "--option", "all_sentence=true")
    assert misspelt.exit_code == 2
    assert "unknown reader option all_sentence for ecbplus; valid: all_sentences, partial" in misspelt.output
    not_its_own = run("hypercoref", "--raw-dir", str(tmp_path), "--texts", str(tmp_path))
    assert not_its_own.exit_code == 2 and "unknown reader option texts_dir for hypercoref; valid: outlets, partial" in (
        not_its_own.output
    )
    bad_value = run("ecbplus", "--raw-dir", str(tmp_path), "--option", "partial=maybe")
    assert bad_value.exit_code == 2 and "reader option partial='maybe': expected true or false" in bad_value.output
    assert not (tmp_path / "ECBplus").exists()  # nothing was read or built


def test_texts_must_be_a_folder(tmp_path: Path) -> None:
    missing = run("newswcl50r", "--raw-dir", str(tmp_path), "--texts", str(tmp_path / "nope"))
    assert missing.exit_code == 2 and f"{tmp_path / 'nope'} does not exist" in missing.output
    (tmp_path / "file.txt").write_text("x")
    a_file = run("newswcl50r", "--raw-dir", str(tmp_path), "--texts", str(tmp_path / "file.txt"))
    assert a_file.exit_code == 2 and f"{tmp_path / 'file.txt'} is a file, not a folder" in a_file.output
    assert reader_options(["texts_dir=/a"], texts=tmp_path)["texts_dir"] == tmp_path  # the named option wins


def test_build_all_builds_what_is_there_and_reports_the_rest(tmp_path: Path) -> None:
    raw, data = tmp_path / "raw", tmp_path / "data"
    write_newswcl50r_raw(raw)
    result = run("all", "--raw-dir", str(raw), "--data-dir", str(data))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in data.iterdir()) == ["newswcl50r"]
    # the summary names the absolute output folder, then the build report's notes (the NewsWCL50r reader's one)
    assert f"s -> {(data / 'newswcl50r').resolve()}\n" in result.output
    assert "newswcl50r: note: paragraphs are the source sentences; article texts are not redistributed" in result.output
    others = [d for d in dataset_ids() if d != "newswcl50r"]
    assert f"missing: {', '.join(others)}" in result.output
    for dataset_id in others:
        assert f"{dataset_id}: raw files missing, not built:" in result.output
    # the manual steps of the manifests come with them (GVC's git blob id, NIdent's request form)
    assert "576be59c74099813af181d58e54e74709cb0ab35" in result.output
    assert "http://clic.ub.edu/corpus/en/nident" in result.output


def test_build_all_fails_when_a_present_dataset_fails(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    folder = write_newswcl50r_raw(raw)
    (folder / "ucdcr-meta" / "train_val_test_split.json").write_text("{not json")
    result = run("all", "--raw-dir", str(raw), "--data-dir", str(tmp_path / "data"))
    assert result.exit_code == 2
    assert "newswcl50r: not built:" in result.output and "invalid JSON" in result.output


def test_named_dataset_without_raw_files_is_an_error(tmp_path: Path) -> None:
    result = run("gvc", "--raw-dir", str(tmp_path), "--data-dir", str(tmp_path / "data"))
    assert result.exit_code == 2
    assert "gvc: raw files missing in" in result.output and "Manual steps:" in result.output


def test_build_all_with_no_raw_files_is_an_error(tmp_path: Path) -> None:
    result = run("all", "--raw-dir", str(tmp_path / "raw"), "--data-dir", str(tmp_path / "data"))
    assert result.exit_code == 2
    assert result.output.rstrip().endswith(
        f"nothing was built: no raw files of these datasets in {(tmp_path / 'raw').resolve()} (see above); "
        "`ucdcr datasets` shows what each dataset needs."
    )
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def test_cerec_stand_ins_are_said_when_building_and_in_stats(tmp_path: Path) -> None:
    # only the superseded dev.zip with one member: val comes from this stand-in, train and test are not built
    raw, data = tmp_path / "raw", tmp_path / "data"
    write_zip(raw / get("cerec").raw_folder / "_superseded/data/COLING/dev.zip", {"dev.20.conll": THREAD})
    built = run("cerec", "--raw-dir", str(raw), "--data-dir", str(data))
    assert built.exit_code == 0, built.output
    stand_in = "val: cerec.validation.20.conll read from the stand-in _superseded/data/COLING/dev.zip:dev.20.conll"
    assert f"cerec: note: {stand_in}" in built.output
    assert "cerec: split train not built: seed.conll" in built.output
    stats = CliRunner().invoke(app, ["stats", "--data-dir", str(data), "--tables", "2", "-f", "json"])
    assert stats.exit_code == 0, stats.output
    notes = json.loads(stats.output)[0]["notes"]
    assert f"cerec (build): {stand_in}" in notes
    assert any(note.startswith("cerec (build): split train not built: seed.conll") for note in notes)
    on_screen = CliRunner().invoke(app, ["stats", "--data-dir", str(data), "--tables", "2"])  # Markdown: not a tty
    assert f"cerec (build): {stand_in}" in on_screen.output


def test_progress_to_a_log_is_plain_lines_at_a_steady_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    # stderr to a file: a line when a stage begins, then one at least every 10 s while documents go (the callback
    # comes after each batch), and one when the stage is done; each with done/total and the ETA of the pace so far
    import io

    from rich.console import Console

    from ucdcr.cli import build

    clock = [100.0]
    monkeypatch.setattr(build.time, "monotonic", lambda: clock[0])
    log = io.StringIO()
    monkeypatch.setattr(build, "err_console", Console(file=log, width=200))
    show = build.progress_lines()
    for seconds, done in ((0, 0), (4, 64), (11, 128), (15, 192), (22, 256), (30, 300)):
        clock[0] = 100.0 + seconds
        show("x: reading and parsing", done, 300)
    clock[0] = 131.0
    show("x: validating and writing", 300, 300)
    assert log.getvalue().splitlines() == [
        "[     0s] x: reading and parsing 0/300 documents, ETA ?",
        "[    11s] x: reading and parsing 128/300 documents, ETA 14s",  # 128 in 11 s: 172 more at that pace
        "[    22s] x: reading and parsing 256/300 documents, ETA 3s",
        "[    30s] x: reading and parsing 300/300 documents",
        "[    31s] x: validating and writing 300/300 documents",
    ]


def test_a_build_logged_to_a_file_says_its_progress(tmp_path: Path) -> None:
    raw = write_ecbplus_raw(tmp_path / "raw")
    log = tmp_path / "err.log"
    command = [
        sys.executable,
        "-m",
        "ucdcr",
        "build",
        "ecbplus",
        "--raw-dir",
        str(raw),
        "--data-dir",
        str(tmp_path / "d"),
    ]
    with log.open("w") as handle:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=handle, check=False)
    assert done.returncode == 0, log.read_text()
    lines = log.read_text().splitlines()
    # tests/fixtures/raw/ecbplus.py: 5 documents
    assert lines[0].endswith("ecbplus: reading and parsing 0/5 documents, ETA ?"), lines
    assert any(line.endswith("ecbplus: validating and writing 5/5 documents") for line in lines), lines


def test_a_long_step_is_timed_and_a_quiet_one_heard_from(monkeypatch: pytest.MonkeyPatch) -> None:
    # the steps of `ucdcr report` (and of the benchmark) on a log: a step of a second or more gets its time on the
    # next line; after the heartbeat's quiet, a line says which step still runs
    import io
    import time

    from rich.console import Console

    from ucdcr.cli import common

    log = io.StringIO()
    monkeypatch.setattr(common, "err_console", Console(file=log, width=200))
    with common.step_log(every=0.5) as say:
        say("report: t-SNE map of mentions")
        time.sleep(1.2)
        say("report: writing index.html")
    lines = log.getvalue().splitlines()
    assert lines[0].endswith("report: t-SNE map of mentions")
    assert any(
        line.endswith("report: t-SNE map of mentions: still running (0s)") or "still running (" in line
        for line in lines
    )
    assert any(": done in 1." in line for line in lines) and lines[-1].endswith("report: writing index.html")
