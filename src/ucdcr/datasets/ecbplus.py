"""ECB+ (Cybulska & Vossen 2014): 982 CAT XML news documents on 43 topics, events and entities.

Raw layout (``<raw-dir>/ECBplus/``, as ``../shared/raw/ECBplus``)::

    ECB+_LREC2014/ECB+/<topic>/<topic>_<n>ecb.xml | <topic>_<n>ecbplus.xml   (the extracted ECB+.zip), or
    ECB+_LREC2014/ECB+.zip                                                  (the original download; root ECB+/)
    ECB+_LREC2014/ECBplus_coreference_sentences.csv   (Topic,File,Sentence Number: the validated sentences)
    ucdcr-meta/train_val_test_split.json              (topic ids per split, Barhom et al. 2019)
    ucdcr-meta/subtopic_names.json                    ("1ecb" -> subtopic name)

Structure (docs/datasets/ecbplus.md#structure): topic = the topic number; subtopic = ``{topic}ecb`` or
``{topic}ecbplus``; document key ``{topic}/{topic}{ecb|ecbplus}/{n}``; the split is the topic's split.

Rules:
- By default only documents and mentions in the validated sentences of ECBplus_coreference_sentences.csv are kept
  (15,122 mentions, paper Table 8); the reader option ``all_sentences`` (:class:`EcbplusOptions`, ``ucdcr build
  ecbplus --all-sentences``) keeps every sentence. Documents
  keep all their sentences as text either way (context windows span the whole document, as in the reference).
- Chains: a mention linked (CROSS_DOC_COREF / INTRA_DOC_COREF) to an instance with an ``instance_id`` takes that id
  (corpus-global); an instance without one (intra-document chains) gives ``{TYPE[:3]}_{doc}_{m_id}``; an
  UNKNOWN_INSTANCE_TAG target gives a within-document chain ``UNK_{doc}_{m_id}`` keyed by that target (not the
  reference's subtopic-wide merge); an unlinked mention is a singleton ``Singleton_{TYPE[:3]}_{doc}_{m_id}``.
- Event vs entity by the mention's own tag: ACTION_* and NEG_* are events. (The authors' parsers chose the file by
  the chain id instead: :data:`AUTHORS_EVENT_CHAINS`, used to read their parquet without its JSON files.)
- Discontinuous mentions are filled from the first to the last anchored token (counted as
  ``discontinuous_filled``); a mention spanning two sentences is dropped (reason given in the report).
- A coreference relation without exactly one target is an error; a mention that is the source of two relations
  to different instances stays in the first one (counted, noted).

Completeness: the split file lists topics 15 and 17, which ECB+ does not have (:data:`KNOWN_ABSENT_TOPICS`); any
other listed topic without a folder, or a document the validated-sentence CSV lists but the corpus lacks, stops
the build with the missing names (or, with the reader option ``partial=true``, is noted in the build report).
Subtopic names come from ``subtopic_names.json``; a subtopic it does not name keeps its id as name (noted).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError
from ucdcr.formats.cat_xml import CatDocument, CatMarkable, read_cat_xml
from ucdcr.formats.corpus_checks import natural_order, report_missing, require_listed_ids
from ucdcr.formats.inputs import csv_rows, open_zip, read_text
from ucdcr.formats.json_files import expect, read_json
from ucdcr.formats.split_file import SPLIT_FILE, read_split_map
from ucdcr.records import (
    DroppedMention,
    SourceCorpus,
    SourceDocument,
    SourceMention,
    Split,
    mention_type_of,
    source_tokens,
)
from ucdcr.registry import GOLD_FIELDS, DatasetSpec, ExpectedCount, ReadOptions, register

CORPUS_DIR = "ECB+_LREC2014"
TREE = f"{CORPUS_DIR}/ECB+"
ZIP = f"{CORPUS_DIR}/ECB+.zip"
SENTENCES_CSV = f"{CORPUS_DIR}/ECBplus_coreference_sentences.csv"
SUBTOPIC_FILE = "ucdcr-meta/subtopic_names.json"
EVENT_PREFIXES = ("ACTION", "NEG")
UNKNOWN_INSTANCE = "UNKNOWN_INSTANCE_TAG"
COREF_RELATIONS = ("CROSS_DOC_COREF", "INTRA_DOC_COREF")
KNOWN_ABSENT_TOPICS = ("15", "17")  # listed in the split file, not in the ECB+ release
DOWNLOAD_HINT = "Run `ucdcr download ecbplus` (or extract ECB+.zip again)."
_FILE_NAME = re.compile(r"^(\d+)_(\d+)(ecb|ecbplus)\.xml$")
# The chains the authors' parsers put in the event file: ACT*/NEG* ids ("…-regener-…" and Singleton_… chains went
# to the entity file). Also the rule of ECB+METAm, whose parser is ECB+'s.
AUTHORS_EVENT_CHAINS = re.compile(r"^(ACT|NEG)(?!.*regener)")


@dataclass(frozen=True)
class EcbplusOptions(ReadOptions):
    """ECB+'s reader options. all_sentences: keep the mentions of every sentence, not only the validated ones."""

    all_sentences: bool = False


