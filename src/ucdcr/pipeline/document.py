"""The per-document stages: detokenize -> parse -> align -> enrich, as a pure function over picklable records.

Input: a :class:`DocumentTask` (one SourceDocument and its SourceMentions). Output: a :class:`DocumentResult` with
the document's output tokens (one row per token, docs/unified-format.md#token-table) and its mention records
(:class:`~ucdcr.records.MentionRecord`: the 29 fields and the output file, ``is_singleton`` still unset), plus every
mention dropped on the way with its reason.

- Sentences are the source's sentences (``sent_id`` as given); each is rebuilt as a string
  (:mod:`ucdcr.pipeline.detokenize`) and re-tokenized by spaCy on its own, like the reference
  (docs/build-pipeline.md#re-parsing). With ``reparse=False`` the original tokens are the output tokens and spaCy parses
  them pre-tokenized.
- A mention is one contiguous run of original tokens of one sentence (blank tokens inside it aside). One that
  spans sentences, leaves out a non-blank token inside its span (a discontinuous markable) or has no text is
  dropped with that reason (stage "align"); it is never widened to a span it does not annotate.
- Only sentences holding such a mention get the full pipeline (heads, lemma, POS, NER); the others are only
  tokenized (they are needed for the token table and context windows).
- Mention boundaries: the rebuilt text may glue original tokens that spaCy then keeps as one token ("NEWS - 3"
  -> ``NEWS-3``, "Calif ." -> ``Calif.``). Before the tagger and parser run, every re-parsed token crossing the
  start or end of a mention in its sentence is re-tokenized with that boundary forced
  (:func:`ucdcr.pipeline.nlp.split_at`); elsewhere spaCy's tokenization is kept.
- Alignment: the mention is the range of re-parsed tokens overlapping its markable's characters in the rebuilt
  sentence, and it must cover exactly those characters (whitespace at either end aside). This is checked for every
  mention; one that is not covered exactly is dropped with the reason :data:`SPAN_NOT_COVERED`. No string search.
  :func:`span_mismatches` checks the written records against the reader's tokens independently of this stage.
- Head: source-given head (:attr:`~ucdcr.records.SourceMention.given_head`, first occurrence in the mention) or
  the syntactic rule of :mod:`ucdcr.pipeline.heads`; lemma / POS / NER of the head token unless the source gives
  them.
- Context: :mod:`ucdcr.pipeline.context`.
- Id: :func:`mention_id`, from the document, sentence, tokens and the source's markable id only, never the chain.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import accumulate, groupby
from operator import itemgetter
from typing import Any

from ucdcr.pipeline import nlp as spacy_nlp
from ucdcr.pipeline.context import SentenceIndex, context_window
from ucdcr.pipeline.detokenize import normalized_token, rebuild_sentence, sentence_text, space_before_flags
from ucdcr.pipeline.heads import syntactic_head
from ucdcr.records import (
    DroppedMention,
    GivenHead,
    MentionRecord,
    SourceCorpus,
    SourceDocument,
    SourceMention,
    SourceToken,
)
from ucdcr.registry import ContextRule

SPAN_NOT_COVERED = "no re-parsed tokens cover exactly the markable"
DISCONTINUOUS = "discontinuous markable"


@dataclass(frozen=True)
class StageConfig:
    """What the per-document stages need to know about the dataset."""

    context_rule: ContextRule = ContextRule.AROUND_FIRST_TOKEN
    reparse: bool = True
    mention_id_prefix: str = ""


@dataclass
class DocumentTask:
    document: SourceDocument
    mentions: list[SourceMention]


@dataclass
class OutputToken:
    """One row of the token table (docs/unified-format.md#token-table) without key, reference and split."""

    sent_id: int
    token_id: int
    token: str
    token_id_global: int
    char_id_start: int
    whitespace_after: bool


@dataclass
class TokenColumns:
    """A document's token table as columns (one list per :class:`OutputToken` field): no object per token, cheap to
    pickle. Iterating gives the rows as :class:`OutputToken`."""

    sent_id: list[int] = field(default_factory=list)
    token_id: list[int] = field(default_factory=list)
    token: list[str] = field(default_factory=list)
    token_id_global: list[int] = field(default_factory=list)
    char_id_start: list[int] = field(default_factory=list)
    whitespace_after: list[bool] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.token)

    def __iter__(self) -> Iterator[OutputToken]:
        return map(OutputToken, *self.as_tuple())

    def as_tuple(self) -> tuple[list[Any], ...]:
        """The six columns in :class:`OutputToken` field order (``TokenColumns(*columns)`` makes them back)."""
        return (
            self.sent_id,
            self.token_id,
            self.token,
            self.token_id_global,
            self.char_id_start,
            self.whitespace_after,
        )

    def extend_sentence(self, sent_id: int, texts: list[str], starts: list[int], spaces: list[bool]) -> None:
        """Append one sentence's tokens (token ids restart at 0, global ids run on)."""
        first = len(self.token)
        self.sent_id.extend([sent_id] * len(texts))
        self.token_id.extend(range(len(texts)))
        self.token.extend(texts)
        self.token_id_global.extend(range(first, first + len(texts)))
        self.char_id_start.extend(starts)
        self.whitespace_after.extend(spaces)


