"""Context windows, exactly as REFERENCE.md §2.3 (CONTEXT_RANGE = 100).

For one document with N tokens (global ids 0..N-1), sentence s spanning [first(s), last(s)], and a mention whose
first token has global id g (last token g_last, first token's index in its sentence / paragraph k), by the
dataset's :class:`~ucdcr.registry.ContextRule`:

- ``AROUND_FIRST_TOKEN`` (the main rule): left = 0 if g - 100 < 0 else first(sent(g - 100));
  right = last(sent(min(g + 100, N) - 1)); mention_sentence_start_end = [first(s_m) - left, last(s_m) + 1 - left]
  (end exclusive).
- ``TO_LAST_TOKEN``: left as above; right = last(sent(min(g_last + 100, N - 1)));
  mention_sentence_start_end has an INCLUSIVE end: [first(s_m) - left, last(s_m) - left].
- ``AROUND_FIRST_TOKEN_BY_PARAGRAPH`` (sources whose sentences are paragraphs): the branch test uses k
  (k - 100 < 0 -> left = 0), otherwise as the main rule.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from ucdcr.registry import ContextRule

CONTEXT_RANGE = 100


@dataclass(frozen=True, slots=True)
class Window:
    """[left, right] global ids (inclusive) and the mention sentence's [start, end] inside the window."""

    left: int
    right: int
    sentence_start: int
    sentence_end: int


class SentenceIndex:
    """Global token id -> sentence, over the sentence start offsets of one document."""

    def __init__(self, sentence_lengths: list[int]) -> None:
        self.starts: list[int] = []
        total = 0
        for length in sentence_lengths:
            self.starts.append(total)
            total += length
        self.n_tokens = total

    def sentence_of(self, global_id: int) -> int:
        return bisect_right(self.starts, global_id) - 1

    def first(self, sentence: int) -> int:
        return self.starts[sentence]

    def last(self, sentence: int) -> int:
        return (self.starts[sentence + 1] if sentence + 1 < len(self.starts) else self.n_tokens) - 1


def context_window(
    index: SentenceIndex, rule: ContextRule, first_global: int, last_global: int, first_local: int
) -> Window:
    """The window of a mention by ``rule``."""
    anchor = first_local if rule is ContextRule.AROUND_FIRST_TOKEN_BY_PARAGRAPH else first_global
    left = 0 if anchor - CONTEXT_RANGE < 0 else index.first(index.sentence_of(first_global - CONTEXT_RANGE))
    if rule is ContextRule.TO_LAST_TOKEN:
        right = index.last(index.sentence_of(min(last_global + CONTEXT_RANGE, index.n_tokens - 1)))
    else:
        right = index.last(index.sentence_of(min(first_global + CONTEXT_RANGE, index.n_tokens) - 1))
    sentence = index.sentence_of(first_global)
    start = index.first(sentence) - left
    end = index.last(sentence) - left + (0 if rule is ContextRule.TO_LAST_TOKEN else 1)
    return Window(left, right, start, end)
