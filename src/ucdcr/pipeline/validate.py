"""Invariants of the unified format (docs/build-pipeline.md#invariants), checked before anything is written.

A violation raises :class:`~ucdcr.errors.InvariantError` naming the mention and the rule:
unique mention ids; tokens_text equals the document tokens at tokens_number; mention_context equals the document
tokens in context_start_end_global_id and agrees with tokens_number_context / mention_head_id_context; the head is
inside the mention; is_singleton equals "chain size 1 within the split"; every conll_doc_key is a built document
and the record's split is its document's (a document is built once, so splits are disjoint: the build refuses a
second document under a key).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import groupby
from operator import itemgetter
from typing import Any, NoReturn

from ucdcr.errors import InvariantError
from ucdcr.records import MentionRecord


def singleton_flags(
    records: Sequence[MentionRecord], chain_sizes: Mapping[tuple[str, str], int] | None = None
) -> list[bool]:
    """is_singleton of each record: its chain has exactly one mention in its split. ``chain_sizes``: (split, chain)
    -> number of mentions over the whole dataset, when ``records`` are only part of it."""
    sizes = Counter((r.split, r.coref_chain) for r in records) if chain_sizes is None else chain_sizes
    return [sizes.get((r.split, r.coref_chain), 0) == 1 for r in records]


def check_records(
    records: Sequence[MentionRecord],
    document_tokens: Mapping[str, list[tuple[int, int, str]]],
    document_splits: Mapping[str, str],
    chain_sizes: Mapping[tuple[str, str], int] | None = None,
) -> None:
    """Check every invariant. ``document_tokens``: doc key -> [(sent_id, token_id, text)] in global order.
    ``records`` may be part of the dataset (one document, say), with the dataset's ``chain_sizes``
    (:func:`singleton_flags`); uniqueness of ids is then checked over the dataset by :func:`check_unique_ids`."""
    check_rows([record.as_row() for record in records], document_tokens, document_splits, chain_sizes)


def check_rows(
    rows: Sequence[Mapping[str, Any]],
    document_tokens: Mapping[str, list[tuple[int, int, str]]],
    document_splits: Mapping[str, str],
    chain_sizes: Mapping[tuple[str, str], int] | None = None,
) -> None:
    """:func:`check_records` on the records' rows (the 29 fields by name, as the writer writes them)."""
    check_unique_ids(row["mention_id"] for row in rows)
    if chain_sizes is None:
        chain_sizes = Counter((row["split"], row["coref_chain"]) for row in rows)
    positions = {key: _Positions(tokens) for key, tokens in document_tokens.items()}
    for row in rows:
        key = row["conll_doc_key"]
        if key not in document_tokens:
            _fail(row, f"conll_doc_key {key!r} is not a built document")
        if document_splits[key] != row["split"]:
            _fail(row, f"split {row['split']!r} differs from its document's split {document_splits[key]!r}")
        singleton = chain_sizes.get((row["split"], row["coref_chain"]), 0) == 1
        if row["is_singleton"] != singleton:
            _fail(
                row,
                f"is_singleton is {row['is_singleton']} but the chain has {'one' if singleton else 'several'} "
                "mention(s) in the split",
            )
        _check_tokens(row, document_tokens[key], positions[key])


def check_unique_ids(mention_ids: Iterable[str]) -> None:
    """Every mention id once."""
    counts = Counter(mention_ids)
    duplicates = [mention_id for mention_id, n in counts.items() if n > 1]
    if duplicates:
        raise InvariantError(f"mention_id {duplicates[0]!r} is not unique ({len(duplicates)} duplicated id(s))")


class _Positions:
    """(sent_id, token_id) -> global index in a document's tokens. Found from each sentence's first index when the
    token ids of a sentence are its positions (as the builder writes them), else from a full index of the tokens."""

    def __init__(self, tokens: list[tuple[int, int, str]]) -> None:
        self.tokens = tokens
        self.texts = list(map(itemgetter(2), tokens))
        self.starts: dict[int, tuple[int, int]] = {}
        first = 0
        for sent_id, group in groupby(map(itemgetter(0), tokens)):
            size = len(list(group))
            self.starts.setdefault(sent_id, (first, size))
            first += size
        self._index: dict[tuple[int, int], int] | None = None

    def get(self, key: tuple[int, int]) -> int | None:
        sent_id, token_id = key
        first, size = self.starts.get(sent_id, (0, 0))
        if 0 <= token_id < size and self.tokens[first + token_id][:2] == key:
            return first + token_id
        if self._index is None:
            self._index = {(s, t): g for g, (s, t, _) in enumerate(self.tokens)}
        return self._index.get(key)

    def __getitem__(self, key: tuple[int, int]) -> int:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found


def _check_tokens(row: Mapping[str, Any], tokens: list[tuple[int, int, str]], position: _Positions) -> None:
    sent = row["sent_id"]
    globals_ = []
    for number, text in zip(row["tokens_number"], row["tokens_text"], strict=True):
        g = position.get((sent, number))
        if g is None or tokens[g][2] != text:
            _fail(row, f"token {number} of sentence {sent} is not {text!r} in the document")
        globals_.append(g)
    head_id = row["mention_head_id"]
    if head_id not in row["tokens_number"]:
        _fail(row, f"head id {head_id} is outside the mention {row['tokens_number']}")
    left, right = row["context_start_end_global_id"]
    context = row["mention_context"]
    if len(context) != right - left + 1 or position.texts[left : right + 1] != list(context):
        _fail(row, f"mention_context does not equal the document tokens {left}..{right}")
    if [g - left for g in globals_] != list(row["tokens_number_context"]):
        _fail(row, "tokens_number_context does not point at the mention tokens")
    head_global = position[(sent, head_id)]
    if row["mention_head_id_context"] != head_global - left or context[head_global - left] != row["mention_head"]:
        _fail(row, "mention_head_id_context does not point at the head")


def _fail(row: Mapping[str, Any], problem: str) -> NoReturn:
    raise InvariantError(
        f"mention {row['mention_id']} ({row['conll_doc_key']}, sentence {row['sent_id']}, "
        f"{row['tokens_str']!r}): {problem}"
    )
