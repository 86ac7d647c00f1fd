"""NewsWCL50r (Zhukova et al. 2026): MAXQDA annotations + news-please article texts the user supplies.

Structure (docs/datasets/newswcl50r.md#structure, paper §7.1.9): ten topics without subtopics; each topic becomes a
subtopic of a topic with the same id, so ``conll_doc_key = "<t>/<t>/<t>_<outlet>"``; the subtopic name is the annotation
file stem (``1_ComeyMemo``). Splits by topic id (``ucdcr-meta/train_val_test_split.json``: val 0-3, test 4-9, no
train).

Mentions: every coded segment except the ``Properties`` codes. The chain is ``<topic>_<code>_<type>`` with ``\\``
and spaces replaced by ``_``; the type comes from ``aggr_m_conceptcategorization.csv``; ``ACTOR-I`` mentions are
excluded; ACTION, EVENT and MISC are events, every other type an entity
(docs/datasets/newswcl50r.md#mentions-and-chains). A segment is located in the paragraph ``Beginning`` names, else in
the nearest paragraph (up to 4 away) that contains it; a segment coded k times in one paragraph takes the first k
occurrences there. After enrichment, mentions of one chain with the same document, sentence and head are duplicates: the
longest is kept (docs/datasets/newswcl50r.md#mentions-and-chains).

Tokens: the reader splits each paragraph into word / punctuation tokens (character offsets kept, so the text
is rebuilt exactly), and splits a word where a located segment starts or ends inside it, so a mention covers
exactly its segment's characters (never the whole word); paragraphs are the source "sentences" (``sent_id`` =
paragraph number - 1). uCDCR instead parses the whole document with spaCy sentence segmentation
(docs/datasets/newswcl50r.md#differences-from-the-authors-code).

Completeness: a topic the split file lists without an annotation CSV stops the build with its id (or, with the
reader option ``partial=true``, is noted in the build report).

Without the article texts the build stops with :class:`~ucdcr.errors.MissingRawData` giving the manual steps of the
manifest (texts under the raw folder, or elsewhere with the reader option ``texts_dir`` of
:class:`NewsWCL50rOptions`: ``ucdcr build newswcl50r --texts DIR``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError
from ucdcr.formats.corpus_checks import require_listed_ids
from ucdcr.formats.maxqda_csv import (
    MaxqdaSegment,
    NewsArticle,
    find_segment,
    read_concept_types,
    read_maxqda_csv,
    read_news_please_json,
    tokenize,
)
from ucdcr.formats.split_file import SPLIT_FILE, read_split_map
from ucdcr.records import (
    SPLITS,
    DroppedMention,
    MentionKind,
    MentionRecord,
    SourceCorpus,
    SourceDocument,
    SourceMention,
    SourceToken,
)
from ucdcr.registry import GOLD_FIELDS, ContextRule, DatasetSpec, ExpectedCount, ReadOptions, missing_raw_data, register

DATASET_ID = "newswcl50r"
RAW_FOLDER = "NewsWCL50r"
ANNOTATIONS_DIR = "NewsWCL50r/csv_export"
TEXTS_DIR = "NewsWCL50r/json_text"
CONCEPTS_FILE = "ucdcr-meta/2025_annot/aggr_m_conceptcategorization.csv"
EVENT_TYPES = frozenset({"ACTION", "EVENT", "MISC"})
EXCLUDED_TYPES = frozenset({"ACTOR-I"})
# Paragraph offsets tried after the annotated one, nearest first (MAXQDA and news-please may count differently).
PARAGRAPH_OFFSETS = (0, -1, 1, -2, 2, -3, 3, -4, 4)


@dataclass(frozen=True)
class NewsWCL50rOptions(ReadOptions):
    """NewsWCL50r's reader options. texts_dir: the folder of the article texts (news-please JSON files), when they
    are not under the raw folder."""

    texts_dir: Path | None = None


def chain_id(topic_id: str, code: str, mention_type: str) -> str:
    """uCDCR's NewsWCL50r chain id: ``<topic>_<code>_<type>``, backslashes and spaces replaced by ``_``."""
    return f"{topic_id}_{code}_{mention_type}".replace("\\", "_").replace(" ", "_")


def topic_of(annotation_file: Path) -> str:
    """``1_ComeyMemo.csv`` -> ``"1"``."""
    return annotation_file.stem.split("_", 1)[0]


def load_annotations(raw_dir: Path) -> tuple[dict[str, list[MaxqdaSegment]], dict[tuple[str, str], str], list[Path]]:
    """Segments per topic file stem, the concept types, and the files read."""
    folder = raw_dir / ANNOTATIONS_DIR
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise missing_raw_data(DATASET_ID, raw_dir, [f"no annotation CSV in {folder}"])
    concepts_path = raw_dir / CONCEPTS_FILE
    segments = {path.stem: read_maxqda_csv(path) for path in files}
    return segments, read_concept_types(concepts_path), [*files, concepts_path]


