"""GVC (Gun Violence Corpus, Vossen et al. 2018): event-only, one topic, subtopic = GVC incident.

Raw folder ``GVC/`` (flat, like uCDCR's ``GVC-prep/GVC/``): ``verbose.conll`` from cltl/GunViolenceCorpus (the only
CoNLL file read; ``gold.conll`` / ``system_input.conll`` are optional) and UKP's ``gvc_doc_to_event.csv``,
``train.csv``, ``dev.csv``, ``test.csv`` (format: :mod:`ucdcr.formats.gvc_conll`).

Structure (paper §7.1.6, docs/datasets/gvc.md#structure): topic ``0`` ("0_gun_violence"), subtopic = incident id from
``gvc_doc_to_event.csv``, document key ``0/<incident>/<doc id>``, document name = its title tokens joined by
``_``; the split of a document is the split CSV listing its incident. Chains keep their GVC cluster id; cluster
``0`` (unlinked) makes a singleton. Every mention is an EVENT. A document whose incident is in no split file is
left out, each of its mentions reported as dropped (and the documents counted).

Completeness: every document ``gvc_doc_to_event.csv`` maps to an incident of a split must be in
``verbose.conll``; missing ones stop the build with their ids (or, with the reader option ``partial=true``, are
noted in the build report), so no incident and no split is silently left short or empty.
"""

from __future__ import annotations

from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.formats.corpus_checks import report_missing
from ucdcr.formats.gvc_conll import (
    DOC_TO_EVENT_FILE,
    SPLIT_FILES,
    UNLINKED_CHAIN,
    GvcDocument,
    GvcMention,
    read_doc_to_event,
    read_split_events,
    read_verbose_conll,
)
from ucdcr.records import DroppedMention, SourceCorpus, SourceDocument, SourceMention, SourceToken, Split
from ucdcr.registry import GOLD_FIELDS, DatasetSpec, ExpectedCount, ReadOptions, register

DATASET_ID = "gvc"
CONLL_FILE = "verbose.conll"
TOPIC_ID, TOPIC_NAME = "0", "0_gun_violence"


def read_structure(folder: Path) -> dict[str, tuple[str, Split | None]]:
    """{doc id: (incident id, split or None)} from the mapping and split CSVs (they are here without the CoNLL)."""
    event_split = read_split_events(folder)
    return {
        doc: (event, event_split.get(event)) for doc, event in read_doc_to_event(folder / DOC_TO_EVENT_FILE).items()
    }


def read(folder: Path, options: ReadOptions) -> SourceCorpus:
    """Raw ``GVC/`` folder -> SourceCorpus (raises FormatError; partial input: see the module docstring)."""
    structure = read_structure(folder)
    conll_path = folder / CONLL_FILE
    corpus = SourceCorpus(documents=[], mentions=[], inputs=[conll_path, folder / DOC_TO_EVENT_FILE])
    corpus.inputs += [folder / name for name in SPLIT_FILES.values()]
    corpus.notes.append("NEWLINE tokens end a sentence and are not kept as tokens (uCDCR keeps them as '//n').")
    annotated = 0
    seen: set[str] = set()
    for gvc_doc in read_verbose_conll(conll_path):
        annotated += len(gvc_doc.mentions)
        seen.add(gvc_doc.doc_id)
        if gvc_doc.doc_id not in structure:
            _raise_unmapped(conll_path, gvc_doc)
        incident, split = structure[gvc_doc.doc_id]
        doc_key = f"{TOPIC_ID}/{incident}/{gvc_doc.doc_id}"
        if split is None:
            corpus.counts["documents_in_no_split"] = corpus.counts.get("documents_in_no_split", 0) + 1
            corpus.dropped += [
                _dropped(doc_key, gvc_doc, m, f"incident {incident} is in no split file") for m in gvc_doc.mentions
            ]
            continue
        corpus.documents.append(_document(gvc_doc, incident, split))
        corpus.mentions += [_mention(doc_key, m) for m in gvc_doc.mentions]
    corpus.counts["annotated"] = annotated
    _check_complete(corpus, options, folder, structure, seen)
    return corpus