@dataclass
class DocumentResult:
    doc_key: str
    tokens: TokenColumns
    records: list[MentionRecord]
    dropped: list[DroppedMention] = field(default_factory=list)
    parsed_sentences: int = 0


@dataclass(slots=True)
class _Sentence:
    sent_id: int
    source: list[SourceToken]
    text: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    doc: Any = None  # spaCy Doc; None for a pre-tokenized sentence that is not parsed (its tokens are the words)
    parsed: bool = False  # the full pipeline ran on the Doc
    dependencies: bool = False  # the Doc has a dependency parse (the parser is in the pipeline)
    first_global: int = 0
    words: list[str] = field(default_factory=list)  # the output tokens' texts
    starts: list[int] = field(default_factory=list)  # character offset of each output token
    spaces: list[bool] = field(default_factory=list)  # whitespace after each output token

    def read_doc(self, retokenized: bool) -> None:
        """Take words, offsets and spaces from the Doc (as arrays: no Token objects). The Doc's text is the
        sentence text unless it was retokenized (the tokenizer is non-destructive)."""
        text = self.doc.text if retokenized else self.text
        self.words, self.starts, self.spaces = spacy_nlp.token_columns(self.doc, text)


@dataclass
class _Markable:
    """A mention located on one sentence: its original tokens are positions first..last of that sentence."""

    mention: SourceMention
    sentence: _Sentence
    first: int
    last: int

    def characters(self) -> tuple[int, int]:
        """[start, end) of the markable in the rebuilt sentence, without leading or trailing whitespace."""
        return _strip(self.sentence.text, self.sentence.spans[self.first][0], self.sentence.spans[self.last][1])


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) narrowed to leave out leading and trailing whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@dataclass
class _Prepared:
    """One document between the stages: its sentences, its located mentions and the mentions dropped so far."""

    task: DocumentTask
    sentences: list[_Sentence]
    markables: list[_Markable | DroppedMention]


def process_documents(tasks: list[DocumentTask], config: StageConfig) -> list[DocumentResult]:
    """Run the per-document stages over a batch of documents (one ``nlp.pipe`` call for all their sentences)."""
    prepared = [_prepare(task) for task in tasks]
    _parse_sentences(prepared, config)
    return [_enrich_document(item, config) for item in prepared]


def _prepare(task: DocumentTask) -> _Prepared:
    tokens = task.document.tokens
    sentences = _sentences(task.document)
    location = _Location(dict(zip(map(itemgetter(0), tokens), range(len(tokens)), strict=True)), sentences)
    markables: list[_Markable | DroppedMention] = []
    for mention in task.mentions:
        located = _locate(mention, sentences, location)
        markables.append(_dropped(mention, task.document, located) if isinstance(located, str) else located)
    return _Prepared(task, sentences, markables)


def _sentences(document: SourceDocument) -> list[_Sentence]:
    """Group tokens into sentences in document order (a sentence is a run of tokens with the same sent_id)."""
    return [_Sentence(sent_id, list(run)) for sent_id, run in groupby(document.tokens, key=itemgetter(2))]


class _Location:
    """Token id -> (sentence, position in it), from each token's index in the document (the last token with the id
    where ids repeat)."""

    def __init__(self, index: dict[str, int], sentences: list[_Sentence]) -> None:
        self.index = index
        self.starts = list(accumulate((len(s.source) for s in sentences[:-1]), initial=0))

    def __contains__(self, token_id: str) -> bool:
        return token_id in self.index

    def __getitem__(self, token_id: str) -> tuple[int, int]:
        position = self.index[token_id]
        sentence = bisect_right(self.starts, position) - 1
        return sentence, position - self.starts[sentence]


