"""Lemmas of the mentions' sentences (spaCy ``en_core_web_sm``, the model of the build), cached on disk.

A mention record has the lemma of its head only; the ``lemma-pairs`` and ``pairwise`` systems compare whole
sentences by their content lemmas. A sentence (``mention_context[a:b]``, the words as the build tokenised them;
a blank word becomes ``_``) is lemmatised as a pre-tokenised spaCy Doc by the tagger, attribute ruler and
lemmatizer of the build's model; the lemmas are cached (:mod:`ucdcr.systems.framework.cache`) under
:func:`lemmas_identity` (spaCy's version, the model's name and version, this module's version) and the exact
words.

Content lemmas (:func:`content_lemmas`): lower-cased lemmas with at least one letter or digit that are not NLTK
English stop words (the list :mod:`ucdcr.analysis.diversity` uses).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from ucdcr.analysis.diversity import english_stopwords
from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.framework.cache import COMPUTE_CLOCK, EncodingCache
from ucdcr.systems.framework.environment import lemmatizer_identity

_PIPES = ("tok2vec", "tagger", "attribute_ruler", "lemmatizer")
_VERSION = "v1"


def sentence_words(data: SplitData) -> list[tuple[str, ...]]:
    """The words of every row's sentence."""
    return [
        tuple(context[start:end])
        for context, (start, end) in zip(
            data.column("mention_context"), data.column("mention_sentence_start_end"), strict=True
        )
    ]


def content_lemmas(data: SplitData) -> list[frozenset[str]]:
    """The content lemmas (module docstring) of every row's sentence (cached per split in memory)."""
    return data.memo("content-lemmas", lambda: _content_lemmas(data))


def _content_lemmas(data: SplitData) -> list[frozenset[str]]:
    stopwords = english_stopwords()
    by_sentence = sentence_lemmas(sentence_words(data), data)
    content: dict[tuple[str, ...], frozenset[str]] = {}
    for words, lemmas in by_sentence.items():
        lowered = (lemma.lower() for lemma in lemmas)
        content[words] = frozenset(
            lemma for lemma in lowered if any(c.isalnum() for c in lemma) and lemma not in stopwords
        )
    return [content[words] for words in sentence_words(data)]


def sentence_lemmas(sentences: Sequence[tuple[str, ...]], data: SplitData) -> dict[tuple[str, ...], list[str]]:
    """The lemmas of each distinct sentence (words -> lemmas), from the cache or spaCy."""
    from ucdcr.pipeline.nlp import load_nlp

    distinct = list(dict.fromkeys(sentences))
    keys = {words: json.dumps(words, ensure_ascii=False) for words in distinct}
    cache = EncodingCache(data.cache_dir)
    namespace = f"lemmas:{lemmas_identity()}"
    stored = cache.get(namespace, list(keys.values()))
    missing = [words for words in distinct if keys[words] not in stored]
    started = time.perf_counter()
    if missing:
        from spacy.tokens import Doc

        nlp = load_nlp()
        docs = [Doc(nlp.vocab, words=[word if word.strip() else "_" for word in words]) for words in missing]
        with nlp.select_pipes(enable=[name for name in _PIPES if name in nlp.pipe_names]):
            new = {
                keys[words]: json.dumps([token.lemma_ for token in doc], ensure_ascii=False).encode()
                for words, doc in zip(missing, nlp.pipe(docs, batch_size=256), strict=True)
            }
        cache.put(namespace, new)
        stored.update(new)
    COMPUTE_CLOCK.add(time.perf_counter() - started, len(missing), len(distinct) - len(missing))
    return {words: json.loads(stored[keys[words]]) for words in distinct}


def lemmas_identity() -> str:
    """What computes the cached lemmas: the lemmatiser
    (:func:`~ucdcr.systems.framework.environment.lemmatizer_identity`: spaCy's version, the model's name and
    version) and :data:`_VERSION`. It keys the cached lemmas."""
    return f"{lemmatizer_identity()} lemmas {_VERSION}"
