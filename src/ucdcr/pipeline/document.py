"""The per-document stages: detokenize -> parse -> align -> enrich, as a pure function over picklable records.

Input: a :class:`DocumentTask` (one SourceDocument and its SourceMentions). Output: a :class:`DocumentResult` with
the document's output tokens (one row per token, REFERENCE.md §1.7) and its mention records (the 29 fields of
REFERENCE.md §1.2, ``is_singleton`` still unset), plus every mention dropped on the way with its reason.

- Sentences are the source's sentences (``sent_id`` as given); each is rebuilt as a string
  (:mod:`ucdcr.pipeline.detokenize`) and re-tokenized by spaCy on its own, like the reference (§3.3). With
  ``reparse=False`` the original tokens are the output tokens and spaCy parses them pre-tokenized.
- Only sentences holding a mention get the full pipeline (heads, lemma, POS, NER); the others are only
  tokenized (they are needed for the token table and context windows).
- Alignment: an original token maps to every re-parsed token whose characters overlap its character span in the
  rebuilt sentence (DESIGN.md §4 item 2); the mention is the contiguous range from the first to the last mapped
  token. No string search.
- Head: source-given head (``attributes["head"]``, first occurrence in the mention) or the syntactic rule of
  :mod:`ucdcr.pipeline.heads`; lemma / POS / NER of the head token unless the source gives them.
- Context: :mod:`ucdcr.pipeline.context`.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

from ucdcr.pipeline import nlp as spacy_nlp
from ucdcr.pipeline.context import SentenceIndex, context_window
from ucdcr.pipeline.detokenize import rebuild_sentence, space_before_flags
from ucdcr.pipeline.heads import syntactic_head
from ucdcr.records import DroppedMention, SourceDocument, SourceMention, SourceToken


@dataclass(frozen=True)
class StageConfig:
    """What the per-document stages need to know about the dataset."""

    context_rule: str = "first_token"
    reparse: bool = True
    mention_id_prefix: str = ""


@dataclass
class DocumentTask:
    document: SourceDocument
    mentions: list[SourceMention]


@dataclass
class OutputToken:
    """One row of the token table (REFERENCE.md §1.7) without key, reference and split."""

    sent_id: int
    token_id: int
    token: str
    token_id_global: int
    char_id_start: int
    whitespace_after: bool


@dataclass
class DocumentResult:
    doc_key: str
    tokens: list[OutputToken]
    records: list[dict[str, Any]]
    dropped: list[DroppedMention] = field(default_factory=list)
    parsed_sentences: int = 0


@dataclass
class _Sentence:
    sent_id: int
    source: list[SourceToken]
    text: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    doc: Any = None  # spaCy Doc
    first_global: int = 0


def process_documents(tasks: list[DocumentTask], config: StageConfig) -> list[DocumentResult]:
    """Run the per-document stages over a batch of documents (one ``nlp.pipe`` call for all their sentences)."""
    prepared = [(task, _sentences(task.document)) for task in tasks]
    _parse_sentences(prepared, config)
    return [_enrich_document(task, sentences, config) for task, sentences in prepared]


def _sentences(document: SourceDocument) -> list[_Sentence]:
    """Group tokens into sentences in document order (a sentence is a run of tokens with the same sent_id)."""
    sentences: list[_Sentence] = []
    for token in document.tokens:
        if not sentences or sentences[-1].sent_id != token.sent_id:
            sentences.append(_Sentence(token.sent_id, []))
        sentences[-1].source.append(token)
    return sentences


def _parse_sentences(prepared: list[tuple[DocumentTask, list[_Sentence]]], config: StageConfig) -> None:
    to_parse: list[tuple[_Sentence, Any]] = []
    for task, sentences in prepared:
        mention_tokens = {token_id for mention in task.mentions for token_id in mention.token_ids}
        for sentence in sentences:
            needs_parse = any(t.token_id in mention_tokens for t in sentence.source)
            unparsed = _unparsed_doc(sentence, config)
            if needs_parse:
                to_parse.append((sentence, unparsed))
            else:
                sentence.doc = unparsed
    for (sentence, _), parsed in zip(to_parse, spacy_nlp.parse(item for _, item in to_parse)):
        sentence.doc = parsed


def _unparsed_doc(sentence: _Sentence, config: StageConfig) -> Any:
    if config.reparse:
        sentence.text, sentence.spans = rebuild_sentence(sentence.source)
        return spacy_nlp.tokenize(sentence.text)
    words = [t.text or "_" for t in sentence.source]
    flags = space_before_flags(words)
    spaces = [
        t.space_after if t.space_after is not None else (i + 1 < len(words) and flags[i + 1])
        for i, t in enumerate(sentence.source)
    ]
    doc = spacy_nlp.words_doc(words, spaces)
    sentence.text = doc.text
    sentence.spans = [(token.idx, token.idx + len(token.text)) for token in doc]
    return doc


def _enrich_document(task: DocumentTask, sentences: list[_Sentence], config: StageConfig) -> DocumentResult:
    document = task.document
    result = DocumentResult(document.doc_key, [], [])
    global_id = 0
    for sentence in sentences:
        sentence.first_global = global_id
        for token in sentence.doc:
            result.tokens.append(
                OutputToken(sentence.sent_id, token.i, token.text, global_id, token.idx, bool(token.whitespace_))
            )
            global_id += 1
        result.parsed_sentences += int(sentence.doc.has_annotation("DEP"))
    index = SentenceIndex([len(s.doc) for s in sentences])
    location = {t.token_id: (s_index, k) for s_index, s in enumerate(sentences) for k, t in enumerate(s.source)}
    offsets = {id(s): [t.idx for t in s.doc] for s in sentences}
    doc_texts = [t.token for t in result.tokens]
    for mention in task.mentions:
        record_or_reason = _mention_record(mention, document, sentences, location, offsets, index, config, doc_texts)
        if isinstance(record_or_reason, str):
            result.dropped.append(_dropped(mention, document, record_or_reason))
        else:
            result.records.append(record_or_reason)
    return result


def _dropped(mention: SourceMention, document: SourceDocument, reason: str) -> DroppedMention:
    by_id = {t.token_id: t.text for t in document.tokens}
    text = " ".join(by_id.get(t, "?") for t in mention.token_ids)
    span = f"{mention.token_ids[0]}..{mention.token_ids[-1]}" if mention.token_ids else "(no tokens)"
    return DroppedMention(document.doc_key, mention.source_id, span, text, reason, "align")


def _mention_record(
    mention: SourceMention,
    document: SourceDocument,
    sentences: list[_Sentence],
    location: dict[str, tuple[int, int]],
    offsets: dict[int, list[int]],
    index: SentenceIndex,
    config: StageConfig,
    doc_texts: list[str],
) -> dict[str, Any] | str:
    """The 29-field record of one mention, or the reason it cannot be aligned."""
    if not mention.token_ids:
        return "mention has no tokens"
    missing = [t for t in mention.token_ids if t not in location]
    if missing:
        return f"token id(s) {missing} not in the document"
    sentence_ids = {location[t][0] for t in mention.token_ids}
    if len(sentence_ids) > 1:
        return "mention spans several sentences"
    sentence = sentences[sentence_ids.pop()]
    positions = _aligned_positions(sentence, [location[t][1] for t in mention.token_ids], offsets[id(sentence)])
    if not positions:
        return "no re-parsed token overlaps the mention's characters"
    span = sentence.doc[positions[0] : positions[-1] + 1]
    head = _head(span, mention)
    return _record(mention, document, sentence, span, head, index, config, doc_texts)


def _aligned_positions(sentence: _Sentence, token_positions: list[int], starts: list[int]) -> list[int]:
    """Re-parsed token indices overlapping the character spans of the given original tokens (sorted)."""
    doc = sentence.doc
    found: set[int] = set()
    for position in token_positions:
        start, end = sentence.spans[position]
        if end <= start:
            continue
        first = max(bisect_right(starts, start) - 1, 0)
        last = bisect_left(starts, end)
        for i in range(first, min(last, len(doc))):
            token = doc[i]
            if token.idx < end and token.idx + len(token.text) > start and not token.is_space:
                found.add(i)
    return sorted(found)


def _head(span: Any, mention: SourceMention) -> Any:
    given = mention.attributes.get("head")
    if given:
        for token in span:
            if token.text == given:
                return token
    if not span.doc.has_annotation("DEP"):
        return span[0]
    return syntactic_head(list(span))


def _record(
    mention: SourceMention,
    document: SourceDocument,
    sentence: _Sentence,
    span: Any,
    head: Any,
    index: SentenceIndex,
    config: StageConfig,
    doc_texts: list[str],
) -> dict[str, Any]:
    first_global = sentence.first_global + span.start
    last_global = sentence.first_global + span.end - 1
    window = context_window(index, config.context_rule, first_global, last_global, span.start)
    attributes = mention.attributes
    return {
        "coref_chain": mention.chain_id,
        "mention_id": mention_id(config.mention_id_prefix, mention, sentence.sent_id),
        "tokens_str": sentence.text[span[0].idx : span[-1].idx + len(span[-1].text)],
        "description": mention.description,
        "coref_type": mention.coref_type,
        "mention_type": mention.full_type[:3],
        "mention_full_type": mention.full_type,
        "tokens_text": [t.text for t in span],
        "tokens_number": [t.i for t in span],
        "mention_head": head.text,
        "mention_head_id": head.i,
        "mention_head_pos": attributes.get("head_pos") or head.pos_,
        "mention_head_lemma": attributes.get("head_lemma") or head.lemma_,
        "mention_ner": attributes.get("ner") or head.ent_type_ or "O",
        "sent_id": sentence.sent_id,
        "topic": document.topic,
        "topic_id": document.topic_id,
        "subtopic_id": document.subtopic_id,
        "subtopic": document.subtopic,
        "doc_id": document.doc_id,
        "doc": document.doc,
        "mention_context": doc_texts[window.left : window.right + 1],
        "context_start_end_global_id": [window.left, window.right],
        "mention_sentence_start_end": [window.sentence_start, window.sentence_end],
        "tokens_number_context": [first_global - window.left + k for k in range(len(span))],
        "mention_head_id_context": sentence.first_global + head.i - window.left,
        "is_singleton": False,
        "conll_doc_key": document.doc_key,
        "split": document.split,
        "_kind": mention.kind,
    }


def mention_id(prefix: str, mention: SourceMention, sent_id: int) -> str:
    """Deterministic id: prefix + document + sentence + first original token id + a short content hash."""
    digest = hashlib.sha1(
        "\x1f".join((mention.doc_key, mention.source_id, ",".join(mention.token_ids), mention.chain_id)).encode()
    ).hexdigest()[:6]
    doc = mention.doc_key.replace("/", "_")
    first = mention.token_ids[0] if mention.token_ids else "x"
    return f"{prefix}{doc}_{sent_id}_{first}_{digest}"
