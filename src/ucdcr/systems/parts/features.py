"""Mention-pair features of the reference systems: head-lemma pair statistics of the training split and the
pairwise comparisons inside one group of mentions (one evaluation unit and type).

Head-lemma pair statistics (:class:`LemmaPairStats`): over every pair of training mentions in one unit and of one
type, how many pairs have each (unordered) pair of lower-cased head lemmas, and how many of them are coreferent
(same gold chain). Training-pair features must not see their own pair in these counts, so :func:`fold_stats`
also gives the counts of each of :data:`FOLDS` folds of the training units (unit ``i`` of the sorted units is in
fold ``i % FOLDS``): a training pair is described by the counts of the other folds.

Pair features (:data:`FEATURES`, :func:`pair_features`), for the pairs ``i < j`` of a group, in this order:

=========================  ===============================================================================
same_head_lemma            lower-cased head lemmas equal (1/0)
same_head                  lower-cased head words equal
lemma_pair_coreferent      log(1 + coreferent training pairs with this head-lemma pair)
lemma_pair_seen            log(1 + training pairs with this head-lemma pair)
lemma_pair_rate            coreferent / seen training pairs (-1 when never seen)
mention_cosine             cosine of the MiniLM mention-in-context vectors (:mod:`ucdcr.systems.parts.vectors`)
mention_cosine_margin      mean of the two mentions' gaps between their best cosine in the group and this
                           pair's (0: mutual nearest neighbours)
lemma_frequency            log(1 + the smaller count of other mentions of the group sharing a mention's
                           head lemma)
sentence_cosine            cosine of the MiniLM sentence vectors
document_cosine            cosine of the documents' TF-IDF vectors over the split (1 in one document)
unit_document_cosine       cosine of the documents' TF-IDF vectors fitted inside the unit
                           (:class:`UnitDocuments`; 1 in one document)
same_document_cluster      same predicted document cluster inside the unit (:meth:`UnitDocuments.clusters`
                           at the threshold of :func:`tune_document_threshold`; 1 without clusters)
argument_overlap           Jaccard overlap of the head lemmas of the other kind's mentions in the two
                           sentences (an event's participants, times, places; -1 when either has none)
argument_cluster_overlap   Jaccard overlap of the predicted clusters of those mentions
                           (:func:`argument_clusters`, given by the system; -1 when either has none or no
                           clusters are given)
same_document              1/0
same_sentence              1/0
same_ner                   2 same named-entity label, 1 both "O", 0 different
same_head_pos              head parts of speech equal
token_overlap              Jaccard overlap of the lower-cased mention tokens
sentence_lemma_overlap     Jaccard overlap of the sentences' content lemmas (:mod:`ucdcr.systems.parts.lemmas`)
length_difference          |difference| of the mention lengths in tokens
=========================  ===============================================================================

Documents' TF-IDF over the split (sublinear tf, English stop words removed) is fit on the split's own documents: their
text from the token table where texts are shared, else the union of the split's mention context windows. Inside a unit
(:class:`UnitDocuments`), the unit's documents get their own TF-IDF (:data:`ucdcr.systems.framework.topics.VECTORIZER`),
so that the words of the whole topic weigh little and those of one of its events much; their average-linkage tree is cut
into predicted document clusters. Nothing here reads a gold field of the split it describes, except :func:`fold_stats`
and :func:`tune_document_threshold` (training splits).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.framework.topics import VECTORIZER, document_texts
from ucdcr.systems.parts.lemmas import content_lemmas

FOLDS = 5
FEATURES: tuple[str, ...] = (
    "same_head_lemma",
    "same_head",
    "lemma_pair_coreferent",
    "lemma_pair_seen",
    "lemma_pair_rate",
    "mention_cosine",
    "mention_cosine_margin",
    "lemma_frequency",
    "sentence_cosine",
    "document_cosine",
    "unit_document_cosine",
    "same_document_cluster",
    "argument_overlap",
    "argument_cluster_overlap",
    "same_document",
    "same_sentence",
    "same_ner",
    "same_head_pos",
    "token_overlap",
    "sentence_lemma_overlap",
    "length_difference",
)
ENCODER_FEATURES = frozenset(("mention_cosine", "sentence_cosine"))


# --- head-lemma pair statistics of the training split -----------------------------------------------------------


@dataclass(frozen=True)
class LemmaPairStats:
    """Counts of training pairs per unordered pair of head lemmas (see the module docstring)."""

    vocabulary: dict[str, int]
    keys: np.ndarray  # sorted pair keys: smaller id * size + larger id
    coreferent: np.ndarray
    seen: np.ndarray

    def lookup(self, first: Sequence[str], second: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(coreferent, seen) counts of the lemma pairs ``(first[k], second[k])``."""
        keys = self._pair_keys(first, second)
        coreferent, seen = np.zeros(len(keys), np.int64), np.zeros(len(keys), np.int64)
        if len(self.keys) == 0:
            return coreferent, seen
        place = np.clip(np.searchsorted(self.keys, keys), 0, len(self.keys) - 1)
        hit = (keys >= 0) & (self.keys[place] == keys)
        coreferent[hit], seen[hit] = self.coreferent[place[hit]], self.seen[place[hit]]
        return coreferent, seen

    def coreferent_pairs(self) -> set[tuple[str, str]]:
        """The lemma pairs with at least one coreferent training pair, as sorted (lemma, lemma) tuples."""
        names = {index: lemma for lemma, index in self.vocabulary.items()}
        size = len(self.vocabulary)
        return {
            (names[int(key) // size], names[int(key) % size])
            for key, count in zip(self.keys, self.coreferent, strict=True)
            if count > 0
        }

    def _pair_keys(self, first: Sequence[str], second: Sequence[str]) -> np.ndarray:
        size = len(self.vocabulary)
        a = np.array([self.vocabulary.get(lemma, -1) for lemma in first], dtype=np.int64)
        b = np.array([self.vocabulary.get(lemma, -1) for lemma in second], dtype=np.int64)
        keys = np.minimum(a, b) * size + np.maximum(a, b)
        return np.where((a < 0) | (b < 0), -1, keys)


def head_lemmas(data: SplitData) -> list[str]:
    """The lower-cased head lemma of every row."""
    return data.memo("head-lemmas", lambda: [lemma.lower() for lemma in data.column("mention_head_lemma")])


def fold_stats(train: Sequence[SplitData]) -> tuple[LemmaPairStats, list[LemmaPairStats]]:
    """The statistics of all training units and of each fold of them (module docstring)."""
    vocabulary: dict[str, int] = {}
    for data in train:
        for lemma in head_lemmas(data):
            vocabulary.setdefault(lemma, len(vocabulary))
    size = max(1, len(vocabulary))
    per_fold: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(FOLDS)]
    for data in train:
        ids = np.array([vocabulary[lemma] for lemma in head_lemmas(data)], dtype=np.int64)
        chains = _codes(data.column("coref_chain"))
        for index, rows in enumerate(data.units(by_type=True)):
            if len(rows) < 2:
                continue
            a, b = np.triu_indices(len(rows), 1)
            left, right = ids[rows][a], ids[rows][b]
            keys = np.minimum(left, right) * size + np.maximum(left, right)
            same = chains[rows][a] == chains[rows][b]
            per_fold[index % FOLDS].append((keys, same))
    folds = [_count(parts, vocabulary) for parts in per_fold]
    return _count([part for parts in per_fold for part in parts], vocabulary), folds


def _count(parts: list[tuple[np.ndarray, np.ndarray]], vocabulary: dict[str, int]) -> LemmaPairStats:
    if not parts:
        empty = np.zeros(0, np.int64)
        return LemmaPairStats(vocabulary, empty, empty, empty)
    keys = np.concatenate([keys for keys, _ in parts])
    same = np.concatenate([same for _, same in parts])
    unique, inverse, seen = np.unique(keys, return_inverse=True, return_counts=True)
    coreferent = np.bincount(inverse, weights=same, minlength=len(unique)).astype(np.int64)
    return LemmaPairStats(vocabulary, unique, coreferent, seen.astype(np.int64))


def _codes(values: Sequence[object]) -> np.ndarray:
    """Integer codes of values (equal values, equal codes)."""
    index: dict[object, int] = {}
    return np.array([index.setdefault(value, len(index)) for value in values], dtype=np.int64)


# --- pairwise comparisons inside a group ------------------------------------------------------------------------


@dataclass(frozen=True)
class RowFeatures:
    """What the pair features need of every row of one split (built once per split)."""

    lemmas: list[str]
    codes: dict[str, np.ndarray]  # head, ner, is_o, pos, document, sentence
    tokens: sparse.csr_matrix  # rows x token vocabulary, binary
    sentence_lemmas: sparse.csr_matrix  # rows x lemma vocabulary, binary
    documents: sparse.csr_matrix  # rows x TF-IDF terms of their document, unit length
    lengths: np.ndarray
    arguments: sparse.csr_matrix  # rows x head lemmas of the other kind's mentions in the sentence, binary
    unit_documents: UnitDocuments
    mention_vectors: np.ndarray | None = None
    sentence_vectors: np.ndarray | None = None
    document_clusters: np.ndarray | None = None  # row -> predicted document cluster code (unique across units)
    argument_clusters: sparse.csr_matrix | None = None  # rows x predicted clusters of the arguments, binary


def row_features(data: SplitData, with_vectors: bool = True, document_threshold: float | None = None) -> RowFeatures:
    """The row features of a split (cached per split); ``with_vectors`` adds the MiniLM vectors
    (:func:`ucdcr.systems.parts.vectors.encodings`, needs the ``embed`` extra); ``document_threshold`` the predicted
    document clusters of every unit cut at that distance (:meth:`UnitDocuments.clusters`; None: one cluster per
    unit)."""
    from dataclasses import replace

    features = data.memo("row-features", lambda: _row_features(data))
    if document_threshold is not None:
        features = replace(features, document_clusters=features.unit_documents.clusters(document_threshold))
    if not with_vectors:
        return features
    from ucdcr.systems.parts.vectors import encodings

    vectors = encodings(data)
    return replace(features, mention_vectors=vectors.mentions, sentence_vectors=vectors.sentences)


def argument_clusters(data: SplitData, labels: Sequence[str | None]) -> sparse.csr_matrix:
    """Per row: the binary set of the predicted clusters (``labels[row]``, None for rows not clustered) of the
    other kind's mentions in its sentence."""
    sentences = list(zip(data.column("conll_doc_key"), data.column("sent_id"), strict=True))
    kinds = data.column("type")
    found: dict[tuple[object, str], set[str]] = {}
    for sentence, kind, label in zip(sentences, kinds, labels, strict=True):
        if label is not None:
            found.setdefault((sentence, kind), set()).add(label)
    other = {"event": "entity", "entity": "event"}
    return binary_sets(
        [
            frozenset(found.get((sentence, other.get(kind, "")), ()))
            for sentence, kind in zip(sentences, kinds, strict=True)
        ]
    )


def _row_features(data: SplitData) -> RowFeatures:
    tokens = data.column("tokens_text")
    ner = data.column("mention_ner")
    codes = {
        "head": _codes([head.lower() for head in data.column("mention_head")]),
        "ner": _codes(ner),
        "is_o": np.array([label == "O" for label in ner]),
        "pos": _codes(data.column("mention_head_pos")),
        "document": _codes(data.column("conll_doc_key")),
        "sentence": _codes(list(zip(data.column("conll_doc_key"), data.column("sent_id"), strict=True))),
    }
    return RowFeatures(
        lemmas=head_lemmas(data),
        codes=codes,
        tokens=binary_sets([{token.lower() for token in words} for words in tokens]),
        sentence_lemmas=binary_sets(content_lemmas(data)),
        documents=_document_vectors(data),
        lengths=np.array([len(words) for words in tokens], dtype=np.float64),
        arguments=binary_sets(_arguments(data)),
        unit_documents=unit_documents(data),
    )


def _arguments(data: SplitData) -> list[frozenset[str]]:
    """Per row: the lower-cased head lemmas of the mentions of the other kind (event / entity) in its sentence
    (an event's participants, times and places; the events an entity takes part in)."""
    sentences = list(zip(data.column("conll_doc_key"), data.column("sent_id"), strict=True))
    kinds = data.column("type")
    lemmas = head_lemmas(data)
    heads: dict[tuple[object, str], set[str]] = {}
    for sentence, kind, lemma in zip(sentences, kinds, lemmas, strict=True):
        heads.setdefault((sentence, kind), set()).add(lemma)
    other = {"event": "entity", "entity": "event"}
    return [
        frozenset(heads.get((sentence, other.get(kind, "")), ()))
        for sentence, kind in zip(sentences, kinds, strict=True)
    ]


def binary_sets(sets: Sequence[set[str] | frozenset[str]]) -> sparse.csr_matrix:
    vocabulary: dict[str, int] = {}
    rows, columns = [], []
    for row, items in enumerate(sets):
        for item in sorted(items):
            rows.append(row)
            columns.append(vocabulary.setdefault(item, len(vocabulary)))
    values = np.ones(len(rows), dtype=np.float64)
    return sparse.csr_matrix((values, (rows, columns)), shape=(len(sets), max(1, len(vocabulary))))


def _document_vectors(data: SplitData) -> sparse.csr_matrix:
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = document_texts(data)
    keys = sorted(texts)
    if not keys:
        return sparse.csr_matrix((data.mentions.num_rows, 1))
    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english", token_pattern=r"(?u)\b\w+\b")
    try:
        matrix = vectorizer.fit_transform([texts[key] for key in keys])
    except ValueError:  # no term at all (every document empty or stop words only)
        return sparse.csr_matrix((data.mentions.num_rows, 1))
    position = {key: index for index, key in enumerate(keys)}
    return sparse.csr_matrix(matrix[[position[key] for key in data.column("conll_doc_key")]])


@dataclass(frozen=True)
class UnitDocuments:
    """The documents of every unit of a split compared inside their unit: per unit, the TF-IDF cosines of its
    documents (:data:`ucdcr.systems.framework.topics.VECTORIZER` fitted on the unit's documents only, so that the words
    shared by the whole topic weigh little and those of one event weigh much) and their average-linkage tree."""

    unit: np.ndarray  # row -> unit index
    position: np.ndarray  # row -> index of its document among its unit's documents
    similarity: list[np.ndarray]  # per unit: documents x documents cosines
    trees: list[np.ndarray | None]  # per unit: scipy linkage of the cosine distances (None: one document)

    def cosines(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The unit-local document cosines of row pairs of one unit (1 for rows of one document)."""
        if len(left) == 0:
            return np.zeros(0)
        return self.similarity[int(self.unit[left[0]])][self.position[left], self.position[right]]

    def clusters(self, threshold: float) -> np.ndarray:
        """Row -> predicted document cluster (codes unique across units): every unit's tree cut at ``threshold``."""
        from scipy.cluster.hierarchy import fcluster

        per_unit = []
        offset = 0
        for tree in self.trees:
            found = np.ones(1, dtype=np.int64) if tree is None else fcluster(tree, t=threshold, criterion="distance")
            per_unit.append(found.astype(np.int64) + offset)
            offset += int(found.max()) + 1
        return np.array(
            [per_unit[int(unit)][int(position)] for unit, position in zip(self.unit, self.position, strict=True)],
            dtype=np.int64,
        )


def unit_documents(data: SplitData) -> UnitDocuments:
    """The unit-local document comparisons of a split (cached per split)."""
    return data.memo("unit-documents", lambda: _unit_documents(data))


def _unit_documents(data: SplitData) -> UnitDocuments:
    from scipy.cluster.hierarchy import linkage
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = document_texts(data)
    keys = data.column("conll_doc_key")
    unit = np.zeros(data.mentions.num_rows, dtype=np.int64)
    position = np.zeros(data.mentions.num_rows, dtype=np.int64)
    similarity: list[np.ndarray] = []
    trees: list[np.ndarray | None] = []
    for index, rows in enumerate(data.units()):
        documents = sorted({keys[row] for row in rows})
        place = {key: number for number, key in enumerate(documents)}
        for row in rows:
            unit[row], position[row] = index, place[keys[row]]
        matrix = np.ones((1, 1))
        if len(documents) > 1:
            corpus = [texts.get(key, "") for key in documents]
            try:
                vectors = TfidfVectorizer(**VECTORIZER, min_df=2).fit_transform(corpus)
            except ValueError:  # no word in two documents
                try:
                    vectors = TfidfVectorizer(**VECTORIZER).fit_transform(corpus)
                except ValueError:  # no word at all
                    vectors = sparse.csr_matrix(np.eye(len(documents)))
            matrix = np.asarray((vectors @ vectors.T).toarray(), dtype=np.float64)
            np.fill_diagonal(matrix, 1.0)
        similarity.append(matrix)
        if len(documents) > 1:
            upper = np.triu_indices(len(documents), 1)
            trees.append(linkage(np.clip(1.0 - matrix[upper], 0.0, None), method="average"))
        else:
            trees.append(None)
    return UnitDocuments(unit, position, similarity, trees)


DOCUMENT_THRESHOLDS: tuple[float, ...] = tuple(round(0.3 + 0.025 * step, 3) for step in range(28))
"""Candidate distance thresholds of the predicted document clusters inside a unit (0.3 to 0.975)."""


def tune_document_threshold(train: Sequence[SplitData]) -> tuple[float, float]:
    """The distance threshold of :data:`DOCUMENT_THRESHOLDS` whose document clusters inside the training units
    agree best with the gold subtopics (mean adjusted Rand index over the units of two or more documents; a tie
    goes to the smaller threshold), and that agreement. No unit of two documents: (1.0, 1.0), one cluster per
    unit."""
    from sklearn.metrics import adjusted_rand_score

    units: list[tuple[UnitDocuments, int, list[object]]] = []
    for data in train:
        documents = unit_documents(data)
        for index, rows in enumerate(data.units()):
            gold: dict[int, object] = {}
            for row in rows:
                gold.setdefault(int(documents.position[row]), data.column("subtopic_id")[row])
            if len(gold) > 1:
                units.append((documents, index, [gold[number] for number in range(len(gold))]))
    if not units:
        return 1.0, 1.0
    from scipy.cluster.hierarchy import fcluster

    best = (DOCUMENT_THRESHOLDS[0], -2.0)
    for threshold in DOCUMENT_THRESHOLDS:
        agreement = float(
            np.mean(
                [
                    adjusted_rand_score(gold, fcluster(documents.trees[index], t=threshold, criterion="distance"))
                    for documents, index, gold in units
                ]
            )
        )
        if agreement > best[1]:
            best = (threshold, agreement)
    return best


def pair_features(
    features: RowFeatures,
    rows: Sequence[int],
    stats: LemmaPairStats,
    held_out: LemmaPairStats | None = None,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """The :data:`FEATURES` of the pairs ``i < j`` of ``rows`` (one row per pair, in scipy's condensed order), or of
    the given ``pairs`` (positions in ``rows``: first, second).

    held_out: statistics to subtract from ``stats`` (the training pair's own fold).
    """
    index = np.asarray(rows)
    first, second = pairs if pairs is not None else np.triu_indices(len(index), 1)
    left, right = index[first], index[second]
    lemmas = features.lemmas
    lemma_a, lemma_b = [lemmas[row] for row in left], [lemmas[row] for row in right]
    coreferent, seen = stats.lookup(lemma_a, lemma_b)
    if held_out is not None:
        held_coreferent, held_seen = held_out.lookup(lemma_a, lemma_b)
        coreferent, seen = coreferent - held_coreferent, seen - held_seen
    codes = features.codes

    def same(name: str) -> np.ndarray:
        return (codes[name][left] == codes[name][right]).astype(np.float64)

    ner = np.where(codes["ner"][left] == codes["ner"][right], np.where(codes["is_o"][left], 1.0, 2.0), 0.0)
    columns = {
        "same_head_lemma": np.array([a == b for a, b in zip(lemma_a, lemma_b, strict=True)], dtype=np.float64),
        "same_head": same("head"),
        "lemma_pair_coreferent": np.log1p(coreferent),
        "lemma_pair_seen": np.log1p(seen),
        "lemma_pair_rate": np.where(seen > 0, coreferent / np.maximum(seen, 1), -1.0),
        "mention_cosine": _cosines(features.mention_vectors, index, first, second),
        "mention_cosine_margin": _margins(features.mention_vectors, index, first, second),
        "lemma_frequency": _lemma_frequency(lemmas, index, first, second),
        "sentence_cosine": _cosines(features.sentence_vectors, index, first, second),
        "document_cosine": (features.documents[index] @ features.documents[index].T).toarray()[first, second],
        "unit_document_cosine": features.unit_documents.cosines(left, right),
        "same_document_cluster": (
            np.ones(len(left))
            if features.document_clusters is None
            else (features.document_clusters[left] == features.document_clusters[right]).astype(np.float64)
        ),
        "argument_overlap": jaccard(features.arguments, index, (first, second), empty=-1.0),
        "argument_cluster_overlap": (
            np.full(len(left), -1.0)
            if features.argument_clusters is None
            else jaccard(features.argument_clusters, index, (first, second), empty=-1.0)
        ),
        "same_document": same("document"),
        "same_sentence": same("sentence"),
        "same_ner": ner,
        "same_head_pos": same("pos"),
        "token_overlap": jaccard(features.tokens, index, (first, second)),
        "sentence_lemma_overlap": jaccard(features.sentence_lemmas, index, (first, second)),
        "length_difference": np.abs(features.lengths[left] - features.lengths[right]),
    }
    return np.column_stack([columns[name] for name in FEATURES])


def _margins(vectors: np.ndarray | None, index: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """How far a pair's cosine is below each mention's best cosine in the group (mean of the two gaps; 0 for
    mutual nearest neighbours)."""
    if vectors is None or len(index) < 2:
        return np.zeros(len(first))
    chosen = vectors[index].astype(np.float64)
    cosines = chosen @ chosen.T
    np.fill_diagonal(cosines, -np.inf)
    best = cosines.max(axis=1)
    pair = cosines[first, second]
    return (best[first] - pair + best[second] - pair) / 2.0


def _lemma_frequency(lemmas: Sequence[str], index: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """log(1 + the smaller number of other mentions of the group sharing either mention's head lemma)."""
    codes = _codes([lemmas[row] for row in index])
    counts = np.bincount(codes) - 1
    return np.log1p(np.minimum(counts[codes[first]], counts[codes[second]]).astype(np.float64))


def _cosines(vectors: np.ndarray | None, index: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    if vectors is None:
        return np.zeros(len(first))
    chosen = vectors[index].astype(np.float64)
    return (chosen @ chosen.T)[first, second]


def jaccard(
    sets: sparse.csr_matrix,
    index: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
    empty: float | None = None,
) -> np.ndarray:
    """Jaccard overlap of the binary rows ``index`` of ``sets`` for the pairs ``i < j`` (or the given positions),
    0 when both are empty; ``empty``: the value when either is empty (nothing to compare)."""
    chosen = sets[index]
    first, second = pairs if pairs is not None else np.triu_indices(len(index), 1)
    overlap = (chosen @ chosen.T).toarray()[first, second]
    sizes = np.asarray(chosen.sum(axis=1)).ravel()
    union = sizes[first] + sizes[second] - overlap
    result = np.divide(overlap, union, out=np.zeros_like(overlap), where=union > 0)
    if empty is not None:
        result[(sizes[first] == 0) | (sizes[second] == 0)] = empty
    return result
