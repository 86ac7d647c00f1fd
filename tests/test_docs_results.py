"""The results tables of the docs are rendered from the committed results file: re-rendering changes nothing
(`ucdcr results render src/ucdcr/data/reference-runs.json docs/benchmark.md README.md` after a new measurement).
The same file ships as the reference runs a system is placed beside."""

from __future__ import annotations

from pathlib import Path

from ucdcr.report.results_file import MARKER, read_entries, render_docs

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "src" / "ucdcr" / "data" / "reference-runs.json"
DOCUMENTS = [ROOT / "docs" / "benchmark.md", ROOT / "README.md"]


def test_the_docs_tables_are_the_results_file_rendered() -> None:
    assert read_entries(RESULTS), f"{RESULTS} holds no results"
    assert all(MARKER.search(document.read_text(encoding="utf-8")) for document in DOCUMENTS)
    assert render_docs(RESULTS, DOCUMENTS, check=True) == []


def test_every_stored_result_says_where_it_was_computed() -> None:
    for entry in read_entries(RESULTS):
        run = entry["run"]
        assert len(entry["commit"]) == 40 and run["machine"]["cpu"] and run["machine"]["processors"] >= 1
        assert all(mean.get("units") for mean in run["means"])  # what the intervals resample


def test_every_stored_result_has_its_signature_and_a_content_fingerprint() -> None:
    from ucdcr.systems.framework.standings import run_signature
    from ucdcr.systems.framework.store import run_from_json

    for index, entry in enumerate(read_entries(RESULTS)):
        run = run_from_json(entry["run"], index)
        assert run.signature == str(run_signature(run)), run.key  # the stored signature is the one its fields give
        assert f"data:{run.dataset}@{(run.datasets or {})[run.dataset][:8]}" in run.signature


def test_the_shipped_reference_runs_are_the_results_file() -> None:
    from ucdcr.systems.framework.standings import shipped_path

    assert shipped_path().resolve() == RESULTS.resolve()
