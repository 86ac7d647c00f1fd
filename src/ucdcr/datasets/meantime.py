"""MEANTIME_eng: the English part of MEANTIME (Minard et al. 2016), events and entities (paper appendix 7.1.8).

Raw files (``<raw-dir>/MEANTIME/``): ``meantime_newsreader_english_oct15.zip`` (read directly; an extracted
``meantime_newsreader_english_oct15/`` folder works too) and ``ucdcr-meta/train_val_test_split.json`` (topic
numbers per split: train 0 airbus + 1 apple, val 2 gm, test 3 stock). Only
``intra_cross-doc_annotation/corpus_<topic>/<article id>_<Title>.xml`` is read (CAT XML,
:mod:`ucdcr.formats.cat_xml`).

Structure: topic k = the k-th of the four corpus folders of the release (:data:`TOPIC_FOLDERS`: airbus, apple,
gm, stock; topic ``0_corpus_airbus`` …), so a missing folder never renumbers the others: it stops the build with
its name (or, with the reader option ``partial=true``, is noted in the build report); one subtopic per article
(id = the article id, name = the file stem); one document per subtopic in the English-only version, doc id
``english<article id>`` (key ``0/82548/english82548``, as in the release).

Mentions: every ENTITY_MENTION / EVENT_MENTION markable with tokens (TIMEX3, VALUE and SIGNAL markables are not
coreference mentions and are counted in the notes); event vs entity by the tag. Chains through ``REFERS_TO``
(source mention -> target instance):
- target with an ``instance_id`` (cross-document): ``<instance_id>_<topic>``; the id is corpus-global, the topic
  suffix keeps each chain inside its topic (23 ids occur in two topics, which are in different splits or
  unrelated articles);
- target without one (within-document instances): ``<TYPE[:3]>_<doc id>_<m_id>``;
- a mention with no REFERS_TO (61 here) is kept as a singleton ``Singleton_<TAG[:3]>_<doc id>_<m_id>`` (the
  reference leaves them out); a mention linked to two instances (11) stays in the first one, noted.
- a REFERS_TO relation without exactly one target is an error.
Discontinuous mentions (e.g. "take ... away", "Mobile , Alabama" annotated without the comma) keep their
anchored tokens; the unified format stores one contiguous token range per mention, so the build drops them with
that reason (listed in the build report) instead of widening them. Unlike ECB+, MEANTIME declares no rule that
fills such gaps.
Type: the entity instance's ``ent_type`` spelled out (ORG -> ORGANIZATION, …); the event instance's ``class``
(SPEECH_COGNITIVE, GRAMMATICAL, MIXTURE …; class OTHER -> EVENT); unlinked: EVENT / OTHER. Description: the
instance's TAG_DESCRIPTOR (unlinked: empty).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.formats.cat_xml import CatDocument, CatMarkable, read_cat_xml
from ucdcr.formats.corpus_checks import require_listed_ids
from ucdcr.formats.inputs import open_zip
from ucdcr.formats.split_file import SPLIT_FILE, read_split_map
from ucdcr.records import SourceCorpus, SourceDocument, SourceMention, Split, mention_type_of, source_tokens
from ucdcr.registry import GOLD_FIELDS, DatasetSpec, ExpectedCount, ReadOptions, missing_raw_data, register

DATASET_ID = "meantime"
CORPUS = "meantime_newsreader_english_oct15"
ZIP = f"{CORPUS}.zip"
ANNOTATION = "intra_cross-doc_annotation"
LANGUAGE = "english"
MENTION_TAGS = ("ENTITY_MENTION", "EVENT_MENTION")
TOPIC_FOLDERS = ("corpus_airbus", "corpus_apple", "corpus_gm", "corpus_stock")  # topic number = position
DOWNLOAD_HINT = "Run `ucdcr download meantime` (the zip may be incomplete: download it again)."
ENTITY_TYPES = {  # MEANTIME ent_type abbreviations
    "PRO": "PRODUCT",
    "FIN": "FINANCE",
    "LOC": "LOCATION",
    "ORG": "ORGANIZATION",
    "OTH": "OTHER",
    "PER": "PERSON",
    "MIX": "MIXTURE",
}
EVENT_CLASSES = {"OTHER": "EVENT", "MIX": "MIXTURE"}
_MEMBER = re.compile(rf"(?:^|/){re.escape(ANNOTATION)}/(corpus_[^/]+)/((\d+)_[^/]*)\.xml$")


def read_meantime(raw_folder: Path, options: ReadOptions) -> SourceCorpus:
    """The English MEANTIME zip -> SourceCorpus (one document per article, chains from REFERS_TO instances)."""
    split_of = read_split_map(raw_folder / SPLIT_FILE)
    corpus = SourceCorpus(documents=[], mentions=[], inputs=[raw_folder / SPLIT_FILE])
    files = list(_iter_files(raw_folder, corpus.inputs))
    skipped: Counter[str] = Counter()
    extra_links = 0
    for folder, stem, article, cat in files:
        topic_number = _topic_number(folder, cat.path)
        if topic_number not in split_of:
            raise FormatError(raw_folder / SPLIT_FILE, f"topic {topic_number} ({folder}) is in no split")
        document = _document(cat, folder, topic_number, stem, article, split_of[topic_number])
        corpus.documents.append(document)
        extra_links += _add_mentions(corpus, cat, document, skipped)
    if not corpus.documents:
        raise missing_raw_data(DATASET_ID, raw_folder, [f"the {ANNOTATION} documents of {ZIP}"])
    found = {_topic_number(folder, folder) for folder, _, _, _ in files}
    require_listed_ids(
        corpus,
        options,
        split_of,
        found,
        what=f"topics ({ANNOTATION} corpus folders)",
        names={str(i): name for i, name in enumerate(TOPIC_FOLDERS)},
        listed_in=raw_folder / SPLIT_FILE,
        hint=DOWNLOAD_HINT,
    )
    corpus.counts["annotated"] = len(corpus.mentions)
    corpus.counts["unlinked_singletons"] = sum(1 for m in corpus.mentions if m.chain_id.startswith("Singleton_"))
    corpus.counts["second_refers_to_links"] = extra_links
    corpus.notes.append(
        "not coreference mentions, not read: " + ", ".join(f"{n} {tag}" for tag, n in sorted(skipped.items()))
    )
    corpus.notes.append(f"{extra_links} mentions linked to a second instance stay in their first chain")
    return corpus


def _topic_number(folder: str, source: str) -> str:
    if folder not in TOPIC_FOLDERS:
        raise FormatError(source, f"unknown corpus folder {folder!r}; MEANTIME's are {', '.join(TOPIC_FOLDERS)}")
    return str(TOPIC_FOLDERS.index(folder))


def _iter_files(raw: Path, inputs: list[Path]) -> Iterator[tuple[str, str, str, CatDocument]]:
    """(corpus folder, file stem, article id, document) for every annotated article, sorted by folder and name."""
    archive, folder = raw / ZIP, raw / CORPUS
    if archive.exists():
        inputs.append(archive)
        with open_zip(archive) as bundle:
            members = sorted((m, _MEMBER.search(m)) for m in bundle.names() if "__MACOSX" not in m)
            for member, match in members:
                if match:
                    cat = read_cat_xml(bundle.read_bytes(member), name=bundle.label(member))
                    yield match.group(1), match.group(2), match.group(3), cat
        return
    for path in sorted(folder.glob(f"{ANNOTATION}/corpus_*/*.xml")):
        match = _MEMBER.search(path.as_posix())
        if match:
            inputs.append(path)
            yield match.group(1), match.group(2), match.group(3), read_cat_xml(path)


def _document(cat: CatDocument, folder: str, topic: str, stem: str, article: str, split: Split) -> SourceDocument:
    t_ids, texts, sentences, _ = cat.columns
    return SourceDocument(
        topic_id=topic,
        topic=f"{topic}_{folder}",
        subtopic_id=article,
        subtopic=stem,
        doc_id=f"{LANGUAGE}{article}",
        doc=f"{LANGUAGE}{stem}",
        split=split,
        tokens=list(source_tokens(t_ids, texts, sentences, (None,) * len(t_ids))),
        source_file=cat.path,
    )


def _add_mentions(corpus: SourceCorpus, cat: CatDocument, document: SourceDocument, skipped: Counter[str]) -> int:
    """Add the document's mentions; returns how many second REFERS_TO links were ignored."""
    links = cat.coref_links({"REFERS_TO"})
    for markable in cat.mentions():
        if markable.tag not in MENTION_TAGS:
            skipped[markable.tag] += 1
            continue
        target = links.target.get(markable.m_id)
        corpus.mentions.append(_mention(markable, cat.anchored_tokens(markable), target, document))
    return len(links.ignored)


