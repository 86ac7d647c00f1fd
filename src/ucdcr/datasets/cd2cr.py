"""CD2CR (Ravenscroft et al. 2021): cross-domain entity coreference between science news and paper abstracts.

Raw layout (``<raw-dir>/CD2CR/CDCR_Corpus/``): ``{train,dev,test}.conll`` (tokens), ``{train,dev,test}_entities.json``
(the mentions), ``news_urls.json`` and ``sci_papers.json`` (document names; optional). Format:
:mod:`ucdcr.formats.cd2cr`.

Structure (paper appendix 7.1.1): one topic ``0`` ("0_science_technology"); every original topic (one news
article + one paper abstract) becomes a subtopic, numbered globally across splits in the order val, train,
test, in order of first appearance (so ids are unique across splits, as in the release: val 0-70, train 71-220,
test 221-263); subtopic name ``<split>_<original topic>``. Document id = the original ``doc_id``; document name =
the news URL's last path component or the paper's DOI. Original splits (dev -> val).

Rules:
- Chain = the original ``cluster_id`` (cluster ids do not repeat across splits).
- Sentences: the CoNLL sentence split is automatic and 50 mentions cross 56 of its boundaries (e.g.
  "aged 3·0 years [ SD 2·5 ]"); the sentences such a mention spans are joined into one sentence, so no mention
  is cut or dropped (the reference keeps only the part in the first sentence). Sentence ids are renumbered 0..
  per document.
- A mention whose topic differs from its document's is dropped with the reason; mentions are passed on with their
  token ids as annotated (the build drops one whose ids are not in its document or not one contiguous run,
  instead of widening it).
- Document names: ``news_urls.json`` / ``sci_papers.json`` are objects ``{"<n>": {"url" | "doi": string}}``; a
  document they do not name keeps its doc id as name (counted in the notes).
- Entity type (finalize hook): the majority over the chain of the head NER (O -> OTHER), ties alphabetically
  first; description: the chain's distinct head words joined by "_" (as the reference, but sorted).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ucdcr.errors import MissingRawData
from ucdcr.formats import cd2cr as fmt
from ucdcr.formats.json_files import expect, field
from ucdcr.records import DroppedMention, SourceCorpus, SourceDocument, SourceMention, SourceToken, Split
from ucdcr.registry import DatasetSpec, ReadOptions, register

CORPUS_DIR = "CDCR_Corpus"
SPLIT_FILES: tuple[tuple[Split, str], ...] = (("val", "dev"), ("train", "train"), ("test", "test"))
TOPIC_ID, TOPIC = "0", "0_science_technology"
OTHER_TYPE = "OTHER"


def read_cd2cr(raw_folder: Path, options: ReadOptions | None = None) -> SourceCorpus:
    """Raw CD2CR files -> SourceCorpus (subtopics renumbered across splits, crossing sentences joined)."""
    corpus_dir = raw_folder / CORPUS_DIR
    required = [corpus_dir / f"{stem}{suffix}" for _, stem in SPLIT_FILES for suffix in (".conll", "_entities.json")]
    missing = [str(p) for p in required if not p.exists()]
    if missing:
        raise MissingRawData(f"CD2CR files missing: {', '.join(missing)}. Run `ucdcr download cd2cr`.")
    names = _document_names(corpus_dir)
    corpus = SourceCorpus(documents=[], mentions=[], inputs=list(required))
    subtopic_numbers: dict[tuple[Split, str], int] = {}
    joined_boundaries = 0
    for split, stem in SPLIT_FILES:
        tokens = fmt.read_conll(corpus_dir / f"{stem}.conll")
        entities = fmt.read_entities(corpus_dir / f"{stem}_entities.json")
        joined_boundaries += _add_split(corpus, split, stem, tokens, entities, subtopic_numbers, names)
    corpus.counts["annotated"] = len(corpus.mentions) + len(corpus.dropped)
    corpus.counts["sentence_boundaries_joined"] = joined_boundaries
    corpus.notes.append(
        f"{joined_boundaries} automatic sentence boundaries inside annotated mentions were removed (sentences joined)"
    )
    unnamed = sum(1 for d in corpus.documents if d.doc == d.doc_id)
    if unnamed:
        corpus.notes.append(f"{unnamed} documents are not named in news_urls.json / sci_papers.json (named by doc id)")
    return corpus


def _document_names(corpus_dir: Path) -> dict[str, dict[str, str]]:
    """{"news": {n: url tail}, "science": {n: doi}} from the optional name files."""
    names: dict[str, dict[str, str]] = {"news": {}, "science": {}}
    for kind, file_name, key in (("news", "news_urls.json", "url"), ("science", "sci_papers.json", "doi")):
        path = corpus_dir / file_name
        if path.exists():
            records = expect(fmt.read_json(path), "object", path, "the file", of=f"number -> {{{key!r}: ...}}")
            for number, record in records.items():
                value = field(
                    expect(record, "object", path, f"entry {number!r}"), key, "string", path, f"entry {number!r}"
                )
                names[kind][number] = value.rstrip("/").split("/")[-1] if key == "url" else value
    return names


def _document_name(doc_id: str, names: dict[str, dict[str, str]]) -> str:
    parts = doc_id.split("_")
    if len(parts) == 3 and parts[1] in names:
        return names[parts[1]].get(parts[2]) or doc_id
    return doc_id


def _add_split(
    corpus: SourceCorpus,
    split: Split,
    stem: str,
    tokens: list[fmt.ConllToken],
    entities: list[fmt.EntityMention],
    subtopic_numbers: dict[tuple[Split, str], int],
    names: dict[str, dict[str, str]],
) -> int:
    by_doc: dict[str, list[fmt.ConllToken]] = defaultdict(list)
    for token in tokens:
        by_doc[token.doc_id].append(token)
        subtopic_numbers.setdefault((split, token.topic), len(subtopic_numbers))
    mentions_by_doc: dict[str, list[fmt.EntityMention]] = defaultdict(list)
    for entity in entities:
        mentions_by_doc[entity.doc_id].append(entity)
    joined = 0
    for doc_id, doc_tokens in by_doc.items():
        topic = doc_tokens[0].topic
        document = SourceDocument(
            topic_id=TOPIC_ID,
            topic=TOPIC,
            subtopic_id=str(subtopic_numbers[(split, topic)]),
            subtopic=f"{split}_{topic}",
            doc_id=doc_id,
            doc=_document_name(doc_id, names),
            split=split,
            tokens=[],
            source_file=f"{CORPUS_DIR}/{stem}.conll",
        )
        kept = _check_mentions(corpus, document, doc_tokens, mentions_by_doc.pop(doc_id, []), stem)
        sentence_of, joined_here = _joined_sentences(doc_tokens, kept)
        joined += joined_here
        document.tokens = [SourceToken(str(t.token_id), t.text, sentence_of[t.sentence_id]) for t in doc_tokens]
        corpus.documents.append(document)
        corpus.mentions.extend(_mention(document, entity, stem) for entity in kept)
    for doc_id, orphans in mentions_by_doc.items():
        for entity in orphans:
            _drop(corpus, f"{TOPIC_ID}/?/{doc_id}", entity, stem, f"document {doc_id} is not in {stem}.conll")
    return joined


def _check_mentions(
    corpus: SourceCorpus,
    document: SourceDocument,
    doc_tokens: list[fmt.ConllToken],
    entities: list[fmt.EntityMention],
    stem: str,
) -> list[fmt.EntityMention]:
    known = {t.token_id for t in doc_tokens}
    kept = []
    for entity in entities:
        unknown = [t for t in entity.token_ids if t not in known]
        if unknown:
            _drop(corpus, document.doc_key, entity, stem, f"token ids {unknown} are not in the CoNLL document")
        elif entity.topic != doc_tokens[0].topic:
            _drop(corpus, document.doc_key, entity, stem, f"topic {entity.topic} differs from its document's topic")
        else:
            kept.append(entity)
    return kept


def _drop(corpus: SourceCorpus, doc_key: str, entity: fmt.EntityMention, stem: str, reason: str) -> None:
    corpus.dropped.append(
        DroppedMention(doc_key, f"{stem}:{entity.index}", str(list(entity.token_ids)), entity.text, reason, "read")
    )


def _joined_sentences(
    doc_tokens: list[fmt.ConllToken], entities: list[fmt.EntityMention]
) -> tuple[dict[int, int], int]:
    """Original sentence id -> new sentence id, joining the sentences each mention spans; and #boundaries removed."""
    sentence_of_token = {t.token_id: t.sentence_id for t in doc_tokens}
    sentences = sorted({t.sentence_id for t in doc_tokens})
    joined_after: set[int] = set()  # sentence s is joined with the next one
    for entity in entities:
        spanned = sorted({sentence_of_token[t] for t in entity.token_ids})
        joined_after.update(s for s in sentences if spanned[0] <= s < spanned[-1])
    mapping: dict[int, int] = {}
    number = 0
    for sentence in sentences:
        mapping[sentence] = number
        if sentence not in joined_after:
            number += 1
    return mapping, len(joined_after)


