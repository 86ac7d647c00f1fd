"""Figure helpers (ucdcr.report.figures): histogram bins, sampling, deterministic PNGs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ucdcr.report import figures


def test_edges_are_the_authors_bins() -> None:
    # REFERENCE.md §4.5 / summary/histogram_*.csv: MTLD edges 0, 3, ..., 90; PD edges 0, 1, ..., 30.
    assert figures.MTLD_EDGES[:3] == (0.0, 3.0, 6.0) and figures.MTLD_EDGES[-1] == 90.0
    assert len(figures.MTLD_EDGES) == len(figures.PD_EDGES) == 31
    labels = figures.bin_labels(figures.MTLD_EDGES)
    assert labels[0] == "[0.0..3.0)" and labels[-2] == "[87.0..90.0)" and labels[-1] == "[90.0.."


def test_histogram_counts_right_open_bins_with_overflow() -> None:
    edges = (0.0, 1.0, 2.0, 3.0)
    # 0 and 0.999 -> [0,1); 1.0 -> [1,2) (right-open); 2.5 -> [2,3); 3.0 and 40 -> overflow [3..
    assert figures.histogram_counts([0, 0.999, 1.0, 2.5, 3.0, 40], edges) == [2, 1, 1, 2]
    assert figures.histogram_counts([], edges) == [0, 0, 0, 0]


def test_counts_sum_to_the_number_of_chains() -> None:
    values = np.random.default_rng(1).gamma(2, 5, size=500)
    assert sum(figures.histogram_counts(values, figures.MTLD_EDGES)) == 500


def test_sample_indices_is_seeded_sorted_and_complete_for_small_sets() -> None:
    assert figures.sample_indices(5, 100) == [0, 1, 2, 3, 4]
    first = figures.sample_indices(1000, 100)
    assert first == figures.sample_indices(1000, 100) and first == sorted(first) and len(set(first)) == 100


def test_plots_write_identical_png_files(tmp_path: Path) -> None:
    counts = {"a": figures.histogram_counts([1, 2, 2, 5], figures.PD_EDGES), "b": [0] * 31}
    first = figures.plot_histograms(counts, figures.PD_EDGES, "PD", tmp_path / "one.png")
    second = figures.plot_histograms(counts, figures.PD_EDGES, "PD", tmp_path / "two.png")
    assert first.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert first.read_bytes() == second.read_bytes()
    figures.plot_distributions({"a": [1, 1, 3, 40], "b": []}, "mentions per document", tmp_path / "d.png")
    assert (tmp_path / "d.png").stat().st_size > 1000


def test_document_map_is_deterministic(tmp_path: Path) -> None:
    texts = [f"fire city hall blaze {i}" for i in range(6)] + [f"election vote senate {i}" for i in range(6)]
    one = figures.tsne_points(figures.document_features(texts))
    two = figures.tsne_points(figures.document_features(texts))
    assert one.shape == (12, 2) and np.array_equal(one, two)
    figures.plot_map(one, ["x"] * 6 + ["y"] * 6, "map", tmp_path / "map.png")
    assert (tmp_path / "map.png").is_file()
