"""WEC-Eng (Eirew et al. 2021): Wikipedia event coreference, events only, original tokens and heads kept.

Raw folder ``WEC-Eng/``: the three Hugging Face files ``Dev_Event_gold_mentions_validated.json`` (val),
``Test_Event_gold_mentions_validated.json`` (test), ``Train_Event_gold_mentions.json`` (train), and uCDCR's topic
maps ``ucdcr-meta/topics/{topics.json, topics_<split>.csv}`` (format: :mod:`ucdcr.formats.wec_json`).

Structure (paper §7.1.12, docs/datasets/wec_eng.md#structure):
- topic = the map's topic (topic id = its index among the sorted topic names), subtopic = the seed-event title,
  document = the Wikipedia page; a document listed under several subtopics takes the FIRST listed one.
- Documents are rebuilt from the mention paragraphs: one "sentence" per distinct paragraph (identical
  ``mention_context``), paragraphs ordered by their smallest ``mention_index``. uCDCR's merge can emit a
  paragraph twice when three or more mentions share it; here each paragraph appears once.
- Original tokens, heads, lemmas, POS and NER are kept (``reparse=False``; NER ``UNK`` -> ``O``). The head
  token is the first occurrence of the head string in the mention (docs/datasets/wec_eng.md#mentions-and-chains).
- The context window uses the paragraph rule (:attr:`~ucdcr.registry.ContextRule.AROUND_FIRST_TOKEN_BY_PARAGRAPH`).
- Chain id = uCDCR's ``re.sub(r"\\W+", "", f"{coref_chain}_{coref_link with _}")[:35]``, description = the
  linked page title. subtopic / document ids are ``shortuuid(title)`` as in uCDCR.
- A mention whose document is in no topic map row, whose head is not among its tokens, or whose
  ``tokens_number`` is not a contiguous run is dropped with that reason.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from ucdcr.formats.shortuuid import name_shortuuid
from ucdcr.formats.wec_json import TopicRow, WecMention, first_listed, read_mentions, read_topic_map, read_topic_names
from ucdcr.records import DroppedMention, GivenHead, SourceCorpus, SourceDocument, SourceMention, SourceToken, Split
from ucdcr.registry import GOLD_FIELDS, ContextRule, DatasetSpec, ExpectedCount, ReadOptions, register

DATASET_ID = "wec_eng"
MENTION_FILES: dict[Split, str] = {
    "train": "Train_Event_gold_mentions.json",
    "val": "Dev_Event_gold_mentions_validated.json",
    "test": "Test_Event_gold_mentions_validated.json",
}
TOPICS_DIR = "ucdcr-meta/topics"
TOPIC_NAMES_FILE = f"{TOPICS_DIR}/topics.json"


def topic_map_file(split: Split) -> str:
    return f"{TOPICS_DIR}/topics_{split}.csv"


def chain_id(coref_chain: str, coref_link: str) -> str:
    """uCDCR's WEC chain id (docs/datasets/wec_eng.md#mentions-and-chains)."""
    return re.sub(r"\W+", "", f"{coref_chain}_{coref_link.replace(' ', '_')}")[:35]


def read_topic_maps(folder: Path) -> tuple[list[str], dict[Split, dict[str, TopicRow]]]:
    """Topic names and, per split, document -> its (first listed) topic map row."""
    names = read_topic_names(folder / TOPIC_NAMES_FILE)
    maps = {split: first_listed(read_topic_map(folder / topic_map_file(split), names)) for split in MENTION_FILES}
    return names, maps


def read(folder: Path, options: ReadOptions) -> SourceCorpus:
    """Raw ``WEC-Eng/`` folder -> SourceCorpus (raises FormatError)."""
    names, maps = read_topic_maps(folder)
    topic_ids = {name: str(i) for i, name in enumerate(sorted(names))}
    corpus = SourceCorpus(documents=[], mentions=[], inputs=[folder / TOPIC_NAMES_FILE])
    corpus.notes.append("original WEC tokens, heads, lemmas, POS and NER kept; one sentence per distinct paragraph")
    for split in ("train", "val", "test"):
        path = folder / MENTION_FILES[split]
        corpus.inputs += [path, folder / topic_map_file(split)]
        mentions = read_mentions(path)
        corpus.counts["annotated"] = corpus.counts.get("annotated", 0) + len(mentions)
        by_doc: dict[str, list[WecMention]] = defaultdict(list)
        for mention in mentions:
            by_doc[mention.doc_title].append(mention)
        for title in sorted(by_doc, key=lambda t: _order_key(t, maps[split])):
            row = maps[split].get(title)
            if row is None:
                reason = f"document {title!r} is not in {topic_map_file(split)}"
                corpus.dropped += [_dropped(f"?/?/{name_shortuuid(title)}", m, reason) for m in by_doc[title]]
                continue
            _add_document(corpus, by_doc[title], row, topic_ids[row.topic], split, MENTION_FILES[split])
    return corpus


