"""Intermediate records: what every format reader produces and the build pipeline consumes.

A dataset module turns its raw files into one :class:`SourceCorpus`: documents with their ORIGINAL tokens
(original token ids and sentence numbers), mentions pointing at original token ids, and every mention the
reader had to leave out (:class:`DroppedMention`, with its reason). Nothing about spaCy, heads or contexts is
known here; the pipeline adds those (detokenize -> parse -> align -> enrich -> validate -> write).

Records are plain, picklable dataclasses so that the per-document stages can run in a process pool (or, later,
Ray) unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Split = Literal["train", "val", "test"]
SPLITS: tuple[Split, ...] = ("train", "val", "test")
MentionKind = Literal["event", "entity"]


@dataclass(frozen=True, slots=True)
class SourceToken:
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


@dataclass(slots=True)
class SourceMention:
    """One annotated mention, on original tokens.

    token_ids: original token ids of the mention in document order; the reader fills gaps of discontinuous
        annotations (min..max) where the dataset rule says so, so the span is contiguous.
    chain_id: the gold chain (coref_chain); unlinked mentions get a chain of their own (a singleton).
    kind: "event" or "entity": decides the output file (event_mentions.json / entity_mentions.json).
    source_id: the annotation's own id (markable id, row number, ...), used for the mention_id and the report.
    attributes: dataset-specific extras the pipeline may use (e.g. WEC-Eng's original head/lemma/POS/NER under
        the keys "head", "head_lemma", "head_pos", "ner"; the mention text under "text").
    """

    doc_key: str
    token_ids: tuple[str, ...]
    chain_id: str
    kind: MentionKind
    full_type: str
    description: str
    source_id: str
    coref_type: str = "IDENTITY"
    attributes: dict[str, Any] = field(default_factory=dict)


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
