"""The records of a build: what every format reader produces and what the build pipeline makes of it.

A dataset module turns its raw files into one :class:`SourceCorpus`: documents with their ORIGINAL tokens
(original token ids and sentence numbers), mentions pointing at original token ids, and every mention the
reader had to leave out (:class:`DroppedMention`, with its reason). Nothing about spaCy, heads or contexts is
known there; the pipeline adds those (detokenize -> parse -> align -> enrich -> validate -> write) and gives
every kept mention a :class:`MentionRecord`: the 29 fields of the unified format plus the output file it goes to
(its kind). A dataset's finalize hook takes and returns these records.

Records are plain, picklable dataclasses so that the per-document stages can run in a process pool (or, later,
Ray) unchanged.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from functools import partial
from pathlib import Path
from typing import Any, Literal, NamedTuple

Split = Literal["train", "val", "test"]
SPLITS: tuple[Split, ...] = ("train", "val", "test")
MentionKind = Literal["event", "entity"]


class SourceToken(NamedTuple):
    """One token as the source gives it.

    token_id: the source's own id (CAT ``t_id``, MMAX2 ``word_N``, CoNLL line number, ...), unique in the document.
    sent_id: the source's sentence number (0-based where the source is 0-based; kept as given).
    space_after: whether whitespace follows in the original text, when the source knows it (None: the
        detokenizer decides).
    """

    token_id: str
    text: str
    sent_id: int
    space_after: bool | None = None


@dataclass(slots=True)
class SourceDocument:
    """One document with its place in the topic/subtopic structure and its split."""

    topic_id: str
    topic: str
    subtopic_id: str
    subtopic: str
    doc_id: str
    doc: str
    split: Split
    tokens: list[SourceToken]
    source_file: str = ""  # raw file it came from (relative to the raw dir), for errors and the report

    @property
    def doc_key(self) -> str:
        """The uCDCR ``conll_doc_key``: ``topic_id/subtopic_id/doc_id``."""
        return f"{self.topic_id}/{self.subtopic_id}/{self.doc_id}"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled with its tokens as four columns (a document goes to a worker process; one object per token
        would cost several times more)."""
        fields = (self.topic_id, self.topic, self.subtopic_id, self.subtopic, self.doc_id, self.doc, self.split)
        columns = tuple(map(list, zip(*self.tokens, strict=True))) if self.tokens else ()
        return _unpickle_document, (fields, columns, self.source_file)


def source_tokens(*columns: Iterable[Any]) -> Iterator[SourceToken]:
    """SourceTokens from columns (token ids, texts, sent ids, spaces after), without a Python call per token."""
    return map(partial(tuple.__new__, SourceToken), zip(*columns, strict=True))


def _unpickle_document(fields: tuple[Any, ...], columns: tuple[list[Any], ...], source_file: str) -> SourceDocument:
    tokens = list(source_tokens(*columns)) if columns else []
    topic_id, topic, subtopic_id, subtopic, doc_id, doc, split = fields
    return SourceDocument(topic_id, topic, subtopic_id, subtopic, doc_id, doc, split, tokens, source_file)


@dataclass(frozen=True, slots=True)
class GivenHead:
    """A mention's head as its source annotates it: the head word (its first occurrence in the mention is the head
    token), its lemma, POS and NER. An empty lemma, POS or NER falls back to the parser's."""

    text: str
    lemma: str = ""
    pos: str = ""
    ner: str = ""


@dataclass(slots=True)
class SourceMention:
    """One annotated mention, on original tokens.

    token_ids: original token ids of the mention in document order; the reader fills gaps of discontinuous
        annotations (min..max) where the dataset rule says so, so the span is contiguous.
    chain_id: the gold chain (coref_chain); unlinked mentions get a chain of their own (a singleton).
    kind: "event" or "entity": decides the output file (event_mentions.json / entity_mentions.json).
    source_id: the annotation's own id (markable id, row number, ...), used for the mention_id and the report; it
        tells apart mentions of one document on the same tokens and never holds the chain (mention ids do not
        depend on the chains, docs/unified-format.md#mention-ids).
    given_head: the head annotation the source gives (WEC-Eng), used instead of the parser's; None elsewhere.
    """

    doc_key: str
    token_ids: tuple[str, ...]
    chain_id: str
    kind: MentionKind
    full_type: str
    description: str
    source_id: str
    coref_type: str = "IDENTITY"
    given_head: GivenHead | None = None


@dataclass(frozen=True, slots=True)
class DroppedMention:
    """A mention that is not in the output, and why. Every one of them is listed in build_report.json."""

    doc_key: str
    source_id: str
    span: str  # original token ids or character span, human readable
    text: str
    reason: str
    stage: str  # "read", "align", "enrich", "finalize", ...