def _mention(
    markable: CatMarkable, token_ids: tuple[str, ...], target: CatMarkable | None, document: SourceDocument
) -> SourceMention:
    is_event = "EVENT" in markable.tag
    if target is None:
        chain = f"Singleton_{mention_type_of(markable.tag)}_{document.doc_id}_{markable.m_id}"
        full_type, description = ("EVENT" if is_event else "OTHER"), ""
    else:
        full_type = _instance_type(target, is_event)
        instance_id = target.attributes.get("instance_id")
        within_document = f"{mention_type_of(full_type)}_{document.doc_id}_{target.m_id}"
        chain = f"{instance_id}_{document.topic_id}" if instance_id else within_document
        description = target.attributes.get("TAG_DESCRIPTOR", "")
    return SourceMention(
        doc_key=document.doc_key,
        token_ids=token_ids,
        chain_id=chain,
        kind="event" if is_event else "entity",
        full_type=full_type,
        description=description,
        source_id=markable.m_id,
    )


def _instance_type(instance: CatMarkable, is_event: bool) -> str:
    """ent_type spelled out, else the event class, else (attribute missing or empty) EVENT / OTHER by the tag."""
    if instance.attributes.get("ent_type"):
        code = instance.attributes["ent_type"]
        return ENTITY_TYPES.get(code, code)
    if instance.attributes.get("class"):
        code = instance.attributes["class"]
        return EVENT_CLASSES.get(code, code)
    return "EVENT" if is_event else "OTHER"


