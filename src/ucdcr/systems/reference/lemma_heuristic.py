"""``lh``: the lemma heuristic of Ahmed et al. (2023), "2*n is better than n²: Decomposing Event Coreference
Resolution into Two Tractable Problems" (Findings of ACL 2023), as their released code computes it
(``heuristic.py``: ``lh`` -> ``get_mention_pair_similarity_lemma2``, then ``cluster_cc``).

Inside one evaluation unit and one kind (event / entity), two mentions ``a`` and ``b`` are linked when

- (lemma) ``a``'s head lemma is a substring of ``b``'s mention text, or ``b``'s of ``a``'s, or one head lemma is
  a substring of the other (all lower-cased; the text is the mention's words joined by spaces), or the sorted
  pair of their head lemmas is coreferent somewhere in the training split (two lemmas of one gold chain:
  :func:`~ucdcr.systems.parts.candidates.coreferent_lemma_pairs`), **and**
- (sentence) the Jaccard overlap of their sentences' token sets is above :data:`SENTENCE_OVERLAP` (0.05, their
  default), a sentence's tokens being, as their preprocessing makes its ``sentence_tokens`` (``parse_ecb.py`` of
  ahmeshaf/coreference_and_annotations), the lower-cased spaCy lemmas of its words that are neither stop words nor
  punctuation (spaCy's English ``is_stop`` and ``is_punct``), and of the pronouns he, she, his, him and her (kept
  although stop words);

the clusters are the connected components of the links. Nothing is tuned: the threshold is theirs.

Where it departs from their code: their last lemma test reads one order of the pair (which one follows their
mention ids), here either; they ran events alone (entities get the same rule here); their lemma is their
preprocessing's head lemma (spaCy's ``en_core_web_md``, of the span's root in its sentence), here ucdcr's (spaCy 3's
``en_core_web_sm``, lower-cased) and the sentence lemmas are those of :mod:`ucdcr.systems.parts.lemmas` (the
build's model); their mentions are those of ECB+'s validated sentences, here the dataset's. Version 1 compared the
sentences' words as written: on ECB+ val events, of the 5,832 links of their released dev output
(``datasets/ecb/lh/mp_mp_t_dev.pkl`` of ahmeshaf/lemma_ce_coref, on the mentions found here), version 1 had 4,725
and 1,111 others, version 2 has 5,299 and 511 others (of the 533 it lacks, 469 fail the lemma test here: the
lemmas differ). The training pairs are the lemma pairs of gold chains, which equals their coreferent within-topic
pairs as chains lie inside topics; the units are the protocol's (their ECB+ test used Barhom et al.'s predicted
topics, here ucdcr's with ``--topics predicted``). Their ``LH_ORACLE`` (synonym pairs from the evaluated split's own
gold) is not offered: it reads gold.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np
from scipy import sparse

from ucdcr.systems.framework.base import SplitData, System
from ucdcr.systems.parts.candidates import coreferent_lemma_pairs
from ucdcr.systems.parts.clustering import linked_components
from ucdcr.systems.parts.features import binary_sets, head_lemmas, jaccard
from ucdcr.systems.parts.lemmas import sentence_lemmas, sentence_words

SENTENCE_OVERLAP = 0.05
"""The sentence-overlap threshold of Ahmed et al.'s released code (``lh(dataset, threshold=0.05)``)."""
KEPT_PRONOUNS = frozenset({"he", "she", "his", "him", "her"})
"""Stop words their sentence tokens keep (module docstring)."""


class LemmaHeuristic(System):
    """Ahmed et al.'s lemma heuristic (module docstring)."""

    name = "lh"
    version = "2"
    trainable = True
    deterministic = True  # it draws nothing at random

    def __init__(self) -> None:
        self.lemma_pairs: frozenset[tuple[str, str]] = frozenset()

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        self.lemma_pairs = coreferent_lemma_pairs(train)

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        groups = test.units(by_type=True)
        links = [self.links(test, rows) for rows in groups]
        labels = linked_components(groups, links, test.mentions.num_rows)
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def links(self, data: SplitData, rows: Sequence[int]) -> np.ndarray:
        """The boolean link matrix of one group's rows (upper triangle). The lemma tests run once per pair of
        distinct lemmas (and texts), not per pair of mentions."""
        size = len(rows)
        linked = np.zeros((size, size), dtype=bool)
        if size < 2:
            return linked
        all_lemmas, all_texts = head_lemmas(data), _mention_texts(data)
        lemmas, lemma_of = np.unique(np.array([all_lemmas[row] for row in rows], dtype=object), return_inverse=True)
        texts, text_of = np.unique(np.array([all_texts[row] for row in rows], dtype=object), return_inverse=True)
        in_text = np.array([[lemma in text for text in texts] for lemma in lemmas], dtype=bool)
        related = np.array(
            [[a in b or b in a or (min(a, b), max(a, b)) in self.lemma_pairs for b in lemmas] for a in lemmas],
            dtype=bool,
        )
        lemma_rule = in_text[np.ix_(lemma_of, text_of)]
        lemma_rule |= lemma_rule.T
        lemma_rule |= related[np.ix_(lemma_of, lemma_of)]
        first, second = np.triu_indices(size, 1)
        overlap = jaccard(_sentence_sets(data), np.asarray(rows))
        chosen = lemma_rule[first, second] & (overlap > SENTENCE_OVERLAP)
        linked[first[chosen], second[chosen]] = True
        return linked

    def describe(self) -> str:
        return (
            f"{len(self.lemma_pairs):,} coreferent training lemma pairs; sentence overlap above {SENTENCE_OVERLAP:g} "
            "(Ahmed et al.'s)"
        )


def _mention_texts(data: SplitData) -> list[str]:
    return data.memo("lh:mention-texts", lambda: [" ".join(words).lower() for words in data.column("tokens_text")])


def _sentence_sets(data: SplitData) -> sparse.csr_matrix:
    return data.memo("lh:sentence-tokens", lambda: binary_sets(sentence_tokens(data)))


def sentence_tokens(data: SplitData) -> list[set[str]]:
    """Each row's sentence tokens as Ahmed et al.'s preprocessing makes them (module docstring)."""
    from spacy.lang.en.stop_words import STOP_WORDS
    from spacy.lang.lex_attrs import is_punct

    sentences = sentence_words(data)
    lemmas = sentence_lemmas(sentences, data)
    tokens: dict[tuple[str, ...], set[str]] = {}
    for words in dict.fromkeys(sentences):
        tokens[words] = {
            lemma.lower()
            for word, lemma in zip(words, lemmas[words], strict=True)
            if not (word.lower() in STOP_WORDS or is_punct(word)) or lemma.lower() in KEPT_PRONOUNS
        }
    return [tokens[words] for words in sentences]