def _locate(mention: SourceMention, sentences: list[_Sentence], location: _Location) -> _Markable | str:
    """The mention's sentence and original token range, or why it cannot be one contiguous span of one sentence."""
    if not mention.token_ids:
        return "mention has no tokens"
    missing = [t for t in mention.token_ids if t not in location]
    if missing:
        return f"token id(s) {missing} not in the document"
    located = [location[t] for t in mention.token_ids]
    sentence_ids = {s for s, _ in located}
    if len(sentence_ids) > 1:
        return "mention spans several sentences"
    sentence = sentences[sentence_ids.pop()]
    positions = {k for _, k in located}
    first, last = min(positions), max(positions)
    between = [sentence.source[k] for k in range(first, last + 1) if k not in positions]
    gaps = [t.token_id for t in between if t.text.strip()]
    if gaps:
        return (
            f"{DISCONTINUOUS}: original token(s) {gaps} inside its span are not annotated "
            "(a mention is one contiguous span; it is not widened)"
        )
    if not any(sentence.source[k].text.strip() for k in positions):
        return "mention text is empty"
    return _Markable(mention, sentence, first, last)


def _parse_sentences(prepared: list[_Prepared], config: StageConfig) -> None:
    """Tokenize every sentence; split re-parsed tokens at mention boundaries; run the full pipeline where needed.

    A sentence without a mention is only tokenized; pre-tokenized (``reparse=False``), it gets no Doc at all."""
    to_parse: list[_Sentence] = []
    for item in prepared:
        boundaries: dict[int, list[_Markable]] = {}
        for markable in item.markables:
            if isinstance(markable, _Markable):
                boundaries.setdefault(id(markable.sentence), []).append(markable)
        for sentence in item.sentences:
            markables = boundaries.get(id(sentence))
            if config.reparse:
                if markables:
                    sentence.text, sentence.spans = rebuild_sentence(sentence.source)
                    sentence.doc = spacy_nlp.tokenize(sentence.text)
                    _split_at_mention_boundaries(sentence, markables)
                    to_parse.append(sentence)
                else:  # no token of it is aligned: the text is enough
                    sentence.text = sentence_text(sentence.source)
                    sentence.doc = spacy_nlp.tokenize(sentence.text)
                    sentence.read_doc(retokenized=False)
            else:
                _pretokenized(sentence)
                if markables:
                    sentence.doc = spacy_nlp.words_doc(sentence.words, sentence.spaces)
                    to_parse.append(sentence)
    for sentence, parsed in zip(to_parse, spacy_nlp.parse(s.doc for s in to_parse), strict=True):
        sentence.doc = parsed
        sentence.parsed = True
        sentence.dependencies = parsed.has_annotation("DEP")
        sentence.read_doc(retokenized=True)


def _pretokenized(sentence: _Sentence) -> None:
    """The original tokens as the output tokens: words, spaces (the source's, else the detokenizer's), text and
    offsets."""
    words = [t.text or "_" for t in sentence.source]
    if any(t.space_after is None for t in sentence.source):  # the detokenizer decides only where the source did not
        flags = space_before_flags(words)
        spaces = [
            t.space_after if t.space_after is not None else (i + 1 < len(words) and flags[i + 1])
            for i, t in enumerate(sentence.source)
        ]
    else:
        spaces = [bool(t.space_after) for t in sentence.source]
    starts = []
    start = 0
    for word, space in zip(words, spaces, strict=True):
        starts.append(start)
        start += len(word) + space
    sentence.words, sentence.spaces, sentence.starts = words, spaces, starts
    sentence.text = "".join([w + " " if space else w for w, space in zip(words, spaces, strict=True)])
    sentence.spans = [(a, a + len(w)) for a, w in zip(starts, words, strict=True)]


def _split_at_mention_boundaries(sentence: _Sentence, markables: list[_Markable]) -> None:
    """Make every mention's start and end a token boundary of the re-parsed sentence, before the parser runs.

    The rebuilt text can glue original tokens ("NEWS - 3" -> "NEWS-3", "Calif ." -> "Calif.") and spaCy may keep
    the result as one token. Where such a token crosses the start or end of a mention, it is re-tokenized as if
    that boundary were whitespace; tokens crossing no mention boundary stay as spaCy made them.
    """
    spacy_nlp.split_at(sentence.doc, {edge for markable in markables for edge in markable.characters()})


