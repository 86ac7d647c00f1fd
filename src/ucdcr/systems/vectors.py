"""Mention-in-context and sentence vectors from the MiniLM encoder (``embed`` extra), cached on disk.

Input of a mention: the words of its sentence (``mention_context[a:b]`` with ``(a, b) =
mention_sentence_start_end``), cut to at most :data:`WINDOW` words around the mention when the sentence is longer,
given to the tokenizer pre-split, so that every subword is known to belong to one word. One forward pass per
distinct input gives the last layer's subword vectors, of which we keep

- the mention vector: the mean of the subword vectors of the mention's words (a span embedding in context, as
  span-based coreference models pool their span tokens);
- the sentence vector: the mean of all subword vectors, [CLS] and [SEP] included (the encoder's own mean
  pooling, i.e. the all-MiniLM-L6-v2 sentence embedding before normalisation).

Both are L2-normalised, so a dot product is a cosine. They are cached (:mod:`ucdcr.systems.cache`) under the
encoder's id and the exact input, so a mention seen once (in any dataset or run) is never encoded again, and the
encoder is not even loaded when every vector is cached. Inputs are encoded in batches of similar length, longest
first; a cold run stores exactly the vectors it used.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ucdcr.embed import encoder_id, require_sentence_encoder
from ucdcr.systems.base import SplitData
from ucdcr.systems.cache import COMPUTE_CLOCK, EncodingCache

WINDOW = 96  # words: MiniLM reads at most 256 subwords, ~1.3 subwords per word in news text
BATCH = 32
DIMENSIONS = 384
_VERSION = "v1"


@dataclass(frozen=True, slots=True)
class MentionInput:
    """What is encoded for one mention: the words and the mention's words ``[start, end)`` among them."""

    words: tuple[str, ...]
    start: int
    end: int

    @property
    def sentence_key(self) -> str:
        return json.dumps(self.words, ensure_ascii=False)

    @property
    def span_key(self) -> str:
        return json.dumps([self.words, self.start, self.end], ensure_ascii=False)


@dataclass(frozen=True)
class Encodings:
    """Per row of a split: the mention vector and the sentence vector (float32, unit length)."""

    mentions: np.ndarray
    sentences: np.ndarray


def mention_input(context: Sequence[str], sentence: Sequence[int], positions: Sequence[int]) -> MentionInput:
    """The encoder input of one mention from its context window, sentence span ``[a, b)`` in the window and the
    window positions of its tokens (see the module docstring)."""
    first, last = min(positions), max(positions) + 1
    start, end = min(sentence[0], first), max(sentence[1], last)
    if end - start > WINDOW:
        room = max(0, WINDOW - (last - first))
        start = max(start, min(first - room // 2, end - WINDOW))
        end = min(end, start + max(WINDOW, last - first))
    return MentionInput(tuple(context[start:end]), first - start, last - start)


def mention_inputs(data: SplitData) -> list[MentionInput]:
    """The encoder input of every row of a split."""
    return [
        mention_input(context, sentence, positions)
        for context, sentence, positions in zip(
            data.column("mention_context"),
            data.column("mention_sentence_start_end"),
            data.column("tokens_number_context"),
            strict=True,
        )
    ]


def encodings(data: SplitData) -> Encodings:
    """The mention and sentence vectors of every row of a split (cached on disk and per split in memory)."""
    return data.memo("minilm-encodings", lambda: _encodings(data))


def _encodings(data: SplitData) -> Encodings:
    inputs = mention_inputs(data)
    cache = EncodingCache(data.cache_dir)
    identity = encoder_id()
    span_space, sentence_space = f"span:{identity}:{_VERSION}", f"sentence:{identity}:{_VERSION}"
    spans = cache.get(span_space, [item.span_key for item in inputs])
    sentences = cache.get(sentence_space, [item.sentence_key for item in inputs])
    missing = [item for item in inputs if item.span_key not in spans or item.sentence_key not in sentences]
    started = time.perf_counter()
    if missing:
        new_spans, new_sentences = _encode(missing)
        cache.put(span_space, new_spans)
        cache.put(sentence_space, new_sentences)
        spans.update(new_spans)
        sentences.update(new_sentences)
    computed = len({item.span_key for item in missing})
    COMPUTE_CLOCK.add(time.perf_counter() - started, computed, len({item.span_key for item in inputs}) - computed)
    return Encodings(
        np.stack([np.frombuffer(spans[item.span_key], dtype=np.float32) for item in inputs])
        if inputs
        else np.zeros((0, DIMENSIONS), np.float32),
        np.stack([np.frombuffer(sentences[item.sentence_key], dtype=np.float32) for item in inputs])
        if inputs
        else np.zeros((0, DIMENSIONS), np.float32),
    )


def _encode(items: Sequence[MentionInput]) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """Span and sentence vectors (float32 bytes) of the given inputs, one forward pass per distinct word list."""
    import torch

    encoder = require_sentence_encoder()
    transformer = encoder[0]
    by_words: dict[tuple[str, ...], list[MentionInput]] = {}
    for item in items:
        by_words.setdefault(item.words, []).append(item)
    ordered = sorted(by_words, key=lambda words: (-len(words), words))
    spans: dict[str, bytes] = {}
    sentences: dict[str, bytes] = {}
    with torch.inference_mode():
        for begin in range(0, len(ordered), BATCH):
            batch = ordered[begin : begin + BATCH]
            encoded = transformer.tokenizer(
                [list(words) for words in batch],
                is_split_into_words=True,
                padding=True,
                truncation=True,
                max_length=transformer.max_seq_length,
                return_tensors="pt",
            )
            hidden = transformer.auto_model(
                input_ids=encoded["input_ids"], attention_mask=encoded["attention_mask"]
            ).last_hidden_state.numpy()
            mask = encoded["attention_mask"].numpy().astype(bool)
            for index, words in enumerate(batch):
                states = hidden[index]
                sentence = _unit(states[mask[index]].mean(axis=0))
                word_ids = np.array([-1 if w is None else w for w in encoded.word_ids(index)])
                sentences[json.dumps(words, ensure_ascii=False)] = sentence.tobytes()
                for item in by_words[words]:
                    inside = (word_ids >= item.start) & (word_ids < item.end)
                    vector = _unit(states[inside].mean(axis=0)) if inside.any() else sentence
                    spans[item.span_key] = vector.tobytes()
    return spans, sentences


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm > 0 else vector).astype(np.float32)