@dataclass(slots=True)
class SourceCorpus:
    """Everything a reader gives the pipeline for one dataset."""

    documents: list[SourceDocument]
    mentions: list[SourceMention]
    dropped: list[DroppedMention] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # reader-level stage counts, e.g. {"annotated": 15122}
    unavailable_splits: dict[str, str] = field(default_factory=dict)  # split -> why it cannot be built here
    inputs: list[Path] = field(default_factory=list)  # raw files read (their sha256 go into the report)
    notes: list[str] = field(default_factory=list)  # human-readable remarks for the build report
    # A streaming reader leaves documents and mentions empty and yields each document with its mentions here; the
    # other fields are complete once the stream is exhausted.
    stream: Iterator[tuple[SourceDocument, list[SourceMention]]] | None = None
    # How many documents the stream will yield, when the reader knows it before streaming (progress shows a total).
    document_count: int | None = None

    def parts(self) -> Iterator[tuple[SourceDocument, list[SourceMention]]]:
        """Each document with its mentions, in corpus order (the stream once, or the lists)."""
        if self.stream is not None:
            stream, self.stream = self.stream, None
            yield from stream
            return
        by_document: dict[str, list[SourceMention]] = {}
        for mention in self.mentions:
            by_document.setdefault(mention.doc_key, []).append(mention)
        for document in self.documents:
            yield document, by_document.get(document.doc_key, [])

    def orphan_mentions(self, doc_keys: Container[str]) -> list[SourceMention]:
        """The listed mentions whose document is not among ``doc_keys``, grouped by document key."""
        by_document: dict[str, list[SourceMention]] = {}
        for mention in self.mentions:
            if mention.doc_key not in doc_keys:
                by_document.setdefault(mention.doc_key, []).append(mention)
        return [mention for mentions in by_document.values() for mention in mentions]

    def materialized(self) -> SourceCorpus:
        """This corpus with a streaming reader's documents and mentions drained into the lists."""
        if self.stream is not None:
            for document, mentions in self.parts():
                self.documents.append(document)
                self.mentions.extend(mentions)
        return self


def mention_type_of(full_type: str) -> str:
    """The ``mention_type`` of a ``mention_full_type``: its first three characters (``HUMAN_PART_PER`` -> ``HUM``)."""
    return full_type[:3]


@dataclass(frozen=True, slots=True)
class MentionRecord:
    """One mention of the unified format: the 29 fields in the order of :data:`ucdcr.schema.MENTION_SCHEMA`, and
    ``kind``, the output file it goes to (``event_mentions.json`` or ``entity_mentions.json``), which is not always
    what its type says (HyperCoref decides it per chain).

    ``mention_type`` is derived from ``mention_full_type`` (:func:`mention_type_of`), never given: change the type
    with :meth:`with_type`. Records are immutable; a finalize hook returns changed copies
    (:func:`dataclasses.replace`).
    """

    coref_chain: str
    mention_id: str
    tokens_str: str
    description: str
    coref_type: str
    mention_type: str = field(init=False)
    mention_full_type: str
    tokens_text: list[str]
    tokens_number: list[int]
    mention_head: str
    mention_head_id: int
    mention_head_pos: str
    mention_head_lemma: str
    mention_ner: str
    sent_id: int
    topic: str
    topic_id: str
    subtopic_id: str
    subtopic: str
    doc_id: str
    doc: str
    mention_context: list[str]
    context_start_end_global_id: list[int]
    mention_sentence_start_end: list[int]
    tokens_number_context: list[int]
    mention_head_id_context: int
    is_singleton: bool
    conll_doc_key: str
    split: str
    kind: MentionKind

    def __post_init__(self) -> None:
        object.__setattr__(self, "mention_type", mention_type_of(self.mention_full_type))

    def with_type(self, full_type: str, kind: MentionKind | None = None) -> MentionRecord:
        """A copy with ``mention_full_type`` (and so ``mention_type``) set, and the kind if given."""
        return replace(self, mention_full_type=full_type, kind=self.kind if kind is None else kind)

    def as_row(self) -> dict[str, object]:
        """The 29 fields as a dict in schema order (what the writer stores; ``kind`` is not a field)."""
        return {name: getattr(self, name) for name in ROW_FIELDS}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its constructor's arguments: half the cost of the frozen dataclass's field-by-field state."""
        return MentionRecord, tuple(getattr(self, name) for name in _INIT_FIELDS)


ROW_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(MentionRecord) if f.name != "kind")
_INIT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(MentionRecord) if f.init)


@dataclass(frozen=True, slots=True)
class MentionKey:
    """The compact key of one written mention that the whole-dataset steps of a build keep in memory instead of
    the record: unique ids, chain sizes, output files, and chain rules over head POS and NER
    (:attr:`~ucdcr.registry.DatasetSpec.chain_types`)."""

    mention_id: str
    coref_chain: str
    kind: MentionKind
    mention_head_pos: str
    mention_ner: str

    @classmethod
    def of(cls, record: MentionRecord) -> MentionKey:
        return cls(record.mention_id, record.coref_chain, record.kind, record.mention_head_pos, record.mention_ner)
