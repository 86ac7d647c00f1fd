"""Mention-in-context and sentence vectors from the MiniLM encoder (``embed`` extra), cached on disk.

Input of a mention: the words of its sentence (``mention_context[a:b]`` with ``(a, b) =
mention_sentence_start_end``), cut to at most :data:`WINDOW` words around the mention when the sentence is longer,
given to the tokenizer pre-split, so that every subword is known to belong to one word. One forward pass per
distinct input gives the last layer's subword vectors, of which we keep

- the mention vector: the mean of the subword vectors of the mention's words (a span embedding in context, as
  span-based coreference models pool their span tokens);
- the sentence vector: the mean of all subword vectors, [CLS] and [SEP] included (the encoder's own mean
  pooling, i.e. the all-MiniLM-L6-v2 sentence embedding before normalisation).

Both are L2-normalised, so a dot product is a cosine.

A vector is a function of its input alone, whatever else is encoded, in which order, and whatever the cache held:
each distinct word list is encoded in a batch of its own (no padding, no companion) with torch on one thread.
Padding, the batch size and the number of threads each change the last bits of a vector (up to ~1e-6: the matrix
products split their sums differently; measured on this package's CPU wheel, ``bench/encoding_determinism.py``),
and an agglomerative clustering cut at a tuned threshold can turn such bits into different clusters. The cost is
measured by the same script.

Vectors are cached (:mod:`ucdcr.systems.framework.cache`) under :func:`vectors_identity` (the encoder's weights and
libraries and numpy's version, :func:`ucdcr.systems.framework.environment.encoder_identity`, and :data:`VERSION`)
and the exact input, so a mention seen once (in any dataset or run) is never encoded again, and the encoder is not
even loaded when every vector is cached. Change :data:`VERSION` whenever the computation changes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ucdcr.embed import require_sentence_encoder
from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.framework.cache import COMPUTE_CLOCK, EncodingCache
from ucdcr.systems.framework.environment import encoder_identity

WINDOW = 96  # words: MiniLM reads at most 256 subwords, ~1.3 subwords per word in news text
DIMENSIONS = 384
VERSION = "v2"  # v2: a batch of one per input on one thread (v1: padded batches of 32)


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


def mention_input(
    context: Sequence[str], sentence: Sequence[int], positions: Sequence[int], window: int = WINDOW
) -> MentionInput:
    """The encoder input of one mention from its context window, sentence span ``[a, b)`` in the window and the
    window positions of its tokens (see the module docstring), at most ``window`` words."""
    first, last = min(positions), max(positions) + 1
    start, end = min(sentence[0], first), max(sentence[1], last)
    if end - start > window:
        room = max(0, window - (last - first))
        start = max(start, min(first - room // 2, end - window))
        end = min(end, start + max(window, last - first))
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


def vectors_identity() -> str:
    """What computes a cached vector (module docstring): keys the cache."""
    return f"{encoder_identity()} vectors {VERSION}"


def encodings(data: SplitData) -> Encodings:
    """The mention and sentence vectors of every row of a split (cached on disk and per split in memory)."""
    return data.memo("minilm-encodings", lambda: _encodings(data))


def _encodings(data: SplitData) -> Encodings:
    inputs = mention_inputs(data)
    cache = EncodingCache(data.cache_dir)
    identity = vectors_identity()
    span_space, sentence_space = f"span:{identity}", f"sentence:{identity}"
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
    """Span and sentence vectors (float32 bytes) of the given inputs, one forward pass per distinct word list, each
    in a batch of its own on one thread (module docstring)."""
    transformer = require_sentence_encoder()[0]  # the embed extra's error before torch is imported
    import torch

    by_words: dict[tuple[str, ...], list[MentionInput]] = {}
    for item in items:
        by_words.setdefault(item.words, []).append(item)
    spans: dict[str, bytes] = {}
    sentences: dict[str, bytes] = {}
    with torch.inference_mode(), one_thread():
        for words, group in by_words.items():
            encoded = transformer.tokenizer(
                list(words),
                is_split_into_words=True,
                truncation=True,
                max_length=transformer.max_seq_length,
                return_tensors="pt",
            )
            states = transformer.auto_model(
                input_ids=encoded["input_ids"], attention_mask=encoded["attention_mask"]
            ).last_hidden_state.numpy()[0]
            sentence = _unit(states.mean(axis=0))
            sentences[json.dumps(words, ensure_ascii=False)] = sentence.tobytes()
            word_ids = np.array([-1 if word is None else word for word in encoded.word_ids(0)])
            for item in group:
                inside = (word_ids >= item.start) & (word_ids < item.end)
                spans[item.span_key] = (_unit(states[inside].mean(axis=0)) if inside.any() else sentence).tobytes()
    return spans, sentences


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch's intra-op threads set to one for the block (then put back): a vector must not depend on the number
    of cores."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm > 0 else vector).astype(np.float32)