def _mention(document: SourceDocument, entity: fmt.EntityMention, stem: str) -> SourceMention:
    return SourceMention(
        doc_key=document.doc_key,
        token_ids=tuple(str(t) for t in sorted(set(entity.token_ids))),
        chain_id=entity.cluster_id,
        kind="entity",
        full_type=OTHER_TYPE,  # replaced by the chain's majority head NER in finalize_chains
        description="",
        source_id=f"{stem}:{entity.index}",
        attributes={"text": entity.text},
    )


def finalize_chains(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """Chain type = majority head NER (O -> OTHER; ties alphabetical); description = sorted distinct heads."""
    chains: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        chains[record["coref_chain"]].append(record)
    for chain in chains.values():
        counts = Counter(OTHER_TYPE if r["mention_ner"] in ("", "O") else r["mention_ner"] for r in chain)
        full_type = min(counts, key=lambda t: (-counts[t], t))
        description = "_".join(sorted({r["mention_head"] for r in chain}))
        for record in chain:
            record["mention_full_type"], record["mention_type"] = full_type, full_type[:3]
            record["description"] = description
    return records, []


SPEC = register(
    DatasetSpec(
        id="cd2cr",
        paper_name="CD2CR",
        reference_name="CD2CR",
        raw_folder="CD2CR",
        mention_kinds=("entity",),
        licence="GPL-3.0 (software licence of the cdcrtool repository; no separate data licence)",
        read=read_cd2cr,
        finalize=finalize_chains,
        description="Cross-domain entity coreference: science news articles paired with the papers they report on.",
        mention_id_prefix="CD2CR_",
    )
)
