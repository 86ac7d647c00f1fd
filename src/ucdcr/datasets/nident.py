"""NIdent_en-cd (Recasens et al. 2010, 2012): NP4E's documents re-annotated with identity and near-identity.

Raw folders: ``<raw-dir>/NIdent/english-corpus/*.xml`` (the licensed NIdent-EN files, format:
:mod:`ucdcr.formats.nident_xml`), ``<raw-dir>/NIdent/ucdcr-meta/train_val_test_split.json`` (subtopics 0-2 train,
3 val, 4 test) and the NP4E MMAX2 tree ``<raw-dir>/NP4E/mmax2/`` (only for the subtopic of each document:
``<event>/<id>newsML.mmax``). Optional: ``<raw-dir>/NIdent/nident_mapping.csv``, uCDCR's manual cross-document
chain table (columns ``subtopic_id, doc_id, coref_chain, unified_id``; not public).

Structure as NP4E (:mod:`ucdcr.datasets.np4e`): topic ``0``, subtopic ``<k>_<event>`` with k the event's position
among NP4E's five events, document key ``0/<k>_<event>/<doc id>``. Every ``sn`` is an entity mention. A subtopic
the split file lists without any NIdent document stops the build with its name (or, with the reader option
``partial=true``, is noted in the build report).

Chains. uCDCR merges the within-document chains (``entity``) across documents with its manual mapping file,
which is not public. Without it, ucdcr merges them by the NP4E rule (:func:`ucdcr.datasets.np4e.merge_within_subtopic`:
shared mention/head strings, transitive closure within a subtopic), so NIdent_en-cd chains here are heuristic and
differ from the published ones. With ``nident_mapping.csv`` present, its ``unified_id`` is the chain id (mentions
of chains the table does not list are dropped, as in uCDCR; table rows with an empty cell are not used, and the
build report names their lines). ``coref_type`` is IDENTITY (identdegree 3) or
NEAR_IDENTITY (2); non-identity mentions (identdegree 1) are dropped, as in uCDCR. A mention without an ``entity``
is a singleton. Token "$" artefacts are removed as in NP4E; tokens that are just "_" are not kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ucdcr.datasets import np4e
from ucdcr.datasets._chains import OTHER_TYPE, by_chain
from ucdcr.errors import FormatError
from ucdcr.formats.corpus_checks import require_listed_ids
from ucdcr.formats.inputs import csv_records, read_text
from ucdcr.formats.nident_xml import IDENTITY_DEGREES, NidentDocument, NidentMention, read_nident_xml
from ucdcr.formats.split_file import SPLIT_FILE, read_split_map
from ucdcr.records import DroppedMention, MentionRecord, SourceCorpus, SourceDocument, SourceMention, SourceToken
from ucdcr.registry import (
    GOLD_FIELDS,
    DatasetSpec,
    ExpectedCount,
    ReadOptions,
    get,
    missing_raw_data,
    register,
    require_raw_files,
)

DATASET_ID = "nident"
REANNOTATES = "np4e"
CORPUS_DIR = "english-corpus"
MAPPING_FILE = "nident_mapping.csv"
MAPPING_COLUMNS = ("subtopic_id", "doc_id", "coref_chain", "unified_id")
MAPPED_PREFIX = "map:"
NON_IDENTITY = "1"
PLACEHOLDER_TOKENS = frozenset({"_", ""})


def np4e_subtopics(np4e_folder: Path) -> dict[str, str]:
    """{NP4E doc id: "<k>_<event>"} from the NP4E MMAX2 tree (k = the event's number, :data:`np4e.EVENTS`)."""
    require_raw_files(REANNOTATES, np4e_folder, only=[np4e.MMAX_FOLDER])
    root = np4e_folder / np4e.MMAX_FOLDER
    subtopic_of = {}
    for number, (event, projects) in np4e.event_projects(root).items():
        for project in projects:
            subtopic_of["".join(ch for ch in project.stem if ch.isdigit())] = f"{number}_{event}"
    return subtopic_of


def read_mapping(path: Path) -> tuple[dict[tuple[str, str, str], str], list[int]]:
    """``nident_mapping.csv`` -> {(subtopic_id, doc_id, within-doc chain): unified chain id}, and the lines of the
    rows not used because a cell is empty."""
    mapping: dict[tuple[str, str, str], str] = {}
    blank_lines = []
    for line, row in csv_records(read_text(path), path, MAPPING_COLUMNS):
        if not all(row[column].strip() for column in MAPPING_COLUMNS):
            blank_lines.append(line)
            continue
        mapping[(row["subtopic_id"], row["doc_id"], row["coref_chain"])] = row["unified_id"]
    return mapping, blank_lines


def read(folder: Path, options: ReadOptions) -> SourceCorpus:
    """Raw ``NIdent/`` (+ ``NP4E/``) -> SourceCorpus with within-document chains (merged by :func:`finalize`)."""
    files = sorted((folder / CORPUS_DIR).glob("*.xml"))
    if not files:
        raise missing_raw_data(DATASET_ID, folder, [f"{CORPUS_DIR}/*.xml"])
    split_of = read_split_map(folder / SPLIT_FILE)
    subtopic_of = np4e_subtopics(folder.parent / get(REANNOTATES).raw_folder)
    mapping, blank_lines = read_mapping(folder / MAPPING_FILE) if (folder / MAPPING_FILE).exists() else (None, [])
    corpus = SourceCorpus(documents=[], mentions=[], inputs=[folder / SPLIT_FILE, *files])
    corpus.notes.append(
        f"cross-document chains from {MAPPING_FILE}"
        if mapping is not None
        else f"{MAPPING_FILE} (uCDCR's manual cross-document chain table) is not public: within-document chains were "
        "merged by the NP4E rule instead, so chains differ from the published NIdent_en-cd"
    )
    if mapping is not None:
        corpus.inputs.append(folder / MAPPING_FILE)
    if blank_lines:
        corpus.notes.append(
            f"{MAPPING_FILE}: {len(blank_lines)} row(s) with an empty cell not used (lines "
            f"{', '.join(map(str, blank_lines[:20]))}{' ...' if len(blank_lines) > 20 else ''})"
        )
    for path in files:
        _add_document(corpus, read_nident_xml(path), subtopic_of, split_of, mapping, folder)
    require_listed_ids(
        corpus,
        options,
        split_of,
        {d.subtopic_id.split("_", 1)[0] for d in corpus.documents},
        what="subtopics with NIdent documents",
        names=np4e.EVENT_OF_NUMBER,
        listed_in=folder / SPLIT_FILE,
        hint=f"Check the files in {folder / CORPUS_DIR}.",
    )
    corpus.counts["annotated"] = len(corpus.mentions) + len(corpus.dropped)
    return corpus


def _add_document(
    corpus: SourceCorpus,
    nident: NidentDocument,
    subtopic_of: dict[str, str],
    split_of: dict[str, Any],
    mapping: dict[tuple[str, str, str], str] | None,
    folder: Path,
) -> None:
    subtopic_id = subtopic_of.get(nident.doc_id)
    if subtopic_id is None:
        raise FormatError(nident.path, f"document {nident.doc_id} is not in the NP4E tree (no subtopic)")
    number, event = subtopic_id.split("_", 1)
    if number not in split_of:
        raise FormatError(folder / SPLIT_FILE, f"subtopic {number} ({event}) is in no split")
    kept = [w for w in nident.words if np4e.clean_token(w.text) not in PLACEHOLDER_TOKENS]
    document = SourceDocument(
        topic_id=np4e.TOPIC_ID,
        topic=np4e.TOPIC,
        subtopic_id=subtopic_id,
        subtopic=f"{number}_{np4e.SUBTOPIC_NAMES[event]}",
        doc_id=nident.doc_id,
        doc=nident.doc_id,
        split=split_of[number],
        tokens=[SourceToken(w.word_id, np4e.clean_token(w.text), w.sentence) for w in kept],
        source_file=str(nident.path.relative_to(folder)),
    )
    corpus.documents.append(document)
    order = {w.word_id: i for i, w in enumerate(kept)}
    text = {w.word_id: w.text for w in nident.words}
    for mention in nident.mentions:
        _add_mention(corpus, document, mention, order, text, mapping)


def _add_mention(
    corpus: SourceCorpus,
    document: SourceDocument,
    mention: NidentMention,
    order: dict[str, int],
    text: dict[str, str],
    mapping: dict[tuple[str, str, str], str] | None,
) -> None:
    words = [w for w in mention.word_ids if w in order]
    chain, reason = _chain(document, mention, mapping)
    if mention.degree == NON_IDENTITY:
        reason = "non-identity mention (identdegree=1), excluded as in uCDCR"
    elif not words:
        reason = "mention has no words (empty / elliptical sn)"
    if reason is not None:
        surface = " ".join(text[w] for w in mention.word_ids)
        corpus.dropped.append(
            DroppedMention(
                document.doc_key, mention.marker_id, ",".join(mention.word_ids) or "-", surface, reason, "read"
            )
        )
        return
    first, last = min(order[w] for w in words), max(order[w] for w in words)
    corpus.mentions.append(
        SourceMention(
            doc_key=document.doc_key,
            token_ids=tuple(document.tokens[i].token_id for i in range(first, last + 1)),
            chain_id=chain,
            kind="entity",
            full_type=OTHER_TYPE,
            description="",
            source_id=mention.marker_id,
            coref_type=IDENTITY_DEGREES[mention.degree],
        )
    )


def _chain(
    document: SourceDocument, mention: NidentMention, mapping: dict[tuple[str, str, str], str] | None
) -> tuple[str, str | None]:
    """(chain id, drop reason or None): the mapping's unified id, else the within-document chain."""
    if mapping is None:
        entity = mention.entity or f"single_{mention.marker_id}"
        return np4e.within_document_chain(document.subtopic_id, document.doc_id, entity), None
    unified = mapping.get((document.subtopic_id, document.doc_id, mention.entity or ""))
    if unified is None:
        return "", f"chain {mention.entity} is not in {MAPPING_FILE}"
    return f"{MAPPED_PREFIX}{unified}", None


def finalize(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
    """Chains from the mapping keep their id (type and description assigned); the others are merged by NP4E's rule."""
    mapped = [r for r in records if r.coref_chain.startswith(MAPPED_PREFIX)]
    unmapped = [r for r in records if not r.coref_chain.startswith(MAPPED_PREFIX)]
    assigned: dict[int, MentionRecord] = {}
    for chain, chain_records in by_chain(mapped).items():
        typed = np4e.assign_chain(chain_records, chain.removeprefix(MAPPED_PREFIX))
        assigned.update(zip(map(id, chain_records), typed, strict=True))
    merged, _ = np4e.merge_within_subtopic(unmapped)
    assigned.update(zip(map(id, unmapped), merged, strict=True))
    return [assigned[id(r)] for r in records], []


register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="NIdent_en-cd",
        authors_folder="NIdent",
        raw_folder="NIdent",
        mention_kinds=("entity",),
        reader=read,
        reannotates=REANNOTATES,
        finalize=finalize,
        mention_id_prefix="NIdent_",
        gold_fields=GOLD_FIELDS,  # the chain's type on every mention, the (near-)identity relation in coref_type
        expected_counts=(
            ExpectedCount("mentions_annotated", 13095, "paper Table 8 'Original'"),
            ExpectedCount("documents", 93, "the authors' summary CSV"),
        ),
    )
)
