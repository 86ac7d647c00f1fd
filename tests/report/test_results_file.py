"""The results file: stored runs collected with their commit, docs' marked tables rendered from it and checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures.bench_dataset import write_bench_dataset
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.errors import UcdcrError
from ucdcr.report.results_file import FORMAT, collect, read_entries, render_docs, render_table
from ucdcr.systems.framework.runner import benchmark
from ucdcr.systems.framework.store import RESULTS_FILE

runner = CliRunner()
DOC = """# Results

Some prose stays as it is.

<!-- results: leaderboard ucdcr/subtopic -->
stale
<!-- /results -->

<!-- results: scores ucdcr/subtopic systems=head-lemma datasets=a -->
<!-- /results -->
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    folders = {name: write_bench_dataset(root / "data" / name) for name in ("a", "b")}
    benchmark(["head-lemma", "lemma-pairs"], folders, cache_dir=root / "cache")
    return root / "cache"


def test_collect_render_and_check(cache: Path, tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    assert collect(cache / RESULTS_FILE, results, "a" * 40) == 4  # 2 systems x 2 datasets
    entries = read_entries(results)
    assert {entry["commit"] for entry in entries} == {"a" * 40}
    assert json.loads(results.read_text())["format"] == FORMAT
    assert all(entry["run"]["machine"]["processors"] >= 1 for entry in entries)  # where each run was computed
    assert collect(cache / RESULTS_FILE, results, "d" * 40, systems=["head-lemma"]) == 2  # replaces its slots
    assert sorted(entry["commit"] for entry in read_entries(results)) == ["a" * 40, "a" * 40, "d" * 40, "d" * 40]
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    assert render_docs(results, [doc], check=True) == [doc]  # stale blocks are found
    assert doc.read_text() == DOC  # ... and a check changes nothing
    assert render_docs(results, [doc]) == [doc]
    text = doc.read_text()
    assert "Some prose stays as it is." in text and "stale" not in text
    assert "#### Leaderboard, ucdcr/subtopic protocol: CoNLL F1 (joint)" in text
    assert "| lemma-pairs | 100.00 [100.00, 100.00] |" in text  # every toy chain found, in every resample
    assert "Computed on: " in text
    assert render_docs(results, [doc], check=True) == []  # rendered: nothing differs any more
    doc.write_text(text.replace("100.00 [100.00, 100.00]", "99.00 [100.00, 100.00]", 1))  # a hand edit
    result = runner.invoke(app, ["results", "render", str(results), str(doc), "--check"])
    assert result.exit_code == 1 and f"{doc}: differ" in result.stdout


def test_a_marker_no_run_matches_is_one_error(cache: Path, tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    collect(cache / RESULTS_FILE, results, "a" * 40)
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- results: leaderboard standard/gold-topics -->\n<!-- /results -->\n")
    with pytest.raises(UcdcrError, match="no run of the results file matches it"):
        render_docs(results, [doc])
    doc.write_text("<!-- results: chart ucdcr/subtopic -->\n<!-- /results -->\n")
    result = runner.invoke(app, ["results", "render", str(results), str(doc)])
    assert result.exit_code != 0 and "expected '<leaderboard|scores|models|settings> <protocol>" in result.output


def test_brief_keeps_of_the_notes_the_protocol_and_the_signature(cache: Path, tmp_path: Path) -> None:
    from ucdcr.report.results_file import runs_of

    results = tmp_path / "benchmark.json"
    collect(cache / RESULTS_FILE, results, "a" * 40)
    runs = runs_of(read_entries(results))
    full = render_table(runs, "leaderboard ucdcr/subtopic datasets=a")
    brief = render_table(runs, "leaderboard ucdcr/subtopic datasets=a brief")
    assert not {"mean", "n"} & set(full.columns)  # one dataset: a mean would repeat its column
    assert brief.columns == full.columns
    assert [row["a"] for row in brief.rows] == [row["a"] for row in full.rows]
    assert brief.notes == [full.notes[0], full.notes[-1]] and brief.notes[0].startswith("Protocol:")
    assert brief.notes[1].startswith("Signature: ")  # a brief table keeps the signature of its numbers
    both = render_table(runs, "leaderboard ucdcr/subtopic brief")  # two datasets: the mean is kept
    assert "mean" in both.columns


def test_an_older_versions_runs_stand_beside_the_new_ones_under_their_own_name(cache: Path, tmp_path: Path) -> None:
    from ucdcr.report.results_file import runs_of

    results = tmp_path / "results.json"
    collect(cache / RESULTS_FILE, results, "1" * 40)
    older = tmp_path / "older.json"
    stored = json.loads((cache / RESULTS_FILE).read_text())
    for run in stored["runs"]:
        run["version"] = "0"  # as if measured before head-lemma's version "1" (the version its class says)
    older.write_text(json.dumps(stored))
    assert collect(older, results, "0" * 40, systems=["head-lemma"]) == 2
    entries = read_entries(results)
    runs = runs_of(entries)
    commits = {(run.system, run.dataset): entry["commit"] for run, entry in zip(runs, entries, strict=True)}
    assert commits[("head-lemma", "a")] == "1" * 40 and commits[("head-lemma@v0", "a")] == "0" * 40  # kept, both
    assert commits[("lemma-pairs", "a")] == "1" * 40
    assert len(runs) == 6  # 2 datasets x (head-lemma, head-lemma@v0, lemma-pairs)
    table = render_table(runs, "leaderboard ucdcr/subtopic")
    assert {row["System"] for row in table.rows} >= {"head-lemma", "head-lemma@v0", "lemma-pairs"}


def test_a_short_commit_is_one_error(cache: Path, tmp_path: Path) -> None:
    with pytest.raises(UcdcrError, match="full 40-character git commit hash"):
        collect(cache / RESULTS_FILE, tmp_path / "results.json", "dc8e7a6")
    assert not (tmp_path / "results.json").exists()