def _check_complete(
    corpus: SourceCorpus,
    options: ReadOptions,
    folder: Path,
    structure: dict[str, tuple[str, Split | None]],
    seen: set[str],
) -> None:
    """Incidents of the split files without documents, and documents of split incidents that verbose.conll lacks:
    an error naming them (or a note with partial=true)."""
    missing = sorted(doc for doc, (_, split) in structure.items() if split is not None and doc not in seen)
    built = {document.subtopic_id for document in corpus.documents}
    empty = sorted(set(read_split_events(folder)) - built, key=int)
    problems = []
    if empty:
        problems.append(
            f"incident(s) listed in {', '.join(SPLIT_FILES.values())} without any document here: {_first(empty)}"
        )
    if missing:
        problems.append(
            f"{len(missing)} document(s) that {DOC_TO_EVENT_FILE} maps to incidents of the splits are not "
            f"in this file: {_first(missing)}"
        )
    if problems:
        report_missing(
            corpus,
            options,
            folder / CONLL_FILE,
            "; ".join(problems),
            f"The file may be truncated: download {CONLL_FILE} again.",
        )


def _first(names: list[str], limit: int = 20) -> str:
    return ", ".join(names[:limit]) + (f" ... ({len(names)} in all)" if len(names) > limit else "")


def _raise_unmapped(conll_path: Path, gvc_doc: GvcDocument) -> None:
    raise FormatError(conll_path, f"document {gvc_doc.doc_id!r} is not in {DOC_TO_EVENT_FILE}", gvc_doc.line)


def _document(gvc_doc: GvcDocument, incident: str, split: Split) -> SourceDocument:
    return SourceDocument(
        topic_id=TOPIC_ID,
        topic=TOPIC_NAME,
        subtopic_id=incident,
        subtopic=incident,
        doc_id=gvc_doc.doc_id,
        doc=gvc_doc.title,
        split=split,
        tokens=[SourceToken(t.key, t.text, t.sent_index) for t in gvc_doc.tokens],
        source_file=CONLL_FILE,
    )


def _mention(doc_key: str, mention: GvcMention) -> SourceMention:
    source_id = mention.token_keys[0]
    chain = f"Singleton_{source_id}" if mention.chain == UNLINKED_CHAIN else mention.chain
    return SourceMention(
        doc_key=doc_key,
        token_ids=mention.token_keys,
        chain_id=chain,
        kind="event",
        full_type="EVENT",
        description=mention.description,
        source_id=source_id,
    )


def _dropped(doc_key: str, gvc_doc: GvcDocument, mention: GvcMention, reason: str) -> DroppedMention:
    texts = {t.key: t.text for t in gvc_doc.tokens}
    return DroppedMention(
        doc_key=doc_key,
        source_id=mention.token_keys[0],
        span=f"{mention.token_keys[0]}..{mention.token_keys[-1]}",
        text=" ".join(texts.get(k, "") for k in mention.token_keys),
        reason=reason,
        stage="read",
    )


register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="GVC",
        authors_folder="GVC",
        raw_folder="GVC",
        mention_kinds=("event",),
        reader=read,
        mention_id_prefix="GVC_",
        gold_fields=GOLD_FIELDS,  # the event chains and the source's description; nothing else is annotated
        expected_counts=(
            ExpectedCount("mentions_annotated", 7298, "paper Table 8 'Original'"),
            ExpectedCount("documents", 510, "the authors' summary CSV"),
            ExpectedCount("subtopics", 241, "the authors' summary CSV (incidents)"),
            ExpectedCount("train.documents", 358, "the authors' summary CSV"),
            ExpectedCount("val.documents", 78, "the authors' summary CSV"),
            ExpectedCount("test.documents", 74, "the authors' summary CSV"),
            ExpectedCount("test.subtopics", 34, "paper Table 13 (GVC test row)"),
        ),
    )
)