def _enrich_document(item: _Prepared, config: StageConfig) -> DocumentResult:
    document = item.task.document
    result = DocumentResult(document.doc_key, TokenColumns(), [])
    for sentence in item.sentences:
        sentence.first_global = len(result.tokens)
        result.tokens.extend_sentence(sentence.sent_id, sentence.words, sentence.starts, sentence.spaces)
        result.parsed_sentences += sentence.dependencies
    index = SentenceIndex([len(s.words) for s in item.sentences])
    doc_texts = result.tokens.token
    for markable in item.markables:
        if isinstance(markable, DroppedMention):
            result.dropped.append(markable)
            continue
        record_or_reason = _mention_record(markable, document, index, config, doc_texts)
        if isinstance(record_or_reason, str):
            result.dropped.append(_dropped(markable.mention, document, record_or_reason))
        else:
            result.records.append(record_or_reason)
    return result


def _dropped(mention: SourceMention, document: SourceDocument, reason: str) -> DroppedMention:
    by_id = {t.token_id: t.text for t in document.tokens}
    text = " ".join(by_id.get(t, "?") for t in mention.token_ids)
    span = f"{mention.token_ids[0]}..{mention.token_ids[-1]}" if mention.token_ids else "(no tokens)"
    return DroppedMention(document.doc_key, mention.source_id, span, text, reason, "align")


def _mention_record(
    markable: _Markable, document: SourceDocument, index: SentenceIndex, config: StageConfig, doc_texts: list[str]
) -> MentionRecord | str:
    """The record of one mention, or the reason its re-parsed tokens do not cover exactly its markable."""
    sentence = markable.sentence
    start, end = markable.characters()
    positions = _overlapping_tokens(sentence, start, end)
    if not positions:
        return f"{SPAN_NOT_COVERED}: no re-parsed token overlaps {sentence.text[start:end]!r}"
    first, last = positions[0], positions[-1]
    covered = _strip(sentence.text, sentence.starts[first], sentence.starts[last] + len(sentence.words[last]))
    if covered != (start, end):
        return (
            f"{SPAN_NOT_COVERED}: re-parsed tokens {sentence.text[covered[0] : covered[1]]!r} "
            f"for the markable {sentence.text[start:end]!r}"
        )
    head = _head(sentence, first, last, markable.mention)
    return _record(markable.mention, document, sentence, first, last, head, index, config, doc_texts)


def _overlapping_tokens(sentence: _Sentence, start: int, end: int) -> list[int]:
    """Indices of the non-whitespace re-parsed tokens whose characters overlap [start, end) (from the sentence's
    token texts and offsets; spaCy's ``is_space`` is ``str.isspace``)."""
    words, starts = sentence.words, sentence.starts
    first = max(bisect_right(starts, start) - 1, 0)
    return [
        i
        for i in range(first, bisect_left(starts, end))
        if starts[i] + len(words[i]) > start and not words[i].isspace()
    ]


def _head(sentence: _Sentence, first: int, last: int, mention: SourceMention) -> Any:
    """The head token of the mention's re-parsed tokens ``first`` .. ``last`` of the sentence."""
    doc = sentence.doc
    given = mention.given_head.text if mention.given_head else ""
    if given:
        for i in range(first, last + 1):
            if sentence.words[i] == given:
                return doc[i]
    if first == last or not sentence.dependencies:
        return doc[first]
    return syntactic_head(list(doc[first : last + 1]))


