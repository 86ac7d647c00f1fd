"""Predicted topics: the document clusters a system clusters within under ``--topics predicted`` (standard
protocol), as Barhom et al. 2019 cluster the test documents before coreference instead of using the gold topics.

Rule: each document is its text (:func:`document_texts`: the token table where texts are
shared, else the union of its mentions' context windows) as a TF-IDF vector (:data:`VECTORIZER`, L2-normalised,
fitted on the split's own documents); documents are clustered by average-linkage agglomerative
clustering on the cosine distance, cut at a distance threshold. The threshold is the value of
:data:`THRESHOLDS` whose clustering of the tuning split's documents agrees best with that split's gold subtopics
(adjusted Rand index; a tie goes to the smaller threshold): the finest document grouping the datasets annotate,
and what Barhom et al.'s K-means clusters of the ECB+ test documents approximate (ECB+ subtopics: two events of
one topic). Only texts are read at test time; gold subtopics only of the tuning split (train or val), as any
tuning. Deterministic: no random initialisation.

Each mention gets its document's cluster, ``"p<n>"`` (n from 1, in order of each cluster's first document key),
in the column :data:`~ucdcr.analysis.protocol.PREDICTED_TOPIC`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa

from ucdcr.systems.framework.adapter import PREDICTED_TOPIC
from ucdcr.systems.framework.base import SplitData

THRESHOLDS: tuple[float, ...] = tuple(round(0.3 + 0.025 * step, 3) for step in range(28))
"""Candidate cosine-distance thresholds: 0.3 to 0.975 in steps of 0.025 (news articles of one event share few
words beyond the event, so useful cuts lie in the upper part)."""


VECTORIZER = {
    "sublinear_tf": True,
    "stop_words": "english",
    "token_pattern": r"(?u)\b[^\W\d_]\w+\b",
    "ngram_range": (1, 2),
}
"""TF-IDF of the document texts: words of 2+ characters starting with a letter and their bigrams, English stop
words removed, sublinear tf; words and bigrams of a single document are left out where that leaves any."""


def document_texts(data: SplitData) -> dict[str, str]:
    """Document key -> text: the token table's tokens where texts are shared, else the mentions' context windows."""
    tokens = data.tokens
    if tokens is not None and tokens.num_rows:
        from ucdcr.schema import DOC_KEY_COLUMN

        ordered = tokens.sort_by([(DOC_KEY_COLUMN, "ascending"), ("token_id_global", "ascending")])
        words: dict[str, list[str]] = {}
        for key, token in zip(ordered[DOC_KEY_COLUMN].to_pylist(), ordered["token"].to_pylist(), strict=True):
            words.setdefault(key, []).append(token)
        texts = {key: " ".join(parts) for key, parts in words.items()}
        if all(key in texts for key in data.column("conll_doc_key")):
            return texts
    windows: dict[str, dict[str, None]] = {}
    for key, context in zip(data.column("conll_doc_key"), data.column("mention_context"), strict=True):
        windows.setdefault(key, {})[" ".join(context)] = None
    return {key: " ".join(parts) for key, parts in windows.items()}


def document_clusters(texts: Mapping[str, str], threshold: float) -> dict[str, str]:
    """Document key -> predicted topic (``p1``, ``p2``, ... in order of the clusters' first keys)."""
    keys = sorted(texts)
    if len(keys) < 2:
        return dict.fromkeys(keys, "p1")
    from scipy.cluster.hierarchy import fcluster, linkage
    from sklearn.feature_extraction.text import TfidfVectorizer

    documents = [texts[key] for key in keys]
    try:
        vectors = TfidfVectorizer(**VECTORIZER, min_df=2).fit_transform(documents)
    except ValueError:  # no word in two documents (a handful of short documents): every word counts
        vectors = TfidfVectorizer(**VECTORIZER).fit_transform(documents)
    similarity = (vectors @ vectors.T).toarray()
    upper = np.triu_indices(len(keys), 1)
    distances = np.clip(1.0 - similarity[upper], 0.0, None)
    clusters = fcluster(linkage(distances, method="average"), t=threshold, criterion="distance")
    names: dict[int, str] = {}
    for cluster in clusters:
        names.setdefault(int(cluster), f"p{len(names) + 1}")
    return {key: names[int(cluster)] for key, cluster in zip(keys, clusters, strict=True)}


def tune_threshold(texts: Mapping[str, str], gold_topics: Mapping[str, str]) -> tuple[float, float]:
    """The threshold of :data:`THRESHOLDS` whose clusters agree best with ``gold_topics`` (document key -> gold
    subtopic), and that agreement (adjusted Rand index)."""
    from sklearn.metrics import adjusted_rand_score

    keys = sorted(texts)
    best = (THRESHOLDS[0], -2.0)
    for threshold in THRESHOLDS:
        predicted = document_clusters(texts, threshold)
        agreement = float(adjusted_rand_score([gold_topics[key] for key in keys], [predicted[key] for key in keys]))
        if agreement > best[1]:
            best = (threshold, agreement)
    return best


def with_predicted_topics(mentions: pa.Table, topics: Mapping[str, str]) -> pa.Table:
    """``mentions`` with the column PREDICTED_TOPIC: the predicted topic of each mention's document."""
    keys: Sequence[str] = mentions["conll_doc_key"].to_pylist()
    column = pa.array([topics[key] for key in keys], type=pa.string())
    if PREDICTED_TOPIC in mentions.column_names:
        mentions = mentions.drop_columns([PREDICTED_TOPIC])
    return mentions.append_column(PREDICTED_TOPIC, column)