SPEC = register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="MEANTIME_eng",
        authors_folder="MEANTIME",
        raw_folder="MEANTIME",
        mention_kinds=("event", "entity"),
        reader=read_meantime,
        mention_id_prefix="MEANTIME_",
        gold_fields=GOLD_FIELDS,  # the instance's (chain's) type and description on every mention
        expected_counts=(
            ExpectedCount("documents", 120, "paper Table 2 (120 documents = 120 subtopics)"),
            ExpectedCount("train.documents", 60, "paper appendix 7.1.8: train = airbus + apple"),
            ExpectedCount("val.documents", 30, "paper appendix 7.1.8: val = gm"),
            ExpectedCount("test.documents", 30, "paper appendix 7.1.8: test = stock"),
            ExpectedCount(
                "mentions_annotated",
                6617,
                "counted in the zip: 6556 ENTITY/EVENT_MENTIONs linked by REFERS_TO (paper Table 8 'Original' 6545) "
                "+ 61 unlinked ones kept as singletons",
            ),
            ExpectedCount("reader_unlinked_singletons", 61, "counted in the zip"),
            ExpectedCount(
                "train.mentions",
                3390,
                "paper Table 12's 3355 + unlinked singletons and the authors' re-mapping losses - discontinuous "
                "markables dropped",
            ),
            ExpectedCount("val.mentions", 1895, "paper Table 12"),
            ExpectedCount(
                "test.mentions",
                1274,
                "paper Table 12's 1256 + unlinked singletons and the authors' re-mapping losses - discontinuous "
                "markables dropped",
            ),
            ExpectedCount(
                "entity_mentions", 3908, "paper Table 3's 3855 + unlinked singletons - 10 discontinuous markables"
            ),
            ExpectedCount("event_mentions", 2651, "paper Table 3"),
        ),
    )
)
