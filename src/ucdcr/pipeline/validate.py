"""Invariants of the unified format (DESIGN.md §4), checked before anything is written.

A violation raises :class:`~ucdcr.errors.InvariantError` naming the mention and the rule:
unique mention ids; tokens_text equals the document tokens at tokens_number; mention_context equals the document
tokens in context_start_end_global_id and agrees with tokens_number_context / mention_head_id_context; the head is
inside the mention; is_singleton equals "chain size 1 within the split"; every conll_doc_key is a built document;
splits are disjoint by document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import NoReturn

from ucdcr.errors import InvariantError
from ucdcr.records import MentionRecord


def singleton_flags(records: Sequence[MentionRecord]) -> list[bool]:
    """is_singleton of each record: its chain has exactly one mention in its split."""
    sizes = Counter((r.split, r.coref_chain) for r in records)
    return [sizes[(r.split, r.coref_chain)] == 1 for r in records]


def check_records(
    records: Sequence[MentionRecord],
    document_tokens: Mapping[str, list[tuple[int, int, str]]],
    document_splits: Mapping[str, str],
) -> None:
    """Check every invariant. ``document_tokens``: doc key -> [(sent_id, token_id, text)] in global order."""
    _check_unique_ids(records)
    flags = singleton_flags(records)
    positions = {key: {(s, t): g for g, (s, t, _) in enumerate(tokens)} for key, tokens in document_tokens.items()}
    for record, singleton in zip(records, flags):
        key = record.conll_doc_key
        if key not in document_tokens:
            _fail(record, f"conll_doc_key {key!r} is not a built document")
        if document_splits[key] != record.split:
            _fail(record, f"split {record.split!r} differs from its document's split {document_splits[key]!r}")
        if record.is_singleton != singleton:
            _fail(
                record,
                f"is_singleton is {record.is_singleton} but the chain has {'one' if singleton else 'several'} "
                "mention(s) in the split",
            )
        _check_tokens(record, document_tokens[key], positions[key])


def check_disjoint_splits(split_of_copies: Sequence[tuple[str, str]]) -> None:
    """Each document appears once, so in one split only (``split_of_copies``: (doc key, split) of every copy)."""
    seen: dict[str, str] = {}
    for key, split in split_of_copies:
        if key in seen:
            raise InvariantError(f"document {key} appears twice (splits {seen[key]}, {split})")
        seen[key] = split


def _check_unique_ids(records: Sequence[MentionRecord]) -> None:
    counts = Counter(r.mention_id for r in records)
    duplicates = [mention_id for mention_id, n in counts.items() if n > 1]
    if duplicates:
        raise InvariantError(f"mention_id {duplicates[0]!r} is not unique ({len(duplicates)} duplicated id(s))")


def _check_tokens(
    record: MentionRecord, tokens: list[tuple[int, int, str]], position: dict[tuple[int, int], int]
) -> None:
    sent = record.sent_id
    globals_ = []
    for number, text in zip(record.tokens_number, record.tokens_text, strict=True):
        g = position.get((sent, number))
        if g is None or tokens[g][2] != text:
            _fail(record, f"token {number} of sentence {sent} is not {text!r} in the document")
        globals_.append(g)
    if record.mention_head_id not in record.tokens_number:
        _fail(record, f"head id {record.mention_head_id} is outside the mention {record.tokens_number}")
    left, right = record.context_start_end_global_id
    context = record.mention_context
    if len(context) != right - left + 1 or [t[2] for t in tokens[left : right + 1]] != list(context):
        _fail(record, f"mention_context does not equal the document tokens {left}..{right}")
    if [g - left for g in globals_] != list(record.tokens_number_context):
        _fail(record, "tokens_number_context does not point at the mention tokens")
    head_global = position[(sent, record.mention_head_id)]
    if record.mention_head_id_context != head_global - left or context[head_global - left] != record.mention_head:
        _fail(record, "mention_head_id_context does not point at the head")


def _fail(record: MentionRecord, problem: str) -> NoReturn:
    raise InvariantError(
        f"mention {record.mention_id} ({record.conll_doc_key}, sentence {record.sent_id}, "
        f"{record.tokens_str!r}): {problem}"
    )