def read(raw: Path, options: EcbplusOptions) -> SourceCorpus:
    """Read ECB+ from its raw folder into intermediate records, streamed document by document (the split file,
    subtopic names and validated sentences are read first)."""
    splits = read_split_map(raw / SPLIT_FILE)
    subtopic_names = _read_subtopic_names(raw / SUBTOPIC_FILE)
    sentences_csv = _find_sentences_csv(raw)
    validated = _read_validated_sentences(sentences_csv)
    corpus = SourceCorpus(documents=[], mentions=[], inputs=[raw / SPLIT_FILE, raw / SUBTOPIC_FILE, sentences_csv])
    corpus.stream = _stream(corpus, raw, options, splits, subtopic_names, validated, sentences_csv)
    if not options.all_sentences:  # the documents with validated sentences (all of them, unless the input is partial)
        corpus.document_count = len(validated)
    return corpus


def _stream(
    corpus: SourceCorpus,
    raw: Path,
    options: EcbplusOptions,
    splits: dict[str, Split],
    subtopic_names: dict[str, str],
    validated: dict[tuple[str, str], set[int]],
    sentences_csv: Path,
) -> Iterator[tuple[SourceDocument, list[SourceMention]]]:
    """The documents one XML file at a time; the corpus checks and notes once all are read."""
    all_sentences = options.all_sentences
    topics_seen: set[str] = set()
    documents_seen: set[tuple[str, str]] = set()
    subtopics: set[str] = set()
    files = 0
    for name, source, cat in _iter_documents(raw, corpus.inputs):
        topic, number, kind = _parse_file_name(name, source)
        topics_seen.add(topic)
        documents_seen.add((topic, f"{number}{kind}"))
        files += 1
        if topic not in splits:
            raise FormatError(raw / SPLIT_FILE, f"unknown topic {topic} (of {name}): it is in no split of this file")
        keep = validated.get((topic, f"{number}{kind}"))
        if keep is None and not all_sentences:
            _count(corpus, "documents_without_validated_sentences")
            _count(corpus, "mentions_outside_validated_sentences", len(list(cat.mentions())))
            continue
        columns = _token_columns(cat)
        document = _document(cat, columns, name, topic, number, kind, splits[topic], subtopic_names)
        subtopics.add(document.subtopic_id)
        yield document, _mentions(corpus, cat, columns, document, None if all_sentences else keep)
    _check_complete(corpus, options, raw, splits, topics_seen, set(validated) - documents_seen, sentences_csv)
    absent = natural_order(set(splits) & set(KNOWN_ABSENT_TOPICS) - topics_seen)
    if absent:  # ECB+ has no topics 15 and 17, though the split file lists them
        corpus.notes.append(f"topics listed in {SPLIT_FILE} but absent from the corpus: {', '.join(absent)}")
    unnamed = natural_order(subtopics - set(subtopic_names))
    if unnamed:
        corpus.notes.append(f"subtopics without a name in {SUBTOPIC_FILE} (named by their id): {', '.join(unnamed)}")
    corpus.counts["documents_in_corpus"] = files
    corpus.notes.append(
        "all sentences kept"
        if all_sentences
        else "only mentions in the validated sentences (ECBplus_coreference_sentences.csv)"
    )


def _check_complete(
    corpus: SourceCorpus,
    options: EcbplusOptions,
    raw: Path,
    splits: dict[str, Split],
    topics_seen: set[str],
    unseen_documents: set[tuple[str, str]],
    sentences_csv: Path,
) -> None:
    """Topic folders of the split file and documents of the validated-sentence CSV must all be there."""
    require_listed_ids(
        corpus,
        options,
        splits,
        topics_seen,
        what="topic folders",
        listed_in=raw / SPLIT_FILE,
        known_absent=KNOWN_ABSENT_TOPICS,
        hint=DOWNLOAD_HINT,
    )
    if unseen_documents:
        names = [f"{topic}_{document}.xml" for topic, document in sorted(unseen_documents, key=_document_order)]
        report_missing(
            corpus,
            options,
            sentences_csv,
            f"documents listed here but not in the corpus: {', '.join(names)}",
            DOWNLOAD_HINT,
        )


def _document_order(pair: tuple[str, str]) -> tuple[int, str]:
    topic, document = pair
    return (int(topic) if topic.isdigit() else 10**9, document)