def _order_key(title: str, rows: dict[str, TopicRow]) -> tuple[str, str, str]:
    row = rows.get(title)
    return (row.topic, row.subtopic, title) if row else ("", "", title)


def _add_document(
    corpus: SourceCorpus, mentions: list[WecMention], row: TopicRow, topic_id: str, split: Split, source: str
) -> None:
    paragraph_index: dict[tuple[str, ...], int] = {}
    for mention in sorted(mentions, key=lambda m: m.mention_index):
        paragraph_index.setdefault(mention.paragraph, len(paragraph_index))
    tokens = [
        SourceToken(f"{sent}.{i}", text, sent)
        for paragraph, sent in paragraph_index.items()
        for i, text in enumerate(paragraph)
    ]
    document = SourceDocument(
        topic_id=topic_id,
        topic=row.topic,
        subtopic_id=name_shortuuid(row.subtopic),
        subtopic=row.subtopic,
        doc_id=name_shortuuid(row.doc),
        doc=row.doc,
        split=split,
        tokens=tokens,
        source_file=source,
    )
    corpus.documents.append(document)
    for mention in sorted(mentions, key=lambda m: m.mention_index):
        sent = paragraph_index[mention.paragraph]
        problem = _problem(mention)
        if problem:
            corpus.dropped.append(_dropped(document.doc_key, mention, problem))
            continue
        corpus.mentions.append(
            SourceMention(
                doc_key=document.doc_key,
                token_ids=tuple(f"{sent}.{i}" for i in mention.tokens_number),
                chain_id=chain_id(mention.coref_chain, mention.coref_link),
                kind="event",
                full_type="EVENT",
                description=mention.coref_link,
                source_id=mention.mention_id,
                given_head=GivenHead(
                    mention.head, mention.head_lemma, mention.head_pos, "O" if mention.ner == "UNK" else mention.ner
                ),
            )
        )


def _problem(mention: WecMention) -> str | None:
    numbers = mention.tokens_number
    if list(numbers) != list(range(numbers[0], numbers[0] + len(numbers))):
        return f"tokens_number {list(numbers)} is not a contiguous run"
    if mention.head not in (mention.paragraph[i] for i in numbers):
        return f"head {mention.head!r} is not among the mention tokens"
    return None


def _dropped(doc_key: str, mention: WecMention, reason: str) -> DroppedMention:
    return DroppedMention(
        doc_key=doc_key,
        source_id=mention.mention_id,
        span=f"paragraph tokens {list(mention.tokens_number)}",
        text=mention.tokens_str,
        reason=reason,
        stage="read",
    )


register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="WEC-Eng",
        authors_folder="WECEng",
        raw_folder="WEC-Eng",
        mention_kinds=("event",),
        reader=read,
        context_rule=ContextRule.AROUND_FIRST_TOKEN_BY_PARAGRAPH,
        reparse=False,
        mention_id_prefix="WECEng_",
        # the heads are the source's annotation (its head word, lemma, POS and NER; the head position follows from
        # the word), not computed from the span: gold-derived like the chains
        gold_fields=(
            *GOLD_FIELDS,
            "mention_head",
            "mention_head_id",
            "mention_head_pos",
            "mention_head_lemma",
            "mention_ner",
            "mention_head_id_context",
        ),
        expected_counts=(
            ExpectedCount("mentions_annotated", 43672, "paper Table 8 'Original'"),
            ExpectedCount("mentions_written", 43672, "paper Table 8 'Parsed'"),
            ExpectedCount("train.documents", 34132, "the authors' summary CSV"),
            ExpectedCount("val.documents", 1194, "the authors' summary CSV"),
            ExpectedCount("test.documents", 1803, "the authors' summary CSV"),
            ExpectedCount("subtopics", 7370, "the authors' summary CSV"),
            ExpectedCount("test.subtopics", 322, "paper Table 13 (WEC-Eng test row)"),
            ExpectedCount("test.topics", 15, "paper Table 13 (WEC-Eng test row)"),
        ),
    )
)
