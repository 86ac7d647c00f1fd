"""Mention heads: the deterministic syntactic-head rule of docs/build-pipeline.md#heads.

Candidates are the span tokens whose syntactic head lies outside the span, or which are a root (head is itself).
Among several candidates: prefer tokens that are not punctuation or determiners, then the one closest to the
sentence root (fewest ancestors), then the leftmost. No set-order randomness (unlike the reference's rule A,
docs/build-pipeline.md#heads).

Works on anything token-like with ``i``, ``head.i``, ``pos_`` and ``ancestors`` (spaCy tokens), so it is easy to
test with small stand-ins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WEAK_POS = frozenset({"PUNCT", "DET"})


def syntactic_head(span: Sequence[Any]) -> Any:
    """The head token of a contiguous span of tokens of one sentence."""
    if len(span) == 1:
        return span[0]
    inside = {token.i for token in span}
    candidates = [t for t in span if t.head.i == t.i or t.head.i not in inside] or list(span)
    return min(candidates, key=lambda t: (t.pos_ in WEAK_POS, _depth(t), t.i))


def _depth(token: Any) -> int:
    return sum(1 for _ in token.ancestors)