def _read_subtopic_names(path: Path) -> dict[str, str]:
    names = expect(read_json(path), "object", path, "the file", of="subtopic id -> name")
    for subtopic, name in names.items():
        expect(name, "string", path, f"the name of subtopic {subtopic!r}")
    return names


def _find_sentences_csv(raw: Path) -> Path:
    """The validated-sentence CSV, or its alternative place in the extracted tree (the manifest's alternative)."""
    inside_tree = raw / TREE / Path(SENTENCES_CSV).name
    return inside_tree if not (raw / SENTENCES_CSV).exists() and inside_tree.exists() else raw / SENTENCES_CSV


def _read_validated_sentences(path: Path) -> dict[tuple[str, str], set[int]]:
    """(topic, "10ecbplus") -> validated sentence numbers."""
    validated: dict[tuple[str, str], set[int]] = {}
    rows = csv_rows(read_text(path), path)
    first = next(rows, None)
    header = [cell.strip() for cell in first[1]] if first else None
    if header != ["Topic", "File", "Sentence Number"]:
        raise FormatError(path, f"unexpected header {header}, expected Topic,File,Sentence Number", 1)
    for line, raw_row in rows:
        row = [cell.strip() for cell in raw_row]
        if len(row) != 3 or not row[0].isdigit() or not row[2].isdigit():
            raise FormatError(path, f"bad row {row}: expected <topic number>,<file>,<sentence number>", line)
        validated.setdefault((row[0], row[1]), set()).add(int(row[2]))
    return validated


def _iter_documents(raw: Path, inputs: list[Path]) -> Iterator[tuple[str, str, CatDocument]]:
    """(file name, source label, parsed document) for every XML of the extracted tree or, failing that, of
    ECB+.zip; sorted."""
    tree = raw / TREE
    if tree.is_dir():
        files = sorted(tree.glob("*/*.xml"), key=lambda p: _sort_key(p.name))
        inputs.extend(files)
        for file in files:
            yield file.name, str(file), read_cat_xml(file, name=str(file))
        return
    archive = raw / ZIP
    inputs.append(archive)
    with open_zip(archive) as bundle:
        members = [m for m in bundle.names() if m.endswith(".xml") and "__MACOSX" not in m]
        for member in sorted(members, key=lambda m: _sort_key(Path(m).name)):
            label = bundle.label(member)
            yield Path(member).name, label, read_cat_xml(bundle.read_bytes(member), name=label)


def _sort_key(name: str) -> tuple[int, str, int]:
    match = _FILE_NAME.match(name)
    return (int(match.group(1)), match.group(3), int(match.group(2))) if match else (10**9, name, 0)


def _parse_file_name(name: str, source: str) -> tuple[str, str, str]:
    match = _FILE_NAME.match(name)
    if not match:
        raise FormatError(source, "file name is not <topic>_<n>ecb.xml or <topic>_<n>ecbplus.xml")
    return match.group(1), match.group(2), match.group(3)


def _document(
    cat: CatDocument,
    columns: _Columns,
    name: str,
    topic: str,
    number: str,
    kind: str,
    split: str,
    subtopic_names: dict[str, str],
) -> SourceDocument:
    subtopic_id = f"{topic}{kind}"
    return SourceDocument(
        topic_id=topic,
        topic=topic,
        subtopic_id=subtopic_id,
        subtopic=subtopic_names.get(subtopic_id, subtopic_id),
        doc_id=number,
        doc=name.removesuffix(".xml"),
        split=split,  # type: ignore[arg-type]
        tokens=list(source_tokens(*columns)),
        source_file=cat.path,
    )


_Columns = tuple[tuple[Any, ...], ...]


def _token_columns(cat: CatDocument) -> _Columns:
    """The document's token ids, texts and sentence numbers, and no space-after (SourceToken's columns)."""
    ids, texts, sentences, _ = cat.columns
    return ids, texts, sentences, (None,) * len(ids)