def _record(
    mention: SourceMention,
    document: SourceDocument,
    sentence: _Sentence,
    first: int,
    last: int,
    head: Any,
    index: SentenceIndex,
    config: StageConfig,
    doc_texts: list[str],
) -> MentionRecord:
    """The record of the mention on the re-parsed tokens ``first`` .. ``last`` of its sentence."""
    first_global = sentence.first_global + first
    last_global = sentence.first_global + last
    window = context_window(index, config.context_rule, first_global, last_global, first)
    given = mention.given_head or _NOT_GIVEN
    return MentionRecord(
        coref_chain=mention.chain_id,
        mention_id=mention_id(config.mention_id_prefix, mention, sentence.sent_id),
        tokens_str=sentence.text[sentence.starts[first] : sentence.starts[last] + len(sentence.words[last])],
        description=mention.description,
        coref_type=mention.coref_type,
        mention_full_type=mention.full_type,
        tokens_text=sentence.words[first : last + 1],
        tokens_number=list(range(first, last + 1)),
        mention_head=head.text,
        mention_head_id=head.i,
        mention_head_pos=given.pos or head.pos_,
        mention_head_lemma=given.lemma or head.lemma_,
        mention_ner=given.ner or head.ent_type_ or "O",
        sent_id=sentence.sent_id,
        topic=document.topic,
        topic_id=document.topic_id,
        subtopic_id=document.subtopic_id,
        subtopic=document.subtopic,
        doc_id=document.doc_id,
        doc=document.doc,
        mention_context=doc_texts[window.left : window.right + 1],
        context_start_end_global_id=[window.left, window.right],
        mention_sentence_start_end=[window.sentence_start, window.sentence_end],
        tokens_number_context=list(range(first_global - window.left, last_global - window.left + 1)),
        mention_head_id_context=sentence.first_global + head.i - window.left,
        is_singleton=False,
        conll_doc_key=document.doc_key,
        split=document.split,
        kind=mention.kind,
    )


_NOT_GIVEN = GivenHead("")  # a source without head annotations: the parser's head, lemma, POS and NER


def mention_id(prefix: str, mention: SourceMention, sent_id: int) -> str:
    """Deterministic id, independent of the chain annotation (docs/unified-format.md#mention-ids).

    ``<prefix><doc key, / -> _>_<sentence>_<first original token id>_<6 hex>``; the 6 hex characters are the start
    of the SHA-1 of the document key, the source's own id of the markable (:attr:`SourceMention.source_id`) and the
    original token ids. The chain, the kind, types and descriptions are not hashed: renaming or regrouping chains
    leaves every id as it is. Two mentions of one document with the same source id and tokens would get one id
    (the build refuses that, :func:`~ucdcr.pipeline.validate.check_unique_ids`); readers give markables that differ
    only by their chain distinct source ids (CEREC: the label's position on its token).
    """
    digest = hashlib.sha1("\x1f".join((mention.doc_key, mention.source_id, ",".join(mention.token_ids))).encode())
    doc = mention.doc_key.replace("/", "_")
    first = mention.token_ids[0] if mention.token_ids else "x"
    return f"{prefix}{doc}_{sent_id}_{first}_{digest.hexdigest()[:6]}"


@dataclass(frozen=True)
class SpanMismatch:
    """A written mention whose tokens do not spell its markable (the characters compared, as given)."""

    doc_key: str
    mention_id: str
    markable: str
    written: str


_SPACES = re.compile(r"\s+")


def span_mismatches(
    corpus: SourceCorpus, records: Iterable[Mapping[str, Any]], mention_id_prefix: str = "", normalize: bool = True
) -> list[SpanMismatch]:
    """Written mention records whose ``tokens_text`` does not spell exactly the text of their original tokens.

    Independent of the alignment: a record is matched to its source mention by :func:`mention_id` and the
    characters of its output tokens are compared with those of the mention's original tokens. With ``normalize``
    (the faithfulness rule) whitespace is ignored on both sides, since spacing is rebuilt, and LaTeX opening quotes
    are compared as the rebuilt text writes them (:func:`~ucdcr.pipeline.detokenize.normalized_token`); without
    it the texts are compared as they are. A mention widened by a merged token, or shortened, shows up either way.
    """

    def spelled(texts: Iterable[str]) -> str:
        return _SPACES.sub("", "".join(normalized_token(t) for t in texts)) if normalize else "".join(texts)

    tokens = {(d.doc_key, t.token_id): t for d in corpus.documents for t in d.tokens}
    markables: dict[str, str] = {}
    for mention in corpus.mentions:
        first = tokens.get((mention.doc_key, mention.token_ids[0])) if mention.token_ids else None
        if first is not None:
            texts = [tokens[(mention.doc_key, t)].text for t in mention.token_ids if (mention.doc_key, t) in tokens]
            markables[mention_id(mention_id_prefix, mention, first.sent_id)] = spelled(texts)
    mismatches = []
    for record in records:
        written = spelled(record["tokens_text"])
        markable = markables.get(record["mention_id"])
        if markable != written:
            mismatches.append(
                SpanMismatch(
                    record["conll_doc_key"],
                    record["mention_id"],
                    "(no source mention)" if markable is None else markable,
                    written,
                )
            )
    return mismatches
