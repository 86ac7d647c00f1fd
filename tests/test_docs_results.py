"""The results tables of the docs are rendered from the committed results file: re-rendering changes nothing
(`ucdcr results render docs/results/benchmark.json docs/benchmark.md README.md` after a new measurement)."""

from __future__ import annotations

from pathlib import Path

from ucdcr.report.results_file import MARKER, read_entries, render_docs

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results" / "benchmark.json"
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