def _mentions(
    corpus: SourceCorpus, cat: CatDocument, columns: _Columns, document: SourceDocument, keep: set[int] | None
) -> list[SourceMention]:
    """The anchored markables of one document as SourceMentions (drops go to ``corpus.dropped``), in document
    order. A mention's tokens run from its first to its last anchored token."""
    mentions: list[SourceMention] = []
    ids, texts, sentences, _ = columns
    linked = _links(cat, corpus)
    position = cat.position
    located = []
    for markable in cat.mentions():
        anchored = sorted({position[t] for t in markable.token_ids})
        located.append(((anchored[0], _numeric(markable.m_id), markable.m_id), markable, anchored))
    located.sort(key=itemgetter(0))  # by first token, then id: the keys differ (m_ids are unique)
    outside = annotated = filled = 0
    for _, markable, anchored in located:
        first, end = anchored[0], anchored[-1] + 1
        token_ids = ids[first:end]
        in_sentences = set(sentences[first:end])
        if keep is not None and keep.isdisjoint(in_sentences):
            outside += 1
            continue
        annotated += 1
        text = " ".join(texts[first:end])
        if len(in_sentences) > 1:
            corpus.dropped.append(
                DroppedMention(
                    document.doc_key,
                    markable.m_id,
                    f"t_id {token_ids[0]}..{token_ids[-1]}",
                    text,
                    f"mention spans sentences {sorted(in_sentences)}",
                    "read",
                )
            )
            continue
        filled += len(token_ids) != len(anchored)
        chain, description = _chain(markable, linked.get(markable.m_id), cat, document, text)
        mentions.append(
            SourceMention(
                doc_key=document.doc_key,
                token_ids=token_ids,
                chain_id=chain,
                kind="event" if markable.tag.startswith(EVENT_PREFIXES) else "entity",
                full_type=markable.tag,
                description=description,
                source_id=markable.m_id,
            )
        )
    for key, n in (("mentions_outside_validated_sentences", outside), ("annotated", annotated)):
        if n:
            _count(corpus, key, n)
    if filled:
        _count(corpus, "discontinuous_filled", filled)
    return mentions


def _count(corpus: SourceCorpus, key: str, n: int = 1) -> None:
    corpus.counts[key] = corpus.counts.get(key, 0) + n


def _numeric(m_id: str) -> int:
    return int(m_id) if m_id.isdigit() else -1


def _links(cat: CatDocument, corpus: SourceCorpus) -> dict[str, CatMarkable]:
    """source mention m_id -> target instance markable (first relation wins, others counted and noted)."""
    links = cat.coref_links(COREF_RELATIONS)
    for source, kept, ignored in links.ignored:
        _count(corpus, "second_coref_links")
        corpus.notes.append(
            f"{cat.path}: mention {source} is linked to instances {kept.m_id} and "
            f"{ignored.m_id}; it stays in the first one's chain"
        )
    return links.target


def _chain(
    markable: CatMarkable, target: CatMarkable | None, cat: CatDocument, document: SourceDocument, text: str
) -> tuple[str, str]:
    """(chain id, description) of a mention by the rules in the module docstring."""
    doc = document.doc
    if target is None:
        return f"Singleton_{mention_type_of(markable.tag)}_{doc}_{markable.m_id}", text
    description = target.attributes.get("TAG_DESCRIPTOR", "")
    if target.tag == UNKNOWN_INSTANCE:
        return f"UNK_{doc}_{target.m_id}", description
    instance_id = target.attributes.get("instance_id")
    if instance_id:
        return instance_id, description
    return f"{mention_type_of(target.tag)}_{doc}_{target.m_id}", description


SPEC = register(
    DatasetSpec(
        id="ecbplus",
        paper_name="ECB+",
        authors_folder="ECBplus",
        raw_folder="ECBplus",
        mention_kinds=("event", "entity"),
        reader=read,
        options=EcbplusOptions,
        authors_event_chains=AUTHORS_EVENT_CHAINS,
        mention_id_prefix="ECBPlus_",
        gold_fields=GOLD_FIELDS,  # the markable's tag as type, the instance's descriptor as description
        expected_counts=(
            ExpectedCount("reader_documents_in_corpus", 982, "counted: the XML documents of ECB+.zip"),
            ExpectedCount("mentions_annotated", 15122, "paper Table 8 'Original' (6,833 event + 8,289 entity)"),
            ExpectedCount(
                "mentions_written",
                15122,
                "paper Table 8 'Original': the character-offset alignment loses none (the paper's 15,051 lost 71)",
            ),
            ExpectedCount(
                "documents", 976, "the documents with validated sentences (= the 976 keys of the authors' release)"
            ),
            ExpectedCount("topics", 43, "paper Table 2"),
            ExpectedCount("subtopics", 86, "paper Table 2"),
            ExpectedCount("train.documents", 574, "paper Table 12"),
            ExpectedCount("val.documents", 196, "paper Table 12"),
            ExpectedCount("test.documents", 206, "paper Table 12"),
            ExpectedCount(
                "train.mentions", 8566, "paper Table 12's 8521 + the 45 mentions the authors' code lost in re-mapping"
            ),
            ExpectedCount(
                "val.mentions", 2721, "paper Table 12's 2710 + the 11 mentions the authors' code lost in re-mapping"
            ),
            ExpectedCount(
                "test.mentions", 3835, "paper Table 12's 3820 + the 15 mentions the authors' code lost in re-mapping"
            ),
            ExpectedCount(
                "event_mentions", 6833, "the ACTION_*/NEG_* mentions (the authors' event files hold 4,999, Table 3)"
            ),
            ExpectedCount("entity_mentions", 8289, "the other mentions (the authors' entity files hold 10,052)"),
        ),
    )
)
