"""A user system's stored runs have a way out and the report says where each row came from (issue 39): every run
records what its system was run as and when; ``ucdcr benchmark --forget NAME`` (and
``ucdcr.forget_benchmark_runs``) removes every run of a name, under the file's lock; the report's leaderboard names
the results file, the reference and the user systems, and the command that removes a user system; a benchmark of a
user system ends with that command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.fixtures.bench_dataset import write_bench_dataset

import ucdcr
from ucdcr.errors import UcdcrError
from ucdcr.report.benchmark_tables import provenance_note
from ucdcr.report.build_report import Report, _benchmark_section
from ucdcr.systems import System
from ucdcr.systems.framework.names import BUILTIN, resolve_system
from ucdcr.systems.framework.store import FORMAT, KEY_FORMAT, RESULTS_FILE, ResultStore, StoredRun, read_runs

SRC = Path(__file__).resolve().parents[2] / "src"
MY_SYSTEMS = (
    "from ucdcr.systems import System\n\n"
    "class SameHead(System):\n"
    "    name = 'same-head'\n\n"
    "    def predict(self, test):\n"
    "        return dict(zip(test.column('mention_id'), test.column('mention_head')))\n"
)


class OneCluster(System):
    name = "one-cluster"

    def predict(self, test):  # type: ignore[no-untyped-def]
        return dict.fromkeys(test.column("mention_id"), 1)


def stored_run(key: str, system: str, dataset: str = "toy", seed: int = 0) -> StoredRun:
    means = [{"type": "joint", "settings": 1, "scores": {"F1_CONLL": 50.0}}]
    return StoredRun(key, system, "1", dataset, "subtopic", "in-domain", "", f"{dataset} val", "", means, seed=seed)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    environment.pop("UCDCR_CACHE_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "ucdcr", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_forget_removes_every_run_of_the_name_and_keeps_the_others(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    for run in (
        stored_run("a", "mine"),
        stored_run("b", "mine", dataset="other"),
        stored_run("c", "mine", seed=1),
        stored_run("d", "head-lemma"),
    ):
        store.put(run)
    assert ResultStore(tmp_path).forget("mine") == 3
    assert [run.system for run in read_runs(tmp_path / RESULTS_FILE).values()] == ["head-lemma"]
    assert json.loads((tmp_path / RESULTS_FILE).read_text())["format"] == FORMAT
    assert sorted(path.name for path in tmp_path.iterdir()) == [RESULTS_FILE]  # the lock file is gone
    with pytest.raises(UcdcrError) as raised:
        store.forget("mine")  # nothing of that name is left
    message = str(raised.value)
    assert message == f"no stored run of system 'mine' in {tmp_path / RESULTS_FILE}; stored systems: head-lemma"
    assert "\n" not in message


def test_forget_without_a_results_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(UcdcrError, match="does not exist"):
        ResultStore(tmp_path / "empty").forget("mine")
    assert not (tmp_path / "empty").exists()


def test_a_format_4_file_is_read_and_its_runs_run_again(tmp_path: Path) -> None:
    folder = write_bench_dataset(tmp_path / "toy")
    cache = tmp_path / "cache"
    first = ucdcr.benchmark(["head-lemma"], [folder], cache_dir=cache)
    data = json.loads((cache / RESULTS_FILE).read_text())
    for run in data["runs"]:
        del run["signature"]
        run["key"] = "f" * 64  # a key of format /4: it hashed the files' fingerprint, never a /5 key
    (cache / RESULTS_FILE).write_text(json.dumps({"format": "ucdcr-benchmark-results/4", "runs": data["runs"]}))
    assert ucdcr.benchmark(["head-lemma"], [folder], cache_dir=cache).reused == 0  # /4 keys hash file fingerprints
    again = json.loads((cache / RESULTS_FILE).read_text())
    assert again["format"] == FORMAT == KEY_FORMAT == "ucdcr-benchmark-results/5"
    assert [(run["key"], run["signature"]) for run in again["runs"]] == [(first.runs[0].key, first.runs[0].signature)]


def test_runs_record_what_their_system_was_run_as_and_when(tmp_path: Path) -> None:
    folder = write_bench_dataset(tmp_path / "toy")
    before = datetime.now(UTC).replace(microsecond=0)
    result = ucdcr.benchmark([OneCluster, "head-lemma"], [folder], cache_dir=tmp_path / "cache")
    origins = {run.system: run.origin for run in result.runs}
    assert origins == {"one-cluster": f"{__name__}:OneCluster", "head-lemma": BUILTIN["head-lemma"].target}
    stored = [datetime.fromisoformat(run.stored or "") for run in result.runs]
    assert all(before <= moment <= datetime.now(UTC) for moment in stored)


def test_origin_of_a_module_attribute_and_of_an_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    from ucdcr.systems.framework import names as registry

    assert resolve_system(f"{__name__}:OneCluster").origin == f"{__name__}:OneCluster"
    point = EntryPoint("mine", f"{__name__}:OneCluster", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "_entry_points", lambda: [point])
    assert resolve_system("mine").origin == f"entry point mine = {__name__}:OneCluster"


def test_the_note_tells_reference_from_user_systems() -> None:
    runs = [
        replace(stored_run("a", "mine"), origin="mymodule:Mine", stored="2026-12-01T10:00:00+00:00"),
        replace(stored_run("b", "mine", dataset="other"), origin="mymodule:Mine", stored="2026-12-04T09:00:00+00:00"),
        stored_run("c", "old"),  # stored by an older ucdcr: no origin, no date
        stored_run("d", "head-lemma"),
    ]
    note = provenance_note(runs, ["head-lemma", "mine", "old"], Path("/x/benchmark-results.json"))
    assert note == (
        "Rows from /x/benchmark-results.json; reference systems (built into ucdcr): head-lemma; user systems: mine "
        "(from mymodule:Mine, stored 2026-12-01 to 2026-12-04), old (origin not recorded); remove a user system's "
        "stored runs with `ucdcr benchmark --forget NAME --cache-dir /x`."
    )


def test_benchmark_forget_on_the_command_line_and_the_report_note(tmp_path: Path) -> None:
    folder = write_bench_dataset(tmp_path / "data" / "toy")
    (tmp_path / "my_systems.py").write_text(MY_SYSTEMS)
    cache = tmp_path / "cache"
    results = cache / RESULTS_FILE
    common = ["--data-dir", str(tmp_path / "data"), "--cache-dir", str(cache)]
    done = _cli("benchmark", "--systems", "my_systems:SameHead,head-lemma", *common, "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"user system same-head: stored in {results} and shown by `ucdcr report --references local` of these datasets; "
        f"remove with `ucdcr benchmark --forget same-head --cache-dir {cache}`"
    )

    report = Report(tmp_path / "report", ["toy"])
    _benchmark_section(report, {"toy": folder}, tmp_path / "report", cache)
    leaderboard = report.sections[0].tables[0]
    assert [row["System"] for row in leaderboard.rows] == ["head-lemma", "same-head"]
    today = datetime.now(UTC).date().isoformat()
    assert leaderboard.notes[-1] == (
        f"Rows from {results}; reference systems (built into ucdcr): head-lemma; user systems: same-head (from "
        f"my_systems:SameHead, stored {today}); remove a user system's stored runs with "
        f"`ucdcr benchmark --forget same-head --cache-dir {cache}`."
    )

    forgot = _cli("benchmark", "--forget", "same-head", "--cache-dir", str(cache), cwd=tmp_path)
    assert forgot.returncode == 0, forgot.stderr
    assert forgot.stdout.strip() == f"removed 1 stored run of same-head from {results} (1 left)"
    assert [run.system for run in read_runs(results).values()] == ["head-lemma"]
    after = Report(tmp_path / "after", ["toy"])
    _benchmark_section(after, {"toy": folder}, tmp_path / "after", cache)
    leaderboard = after.sections[0].tables[0]
    assert [row["System"] for row in leaderboard.rows] == ["head-lemma"]
    assert leaderboard.notes[-1] == f"Rows from {results}; reference systems (built into ucdcr): head-lemma."

    again = _cli("benchmark", "--forget", "same-head", "--cache-dir", str(cache), cwd=tmp_path)
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr.strip().splitlines() == [
        f"error: no stored run of system 'same-head' in {results}; stored systems: head-lemma"
    ]
    both = _cli("benchmark", "--forget", "head-lemma", "--systems", "head-lemma", *common, cwd=tmp_path)
    assert both.returncode == 2 and "--forget runs no benchmark" in both.stderr
    assert len(read_runs(results)) == 1  # nothing was removed


def test_forget_benchmark_runs_in_python(tmp_path: Path) -> None:
    folder = write_bench_dataset(tmp_path / "toy")
    ucdcr.benchmark([OneCluster, "head-lemma"], [folder], cache_dir=tmp_path / "cache")
    assert ucdcr.forget_benchmark_runs("one-cluster", cache_dir=tmp_path / "cache") == 1
    with pytest.raises(UcdcrError, match=r"stored systems: head-lemma$"):
        ucdcr.forget_benchmark_runs("one-cluster", cache_dir=tmp_path / "cache")


def test_the_report_shows_this_machine_s_runs_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a benchmark stored in the default cache dir (another job's, as far as a report knows): a report without
    # --cache-dir shows the shipped reference runs of the same data only (none for this toy dataset), and with
    # --cache-dir (or --references local) the stored ones, its note naming the file
    from ucdcr.report.build_report import build_report

    folder = write_bench_dataset(tmp_path / "toy")
    cache = tmp_path / "cache"
    monkeypatch.setenv("UCDCR_CACHE_DIR", str(cache))
    ucdcr.benchmark(["head-lemma"], [folder])
    plain = build_report({"toy": folder}, tmp_path / "plain", embed=False)
    assert not [section for section in plain.sections if section.title.startswith("Benchmark of CDCR systems")]
    asked = build_report({"toy": folder}, tmp_path / "asked", embed=False, references="local")
    [section] = [section for section in asked.sections if section.title.startswith("Benchmark of CDCR systems")]
    assert section.tables[0].notes[-1].startswith(f"Rows from {cache / RESULTS_FILE}")