def load_articles(texts_dir: Path) -> dict[str, NewsArticle]:
    """Every ``*.json`` under ``texts_dir`` (recursively), by document name; a name twice is an error."""
    articles: dict[str, NewsArticle] = {}
    for path in sorted(texts_dir.rglob("*.json")):
        article = read_news_please_json(path)
        if article.name in articles:
            raise FormatError(path, f"document {article.name!r} is also in {articles[article.name].path}")
        articles[article.name] = article
    return articles


def _texts_dir(raw_dir: Path, options: NewsWCL50rOptions) -> Path:
    folder = options.texts_dir or raw_dir / TEXTS_DIR
    if not folder.is_dir() or not any(folder.rglob("*.json")):
        raise missing_raw_data(
            DATASET_ID, raw_dir, [f"the article texts are not available: no news-please *.json files in {folder}"]
        )
    return folder


Cuts = dict[int, set[int]]  # paragraph number -> character offsets where a token must end


def _tokens(article: NewsArticle, cuts: Cuts) -> tuple[list[SourceToken], dict[int, list[tuple[int, int, str]]]]:
    """Tokens of the article (ids ``p<paragraph>.<n>``) and, per paragraph number, (start, end, token id)."""
    tokens: list[SourceToken] = []
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for number, paragraph in enumerate(article.paragraphs, start=1):
        offsets = tokenize(paragraph, cuts.get(number, set()))
        spans[number] = []
        for index, (start, end) in enumerate(offsets):
            token_id = f"p{number}.{index}"
            space_after = end < len(paragraph) and paragraph[end].isspace()
            tokens.append(SourceToken(token_id, paragraph[start:end], number - 1, space_after))
            spans[number].append((start, end, token_id))
    return tokens, spans


def _locate(article: NewsArticle, rows: list[MaxqdaSegment]) -> tuple[int, list[tuple[int, int]]]:
    """The paragraph (1-based) holding the segment and the spans assigned to ``rows`` (fewer if it occurs less)."""
    first = rows[0]
    for offset in PARAGRAPH_OFFSETS:
        number = first.beginning + offset
        if 1 <= number <= len(article.paragraphs):
            found = find_segment(article.paragraphs[number - 1], first.segment)
            if found:
                return number, found[: len(rows)]
    return 0, []


Located = tuple[MaxqdaSegment, str, int, tuple[int, int]]  # row, type, paragraph number, character span


def _locate_rows(
    doc_key: str, article: NewsArticle, rows: list[tuple[MaxqdaSegment, str]]
) -> tuple[list[Located], list[DroppedMention]]:
    """Every coded row located in the article, or dropped with the reason."""
    groups: dict[tuple[str, str, int], list[tuple[MaxqdaSegment, str]]] = defaultdict(list)
    for row, kind in rows:
        groups[(row.code, row.segment, row.beginning)].append((row, kind))
    located: list[Located] = []
    dropped = []
    for group in groups.values():
        number, found = _locate(article, [row for row, _ in group])
        for position, (row, mention_type) in enumerate(group):
            if position < len(found):
                located.append((row, mention_type, number, found[position]))
                continue
            reason = (
                f"segment not found in paragraphs {max(1, row.beginning - 4)}..{row.beginning + 4}"
                if not found
                else f"coded {len(group)} times in paragraph {number} but occurs there {len(found)} times"
            )
            dropped.append(
                DroppedMention(
                    doc_key, f"{row.file}:{row.line}", f"paragraph {row.beginning}", row.segment, reason, "read"
                )
            )
    return located, dropped


def _build_mentions(
    doc: SourceDocument, spans: dict[int, list[tuple[int, int, str]]], located: list[Located]
) -> list[SourceMention]:
    mentions = []
    for row, mention_type, number, (start, end) in located:
        token_ids = tuple(tid for t_start, t_end, tid in spans[number] if t_start >= start and t_end <= end)
        kind: MentionKind = "event" if mention_type in EVENT_TYPES else "entity"
        mentions.append(
            SourceMention(
                doc_key=doc.doc_key,
                token_ids=token_ids,
                chain_id=chain_id(doc.topic_id, row.code, mention_type),
                kind=kind,
                full_type=mention_type,
                description=row.code,
                source_id=f"{row.file}:{row.line}",
            )
        )
    return mentions


def read_newswcl50r(raw_dir: Path, options: NewsWCL50rOptions) -> SourceCorpus:
    """Annotations + article texts -> SourceCorpus (raises MissingRawData without the texts)."""
    segments, concept_types, inputs = load_annotations(raw_dir)
    split_path = raw_dir / SPLIT_FILE
    split_of = read_split_map(split_path)
    articles = load_articles(_texts_dir(raw_dir, options))
    corpus = SourceCorpus(
        documents=[], mentions=[], inputs=[*inputs, split_path], counts={"annotated": 0, "properties_codes": 0}
    )
    corpus.inputs.extend(Path(article.path) for article in articles.values())
    for stem, rows in segments.items():
        topic_id = stem.split("_", 1)[0]
        if topic_id not in split_of:
            raise FormatError(split_path, f"topic {topic_id} ({stem}.csv) is in no split")
        by_doc: dict[str, list[tuple[MaxqdaSegment, str]]] = defaultdict(list)
        for row in rows:
            if row.is_property:
                corpus.counts["properties_codes"] += 1
                continue
            corpus.counts["annotated"] += 1
            key = f"{topic_id}/{topic_id}/{row.document}"
            mention_type = concept_types.get((topic_id, row.code))
            if mention_type is None or mention_type in EXCLUDED_TYPES:
                reason = (
                    f"type {mention_type} is excluded (uCDCR rule)"
                    if mention_type
                    else f"code has no type in {Path(CONCEPTS_FILE).name}"
                )
                corpus.dropped.append(
                    DroppedMention(
                        key, f"{row.file}:{row.line}", f"paragraph {row.beginning}", row.segment, reason, "read"
                    )
                )
                continue
            by_doc[row.document].append((row, mention_type))
        for name, doc_rows in by_doc.items():
            article = articles.get(name)
            if article is None:
                what = f"no article text for document {name!r} (annotated in {stem}.csv)"
                raise missing_raw_data(DATASET_ID, raw_dir, [what])
            doc_key = f"{topic_id}/{topic_id}/{name}"
            located, dropped = _locate_rows(doc_key, article, doc_rows)
            cuts: Cuts = defaultdict(set)
            for _, _, number, span in located:
                cuts[number].update(span)
            tokens, spans = _tokens(article, cuts)
            doc = SourceDocument(
                topic_id, topic_id, topic_id, stem, name, name, split_of[topic_id], tokens, source_file=article.path
            )
            corpus.documents.append(doc)
            corpus.mentions.extend(_build_mentions(doc, spans, located))
            corpus.dropped.extend(dropped)
    require_listed_ids(
        corpus,
        options,
        split_of,
        {stem.split("_", 1)[0] for stem in segments},
        what="topics (annotation CSVs <topic>_<name>.csv)",
        listed_in=split_path,
        hint=f"Check {raw_dir / ANNOTATIONS_DIR}.",
    )
    corpus.unavailable_splits = {
        split: "NewsWCL50r has no train split (evaluation only)"
        for split in SPLITS
        if split not in set(split_of.values())
    }
    corpus.notes.append("paragraphs are the source sentences; article texts are not redistributed")
    return corpus


def drop_duplicate_heads(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
    """Finalize hook: of the mentions with the same chain, document, sentence and head keep the longest string."""
    best: dict[tuple[Any, ...], MentionRecord] = {}
    for record in records:
        key = (record.coref_chain, record.conll_doc_key, record.sent_id, record.mention_head_id)
        kept = best.get(key)
        if kept is None or len(record.tokens_str) > len(kept.tokens_str):
            best[key] = record
    winners = {id(record) for record in best.values()}
    reason = "duplicate: a longer mention of the same chain has the same head in this sentence"
    dropped = [
        DroppedMention(
            record.conll_doc_key,
            record.mention_id,
            f"sentence {record.sent_id} tokens {record.tokens_number}",
            record.tokens_str,
            reason,
            "finalize",
        )
        for record in records
        if id(record) not in winners
    ]
    return [record for record in records if id(record) in winners], dropped


SPEC = register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="NewsWCL50r",
        authors_folder="NewsWCL50",
        raw_folder=RAW_FOLDER,
        mention_kinds=("event", "entity"),
        reader=read_newswcl50r,
        options=NewsWCL50rOptions,
        texts_redistributable=False,
        context_rule=ContextRule.TO_LAST_TOKEN,
        finalize=drop_duplicate_heads,
        mention_id_prefix="NewsWCL50r_",
        gold_fields=GOLD_FIELDS,  # the annotated concept type and code (description)
        expected_counts=(
            ExpectedCount("documents", 50, "paper Table 2"),
            ExpectedCount("topics", 10, "paper Table 2"),
            ExpectedCount("mentions_annotated", 9746 - 2715, "counted: 9,746 CSV rows, 2,715 of them Properties codes"),
            ExpectedCount("reader_properties_codes", 2715, "counted in the ten csv_export files"),
            ExpectedCount("val.chains", 145, "paper Table 4"),
            ExpectedCount("test.chains", 288, "paper Table 4 (printed as 686; its uCDCR sum uses 288)"),
        ),
    )
)
